"""System reports: SYSSUMLG (FCX225), CPU (FCX100), LPAR (FCX126)."""

from __future__ import annotations

from typing import Any

from ztwin.reports.common import MEAN, by_time_rows, interval_column, new_report
from ztwin.reports.core import CPU_TYPES, Intervals, merged
from ztwin.reports.metrics import cpu_metrics, lpar_metrics, pct, zvm_view_of_lcpu
from ztwin.reports.model import Chart, Report
from ztwin.reports.text import NA, Column, Group, Table, fmt_num, kv_lines

SYSSUMLG_KEYS = [
    "interval_end", "cpu_busy_pct", "tv_ratio", "capture_ratio", "cpus_online",
    "users_logged", "users_active", "ssch_rate", "dasd_resp_ms", "users_in_elist",
    "page_rate", "read_write_rate", "xstor_rate", "spool_rate", "pgin_rate", "pgout_rate",
    "migrate_rate", "dasd_io_rate", "cpu_busy_total_pct", "user_tv_ratio", "interval_start", "seconds",
]  # fmt: skip


def syssumlg(iv: Intervals, **_: Any) -> Report:
    table = Table(
        [
            interval_column(),
            Column("cpu_busy_pct", ["Pct", "Busy"], 5, 1),
            Column("tv_ratio", ["", "T/V"], 5, 2),
            Column("capture_ratio", ["Cap-", "ture"], 5, 4),
            Column("cpus_online", ["On-", "line"], 5, 1),
            Column("users_logged", ["Log-", "ged"], 5, 0),
            Column("users_active", ["", "Activ"], 5, 0),
            Column("ssch_rate", ["SSCH", "+RSCH", "/s"], 6, 1),
            Column("dasd_resp_ms", ["DASD", "Resp", "msec"], 5, 1),
            Column("users_in_elist", ["Users", "in", "Elist"], 5, 1),
            Column("page_rate", ["PGIN+", "PGOUT", "/s"], 6, 1),
            Column("read_write_rate", ["Read+", "Write", "/s"], 6, 1),
            Column("spool_rate", ["Spool", "Pages", "/s"], 5, 1),
        ],
        [
            Group("CPU", "cpu_busy_pct", "cpus_online"),
            Group("Users", "users_logged", "users_active"),
            Group("I/O", "ssch_rate", "dasd_resp_ms"),
            Group("Stg", "users_in_elist", "users_in_elist"),
            Group("Paging", "page_rate", "read_write_rate"),
            Group("Spl", "spool_rate", "spool_rate"),
        ],
    )
    rows = by_time_rows(iv, SYSSUMLG_KEYS)
    return new_report(
        iv,
        "SYSSUMLG",
        "FCX225",
        "System Performance Summary by Time",
        rows=rows,
        keys=SYSSUMLG_KEYS,
        table=table,
        time_key="interval_end",
        charts=[
            Chart("CPU busy (% per processor)", ["cpu_busy_pct"], "%"),
            Chart("T/V and capture ratio", ["tv_ratio", "capture_ratio"]),
            Chart("I/O: SSCH+RSCH per second", ["ssch_rate"], "/s"),
            Chart("DASD response time", ["dasd_resp_ms"], "ms"),
            Chart("Users", ["users_logged", "users_active", "users_in_elist"]),
            Chart("Paging per second", ["page_rate", "read_write_rate"], "/s"),
        ],
    )


CPU_KEYS = [
    "cpu", "type", "busy_pct", "cp_pct", "emul_pct", "wait_pct", "sys_pct", "user_pct",
    "spin_pct", "ssch_rate", "page_rate", "steal_rate", "seconds",
]  # fmt: skip


