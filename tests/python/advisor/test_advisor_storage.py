"""Storage checks on hand-built intervals: page wait, the storage-constrained
verdict (and what it is not), eligible list, free-frame lists, emergency scan
with the S4 caution, user pages on DASD."""

from __future__ import annotations

from typing import Any

from advisor_data import by_id, iv, period, run, user

from ztwin.advisor.facts import Interval

GB_PAGES = 2**30 / 4096


def constrained(n: int = 4, pgw: float = 4.0, steal: float = 1100.0, extra: dict[str, Any] | None = None,
                users: int = 26, dasd_gb_each: float = 0.1) -> list[Interval]:  # fmt: skip
    """An S2-like interval: many users a little in page wait, CP stealing as
    fast as it brings pages in (450 from XSTOR + 650 from DASD per second)."""
    sys_ = {"pgin_rate": 450.0, "pgout_rate": 700.0, "dasd_read_rate": 650.0, "dasd_write_rate": 300.0,
            "steal_rate": steal, "users_active": float(users), "avail_frames": 3300.0, "tv_ratio": 1.15,
            "xstor_used_pct": 99.0}  # fmt: skip
    sys_.update(extra or {})
    us = {f"LNX{k:02d}": user(act=100, run=3, pgw=pgw, ti=90, page_reads=25.0, dasd=dasd_gb_each * GB_PAGES)
          for k in range(users)}  # fmt: skip
    return [iv(i, sys_, users=us) for i in range(n)]


def test_user_page_wait_trigger_and_quiet() -> None:
    # page wait without steals: not a storage shortage, but users do wait
    ivs = constrained(pgw=4.0, steal=0.0)
    f = by_id(run(period(ivs)))["user-page-wait"]
    assert f.severity == "warning"
    assert "4.0% of their samples" in f.evidence[0].summary
    assert f.evidence[1].rows[0]["pgw_active_pct"] == 4.0
    assert by_id(run(period(constrained(pgw=12.0, steal=0.0))))["user-page-wait"].severity == "critical"
    assert "user-page-wait" not in by_id(run(period(constrained(pgw=1.0, steal=0.0))))


def test_page_wait_is_a_share_of_the_active_samples() -> None:
    # 2 of 100 samples in page wait, but the user was active in only 10 of them: 20% of its active time
    ivs = [iv(i, users={"A": user(act=10, pgw=2, ti=8), "B": user(act=0, ti=0)}) for i in range(3)]
    f = by_id(run(period(ivs)))["user-page-wait"]
    assert f.severity == "critical" and f.evidence[1].rows[0]["pgw_active_pct"] == 20.0


def test_storage_constrained_s2_like() -> None:
    f = by_id(run(period(constrained(), storage_gb=19.5)))
    sc = f["storage-constrained"]
    assert sc.severity == "warning"  # no corroborating sign: DASD pages 2.6 GB of 19.5 GB
    assert "user-page-wait" not in f  # explained by storage-constrained
    assert "26 of 26 active users in page wait" in sc.evidence[0].summary
    assert "1,100 frames stolen/s for 1,100 pages brought in/s" in sc.evidence[1].summary
    assert "adding about 2.6 GB (to about 22.1 GB)" in sc.recommendation
    # with 26 x 0.9 GB on DASD (120% of central storage) and a T/V above the warning: critical
    f2 = by_id(run(period(constrained(dasd_gb_each=0.9, extra={"tv_ratio": 1.6}), storage_gb=19.5)))
    sc2 = f2["storage-constrained"]
    assert sc2.severity == "critical"
    assert {r["rule"] for r in sc2.evidence[-1].rows} == {"tv-ratio", "dasd-resident-pages"}
    assert "to about 42.9 GB" in sc2.recommendation


def test_storage_constrained_needs_stealing_and_several_users() -> None:
    # S1-like: pages read back after a past peak, nothing stolen
    assert "storage-constrained" not in by_id(run(period(constrained(steal=0.0))))
    assert "storage-constrained" not in by_id(run(period(constrained(steal=400.0))))  # < 0.5 x 1100
    # one user in page wait is not the system's storage
    assert "storage-constrained" not in by_id(run(period(constrained(users=1))))
    # too little page wait
    assert "storage-constrained" not in by_id(run(period(constrained(pgw=1.0))))
    # only one interval of six: not persistent
    ivs = constrained(n=6)
    for x in ivs[1:]:
        x.sys = {**x.sys, "steal_rate": 0.0}
    assert "storage-constrained" not in by_id(run(period(ivs)))


