"""S2 undersized-lpar: before and after adding storage, paging volumes and a CPU.

Before, 26 active Linux guests overcommit a 19.5 GB LPAR about 3.5 times: the
paging volumes queue, users wait for pages, CP's paging work raises T/V. After
the upgrade (52 GB, 40 paging volumes, 3 IFLs) the same workload pages a few
pages a second: no queues, no page wait, far fewer user pages on DASD, lower T/V.

Every figure of the case study (``shared/spec/fidelity-001-audit.md``, S2) is a
check. BEFORE is the published 14-hour day (FCX225/FCX109/FCX126 from
09:50:08); AFTER the published four hours (from 11:35:25). Both scenarios start
two hours earlier, so the published windows begin warm.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ztwin.advisor import diagnose
from ztwin.studies import STUDIES
from ztwin.studies import measures as m
from ztwin.studies.base import Check, StudyResult, mean, studies_dir
from ztwin.twin import Scenario

NAME = "undersized-lpar"
TITLE = STUDIES[NAME].title
BEFORE = "undersized-lpar-before.toml"
AFTER = "undersized-lpar-after.toml"
WARMUP = 7200.0  # the first two hours fill storage and settle; the published day starts warm
DAY = 14 * 3600.0  # the published BEFORE day (14:03:24 of 10-min intervals)
AFTER_SPAN = 4 * 3600.0
QUICK_SPAN = 3600.0

#: Least share of predicted figures within tolerance (full run, --quick).
FLOOR = {"full": 0.45, "quick": 0.45}

B225, B109, B126 = "FCX225 BEFORE", "FCX109 BEFORE", "FCX126 BEFORE"
A225, A109, A126 = "FCX225 AFTER", "FCX109 AFTER", "FCX126 AFTER"
SLOTS_3390_3 = 3339 * 180


def run(quick: bool, workdir: Path) -> StudyResult:
    res = StudyResult(NAME, TITLE, floor=FLOOR["quick" if quick else "full"], quick=quick)
    before = Scenario.load(studies_dir() / BEFORE)
    after = Scenario.load(studies_dir() / AFTER)
    b = (WARMUP, WARMUP + (QUICK_SPAN if quick else DAY))
    a = (WARMUP, WARMUP + (QUICK_SPAN if quick else AFTER_SPAN))
    bp, ap = workdir / "s2-before.monwrite", workdir / "s2-after.monwrite"
    before.run(bp, duration=b[1])
    after.run(ap, duration=a[1])
    rb, ra = m.Run(bp), m.Run(ap)
    res.info.update(window_before=[str(rb.time(b[0])), str(rb.time(b[1]))], window_after=[str(ra.time(a[0])), str(ra.time(a[1]))])
    _inputs(res, rb, b, ra, a)
    sb = _before(res, rb, b)
    _after(res, ra, a, rb, b, sb)
    _structure(res, rb, bp, b, ra, ap, a, sb)
    res.not_modelled("S2-N1", "transactions (trivial, non-trivial, quick dispatch; UP+MP)", "FCX225 Transactions",
                     ".947, 47.16, 1.302, 1.15, .45, .67 before; .781, 2.788, .959, 3.84, 1.80, .77 after",
                     "the guests' transactions are not modelled (no CMS/Linux transaction classification)")
    res.not_modelled("S2-N2", "spool: slots, % used, spool pages/s; dump slots", "FCX109 SPOOL; FCX225 Spool Pages",
                     "600,840 slots; 31% / 54% used; 3.0 pages/s after; 0 dump slots", "spool is not modelled (issue 13)")
    res.not_modelled("S2-N3", "other partitions, physical CPUs, LPAR management, physical load", "FCX126",
                     "7 partitions, 9 physical CPUs, CF01A 98.7/98.2, VMLNX3 1.4-2.9, mgmt .3/.4, physical load 51.5/41.0",
                     "one partition with dedicated CPUs; PR/SM sharing is not modelled (issue 15)")
    res.not_modelled("S2-N4", "%Used for Alloc / User Interferes per paging volume", "FCX109", "78-90 / 1",
                     "CP's allocation-cursor statistics and cross-user interference counts are not in the model's records")
    res.not_modelled("S2-P23", "BEFORE LPAR %Susp per logical CPU", f"{B126} third column", 1.9,
                     "suspension comes from PR/SM sharing physical CPUs with other partitions, which is not modelled")
    return res


def _uconf_gb(r: m.Run, w: tuple[float, float]) -> float:
    rows = r.reports(*w)["UCONF"].rows
    return sum((u.get("stor_size_mb") or 0) for u in rows if u.get("logoff") is None) / 1024


def _inputs(res: StudyResult, rb: m.Run, b: tuple[float, float], ra: m.Run, a: tuple[float, float]) -> None:
    cb, ca = rb.reports(*b)["SYSCONF"].rows[0], ra.reports(*a)["SYSCONF"].rows[0]

    def proc(c: dict[str, Any]) -> list[Any]:
        types = sorted({p["type"] for p in c.get("processors") or []})
        return [c.get("cpu_count"), "/".join(types), f"{c.get('machine_type')}-{c.get('machine_model')}"]

    res.equal("S2-I1", "BEFORE processors / type / model", "input", "Customer's Configuration", proc(cb), [2, "IFL", "2094-606"])
    res.equal("S2-I2", "BEFORE central / XSTOR, MB", "input", "Customer's Configuration", [cb.get("storage_mb"), cb.get("xstor_mb")],
              [19968, 4096])
    res.rel("S2-I3", "BEFORE page slots", "input", f"{B109} PAGE slots available", cb.get("page_slots"), 24_641_000, tol=0.001,
            shown="24641k")
    res.equal("S2-I4", "BEFORE paging devices", "input", "Customer's Configuration", len(rb.exposures(*b)), 25)
    vb = _uconf_gb(rb, b)
    res.rel("S2-I5", "BEFORE logged-on virtual, GB", "input", "Customer's Configuration", vb, 68, tol=0.05)
    sb = rb.sys(*b)
    res.equal("S2-I6", "BEFORE users logged / active", "input", f"{B225} >>Mean>> Logged, Activ",
              [_round(sb.get("users_logged")), _round(sb.get("users_active"))], [31, 26])
    res.equal("S2-I7", "AFTER processors / type / model", "input", "Customer's New Configuration", proc(ca), [3, "IFL", "2094-705"])
    res.equal("S2-I8", "AFTER central / XSTOR, MB", "input", "Customer's New Configuration",
              [ca.get("storage_mb"), ca.get("xstor_mb")], [52736, 4096])
    ok = ca.get("page_slots") is not None and abs(ca["page_slots"] - 72_121_000) <= 0.001 * 72_121_000
    res.add(Check("S2-I9", "AFTER page slots / paging devices", "input", f"{A109} PAGE slots available; configuration",
                  ["72121k", 40], [ca.get("page_slots"), len(ra.exposures(*a))], "±0.1% / exact",
                  ok and len(ra.exposures(*a)) == 40))
    va = _uconf_gb(ra, a)
    res.rel("S2-I10", "AFTER logged-on virtual, GB", "input", "Customer's New Configuration", va, 87, tol=0.05)
    sa = ra.sys(*a)
    res.equal("S2-I11", "AFTER users logged / active", "input", f"{A225} >>Mean>> Logged, Activ",
              [_round(sa.get("users_logged")), _round(sa.get("users_active"))], [37, 31])
    ratios = [ca["cpu_count"] / cb["cpu_count"], ca["storage_mb"] / cb["storage_mb"],
              ca["page_slots"] / cb["page_slots"], len(ra.exposures(*a)) / len(rb.exposures(*b))]  # fmt: skip
    pub = [1.5, 2.64, 2.93, 1.6]
    res.add(Check("S2-I12", "'Change' column: CPUs, storage, slots, paging devices (after / before)", "input",
                  "Customer's New Configuration, Change", pub, [round(x, 2) for x in ratios], "±1% each",
                  all(abs(x - p) <= 0.01 * p for x, p in zip(ratios, pub)),
                  "published +50%, +267%, +293%, +160%: the last three are ratios (264%, 293%, 160%), not increases"))


def _round(v: Any) -> int | None:
    return None if v is None else int(round(v))


def _split(exp: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Paging exposures: 3390-3 volumes and the larger ones."""
    small = [e for e in exp if (e.get("page_slots") or 0) <= SLOTS_3390_3]
    return small, [e for e in exp if (e.get("page_slots") or 0) > SLOTS_3390_3]


