"""Storage reports: STORAGE (FCX103), PAGELOG (FCX143), AVAILLOG (FCX254)."""

from __future__ import annotations

from typing import Any

from ztwin.reports.common import by_time_rows, interval_column, new_report
from ztwin.reports.core import Intervals
from ztwin.reports.metrics import pct
from ztwin.reports.model import Chart, Report
from ztwin.reports.text import Column, Group, Table, fmt_num, kv_lines, section

STORAGE_KEYS = [
    "storage_mb", "pageable_frames", "avail_frames", "min_avail_frames", "max_avail_frames",
    "cp_locked", "avail_low", "avail_high", "avail_low_g", "avail_high_g", "steal_rate", "steals",
    "steals_pass1", "steals_pass2", "steals_emergency", "emergency_scans", "emergency_scan_rate",
    "emergency_pct", "list_empty", "list_empty_rate", "frame_waits", "frame_wait_rate", "scans",
    "frame_deferred_rate", "dasd_read_rate", "dasd_write_rate", "pgin_rate", "pgout_rate",
    "migrate_rate", "page_read_block", "page_write_block", "paging_ssch_rate", "slots_total",
    "slots_used", "slots_used_pct", "xstor_total", "xstor_free", "xstor_used_pct", "xstor_age_s",
    "seconds",
]  # fmt: skip


#: What the XSTOR figures say at a level without XSTOR.
NO_XSTOR = "no XSTOR"
#: XSTOR figures (STORAGE keys, PAGELOG columns).
XSTOR_KEYS = ("pgin_rate", "pgout_rate", "migrate_rate", "xstor_total", "xstor_free", "xstor_used_pct",
              "xstor_age_s", "xstor_used")  # fmt: skip


def no_xstor(cfg: Any) -> bool:
    """The file is from a level that manages storage without XSTOR (z/VM 6.3
    and later as the twin models them; IBM removed XSTOR in 6.4 and its
    records in 7.1) and its configuration (MTRXSG) has none: its XSTOR
    figures are not zeros but absent."""
    from ztwin.reports.provenance import layout_release

    if cfg.cp_level is None or (cfg.xstor_blocks or 0) != 0:
        return False
    major, minor = (int(x) for x in layout_release(cfg.cp_level).split("."))
    return (major, minor) >= (6, 3)