def cpu(iv: Intervals, **_: Any) -> Report:
    table = Table(
        [
            Column("cpu", ["", "CPU"], 8, None, fmt=lambda v: str(v), left=True),
            Column("type", ["", "Type"], 5, None),
            Column("busy_pct", ["", "%CPU"], 5, 1),
            Column("cp_pct", ["", "%CP"], 5, 1),
            Column("emul_pct", ["", "%EMU"], 5, 1),
            Column("wait_pct", ["", "%WT"], 5, 1),
            Column("sys_pct", ["", "%SYS"], 5, 1),
            Column("user_pct", ["", "%USR"], 5, 1),
            Column("spin_pct", ["", "%SP"], 5, 1),
            Column("ssch_rate", ["SSCH", "/s"], 6, 1),
            Column("page_rate", ["Pages", "/s"], 6, 1),
            Column("steal_rate", ["Steals", "/s"], 6, 1),
        ],
        [Group("Load", "busy_pct", "spin_pct"), Group("Rates", "ssch_rate", "steal_rate")],
    )
    rows: list[dict[str, Any]] = []
    types = iv.config.cpus
    if iv.cpus:
        m = cpu_metrics(merged(iv.cpus.values()))
        m.update(cpu=MEAN, type="")
        rows.append(m)
    for addr in sorted(iv.cpus):
        m = cpu_metrics(iv.cpus[addr])
        t = types.get(addr)
        m.update(cpu=addr, type=CPU_TYPES.get(t, NA) if t is not None else NA)
        rows.append(m)
    rows = [{k: r.get(k) for k in CPU_KEYS} for r in rows]
    sysm = iv.total_metrics()
    summary = {
        k: sysm.get(k)
        for k in (
            "cpus_online", "cpu_busy_pct", "cpu_busy_total_pct", "tv_ratio", "capture_ratio",
            "users_logged", "users_active", "users_in_elist", "ssch_rate", "page_rate", "read_write_rate",
        )
    }  # fmt: skip
    post = kv_lines(
        [
            ("Processors on-line", fmt_num(summary["cpus_online"], 1, 8)),
            ("Total CPU busy (% of one CPU)", fmt_num(summary["cpu_busy_total_pct"], 1, 8)),
            ("T/V ratio", fmt_num(summary["tv_ratio"], 2, 8)),
            ("Capture ratio", fmt_num(summary["capture_ratio"], 4, 8)),
            ("Users logged on", fmt_num(summary["users_logged"], 0, 8)),
            ("Users active", fmt_num(summary["users_active"], 0, 8)),
            ("Users in eligible list", fmt_num(summary["users_in_elist"], 1, 8)),
            ("SSCH+RSCH per second", fmt_num(summary["ssch_rate"], 1, 8)),
            ("PGIN+PGOUT per second", fmt_num(summary["page_rate"], 1, 8)),
            ("Paging Read+Write per second", fmt_num(summary["read_write_rate"], 1, 8)),
        ]
    )
    return new_report(
        iv,
        "CPU",
        "FCX100",
        "CPU Load and Transactions",
        rows=rows,
        keys=CPU_KEYS,
        table=table,
        post_lines=post,
        extra={"summary": summary},
    )


LPAR_KEYS = [
    "partition", "number", "logical_cpus", "weight", "dedicated", "load_pct", "cpu", "busy_pct",
    "ovhd_pct", "susp_pct", "vmld_pct", "logld_pct", "type", "seconds",
]  # fmt: skip