def _before(res: StudyResult, r: m.Run, w: tuple[float, float]) -> dict[str, Any]:
    s = r.sys(*w)
    ivs = r.sys_intervals(*w)
    res.rel("S2-C1", "BEFORE CPU %busy", "calibrated", f"{B225} >>Mean>> Pct Busy", s.get("cpu_busy_pct"), 46.7,
            note="calibrates the guests' CPU per page touch")
    res.rel("S2-C2", "BEFORE T/V", "calibrated", f"{B225} >>Mean>> T/V", s.get("tv_ratio"), 1.25, tol=0, abs_tol=0.05,
            note="calibrates the CP cost factor (5x the default path lengths)")
    exp = r.exposures(*w)
    res.in_range("S2-C3", "BEFORE paging service time per volume, ms", "calibrated", f"{B109} Serv Time /Page",
                  tuple(m.values(exp, "serv_ms")), 4.9, 6.6,
                  note="taken as per I/O; if the column is per page, per-I/O service would be about 2.2x larger")
    res.in_range("S2-P1", "BEFORE paging response per volume, ms", "predicted", f"{B109} MLOAD Resp Time",
                 tuple(m.values(exp, "resp_ms")), 12.9, 29.0)
    res.rel("S2-P2", "BEFORE PGIN+PGOUT/s", "predicted", f"{B225} >>Mean>> PGIN+PGOUT", s.get("page_rate"), 1680)
    res.rel("S2-P3", "BEFORE DASD page Read+Write/s", "predicted", f"{B225} >>Mean>> Read+Write", s.get("read_write_rate"), 1046)
    res.rel("S2-P4", "BEFORE capture ratio", "predicted", f"{B225} >>Mean>> Capture", s.get("capture_ratio"), 0.8177, tol=0,
            abs_tol=0.05, note="uncaptured CP time 18% published")
    res.rel("S2-P5", "BEFORE SSCH+RSCH/s", "predicted", f"{B225} >>Mean>> SSCH+RSCH", s.get("ssch_rate"), 566.8)
    res.rel("S2-P6", "BEFORE DASD response, ms", "predicted", f"{B225} >>Mean>> DASD Resp", s.get("dasd_resp_ms"), 11.8)
    res.rel("S2-P7", "BEFORE users in eligible list", "predicted", f"{B225} >>Mean>> Users in Elist", s.get("users_in_elist"),
            0.0, tol=0, abs_tol=0.05)
    slots = r.slots(*w)
    res.rel("S2-P8", "BEFORE page slot utilization, %", "predicted", f"{B109} PAGE slot utilization", slots.get("page_used_pct"), 37)
    small, big = _split(exp)

    def per_vol(cid: str, what: str, rows: list[dict[str, Any]], key: str, lo: float, hi: float, avg: float, col: str) -> None:
        res.rel(cid, f"BEFORE {what}", "predicted", f"{B109} {col}", mean(m.values(rows, key)), avg,
                shown=f"{lo:g}-{hi:g} (mean {avg:g})" if lo != hi else lo, note="mean over the volumes")

    per_vol("S2-P9", "%used per 3390-3 paging volume", small, "used_pct", 56, 60, 58.4, "Used %")
    per_vol("S2-P10", "%used per 3390-9 paging volume", big, "used_pct", 22, 22, 22, "Used %")
    per_vol("S2-P11", "page reads/s per 3390-3 volume", small, "page_reads", 21.5, 23.1, 22.4, "P-Rds")
    per_vol("S2-P12", "page reads/s per 3390-9 volume", big, "page_reads", 25.5, 25.7, 25.6, "P-Rds")
    per_vol("S2-P13", "page writes/s per 3390-3 volume", small, "page_writes", 16.8, 18.0, 17.5, "P-Wrt")
    per_vol("S2-P14", "page writes/s per 3390-9 volume", big, "page_writes", 19.6, 19.7, 19.6, "P-Wrt")
    per_vol("S2-P15", "pages/s per 3390-3 volume", small, "page_total", 38.3, 41.1, 39.9, "Total")
    per_vol("S2-P16", "pages/s per 3390-9 volume", big, "page_total", 45.1, 45.4, 45.2, "Total")
    per_vol("S2-P17", "SSCH/s per 3390-3 volume", small, "ssch_rate", 17.6, 19.8, 18.8, "SSCH+RSCH")
    per_vol("S2-P18", "SSCH/s per 3390-9 volume", big, "ssch_rate", 18.4, 18.6, 18.5, "SSCH+RSCH")
    res.in_range("S2-P19", "BEFORE paging queue length per volume", "predicted", f"{B109} Queue Lngth",
                 tuple(m.values(exp, "queue_len")), 2.10, 3.77)
    blk = m.total(exp, "page_total") / m.total(exp, "ssch_rate") if m.total(exp, "ssch_rate") else None
    res.rel("S2-P20", "BEFORE pages per paging SSCH", "predicted", f"{B109} Total / SSCH (Block Page Size 2-3)", blk, 2.24,
            shown="2.07-2.46 (mean 2.24)")
    lp = r.lpar(*w)
    for cid, cpu, pub in (("S2-P21", 0, 47.2), ("S2-P22", 1, 47.0)):
        row = next((x for x in lp if x["cpu"] == cpu), {})
        res.rel(cid, f"BEFORE LPAR %busy, logical CPU {cpu}", "predicted", f"{B126} %Busy CPU {cpu}", row.get("busy_pct"), pub)
    busy = m.values(ivs, "cpu_busy_pct")
    res.rel("S2-P24", "BEFORE peak 10-min CPU %busy", "calibrated", f"{B225} 10:20:08 Pct Busy", max(busy, default=None), 71.6,
            note="the day profile's peak-hour workload is calibrated from this interval")
    res.rel("S2-P25", "BEFORE lowest 10-min CPU %busy shown", "calibrated", f"{B225} 10:50:08 Pct Busy", min(busy, default=None),
            28.0, note="the day profile's quiet-hour workload is calibrated from this interval")
    res.rel("S2-P26", "BEFORE peak T/V", "predicted", f"{B225} 10:00:08 T/V", max(m.values(ivs, "tv_ratio"), default=None), 1.45,
            tol=0, abs_tol=0.05)
    res.rel("S2-P27", "BEFORE lowest capture ratio", "predicted", f"{B225} 10:00:08 Capture",
            min(m.values(ivs, "capture_ratio"), default=None), 0.7064, tol=0, abs_tol=0.05)
    res.rel("S2-P28", "BEFORE peak SSCH+RSCH/s", "predicted", f"{B225} 10:00:08 SSCH+RSCH", max(m.values(ivs, "ssch_rate"), default=None),
            1071)
    res.rel("S2-P29", "BEFORE peak PGIN+PGOUT/s", "predicted", f"{B225} 10:00:08 PGIN+PGOUT", max(m.values(ivs, "page_rate"), default=None),
            3215)
    res.rel("S2-P30", "BEFORE peak Read+Write/s", "predicted", f"{B225} 10:00:08 Read+Write",
            max(m.values(ivs, "read_write_rate"), default=None), 2094)
    up = r.upage(*w).get(m.SYSTEM, {})
    return {"sys": s, "dasd_pages": (up.get("dasd") or 0) * (up.get("users") or 0), "exp": exp}