def storage(iv: Intervals, **_: Any) -> Report:
    m = iv.total_metrics()
    cfg = iv.config
    row = {k: m.get(k) for k in STORAGE_KEYS}
    row["storage_mb"] = None if cfg.storage_bytes is None else cfg.storage_bytes / 2**20
    steals = [m.get(k) for k in ("steals_pass1", "steals_pass2", "steals_emergency")]
    all_steals = sum(s for s in steals if s is not None) if any(s is not None for s in steals) else None
    row["emergency_pct"] = pct(m.get("steals_emergency"), all_steals)
    none = no_xstor(cfg)
    if none:
        for k in XSTOR_KEYS:
            if k in row:
                row[k] = None

    def f(k: str, dec: int = 1) -> str:
        if none and k in XSTOR_KEYS:
            return NO_XSTOR
        return fmt_num(row.get(k), dec, 12)

    items = [
        section("Main storage utilization:"),
        ("Total real storage (MB)", f("storage_mb", 0)),
        ("Pageable frames (avg)", f("pageable_frames", 0)),
        ("CP locked frames (avg)", f("cp_locked", 0)),
        ("Available frames (avg)", f("avail_frames", 0)),
        ("Available frames (min)", f("min_avail_frames", 0)),
        ("Available frames (max)", f("max_avail_frames", 0)),
        ("Available list low threshold <2G", f("avail_low", 0)),
        ("Available list high threshold <2G", f("avail_high", 0)),
        ("Available list low threshold >2G", f("avail_low_g", 0)),
        ("Available list high threshold >2G", f("avail_high_g", 0)),
        section("Steal and demand scan:"),
        ("Frames stolen /s", f("steal_rate")),
        ("Frames stolen (count)", f("steals", 0)),
        ("  in pass 1", f("steals_pass1", 0)),
        ("  in pass 2", f("steals_pass2", 0)),
        ("  in emergency pass", f("steals_emergency", 0)),
        ("  emergency share %", f("emergency_pct")),
        ("Emergency scans (count)", f("emergency_scans", 0)),
        ("Emergency scans /s", f("emergency_scan_rate", 2)),
        ("Demand scans (count)", f("scans", 0)),
        ("Available list empty (count)", f("list_empty", 0)),
        ("Frame requests that waited (count)", f("frame_waits", 0)),
        ("Frame requests that waited /s", f("frame_wait_rate", 2)),
        ("Tasks deferred for a frame /s", f("frame_deferred_rate", 2)),
        section("Paging:"),
        ("DASD page reads /s", f("dasd_read_rate")),
        ("DASD page writes /s", f("dasd_write_rate")),
        ("Paging SSCH /s", f("paging_ssch_rate")),
        ("Pages per read SSCH (block size)", f("page_read_block")),
        ("Pages per write SSCH (block size)", f("page_write_block")),
        ("PGIN from XSTOR /s", f("pgin_rate")),
        ("PGOUT to XSTOR /s", f("pgout_rate")),
        ("XSTOR to DASD migrations /s", f("migrate_rate")),
        ("Page slots", f("slots_total", 0)),
        ("Page slots in use (avg)", f("slots_used", 0)),
        ("Page slot utilization %", f("slots_used_pct")),
        section("Expanded storage:"),
        ("XSTOR blocks", f("xstor_total", 0)),
        ("XSTOR blocks free (avg)", f("xstor_free", 0)),
        ("XSTOR utilization %", f("xstor_used_pct")),
        ("Average block age (s)", f("xstor_age_s", 0)),
    ]
    return new_report(
        iv,
        "STORAGE",
        "FCX103",
        "General Storage Utilization",
        rows=[row] if iv.intervals else [],
        keys=STORAGE_KEYS,
        pre_lines=kv_lines(items) if iv.intervals else ["(no data in the selected period)"],
    )


PAGELOG_KEYS = [
    "interval_end", "pgin_rate", "pgout_rate", "migrate_rate", "xstor_used", "dasd_read_rate",
    "dasd_write_rate", "read_write_rate", "page_read_block", "page_write_block",
    "paging_ssch_rate", "slots_used", "slots_used_pct", "interval_start", "seconds",
]  # fmt: skip


def pagelog(iv: Intervals, **_: Any) -> Report:
    if no_xstor(iv.config):
        return _pagelog_no_xstor(iv)
    table = Table(
        [
            interval_column(),
            Column("pgin_rate", ["", "PGIN", "/s"], 7, 1),
            Column("pgout_rate", ["", "PGOUT", "/s"], 7, 1),
            Column("migrate_rate", ["", "Migr", "/s"], 6, 1),
            Column("xstor_used", ["XSTOR", "Blocks", "Used"], 8, 0),
            Column("dasd_read_rate", ["", "Reads", "/s"], 7, 1),
            Column("dasd_write_rate", ["", "Writes", "/s"], 7, 1),
            Column("read_write_rate", ["", "Total", "/s"], 7, 1),
            Column("page_read_block", ["Block", "Read", "Pages"], 5, 1),
            Column("page_write_block", ["Block", "Write", "Pages"], 5, 1),
            Column("paging_ssch_rate", ["", "SSCH", "/s"], 6, 1),
            Column("slots_used", ["Slots", "in", "Use"], 9, 0),
            Column("slots_used_pct", ["", "Slots", "%Used"], 5, 0),
        ],
        [
            Group("Expanded Storage", "pgin_rate", "xstor_used"),
            Group("DASD Paging", "dasd_read_rate", "slots_used_pct"),
        ],
    )
    return new_report(
        iv,
        "PAGELOG",
        "FCX143",
        "Paging Activity Log",
        rows=by_time_rows(iv, PAGELOG_KEYS),
        keys=PAGELOG_KEYS,
        table=table,
        time_key="interval_end",
        charts=[
            Chart("Expanded storage paging per second", ["pgin_rate", "pgout_rate", "migrate_rate"], "/s"),
            Chart("DASD paging per second", ["dasd_read_rate", "dasd_write_rate"], "/s"),
            Chart("Pages per paging SSCH", ["page_read_block", "page_write_block"], "pages"),
            Chart("Page slots in use", ["slots_used"], "slots"),
        ],
    )


