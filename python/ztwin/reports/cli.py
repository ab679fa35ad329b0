"""``ztwin report``: Performance Toolkit style reports from a MONWRITE file.

Exit codes: 0 success; 2 bad usage (unknown report, bad time, --from not
before --to), a file that cannot be opened or read, or no data to report.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ztwin.monitor import MonwriteError
from ztwin.reports import REPORTS, ReportError, Window, build_from, collect, resolve_names, spec

if TYPE_CHECKING:
    from ztwin.reports.model import Report

EXIT_OK = 0
EXIT_FATAL = 2
#: Reports that need no sample interval (configuration only).
CONFIG_ONLY = {"MONSET", "SYSCONF", "UCONF"}


def _error(message: str) -> int:
    print(f"ztwin report: {message}", file=sys.stderr)
    return EXIT_FATAL


def _write(reports: dict[str, Report], fmt: str, out: TextIO) -> None:
    """Stream the reports to ``out`` (rows are computed as they are written)."""
    if fmt == "json":
        for r in reports.values():
            r.write_json(out)
        return
    if fmt == "csv":
        for i, r in enumerate(reports.values()):
            if len(reports) > 1:
                out.write(("\n" if i else "") + f"# {r.fcx} {r.name}\n")
            r.write_csv(out)
        return
    from ztwin.reports.text import run_time

    when = run_time()
    for i, r in enumerate(reports.values()):
        if i:
            out.write("\n")
        r.write_text(out, when)


def _trend_opts(args: argparse.Namespace) -> dict[str, object]:
    from ztwin.reports.trend import parse_hours

    return {"by": args.by or "day", "hours": parse_hours(args.hours), "weekdays": args.weekdays}


def cmd_report(args: argparse.Namespace) -> int:
    try:
        names = resolve_names(args.reports)
        if args.by and "TREND" not in names:
            names = [*(names if args.reports else []), "TREND"]
        window = Window.parse(args.start, args.end)
        opts = _trend_opts(args)
    except ReportError as e:
        return _error(str(e))
    if args.db is not None:
        if args.file is not None:
            return _error("give either FILE or --db, not both")
        return _report_db(args, names, opts)
    if args.file is None:
        return _error("give a MONWRITE FILE or --db PATH")
    path: str = args.file
    if Path(path).is_dir():
        return _error(f"cannot open {path}: Is a directory")
    users = [u.upper() for u in args.users] if args.users else None
    needs_logs = any(spec(n).user_logs for n in names)
    try:
        iv = collect(path, args.start, args.end, users=set(users) if users and needs_logs else None)
    except MonwriteError as e:
        return _error(f"{path}: offset {e.offset} (X'{e.offset:X}'): {e.reason}")
    except ReportError as e:
        return _error(str(e))
    except OSError as e:
        return _error(f"cannot open {path}: {e.strerror or e}")
    stats = iv.stats
    if stats is not None and stats["damage_count"]:
        first = stats["damage"][0]
        print(
            f"ztwin report: warning: {path}: {stats['damage_count']} damaged span(s) skipped "
            f"({stats['damaged_bytes']} bytes), the first at offset {first['offset']}: {first['reason']}",
            file=sys.stderr,
        )
    if stats is not None and stats.get("longer_warning"):
        print(f"ztwin report: warning: {path}: {stats['longer_warning']}", file=sys.stderr)
    if not iv.intervals and any(n not in CONFIG_ONLY for n in names):
        if window.interim and iv.data_start is not None:
            span = f"the file has samples from {iv.data_start:%Y/%m/%d %H:%M:%S} to {iv.data_end:%Y/%m/%d %H:%M:%S}"
            return _error(f"no complete sample interval between --from and --to ({span})")
        return _error(f"{path}: no complete sample interval (the file needs two sample sets with data)")
    reports = build_from(iv, names, users, **opts)
    return _output(args, reports, path)


#: The window totals each report reads (the rest read per-interval system sums
#: or the configuration only).
TOTALS_NEEDED = {
    "CPU": ("cpu",), "LPAR": ("lpar", "cpu"), "USTAT": ("user",), "UPAGE": ("user",),
    "DEVICE": ("device", "exposure"), "CPOWNED": ("exposure", "device"),
}  # fmt: skip


def _report_db(args: argparse.Namespace, names: list[str], opts: dict[str, object]) -> int:
    """Reports over a window of a history database."""
    from ztwin.history import HistoryError, open

    users = [u.upper() for u in args.users] if args.users else None
    need = {e for n in names for e in TOTALS_NEEDED.get(n, ())}
    try:
        with open(args.db) as h:
            iv = h.intervals(args.system, args.start, args.end, detail=bool(users), totals=need)
    except HistoryError as e:
        return _error(str(e))
    reports = build_from(iv, names, users, **opts)
    return _output(args, reports, args.db)


def _output(args: argparse.Namespace, reports: dict[str, Report], path: str) -> int:
    if args.html:
        from ztwin.reports.html import write_html

        try:
            out = write_html(reports, args.html, path)
        except ReportError as e:
            return _error(str(e))
        except OSError as e:
            return _error(f"cannot write {args.html}: {e.strerror or e}")
        print(f"{out / 'index.html'}")
        return EXIT_OK
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    _write(reports, args.format, sys.stdout)
    sys.stdout.flush()
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``report`` subcommand to the ``ztwin`` parser."""
    listing = "\n".join(f"  {s.name:<9} {s.fcx}  {s.title}" for s in REPORTS.values())
    p = sub.add_parser(
        "report",
        help="Performance Toolkit style reports (SYSSUMLG, USTAT, DEVICE, ...) from a MONWRITE file",
        description="Performance Toolkit style reports computed from the records of a MONWRITE file.",
        epilog=f"reports (all when no -r is given; FCX numbers work too):\n{listing}\n\n"
        "Times are the monitored system's local time; --from/--to make INTERIM reports over the "
        "intervals that lie between them (with --db: YYYY-MM-DD HH:MM:SS). -r TREND (or --by hour|day) "
        "rolls the system figures up by hour or day, optionally over --hours and --weekdays only.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", nargs="?", help="MONWRITE file (or --db)")
    p.add_argument("--db", metavar="PATH", help="report from a history database instead (ztwin ingest)")
    p.add_argument("--system", metavar="ID", help="the system of the database to report on (needed when it holds several)")
    p.add_argument("--by", choices=("hour", "day"), help="add the TREND report: system figures rolled up by hour or day")
    p.add_argument("--hours", metavar="H-H", help="TREND: only intervals ending in these hours (peak hours, e.g. 9-17)")
    p.add_argument("--weekdays", action="store_true", help="TREND: only Monday to Friday")
    p.add_argument("-r", "--report", action="append", dest="reports", metavar="NAME", help="a report to produce (repeatable)")
    p.add_argument("--from", dest="start", metavar="HH:MM:SS", help="first interval start (or YYYY-MM-DD HH:MM:SS)")
    p.add_argument("--to", dest="end", metavar="HH:MM:SS", help="last interval end (or YYYY-MM-DD HH:MM:SS)")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output format (default text)")
    p.add_argument("--html", metavar="DIR", help="write an index and one HTML page per report into DIR")
    p.add_argument(
        "-u", "--user", action="append", dest="users", metavar="USERID", help="user for USTATLOG/UPAGELOG (repeatable)"
    )
    p.set_defaults(handler=cmd_report)
