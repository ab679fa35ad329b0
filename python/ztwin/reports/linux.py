"""Linux guests' own figures, from their APPLDATA records (domain 10).

Three reports in the manner of Performance Toolkit's Linux screens (LXCPU,
LXMEM, LXNETWRK; IBM's FCX numbers for them were not in the sources read, so
the header says ``ZTWIN``). One row per Linux guest whose appldata modules
wrote MRAPLSDT records (``ztwin.monitor.appldata``: the kernel's
``appldata_os``, ``appldata_mem`` and ``appldata_net_sum`` structs).

The kernel's counters are cumulative: a rate is the growth from the guest's
last record at or before the window's start (its first record in the window
when there is none) to its last record in the window, divided by the time
between the two records' timestamps (the kernel's ``timestamp``, TOD). Sizes
(free memory, page cache) are means over the window's records. The records
are read in a pass of their own over the file; from the history database
(``--db``) the reports are empty and say so.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from ztwin.reports.common import new_report
from ztwin.reports.core import Intervals
from ztwin.reports.metrics import user_metrics
from ztwin.reports.model import Report
from ztwin.reports.text import Column, Table

#: Jiffies per second (USER_HZ on s390).
HZ = 100
#: Load averages: fixed point with 11 fraction bits (the kernel's FSHIFT).
FIXED_1 = 2048

LXCPU_KEYS = [
    "userid", "cpus", "user_pct", "nice_pct", "system_pct", "irq_pct", "softirq_pct", "iowait_pct",
    "steal_pct", "idle_pct", "total_pct", "nr_running", "nr_threads", "load_1", "load_5", "load_15", "samples",
]  # fmt: skip
LXMEM_KEYS = [
    "userid", "total_mb", "free_mb", "cached_mb", "buffers_mb", "used_mb", "swap_total_mb", "swap_used_mb",
    "pgpgin_kb_s", "pgpgout_kb_s", "pswpin_s", "pswpout_s", "pgfault_s", "pgmajfault_s", "samples",
]  # fmt: skip
LXVMMEM_KEYS = [
    "userid", "total_mb", "lx_used_mb", "lx_cached_mb", "lx_free_mb", "lx_swap_used_mb", "lx_pswpout_s",
    "lx_pgmajfault_s", "vm_resident_mb", "vm_xstor_mb", "vm_dasd_mb", "vm_page_reads_s", "vm_page_writes_s",
    "held_idle_mb",
]  # fmt: skip
LXNETWRK_KEYS = [
    "userid", "interfaces", "rx_packets_s", "tx_packets_s", "rx_bytes_s", "tx_bytes_s", "rx_errors",
    "tx_errors", "rx_dropped", "tx_dropped", "collisions", "samples",
]  # fmt: skip

_CPU_TICKS = ("user", "nice", "system", "irq", "softirq", "iowait", "steal", "idle")


def _records(iv: Intervals, module: str) -> dict[str, tuple[dict[str, Any] | None, list[dict[str, Any]]]]:
    """Per user ID: its last ``module`` record at or before the window's
    start (or None), and its records in the window, in file order."""
    from ztwin.monitor import DamageWarning, appldata

    out: dict[str, tuple[dict[str, Any] | None, list[dict[str, Any]]]] = {}
    if not iv.intervals or not Path(iv.path).is_file():
        return out
    lo, hi = iv.intervals[0].start_tod, iv.intervals[-1].end_tod
    # The interval pass already warned about damage: this read keeps quiet.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamageWarning)
        recs = appldata(iv.path)
    for r in recs:
        if r["module"] != module or r["name"] != "MRAPLSDT" or r["tod_raw"] > hi:
            continue
        before, inside = out.setdefault(r["userid"], (None, []))
        if r["tod_raw"] <= lo:
            out[r["userid"]] = (r, inside)
        else:
            inside.append(r)
    return {u: v for u, v in out.items() if v[1]}


def _seconds(a: dict[str, Any], b: dict[str, Any]) -> float:
    """Seconds between two records' kernel timestamps (TOD units)."""
    return float(b["fields"]["timestamp"] - a["fields"]["timestamp"]) / 4096e6


