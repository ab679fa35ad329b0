"""Reading and reporting keeps memory flat in the number of intervals: the
kernel's tables are taken a step at a time, kept as Arrow batches and spilled
to a temporary file beyond a budget (ztwin.reports.store), and the by-time
reports are computed and written a batch at a time. The step, the batch
size (the stores gather the steps' rows into batches of BATCH_ROWS) and the
budget are made small here so that a small file already uses them all; a
file five times longer then costs no more memory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from builders import write_synthetic

PROBE = """
import resource, sys
import ztwin.reports.core as core, ztwin.reports.store as store
core.COLLECT_STEP = 100
store.SPILL_BYTES = 256 * 1024
store.BATCH_ROWS = 64
from ztwin.reports import build_from, collect
def peak(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
iv = collect(sys.argv[1])
after_read = peak()
reps = build_from(iv)
class Count:
    n = 0
    def write(self, s): self.n += len(s)
out = Count()
for r in reps.values():
    r.write_text(out)
    r.write_json(out)
    r.write_csv(out)
print(after_read, peak(), out.n, len(iv.intervals), iv.intervals.system.spilled_bytes)
"""


def measure(path: Path) -> tuple[float, float, float, int, int]:
    """Peak RSS (MB) after reading, after reporting; output size (MB); intervals; bytes spilled."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, check=True, timeout=300
    ).stdout.split()
    return int(out[0]) / 1024, int(out[1]) / 1024, int(out[2]) / 2**20, int(out[3]), int(out[4])


def test_peak_memory_does_not_grow_with_the_number_of_intervals(tmp_path: Path) -> None:
    small = write_synthetic(tmp_path / "small.monwrite", intervals=400, users=20, devices=10)
    big = write_synthetic(tmp_path / "big.monwrite", intervals=2000, users=20, devices=10)
    data_mb = (big.stat().st_size - small.stat().st_size) / 2**20
    assert data_mb > 30
    read_s, all_s, out_s, n_s, spill_s = measure(small)
    read_b, all_b, out_b, n_b, spill_b = measure(big)
    assert (n_s, n_b) == (399, 1999)
    assert spill_s > 0 and spill_b > 4 * spill_s  # both spilled; the longer file 5x as much
    assert out_b > 4 * out_s  # the by-time reports did get longer
    # 1600 more intervals (about 2 KB of sums each, 3 MB) and 5x the output: no more memory
    # (a few hundred KB of allocator noise and batch bookkeeping at most)
    assert read_b - read_s < 1.0, (read_s, read_b, data_mb)
    assert all_b - all_s < 1.0, (all_s, all_b, data_mb)
