"""Partition and processor reports: LPARLOG (FCX202), PHYSLOG (FCX302),
PROCLOG (FCX144) and LSHARACT (FCX306).

LPARLOG, PHYSLOG and LSHARACT read only MRSYTCUG and the MRSYTCUP entries
of every partition (PR/SM's
dispatch time LCUCACTM and management time LCUCLPTM per logical processor,
the processor type as text): the data z/VM writes when the HMC lets a
partition see the others'. Without other partitions' data they list the own
partition only. PROCLOG reads z/VM's own processor records (SYTPRP, SYTSYP)
and its own partition's SYTCUP entries.

PHYSLOG's and LSHARACT's per-type capacity: the 5.x/6.x records give the number of physical
processors of all types together (SYTCUG_LCUTPCCT), not per type (MRSYTCUM,
from z/VM 6.3, does); so the per-type rows give engines used, and only the
"Total" row a percentage of the physical processors.
"""

from __future__ import annotations

from typing import Any

from ztwin.reports.common import MEAN, interval_column, new_report
from ztwin.reports.core import CPU_TYPES, Intervals, merged
from ztwin.reports.metrics import cpu_metrics, pct, ratio, zvm_view_of_lcpu
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


def type_of(cfg: Any, pname: str, cpu: int) -> str:
    """A logical CPU's processor type as text (its SYTCUP entry's, else the
    partition's)."""
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
                    "type": type_of(cfg, pname, cpus[0]),
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
            t = type_of(cfg, pname, cpu)
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


# --------------------------------------------------------------------------
# PROCLOG (FCX144): processor activity by time
# --------------------------------------------------------------------------

PROCLOG_KEYS = [
    "interval_end", "cpu", "type", "busy_pct", "cp_pct", "emul_pct", "wait_pct", "sys_pct", "user_pct",
    "spin_pct", "susp_pct", "logld_pct", "ssch_rate", "page_rate", "interval_start", "seconds",
]  # fmt: skip


def _proc_row(end: Any, start: Any, cpu: Any, ty: str, craw: Any, lraw: Any) -> dict[str, Any]:
    m = cpu_metrics(craw)
    susp, logld = zvm_view_of_lcpu(lraw, craw) if lraw is not None else (None, None)
    m.update(interval_end=end, interval_start=start, cpu=cpu, type=ty, susp_pct=susp, logld_pct=logld)
    return {k: m.get(k) for k in PROCLOG_KEYS}


def proclog(iv: Intervals, **_: Any) -> Report:
    """Each of z/VM's processors by interval (the window's ``>>Mean>>`` first),
    a ``Mean`` line over the processors before them: z/VM's busy, CP and
    emulation time, wait and spin (SYTPRP/SYTSYP) and, when the file has the
    own partition's SYTCUP entries, the time PR/SM did not dispatch the
    logical processor although z/VM had work for it (%Susp) and z/VM's busy
    over the time it was dispatched (%LogLd)."""
    cfg = iv.config
    own = cfg.lpar_name
    table = Table(
        [
            interval_column(),
            Column("cpu", ["", "CPU"], 4, None, fmt=lambda v: "" if v is None else str(v)),
            Column("type", ["", "Type"], 4, None),
            Column("busy_pct", ["", "%CPU"], 5, 1),
            Column("cp_pct", ["", "%CP"], 5, 1),
            Column("emul_pct", ["", "%EMU"], 5, 1),
            Column("wait_pct", ["", "%WT"], 5, 1),
            Column("sys_pct", ["", "%SYS"], 5, 1),
            Column("user_pct", ["", "%USR"], 5, 1),
            Column("spin_pct", ["", "%SP"], 5, 1),
            Column("susp_pct", ["", "%Susp"], 5, 1),
            Column("logld_pct", ["", "%LogLd"], 6, 1),
            Column("ssch_rate", ["SSCH", "/s"], 6, 1),
            Column("page_rate", ["Pages", "/s"], 6, 1),
        ]
    )
    periods: list[tuple[Any, Any, dict[int, Any], dict[tuple[str, int], Any]]] = []
    if iv.intervals:
        periods.append((MEAN, None, dict(iv.cpus), dict(iv.lpar)))
    for s in iv.intervals:
        periods.append((s.end, s.start, dict(s.cpus), dict(s.lpar)))
    rows: list[dict[str, Any]] = []
    for end, start, cpus, lp in periods:
        if not cpus:
            continue
        mine = {c: lp[(own, c)] for c in cpus if own is not None and (own, c) in lp}
        all_l = merged(mine.values()) if len(mine) == len(cpus) else None
        rows.append(_proc_row(end, start, "Mean", "", merged(cpus.values()), all_l))
        for c in sorted(cpus):
            t = cfg.cpus.get(c)
            rows.append(_proc_row(end, start, c, CPU_TYPES.get(t, NA) if t is not None else NA, cpus[c], mine.get(c)))
    return new_report(
        iv,
        "PROCLOG",
        "FCX144",
        "Processor Activity, by Time",
        rows=rows,
        keys=PROCLOG_KEYS,
        table=table,
        post_lines=[
            "",
            "%Susp: elapsed time PR/SM did not dispatch the logical processor while z/VM did not wait",
            "(from the own partition's SYTCUP entries); %LogLd: z/VM busy over the time not suspended.",
        ],
    )


