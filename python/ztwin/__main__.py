"""``python -m ztwin``: the ``ztwin`` command line."""

import sys

from ztwin.cli import main

sys.exit(main())
