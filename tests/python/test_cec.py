"""The CEC ([lpar]): a simulated z/VM partition on a CEC whose other
partitions saturate the shared processors (study S8's shape), through the
MONWRITE file to the LPAR report and the advisor."""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.advisor import diagnose
from ztwin.reports import build
from ztwin.studies import run_study
from ztwin.studies.base import studies_dir
from ztwin.twin import Scenario, run

S8_SHAPE = """
[scenario]
duration = "5min"
seed = 7
start = "2026-01-05T08:00:00Z"
[system]
processors = 2
processor_type = "CP"
lpar_name = "ZVMLP"
central_storage = "2G"
xstor = "0"
[monitor]
sample_interval = "1min"
hf_rate = "1s"
[[paging]]
device_type = "3390-9"
count = 2
first_address = "0A00"
volser_prefix = "PAG"
[[guest]]
userid = "LNX"
count = 4
virtual_storage = "256M"
workload = { type = "cpu", utilization = 0.1, burst = "5ms" }
[lpar]
physical = { cp = 6 }
weight = 100
[[lpar.partition]]
name = "ZOS1"
logical = 5
weight = 300
busy = 5.0
[[lpar.partition]]
name = "ZOS2"
logical = 5
weight = 300
busy = 5.0
[[lpar.partition]]
name = "ZOS3"
logical = 4
weight = 300
busy = 4.0
"""


@pytest.fixture(scope="module")
def s8_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("cec")
    sc = d / "s8.toml"
    sc.write_text(S8_SHAPE)
    return run(sc, d / "s8.monwrite").path


def test_lpar_report_shows_every_partition_and_the_saturated_cec(s8_file: Path) -> None:
    rep = build(s8_file, ["LPAR"])["LPAR"]
    parts = {r["partition"] for r in rep.rows}
    assert parts == {"ZVMLP", "ZOS1", "ZOS2", "ZOS3"}
    zos = [r for r in rep.rows if r["partition"].startswith("ZOS")]
    assert len(zos) == 14 and all(r["type"] == "CP" for r in zos)
    # 14 logical CPs asking for everything on 6 physical ones, plus z/VM's
    # light load: the physical CPs are (all but) fully dispatched.
    summary = rep.extra["summary"]
    assert summary["physical_cpus"] == 6 and summary["partitions"] == 4
    assert summary["overall_physical_load_pct"] > 97.0
    # Weights 300 each: the z/OS partitions' shares are equal per partition
    # (5, 5 and 4 logical CPs: ZOS3's CPs each get more).
    load = {r["partition"]: r["load_pct"] for r in rep.rows if r["load_pct"] is not None}
    assert load["ZOS1"] == pytest.approx(load["ZOS2"], rel=0.02)
    assert load["ZOS1"] == pytest.approx(load["ZOS3"], rel=0.02)
    own = [r for r in rep.rows if r["partition"] == "ZVMLP"]
    # z/VM's view: its logical CPUs are suspended (PR/SM does not dispatch
    # them when they have work), while its own busy stays low.
    assert all(r["susp_pct"] is not None and r["susp_pct"] > 5.0 for r in own)
    assert all(r["vmld_pct"] < 30.0 for r in own)
    # z/VM never runs more than PR/SM dispatched it (its CPU timers stop
    # while suspended).
    assert all(r["vmld_pct"] <= r["busy_pct"] + 0.5 for r in own)


