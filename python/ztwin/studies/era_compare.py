"""era-compare: one overcommitted Linux workload under z/VM 5.4 and 7.3.

Source: IBM's published gains for z/VM 6.3 storage management and 6.4
paging (``shared/spec/zvm-model.md`` Appendix A, topics 1.4 and 4.4: IBM
performance reports 630mem/630imp and 640hpp). The scenario
``studies/era-compare.toml`` (eight 1 GB Linux guests on 3 GB, CP pages) is
run three times:

* ``5.4``: as written: Era A (three-pass demand scan, 512 MB of XSTOR);
* ``7.3``: Era C (global aging list, early writes, no XSTOR: the 512 MB
  configured as central storage, IBM's advice from 6.3 on), CP paging with
  the LCU's HyperPAV aliases (``[io] paging_aliases``, 6.4+), 6.4's larger
  paging blocks (the 7.3 default of ``[srm] block_max``);
* ``7.3-noalias``: the same without the aliases (the 6.4 report's "before").

Every figure comes from the decoded records: throughput is Linux's user CPU
(APPLDATA_OS, LXCPU) over one transaction's CPU (an input:
``burst_touches`` x ``cpu_per_touch_us``), paging from MRSTOASP and
MRIODDEV, XSTOR from MRSYTXSG/MRSYTXSP. The published gains come from
workloads this scenario is not (the 6.3 gains from workloads hurt by reorder
and serial list searches on large memory): their direction is checked
exactly, their size is printed next to the model's and checked only where
the mechanism is modelled.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ztwin.reports import build
from ztwin.studies import STUDIES
from ztwin.studies.base import StudyResult, _r, studies_dir
from ztwin.studies.measures import Data, Run, paging_queue, paging_response_ms, paging_ssch_rate
from ztwin.twin import Scenario

NAME = "era-compare"
TITLE = STUDIES[NAME].title
SCENARIO = "era-compare.toml"
#: Least share of predicted figures within tolerance (full run, --quick).
FLOOR = {"full": 0.0, "quick": 0.0}
END, QUICK_END = 600.0, 360.0
#: Measurement window starts after the guests have filled storage.
WARM, QUICK_WARM = 120.0, 120.0
SRC63 = "zvm-model.md Appendix A, 'z/VM 6.3 storage management' (IBM 630mem/630imp)"
SRC64 = "zvm-model.md Appendix A, 'z/VM 6.4 paging improvements' (IBM 640hpp)"
SRC14 = "zvm-model.md topic 1.4 (Era B/C) and the era table"
VARIANTS = ("5.4", "7.3", "7.3-noalias")
#: The full form also runs 6.4's transport mode (zHPF) without and with the aliases.
ZHPF_VARIANTS = ("7.3-zhpf", "7.3-both")


def scenario_text(variant: str) -> str:
    """The study's scenario for one variant (5.4 as written)."""
    text = (studies_dir() / SCENARIO).read_text()
    if variant == "5.4":
        return text
    central = _mb(text, "central_storage") + _mb(text, "xstor")
    text = text.replace('cp_level = "5.4"', 'cp_level = "7.3"', 1)
    text = re.sub(r'central_storage = "\d+M"', f'central_storage = "{central}M"', text, count=1)
    text = re.sub(r'xstor = "\d+M"\n', "", text, count=1)
    io = {
        "7.3": "paging_aliases = true\n",
        "7.3-zhpf": "transport_mode = true\n",
        "7.3-both": "paging_aliases = true\ntransport_mode = true\n",
    }.get(variant)
    if io:
        text = text.replace("[monitor]", f"[io]\n{io}\n[monitor]", 1)
    return text


def _mb(text: str, key: str) -> int:
    m = re.search(rf'{key} = "(\d+)M"', text)
    return int(m.group(1)) if m else 0


def tx_cpu_s(text: str) -> float:
    """User CPU of one transaction (input): burst_touches x cpu_per_touch_us."""
    n = float(re.search(r"burst_touches = (\d+)", text).group(1))  # type: ignore[union-attr]
    us = float(re.search(r"cpu_per_touch_us = ([0-9.]+)", text).group(1))  # type: ignore[union-attr]
    return n * us / 1e6


def run_variant(variant: str, end: float, warm: float, workdir: Path) -> dict[str, Any]:
    text = scenario_text(variant)
    scen = workdir / f"era-{variant}.toml"
    scen.write_text(text)
    out = workdir / f"era-{variant}.monwrite"
    Scenario.load(scen).run(out, duration=end)
    # Linux's CPU over the measurement window (after the guests filled storage).
    run = Run(out)
    fmt = "%Y-%m-%d %H:%M:%S"
    cpu = build(out, ["LXCPU"], run.time(warm).strftime(fmt), run.time(end).strftime(fmt))["LXCPU"].rows
    tps = sum((r["user_pct"] or 0.0) / 100 * r["cpus"] for r in cpu) / tx_cpu_s(text)
    data = Data.load(out)
    xsg = data.frames.get("MRSYTXSP")
    xs_out = float(xsg["SYTXSP_PLSPGOUT"].max()) if xsg is not None and len(xsg) else 0.0
    return {
        "tps": tps,
        "paging_ssch_s": paging_ssch_rate(data, warm, end),
        "paging_resp_ms": paging_response_ms(data, warm, end),
        "paging_queue": paging_queue(data, warm, end),
        "xstor_pages_out": xs_out,
    }


