"""Exact figures from the hand-built file of conftest.write_basic.

Each expected value is worked out from the deltas written there; T = 60 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from ztwin.reports import build, collect, device_metrics, system_metrics, user_metrics
from ztwin.reports.core import CompactRaw, Tracker, counter_delta, merged, wrap_modulus

approx = pytest.approx


def rows_by(rep_rows: Sequence[dict[str, Any]], key: str) -> dict[Any, dict[str, Any]]:
    return {r[key]: r for r in rep_rows}


# --- counters --------------------------------------------------------------


def test_counter_delta_wraps_16_and_32_bit_counters() -> None:
    assert wrap_modulus("IODDEV_SCMSSCH") == 2**16
    assert wrap_modulus("SYTSYP_PLSCTSS") == 2**32
    assert wrap_modulus("SYTPRP_PFXUTIME") is None  # 64-bit time: no wrap
    assert counter_delta(65000, 64, 2**16) == 600
    assert counter_delta(2**32 - 100, 500, 2**32) == 600
    assert counter_delta(100, 350, 2**32) == 250


def test_a_64_bit_time_that_restarts_is_a_reset_and_a_small_step_back_is_zero() -> None:
    assert counter_delta(10_000, 20, None) is None  # restarted near zero
    assert counter_delta(10_000, 9_990, None) == 0  # a glitch, not a reset
    start = 0x7FFF_FFFF_0000_0000
    assert counter_delta(start - 500, start - 800, None, down=True) == 300  # counts down
    assert counter_delta(start - 5000, start - 10, None, down=True) is None  # restarted


def test_tracker_discards_first_sample_gaps_and_new_generations() -> None:
    t = Tracker(["SYTSYP_PLSCTSS"])
    s = 4096 * 1_000_000
    assert t.delta("k", 1, 60 * s, {"SYTSYP_PLSCTSS": 100}) is None  # first sample
    assert t.delta("k", 2, 120 * s, {"SYTSYP_PLSCTSS": 700}) == (60.0, [600])
    assert t.delta("k", 4, 240 * s, {"SYTSYP_PLSCTSS": 900}) is None  # missing from set 3
    assert t.delta("k", 5, 300 * s, {"SYTSYP_PLSCTSS": 960}) == (60.0, [60])
    assert t.delta("k", 6, 360 * s, {"SYTSYP_PLSCTSS": 990}, gen=1) is None  # logged on anew
    assert t.delta("k", 7, 420 * s, {}, gen=1) == (60.0, [None])  # field absent: no value


def test_compact_raw_reads_like_the_dict_it_stores() -> None:
    raw = {"seconds": 60.0, "ssch": 1800.0, "min_avail_frames": 2000.0}
    c = CompactRaw(raw)
    assert dict(c) == raw
    assert c.get("nope") is None and "ssch" in c and len(c) == 3
    assert merged([c, CompactRaw({"seconds": 60.0, "min_avail_frames": 1500.0})]) == {
        "seconds": 120.0,
        "ssch": 1800.0,
        "min_avail_frames": 1500.0,
    }


# --- the system --------------------------------------------------------------


def test_intervals_start_after_the_baseline_sample(basic_file: Path) -> None:
    iv = collect(basic_file)
    assert [s.end.strftime("%H:%M:%S") for s in iv.intervals] == ["10:02:00", "10:03:00", "10:04:00"]
    assert [s.seconds for s in iv.intervals] == [60.0, 60.0, 60.0]
    assert iv.config.system_id == "TESTSYS" and iv.config.cpus == {0: 3, 1: 3}


def test_syssumlg_exact(basic_file: Path) -> None:
    rep = build(basic_file, ["SYSSUMLG"])["SYSSUMLG"]
    mean, i2, i3, i4 = rep.rows
    assert mean["interval_end"] == ">>Mean>>"
    for r in (i2, i3, i4):
        # CPU 0 busy 36 s of 60, CPU 1 15 s: mean 42.5 %
        assert r["cpu_busy_pct"] == approx(42.5)
        assert r["cpus_online"] == approx(2.0)
        # PGIN 600+300, PGOUT 900 per minute; DASD reads 1200 + writes 600 per minute
        assert r["page_rate"] == approx(30.0)
        assert r["read_write_rate"] == approx(30.0)
        assert r["xstor_rate"] == approx(31.0)  # + 60 migrations
    # T/V as Perfkit's SYSSUMLG: all CPU time (user 42 + system 9) over emulation (24 + 9);
    # the users' own T/V: (20 + 16) / (16 + 12); capture: 36 / (CPU user 42 + system 9)
    assert i2["tv_ratio"] == approx(51 / 33)
    assert i2["user_tv_ratio"] == approx(36 / 28)
    assert i2["capture_ratio"] == approx(36 / 51)
    # 10:04: LINUX02 gone, LINUX03 has its first delta (10 s / 5 s)
    assert i4["tv_ratio"] == approx(51 / 33)
    assert i4["user_tv_ratio"] == approx(30 / 21)
    assert i4["capture_ratio"] == approx(30 / 51)
    assert mean["tv_ratio"] == approx(153 / 99)
    assert mean["user_tv_ratio"] == approx(102 / 77)
    assert mean["capture_ratio"] == approx(102 / 153)
    # SSCH: 1200 + 600, then 600 (CPU 0 wrapped 2**32) + 600
    assert [r["ssch_rate"] for r in (i2, i3, i4)] == approx([30.0, 20.0, 20.0])
    assert mean["ssch_rate"] == approx(4200 / 180)
    # users with records, users with CPU time or in-queue samples
    assert [r["users_logged"] for r in (i2, i3, i4)] == [2, 3, 2]
    assert [r["users_active"] for r in (i2, i3, i4)] == [2, 2, 2]
    assert mean["users_logged"] == approx(7 / 3)
    assert [r["users_in_elist"] for r in (i2, i3, i4)] == [1, 2, 0]
    # DASD response, I/O-weighted: 0200 3000 I/Os at 13.456 ms, 0201 600 at 3.328 ms,
    # 0300 (10:04 only) 600 at 101.28 ms
    r2 = (3000 * 13.456 + 600 * 3.328) / 3600
    r4 = (3000 * 13.456 + 600 * 3.328 + 600 * 101.28) / 4200
    assert [r["dasd_resp_ms"] for r in (i2, i3, i4)] == approx([r2, r2, r4])
    assert mean["dasd_resp_ms"] == approx((2 * 3600 * r2 + 4200 * r4) / 11400)


def test_cpu_report(basic_file: Path) -> None:
    rep = build(basic_file, ["CPU"])["CPU"]
    rows = rows_by(rep.rows, "cpu")
    assert rows[0]["busy_pct"] == approx(60.0)
    assert rows[0]["emul_pct"] == approx(40.0)
    assert rows[0]["cp_pct"] == approx(20.0)
    assert rows[0]["sys_pct"] == approx(10.0)
    assert rows[1]["busy_pct"] == approx(25.0)
    assert rows[1]["type"] == "IFL"
    assert rows[">>Mean>>"]["busy_pct"] == approx(42.5)
    assert rep.extra["summary"]["cpu_busy_total_pct"] == approx(85.0)


def test_lpar_report(basic_file: Path) -> None:
    rep = build(basic_file, ["LPAR"])["LPAR"]
    own = [r for r in rep.rows if r["partition"] == "LPTEST"]
    other = [r for r in rep.rows if r["partition"] == "OTHER"]
    assert [r["busy_pct"] for r in own] == approx([60.0, 25.0])
    assert [r["vmld_pct"] for r in own] == approx([60.0, 25.0])
    assert [r["susp_pct"] for r in own] == approx([0.0, 0.0])
    assert own[0]["load_pct"] == approx(100 * 51 / 240)  # 51 s of 4 physical CPUs x 60 s
    assert own[0]["weight"] == 500
    assert other[0]["busy_pct"] == approx(50.0)
    assert other[0]["vmld_pct"] is None  # not our partition: no z/VM view
    assert rep.extra["summary"]["overall_physical_load_pct"] == approx(100 * 81 / 240)


def test_lparlog_and_physlog(basic_file: Path) -> None:
    reps = build(basic_file, ["LPARLOG", "PHYSLOG"])
    log = reps["LPARLOG"].rows
    # Window first (>>Mean>>), then 3 intervals, each partition by number.
    assert [r["partition"] for r in log] == ["LPTEST", "OTHER"] * 4
    own, other = log[0], log[1]
    assert own["engines"] == approx(51 / 60)  # 51 s dispatched per 60 s interval
    assert own["busy_pct"] == approx(100 * 51 / 120)  # over its 2 logical CPUs
    assert own["load_pct"] == approx(100 * 51 / 240)  # over the 4 physical CPUs
    assert own["weight"] == 500 and other["weight"] == 300
    assert other["engines"] == approx(0.5) and other["busy_pct"] == approx(50.0)
    assert all(r["ovhd_pct"] == approx(0.0) for r in log)
    phys = reps["PHYSLOG"].rows
    assert [(r["type"], r["partitions"], r["logical_cpus"]) for r in phys[:2]] == [("IFL", 2, 3), ("Total", 2, 3)]
    assert phys[1]["total_engines"] == approx(81 / 60)
    assert phys[1]["total_pct"] == approx(100 * 81 / 240)
    assert phys[0]["total_pct"] is None  # per type: physical processors per type not in the records
    assert len(phys) == 2 * 4


def test_proclog_per_cpu_and_mean(basic_file: Path) -> None:
    rows = build(basic_file, ["PROCLOG"])["PROCLOG"].rows
    # Window then 3 intervals; each: the Mean line, then CPU 0 and CPU 1.
    assert [r["cpu"] for r in rows] == ["Mean", 0, 1] * 4
    assert [r["interval_end"] for r in rows[:3]] == [">>Mean>>"] * 3
    mean, c0, c1 = rows[0], rows[1], rows[2]
    assert c0["busy_pct"] == approx(60.0) and c1["busy_pct"] == approx(25.0)
    assert mean["busy_pct"] == approx(42.5)  # averaged over the two processors
    assert c0["emul_pct"] == approx(40.0) and c0["cp_pct"] == approx(20.0)
    assert c0["type"] == "IFL" and mean["type"] == ""
    # PR/SM dispatched each logical CPU whenever z/VM did not wait: no suspension,
    # logical load = z/VM's busy.
    assert [r["susp_pct"] for r in rows[:3]] == approx([0.0, 0.0, 0.0])
    assert [r["logld_pct"] for r in rows[:3]] == approx([42.5, 60.0, 25.0])
    # Per interval: the first interval's SSCH rate differs from the window's.
    assert rows[4]["ssch_rate"] == approx(20.0) and c0["ssch_rate"] == approx(40 / 3)


def test_lsharact_shares_and_entitlement(basic_file: Path) -> None:
    rep = build(basic_file, ["LSHARACT"])["LSHARACT"]
    rows = rows_by(rep.rows, "partition")
    own, other, total = rows["LPTEST"], rows["OTHER"], rows["Total"]
    # One processor type (IFL) on 4 physical processors, none dedicated:
    # weights 500 and 300 entitle 2.5 and 1.5 engines.
    assert rep.extra["summary"]["entitlement_known"] is True
    assert own["weight_share_pct"] == approx(62.5) and other["weight_share_pct"] == approx(37.5)
    assert own["entitlement"] == approx(2.5) and other["entitlement"] == approx(1.5)
    assert own["engines"] == approx(51 / 60) and other["engines"] == approx(0.5)
    assert own["used_share_pct"] == approx(100 * 51 / 81)
    assert own["excess"] == approx(0.0) and other["excess"] == approx(0.0)
    assert own["lpu_per_entitled"] == approx(2 / 2.5)
    assert total["pool"] == 4 and total["engines"] == approx(81 / 60) and total["logical_cpus"] == 3


# --- users ------------------------------------------------------------------


def test_ustat_exact(basic_file: Path) -> None:
    rep = build(basic_file, ["USTAT"])["USTAT"]
    assert [r["userid"] for r in rep.rows] == [">System<", "LINUX03", "LINUX01", "LINUX02"]
    rows = rows_by(rep.rows, "userid")
    u1 = rows["LINUX01"]  # 90 samples: in queue 60, run 12, page wait 15, test idle 33, dormant 30
    assert u1["act_pct"] == approx(100 * 60 / 90)
    assert u1["run_pct"] == approx(100 * 12 / 90)
    assert u1["pgw_pct"] == approx(100 * 15 / 90)
    assert u1["ti_pct"] == approx(100 * 33 / 90)
    assert u1["dm_pct"] == approx(100 * 30 / 90)
    assert u1["cpu_pct"] == 0 and u1["iow_pct"] == 0
    assert u1["q0_pct"] is None  # the file does not split the queue samples
    assert rows["LINUX02"]["dm_pct"] == approx(100.0) and rows["LINUX02"]["act_pct"] == 0
    assert rows["LINUX03"]["iow_pct"] == approx(100.0)  # one interval: its first was a baseline
    sysrow = rows[">System<"]  # all users' samples: 180, in queue 90
    assert sysrow["act_pct"] == approx(50.0)
    assert sysrow["dm_pct"] == approx(50.0)
    assert sysrow["iow_pct"] == approx(100 * 30 / 180)
    assert sysrow["hf_samples"] == 180


def test_upage_exact(basic_file: Path) -> None:
    rep = build(basic_file, ["UPAGE"])["UPAGE"]
    rows = rows_by(rep.rows, "userid")
    u1 = rows["LINUX01"]
    assert u1["page_reads"] == approx(10.0)  # 1800 pages in 180 s
    assert u1["page_writes"] == approx(300 / 180)
    assert u1["wss"] == approx(2000.0)  # 1000, 2000, 3000 averaged over time
    assert u1["resident"] == approx(900.0)
    # >System<: the mean per user (Perfkit): 1800 pages over 180 + 120 + 60 user-seconds
    assert rows[">System<"]["page_reads"] == approx(1800 / 360)
    assert rows[">System<"]["users"] == approx(2.0)  # users with deltas in each interval


def test_user_logs_follow_one_user_over_time(basic_file: Path) -> None:
    reps = build(basic_file, ["USTATLOG", "UPAGELOG"], users=["linux01"])
    rows = reps["USTATLOG"].rows
    assert [r["interval_end"] if isinstance(r["interval_end"], str) else r["interval_end"].minute for r in rows] == [
        ">>Mean>>",
        2,
        3,
        4,
    ]
    assert {r["userid"] for r in rows} == {"LINUX01"}
    assert [r["run_pct"] for r in rows[1:]] == approx([20.0, 10.0, 10.0])
    assert [r["pgw_pct"] for r in rows[1:]] == approx([50.0, 0.0, 0.0])
    assert [r["act_pct"] for r in rows[1:]] == approx([100.0, 50.0, 50.0])
    up = reps["UPAGELOG"].rows
    assert [r["page_reads"] for r in up[1:]] == approx([10.0, 10.0, 10.0])
    assert [r["page_writes"] for r in up[1:]] == approx([5.0, 0.0, 0.0])
    assert [r["wss"] for r in up[1:]] == approx([1000.0, 2000.0, 3000.0])


def test_user_logs_default_to_the_system(basic_file: Path) -> None:
    rows = build(basic_file, ["USTATLOG"])["USTATLOG"].rows
    assert {r["userid"] for r in rows} == {">System<"}
    # 10:02: LINUX01 (30 samples, 30 in queue) and LINUX02 (30, dormant)
    assert rows[1]["act_pct"] == approx(50.0)
    assert rows[1]["dm_pct"] == approx(50.0)


def test_a_user_whose_counters_restart_without_a_logon_event_is_rebaselined(tmp_path: Path) -> None:
    from builders import MonFile, at, user_records

    f = MonFile(tmp_path / "relogon.monwrite")
    for i, (tt, logon) in enumerate([(50.0, 0), (70.0, 0), (3.0, 1), (13.0, 1)], start=1):
        recs = user_records("U1", ttime_s=tt, vtime_s=tt / 2, store={"CALTODON": at(100 * logon)})
        f.sample_set(at(60 * i), recs)
    iv = collect(f.close())
    # 10:02: +20 s; 10:03: new logon time, baseline; 10:04: +10 s
    assert iv.users["U1"]["ttime"] == approx(30.0)
    assert iv.users["U1"]["seconds"] == approx(120.0)


def test_uconf_lists_users_from_configuration_and_logons(basic_file: Path) -> None:
    rows = rows_by(build(basic_file, ["UCONF"])["UCONF"].rows, "userid")
    assert set(rows) == {"LINUX01", "LINUX02", "LINUX03"}
    assert rows["LINUX01"]["stor_size_mb"] == approx(512.0)
    assert rows["LINUX01"]["share_relative"] == 100
    assert rows["LINUX03"]["source"] == "MRUSELON"
    assert rows["LINUX02"]["logoff"].strftime("%H:%M:%S") == "10:03:20"


# --- devices ----------------------------------------------------------------


def test_device_exact(basic_file: Path) -> None:
    rep = build(basic_file, ["DEVICE"])["DEVICE"]
    rows = rows_by(rep.rows, "addr")
    d = rows["0200"]  # SCG counts preferred over the garbage 16-bit SCM ones
    assert d["io_rate"] == approx(50.0)
    assert d["pend_ms"] == approx(0.256)
    assert d["disc_ms"] == approx(0.640)
    assert d["conn_ms"] == approx(2.560)  # across the 2**32 wrap of the connect time
    assert d["serv_ms"] == approx(3.456)
    assert d["queued"] == approx(0.5)
    assert d["resp_ms"] == approx(3.456 + 1000 * 0.5 / 50)  # Little: 0.5 queued / 50 per s
    assert d["busy_pct"] == approx(17.28)  # (2 + 5 + 20) * 128 us * 50/s: I/O rate x service, as Perfkit
    assert d["cp_owned"] is True
    e = rows["0201"]  # 16-bit SCM counts that wrap at 65536
    assert e["io_rate"] == approx(10.0)
    assert e["serv_ms"] == approx(3.328)
    assert e["resp_ms"] == approx(3.328)
    assert e["busy_pct"] == approx(3.328)  # 10/s x 3.328 ms
    n = rows["0300"]  # came online at 10:03: one interval
    assert n["seconds"] == approx(60.0)
    assert n["io_rate"] == approx(10.0)
    assert n["resp_ms"] == approx(1.28 + 100.0)
    alld = rows[">>All DASD<<"]
    assert alld["io_rate"] == approx((9000 + 1800 + 600) / 420)
    assert alld["serv_ms"] == approx((9000 * 3.456 + 1800 * 3.328 + 600 * 1.28) / 11400)
    # sorted by response time, the summary line first
    assert [r["addr"] for r in rep.rows] == [">>All DASD<<", "0300", "0200", "0201"]


def test_device_metrics_without_io() -> None:
    m = device_metrics({"seconds": 60.0, "ssch": 0, "measured": 0, "hf_count": 30, "hf_queue": 0})
    assert m["io_rate"] == 0 and m["serv_ms"] is None and m["queued"] == 0 and m["resp_ms"] is None


def test_cpowned_exact(basic_file: Path) -> None:
    rep = build(basic_file, ["CPOWNED"])["CPOWNED"]
    (r,) = rep.rows
    assert r["addr"] == "0200" and r["volser"] == "PAG001" and r["area_type"] == "PAGE"
    assert r["page_reads"] == approx(400 / 60)
    assert r["page_writes"] == approx(10.0)
    assert r["ssch_rate"] == approx(2.5)
    assert r["block_size"] == approx(1000 / 150)
    assert r["block_read"] == approx(4.0) and r["block_write"] == approx(12.0)
    assert r["used_pct"] == approx(30.0)  # 2500, 3000, 3500 of 10000
    assert r["mload"] == approx(3.1)
    assert r["queue_len"] == approx(0.5)  # from the device's high-frequency samples
    assert r["serv_ms"] == approx(3.456) and r["resp_ms"] == approx(13.456)
    s = rep.extra["summary"]
    assert s["page_slots"] == 100_000 and s["page_used_pct"] == approx(10.0)


# --- storage ----------------------------------------------------------------


def test_availlog_and_storage_exact(basic_file: Path) -> None:
    reps = build(basic_file, ["AVAILLOG", "STORAGE", "PAGELOG"])
    mean, i2, i3, i4 = reps["AVAILLOG"].rows
    assert [r["avail_frames"] for r in (i2, i3, i4)] == [4000, 2000, 3000]
    assert [r["emergency_scans"] for r in (i2, i3, i4)] == [0, 3, 2]
    assert [r["list_empty"] for r in (i2, i3, i4)] == [0, 1, 0]
    assert [r["frame_wait_rate"] for r in (i2, i3, i4)] == approx([0.1, 0.1, 0.0])
    assert [r["steal_rate"] for r in (i2, i3, i4)] == approx([2.0, 2.0, 2.0])
    assert mean["avail_frames"] == approx(3000.0)
    assert mean["emergency_scans"] == 5
    assert (mean["avail_low"], mean["avail_high"]) == (1000, 3000)
    (st,) = reps["STORAGE"].rows
    assert st["min_avail_frames"] == 2000 and st["max_avail_frames"] == 4000
    assert st["emergency_scans"] == 5 and st["emergency_scan_rate"] == approx(5 / 180)
    assert st["scans"] == 30
    assert st["storage_mb"] == 2048
    assert st["page_read_block"] == approx(4.0)
    assert st["slots_used_pct"] == approx(10.0)
    pl = reps["PAGELOG"].rows
    assert [r["pgin_rate"] for r in pl[1:]] == approx([15.0] * 3)
    assert [r["dasd_read_rate"] for r in pl[1:]] == approx([20.0] * 3)


# --- windows (INTERIM) ------------------------------------------------------


def test_window_selects_whole_intervals_and_keeps_baselines(basic_file: Path) -> None:
    reps = build(basic_file, ["SYSSUMLG", "DEVICE"], start="10:02:00", end="10:04:00")
    rows = reps["SYSSUMLG"].rows
    assert [r["interval_end"].strftime("%H:%M") for r in rows[1:]] == ["10:03", "10:04"]
    assert reps["SYSSUMLG"].interim
    start = reps["DEVICE"].start
    assert start is not None and start.strftime("%H:%M:%S") == "10:02:00"
    dev = rows_by(reps["DEVICE"].rows, "addr")
    assert dev["0200"]["seconds"] == approx(120.0)  # 10:03 delta used the 10:02 baseline
    assert dev["0300"]["seconds"] == approx(60.0)


def test_metrics_of_merged_intervals_equal_the_window_totals(basic_file: Path) -> None:
    iv = collect(basic_file, users="all", devices="all")
    total = system_metrics(iv.total())
    assert total["ssch_rate"] == approx(4200 / 180)
    series = iv.user_series["LINUX01"]
    assert user_metrics(merged(r for _, r in series))["act_pct"] == approx(user_metrics(iv.users["LINUX01"])["act_pct"])
    assert len(iv.device_series[0x0300]) == 1


def test_a_device_that_vanishes_and_returns_is_rebaselined(tmp_path: Path) -> None:
    from builders import MonFile, at, device_record

    f = MonFile(tmp_path / "vanish.monwrite")
    # present at 10:01, 10:02, gone at 10:03, back at 10:04 and 10:05; a vary-on
    # event before 10:05 starts it afresh once more
    for i, ssch in [(1, 0), (2, 600), (3, None), (4, 5000), (5, 5600)]:
        if i == 5:
            f.event_set(at(270), [("MRIODVON", {"IODVON_RDEVDEV": 0x0500})])
        recs = [device_record(0x0501, "KEEP01", SCGSSCH=60 * i, SCGCOUNT=60 * i)]
        if ssch is not None:
            recs.append(device_record(0x0500, "GONE01", SCGSSCH=ssch, SCGCOUNT=ssch))
        f.sample_set(at(60 * i), recs)
    iv = collect(f.close(), devices="all")
    # only 10:02 counts for 0500: 10:04 follows a set without it, 10:05 a vary-on
    assert iv.devices[0x0500]["ssch"] == 600
    assert [iv.intervals[i].end.minute for i, _ in iv.device_series[0x0500]] == [2]
    assert iv.devices[0x0501]["seconds"] == approx(60.0 * 4)