def _after(res: StudyResult, r: m.Run, w: tuple[float, float], rb: m.Run, b: tuple[float, float], sb: dict[str, Any]) -> None:
    s = r.sys(*w)
    ivs = r.sys_intervals(*w)
    res.rel("S2-P31", "AFTER T/V", "predicted", f"{A225} >>Mean>> T/V", s.get("tv_ratio"), 1.06, tol=0, abs_tol=0.05)
    exp = r.exposures(*w)
    res.at_most("S2-P32", "AFTER busiest paging volume's queue length", "predicted", f"{A109} Queue Lngth",
                max(m.values(exp, "queue_len"), default=0.0), 0.05, 0)
    us = r.ustat(*w).get(m.SYSTEM, {})
    res.at_most("S2-P33", "AFTER >System< %PGW", "predicted", "FCX114 AFTER: 'No more user page waits'", us.get("pgw_pct"), 0.5, 0)
    res.rel("S2-P34", "AFTER PGIN+PGOUT/s", "predicted", f"{A225} >>Mean>> PGIN+PGOUT", s.get("page_rate"), 5.7)
    up = r.upage(*w).get(m.SYSTEM, {})
    dasd_a = (up.get("dasd") or 0) * (up.get("users") or 0)
    fewer = 100 * (1 - dasd_a / sb["dasd_pages"]) if sb["dasd_pages"] else None
    res.rel("S2-P35", "AFTER reduction in user pages on DASD, %", "predicted", "FCX113 UPAGE before/after: '60% reduction'", fewer, 60,
            note=f"user pages on DASD {sb['dasd_pages']:,.0f} -> {dasd_a:,.0f}")
    res.rel("S2-P36", "AFTER CPU %busy", "predicted", f"{A225} >>Mean>> Pct Busy", s.get("cpu_busy_pct"), 14.1)
    res.in_range("S2-P37", "AFTER CPU %busy per 10-min interval", "predicted", f"{A225} Pct Busy by interval",
                 tuple(m.values(ivs, "cpu_busy_pct")), 13.2, 16.1)
    lp = sorted(r.lpar(*w), key=lambda x: x["cpu"])
    busy = [x.get("busy_pct") for x in lp]
    res.add(Check("S2-P38", "AFTER LPAR %busy per logical CPU", "predicted", f"{A126} %Busy", [14.3, 14.3, 14.3], busy,
                  "±15% each", bool(busy) and all(v is not None and abs(v - 14.3) <= 0.15 * 14.3 for v in busy)))
    res.rel("S2-P39", "AFTER capture ratio", "predicted", f"{A225} >>Mean>> Capture", s.get("capture_ratio"), 0.9817, tol=0,
            abs_tol=0.05)
    res.rel("S2-P40", "AFTER SSCH+RSCH/s", "predicted", f"{A225} >>Mean>> SSCH+RSCH", s.get("ssch_rate"), 113.6)
    res.rel("S2-P41", "AFTER DASD response, ms", "calibrated", f"{A225} >>Mean>> DASD Resp", s.get("dasd_resp_ms"), 1.2,
            note="the reconfigured minidisk volumes' service time is calibrated from this figure")
    res.rel("S2-P42", "AFTER DASD page Read+Write/s", "predicted", f"{A225} >>Mean>> Read+Write", s.get("read_write_rate"), 4.2)
    res.rel("S2-P43", "AFTER users in eligible list", "predicted", f"{A225} >>Mean>> Users in Elist", s.get("users_in_elist"), 0.0,
            tol=0, abs_tol=0.05)
    res.rel("S2-P44", "AFTER page slot utilization, %", "predicted", f"{A109} PAGE slot utilization", r.slots(*w).get("page_used_pct"), 4)
    rd, ss = mean(m.values(exp, "page_reads")), mean(m.values(exp, "ssch_rate"))
    res.add(Check("S2-P45", "AFTER page reads/s and SSCH/s per paging volume", "predicted", f"{A109} P-Rds, SSCH+RSCH",
                  [0.1, "0-.1"], [rd, ss], "reads .05-.15, SSCH <= .15",
                  rd is not None and ss is not None and 0.05 <= rd <= 0.15 and ss <= 0.15))
    serv = [e["serv_ms"] for e in exp if e.get("serv_ms") is not None and (e.get("ssch_rate") or 0) > 0]
    res.in_range("S2-P46", "AFTER paging service time per volume, ms", "predicted", f"{A109} Serv Time /Page",
                 tuple(serv) if serv else None, 3.0, 4.3)


