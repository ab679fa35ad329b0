"""Paging checks on hand-built intervals: serialized paging (S1), queues,
busy and MLOAD of paging volumes, blocking, paging space, XSTOR versus DASD,
mixed volume sizes."""

from __future__ import annotations

from typing import Any

from advisor_data import by_id, iv, period, run, user

from ztwin.advisor.facts import Device, Interval

VOLS = [0x9F01 + k for k in range(11)]
PAGING = [Device(d, volser=f"VSPG{k + 1:02d}", paging=True) for k, d in enumerate(VOLS)]


def vol(io: float, serv: float = 3.1, resp: float | None = None, queued: float = 0.0, busy: float | None = None) -> dict[str, Any]:
    return {"io_rate": io, "serv_ms": serv, "resp_ms": serv if resp is None else resp, "queued": queued,
            "busy_pct": io * serv / 10.0 if busy is None else busy}  # fmt: skip


def expo(ssch: float, block: float = 3.9, mload: float = 3.1, used: float = 1.0, slots: float = 1803060.0) -> dict[str, Any]:
    return {"ssch_rate": ssch, "page_total": ssch * block, "block_size": block, "mload": mload, "used_pct": used,
            "page_slots": slots}  # fmt: skip


def s1_like(n: int = 4, guests: int = 1, pgw: float = 95.0, busy_each: float = 8.5, resp: float = 3.1) -> list[Interval]:
    """One serial reader (S1): in page wait nearly always, 29 I/O/s per volume of 3.1 ms."""
    users = {f"LIN{k}": user(act=100, run=5, pgw=pgw, page_reads=1200.0) for k in range(guests)}
    users.update({f"LNX{k:02d}": user(act=60, ti=60, page_reads=0.1) for k in range(44)})
    devs = {d: vol(29.0, resp=resp, busy=busy_each * guests) for d in VOLS}
    exps = {d: expo(29.0) for d in VOLS}
    sys_ = {"dasd_read_rate": 1200.0 * guests + 4.4, "slots_used_pct": 0.4, "paging_ssch_rate": 319.0}
    return [iv(i, sys_, users=users, devices=devs, exposures=exps, seconds=10.0) for i in range(n)]


def test_paging_serialized_s1() -> None:
    found = by_id(run(period(s1_like(), devices=PAGING)))
    f = found["paging-serialized"]
    assert f.severity == "warning" and "the guest LIN0" in f.title
    assert "1000 / 3.1 ms = 323 paging I/Os per second" in f.explanation
    assert "11 x 100% / 94% = 11.8 such guests" in f.recommendation
    assert f.evidence[1].summary.startswith("11 paging volumes 8.5% busy each, 94% together")
    # its page wait is explained, not reported again
    assert "user-page-wait" not in found and "storage-constrained" not in found


def test_paging_serialized_with_a_few_guests_at_once() -> None:
    f = by_id(run(period(s1_like(guests=3), devices=PAGING)))["paging-serialized"]
    assert "single guests" in f.title and "for each of the 3 guests" in f.explanation


def test_paging_serialized_not_when_the_volumes_limit() -> None:
    # the same guest, but its paging I/Os queue: the volumes are the limit
    assert "paging-serialized" not in by_id(run(period(s1_like(resp=9.0), devices=PAGING)))
    # busy adds up to far less than 100% per guest: the guest waits for something else too
    assert "paging-serialized" not in by_id(run(period(s1_like(busy_each=2.0), devices=PAGING)))
    # not nearly always in page wait
    assert "paging-serialized" not in by_id(run(period(s1_like(pgw=50.0), devices=PAGING)))
    # one paging volume: the volume is the limit as much as the thread
    one = [Device(VOLS[0], paging=True)]
    ivs = s1_like()
    for x in ivs:
        x.devices = {VOLS[0]: vol(300.0, busy=93.0)}
    assert "paging-serialized" not in by_id(run(period(ivs, devices=one)))


def queueing(resp: float, queued: float = 0.15, io: float = 12.3, n: int = 3) -> list[Interval]:
    devs = {d: vol(io, serv=6.2, resp=resp, queued=queued) for d in VOLS}
    exps = {d: expo(io, block=3.1, mload=14.0) for d in VOLS}
    return [iv(i, devices=devs, exposures=exps) for i in range(n)]