def test_eligible_list() -> None:
    def el(v: float) -> list[Interval]:
        return [iv(i, {"users_in_elist": v, "users_active": 20.0}) for i in range(3)]

    assert "eligible-list" not in by_id(run(period(el(0.0))))
    assert by_id(run(period(el(1.0))))["eligible-list"].severity == "warning"
    assert by_id(run(period(el(14.0))))["eligible-list"].severity == "critical"


def test_free_frame_lists_empty_routinely() -> None:
    def ff(flags: list[int], waits: float = 0.1) -> list[Interval]:
        return [iv(i, {"list_empty": float(k), "frame_waits": float(k) * 60 * waits, "frame_wait_rate": k * waits,
                       "avail_frames": 100.0}) for i, k in enumerate(flags)]  # fmt: skip

    assert "free-frames-empty" not in by_id(run(period(ff([0, 0, 0, 0, 0, 0, 0, 0]))))
    assert "free-frames-empty" not in by_id(run(period(ff([1, 0, 0, 0, 0, 0, 0, 0]))))
    f = by_id(run(period(ff([1, 0, 0, 1, 0, 0, 0, 0]))))["free-frames-empty"]  # a quarter of the period
    assert f.severity == "warning" and len(f.evidence[0].held) == 2
    assert by_id(run(period(ff([1, 1, 0, 0, 0, 0, 0, 0], waits=5.0))))["free-frames-empty"].severity == "critical"


def emergency(share: float, n: int = 3, **extra: Any) -> list[Interval]:
    return [iv(i, {"steals": 60000.0, "steals_emergency": 600.0 * share, "emergency_scan_rate": 0.5, **extra})
            for i in range(n)]  # fmt: skip


def test_emergency_scan_alone_is_not_duress() -> None:
    f = by_id(run(period(emergency(40.0))))["emergency-scan"]
    assert f.severity == "info" and "not duress" in f.explanation
    checklist = f.evidence[1].rows
    assert {r["duress"] for r in checklist} == {False}
    # the study's questions keep their wording: "Is ... OK?" is answered yes when nothing fired
    assert {r["question"]: r["answer"] for r in checklist if r["answer"] == "yes"} == {
        "Is paging MLOAD OK?": "yes",
        "Is paging blocking factor OK?": "yes",
    }
    assert any(r["question"] == "Is DASD page rate > XSTORE page rate?" for r in checklist)
    assert "emergency-scan" not in by_id(run(period(emergency(5.0))))


def test_emergency_scan_with_other_signs_is_a_warning() -> None:
    # the free-frame lists run empty in every interval
    ivs = emergency(40.0, list_empty=3.0, frame_waits=10.0, frame_wait_rate=0.02)
    found = by_id(run(period(ivs)))
    f = found["emergency-scan"]
    assert found["free-frames-empty"].severity == "warning"
    assert f.severity == "warning" and "free-frames-empty" in f.explanation
    assert any(r["rule"] == "free-frames-empty" and r["answer"] == "yes" for r in f.evidence[1].rows)


def test_dasd_resident_pages_against_central_storage() -> None:
    ivs = [iv(i, users={"A": user(dasd=3 * GB_PAGES), "B": user(dasd=1 * GB_PAGES)}) for i in range(2)]
    f = by_id(run(period(ivs, storage_gb=8.0)))["dasd-resident-pages"]
    assert f.severity == "info" and "4.0 GB of user pages on DASD" in f.evidence[0].summary and "50%" in f.evidence[0].summary
    assert [r["userid"] for r in f.evidence[0].rows] == ["A", "B"]
    assert "dasd-resident-pages" not in by_id(run(period(ivs, storage_gb=32.0)))  # 12.5%
    assert "dasd-resident-pages" not in by_id(run(period(ivs, storage_gb=None)))  # no storage size: no verdict