def lpar(iv: Intervals, **_: Any) -> Report:
    cfg = iv.config
    table = Table(
        [
            Column("_partition", ["", "Partition"], 9, None),
            Column("_number", ["", "Nr."], 4, 0, fmt=_blank_none),
            Column("_upid", ["", "Upid"], 4, None),
            Column("_nproc", ["", "#Proc"], 5, 0, fmt=_blank_none),
            Column("_weight", ["", "Weight"], 6, 0, fmt=_blank_none),
            Column("_waitc", ["", "Wait-C"], 6, None),
            Column("_cap", ["", "Cap"], 3, None),
            Column("_load", ["", "%Load"], 5, 1, fmt=lambda v: "" if v is None else fmt_num(v, 1, 5)),
            Column("cpu", ["", "CPU"], 3, 0),
            Column("busy_pct", ["", "%Busy"], 5, 1),
            Column("ovhd_pct", ["", "%Ovhd"], 5, 1),
            Column("susp_pct", ["", "%Susp"], 5, 1),
            Column("vmld_pct", ["", "%VMLd"], 5, 1),
            Column("logld_pct", ["", "%LogLd"], 6, 1),
            Column("type", ["", "Type"], 4, None),
        ]
    )
    rows: list[dict[str, Any]] = []
    total_dispatch = 0.0
    seconds = iv.total().get("seconds") if iv.intervals else None
    by_part: dict[str, list[int]] = {}
    for pname, cpu_ in sorted(iv.lpar, key=lambda k: (cfg.lpars.get(k[0], {}).get("number") or 0, k[0], k[1])):
        by_part.setdefault(pname, []).append(cpu_)
    phys = cfg.physical_cpus
    for pname, cpus in by_part.items():
        info = cfg.lpars.get(pname, {})
        own = pname == cfg.lpar_name
        part_raw = merged(iv.lpar[(pname, c)] for c in cpus)
        disp = part_raw.get("dispatch", 0.0)
        total_dispatch += disp
        load = pct(disp, (seconds or 0) * phys) if phys and seconds else None
        for i, c in enumerate(cpus):
            raw = iv.lpar[(pname, c)]
            m = lpar_metrics(raw)
            lc = info.get("lcpus", {}).get(c, {})
            t = lc.get("cpu_type", info.get("cpu_type"))
            row: dict[str, Any] = {
                "partition": pname,
                "number": info.get("number"),
                "logical_cpus": info.get("logical_cpus"),
                "weight": None if info.get("dedicated") else (lc.get("weight") or info.get("weight")),
                "dedicated": info.get("dedicated"),
                "load_pct": load,
                "cpu": c,
                "busy_pct": m["busy_pct"],
                "ovhd_pct": m["ovhd_pct"],
                "susp_pct": None,
                "vmld_pct": None,
                "logld_pct": None,
                # SYTCUP gives the processor type as text (LCXCPTYP, LCPTYPE).
                "type": CPU_TYPES.get(t, NA) if isinstance(t, int) else (t or NA),
                "seconds": m["seconds"],
            }
            if own and c in iv.cpus:
                # z/VM's own view of this logical CPU: busy = T - wait. Time neither
                # dispatched by PR/SM nor waiting voluntarily was suspended.
                craw = iv.cpus[c]
                vm = cpu_metrics(craw)
                row["vmld_pct"] = vm["busy_pct"]
                row["susp_pct"], row["logld_pct"] = zvm_view_of_lcpu(raw, craw)
            first = i == 0
            row.update(
                _partition=pname if first else "",
                _number=info.get("number") if first else None,
                _upid=NA if first else "",
                _nproc=info.get("logical_cpus", len(cpus)) if first else None,
                _weight="DED" if info.get("dedicated") else row["weight"],
                _waitc=NA if first else "",
                _cap=NA,
                _load=load if first else None,
            )
            rows.append(row)
    pre = [f"LPAR Data, Collected in Partition {cfg.lpar_name or NA}", ""]
    model = "-".join(x for x in (cfg.machine_type, cfg.machine_model) if x) or NA
    pre += [
        f"Processor type and model    : {model}",
        f"Nr. of configured partitions: {cfg.partitions if cfg.partitions is not None else NA}",
        f"Nr. of physical processors  : {phys if phys is not None else NA}",
        "Dispatch interval (msec)    : "
        + ("dynamic" if not cfg.time_slice_ms else str(cfg.time_slice_ms)),
    ]
    overall = pct(total_dispatch, (seconds or 0) * phys) if phys and seconds else None
    post = [
        f"General LPAR mgmt overhead  {NA}",
        f"Overall physical load       {fmt_num(overall, 1, 6)}",
    ]
    return new_report(
        iv,
        "LPAR",
        "FCX126",
        "Logical Partition Activity",
        rows=rows,
        keys=LPAR_KEYS,
        table=table,
        pre_lines=pre,
        post_lines=post,
        extra={"summary": {"overall_physical_load_pct": overall, "physical_cpus": phys, "partitions": cfg.partitions}},
    )


def _blank_none(v: Any) -> str:
    return "" if v is None else str(v)
