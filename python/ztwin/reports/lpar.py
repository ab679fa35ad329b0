"""Partition reports by time: LPARLOG (FCX202) and PHYSLOG (FCX302).

Both read only MRSYTCUG and the MRSYTCUP entries of every partition (PR/SM's
dispatch time LCUCACTM and management time LCUCLPTM per logical processor,
the processor type as text): the data z/VM writes when the HMC lets a
partition see the others'. Without other partitions' data they list the own
partition only.

PHYSLOG's per-type capacity: the 5.x/6.x records give the number of physical
processors of all types together (SYTCUG_LCUTPCCT), not per type (MRSYTCUM,
from z/VM 6.3, does); so the per-type rows give engines used, and only the
"Total" row a percentage of the physical processors.
"""

from __future__ import annotations

from typing import Any

from ztwin.reports.common import MEAN, interval_column, new_report
from ztwin.reports.core import CPU_TYPES, Intervals
from ztwin.reports.metrics import pct, ratio
from ztwin.reports.model import Report
from ztwin.reports.text import NA, Column, Table

LPARLOG_KEYS = [
    "interval_end", "partition", "number", "logical_cpus", "weight", "load_pct", "busy_pct",
    "ovhd_pct", "engines", "type", "interval_start", "seconds",
]  # fmt: skip

PHYSLOG_KEYS = [
    "interval_end", "type", "logical_cpus", "partitions", "engines", "mgmt_engines", "total_engines",
    "physical_cpus", "total_pct", "interval_start", "seconds",
]  # fmt: skip


def _type_of(cfg: Any, pname: str, cpu: int) -> str:
    info = cfg.lpars.get(pname, {})
    t = info.get("lcpus", {}).get(cpu, {}).get("cpu_type", info.get("cpu_type"))
    if isinstance(t, int):
        return str(CPU_TYPES.get(t, NA))
    return str(t) if t else NA


def _order(cfg: Any, names: set[str]) -> list[str]:
    return sorted(names, key=lambda p: (cfg.lpars.get(p, {}).get("number") or 0, p))


def _periods(iv: Intervals) -> list[tuple[Any, Any, float | None, dict[tuple[str, int], Any]]]:
    """(end, start, seconds, per-(partition, cpu) raw): the whole window
    first (``>>Mean>>``), then each interval."""
    out: list[tuple[Any, Any, float | None, dict[tuple[str, int], Any]]] = []
    if iv.intervals:
        out.append((MEAN, None, iv.total().get("seconds"), dict(iv.lpar)))
    for s in iv.intervals:
        out.append((s.end, s.start, s.seconds, dict(s.lpar)))
    return out


def lparlog(iv: Intervals, **_: Any) -> Report:
    cfg = iv.config
    phys = cfg.physical_cpus
    table = Table(
        [
            interval_column(),
            Column("partition", ["", "Partition"], 9, None, left=True),
            Column("number", ["", "Nr."], 4, 0),
            Column("logical_cpus", ["", "#Proc"], 5, 0),
            Column("weight", ["", "Weight"], 6, 0, fmt=lambda v: "DED" if v == "DED" else ("" if v is None else str(v))),
            Column("load_pct", ["", "%Load"], 6, 1),
            Column("busy_pct", ["", "%Busy"], 6, 1),
            Column("ovhd_pct", ["", "%Ovhd"], 6, 1),
            Column("engines", ["", "Engines"], 7, 2),
            Column("type", ["", "Type"], 4, None),
        ]
    )
    rows: list[dict[str, Any]] = []
    for end, start, seconds, lp in _periods(iv):
        parts: dict[str, list[int]] = {}
        for pname, cpu in lp:
            parts.setdefault(pname, []).append(cpu)
        for pname in _order(cfg, set(parts)):
            cpus = sorted(parts[pname])
            info = cfg.lpars.get(pname, {})
            disp = sum(lp[(pname, c)].get("dispatch") or 0.0 for c in cpus)
            ovhd = sum(lp[(pname, c)].get("overhead") or 0.0 for c in cpus)
            n = len(cpus)
            w = info.get("lcpus", {}).get(cpus[0], {}).get("weight") or info.get("weight")
            rows.append(
                {
                    "interval_end": end,
                    "partition": pname,
                    "number": info.get("number"),
                    "logical_cpus": info.get("logical_cpus", n),
                    "weight": "DED" if info.get("dedicated") else w,
                    "load_pct": pct(disp, (seconds or 0) * phys) if phys and seconds else None,
                    "busy_pct": pct(disp, (seconds or 0) * n) if seconds else None,
                    "ovhd_pct": pct(ovhd, (seconds or 0) * n) if seconds else None,
                    "engines": ratio(disp, seconds),
                    "type": _type_of(cfg, pname, cpus[0]),
                    "interval_start": start,
                    "seconds": seconds,
                }
            )
    return new_report(
        iv,
        "LPARLOG",
        "FCX202",
        "Logical Partition Activity Log",
        rows=rows,
        keys=LPARLOG_KEYS,
        table=table,
        pre_lines=[
            f"Partitions of the CEC, by interval (z/VM's own: {cfg.lpar_name or NA}); "
            f"{phys if phys is not None else NA} physical processors",
            "",
        ],
    )


