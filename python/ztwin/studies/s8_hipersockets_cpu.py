"""S8 hipersockets-cpu: HiperSockets seem slow in a CPU-constrained CEC.

A customer's transactions from Linux on z/VM to a z/OS database over real
HiperSockets are slow; over an OSA they are not. z/VM shows no constraint
(FCX126 LPAR: its 12 IFLs about 22% busy, barely suspended). The analyst adds
up the 14 logical CPs of the four z/OS partitions per interval: the CEC's 6
physical CPs are saturated, and HiperSockets, a synchronous copy run by the
firmware on the processors of both sides, needs readily available cycles.

One run (``studies/hipersockets-cpu.toml``): the CEC of the published
MONWRITE data. Figures come from the LPAR report (FCX126) and PHYSLOG of the
run, the finding from the advisor. HiperSockets traffic itself is not
modelled yet (no component, no QDIO/HiperSockets records): its figures and the
slow transfers are listed as not modelled, never matched.
"""

from __future__ import annotations

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
#: Least share of predicted figures within tolerance (full run, --quick).
FLOOR = {"full": 0.9, "quick": 0.9}

L126 = "FCX126 LPAR (case study 'HiperSockets Seem Slow')"
ZVM = "XXX1"
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
    reps = build(out, ["LPAR", "PHYSLOG", "SYSSUMLG"])
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
                busy.get((p, "ZIIP")), mean(BUSY[(p, "ZIIP")]), tol=0, abs_tol=0.5,
                shown=f"{min(BUSY[(p, 'ZIIP')])}-{max(BUSY[(p, 'ZIIP')])}")
    res.rel("S8-I8", "XXXO %Busy (CP and zIIP)", "input", L126,
            max(busy.get(("XXXO", "CP")) or 0, busy.get(("XXXO", "ZIIP")) or 0), 0.0, tol=0, abs_tol=0.05)

    # -- calibrated ------------------------------------------------------------------------
    res.rel("S8-C1", "z/VM's IFLs: mean %Busy", "calibrated", L126, busy.get((ZVM, "IFL")),
            mean(BUSY[(ZVM, "IFL")]), tol=0, abs_tol=0.5, shown="20.5-22.2",
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
                busy.get((p, "CP")), mean(pub), tol=0, abs_tol=2.5, shown=f"{min(pub)}-{max(pub)}")
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

    # -- not modelled ------------------------------------------------------------------------
    res.not_modelled("S8-N1", "HiperSockets activity: <10 msgs/s, 600 data units per message", "FCX231 INTERIM HIPSOCK",
                     "<10, 600", "HiperSockets transfers and their monitor records are not modelled yet (issue 15 item 2)")
    res.not_modelled("S8-N2", "long ping and transaction times from z/VM to z/OS over HiperSockets; not over an OSA; "
                     "not when AIX drives the z/OS server", "case study 'Question from Customer'", "slow / fine / fine",
                     "the synchronous transfer (copy on the CPs of both sides) is not modelled yet: the slow-down "
                     "is not reproduced, only the constraint that causes it")
    res.not_modelled("S8-N3", "partition numbers (11, 8, 9, 10, 13) and user partition ids", L126, "Nr., Upid",
                     "the twin numbers partitions in scenario order (z/VM's first); identities only")
    res.not_modelled("S8-N4", "other inactive z/VM partitions (shared IFL 12-ways) and the z/VM checks of DASD "
                     "(FCX108, FCX168), FICON adapters (FCX215) and users (FCX112, FCX162)", "case study",
                     "not running; good service, no queues, no adapter problem, low T/V",
                     "inactive partitions write no records; the Linux guests' I/O and network are not in this scenario")
    res.not_modelled("S8-N5", "the recommendation's effect: more standard CPs, or z/OS tuned to need fewer",
                     "case study 'Findings'", "recommended",
                     "what more CPs would relieve depends on how far the z/OS partitions' demand exceeds the 6 CPs, "
                     "which the source does not publish (the scenario's heavy-phase demands are assumed)")
    return res