def test_proclog_and_lsharact_show_the_cec_constraint(s8_file: Path) -> None:
    reps = build(s8_file, ["PROCLOG", "LSHARACT"])
    proc = [r for r in reps["PROCLOG"].rows if r["interval_end"] == ">>Mean>>"]
    # z/VM's processors: lightly busy, yet suspended by PR/SM; %LogLd (busy over
    # the time dispatched) above %CPU.
    assert [r["cpu"] for r in proc] == ["Mean", 0, 1]
    for r in proc:
        assert r["busy_pct"] < 30.0 and r["susp_pct"] > 5.0
        assert r["logld_pct"] > r["busy_pct"]
    share = rows_by_name(reps["LSHARACT"].rows)
    # One type (CP) on 6 physical processors: weight 100 of 1000 entitles z/VM
    # to 0.6 engines, each z/OS partition (300) to 1.8.
    assert share["ZVMLP"]["entitlement"] == pytest.approx(0.6)
    assert share["ZOS1"]["entitlement"] == pytest.approx(1.8)
    assert share["ZVMLP"]["lpu_per_entitled"] == pytest.approx(2 / 0.6)
    assert share["ZOS1"]["lpu_per_entitled"] == pytest.approx(5 / 1.8)
    # The CEC is saturated: the partitions together use (all but) the 6 CPs.
    assert share["Total"]["pool"] == 6 and share["Total"]["engines"] > 5.8


def rows_by_name(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(r["partition"]): r for r in rows}


def test_advisor_sees_the_cec_constraint_that_zvm_busy_hides(s8_file: Path) -> None:
    d = diagnose(s8_file)
    ids = d.ids("warning")
    assert "lpar-busy" in ids
    assert "cpu-busy" not in ids
    # One processor type: lpar-busy judges it, not the per-type pool check.
    assert "lpar-pool-busy" not in d.ids()
    # 2 logical CPs on a weight share of 0.6 (100 of 1000 on 6 CPs), suspended.
    assert "lpar-share" in ids
    share = d.get("lpar-share")
    assert share is not None and "2 logical processors on a weight share of 0.6 physical ones" in share.evidence[0].summary
    f = d.get("lpar-busy")
    assert f is not None and "6 physical processors" in f.evidence[0].summary


def test_s8_study_short_form(tmp_path: Path) -> None:
    res = run_study("hipersockets-cpu", quick=True, workdir=tmp_path)
    assert res.ok, [c.to_json() for c in res.failed_required]
    by = {c.id: c for c in res.checks}
    # The CP pool full, z/VM unconstrained, the advisor's finding: all hold.
    assert by["S8-S1"].ok and by["S8-S3"].ok and by["S8-S5"].ok
    # A partition with CPs and zIIPs is one partition of the LPAR report.
    assert by["S8-I2"].model == {"XXX1": 12, "XXXA": 8, "XXXB": 8, "XXXO": 2, "YYYA": 9}
    # HiperSockets through the network component: the traffic from the QDIO
    # records (inputs), the advisor naming it, pings and transactions slower
    # in the saturated CEC than with 10 CPs, pings slower than an OSA's there
    # and faster in the CPU-rich CEC.
    assert by["S8-I9"].ok and by["S8-I10"].ok and by["S8-S6"].ok and by["S8-S7"].ok
    for c in ("S8-P13", "S8-P14", "S8-P15"):
        assert by[c].category == "predicted" and by[c].ok, by[c].to_json()
    assert "S8-N1" not in by and "S8-N2" not in by
    r = res.info["response_ms"]
    assert r["hs"]["LNXPING"] > 3 * r["hs-10cp"]["LNXPING"], r


def test_pool_check_quiet_when_the_cp_pool_has_room(tmp_path: Path) -> None:
    # The S8 CEC with 10 CPs: the z/OS partitions' heaviest demand (8.5
    # engines) fits; nothing is full, nothing to report.
    sc = Scenario.load(studies_dir() / "hipersockets-cpu.toml").set("lpar.physical.cp", 10)
    out = sc.run(tmp_path / "10cp.monwrite", duration=300).path
    ids = diagnose(out).ids()
    assert "lpar-pool-busy" not in ids and "lpar-busy" not in ids
    phys = [r for r in build(out, ["PHYSLOG"])["PHYSLOG"].rows if r["type"] == "CP"]
    assert max(r["total_engines"] for r in phys) < 9.0
