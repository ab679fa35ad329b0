"""ztwin: a performance twin of IBM z/VM and a toolkit for CP Monitor data.

:mod:`ztwin.monitor` reads and writes MONWRITE files (records, pandas and Arrow
tables); :mod:`ztwin.cli` is the ``ztwin`` command line.
"""

from ztwin._native import __version__

__all__ = ["__version__"]