def test_paging_device_queue_response_against_service() -> None:
    found = by_id(run(period(queueing(18.4), devices=PAGING)))
    f = found["paging-device-queue"]
    assert f.severity == "warning"  # 3.0 x
    assert "11 of 11 paging volumes: response 18.4 ms for 6.2 ms service (3.0 x)" in f.evidence[0].summary
    assert f.evidence[0].rows[0]["mload"] == 14.0
    assert "paging-mload" not in found  # explained by the queue
    assert by_id(run(period(queueing(30.0), devices=PAGING)))["paging-device-queue"].severity == "critical"
    assert "paging-device-queue" not in by_id(run(period(queueing(9.0), devices=PAGING)))  # 1.45 x
    # a long average queue counts even when response is near service
    assert "paging-device-queue" in by_id(run(period(queueing(9.0, queued=1.5), devices=PAGING)))
    # too few I/Os to judge
    assert "paging-device-queue" not in by_id(run(period(queueing(30.0, io=0.5), devices=PAGING)))


def test_paging_device_busy_target_20_serious_50() -> None:
    def busy(b: float) -> list[Interval]:
        return [iv(i, devices={d: vol(40.0, busy=b) for d in VOLS}) for i in range(3)]

    assert "paging-device-busy" not in by_id(run(period(busy(12.0), devices=PAGING)))
    assert by_id(run(period(busy(25.0), devices=PAGING)))["paging-device-busy"].severity == "warning"
    assert by_id(run(period(busy(60.0), devices=PAGING)))["paging-device-busy"].severity == "critical"


def test_paging_mload_against_service_or_absolute() -> None:
    def ml(mload: float, serv: float | None = 3.1) -> list[Interval]:
        devs = {} if serv is None else {d: vol(20.0, serv=serv) for d in VOLS}
        return [iv(i, devices=devs, exposures={d: expo(20.0, mload=mload) for d in VOLS}) for i in range(3)]

    f = by_id(run(period(ml(7.0), devices=PAGING)))["paging-mload"]
    assert f.severity == "warning" and "MLOAD 7.0 ms against 3.1 ms" in f.evidence[0].summary
    assert by_id(run(period(ml(13.0), devices=PAGING)))["paging-mload"].severity == "critical"
    assert "paging-mload" not in by_id(run(period(ml(4.0), devices=PAGING)))
    # without device records: MLOAD against max_ms
    assert "paging-mload" in by_id(run(period(ml(20.0, serv=None), devices=PAGING)))
    assert "paging-mload" not in by_id(run(period(ml(10.0, serv=None), devices=PAGING)))


def test_paging_blocking_is_graded_downwards() -> None:
    def bl(block: float, ssch: float = 300.0) -> list[Interval]:
        exps = {d: expo(ssch / len(VOLS), block=block) for d in VOLS}
        return [iv(i, {"paging_ssch_rate": ssch, "page_read_block": block, "page_write_block": block}, exposures=exps)
                for i in range(3)]  # fmt: skip

    assert "paging-blocking" not in by_id(run(period(bl(12.0), devices=PAGING)))
    assert by_id(run(period(bl(3.1), devices=PAGING)))["paging-blocking"].severity == "info"
    assert by_id(run(period(bl(1.2), devices=PAGING)))["paging-blocking"].severity == "warning"
    assert "paging-blocking" not in by_id(run(period(bl(1.2, ssch=2.0), devices=PAGING)))  # too little paging


def test_paging_space_full_75_and_90() -> None:
    def sp(u: float) -> list[Interval]:
        return [iv(i, {"slots_used_pct": u, "slots_total": 1e6}, exposures={VOLS[0]: expo(1.0, used=u)}) for i in range(3)]

    assert "paging-space-full" not in by_id(run(period(sp(37.0), devices=PAGING)))
    assert by_id(run(period(sp(80.0), devices=PAGING)))["paging-space-full"].severity == "warning"
    assert by_id(run(period(sp(95.0), devices=PAGING)))["paging-space-full"].severity == "critical"


def test_xstor_versus_dasd_only_with_xstor_full() -> None:
    def xd(dasd: float, xs: float, used: float) -> list[Interval]:
        return [iv(i, {"xstor_total": 1e6, "xstor_used_pct": used, "read_write_rate": dasd, "page_rate": xs,
                       "pgin_rate": xs / 2, "pgout_rate": xs / 2}) for i in range(3)]  # fmt: skip

    f = by_id(run(period(xd(1200.0, 300.0, 99.0))))["xstor-vs-dasd"]
    assert f.severity == "warning" and "DASD 1,200 pages/s against XSTOR" in f.evidence[0].summary
    assert "xstor-vs-dasd" not in by_id(run(period(xd(950.0, 1270.0, 99.0))))  # S2: XSTOR does more
    assert "xstor-vs-dasd" not in by_id(run(period(xd(1230.0, 5.0, 4.0))))  # S1: XSTOR empty, old pages
    no_xstor = [iv(i, {"read_write_rate": 1200.0, "page_rate": 0.0}) for i in range(3)]
    assert "xstor-vs-dasd" not in by_id(run(period(no_xstor)))