def _delta(a: dict[str, Any], b: dict[str, Any], name: str) -> float:
    x, y = a["fields"].get(name), b["fields"].get(name)
    return float(y - x) if isinstance(x, int) and isinstance(y, int) and y >= x else 0.0


def _mean(recs: list[dict[str, Any]], name: str) -> float | None:
    vals = [r["fields"][name] for r in recs if isinstance(r["fields"].get(name), int)]
    return sum(vals) / len(vals) if vals else None


def _pre(iv: Intervals, what: str, rows: list[dict[str, Any]]) -> list[str]:
    pre = [f"Linux {what} from APPLDATA (D10R2 MRAPLSDT, the kernel's appldata structs):"]
    if not Path(iv.path).is_file():
        pre.append("  (read from MONWRITE files only: the history database does not keep these records)")
    elif not rows:
        pre.append("  (no Linux APPLDATA records in the selected period)")
    return pre


def lxcpu(iv: Intervals, **_: Any) -> Report:
    rows = []
    for user, (before, recs) in sorted(_records(iv, "os").items()):
        first = before or recs[0]
        last = recs[-1]
        ticks = dict.fromkeys(_CPU_TICKS, 0.0)
        cpus0 = {c.get("cpu_id", i): c for i, c in enumerate(first.get("cpus", []))}
        for i, c in enumerate(last.get("cpus", [])):
            c0 = cpus0.get(c.get("cpu_id", i), {})
            for k in _CPU_TICKS:
                y, x = c.get(f"per_cpu_{k}"), c0.get(f"per_cpu_{k}")
                if isinstance(y, int) and isinstance(x, int) and y >= x:
                    ticks[k] += y - x
        ncpu = len(last.get("cpus", []))
        secs = _seconds(first, last) if first is not last else 0.0
        whole = secs * HZ * ncpu
        pct = {k: (100.0 * ticks[k] / whole if whole > 0 else None) for k in _CPU_TICKS}
        busy = [pct[k] for k in _CPU_TICKS if k not in ("idle", "steal")]
        f = last["fields"]
        rows.append(
            {
                "userid": user,
                "cpus": ncpu,
                **{f"{k}_pct": pct[k] for k in _CPU_TICKS},
                "total_pct": sum(p for p in busy if p is not None) if whole > 0 else None,
                "nr_running": _mean(recs, "nr_running"),
                "nr_threads": f.get("nr_threads"),
                # The kernel adds FIXED_1/200 for rounding when it fills the record.
                **{
                    f"load_{m}": (f[k] - FIXED_1 // 200) / FIXED_1 if isinstance(f.get(k), int) else None
                    for m, k in (("1", "avenrun_0"), ("5", "avenrun_1"), ("15", "avenrun_2"))
                },
                "samples": len(recs),
            }
        )
    table = Table(
        [
            Column("userid", ["Linux", "Userid"], 8, None, left=True),
            Column("cpus", ["", "CPUs"], 4, 0),
            Column("total_pct", ["Total", "%CPU"], 6, 1),
            Column("user_pct", ["User", "%CPU"], 6, 1),
            Column("nice_pct", ["Nice", "%CPU"], 6, 1),
            Column("system_pct", ["Syst", "%CPU"], 6, 1),
            Column("irq_pct", ["IRQ", "%CPU"], 6, 1),
            Column("softirq_pct", ["SIRQ", "%CPU"], 6, 1),
            Column("iowait_pct", ["IOWt", "%CPU"], 6, 1),
            Column("steal_pct", ["Steal", "%CPU"], 6, 1),
            Column("idle_pct", ["Idle", "%CPU"], 6, 1),
            Column("nr_running", ["Run-", "nable"], 6, 1),
            Column("nr_threads", ["", "Thrds"], 6, 0),
            Column("load_1", ["Load", "1min"], 6, 2),
            Column("load_5", ["Load", "5min"], 6, 2),
            Column("load_15", ["Load", "15min"], 6, 2),
        ],
        [],
    )
    return new_report(
        iv, "LXCPU", "ZTWIN", "Linux CPU Utilization (APPLDATA)", rows=rows, keys=LXCPU_KEYS, table=table,
        pre_lines=_pre(iv, "CPU use (% of each virtual CPU, mean over the guest's CPUs)", rows),
    )  # fmt: skip


def lxmem(iv: Intervals, **_: Any) -> Report:
    rows = []
    for user, (before, recs) in sorted(_records(iv, "mem").items()):
        first = before or recs[0]
        last = recs[-1]
        secs = _seconds(first, last) if first is not last else 0.0

        def rate(name: str, first: dict[str, Any] = first, last: dict[str, Any] = last, secs: float = secs) -> Any:
            return _delta(first, last, name) / secs if secs > 0 else None

        mb = {k: _mean(recs, k) for k in ("totalram", "freeram", "cached", "bufferram", "totalswap", "freeswap")}
        mb = {k: (v / 1024 if v is not None else None) for k, v in mb.items()}
        total, free, cached, buf = mb["totalram"], mb["freeram"], mb["cached"], mb["bufferram"]
        used = None
        if total is not None and free is not None and cached is not None and buf is not None:
            used = total - free - cached - buf
        swap_total, swap_free = mb["totalswap"], mb["freeswap"]
        swap_used = swap_total - swap_free if swap_total is not None and swap_free is not None else None
        rows.append(
            {
                "userid": user,
                "total_mb": total,
                "free_mb": free,
                "cached_mb": cached,
                "buffers_mb": buf,
                "used_mb": used,
                "swap_total_mb": swap_total,
                "swap_used_mb": swap_used,
                "pgpgin_kb_s": rate("pgpgin"),
                "pgpgout_kb_s": rate("pgpgout"),
                "pswpin_s": rate("pswpin"),
                "pswpout_s": rate("pswpout"),
                "pgfault_s": rate("pgfault"),
                "pgmajfault_s": rate("pgmajfault"),
                "samples": len(recs),
            }
        )
    table = Table(
        [
            Column("userid", ["Linux", "Userid"], 8, None, left=True),
            Column("total_mb", ["Total", "MB"], 7, 1),
            Column("used_mb", ["Used", "MB"], 7, 1),
            Column("free_mb", ["Free", "MB"], 7, 1),
            Column("cached_mb", ["Cache", "MB"], 7, 1),
            Column("buffers_mb", ["Buffer", "MB"], 7, 1),
            Column("swap_total_mb", ["Swap", "MB"], 7, 1),
            Column("swap_used_mb", ["SwpUse", "MB"], 7, 1),
            Column("pgpgin_kb_s", ["PgIn", "KB/s"], 7, 1),
            Column("pgpgout_kb_s", ["PgOut", "KB/s"], 7, 1),
            Column("pswpin_s", ["SwpIn", "/s"], 7, 1),
            Column("pswpout_s", ["SwpOut", "/s"], 7, 1),
            Column("pgfault_s", ["Faults", "/s"], 8, 1),
            Column("pgmajfault_s", ["MajFlt", "/s"], 7, 1),
        ],
        [],
    )
    return new_report(
        iv, "LXMEM", "ZTWIN", "Linux Memory Utilization (APPLDATA)", rows=rows, keys=LXMEM_KEYS, table=table,
        pre_lines=_pre(iv, "memory (sizes: means; rates: per second)", rows),
    )  # fmt: skip


def lxnetwrk(iv: Intervals, **_: Any) -> Report:
    rows = []
    for user, (before, recs) in sorted(_records(iv, "net_sum").items()):
        first = before or recs[0]
        last = recs[-1]
        secs = _seconds(first, last) if first is not last else 0.0
        row: dict[str, Any] = {"userid": user, "interfaces": last["fields"].get("nr_interfaces")}
        for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes"):
            row[f"{k}_s"] = _delta(first, last, k) / secs if secs > 0 else None
        for k in ("rx_errors", "tx_errors", "rx_dropped", "tx_dropped", "collisions"):
            row[k] = int(_delta(first, last, k))
        row["samples"] = len(recs)
        rows.append(row)
    table = Table(
        [
            Column("userid", ["Linux", "Userid"], 8, None, left=True),
            Column("interfaces", ["", "Intf"], 4, 0),
            Column("rx_packets_s", ["RxPack", "/s"], 8, 1),
            Column("tx_packets_s", ["TxPack", "/s"], 8, 1),
            Column("rx_bytes_s", ["RxByte", "/s"], 9, 0),
            Column("tx_bytes_s", ["TxByte", "/s"], 9, 0),
            Column("rx_errors", ["Rx", "Errs"], 6, 0),
            Column("tx_errors", ["Tx", "Errs"], 6, 0),
            Column("rx_dropped", ["Rx", "Drop"], 6, 0),
            Column("tx_dropped", ["Tx", "Drop"], 6, 0),
            Column("collisions", ["Coll-", "isns"], 6, 0),
        ],
        [],
    )
    return new_report(
        iv, "LXNETWRK", "ZTWIN", "Linux Network Activity (APPLDATA)", rows=rows, keys=LXNETWRK_KEYS, table=table,
        pre_lines=_pre(iv, "network activity, all interfaces (the twin has no network model: counters 0)", rows),
    )  # fmt: skip


def lxvmmem(iv: Intervals, **_: Any) -> Report:
    """Each Linux guest's memory as Linux sees it (LXMEM's figures) beside
    what z/VM holds for it (UPAGE's, from MRUSEACT): the frames CP keeps
    resident, the pages it has in XSTOR and on DASD, its page reads and
    writes per second. ``held_idle_mb`` is CP's resident storage less what
    Linux uses for its processes and kernel: the frames z/VM holds for
    Linux's free memory and page cache (an oversized guest's)."""
    lx = {r["userid"]: r for r in lxmem(iv).rows}
    rows = []
    for user, m in sorted(lx.items()):
        raw = iv.users.get(user)
        vm = user_metrics(raw) if raw is not None else {}

        def mb(k: str, vm: dict[str, Any] = vm) -> float | None:
            v = vm.get(k)
            return float(v) * 4 / 1024 if isinstance(v, int | float) else None

        res = mb("resident")
        used = m["used_mb"]
        rows.append(
            {
                "userid": user,
                "total_mb": m["total_mb"],
                "lx_used_mb": used,
                "lx_cached_mb": m["cached_mb"],
                "lx_free_mb": m["free_mb"],
                "lx_swap_used_mb": m["swap_used_mb"],
                "lx_pswpout_s": m["pswpout_s"],
                "lx_pgmajfault_s": m["pgmajfault_s"],
                "vm_resident_mb": res,
                "vm_xstor_mb": mb("xstor"),
                "vm_dasd_mb": mb("dasd"),
                "vm_page_reads_s": vm.get("page_reads"),
                "vm_page_writes_s": vm.get("page_writes"),
                "held_idle_mb": max(res - used, 0.0) if res is not None and used is not None else None,
            }
        )
    table = Table(
        [
            Column("userid", ["", "Linux", "Userid"], 8, None, left=True),
            Column("total_mb", ["", "Stor", "MB"], 7, 1),
            Column("lx_used_mb", ["<---", "Used", "MB"], 7, 1),
            Column("lx_cached_mb", ["-----", "Cache", "MB"], 7, 1),
            Column("lx_free_mb", ["Linux", "Free", "MB"], 7, 1),
            Column("lx_swap_used_mb", ["-----", "SwpUse", "MB"], 7, 1),
            Column("lx_pswpout_s", ["-----", "SwpOut", "/s"], 7, 1),
            Column("lx_pgmajfault_s", ["--->", "MajFlt", "/s"], 7, 1),
            Column("vm_resident_mb", ["<---", "Resid", "MB"], 7, 1),
            Column("vm_xstor_mb", ["-----", "XSTOR", "MB"], 7, 1),
            Column("vm_dasd_mb", ["z/VM", "DASD", "MB"], 7, 1),
            Column("vm_page_reads_s", ["-----", "PgRead", "/s"], 7, 1),
            Column("vm_page_writes_s", ["--->", "PgWrit", "/s"], 7, 1),
            Column("held_idle_mb", ["Held", "Idle", "MB"], 7, 1),
        ],
        [],
    )
    pre = _pre(iv, "memory beside z/VM's view of the guest (MRUSEACT)", rows)
    return new_report(
        iv, "LXVMMEM", "ZTWIN", "Linux and z/VM Memory per Guest", rows=rows, keys=LXVMMEM_KEYS, table=table,
        pre_lines=pre,
    )  # fmt: skip
