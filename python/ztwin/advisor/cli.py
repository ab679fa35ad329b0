"""``ztwin diagnose``: the advisor on a MONWRITE file.

Exit codes: 0 success (whatever was found); 2 bad usage (a bad time, --from
not before --to, a bad rules file), a file that cannot be opened or read, or
no complete sample interval (in the window).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

from ztwin.advisor import AdvisorError, diagnose, diagnose_history
from ztwin.monitor import DamageWarning, damage_text

EXIT_OK = 0
EXIT_FATAL = 2


def _error(message: str) -> int:
    print(f"ztwin diagnose: {message}", file=sys.stderr)
    return EXIT_FATAL


def cmd_diagnose(args: argparse.Namespace) -> int:
    if (args.file is None) == (args.db is None):
        return _error("give a MONWRITE FILE or --db PATH (one of them)")
    path: str = args.file or args.db
    try:
        if args.db is not None:
            if args.segment is not None:
                return _error("--segment picks a collection of a MONWRITE FILE, not of --db")
            d = diagnose_history(args.db, args.system, args.start, args.end, rules=args.rules)
        else:
            # The checks that read records again (the I/O path's) would warn about the
            # damage once per read; it is said once below, from the interval pass.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DamageWarning)
                d = diagnose(path, args.start, args.end, rules=args.rules, system=args.system, segment=args.segment)
    except AdvisorError as e:
        return _error(str(e))
    for note in d.notes:
        print(f"ztwin diagnose: note: {note}", file=sys.stderr)
    damage = damage_text(d.stats)
    if damage:
        print(f"ztwin diagnose: warning: {path}: {damage}", file=sys.stderr)
    if d.implausible_note:
        print(f"ztwin diagnose: warning: {path}: {d.implausible_note}", file=sys.stderr)
    if d.stats is not None and d.stats.get("longer_warning"):
        print(f"ztwin diagnose: warning: {path}: {d.stats['longer_warning']}", file=sys.stderr)
    if args.json:
        sys.stdout.write(json.dumps(d.to_json(), indent=2) + "\n")
    else:
        sys.stdout.write(d.to_text())
    sys.stdout.flush()
    return EXIT_OK


def register(sub: Any) -> None:
    """Add the ``diagnose`` subcommand to the ``ztwin`` parser."""
    p = sub.add_parser(
        "diagnose",
        help="walk the experts' checklists over a MONWRITE file and report findings",
        description="Walk the case studies' checklists (CPU, storage, paging, I/O) over every sample "
        "interval of a MONWRITE file and report findings, most important first: evidence from the "
        "reports, an explanation and a recommendation.",
        epilog="Thresholds and persistence qualifiers: the built-in rules (docs/advisor.md); --rules FILE "
        "overrides any of them. Times are the monitored system's local time; intervals before --from "
        "serve as history (for example a device's usual disconnect time).",
    )
    p.add_argument("file", metavar="FILE", nargs="?", help="MONWRITE file (or --db)")
    p.add_argument("--db", metavar="PATH", help="judge a window of a history database instead (ztwin ingest)")
    p.add_argument(
        "--system",
        metavar="ID",
        help="the system to judge, in a database or in a file joining collections of several systems",
    )
    p.add_argument("--from", dest="start", metavar="HH:MM:SS", help="first interval start (or YYYY-MM-DD HH:MM:SS)")
    p.add_argument("--to", dest="end", metavar="HH:MM:SS", help="last interval end (or YYYY-MM-DD HH:MM:SS)")
    p.add_argument("--json", action="store_true", help='print JSON: {"findings": [...], ...}')
    p.add_argument("--rules", metavar="FILE", help="a TOML rules file merged over the built-in rules")
    p.add_argument("--segment", type=int, metavar="N", help="only collection N of a file joining several (from 1)")
    p.set_defaults(handler=cmd_diagnose)