# --------------------------------------------------------------------------
# LSHARACT (FCX306): logical partition share
# --------------------------------------------------------------------------

LSHARACT_KEYS = [
    "type", "partition", "number", "logical_cpus", "weight", "weight_share_pct", "entitlement",
    "engines", "busy_pct", "used_share_pct", "excess", "lpu_per_entitled", "pool", "seconds",
]  # fmt: skip


def _dedicated(cfg: Any, pname: str, cpu: int) -> bool:
    """A logical processor with weight 0 is dedicated: the weight of a shared
    one is 1 to 999 (SYTCUP_LCUCWGHT; the flag byte LCUCFLGS is not decoded)."""
    info = cfg.lpars.get(pname, {})
    if info.get("dedicated"):
        return True
    w = info.get("lcpus", {}).get(cpu, {}).get("weight", info.get("weight"))
    return w == 0


def lsharact(iv: Intervals, **_: Any) -> Report:
    """Each partition's share of its processor type over the window: its
    weight's share of the type's shared weights, what that entitles it to
    (engines) when the type's physical pool is known, the engines it used and
    its share of what the type's shared partitions used. The 5.x/6.x records
    give the physical processors of all types together (SYTCUG_LCUTPCCT): the
    pool of a type, and with it the entitlement, is known only when every
    logical processor of the CEC is of one type (pool = physical processors
    minus dedicated ones)."""
    cfg = iv.config
    phys = cfg.physical_cpus
    seconds = iv.total().get("seconds") if iv.intervals else None
    # (type, partition) -> [dispatch s, lpus, dedicated lpus, weight]
    acc: dict[tuple[str, str], list[Any]] = {}
    for (pname, cpu), raw in iv.lpar.items():
        t = type_of(cfg, pname, cpu)
        a = acc.setdefault((t, pname), [0.0, 0, 0, None])
        a[0] += raw.get("dispatch") or 0.0
        a[1] += 1
        if _dedicated(cfg, pname, cpu):
            a[2] += 1
        else:
            w = cfg.lpars.get(pname, {}).get("lcpus", {}).get(cpu, {}).get("weight")
            a[3] = w if w is not None else cfg.lpars.get(pname, {}).get("weight")
    types = sorted({t for t, _ in acc})
    single = len(types) == 1
    rows: list[dict[str, Any]] = []
    for t in types:
        parts = [p for tt, p in acc if tt == t]
        parts = _order(cfg, set(parts))
        shared = [p for p in parts if acc[(t, p)][2] == 0]
        wsum = sum(acc[(t, p)][3] or 0 for p in shared)
        used_shared = sum(acc[(t, p)][0] for p in shared)
        ded = sum(acc[(t, p)][2] for p in parts)
        pool = phys - ded if single and phys is not None else None
        total_used = 0.0
        for p in parts:
            disp, n, nded, w = acc[(t, p)]
            total_used += disp
            is_ded = nded == n
            wshare = None if is_ded or not wsum or w is None else 100.0 * w / wsum
            if is_ded:
                ent: float | None = float(n)
            else:
                ent = pool * wshare / 100.0 if pool is not None and wshare is not None else None
            eng = ratio(disp, seconds)
            rows.append(
                {
                    "type": t,
                    "partition": p,
                    "number": cfg.lpars.get(p, {}).get("number"),
                    "logical_cpus": n,
                    "weight": "DED" if is_ded else w,
                    "weight_share_pct": wshare,
                    "entitlement": ent,
                    "engines": eng,
                    "busy_pct": pct(disp, (seconds or 0) * n) if seconds else None,
                    "used_share_pct": None if is_ded else pct(disp, used_shared),
                    "excess": None if ent is None or eng is None else max(0.0, eng - ent),
                    "lpu_per_entitled": ratio(n, ent) if ent else None,
                    "pool": None,
                    "seconds": seconds,
                }
            )
        rows.append(
            {
                "type": t,
                "partition": "Total",
                "number": None,
                "logical_cpus": sum(acc[(t, p)][1] for p in parts),
                "weight": wsum or None,
                "weight_share_pct": 100.0 if wsum else None,
                "entitlement": None if pool is None else float(pool + ded),
                "engines": ratio(total_used, seconds),
                "busy_pct": None,
                "used_share_pct": 100.0 if used_shared else None,
                "excess": None,
                "lpu_per_entitled": None,
                "pool": pool,
                "seconds": seconds,
            }
        )
    table = Table(
        [
            Column("type", ["", "Type"], 4, None, left=True),
            Column("partition", ["", "Partition"], 9, None, left=True),
            Column("number", ["", "Nr."], 4, 0, fmt=lambda v: "" if v is None else str(v)),
            Column("logical_cpus", ["", "#LPU"], 4, 0),
            Column("weight", ["", "Weight"], 6, 0, fmt=lambda v: "DED" if v == "DED" else ("" if v is None else str(v))),
            Column("weight_share_pct", ["Weight", "%Share"], 6, 1),
            Column("entitlement", ["Entitl", "Engines"], 7, 2),
            Column("engines", ["Used", "Engines"], 7, 2),
            Column("busy_pct", ["LPU", "%Busy"], 5, 1),
            Column("used_share_pct", ["Used", "%Share"], 6, 1),
            Column("excess", ["Excess", "Engines"], 7, 2),
            Column("lpu_per_entitled", ["LPU per", "Entitl"], 7, 2),
        ]
    )
    pool_note = (
        f"Physical processors of the CEC: {phys if phys is not None else NA} (all types together); "
        + ("one processor type: entitlements computed" if single else "several types: per-type pools not in the records")
    )
    return new_report(
        iv,
        "LSHARACT",
        "FCX306",
        "Logical Partition Share",
        rows=rows,
        keys=LSHARACT_KEYS,
        table=table,
        pre_lines=[pool_note, ""],
        post_lines=[
            "",
            "Weight %Share: the partition's weight over the weights of the type's shared partitions.",
            "Used %Share: its dispatch time over the type's shared partitions' dispatch time; above its",
            "weight share it runs on capacity other partitions left unused. Excess: engines used above the",
            "entitlement. LPU per Entitl: logical processors per entitled engine (above 1: LPUs that can",
            "only run on capacity others do not use).",
        ],
        extra={"summary": {"physical_cpus": phys, "types": types, "entitlement_known": single and phys is not None}},
    )