def run(quick: bool, workdir: Path) -> StudyResult:
    res = StudyResult(NAME, TITLE, floor=FLOOR["quick" if quick else "full"], quick=quick)
    end, warm = (QUICK_END, QUICK_WARM) if quick else (END, WARM)
    m = {v: run_variant(v, end, warm, workdir) for v in VARIANTS}
    res.info["variants"] = {v: {k: _r(x) for k, x in d.items()} for v, d in m.items()}
    a, c, n = m["5.4"], m["7.3"], m["7.3-noalias"]

    # Inputs: the same storage, all of it central at 7.3.
    t54, t73 = scenario_text("5.4"), scenario_text("7.3")
    res.equal("E-I1", "storage, MB: 5.4 central + XSTOR = 7.3 central", "input",
              f"{SRC14}: IBM recommends all memory as central storage from 6.3",
              _mb(t73, "central_storage"), _mb(t54, "central_storage") + _mb(t54, "xstor"))

    # Structural: XSTOR exists only in Era A; the 7.3 records carry none.
    res.holds("E-S1", "the 7.3 runs move no page to XSTOR (their records carry no XSTOR data), the 5.4 run does",
              c["xstor_pages_out"] == 0 and n["xstor_pages_out"] == 0 and a["xstor_pages_out"] > 0,
              "6.4 and later: XSTOR no longer usable", SRC14,
              model={v: m[v]["xstor_pages_out"] for v in VARIANTS})

    # The 6.3 storage management gain: direction exact, size not modelled.
    g63 = c["tps"] / a["tps"] - 1 if a["tps"] else None
    res.holds("E-S2", "throughput at 7.3 >= throughput at 5.4 (same workload, same storage)",
              g63 is not None and g63 >= 0, "6.3 storage management: ETR gains (up to +1465%)", SRC63,
              model=_r(100 * g63) if g63 is not None else None)
    res.info["note"] = (
        "7.3 without aliases vs 5.4: "
        + (f"{100 * (n['tps'] / a['tps'] - 1):+.0f}%" if a["tps"] else "n/a")
        + " (the 5.4 run's XSTOR absorbs part of its paging; at 7.3 the aging list, the larger blocks and "
        "the HyperPAV aliases together give E-S2's gain)"
    )
    res.not_modelled("E-N1", "size of the 6.3 storage-management gain (model's gain printed in E-S2)", SRC63,
                     "up to +1465% ETR",
                     "IBM's gains are from workloads hurt by Era A's reorder (user stopped ~1 s per 8 GB resident) "
                     "and serial list searches on large memory; the Era A model charges neither (no reorder, a "
                     "scan cost per frame examined only), so the twin cannot produce that gain and its size says "
                     "nothing about this scenario")
    res.not_modelled("E-N2", "supported sizes: 1 TB real + 128 GB XSTOR at 6.3", SRC63, "1 TB + 128 GB",
                     "the twin accepts central storage up to 2 TB at every level, but models 6.3 without XSTOR "
                     "(6.3 still accepted it; the model refuses XSTOR from 6.3, naming system.xstor)")

    # The 6.4 paging gain from HyperPAV aliases: direction exact, size predicted.
    g64 = c["tps"] / n["tps"] - 1 if n["tps"] else None
    res.holds("E-S3", "with paging queueing on its volumes (7.3 without aliases), HyperPAV aliases raise throughput",
              g64 is not None and g64 > 0 and n["paging_queue"] > c["paging_queue"],
              "+42% transaction rate from HyperPAV aliases where paging I/O was queueing", SRC64,
              model={"gain_pct": _r(100 * g64) if g64 is not None else None,
                     "queue_noalias": _r(n["paging_queue"]), "queue_alias": _r(c["paging_queue"])})
    res.in_range("E-P1", "throughput gain from HyperPAV paging aliases, %", "predicted", SRC64,
                 100 * g64 if g64 is not None else None, 21.0, 63.0, published=42.0,
                 note="tolerance 0.5x to 1.5x of IBM's +42%: IBM's workload and volume counts are not this "
                 "scenario's; the gain depends on how deep the paging queue was without aliases")
    res.not_modelled("E-N3", "6.4 gain from the improved command-mode driver", SRC64, "+42%",
                     "the driver's improvement (how CP builds and queues its paging channel programs) is not "
                     "modelled: a paging I/O costs the same CP time and channel overhead at 6.3 and 6.4")
    if quick:
        res.not_modelled("E-N4", "6.4 gains from zHPF (+98%) and aliases plus zHPF (+234%)", SRC64,
                         "see the full run", "the short form leaves out the transport-mode runs "
                         "(ztwin study run era-compare)")
        return res
    z = {v: run_variant(v, end, warm, workdir) for v in ZHPF_VARIANTS}
    res.info["variants"].update({v: {k: _r(x) for k, x in d.items()} for v, d in z.items()})
    why = ("the model's transport mode halves the command overhead of a paging I/O's connect time "
           "([io] transport_factor, spec topic 8), a small part of an I/O whose time here is mostly pending "
           "and back-end: IBM's gain on its amenable workload is not reproduced")
    gz = z["7.3-zhpf"]["tps"] / n["tps"] - 1 if n["tps"] else None
    res.in_range("E-P2", "throughput gain from zHPF transport mode (no aliases), %", "predicted", SRC64,
                 100 * gz if gz is not None else None, 49.0, 147.0, published=98.0,
                 note="tolerance 0.5x to 1.5x of IBM's +98%; " + why)
    gb = z["7.3-both"]["tps"] / n["tps"] - 1 if n["tps"] else None
    res.in_range("E-P3", "throughput gain from aliases plus zHPF, %", "predicted", SRC64,
                 100 * gb if gb is not None else None, 117.0, 351.0, published=234.0,
                 note="tolerance 0.5x to 1.5x of IBM's +234%; the aliases carry nearly all of the model's gain")
    return res