def _structure(
    res: StudyResult, rb: m.Run, bp: Path, b: tuple[float, float], ra: m.Run, ap: Path, a: tuple[float, float], sb: dict[str, Any]
) -> None:
    adv_b = diagnose(bp, rb.time(b[0]), rb.time(b[1])).ids()
    adv_a = diagnose(ap, ra.time(a[0]), ra.time(a[1])).ids()
    res.info.update(advisor_before=adv_b, advisor_after=adv_a)
    exp = sb["exp"]
    serv = m.weighted(exp, "serv_ms", "ssch_rate") or 0.0
    resp = m.weighted(exp, "resp_ms", "ssch_rate") or 0.0
    qmax = max(m.values(exp, "queue_len"), default=0.0)
    res.holds("S2-S1", "BEFORE: long queues and long response times on paging volumes (response >= 2 x service, "
              "queue >= 1 on the busiest volume, advisor paging-device-queue)",
              resp >= 2 * serv and qmax >= 1 and "paging-device-queue" in adv_b, "queues 2.1-3.8; response 13-29 ms for 5-7 ms",
              "text 'What We Saw'; FCX109", model=[round(resp, 1), round(serv, 1), round(qmax, 2), "paging-device-queue" in adv_b],
              gap="part 2: page-outs reach the volumes as whole demand-scan batches, so queues come in bursts "
                  "(docs/fidelity.md, M6)")
    pgw = rb.ustat(*b).get(m.SYSTEM, {})
    pgw_active = 100 * (pgw.get("pgw_pct") or 0) / pgw["act_pct"] if pgw.get("act_pct") else 0.0
    res.holds("S2-S2", "BEFORE: storage constrained, users in page wait (advisor storage-constrained, >= 2% of active samples in PGW)",
              "storage-constrained" in adv_b and pgw_active >= 2, "undersized LPAR", "text; FCX114",
              model=[round(pgw_active, 1), "storage-constrained" in adv_b])
    busy = m.values(rb.sys_intervals(*b), "cpu_busy_pct")
    peak = max(busy, default=0.0)
    res.holds("S2-S3", "BEFORE: possible processor contention at peak hours (peak 10-min interval >= 65% busy)", peak >= 65,
              "peak 71.6%", "text 'What We Saw'; FCX225", model=round(peak, 1))
    tv_b, tv_a = sb["sys"].get("tv_ratio") or 0, ra.sys(*a).get("tv_ratio") or 0
    res.holds("S2-S4", "AFTER: no paging queue, no page wait, no storage constraint (advisor); T/V lower than before",
              not {"storage-constrained", "paging-device-queue"} & set(adv_a) and tv_a < tv_b,
              "T/V 1.25 -> 1.06", "text 'Measurement After The Change'", model=[round(tv_b, 3), round(tv_a, 3), ", ".join(adv_a)])
    sa = ra.sys(*a)
    up = ra.upage(*a).get(m.SYSTEM, {})
    dasd_a = (up.get("dasd") or 0) * (up.get("users") or 0)
    left = dasd_a / sb["dasd_pages"] if sb["dasd_pages"] else 0.0
    ok = (sa.get("page_rate") or 0) > 0.5 and (sa.get("read_write_rate") or 0) > 0.5 and left >= 0.2
    res.holds("S2-S5", "AFTER: the system still pages a little (PGIN+PGOUT and Read+Write > .5/s; >= 20% of the DASD pages remain)",
              ok, "5.7 + 4.2 pages/s; 40% of DASD pages remain", "FCX225, FCX113 AFTER",
              model=[round(sa.get("page_rate") or 0, 1), round(sa.get("read_write_rate") or 0, 1), round(left, 2)],
              gap="part 2: with M5 the Linux guests fill their page cache, but the pages they use then still fit "
                  "central storage and XSTOR (the areas' cold parts are not all touched in the run); letting the "
                  "coldest pages reach DASD without stealing the working sets needs a steal order that tells "
                  "hours from seconds: with M2's two looks, filling every page (fill_area, tried) pages 573/s "
                  "(docs/fidelity.md)")
    peak_a = max(m.values(ra.sys_intervals(*a), "cpu_busy_pct"), default=100.0)
    res.holds("S2-S6", "AFTER: no processor constraint during the peak hour (busiest 10-min interval below 80%)", peak_a < 80,
              "'No processor constraint during the peak hour'", "text 'Measurement After The Change'; FCX225",
              model=round(peak_a, 1),
              note="the CPU the AFTER system uses (14.1% published) is S2-P36")
