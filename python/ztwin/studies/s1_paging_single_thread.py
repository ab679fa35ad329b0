"""S1 paging-single-thread: "Why doesn't my system page faster?"

One single-threaded guest (LIN102) re-reads a paged-out area serially: every
fault on a DASD page waits for one paging I/O, so the guest drives at most
1000/service I/Os per second however many paging volumes there are, the
volumes' busy percentages add up to about 100%, and the guest is in page wait
in nearly every high-frequency sample. With k such guests the aggregate rate
grows about linearly until the volumes saturate.

Every figure of the case study (``shared/spec/fidelity-001-audit.md``, S1) is a
check. The published windows, by the customer's clock (the read starts about
15:12:20 and touches 64,000 pages in 61 s):

* FCX163/FCX164 15:12:30-15:13:20 (five 10-s intervals inside the read) -> ``W``;
* FCX108 INTERIM 15:12:40-15:12:51 -> ``PEAK`` (the interval 10-20 s into the read);
* FCX113 and the FCX163/FCX164 headers 15:10:10-15:15:50 (340 s) -> ``LONG``.

The model's windows sit at the same places relative to the read's start
(the scenario's ``start`` action for LIN102).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ztwin.advisor import diagnose
from ztwin.studies import STUDIES
from ztwin.studies import measures as m
from ztwin.studies.base import Check, StudyResult, mean, studies_dir
from ztwin.twin import Scenario

NAME = "paging-single-thread"
TITLE = STUDIES[NAME].title
SCENARIO = "paging-single-thread.toml"
USER = "LIN102"

#: Least share of predicted figures within tolerance (full run, --quick): a
#: ratchet at what the model reaches today; raise it as the model improves.
# Lowered from 0.40 by M8 (docs/fidelity.md, M8): S1-P2 and S1-P7 (the paging
# volumes' busy) were within only through the light guests' excess re-reads
# after the hog (S1-P22 1,232 pages/s, published 25); with LDUBUF the loading
# light guests wait in the eligible list, the excess falls (1,038/s) and the
# busy sum falls from 98.5 to 97.6 (tolerance ends at 97.75).
FLOOR = {"full": 0.36, "quick": 0.36}

PUBLISHED_SERVICE_MS = 3.1
SCALING = [1, 2, 4, 8, 12, 16, 30]
QUICK_SCALING = [1, 4, 30]
#: Windows relative to the read's start (s): (start, end).
W = (0.0, 50.0)
PEAK = (10.0, 20.0)
LONG = (-140.0, 200.0)

SRC_108 = "FCX108 INTERIM DEVICE 15:12:40-15:12:51"
SRC_163 = "FCX163 UPAGELOG LIN102 15:12:40-15:13:20"
SRC_113 = "FCX113 UPAGE (period 15:10:10-15:15:50)"


def _read_start(sc: Scenario) -> float:
    """When LIN102's re-read starts: the timeline's start action for it."""
    for entry in sc.data.get("timeline", []):
        if entry.get("guest") == USER and entry.get("action") == "start":
            return _seconds(entry["at"])
    raise ValueError(f"{SCENARIO}: no timeline start action for {USER}")


def _seconds(v: Any) -> float:
    if isinstance(v, int | float):
        return float(v)
    text = str(v).strip()
    for unit, f in (("ms", 1e-3), ("min", 60.0), ("h", 3600.0), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * f
    return float(text)


def _variant(base: Scenario, k: int) -> Scenario:
    """The scenario with `k` identical thrashers instead of LIN102."""
    sc = base.copy()
    if k == 1:
        return sc
    sc.set("guest[0].userid", "LIN")
    sc.set("guest[0].count", k)
    for i, entry in enumerate(sc.data["timeline"]):
        if entry["guest"] == USER:
            sc.set(f"timeline[{i}].guest", "LIN*")
    return sc


def run(quick: bool, workdir: Path) -> StudyResult:
    res = StudyResult(NAME, TITLE, floor=FLOOR["quick" if quick else "full"], quick=quick)
    base = Scenario.load(studies_dir() / SCENARIO)
    r0 = _read_start(base)
    w = (r0 + W[0], r0 + W[1])
    peak = (r0 + PEAK[0], r0 + PEAK[1])
    long_ = (r0 + LONG[0], r0 + LONG[1])

    out = workdir / "s1-k1.monwrite"
    base.run(out, duration=long_[1] + 10)
    run1 = m.Run(out)
    res.info.update(read_start=run1.clock(r0), window=[run1.clock(w[0]), run1.clock(w[1])],
                    peak=[run1.clock(peak[0]), run1.clock(peak[1])], long=[run1.clock(long_[0]), run1.clock(long_[1])])

    _devices(res, run1, w, peak)
    _inputs(res, run1, long_)
    touched = _thrasher(res, run1, r0, w, peak, long_)
    _long_period(res, run1, long_)
    _scaling(res, base, quick, workdir, w, run1)
    _structure(res, run1, out, w, touched)
    res.not_modelled("S1-N1", "paths per paging volume / LCUs / FICON chpids", "FCX108 Pa-ths; text", [6, 2, 6],
                     "channel paths, LCUs and chpids are not modelled (each volume is one exposure; spec topic 8)")
    res.not_modelled("S1-N2", "SEEK cylinders per paging volume", "FCX108 SEEK Cyls", (0, 2971),
                     "no seek model and no SEEK column (cached DASD: slots are not placed on cylinders)")
    return res


def _devices(res: StudyResult, r: m.Run, w: tuple[float, float], peak: tuple[float, float]) -> None:
    pg = r.devices(*peak, paging=True)
    serv = m.weighted(pg, "serv_ms", "io_rate")
    res.rel("S1-C1", "paging service time per I/O, ms", "calibrated", f"{SRC_108} Serv; text 'about 3.1 msec'",
            serv, PUBLISHED_SERVICE_MS, tol=0.10, note="service parameters calibrated from this figure")
    res.rel("S1-C2", "pend time per paging I/O, ms", "calibrated", f"{SRC_108} Pend",
            m.weighted(pg, "pend_ms", "io_rate"), 0.2, tol=0.15, abs_tol=0.05)
    res.rel("S1-C3", "disconnect time per paging I/O, ms", "calibrated", f"{SRC_108} Disc",
            m.weighted(pg, "disc_ms", "io_rate"), 0.0, tol=0.0, abs_tol=0.05, shown=".0 (one volume .1)")
    res.in_range("S1-C4", "connect time per paging I/O, each volume, ms", "calibrated", f"{SRC_108} Conn",
                 tuple(m.values(pg, "conn_ms")), 2.2, 3.9)
    ssch = m.total(pg, "io_rate")
    res.rel("S1-P5", "paging SSCH/s, all paging volumes", "predicted", f"{SRC_108} TOTAL I/O", ssch, 387.3,
            note="the customer's system, with other guests paging too")
    res.in_range("S1-P6", "paging I/O rate per volume, /s", "predicted", f"{SRC_108} I/O", tuple(m.values(pg, "io_rate")),
                 25.0, 48.5, published=(25.0, 48.5))
    busy = m.values(pg, "busy_pct")
    res.rel("S1-P2", "sum of paging volumes' %busy", "predicted", f"{SRC_108} TOTAL %Busy", sum(busy), 115,
            note="published expectation 'about 100%' for LIN102 alone")
    res.in_range("S1-P7", "paging volume %busy, each volume", "predicted", f"{SRC_108} %Busy", tuple(busy), 8.5, 12.5,
                 published=(9, 12), note="published integers: 9-12 means 8.5 to 12.5")
    wait = max((d["resp_ms"] - d["serv_ms"] for d in pg if d.get("resp_ms") is not None), default=None)
    queued = max(m.values(pg, "queued"), default=None)
    res.add(Check("S1-P8", "no queueing on paging volumes: resp - serv (ms), Req. Qued", "predicted", f"{SRC_108} Resp, Serv, Qued",
                  "Resp = Serv, Qued .0", [wait, queued], "<= .05 each",
                  wait is not None and queued is not None and wait <= 0.05 and queued <= 0.05))
    exp = r.exposures(*peak)
    rd, wr = m.total(exp, "page_reads"), m.total(exp, "page_writes")
    srd = sum((e.get("page_reads") or 0) / e["block_read"] for e in exp if e.get("block_read"))
    swr = sum((e.get("page_writes") or 0) / e["block_write"] for e in exp if e.get("block_write"))
    share = srd / (srd + swr) if srd + swr else None
    res.at_least("S1-P9", "share of paging SSCHs that are reads", "predicted", f"{SRC_108} %READ; text 'all reads'",
                 share, 0.9, "100% reads", note=f"model page reads {rd:.0f}/s, writes {wr:.0f}/s")


def _inputs(res: StudyResult, r: m.Run, long_: tuple[float, float]) -> None:
    rep = r.reports(*long_)
    res.equal("S1-I1", "paging volumes", "input", "FCX108 (11 listed; customer: 12 3390-9)", len(r.exposures(*long_)), 11)
    uconf = {row["userid"]: row for row in rep["UCONF"].rows}
    lin = uconf.get(USER, {})
    res.equal("S1-I2", "LIN102 virtual storage, MB", "input", "FCX226 UCONF Stor Size", lin.get("stor_size_mb"), 768)
    res.equal("S1-I3", "LIN102 virtual CPUs / relative share", "input", "FCX226 UCONF Virt CPUs, Share Relative",
              [lin.get("virt_cpus"), lin.get("share_relative")], [1, 100])
    mon = rep["MONSET"].rows[0]
    res.equal("S1-I5", "monitor sample interval / high-frequency rate, s", "input", "text; FCX149 MONSET",
              [mon.get("sample_interval_s"), mon.get("hf_rate_s")], [10, 2])
    sysrow = r.upage(*long_).get(m.SYSTEM, {})
    res.equal("S1-I6", "users in the paging summary (>System< Nr of Users)", "input", f"{SRC_113} Nr of Users",
              None if sysrow.get("users") is None else round(sysrow["users"]), 44)


def _thrasher(
    res: StudyResult, r: m.Run, r0: float, w: tuple[float, float], peak: tuple[float, float], long_: tuple[float, float]
) -> float | None:
    """The thrasher's pass: pages touched, time, and where they came from.
    Returns the touch rate (pages/s)."""
    log = r.upagelog(r0 - 10, long_[1], USER)
    before = [x for x in log if x["interval_start"] is not None and x["interval_end"] <= r.time(r0)]
    after = [x for x in log if x["interval_start"] >= r.time(r0)]
    resident0 = before[-1]["resident"] if before and before[-1].get("resident") is not None else None
    brought = sum(((x.get("page_reads") or 0) + (x.get("x_to_ms") or 0)) * x["seconds"] for x in after)
    touched = None if resident0 is None else resident0 + brought
    stat = r.ustatlog(r0, long_[1], USER)
    active_s = sum((x.get("act_pct") or 0) / 100 * x["seconds"] for x in stat)
    res.info.update(lin102_resident_at_start=resident0, lin102_pages_brought_in=round(brought))
    note = "LIN102's resident pages when the read starts + pages read from DASD and XSTOR until the run ends"
    res.rel("S1-I4", "thrasher area: pages one pass touches", "input", "text: 'a 300 MB thrasher'; 'touched 64,000 pages'",
            touched, 64000, tol=0.02, shown="300 MB; 64,000 pages",
            note="the scenario's area is the publication's own count, 64,000 pages (250 MB); " + note)
    res.rel("S1-P10", "pages touched in the pass", "input", "text: 'touched 64,000 pages in 61 seconds'", touched, 64000,
            tol=0.02, note=note)
    res.rel("S1-P11", "time to touch them, s", "predicted", "text: 'in 61 seconds'", active_s, 61,
            note="LIN102's in-queue share of the high-frequency samples from the read's start (2-s resolution)")
    rate = touched / active_s if touched is not None and active_s else None
    res.rel("S1-P12", "touch rate, pages/s", "predicted", "text: '1049/sec'; customer 'about 1000 pages per second'", rate, 1049)
    win = [x for x in r.upagelog(*w, USER)]
    dasd = mean([x.get("page_reads") for x in win])
    xs = mean([x.get("x_to_ms") for x in win])
    res.rel("S1-P13", "LIN102 pages/s read from DASD", "predicted", f"{SRC_163} Reads Avg", dasd, 439)
    res.rel("S1-P14", "LIN102 pages/s from XSTOR", "predicted", f"{SRC_163} X>MS Avg", xs, 232)
    resident = None if rate is None or dasd is None or xs is None else rate - dasd - xs
    res.rel("S1-P15", "LIN102 pages/s already resident", "predicted", "text: '378/sec resident' (1049 - 439 - 232)", resident, 378)
    res.in_range("S1-P16", "LIN102 DASD page reads per 10-s interval, /s", "predicted", f"{SRC_163} Reads",
                 tuple(x.get("page_reads") for x in win), 313, 534)
    res.in_range("S1-P17", "LIN102 MS>X during the read, pages/s (mean)", "predicted", f"{SRC_163} MS>X (0.2-37.7, avg 9.2)",
                 mean([x.get("ms_to_x") for x in win]), 0.2, 37.7, published="9.2 (0.2-37.7)")
    wr, st = mean([x.get("page_writes") for x in win]), mean([x.get("steals") for x in win])
    res.add(Check("S1-P18", "LIN102 page writes / steals during the read, /s", "predicted", f"{SRC_163} Write, Steals",
                  [0.0, 0.0], [wr, st], "<= .05 each", wr is not None and st is not None and wr <= 0.05 and st <= 0.05))
    us = r.ustat(*w).get(USER, {})
    act, run_, cpu = us.get("act_pct"), us.get("run_pct"), us.get("cpu_pct")
    res.add(Check("S1-P19", "LIN102 %ACT / %RUN / %CPU", "predicted", "FCX164 USTATLOG LIN102 15:12:30-15:13:20",
                  [100, 0, 0], [act, run_, cpu], "±5 points (HF sampling)",
                  act is not None and run_ is not None and cpu is not None and act >= 95 and run_ <= 5 and cpu <= 5))
    pgw = [x.get("pgw_pct") for x in r.ustatlog(*w, USER)]
    res.in_range("S1-P3", "LIN102 %PGW in each 10-s interval", "predicted", "FCX164 USTATLOG LIN102 %PGW",
                 tuple(pgw), 80, 100, published=100, note="5 samples per 10-s interval: one sample not in page wait is 80")
    pk = r.upagelog(*peak, USER)
    ssch = m.total(r.devices(*peak, paging=True), "io_rate")
    per_io = pk[0]["page_reads"] / ssch if pk and ssch and pk[0].get("page_reads") is not None else None
    res.at_most("S1-P20", "LIN102 pages read per paging SSCH", "predicted",
                "derived: FCX163 Reads 534/s over FCX108 387.3 SSCH/s (15:12:40-50)", per_io, 1.4, "<= 1.4")
    # One serial faulter's own paging I/O: the read SSCHs times LIN102's share of the pages read.
    up = r.upage(*w)
    sysrow = up.get(m.SYSTEM, {})
    all_reads = (sysrow.get("page_reads") or 0) * (sysrow.get("users") or 0)
    share = (up.get(USER, {}).get("page_reads") or 0) / all_reads if all_reads else None
    exp = r.exposures(*w)
    srd = sum((e.get("page_reads") or 0) / e["block_read"] for e in exp if e.get("block_read"))
    res.rel("S1-P1", "LIN102's paging SSCH/s (at most 1000/service)", "predicted", "text: (1000/3.1) = 323 SSCH/s",
            None if share is None else srd * share, round(1000 / PUBLISHED_SERVICE_MS, 1),
            note="read SSCHs of all volumes x LIN102's share of the pages read")
    res.info.update(lin102_dasd_pages_per_s=dasd, lin102_xstor_pages_per_s=xs, lin102_share_of_reads=share)
    return rate


def _long_period(res: StudyResult, r: m.Run, long_: tuple[float, float]) -> None:
    up = r.upage(*long_)
    sysrow, lin = up.get(m.SYSTEM, {}), up.get(USER, {})
    n = sysrow.get("users") or 0
    all_reads = (sysrow.get("page_reads") or 0) * n
    lin_reads = lin.get("page_reads")
    res.rel("S1-P21", "LIN102 share of all page reads", "predicted", f"{SRC_113} Reads: 76 of 101 (44 x 2.3)",
            lin_reads / all_reads if lin_reads is not None and all_reads else None, 0.76)
    res.rel("S1-P22", "other users' page reads, pages/s", "predicted", f"{SRC_113} Reads (101 - 76)",
            all_reads - lin_reads if lin_reads is not None else None, 25)
    res.rel("S1-P23", "LIN102 page reads, pages/s", "predicted", f"{SRC_113} LIN102 Reads", lin_reads, 75.8)
    x_in, x_out = lin.get("x_to_ms"), lin.get("ms_to_x")
    ok = x_in is not None and x_out is not None and abs(x_in - 35.2) <= 0.15 * 35.2 and abs(x_out - 4.5) <= 0.15 * 4.5
    res.add(Check("S1-P24", "LIN102 X>MS / MS>X, pages/s", "predicted", f"{SRC_113} LIN102 X>MS, MS>X", [35.2, 4.5],
                  [x_in, x_out], "±15% each", ok))
    for cid, key, pub, col in (("S1-P25", "page_writes", 1.6, "Write"), ("S1-P26", "steals", 7.2, "Steals"),
                               ("S1-P27", "x_to_ms", 4.6, "X>MS"), ("S1-P28", "ms_to_x", 6.3, "MS>X"),
                               ("S1-P29", "x_to_ds", 1.7, "X>DS")):  # fmt: skip
        res.rel(cid, f">System< {col} per user, pages/s", "predicted", f"{SRC_113} >System< {col}", sysrow.get(key), pub)
    res.in_range("S1-P30", "page space in use, %", "predicted", "FCX109 CPOWNED PAGE slot utilization; text 'about 15% full'",
                 r.slots(*long_).get("page_used_pct"), 10, 20, published="about 15")


def _scaling(res: StudyResult, base: Scenario, quick: bool, workdir: Path, w: tuple[float, float], run1: m.Run) -> None:
    ks = QUICK_SCALING if quick else SCALING
    exp = run1.exposures(*w)
    rates: dict[int, float] = {1: m.total(exp, "ssch_rate")}
    pages: dict[int, float] = {}
    runs = {1: run1}
    for k in ks:
        if k == 1:
            continue
        out = workdir / f"s1-k{k}.monwrite"
        _variant(base, k).run(out, duration=w[1] + 10)
        runs[k] = m.Run(out)
        rates[k] = m.total(runs[k].exposures(*w), "ssch_rate")
    kmax = max(rates)
    pages[kmax] = runs[kmax].sys(*w).get("read_write_rate") or 0.0
    res.info["scaling_ssch_per_s"] = {str(k): round(v, 1) for k, v in sorted(rates.items())}
    pg = run1.devices(*w, paging=True)
    serv = m.weighted(pg, "serv_ms", "io_rate")
    nvol = len(exp)
    capacity = nvol * 1000 / serv if serv else 0.0
    res.info["capacity_ssch_per_s"] = round(capacity, 1)
    one = rates[1]
    res.rel("S1-P4", f"thrashers the volumes sustain at once (rate with {kmax} / rate with one)", "predicted",
            "text: (1100%/115%) = 9.5", rates[kmax] / one if one else None, 9.5)
    res.at_least("S1-P31", f"pages/s with {kmax} busy guests", "predicted", "customer: '6000 pages per second' with 30 guests",
                 pages[kmax], 6000 * 0.85, 6000,
                 note=f"{kmax} copies of the thrasher; the customer's 30 guests ran production work, so the volumes must "
                      "sustain at least this")
    small = [k for k in rates if 1 < k <= 4]
    res.holds("S1-S3a", "aggregate rate grows about linearly for few guests (>= 80% of k x one guest)",
              all(rates[k] >= 0.80 * k * one for k in small), "more guests -> concurrent page reads",
              "text: 'with multiple guests you can generate concurrent page reads'",
              model=[round(rates[k] / one, 2) for k in sorted(small)])
    ordered = [rates[k] for k in sorted(rates)]
    res.holds("S1-S3b", "aggregate rate never falls as guests are added", all(b >= 0.97 * a for a, b in zip(ordered, ordered[1:])),
              "monotone", "text", model=[round(x) for x in ordered])
    res.holds("S1-S3c", f"{kmax} guests saturate the volumes (>= 80% of {nvol} x 1000/service)", rates[kmax] >= 0.8 * capacity,
              "flattens near the volumes' capacity", "text: '11 paging exposures ... 9.5 such thrashers'",
              model=round(rates[kmax]))
    res.holds("S1-S3d", f"{kmax} guests are far from {kmax} x one guest (the curve flattens)", rates[kmax] <= 0.6 * kmax * one,
              "flattens near 9.5 guests", "text", model=round(rates[kmax] / one, 2))


def _structure(res: StudyResult, r: m.Run, path: Path, w: tuple[float, float], touch_rate: float | None) -> None:
    adv = diagnose(path, r.time(w[0]), r.time(w[1]))
    found = adv.ids()
    res.info["advisor"] = [f"{f.id}:{f.severity}" for f in adv.findings]
    res.holds("S1-S1", "advisor: paging-serialized (the guest, not the volumes, limits paging)", "paging-serialized" in found,
              "faults are serial; the guest limits paging", "text: 'limited by its single-threaded nature'", model=", ".join(found))
    res.holds("S1-S4", "advisor: no storage-constrained, no paging-device-queue",
              not {"storage-constrained", "paging-device-queue"} & set(found), "the system isn't broken",
              "text: 'This system isn't broken'", model=", ".join(found))
    up = r.upage(*w)
    sysrow = up.get(m.SYSTEM, {})
    all_reads = (sysrow.get("page_reads") or 0) * (sysrow.get("users") or 0)
    share = (up.get(USER, {}).get("page_reads") or 0) / all_reads if all_reads else 0.0
    res.holds("S1-S2", "one guest does most of the paging I/O (LIN102's share of page reads > 50%)", share > 0.5,
              "76%", "text; FCX113", model=round(share, 3))
    d = m.Data.load(path)
    ua = d.frames["MRUSEACT"]
    vt = m.deltas(ua[ua["USEACT_VMDUSER"] == USER], ["USEACT_VMDUSER", "USEACT_VMDCPUAD"], ["USEACT_VMDVTIME"],
                  d.at(w[0]), d.at(w[1]))
    vcpu_s = float(vt["USEACT_VMDVTIME"].sum()) / m.TOD_UNITS_PER_S
    pgw = r.ustat(*w).get(USER, {}).get("pgw_pct") or 0.0
    res.holds("S1-S5", "100% PGW is a sampling artefact: LIN102 also runs (virtual CPU time > 0) while found in page wait",
              vcpu_s > 0 and pgw >= 90, "found in page wait whenever sampled, yet touching pages",
              "text: 'LIN102 was also touching pages'", model=[round(pgw), round(vcpu_s, 3)])
    # Where the touched pages came from, and how many come per paging I/O.
    dasd, xs = res.info.get("lin102_dasd_pages_per_s"), res.info.get("lin102_xstor_pages_per_s")
    per_io = next((c.model for c in res.checks if c.id == "S1-P20"), None)
    shares = None
    if touch_rate and dasd is not None and xs is not None:
        shares = [round(100 * dasd / touch_rate), round(100 * xs / touch_rate), round(100 * (touch_rate - dasd - xs) / touch_rate)]
    ok = shares is not None and per_io is not None and all(abs(a - b) <= 10 for a, b in zip(shares, [42, 22, 36])) and per_io <= 1.4
    res.holds("S1-S6", "touched pages come from DASD / XSTOR / resident (% within 10 points) at ~1 page per paging I/O",
              ok, "42 / 22 / 36 %, <= 1.4 pages per I/O", "FCX163; text '439 + 232 + 378'",
              model=None if shares is None else [*shares, per_io],
              gap="part 2: block reads bring a serial faulter's whole block; stolen pages' path to XSTOR under pressure "
                  "(docs/fidelity.md, M1 and M2)")
    st = r.storage(*w)
    steals, sysrow = st.get("steal_rate") or 0.0, r.upage(*w).get(m.SYSTEM, {})
    stealers = sum(1 for u, row in r.upage(*w).items() if u != m.SYSTEM and (row.get("steals") or 0) > 0)
    mig = r.sys(*w)
    ok = steals > 0 and (mig.get("pgout_rate") or 0) > 0 and (mig.get("migrate_rate") or 0) > 0 and stealers >= 10
    res.holds("S1-S7", "storage is under pressure during the read: steals, MS>X and X>DS, pages stolen from >= 10 users",
              ok, "steals 317/s, MS>X 277/s, X>DS 75/s (FCX113, 44 users)", f"{SRC_113}; {SRC_163} MS>X",
              model=[round(steals), round(mig.get("pgout_rate") or 0), round(mig.get("migrate_rate") or 0), stealers],
              gap="part 2: sustained pressure in today's model makes the light guests' working sets churn (pass-2 steals "
                  "take their hot pages), so the scenario's hog presses only before the read (docs/fidelity.md, M2)")
