"""Reading and reporting keeps memory flat: a file ten times longer (about
40 MB more records) costs about a kilobyte per interval (the intervals'
compact sums); report rows are computed while they are written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from builders import write_synthetic

PROBE = """
import resource, sys
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
print(after_read, peak(), out.n, len(iv.intervals))
"""


def measure(path: Path) -> tuple[float, float, float, int]:
    """Peak RSS (MB) after reading, after reporting; output size (MB); intervals."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, check=True, timeout=300
    ).stdout.split()
    return int(out[0]) / 1024, int(out[1]) / 1024, int(out[2]) / 2**20, int(out[3])


def test_peak_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    small = write_synthetic(tmp_path / "small.monwrite", intervals=100, users=60, devices=20)
    big = write_synthetic(tmp_path / "big.monwrite", intervals=1000, users=60, devices=20)
    data_mb = (big.stat().st_size - small.stat().st_size) / 2**20
    assert data_mb > 30
    read_s, all_s, out_s, n_s = measure(small)
    read_b, all_b, out_b, n_b = measure(big)
    assert (n_s, n_b) == (99, 999)
    # reading: the intervals' compact sums only (a few MB at most for 900 more intervals)
    assert read_b - read_s < 0.08 * data_mb, (read_s, read_b, data_mb)
    assert out_b > 5 * out_s  # the by-time reports did get longer
    # reporting streams the rows: no more than reading needed
    assert all_b - all_s < 0.08 * data_mb, (all_s, all_b, data_mb)
