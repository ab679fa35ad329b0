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
    p.add_argument("scenario", help="z/OS partition scenario file (TOML)")
    p.add_argument("--pagescm", default=None, help="override IEASYSxx PAGESCM: ALL, NONE or a size")
    p.add_argument("--json", action="store_true", help="print the run's records and figures as JSON")
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


def cmd_zos(args: argparse.Namespace) -> int:
    r = zos.run(Path(args.scenario), pagescm=args.pagescm)
    figs = zos.figures(r)
    if args.json:
        json.dump({"figures": figs, **r.doc}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    w = sys.stdout.write
    w(f"z/OS partition {r.doc['partition']}: real {r.doc['real_bytes'] / zos.GB:.1f} GB, "
      f"SCM {r.doc['scm_bytes'] / zos.GB:.0f} GB, {r.doc['ds_count']} local page data sets on {r.doc['ds_lcus']} LCUs; "
      f"{r.doc['aux_at_start_bytes'] / zos.GB:.2f} GB on auxiliary storage when the online work starts\n")
    for k, v in figs.items():
        w(f"  {k:<26} {'-' if v is None else v}\n      {zos.DERIVATION[k]}\n")
    for line in activity(r):
        w(line + "\n")
    return 0
