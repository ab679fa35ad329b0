"""I/O reports: DEVICE (FCX108) and DEVICE CPOWNED (FCX109)."""

from __future__ import annotations

from typing import Any

from ztwin.reports.common import hexaddr, new_report
from ztwin.reports.core import AREA_TYPES, DASD_CLASS, Intervals, merged
from ztwin.reports.metrics import device_metrics, exposure_metrics, pct, ratio
from ztwin.reports.model import Report
from ztwin.reports.text import NA, Column, Group, Table, fmt_num

ALL_DASD = ">>All DASD<<"

DEVICE_KEYS = [
    "addr", "type", "volser", "cp_owned", "io_rate", "avoid_rate", "pend_ms", "disc_ms",
    "conn_ms", "serv_ms", "resp_ms", "cuwt_ms", "queued", "busy_pct", "ios", "seconds",
    "pav", "aliases", "alias_io_rate", "alias_pct", "base_only_rate", "hpav_pool", "hpav_share_pct", "paths",
]  # fmt: skip

# MTRDEV_RDEVPVFG as the twin writes it (the bits are ztwin's reading):
# X'80' a base with static aliases, X'40' a static alias, X'20' a HyperPAV
# base, X'10' a HyperPAV alias.
PAV_KINDS = ((0x80, "BASE"), (0x40, "ALIAS"), (0x20, "HPBASE"), (0x10, "HPALIAS"))


def pav_kind(flags: int) -> str | None:
    return next((name for bit, name in PAV_KINDS if flags & bit), None)


def pav_figures(iv: Intervals) -> dict[int, dict[str, Any]]:
    """Per device with PAV (MTRDEV_RDEVPVFG): its kind, the aliases it can use
    (its static aliases, or its HyperPAV pool's), the I/Os of its volume
    started on an alias (ΔIODDEV_PAVUSES) per second and as a share of the
    volume's I/Os (base SSCHs + alias starts), the I/Os that ran on the base
    although it had aliases (ΔIODDEV_PAVINELG: I/O CP does not give to an
    alias, as S5's minidisk-cache reads), and a HyperPAV base's share of its
    pool's alias starts. Empty when no device has PAV."""
    conf = iv.config.devices
    kinds = {d: (k, c) for d, c in conf.items() if (k := pav_kind(c.pav_flags)) is not None}
    if not kinds:
        return {}
    static: dict[int, int] = {}
    pool_aliases: dict[int, int] = {}
    pool_uses: dict[int, float] = {}
    for devno, (kind, c) in kinds.items():
        if kind == "ALIAS" and c.base is not None:
            static[c.base] = static.get(c.base, 0) + 1
        elif kind == "HPALIAS" and c.hpp_pool:
            pool_aliases[c.hpp_pool] = pool_aliases.get(c.hpp_pool, 0) + 1
        elif kind == "HPBASE" and c.hpp_pool and (raw := iv.devices.get(devno)) is not None:
            pool_uses[c.hpp_pool] = pool_uses.get(c.hpp_pool, 0.0) + float(raw.get("pav_uses") or 0)
    out: dict[int, dict[str, Any]] = {}
    for devno, (kind, c) in kinds.items():
        pool = c.hpp_pool
        f: dict[str, Any] = {"pav": kind, "aliases": None, "alias_io_rate": None, "alias_pct": None,
                             "base_only_rate": None, "hpav_pool": pool or None, "hpav_share_pct": None}
        if kind in ("BASE", "HPBASE"):
            f["aliases"] = static.get(devno, 0) if kind == "BASE" else pool_aliases.get(pool, 0)
            raw = iv.devices.get(devno)
            if raw is not None:
                secs, uses, ssch = raw.get("seconds"), raw.get("pav_uses"), raw.get("ssch")
                f["alias_io_rate"] = ratio(uses, secs)
                f["base_only_rate"] = ratio(raw.get("pav_inelig"), secs)
                if uses is not None and ssch is not None:
                    f["alias_pct"] = pct(uses, uses + ssch)
                if kind == "HPBASE" and uses is not None:
                    f["hpav_share_pct"] = pct(uses, pool_uses.get(pool))
        out[devno] = f
    return out


def _dev_type(iv: Intervals, devno: int) -> str:
    conf = iv.config.devices.get(devno)
    if conf is not None and conf.base is not None:
        return f"->{conf.base:04X}"
    info = iv.device_info.get(devno, {})
    base = info.get("base")
    if base and base != devno:
        return f"->{base:04X}"
    if conf is not None and conf.dvid:
        return conf.dvid
    code = info.get("type_code")
    return NA if code is None else f"X'{code:02X}'"