def physlog(iv: Intervals, **_: Any) -> Report:
    cfg = iv.config
    phys = cfg.physical_cpus
    table = Table(
        [
            interval_column(),
            Column("type", ["", "Type"], 5, None, left=True),
            Column("partitions", ["", "Parts"], 5, 0),
            Column("logical_cpus", ["Logical", "Procs"], 7, 0),
            Column("engines", ["Dispatch", "Engines"], 8, 2),
            Column("mgmt_engines", ["LPAR Mgmt", "Engines"], 9, 2),
            Column("total_engines", ["Total", "Engines"], 8, 2),
            Column("physical_cpus", ["Phys", "Procs"], 5, 0),
            Column("total_pct", ["Total", "%Phys"], 6, 1),
        ]
    )
    rows: list[dict[str, Any]] = []
    for end, start, seconds, lp in _periods(iv):
        by_type: dict[str, dict[str, Any]] = {}
        for (pname, cpu), raw in lp.items():
            t = _type_of(cfg, pname, cpu)
            acc = by_type.setdefault(t, {"d": 0.0, "m": 0.0, "n": 0, "p": set()})
            acc["d"] += raw.get("dispatch") or 0.0
            acc["m"] += raw.get("overhead") or 0.0
            acc["n"] += 1
            acc["p"].add(pname)
        total = {"d": 0.0, "m": 0.0, "n": 0, "p": set()}
        for t in sorted(by_type):
            a = by_type[t]
            total["d"] += a["d"]
            total["m"] += a["m"]
            total["n"] += a["n"]
            total["p"] |= a["p"]
            rows.append(_phys_row(end, start, seconds, t, a, None))
        if by_type:
            rows.append(_phys_row(end, start, seconds, "Total", total, phys))
    return new_report(
        iv,
        "PHYSLOG",
        "FCX302",
        "Real CPU Utilization Log",
        rows=rows,
        keys=PHYSLOG_KEYS,
        table=table,
        post_lines=[
            "",
            "Engines: processor time per second of elapsed time (1.00 = one physical processor kept busy).",
            "The records before z/VM 6.3 give the physical processors of all types together: %Phys only",
            "for the total.",
        ],
    )


def _phys_row(end: Any, start: Any, seconds: float | None, t: str, a: dict[str, Any], phys: int | None) -> dict[str, Any]:
    d, m = ratio(a["d"], seconds), ratio(a["m"], seconds)
    tot = None if d is None or m is None else d + m
    return {
        "interval_end": end,
        "type": t,
        "logical_cpus": a["n"],
        "partitions": len(a["p"]),
        "engines": d,
        "mgmt_engines": m,
        "total_engines": tot,
        "physical_cpus": phys,
        "total_pct": pct(tot, phys) if phys and tot is not None else None,
        "interval_start": start,
        "seconds": seconds,
    }