PAGELOG_NO_XSTOR_KEYS = [k for k in PAGELOG_KEYS if k not in XSTOR_KEYS]


def _pagelog_no_xstor(iv: Intervals) -> Report:
    """PAGELOG of a level without XSTOR: the expanded-storage columns are
    replaced by one line saying so (not zeros)."""
    table = Table(
        [
            interval_column(),
            Column("dasd_read_rate", ["", "Reads", "/s"], 7, 1),
            Column("dasd_write_rate", ["", "Writes", "/s"], 7, 1),
            Column("read_write_rate", ["", "Total", "/s"], 7, 1),
            Column("page_read_block", ["Block", "Read", "Pages"], 5, 1),
            Column("page_write_block", ["Block", "Write", "Pages"], 5, 1),
            Column("paging_ssch_rate", ["", "SSCH", "/s"], 6, 1),
            Column("slots_used", ["Slots", "in", "Use"], 9, 0),
            Column("slots_used_pct", ["", "Slots", "%Used"], 5, 0),
        ],
        [Group("DASD Paging", "dasd_read_rate", "slots_used_pct")],
    )
    return new_report(
        iv,
        "PAGELOG",
        "FCX143",
        "Paging Activity Log",
        rows=by_time_rows(iv, PAGELOG_NO_XSTOR_KEYS),
        keys=PAGELOG_NO_XSTOR_KEYS,
        table=table,
        time_key="interval_end",
        pre_lines=[f"Expanded storage: {NO_XSTOR} (z/VM {iv.config.cp_level})"],
        charts=[
            Chart("DASD paging per second", ["dasd_read_rate", "dasd_write_rate"], "/s"),
            Chart("Pages per paging SSCH", ["page_read_block", "page_write_block"], "pages"),
            Chart("Page slots in use", ["slots_used"], "slots"),
        ],
    )


AVAILLOG_KEYS = [
    "interval_end", "avail_frames", "avail_low", "avail_high", "avail_low_g", "avail_high_g",
    "list_empty", "list_empty_rate", "frame_waits", "frame_wait_rate", "steals", "steal_rate",
    "emergency_scans", "emergency_scan_rate", "scans", "pageable_frames", "interval_start", "seconds",
]  # fmt: skip


def availlog(iv: Intervals, **_: Any) -> Report:
    table = Table(
        [
            interval_column(),
            Column("avail_frames", ["Avail", "Frames"], 9, 0),
            Column("avail_low", ["Low", "Thresh"], 7, 0),
            Column("avail_high", ["High", "Thresh"], 7, 0),
            Column("list_empty_rate", ["Times", "Empty/s"], 7, 2),
            Column("frame_wait_rate", ["Frame", "Waits/s"], 7, 2),
            Column("steal_rate", ["Steals", "/s"], 8, 1),
            Column("emergency_scans", ["Emerg", "Scans"], 6, 0),
            Column("scans", ["Demand", "Scans"], 6, 0),
            Column("pageable_frames", ["Pageable", "Frames"], 9, 0),
        ],
        [Group("Available List", "avail_frames", "list_empty_rate")],
    )
    return new_report(
        iv,
        "AVAILLOG",
        "FCX254",
        "Available List Data by Time",
        rows=by_time_rows(iv, AVAILLOG_KEYS),
        keys=AVAILLOG_KEYS,
        table=table,
        time_key="interval_end",
        charts=[
            Chart("Available frames and thresholds", ["avail_frames", "avail_low", "avail_high"], "frames"),
            Chart("Steals per second", ["steal_rate"], "/s"),
            Chart("Emergency and demand scans", ["emergency_scans", "scans"], "count"),
            Chart("Available list empty and frame waits per second", ["list_empty_rate", "frame_wait_rate"], "/s"),
        ],
    )
