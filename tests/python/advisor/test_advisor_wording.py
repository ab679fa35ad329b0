"""The advisor's wording: checklist answers, LPAR findings on a partition
nobody else can take from, titles inside sentences, XSTOR only where there is
XSTOR, one user or many, and devices in hex in dump."""

from __future__ import annotations

from typing import Any

from advisor_data import by_id, iv, period, run, user

from ztwin.advisor.checks.common import lower_first
from ztwin.advisor.facts import Interval


def emergency(share: float, n: int = 3, **extra: Any) -> list[Interval]:
    return [iv(i, {"steals": 60000.0, "steals_emergency": 600.0 * share, "emergency_scan_rate": 0.5, **extra})
            for i in range(n)]  # fmt: skip


def test_checklist_answers_follow_the_question_when_mload_fired() -> None:
    # slow paging volumes: MLOAD far above the devices' service time
    exposures = {0x0A00 + k: {"mload": 40.0, "ssch_rate": 50.0} for k in range(4)}
    devices = {0x0A00 + k: {"serv_ms": 4.0, "resp_ms": 30.0, "ssch_rate": 50.0, "busy_pct": 20.0} for k in range(4)}
    ivs = [iv(i, {"steals": 60000.0, "steals_emergency": 24000.0, "emergency_scan_rate": 0.5},
              devices=devices, exposures=exposures) for i in range(3)]  # fmt: skip
    found = by_id(run(period(ivs)))
    assert "paging-mload" in found
    rows = {r["rule"]: r for r in found["emergency-scan"].evidence[1].rows}
    assert rows["paging-mload"]["question"] == "Is paging MLOAD OK?"
    assert (rows["paging-mload"]["answer"], rows["paging-mload"]["duress"]) == ("no", True)
    assert (rows["paging-blocking"]["answer"], rows["paging-blocking"]["duress"]) == ("yes", False)
    assert (rows["tv-ratio"]["answer"], rows["tv-ratio"]["duress"]) == ("no", False)


def lpar(load: float, **figures: Any) -> list[Interval]:
    return [iv(i, {"cpu_busy_pct": load}, lpar={"physical_load_pct": load, "suspended_pct": 0.0,
                                                 "physical_cpus": 2, **figures}) for i in range(3)]  # fmt: skip


def test_lpar_busy_is_not_judged_for_a_partition_nobody_else_can_take_from() -> None:
    assert "lpar-busy" not in by_id(run(period(lpar(100.0, partitions=1))))
    assert "lpar-busy" not in by_id(run(period(lpar(100.0, partitions=3, dedicated=True, others_load_pct=50.0))))
    # shared processors, but the load is z/VM's own
    assert "lpar-busy" not in by_id(run(period(lpar(100.0, partitions=3, dedicated=False, others_load_pct=2.0))))
    f = by_id(run(period(lpar(99.0, partitions=3, dedicated=False, others_load_pct=60.0))))["lpar-busy"]
    assert f.severity == "critical" and "60.0% by the other partitions" in f.evidence[0].summary


def test_lpar_busy_on_the_twins_single_dedicated_partition(tmp_path: Any) -> None:
    from ztwin.advisor import diagnose
    from ztwin.twin import Scenario

    sc = tmp_path / "busy.toml"
    sc.write_text(
        '[scenario]\nduration = "300s"\n[system]\nprocessors = 2\ncentral_storage = "512M"\n'
        '[monitor]\nsample_interval = "60s"\n[[guest]]\nuserid = "HOG"\ncount = 3\n'
        'virtual_storage = "256M"\nworkload = { type = "cpu", utilization = 1.0 }\n'
    )
    out = tmp_path / "busy.monwrite"
    Scenario.load(sc).run(out)
    found = {f.id: f for f in diagnose(out).findings}
    assert found["cpu-busy"].severity == "critical"
    assert "lpar-busy" not in found
    # users' run share is counted once: 3 users on 2 processors run about 67% of the time
    runs = [r["run_pct"] for r in found["cpu-busy"].evidence[1].rows]
    assert all(60.0 < v < 75.0 for v in runs), runs


def test_titles_keep_acronyms_inside_sentences() -> None:
    assert lower_first("Paging I/Os wait in queues") == "paging I/Os wait in queues"
    assert lower_first("CP sees slow paging volumes (high MLOAD)") == "CP sees slow paging volumes (high MLOAD)"
    assert lower_first("MLOAD is high") == "MLOAD is high"
    assert lower_first("XSTOR is full") == "XSTOR is full"
    assert lower_first("I/O waits") == "I/O waits"
    assert lower_first("Users wait") == "users wait"


def test_emergency_scan_signs_keep_the_titles_case() -> None:
    exposures = {0x0A00 + k: {"mload": 40.0, "ssch_rate": 50.0} for k in range(4)}
    devices = {0x0A00 + k: {"serv_ms": 4.0, "resp_ms": 30.0, "ssch_rate": 50.0, "busy_pct": 20.0} for k in range(4)}
    ivs = [iv(i, {"steals": 60000.0, "steals_emergency": 24000.0, "emergency_scan_rate": 0.5, "list_empty": 3.0,
                  "frame_waits": 10.0, "frame_wait_rate": 0.02},
              devices=devices, exposures=exposures) for i in range(3)]  # fmt: skip
    f = by_id(run(period(ivs)))["emergency-scan"]
    assert "(high MLOAD)" in f.explanation
    assert "mload)" not in f.explanation and "i/o" not in f.explanation


def constrained(xstor: float | None, active: float, waiting: int) -> list[Interval]:
    users = {f"U{k}": user(act=100, pgw=60 if k < waiting else 0, dasd=200000.0) for k in range(max(1, round(active)))}
    sys_: dict[str, Any] = {"users_active": active, "steal_rate": 800.0, "pgin_rate": 0.0, "dasd_read_rate": 300.0,
                            "dasd_write_rate": 200.0, "avail_frames": 10.0, "avail_low": 100.0, "avail_high": 200.0}  # fmt: skip
    if xstor is not None:
        sys_["xstor_used_pct"] = xstor
    return [iv(i, sys_, users=users) for i in range(3)]


def test_no_xstor_no_xstor_figures_and_one_user_is_singular() -> None:
    found = by_id(run(period(constrained(None, 1.0, 1), storage_gb=0.5), "[storage-constrained]\nmin_users = 1\n"))
    f = found["storage-constrained"]
    text = " ".join(e.summary for e in f.evidence) + " " + f.explanation
    assert "XSTOR" not in text and "?%" not in text
    assert "1 of 1 active user in page wait" in text
    assert "1 active user waited" in f.explanation
    found = by_id(run(period(constrained(80.0, 3.0, 3), storage_gb=0.5, xstor_bytes=2**30)))
    text = " ".join(e.summary for e in found["storage-constrained"].evidence)
    assert "XSTOR 80% used" in text and "3 of 3 active users in page wait" in text


def test_the_summary_speaks_of_one_active_user_in_the_singular() -> None:
    ivs = [iv(i, {"cpu_busy_pct": 5.0, "tv_ratio": 1.01, "users_active": 1.0}, users={"ONE": user(act=100, run=20, ti=80)})
           for i in range(3)]  # fmt: skip
    f = by_id(run(period(ivs)))["no-constraint"]
    assert "The active user was in test idle" in f.explanation and "running 20%" in f.explanation
    assert "The 1 active users" not in f.explanation
