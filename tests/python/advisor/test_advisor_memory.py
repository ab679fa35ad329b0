"""ztwin diagnose in bounded memory: its peak RSS does not grow with the
number of intervals (per-key figures go to a temporary store, read back per
interval: ztwin.advisor.tables). 621 users for 20 and for 80 intervals; before
the store the longer file took about 100 MB more."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ztwin.twin import Scenario

SCENARIO = """
[scenario]
duration = "{minutes}m"
start = "2024-03-04T06:00:00Z"
[system]
system_id = "MANY"
processors = 8
central_storage = "64G"
[monitor]
sample_interval = "60s"
[[paging]]
device_type = "3390-9"
count = 8
first_address = "0A00"
volser_prefix = "PAG"
[[dasd]]
device_type = "3390-9"
count = 32
first_address = "0B00"
volser_prefix = "USR"
[[guest]]
userid = "CMS"
count = 500
virtual_storage = "32M"
[[guest]]
userid = "LNX"
count = 100
virtual_storage = "2G"
workload = {{ type = "cpu", utilization = 0.2 }}
[[guest]]
userid = "DB"
count = 21
virtual_storage = "1G"
workload = {{ type = "minidisk_io", device = "0B00+", think = "50ms" }}
"""

PEAK = """
import resource, sys
from ztwin.advisor import diagnose
d = diagnose(sys.argv[1])
assert len(d.period.intervals) > 10, len(d.period.intervals)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss_mb(path: Path) -> float:
    out = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True, text=True, check=True, timeout=300)
    return int(out.stdout.strip()) / 1024  # KiB on Linux


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    d = tmp_path_factory.mktemp("many")
    out = {}
    for minutes in (20, 80):
        sc = d / f"m{minutes}.toml"
        sc.write_text(SCENARIO.format(minutes=minutes))
        out[minutes] = d / f"m{minutes}.monwrite"
        Scenario.load(sc).run(out[minutes])
    return out


def test_peak_rss_does_not_grow_with_the_intervals(files: dict[int, Path]) -> None:
    short, long = peak_rss_mb(files[20]), peak_rss_mb(files[80])
    assert files[80].stat().st_size > 3.5 * files[20].stat().st_size
    assert long - short < 20, (short, long)


def test_the_store_gives_the_figures_the_dicts_gave(files: dict[int, Path]) -> None:
    from ztwin.advisor import diagnose, evaluate, load_rules
    from ztwin.advisor.facts import period_from
    from ztwin.reports.core import Window, collect

    streamed = diagnose(files[20])
    iv = collect(files[20], users="all", devices="all", exposures="all")
    in_memory = period_from(iv, Window())
    assert [i.index for i in streamed.period.intervals] == [i.index for i in in_memory.intervals]
    for a, b in zip(streamed.period.intervals, in_memory.intervals, strict=True):
        assert dict(a.users.items()) == dict(b.users.items())
        assert dict(a.devices.items()) == dict(b.devices.items())
        assert dict(a.exposures.items()) == dict(b.exposures.items())
    findings = evaluate(in_memory, load_rules())
    assert [(f.id, f.severity, f.explanation) for f in streamed.findings] == [
        (f.id, f.severity, f.explanation) for f in findings
    ]
