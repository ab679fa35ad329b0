"""Reports on the twin's own output against what the scenario fixes.

Two paging volumes whose every I/O takes exactly 0.2 ms pending plus 2.9 ms
connect (no jitter, no disconnect, no per-page connect time), so the service
time is 3.1 ms; one guest writes a 500 MB area serially into 256 MB of central
storage, so both volumes page. The truths: service 3.1 ms on every volume;
device busy = I/O rate x 2.9 ms of connect time; the SSCHs CP counts per
processor (D0R1) equal the SSCHs the devices count (D6R3) and the paging
exposures count (D3R4) - three different records.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.reports import build
from ztwin.twin import Scenario

SCENARIO = """
[scenario]
name = "truth"
description = "fixed 3.1 ms paging service"
duration = "90s"
seed = 3
start = "2024-01-01T00:00:00Z"

[system]
cp_level = "5.4"
system_id = "TRUTH"
cpu_model = "2094-710"
lpar_name = "LPT"
processors = 2
processor_type = "IFL"
central_storage = "256M"
xstor = "0"

[monitor]
sample_interval = "10s"
hf_rate = "1s"

[[paging]]
device_type = "3390-9"
count = 2
first_address = "0A00"
volser_prefix = "TPG"
service = { pending_ms = 0.2, disconnect_ms = 0.0, connect_ms_per_io = 2.9, connect_ms_per_page = 0.0, jitter = 0.0 }

[[guest]]
userid = "THRASH"
virtual_storage = "768M"
workload = { type = "thrasher", area = "500M", pattern = "serial", touch = "write", cpu_per_touch_us = 1.0 }
"""


@pytest.fixture(scope="module")
def twin_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("twin")
    (d / "truth.toml").write_text(SCENARIO, encoding="utf-8")
    out = d / "truth.monwrite"
    Scenario.load(d / "truth.toml").run(out)
    return out


def test_fixed_service_time_and_busy(twin_file: Path) -> None:
    reps = build(twin_file, ["DEVICE", "CPOWNED", "SYSSUMLG"])
    devs = [r for r in reps["DEVICE"].rows if r["addr"] in ("0A00", "0A01")]
    assert len(devs) == 2
    for d in devs:
        assert d["io_rate"] > 50  # the volumes really page
        # 128 us measurement units truncate once per sample: far below rounding
        assert d["pend_ms"] == pytest.approx(0.2, abs=0.005)
        assert d["conn_ms"] == pytest.approx(2.9, abs=0.005)
        assert d["disc_ms"] == pytest.approx(0.0, abs=0.005)
        assert d["serv_ms"] == pytest.approx(3.1, abs=0.005)
        # Perfkit's %Busy: I/O rate x service time (pending included)
        assert d["busy_pct"] == pytest.approx(d["io_rate"] * 3.1 / 10, rel=0.005)
    cp = {r["addr"]: r for r in reps["CPOWNED"].rows}
    for d in devs:
        assert cp[d["addr"]]["serv_ms"] == pytest.approx(3.1, abs=0.005)
        assert cp[d["addr"]]["area_type"] == "PAGE"


def test_io_counts_agree_across_three_record_types(twin_file: Path) -> None:
    reps = build(twin_file, ["DEVICE", "CPOWNED", "SYSSUMLG"])
    mean = reps["SYSSUMLG"].rows[0]
    seconds = mean["seconds"]
    device_ios = sum(r["ios"] for r in reps["DEVICE"].rows if not r["addr"].startswith(">>"))
    exposure_ios = sum(r["ssch_rate"] * r["seconds"] for r in reps["CPOWNED"].rows)
    cp_ssch = mean["ssch_rate"] * seconds
    assert device_ios > 1000
    assert exposure_ios == pytest.approx(device_ios, abs=0.5)
    assert cp_ssch == pytest.approx(device_ios, abs=0.5)
