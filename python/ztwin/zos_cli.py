"""``ztwin zos SCENARIO``: run a z/OS partition scenario (docs/zos.md) and
print its figures and an RMF-style Page Data Set Activity table (the local
page data sets and the SCM line), or the records as JSON (``--json``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ztwin import zos


def register(sub: Any) -> None:
    p = sub.add_parser("zos", help="run a z/OS partition scenario (page data sets, Flash Express, dumps)")
    p.add_argument("scenario", nargs="?", help="z/OS partition scenario file (TOML); omit to read a run from --db")
    p.add_argument("--pagescm", default=None, help="override IEASYSxx PAGESCM: ALL, NONE or a size")
    p.add_argument("--json", action="store_true", help="print the run's records and figures as JSON")
    p.add_argument("--db", metavar="PATH", help="store the run's interval tables in this history database "
                   "(without SCENARIO: read a stored run from it)")
    p.add_argument("--system", metavar="ID", help="with --db and no SCENARIO: the partition")
    p.add_argument("--run", metavar="RUN", help="with --db and no SCENARIO: the run id")
    p.add_argument("--console", action="store_true", help="operator console on stdin: D ASM, D ASM,SCM, D M=SCM")
    p.add_argument("-r", "--report", action="append", choices=("PDSACT", "STORF"), type=str.upper,
                   help="RMF-style report: PDSACT (page data set activity), STORF (storage frames per address space)")
    p.add_argument("--interval", default="60s", help="report interval (default 60s)")
    p.add_argument("--diagnose", action="store_true", help="the z/OS advisor's findings")
    p.set_defaults(handler=cmd_zos)


def activity(r: zos.ZosRun) -> list[str]:
    """Page Data Set Activity: per local page data set its LCU, slots, use,
    I/O counts, pages written, busy and mean response; then the SCM line."""
    ivs = r.intervals
    secs = max(1.0, float(ivs[-1]["t_s"])) if ivs else 1.0
    out = [
        "PAGE DATA SET ACTIVITY (whole run)",
        f"{'TYPE':<6} {'DATA SET NAME':<22} {'LCU':>3} {'SLOTS':>9} {'USED':>9} {'READS':>9} {'WRITES':>8} "
        f"{'PAGES WR':>9} {'BUSY S':>8} {'RESP MS':>8}",
    ]
    for d in r.data_sets:
        out.append(
            f"{'LOCAL':<6} {d['name']:<22} {d['lcu']:>3} {d['slots']:>9} {d['used']:>9} {d['reads']:>9} "
            f"{d['writes']:>8} {d['pages_written']:>9} {d['busy_s']:>8.2f} {d['avg_resp_ms']:>8.3f}"
        )
    t = r.totals
    scm_slots = r.doc["scm_bytes"] // 4096
    used = ivs[-1]["scm_slots_used"] if ivs else 0
    if scm_slots:
        out.append(
            f"{'SCM':<6} {'N/A':<22} {'':>3} {scm_slots:>9} {used:>9} "
            f"{t['pagein_scm'] + t['pagein_scm_1m'] + t['pagein_spec']:>9} "
            f"{t['pageout_scm'] + t['pageout_scm_1m']:>8} {t['pageout_scm'] + 256 * t['pageout_scm_1m']:>9} "
            f"{'':>8} {(ivs[-1]['scm_resp_us'] / 1000 if ivs else 0.0):>8.3f}"
        )
    else:
        out.append(f"{'SCM':<6} {'not in use (PAGESCM=NONE or no allocation)':<40}")
    out.append(f"online phase {secs:.0f} s; SCM reads count requests (4 KB, 1 MB, speculative pages); "
               "SCM RESP MS: smoothed response at the end")
    return out


def console(scenario: str) -> int:
    """``ztwin console`` on a z/OS partition scenario: run it, then its
    operator console on stdin (``ztwin zos SCENARIO --console``)."""
    from ztwin import zos_console, zos_tables

    t = zos_tables.tables(zos.run(Path(scenario)))
    return zos_console.session(zos_console.ZosConsole(t), sys.stdin, sys.stdout, echo=not sys.stdin.isatty())


def _fail(msg: str) -> int:
    print(f"ztwin zos: {msg}", file=sys.stderr)
    return 2


def cmd_zos(args: argparse.Namespace) -> int:
    from ztwin import zos_advisor, zos_reports, zos_tables
    from ztwin.history import HistoryError
    from ztwin.safeout import OutputError, check_updatable
    from ztwin.units import parse_duration

    try:
        interval = parse_duration(args.interval)
        if not interval > 0:
            raise ValueError(f"{args.interval}: a report interval must be positive")
    except ValueError as e:
        return _fail(f"--interval {e}")
    r = None
    try:
        if args.scenario:
            if args.system or args.run:
                return _fail("--system and --run choose a stored run: give them with --db and no SCENARIO")
            if args.db:
                # The database is checked before the run, not after it.
                try:
                    check_updatable(args.db, inputs=[args.scenario])
                except OutputError as e:
                    return _fail(f"--db {e}")
            r = zos.run(Path(args.scenario), pagescm=args.pagescm)
            t = zos_tables.tables(r)
            if args.db:
                n = zos_tables.store(args.db, t)
                print(f"ztwin zos: {args.db}: partition {t.system} run {t.run}: {n} interval(s) added"
                      + ("" if n else " (already stored)"), file=sys.stderr)  # fmt: skip
        elif args.db:
            if args.json or args.pagescm:
                return _fail("--json and --pagescm need a SCENARIO (a stored run has only its tables)")
            t = zos_tables.load(args.db, args.system, args.run)
        else:
            return _fail("give a SCENARIO, or --db PATH to read a stored run")
    except HistoryError as e:
        return _fail(str(e))
    w = sys.stdout.write
    if args.console:
        from ztwin import zos_console

        return zos_console.session(zos_console.ZosConsole(t), sys.stdin, sys.stdout, echo=not sys.stdin.isatty())
    if args.json and r is not None:
        figs = zos.figures(r)
        json.dump({"figures": figs, **r.doc}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    if args.report or args.diagnose:
        for name in args.report or []:
            lines = (zos_reports.page_data_set_activity(t, interval) if name == "PDSACT"
                     else zos_reports.storage_frames(t, interval))  # fmt: skip
            for line in lines:
                w(line + "\n")
        if args.diagnose:
            w(zos_advisor.render(t, zos_advisor.diagnose(t)))
        return 0
    if r is None:
        for line in zos_reports.page_data_set_activity(t, interval):
            w(line + "\n")
        return 0
    figs = zos.figures(r)
    w(f"z/OS partition {r.doc['partition']}: real {r.doc['real_bytes'] / zos.GB:.1f} GB, "
      f"SCM {r.doc['scm_bytes'] / zos.GB:.0f} GB, {r.doc['ds_count']} local page data sets on {r.doc['ds_lcus']} LCUs; "
      f"{r.doc['aux_at_start_bytes'] / zos.GB:.2f} GB on auxiliary storage when the online work starts\n")
    for k, v in figs.items():
        w(f"  {k:<26} {'-' if v is None else v}\n      {zos.DERIVATION[k]}\n")
    for line in activity(r):
        w(line + "\n")
    return 0
