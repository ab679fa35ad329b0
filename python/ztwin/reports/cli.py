"""``ztwin report``: Performance Toolkit style reports from a MONWRITE file.

Exit codes: 0 success; 2 bad usage (unknown report, bad time, --from not
before --to, a -u user the file does not have), a file that cannot be opened or
read, an output path that must not be written, collections of several systems
without --system, or no data to report.

Outputs (``-o FILE``, ``--html DIR``) are checked before the file is read and
written through :mod:`ztwin.safeout`.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ztwin.monitor import DamageWarning, MonwriteError, damage_text
from ztwin.reports import REPORTS, ReportError, Window, build_from, resolve_names, spec
from ztwin.reports.core import collect_file, implausible_text
from ztwin.safeout import OutputDir, OutputError, OutputFile
from ztwin.segments import SegmentError

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
    if args.db is not None and args.file is not None:
        return _error("give either FILE or --db, not both")
    if args.db is None and args.file is None:
        return _error("give a MONWRITE FILE or --db PATH")
    if args.db is not None and args.segment is not None:
        return _error("--segment picks a collection of a MONWRITE FILE, not of --db")
    source: str = args.db if args.db is not None else args.file
    if args.file is not None and Path(source).is_dir():
        return _error(f"cannot open {source}: Is a directory")
    # Outputs are checked before anything is read.
    try:
        out = _outputs(args, source)
    except OutputError as e:
        return _error(str(e))
    if args.db is not None:
        return _report_db(args, names, opts, out)
    path = source
    users = [u.upper() for u in args.users] if args.users else None
    needs_logs = any(spec(n).user_logs for n in names)
    try:
        # one read of the file (a file of several collections is read again as chosen)
        iv = collect_file(path, args.start, args.end, system=args.system, segment=args.segment,
                          users=set(users) if users and needs_logs else None,
                          note=lambda n: print(f"ztwin report: note: {n}", file=sys.stderr),
                          detail=any(spec(n).detail for n in names),
                          nss="NSS" in names)  # fmt: skip
    except SegmentError as e:
        return _error(str(e))
    except MonwriteError as e:
        return _error(f"{path}: offset {e.offset} (X'{e.offset:X}'): {e.reason}")
    except ReportError as e:
        return _error(str(e))
    except OSError as e:
        return _error(f"cannot open {path}: {e.strerror or e}")
    # An error that ends the command carries the damage in its one line; on
    # success the damage is a warning.
    damage = damage_text(iv.stats)
    also = f"; {damage}" if damage else ""
    if not iv.intervals and any(n not in CONFIG_ONLY for n in names):
        if window.interim and iv.data_start is not None:
            span = f"the file has samples from {iv.data_start:%Y/%m/%d %H:%M:%S} to {iv.data_end:%Y/%m/%d %H:%M:%S}"
            return _error(f"{path}: no complete sample interval between --from and --to ({span}){also}")
        return _error(f"{path}: no complete sample interval (the file needs two sample sets with data){also}")
    if users and needs_logs:
        unknown = [u for u in users if u not in iv.seen_users and u not in iv.config.users]
        if unknown:
            return _error(_no_such_users(unknown, iv.seen_users | set(iv.config.users), path, iv.stopped_early))
    if damage:
        print(f"ztwin report: warning: {path}: {damage}", file=sys.stderr)
    bad = implausible_text(iv)
    if bad:
        print(f"ztwin report: warning: {path}: {bad}", file=sys.stderr)
    if iv.stats is not None and iv.stats.get("longer_warning"):
        print(f"ztwin report: warning: {path}: {iv.stats['longer_warning']}", file=sys.stderr)
    # The warning above said the damage once; the reports that read records again
    # (the I/O path's) would warn once per read.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamageWarning)
        reports = build_from(iv, names, users, **opts)
        return _output(args, reports, path, out)


def _outputs(args: argparse.Namespace, source: str) -> OutputDir | OutputFile | None:
    """The checked output (``--html DIR``, ``-o OUT``) or None for stdout."""
    if args.html:
        return OutputDir(args.html, owner="ztwin report", inputs=[source], force=args.force)
    if args.output is not None:
        return OutputFile(args.output, inputs=[source], force=args.force)
    return None


def _no_such_users(unknown: list[str], known: set[str], path: str, partial: bool) -> str:
    names = ", ".join(unknown)
    where = f"{path} up to the end of the window" if partial else path
    some = sorted(known)
    seen = f"{len(some)} user(s) seen: {', '.join(some[:8])}{', ...' if len(some) > 8 else ''}" if some else "no users seen"
    s = "" if len(unknown) == 1 else "s"
    return f"-u {names}: no user{s} of that name in {where} ({seen})"


#: The window totals each report reads (the rest read per-interval system sums
#: or the configuration only).
TOTALS_NEEDED = {
    "CPU": ("cpu",), "LPAR": ("lpar", "cpu"), "LPARLOG": ("lpar",), "PHYSLOG": ("lpar",),
    "PROCLOG": ("cpu", "lpar"), "LSHARACT": ("lpar",),
    "USTAT": ("user",), "UPAGE": ("user",),
    "DEVICE": ("device", "exposure"), "CPOWNED": ("exposure", "device"),
}  # fmt: skip


def _report_db(
    args: argparse.Namespace, names: list[str], opts: dict[str, object], out: OutputDir | OutputFile | None
) -> int:
    """Reports over a window of a history database."""
    from ztwin.history import HistoryError, open

    users = [u.upper() for u in args.users] if args.users else None
    need = {e for n in names for e in TOTALS_NEEDED.get(n, ())}
    try:
        with open(args.db) as h:
            detail = bool(users) or any(spec(n).detail for n in names)
            iv = h.intervals(args.system, args.start, args.end, detail=detail, totals=need)
    except HistoryError as e:
        return _error(str(e))
    reports = build_from(iv, names, users, **opts)
    return _output(args, reports, args.db, out)


def _output(args: argparse.Namespace, reports: dict[str, Report], path: str, out: OutputDir | OutputFile | None) -> int:
    if isinstance(out, OutputDir):
        from ztwin.reports.html import write_html

        try:
            where = write_html(reports, out, path)
        except OutputError as e:
            return _error(str(e))
        except OSError as e:
            return _error(f"cannot write {args.html}: {e.strerror or e}")
        print(f"{where / 'index.html'}")
        return EXIT_OK
    if out is None:
        _write(reports, args.format, sys.stdout)
        return EXIT_OK
    try:
        with out:
            with out.open("w", encoding="utf-8", newline="") as f:
                _write(reports, args.format, f)
            out.commit()
    except OutputError as e:
        return _error(str(e))
    except OSError as e:
        return _error(f"cannot write {args.output}: {e.strerror or e}")
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
    p.add_argument(
        "--system",
        metavar="ID",
        help="the system to report on, in a database or in a file joining collections of several systems",
    )
    p.add_argument("--segment", type=int, metavar="N", help="only collection N of a file joining several (from 1)")
    p.add_argument("--by", choices=("hour", "day"), help="add the TREND report: system figures rolled up by hour or day")
    p.add_argument("--hours", metavar="H-H", help="TREND: only intervals ending in these hours (peak hours, e.g. 9-17)")
    p.add_argument("--weekdays", action="store_true", help="TREND: only Monday to Friday")
    p.add_argument("-r", "--report", action="append", dest="reports", metavar="NAME", help="a report to produce (repeatable)")
    p.add_argument("--from", dest="start", metavar="HH:MM:SS", help="first interval start (or YYYY-MM-DD HH:MM:SS)")
    p.add_argument("--to", dest="end", metavar="HH:MM:SS", help="last interval end (or YYYY-MM-DD HH:MM:SS)")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output format (default text)")
    dest = p.add_mutually_exclusive_group()
    dest.add_argument("-o", "--output", metavar="OUT", help="write the reports to OUT (atomically) instead of stdout")
    dest.add_argument(
        "--html",
        metavar="DIR",
        help="write an index and one HTML page per report into DIR (new, empty, or written by ztwin before)",
    )
    p.add_argument("--force", action="store_true", help="if OUT or DIR is a symbolic link, write where it points")
    p.add_argument(
        "-u", "--user", action="append", dest="users", metavar="USERID", help="user for USTATLOG/UPAGELOG (repeatable)"
    )
    p.set_defaults(handler=cmd_report)
