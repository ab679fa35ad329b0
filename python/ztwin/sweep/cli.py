"""``ztwin sweep`` (run a sweep, ``ztwin sweep report DIR``) and ``ztwin compare``.

Exit codes: 0 success; 1 some runs failed (their errors are in the results);
2 bad usage, a bad sweep file or an output that cannot be written; 130
interrupted (run the same command again to finish).
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
from typing import Any

from ztwin.safeout import Terminated

EXIT_OK = 0
EXIT_FAILED_RUNS = 1
EXIT_FATAL = 2
EXIT_INTERRUPTED = 130

USAGE = """ztwin sweep SWEEP.toml --out DIR [--workers N] [--ray [ADDRESS]] [--db PATH | --no-db] [--keep-monwrite] [-q]
       ztwin sweep report DIR [--goal min:METRIC|max:METRIC] [--html OUT] [--json]"""


def _err(cmd: str, msg: str) -> int:
    print(f"ztwin {cmd}: {msg}", file=sys.stderr)
    return EXIT_FATAL


def _sigterm(_signo: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def cmd_sweep(args: argparse.Namespace) -> int:
    if args.spec == "report":
        return cmd_report(args)
    if args.dir is not None:
        return _err("sweep", f"unexpected argument {args.dir!r} (usage: {USAGE.splitlines()[0]})")
    if args.goal or args.html or args.json:
        return _err("sweep", "--goal, --html and --json belong to `ztwin sweep report DIR`")
    if not args.out:
        return _err("sweep", "--out DIR is required (results.parquet and the journal that makes a restart resume)")
    if args.workers is not None and args.workers < 1:
        return _err("sweep", "--workers must be at least 1")
    from ztwin.sweep import SweepError, execute, load
    from ztwin.sweep.store import DEFAULT_DB, StoreError

    try:
        sweep = load(args.spec)
    except SweepError as e:
        return _err("sweep", str(e))
    db = None if args.no_db else (args.db or DEFAULT_DB)
    quiet = args.quiet

    def on_start(todo: int, reused: int, backend: str) -> None:
        if not quiet:
            earlier = f" ({reused} finished earlier)" if reused else ""
            print(f"ztwin sweep: {sweep.name}: {todo} run(s) to do{earlier} on {backend}", file=sys.stderr)

    old = signal.signal(signal.SIGTERM, _sigterm)
    try:
        outcome = execute(
            sweep, args.out, workers=args.workers, ray=args.ray, db=db, keep_monwrite=args.keep_monwrite,
            progress=sys.stderr.isatty() and not quiet, on_start=on_start,
        )  # fmt: skip
    except KeyboardInterrupt:
        print(f"ztwin sweep: interrupted; the finished runs are kept in {args.out}: run the same command again to finish",
              file=sys.stderr)  # fmt: skip
        return EXIT_INTERRUPTED
    except (SweepError, StoreError) as e:
        return _err("sweep", str(e))
    except OSError as e:
        return _err("sweep", f"{getattr(e, 'filename', None) or args.out}: {e.strerror or e}")
    except RuntimeError as e:  # Ray missing or failing to start
        return _err("sweep", str(e).splitlines()[0])
    finally:
        signal.signal(signal.SIGTERM, old)
    out = outcome.out_dir
    if not quiet:
        db_text = f"; {outcome.db_rows} row(s) in {db}" if db is not None else ""
        print(
            f"ztwin sweep: {outcome.ran} ran, {outcome.reused} reused, {outcome.failed} failed in {outcome.wall_s:.1f} s"
            f" -> {out / 'results.parquet' if out else ''}{db_text}",
            file=sys.stderr,
        )
        if outcome.failed:
            print(f"ztwin sweep: first error: {outcome.first_error}", file=sys.stderr)
        print(f"ztwin sweep: see `ztwin sweep report {args.out}`", file=sys.stderr)
    return EXIT_FAILED_RUNS if outcome.failed else EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from ztwin.sweep import SweepError
    from ztwin.sweep import report as rpt
    from ztwin.sweep.store import StoreError

    if args.dir is None:
        return _err("sweep report", "give the sweep's output directory: ztwin sweep report DIR")
    if args.out or args.ray is not None or args.workers or args.keep_monwrite or args.db or args.no_db:
        return _err("sweep report", "--out, --workers, --ray, --db and --keep-monwrite belong to `ztwin sweep SWEEP.toml`")
    try:
        desc, table = rpt.load_results(args.dir)
        summary = rpt.summarize(desc, table)
        goal = rpt.goal_from(desc, args.goal, summary.numeric)
        if args.html:
            path = rpt.write_html(summary, goal, args.html)
            print(path / "index.html")
            return EXIT_OK
        if args.json:
            print(json.dumps(rpt.to_json(summary, goal), indent=1, allow_nan=False, default=str))
            return EXIT_OK
        sys.stdout.write(rpt.to_text(summary, goal))
    except (SweepError, StoreError) as e:
        return _err("sweep report", str(e))
    except OSError as e:
        return _err("sweep report", f"{e.filename or args.html}: {e.strerror or e}")
    except Terminated as e:
        return 128 + e.signum
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from ztwin.sweep import compare as cmp
    from ztwin.sweep.store import StoreError

    # NaN compares false with every difference (nothing marked), infinity marks nothing.
    if not math.isfinite(args.threshold) or args.threshold < 0:
        return _err("compare", f"--threshold {args.threshold:g}: must be a percentage of at least 0 (e.g. 5)")
    try:
        sections = cmp.compare(
            args.a, args.b, args.reports, args.start, args.end, args.threshold, args.intervals,
            on_damage=lambda text: print(f"ztwin compare: warning: {text}", file=sys.stderr),
        )  # fmt: skip
        if args.html:
            path = cmp.write_html(sections, args.a, args.b, args.threshold, args.html)
            print(path / "index.html")
            return EXIT_OK
    except cmp.CompareError as e:
        return _err("compare", str(e))
    except StoreError as e:
        return _err("compare", str(e))
    except OSError as e:
        return _err("compare", f"{e.filename or args.html}: {e.strerror or e}")
    except Terminated as e:
        return 128 + e.signum
    sys.stdout.write(cmp.to_text(sections, args.a, args.b, args.threshold, args.changed))
    return EXIT_OK


def register(sub: Any) -> None:
    """Add ``sweep`` and ``compare`` to the ``ztwin`` parser."""
    p = sub.add_parser(
        "sweep",
        help="run a what-if sweep (variants x seeds) on a process pool or Ray; `sweep report DIR` summarizes it",
        usage=USAGE,
        description="Run every variant of a sweep file once per seed and collect the metrics of each run "
        "(docs/sweeps.md). A restart with the same --out runs only the runs not finished yet.",
    )
    p.add_argument("spec", metavar="SWEEP.toml", help="the sweep file, or `report` followed by DIR")
    p.add_argument("dir", nargs="?", metavar="DIR", help=argparse.SUPPRESS)
    p.add_argument("--out", metavar="DIR", help="output directory: results.parquet, runs.jsonl, kept MONWRITE files")
    p.add_argument("--workers", type=int, metavar="N", help="parallel runs (default: [limits] workers or all cores)")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help="run on Ray: the cluster at ADDRESS, or a local Ray started here")
    p.add_argument("--db", metavar="PATH", help="history database to add the results to (default ztwin.duckdb)")
    p.add_argument("--no-db", action="store_true", help="do not write the results into a database")
    p.add_argument("--keep-monwrite", action="store_true", help="keep each run's MONWRITE file in DIR/monwrite/")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    p.add_argument("--goal", metavar="min:METRIC", help="(report) the goal for the best variant, e.g. min:page_wait_pct")
    p.add_argument("--html", metavar="OUT", help="(report) write the report with charts as OUT/index.html")
    p.add_argument("--json", action="store_true", help="(report) print JSON")
    p.set_defaults(handler=cmd_sweep)

    c = sub.add_parser(
        "compare",
        help="two runs' reports side by side with the differences marked",
        description="Build the same reports of two MONWRITE files (over the same --from/--to) and put each figure "
        "of A beside B, marking those that differ by --threshold percent or more.",
    )
    c.add_argument("a", metavar="A", help="first MONWRITE file")
    c.add_argument("b", metavar="B", help="second MONWRITE file")
    c.add_argument("-r", "--report", action="append", dest="reports", metavar="NAME", help="a report to compare (repeatable; default SYSCONF SYSSUMLG CPU STORAGE PAGELOG USTAT UPAGE DEVICE CPOWNED)")
    c.add_argument("--from", dest="start", metavar="HH:MM:SS", help="first interval start (or YYYY-MM-DD HH:MM:SS)")
    c.add_argument("--to", dest="end", metavar="HH:MM:SS", help="last interval end")
    c.add_argument("--threshold", type=float, default=5.0, metavar="PCT", help="mark figures that differ by PCT%% of A or more (default 5)")
    c.add_argument("--intervals", action="store_true", help="compare by-time reports interval by interval, not only their means")
    c.add_argument("--changed", action="store_true", help="(text) print only the marked figures")
    c.add_argument("--html", metavar="DIR", help="write the comparison with charts as DIR/index.html")
    c.set_defaults(handler=cmd_compare)