def _is_dasd(iv: Intervals, devno: int) -> bool:
    cls = iv.device_info.get(devno, {}).get("dev_class")
    return cls is None or cls == DASD_CLASS


def _cp_owned(iv: Intervals, devno: int) -> bool:
    flags = iv.device_info.get(devno, {}).get("flags")
    if isinstance(flags, str) and flags and int(flags, 16) & 0x80:
        return True
    return devno in iv.exposures or any(p.devno == devno for p in iv.config.paging)


# Shown only when a device of the file has PAV (files without keep their layout).
PAV_COLUMNS = [
    Column("pav", ["", "Kind"], 7, None),
    Column("aliases", ["Ali-", "ases"], 4, 0),
    Column("alias_io_rate", ["Alias", "I/O"], 5, 1),
    Column("alias_pct", ["%", "Alias"], 5, 0),
    Column("base_only_rate", ["Base", "Only"], 5, 1),
    Column("hpav_share_pct", ["HPAV", "%Shr"], 4, 0),
]


def device(iv: Intervals, **_: Any) -> Report:
    rows: list[dict[str, Any]] = []
    dasd = [d for d in iv.devices if _is_dasd(iv, d)]
    if dasd:
        m = device_metrics(merged(iv.devices[d] for d in dasd))
        m.update(addr=ALL_DASD, type="", volser="", cp_owned=None, _label=">> All DASD <<")
        rows.append(m)
    devs = []
    pav = pav_figures(iv)
    for devno, raw in iv.devices.items():
        m = device_metrics(raw)
        info = iv.device_info.get(devno, {})
        conf = iv.config.devices.get(devno)
        volser = info.get("volser") or (conf.volser if conf is not None else "")
        cp = _cp_owned(iv, devno)
        m.update(
            addr=hexaddr(devno),
            type=_dev_type(iv, devno),
            volser=volser,
            cp_owned=cp,
            _label=(volser or "").ljust(6) + (" CP" if cp else ""),
        )
        m.update(pav.get(devno, {}))
        # channel paths of the subchannel (MTRDEV_RDEVCHPS), when the record names them
        m["paths"] = (len(conf.chpids) or None) if conf is not None else None
        devs.append(m)
    devs.sort(key=lambda m: (-(m["resp_ms"] if m["resp_ms"] is not None else -1.0), m["addr"]))
    rows += devs
    table = Table(
        [
            Column("addr", ["", "Addr"], 4, None, fmt=lambda v: ">>" if v == ALL_DASD else str(v)),
            Column("type", ["", "Type"], 6, None),
            Column("_label", ["Label/", "ID"], 14, None),
            Column("_links", ["Mdisk", "Links"], 5, 0),
            Column("paths", ["Pa-", "ths"], 3, 0),
            Column("io_rate", ["", "I/O"], 6, 1),
            Column("avoid_rate", ["", "Avoid"], 5, 1),
            Column("pend_ms", ["", "Pend"], 5, 1),
            Column("disc_ms", ["", "Disc"], 5, 1),
            Column("conn_ms", ["", "Conn"], 5, 1),
            Column("serv_ms", ["", "Serv"], 5, 1),
            Column("resp_ms", ["", "Resp"], 5, 1),
            Column("cuwt_ms", ["", "CUWt"], 5, 1),
            Column("queued", ["Req.", "Qued"], 5, 1),
            Column("busy_pct", ["%", "Busy"], 4, 0),
            Column("_read", ["%", "READ"], 4, 0),
        ]
        + (PAV_COLUMNS if pav else []),
        [
            Group("Device Descr.", "addr", "_label"),
            Group("Rate/s", "io_rate", "avoid_rate"),
            Group("Time (msec)", "pend_ms", "cuwt_ms"),
        ]
        + ([Group("PAV", "pav", "hpav_share_pct")] if pav else []),
    )
    for r in rows:
        if r["addr"] == ALL_DASD:
            r["type"] = "All"
            r["_label"] = "DASD <<"
    return new_report(
        iv,
        "DEVICE",
        "FCX108",
        "General I/O Device Load and Performance",
        rows=rows,
        keys=DEVICE_KEYS,
        table=table,
    )


CPOWNED_KEYS = [
    "addr", "devtype", "volser", "area_type", "area_extent", "used_pct", "page_reads",
    "page_writes", "page_total", "ssch_rate", "queue_len", "serv_ms", "resp_ms", "mload",
    "block_size", "block_read", "block_write", "page_slots", "slots_used", "seconds",
]  # fmt: skip