def test_paging_volume_mix() -> None:
    def mix(small_used: float) -> list[Interval]:
        exps = {d: expo(5.0, used=small_used, slots=601020.0) for d in VOLS[:8]}
        exps.update({d: expo(5.0, used=14.0, slots=1803060.0) for d in VOLS[8:]})
        return [iv(i, exposures=exps) for i in range(2)]

    f = by_id(run(period(mix(43.0), devices=PAGING)))["paging-volume-mix"]
    assert f.severity == "info"
    assert [(r["page_slots"], r["volumes"]) for r in f.evidence[0].rows] == [(601020, 8), (1803060, 3)]
    assert by_id(run(period(mix(92.0), devices=PAGING)))["paging-volume-mix"].severity == "warning"
    same = [iv(i, exposures={d: expo(5.0) for d in VOLS}) for i in range(2)]
    assert "paging-volume-mix" not in by_id(run(period(same, devices=PAGING)))


def test_paging_crowding() -> None:
    """S6 after: a few volumes with free space take most page-outs; the same
    space and writes spread evenly, or most volumes roomy, say nothing."""

    def crowd(full_writes: float, big_writes: float, full_used: float = 95.0, big: int = 2) -> list[Interval]:
        exps = {d: {**expo(5.0, used=full_used, slots=601020.0), "page_writes": full_writes, "block_write": 3.7}
                for d in VOLS[:-big]}  # fmt: skip
        exps.update({d: {**expo(10.0, used=15.0), "page_writes": big_writes, "block_write": 11.0} for d in VOLS[-big:]})
        return [iv(i, exposures=exps) for i in range(2)]

    f = by_id(run(period(crowd(8.0, 41.0), devices=PAGING)))["paging-crowding"]
    assert f.severity == "critical"  # 82 of 154 page writes/s: more than half
    assert "2 volumes at most 75% used take 41.0 page writes/s each, the 9 fuller ones 8.0: 53%" in f.evidence[0].summary
    assert {r["addr"] for r in f.evidence[0].rows[:2]} == {PAGING[-2].label, PAGING[-1].label}
    assert by_id(run(period(crowd(18.0, 30.0), devices=PAGING)))["paging-crowding"].severity == "warning"
    # Even writes, or the roomy volumes are the majority: nothing to say.
    assert "paging-crowding" not in by_id(run(period(crowd(20.0, 20.0), devices=PAGING)))
    assert "paging-crowding" not in by_id(run(period(crowd(8.0, 41.0, big=6), devices=PAGING)))
    assert "paging-crowding" not in by_id(run(period(crowd(8.0, 41.0, full_used=60.0), devices=PAGING)))


def test_paging_edev_cpu() -> None:
    """EDEV paging: FBA (9336) paging volumes and CP time per page moved above
    the threshold; the same CP cost on ECKD volumes, or little CP per page,
    say nothing."""
    edevs = [Device(d, volser=f"SCPG{k + 1}", paging=True, dvid="9336") for k, d in enumerate(VOLS[:2])]
    eckd = [Device(d, volser=f"ECPG{k + 1}", paging=True, dvid="3390") for k, d in enumerate(VOLS[:2])]

    def load(busy: float, tv: float) -> list[Interval]:
        exps = {d: {**expo(240.0, block=3.6), "page_total": 870.0} for d in VOLS[:2]}
        sys_ = {"cpu_busy_pct": busy, "tv_ratio": tv, "cpus_online": 2.0, "read_write_rate": 1740.0}
        return [iv(i, sys_, exposures=exps) for i in range(2)]

    # 1.9% of 2 CPUs, 21/22 of it CP, over 1740 pages/s: about 21 us per page.
    f = by_id(run(period(load(1.9, 22.0), devices=edevs)))["paging-edev-cpu"]
    assert f.severity == "warning"
    assert "2 FBA paging volumes (9336) move 100% of the 1,740 pages/s" in f.evidence[0].summary
    assert "CP time about 20.8 us per page moved" in f.evidence[1].summary
    assert by_id(run(period(load(3.0, 22.0), devices=edevs)))["paging-edev-cpu"].severity == "critical"
    assert "paging-edev-cpu" not in by_id(run(period(load(1.9, 22.0), devices=eckd)))
    assert "paging-edev-cpu" not in by_id(run(period(load(1.0, 22.0), devices=edevs)))
