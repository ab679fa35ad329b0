#!/usr/bin/env python3
"""`ztwin diagnose` in bounded memory: peak RSS and wall time on the shape of
a day of production data (2,821 users x 690 one-minute intervals, about
1.3 GB; benches/scenarios/diagnose-day.toml), and on a sixth of it, to show the
peak does not grow with the intervals.

    .venv/bin/python benches/diagnose.py            # make bench: 115 and 690 intervals
    .venv/bin/python benches/diagnose.py --quick    # make bench-quick: 30 and 120 intervals

Each diagnose runs in its own process; its peak RSS is that process's
ru_maxrss. Results (keys diagnose_*) are merged into bench-results.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from results import merge_into

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "benches/scenarios/diagnose-day.toml"
KEYS = ("diagnose_runs", "diagnose_peak_rss_mb", "diagnose_wall_s", "diagnose_file_mb", "diagnose_intervals")

CHILD = """
import json, resource, sys, time
from ztwin.advisor import diagnose
t = time.perf_counter()
d = diagnose(sys.argv[1])
wall = time.perf_counter() - t
print(json.dumps({"intervals": len(d.period.intervals), "findings": len(d.findings), "wall_s": round(wall, 2),
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def write_file(work: Path, minutes: int) -> Path:
    text = re.sub(r'duration = "\d+m"', f'duration = "{minutes}m"', SCENARIO.read_text())
    sc = work / f"day-{minutes}.toml"
    sc.write_text(text)
    out = work / f"day-{minutes}.monwrite"
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ztwin", "run", str(sc), "-o", str(out), "-q"], check=True)
    print(f"  twin: {minutes} min in {time.perf_counter() - t:.1f} s, {out.stat().st_size / 1e6:,.0f} MB", flush=True)
    return out


def measure(path: Path) -> dict[str, Any]:
    p = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True)
    r: dict[str, Any] = json.loads(p.stdout)
    r["file_mb"] = round(path.stat().st_size / 1e6, 1)
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="30 and 120 intervals instead of 115 and 690")
    a = ap.parse_args()
    sizes = (31, 121) if a.quick else (116, 691)  # one more minute: the first set is a baseline
    runs = []
    with tempfile.TemporaryDirectory(prefix="ztwin-bench-diagnose-") as d:
        for minutes in sizes:
            path = write_file(Path(d), minutes)
            r = measure(path)
            print(f"  diagnose: {r['intervals']} intervals, {r['file_mb']:,.0f} MB: peak RSS {r['peak_rss_mb']} MB, "
                  f"{r['wall_s']} s", flush=True)
            runs.append(r)
            path.unlink()
    big = runs[-1]
    merge_into(ROOT / "bench-results.json", KEYS, {
        "diagnose_runs": runs, "diagnose_peak_rss_mb": big["peak_rss_mb"], "diagnose_wall_s": big["wall_s"],
        "diagnose_file_mb": big["file_mb"], "diagnose_intervals": big["intervals"],
    })  # fmt: skip
    print(f"diagnose: {platform.node()}; peak RSS {runs[0]['peak_rss_mb']} MB at {runs[0]['intervals']} intervals, "
          f"{big['peak_rss_mb']} MB at {big['intervals']} (target: under 300 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