def cpowned(iv: Intervals, **_: Any) -> Report:
    cfg = iv.config
    rows: list[dict[str, Any]] = []
    extents = {p.devno: p for p in cfg.paging if p.devno is not None}
    for devno in sorted(iv.exposures):
        raw = iv.exposures[devno]
        m = exposure_metrics(raw, iv.devices.get(devno))
        info = iv.exposure_info.get(devno, {})
        ext = extents.get(devno)
        flags = info.get("flags") or 0
        found = next((t for b, t in AREA_TYPES.items() if flags & b), None)
        if found is None:
            found = "PAGE" if info.get("page_slots") else ("SPOOL" if info.get("spool_slots") else "?????")
        if ext is not None:
            # MTRPAG_CALTYPE when the file has it, else what the exposure says.
            area = ext.area_type if ext.area_type != "?????" else found
            extent = f"{ext.start}-{ext.end}" if ext.start is not None and ext.end is not None else NA
        else:
            area = found
            extent = NA
        conf = cfg.devices.get(devno)
        m.update(
            addr=hexaddr(devno),
            devtype=conf.dvid if conf is not None and conf.dvid else NA,
            volser=info.get("volser") or (ext.volser if ext else ""),
            area_type=area,
            area_extent=extent,
        )
        rows.append(m)
    sysm = iv.total_metrics()
    page_slots = sysm.get("slots_total")
    page_used = sysm.get("slots_used")
    if page_slots is None and iv.exposures:
        page_slots = sum(m["page_slots"] or 0 for m in rows)
        page_used = sum(m["slots_used"] or 0 for m in rows)
    summary = {
        "page_slots": page_slots,
        "page_slots_used": page_used,
        "page_used_pct": pct(page_used, page_slots),
        "spool_slots": sysm.get("spool_total"),
        "spool_slots_used": sysm.get("spool_used"),
        "spool_used_pct": sysm.get("spool_used_pct"),
        "dump_slots": sysm.get("dump_total"),
        "dump_slots_used": sysm.get("dump_used"),
    }

    def num(v: Any, w: int = 9) -> str:
        return fmt_num(v, 0, w)

    def pc(v: Any) -> str:
        return "...%" if v is None else f"{v:.0f}%"

    pre = [
        "Page / SPOOL Allocation Summary",
        "",
        f"PAGE slots available    {num(summary['page_slots'])}   SPOOL slots available   {num(summary['spool_slots'])}",
        f"PAGE slot utilization   {pc(summary['page_used_pct']):>9}   SPOOL slot utilization  {pc(summary['spool_used_pct']):>9}",
        f"T-Disk cylinders avail. {'.....':>9}   DUMP slots available    {num(summary['dump_slots'])}",
        f"T-Disk space utilization{'...%':>10}   DUMP slot utilization   "
        f"{pc(pct(summary['dump_slots_used'], summary['dump_slots'])):>9}",
    ]
    for r in rows:
        r.update(_sr=None, _sw=None, _inter=None, _alloc=None)
    table = Table(
        [
            Column("addr", ["", "", "Addr"], 4, None),
            Column("devtype", ["", "", "Devtyp"], 6, None),
            Column("volser", ["", "Volume", "Serial"], 6, None),
            Column("area_type", ["", "Area", "Type"], 5, None),
            Column("area_extent", ["", "Area", "Extent"], 11, None),
            Column("used_pct", ["", "Used", "%"], 4, 0),
            Column("page_reads", ["", "", "P-Rds"], 6, 1),
            Column("page_writes", ["", "", "P-Wrt"], 6, 1),
            Column("_sr", ["", "", "S-Rds"], 5, 1),
            Column("_sw", ["", "", "S-Wrt"], 5, 1),
            Column("page_total", ["", "", "Total"], 6, 1),
            Column("ssch_rate", ["", "SSCH", "+RSCH"], 6, 1),
            Column("_inter", ["User", "Inter", "feres"], 5, 0),
            Column("queue_len", ["", "Queue", "Lngth"], 5, 2),
            Column("serv_ms", ["", "Serv", "Time"], 5, 1),
            Column("resp_ms", ["", "Resp", "Time"], 5, 1),
            Column("mload", ["", "", "MLOAD"], 5, 1),
            Column("block_size", ["", "Block", "Size"], 5, 1),
            Column("_alloc", ["%Used", "for", "Alloc"], 5, 0),
        ],
        [
            Group("Device Descr.", "addr", "used_pct"),
            Group("Rate/s", "page_reads", "ssch_rate"),
        ],
    )
    return new_report(
        iv,
        "CPOWNED",
        "FCX109",
        "Load and Performance of CP Owned Disks",
        display="DEVICE CPOWNED",
        rows=rows,
        keys=CPOWNED_KEYS,
        table=table,
        pre_lines=pre,
        extra={"summary": summary},
    )
