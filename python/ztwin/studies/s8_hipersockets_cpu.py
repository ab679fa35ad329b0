"""S8 hipersockets-cpu: HiperSockets seem slow in a CPU-constrained CEC.

A customer's transactions from Linux on z/VM to a z/OS database over real
HiperSockets are slow; over an OSA they are not. z/VM shows no constraint
(FCX126 LPAR: its 12 IFLs about 22% busy, barely suspended). The analyst adds
up the 14 logical CPs of the four z/OS partitions per interval: the CEC's 6
physical CPs are saturated, and HiperSockets, a synchronous copy run by the
firmware on the processors of both sides, needs readily available cycles.

The CEC of the published MONWRITE data (``studies/hipersockets-cpu.toml``),
with a Linux guest's transactions to the z/OS database server over real
HiperSockets and a guest's pings to the same partition, run four ways: as
published; with the two network guests over an OSA instead (the customer's
comparison); with 10 CPs (the recommendation: heavy-phase demand fits), over
HiperSockets and over the OSA. Figures come from the LPAR report (FCX126),
PHYSLOG and the QDIO report (MRIODQDS) of the runs, the finding from the
advisor. Transfer times are the network component's (``model/net``): a
HiperSockets send waits for the peer partition's logical CP to be dispatched;
no formula here. The monitor records carry no response times (CP does not
know them): the guests think for exactly 250 ms (transactions) and 50 ms
(pings), so a guest's rate of SIGA-w (one per request) gives its response
time as ``1/rate - think``, to about ``(think + R)^2 / window`` (0.1 ms for
the transactions over 10 minutes, 0.005 ms for the pings).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ztwin.advisor import diagnose
from ztwin.reports import build
from ztwin.studies import STUDIES
from ztwin.studies.base import StudyResult, mean, studies_dir
from ztwin.twin import Scenario

NAME = "hipersockets-cpu"
TITLE = STUDIES[NAME].title
SCENARIO = "hipersockets-cpu.toml"
END, QUICK_END = 1800.0, 600.0
#: The network guests (scenario order: guest[1], guest[2]) and their exact
#: think times, ms (scenario inputs).
DB, PING = "LNXDB", "LNXPING"
THINK_MS = {DB: 250.0, PING: 50.0}
#: CPs of the CPU-rich variant (the recommendation): the z/OS partitions'
#: heaviest demand, 8.5 engines, fits.
MORE_CPS = 10
#: Least share of predicted figures within tolerance (full run, --quick).
FLOOR = {"full": 0.9, "quick": 0.9}

L126 = "FCX126 LPAR (case study 'HiperSockets Seem Slow')"
ZVM = "XXX1"
def published_mean(values: Sequence[float]) -> float:
    """Mean of a published row (never empty)."""
    return sum(values) / len(values)


#: Published FCX126 %Busy per logical processor: (partition, type) -> values.
BUSY = {
    ("XXX1", "IFL"): [20.5, 21.9, 21.5, 22.0, 22.1, 22.2, 22.0, 22.1, 21.9, 22.2, 22.1, 21.9],
    ("XXXA", "CP"): [28.2, 28.2, 28.1, 28.0],
    ("XXXA", "ZIIP"): [10.6, 10.5, 10.5, 10.6],
    ("XXXB", "CP"): [26.5, 26.5, 26.4, 26.4],
    ("XXXB", "ZIIP"): [11.5, 11.5, 11.5, 11.5],
    ("XXXO", "CP"): [0.0],
    ("XXXO", "ZIIP"): [0.0],
    ("YYYA", "CP"): [70.5, 70.5, 70.4, 70.2, 69.3],
    ("YYYA", "ZIIP"): [64.9, 64.9, 64.9, 65.0],
}
#: Published #Proc, weight and %Load per partition.
PROCS = {"XXX1": 12, "XXXA": 8, "XXXB": 8, "XXXO": 2, "YYYA": 9}
WEIGHTS = {"XXX1": 200, "XXXA": 190, "XXXB": 190, "XXXO": 20, "YYYA": 600}
LOAD = {"XXXA": 5.9, "XXXB": 5.8, "YYYA": 23.5}
PHYSICAL = {"CP": 6, "ICF": 4, "IFL": 12, "ZIIP": 4}


def run(quick: bool, workdir: Path) -> StudyResult:
    res = StudyResult(NAME, TITLE, floor=FLOOR["quick" if quick else "full"], quick=quick)
    end = QUICK_END if quick else END
    out = workdir / "hipersockets-cpu.monwrite"
    Scenario.load(studies_dir() / SCENARIO).run(out, duration=end)
    reps = build(out, ["LPAR", "PHYSLOG", "SYSSUMLG", "QDIO"])
    # The network guests' response times, ms, per variant: as published, over
    # an OSA, with more CPs over HiperSockets and over the OSA.
    resp = {"hs": _response(reps["QDIO"].rows)}
    for name, via_osa, cps in (("osa", True, None), ("hs-10cp", False, MORE_CPS), ("osa-10cp", True, MORE_CPS)):
        sc = Scenario.load(studies_dir() / SCENARIO)
        if via_osa:
            for g in (1, 2):
                sc.set(f"guest[{g}].workload.via", "osa")
        if cps:
            sc.set("lpar.physical.cp", cps)
        o = workdir / f"hipersockets-cpu-{name}.monwrite"
        sc.run(o, duration=end)
        resp[name] = _response(build(o, ["QDIO"])["QDIO"].rows)
    res.info.update(response_ms={k: {u: round(x, 3) for u, x in v.items()} for k, v in resp.items()})
    lpar = reps["LPAR"]
    rows = [dict(r) for r in lpar.rows]
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault((r["partition"], str(r["type"]).upper()), []).append(r)
    busy = {k: mean([r["busy_pct"] for r in v]) for k, v in by.items()}
    zvm = by.get((ZVM, "IFL"), [])
    res.info.update(busy={f"{p} {t}": b for (p, t), b in busy.items()})

    # -- configuration inputs ------------------------------------------------------------
    res.equal("S8-I1", "physical processors of the CEC (6 CP + 4 ICF + 12 IFL + 4 zIIP)", "input",
              "'2094 with 6 CPs, 4 ICFs, 12 IFLs, 4 zIIPs' (from MONWRITE data)",
              lpar.extra["summary"]["physical_cpus"], 26)
    procs = {p: len([r for r in rows if r["partition"] == p]) for p in PROCS}
    res.equal("S8-I2", "logical processors per partition (#Proc)", "input", L126, procs, PROCS)
    weights = {p: next((r["weight"] for r in rows if r["partition"] == p), None) for p in WEIGHTS}
    res.equal("S8-I3", "weights", "input", L126, weights, WEIGHTS)
    zos_cps = sum(len(v) for (p, t), v in by.items() if t == "CP")
    res.equal("S8-I4", "logical standard CPs of the z/OS partitions", "input",
              "'4 z/OS partitions have 14 logical standard CPs altogether'", zos_cps, 14)
    for i, p in enumerate(("XXXA", "XXXB", "YYYA"), start=5):
        res.rel(f"S8-I{i}", f"{p} zIIP %Busy (its demand: the zIIP pool is not full)", "input", L126,
                busy.get((p, "ZIIP")), published_mean(BUSY[(p, "ZIIP")]), tol=0, abs_tol=0.5,
                shown=f"{min(BUSY[(p, 'ZIIP')])}-{max(BUSY[(p, 'ZIIP')])}")
    res.rel("S8-I8", "XXXO %Busy (CP and zIIP)", "input", L126,
            max(busy.get(("XXXO", "CP")) or 0, busy.get(("XXXO", "ZIIP")) or 0), 0.0, tol=0, abs_tol=0.05)

    # -- calibrated ------------------------------------------------------------------------
    res.rel("S8-C1", "z/VM's IFLs: mean %Busy", "calibrated", L126, busy.get((ZVM, "IFL")),
            published_mean(BUSY[(ZVM, "IFL")]), tol=0, abs_tol=0.5, shown="20.5-22.2",
            note="calibrates the Linux guests' CPU use")
    cp_total = sum((busy.get((p, "CP")) or 0.0) * len(BUSY[(p, "CP")]) for p in ("XXXA", "XXXB", "XXXO", "YYYA"))
    pub_total = sum(sum(BUSY[(p, "CP")]) for p in ("XXXA", "XXXB", "XXXO", "YYYA"))
    res.rel("S8-C2", "14 logical CPs' %Busy added up (% of one CP)", "calibrated",
            "FCX126 LPAR %Busy of the z/OS CPs, summed as the analyst did", cp_total, pub_total, tol=0.02,
            note="calibrates the share of time the z/OS partitions ask for more CPs than the CEC has (9 of 10 minutes)")

    # -- predicted -------------------------------------------------------------------------
    for i, p in enumerate(("XXXA", "XXXB", "YYYA"), start=1):
        pub = BUSY[(p, "CP")]
        res.rel(f"S8-P{i}", f"{p} CPs: mean %Busy (PR/SM's division by weight)", "predicted", L126,
                busy.get((p, "CP")), published_mean(pub), tol=0, abs_tol=2.5, shown=f"{min(pub)}-{max(pub)}")
    for i, p in enumerate(("XXXA", "XXXB", "YYYA"), start=4):
        load = next((r["load_pct"] for r in rows if r["partition"] == p and r["load_pct"] is not None), None)
        res.rel(f"S8-P{i}", f"{p} %Load (its CPs and zIIPs over the 26 physical processors)", "predicted", L126,
                load, LOAD[p], tol=0, abs_tol=0.5)
    res.rel("S8-P7", "z/VM's IFLs: mean %Susp", "predicted", L126, mean([r["susp_pct"] for r in zvm]), 0.3,
            tol=0, abs_tol=0.5, note="its IFL pool is not shared with an active partition")
    res.in_range("S8-P8", "z/VM's IFLs: %Ovhd", "predicted", L126, tuple(r["ovhd_pct"] for r in zvm), 0.05, 0.25,
                 published=".1-.2", note="PR/SM management time: the model's default 25 us per logical CPU and interval")
    res.rel("S8-P9", "z/VM's IFLs: mean %VMLd", "predicted", L126, mean([r["vmld_pct"] for r in zvm]), 21.6,
            tol=0, abs_tol=0.7, shown="20.3-22.0")
    res.rel("S8-P10", "z/VM's IFLs: mean %LogLd", "predicted", L126, mean([r["logld_pct"] for r in zvm]), 21.7,
            tol=0, abs_tol=0.7, shown="20.4-22.0")
    zos_cp = [r for r in rows if r["partition"] != ZVM and str(r["type"]).upper() == "CP" and r["partition"] != "XXXO"]
    res.in_range("S8-P11", "z/OS CPs: %Ovhd", "predicted", L126, tuple(r["ovhd_pct"] for r in zos_cp), 0.0, 0.25,
                 published=".1-.2")
    zos_ziip = [r for r in rows if str(r["type"]).upper() == "ZIIP" and r["partition"] != "XXXO"]
    res.in_range("S8-P12", "z/OS zIIPs: %Ovhd", "predicted", L126, tuple(r["ovhd_pct"] for r in zos_ziip), 0.0, 0.15,
                 published=".0-.1", note="the model charges the same management time per dispatched logical CPU of "
                 "any type; the published zIIPs show less than the CPs")

    # -- structural ------------------------------------------------------------------------
    phys = [dict(r) for r in reps["PHYSLOG"].rows if r["type"] == "CP" and r["interval_end"] != ">>Mean>>"]
    cp_pct = [100.0 * (r["total_engines"] or 0.0) / PHYSICAL["CP"] for r in phys]
    full = sum(v >= 98.0 for v in cp_pct)
    res.info.update(cp_pool_pct=[round(v, 1) for v in cp_pct])
    res.holds("S8-S1", "the 6 physical CPs are saturated (>= 98% in most intervals)", full >= 0.8 * len(cp_pct),
              "'Real standard CPs are saturated' (CEC view, PU busy by type)", "PHYSLOG CP engines / 6 per interval",
              model=f"{full} of {len(cp_pct)} intervals")
    top = max((r["busy_pct"] for r in rows if r["partition"] != ZVM and str(r["type"]).upper() == "CP"), default=None)
    res.holds("S8-S2", "no z/OS logical CP looks really busy (all below 75%)", top is not None and top < 75.0,
              "'None of these partitions look real busy' (highest 70.5)", L126, model=top)
    zb, zs = busy.get((ZVM, "IFL")), mean([r["susp_pct"] for r in zvm])
    res.holds("S8-S3", "z/VM looks unconstrained: IFLs below 30% busy, suspended below 1%",
              zb is not None and zb < 30.0 and zs is not None and zs < 1.0,
              "'FCX126 LPAR and FCX225 SYSSUMLG - no IFL constraints found'", L126, model=[zb, zs])
    pages = reps["SYSSUMLG"].rows[0].get("read_write_rate") if reps["SYSSUMLG"].rows else None
    res.holds("S8-S4", "no paging: everything fits in central storage", pages is not None and pages < 1.0,
              "'no paging found - everything fits in central'", "FCX225 SYSSUMLG Read+Write/s", model=pages)
    d = diagnose(out)
    ids = d.ids()
    f = d.get("lpar-pool-busy")
    ev = f.evidence[0].summary if f is not None else ""
    res.holds("S8-S5", "advisor: the CP pool is full, invisible in z/VM's own busy",
              f is not None and "full pool of 6 physical CPs" in ev and "cpu-busy" not in ids and "lpar-busy" not in ids,
              "'I couldn't find a z/VM constraint' ... 'This is a CPU-constrained environment'",
              "ztwin diagnose (lpar-pool-busy)", model=ev or sorted(ids))
    res.info["findings"] = sorted(ids)
    qev = next((e for e in f.evidence if e.report == "QDIO"), None) if f is not None else None
    res.holds("S8-S7", "advisor: the finding names the HiperSockets traffic the full pool slows",
              qev is not None and DB in qev.summary and "synchronous" in qev.summary,
              "'Real HiperSockets require readily accessible cycles to work well'",
              "ztwin diagnose (lpar-pool-busy, QDIO evidence)", model=qev.summary if qev else None)

    # -- HiperSockets: the traffic (inputs) and its times (predicted) ------------------------
    qdio = {r["owner"]: r for r in reps["QDIO"].rows}
    db = qdio.get(DB, {})
    msgs = (db.get("siga_w_rate") or 0.0) + (db.get("siga_r_rate") or 0.0) if db else None
    res.in_range("S8-I9", "HiperSockets messages per second (out and in) of the transactions' device", "input",
                 "FCX231 INTERIM HIPSOCK ('<10 msgs/sec')", msgs, 0.0, 9.99, published="<10",
                 note="QDIO report (MRIODQDS SIGA-w + SIGA-r per s); the scenario's think time sets it; the ping "
                 "guest's traffic (a diagnostic the customer ran separately) is left out")
    res.rel("S8-I10", "data units per message (bytes per buffer out)", "input",
            "FCX231 INTERIM HIPSOCK ('600 data units/message')", db.get("bytes_per_buf"), 600.0, tol=0,
            note="QDIO report (MRIODQDS bytes / buffers out); taken as bytes")
    hs, osa, hs10, osa10 = (resp.get(k, {}) for k in ("hs", "osa", "hs-10cp", "osa-10cp"))

    def ratio(a: dict[str, float], b: dict[str, float], who: str) -> float | None:
        x, y = a.get(who), b.get(who)
        return x / y if x is not None and y else None

    res.in_range("S8-P13", "ping time over HiperSockets: as published / with 10 CPs (long: > 1)", "predicted",
                 "'Long ping times from my z/VM partition to my z/OS partition'", ratio(hs, hs10, PING), 1.0, 1e9,
                 published="long", note=f"ping {hs.get(PING, 0):.3f} ms vs {hs10.get(PING, 0):.3f} ms; the "
                 "magnitude depends on YYYA's heavy-phase demand above its share (assumed, not published)")
    res.in_range("S8-P14", "transaction time over HiperSockets: as published / with 10 CPs (long: > 1)", "predicted",
                 "'Long transaction times from my z/VM partition to my z/OS partition'", ratio(hs, hs10, DB), 1.0,
                 1e9, published="long", note=f"{hs.get(DB, 0):.2f} ms vs {hs10.get(DB, 0):.2f} ms; the server's "
                 "1 ms of CP (assumed) stretches on any path when YYYA waits for the pool")
    res.in_range("S8-P15", "ping time in the saturated CEC: HiperSockets / OSA (> 1: the OSA is better)", "predicted",
                 "'When I use a real OSA to connect the partitions, I don't have these problems'; 'Explains why "
                 "real OSA was better'", ratio(hs, osa, PING), 1.0, 1e9, published="OSA better",
                 note=f"{hs.get(PING, 0):.3f} vs {osa.get(PING, 0):.3f} ms. Transactions: "
                 f"{hs.get(DB, 0):.2f} vs {osa.get(DB, 0):.2f} ms, a difference within the rate-derived "
                 "measure's resolution (about 0.1 ms in 10 minutes at 4 per second), so not checked; an AIX "
                 "client reaches the server through an OSA: the same path")
    res.holds("S8-S6", "in a CPU-rich CEC (10 CPs) HiperSockets pings are faster than an OSA's",
              (hs10.get(PING) or 1e9) < (osa10.get(PING) or 0.0),
              "'Works fine in CPU-rich environments'", "QDIO report, 1/rate - think",
              model=[hs10.get(PING), osa10.get(PING)])

    # -- not modelled ------------------------------------------------------------------------
    res.not_modelled("S8-N3", "partition numbers (11, 8, 9, 10, 13) and user partition ids", L126, "Nr., Upid",
                     "the twin numbers partitions in scenario order (z/VM's first); identities only")
    res.not_modelled("S8-N4", "other inactive z/VM partitions (shared IFL 12-ways) and the z/VM checks of DASD "
                     "(FCX108, FCX168), FICON adapters (FCX215) and users (FCX112, FCX162)", "case study",
                     "not running; good service, no queues, no adapter problem, low T/V",
                     "inactive partitions write no records; the Linux guests' DASD I/O is not in this scenario")
    res.not_modelled("S8-N5", "the other recommendation: z/OS tuned to need fewer CP resources", "case study 'Findings'",
                     "recommended", "how much less z/OS would need is not published; more CPs (the first "
                     "recommendation) is S8-P13/P14")
    return res


def _response(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Each network guest's response time, ms, from its SIGA-w rate (one per
    request) and its exact think time."""
    out = {}
    for r in rows:
        rate = r.get("siga_w_rate")
        if r.get("owner") in THINK_MS and rate:
            out[r["owner"]] = 1000.0 / rate - THINK_MS[r["owner"]]
    return out
