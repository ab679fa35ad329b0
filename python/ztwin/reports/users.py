"""User reports: USTAT (FCX114), USTATLOG (FCX164), UPAGE (FCX113),
UPAGELOG (FCX163), UCONF (FCX226)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ztwin.reports import vmetrics
from ztwin.reports.common import SYSTEM, by_time_rows, interval_column, new_report, series_log_rows
from ztwin.reports.core import Intervals
from ztwin.reports.metrics import user_metrics
from ztwin.reports.model import ChainRows, Chart, Report
from ztwin.reports.storage import NO_XSTOR, no_xstor
from ztwin.reports.text import NA, Column, Group, Table

USTAT_PCTS = [
    "act_pct", "run_pct", "cpu_pct", "ldg_pct", "pgw_pct", "iow_pct", "sim_pct", "tiw_pct",
    "cfw_pct", "ti_pct", "el_pct", "dm_pct", "ioa_pct", "pga_pct", "lim_pct", "oth_pct",
    "q0_pct", "q1_pct", "q2_pct", "q3_pct", "e0_3_pct",
]  # fmt: skip
_USTAT_HEADS = [
    "%ACT", "%RUN", "%CPU", "%LDG", "%PGW", "%IOW", "%SIM", "%TIW", "%CFW", "%TI", "%EL",
    "%DM", "%IOA", "%PGA", "%LIM", "%OTH", "Q0", "Q1", "Q2", "Q3", "E0-3",
]  # fmt: skip
USTAT_KEYS = ["userid", *USTAT_PCTS, "hf_samples", "seconds"]
USTATLOG_KEYS = ["userid", "interval_end", *USTAT_PCTS, "hf_samples", "interval_start", "seconds"]

UPAGE_VALUES = [
    "page_reads", "page_writes", "steals", "x_to_ms", "ms_to_x", "x_to_ds",
    "wss", "resident", "res_lt2g", "res_gt2g", "locked", "xstor", "dasd",
]  # fmt: skip
UPAGE_KEYS = ["userid", *UPAGE_VALUES, "reserved", "storage_pages", "users", "seconds"]
UPAGELOG_KEYS = ["userid", "interval_end", *UPAGE_VALUES, "interval_start", "seconds"]


def _ustat_columns(first: Column) -> Table:
    cols = [first]
    cols += [Column(k, [h], 4, 0) for k, h in zip(USTAT_PCTS, _USTAT_HEADS, strict=True)]
    return Table(cols, [Group("SVM and", "ti_pct", "dm_pct"), Group("%Time in", "q0_pct", "e0_3_pct")])


def ustat(iv: Intervals, **_: Any) -> Report:
    rows: list[dict[str, Any]] = []
    if iv.users:
        sysm = iv.total_metrics()
        row: dict[str, Any] = {k: sysm.get("sys_" + k) for k in USTAT_PCTS}
        row.update(userid=SYSTEM, hf_samples=sysm.get("sys_hf_samples"), seconds=sysm.get("seconds"))
        rows.append(row)
    users = []
    for u, raw in iv.users.items():
        m = user_metrics(raw)
        m["userid"] = u
        users.append(m)
    users.sort(key=lambda m: (-(m["act_pct"] or 0), m["userid"]))
    rows += [{k: m.get(k) for k in USTAT_KEYS} for m in users]
    return new_report(
        iv,
        "USTAT",
        "FCX114",
        "Wait State Analysis by User",
        rows=rows,
        keys=USTAT_KEYS,
        table=_ustat_columns(Column("userid", ["User ID"], 8, None)),
    )


def _has_series(iv: Intervals, user: str) -> bool:
    s = iv.user_series
    return bool(s.get(user)) if isinstance(s, dict) else user in s


def _missing(iv: Intervals, users: Sequence[str] | None) -> list[str]:
    return [f"No data for user {u} in the selected period" for u in _log_subjects(iv, users)
            if u != SYSTEM and not _has_series(iv, u)]  # fmt: skip


def _log_subjects(iv: Intervals, users: Sequence[str] | None) -> list[str]:
    return [u.upper() for u in users] if users else [SYSTEM]


def ustatlog(iv: Intervals, users: Sequence[str] | None = None, **_: Any) -> Report:
    parts: list[Sequence[dict[str, Any]]] = []
    for subject in _log_subjects(iv, users):
        if subject == SYSTEM:
            parts.append(by_time_rows(iv, USTATLOG_KEYS, lambda e, s, m: _ustat_row(SYSTEM, e, s, m, "sys_")))
            continue
        parts.append(series_log_rows(iv, "user_series", subject, user_metrics, vmetrics.user_metrics,
                                     lambda e, s, m, u=subject: _ustat_row(u, e, s, m, "")))  # fmt: skip
    return new_report(
        iv,
        "USTATLOG",
        "FCX164",
        "User Wait States Log",
        rows=ChainRows(parts),
        post_lines=_missing(iv, users),
        keys=USTATLOG_KEYS,
        table=_ustat_columns(interval_column()),
        subject=" ".join(_log_subjects(iv, users)),
        group_key="userid",
        group_title="Wait State Data Log for User {}",
        time_key="interval_end",
        charts=[
            Chart("Active, running, waiting for CPU (%)", ["act_pct", "run_pct", "cpu_pct"], "%"),
            Chart("Page, I/O and simulation wait (%)", ["pgw_pct", "iow_pct", "sim_pct"], "%"),
            Chart("Idle, eligible, dormant (%)", ["ti_pct", "tiw_pct", "el_pct", "dm_pct"], "%"),
        ],
    )


def _ustat_row(userid: str, end: Any, start: Any, m: dict[str, Any], prefix: str) -> dict[str, Any]:
    row = {k: m.get(prefix + k) for k in USTAT_PCTS}
    row.update(
        userid=userid,
        interval_end=end,
        interval_start=start,
        hf_samples=m.get(prefix + "hf_samples"),
        seconds=m.get("seconds"),
    )
    return row


#: UPAGE/UPAGELOG figures of expanded storage (left out at levels without it).
_XSTOR_COLS = ("x_to_ms", "ms_to_x", "x_to_ds", "xstor")


def _upage_table(first: Column, system_users: bool, xstor: bool = True) -> Table:
    cols = [
        first,
        Column("_spaces", ["Data", "Spaces", "Owned"], 6, 1),
        Column("page_reads", ["", "Reads"], 6, 1),
        Column("page_writes", ["", "Write"], 6, 1),
        Column("steals", ["Page", "Steals"], 6, 1),
        Column("_gt2g", ["", ">2GB>"], 5, 1),
        Column("x_to_ms", ["", "X>MS"], 6, 1),
        Column("ms_to_x", ["", "MS>X"], 6, 1),
        Column("x_to_ds", ["", "X>DS"], 6, 1),
        Column("wss", ["", "WSS"], 7, 0),
        Column("reserved", ["", "Resrvd"], 6, 0),
        Column("res_lt2g", ["", "R<2GB"], 7, 0),
        Column("res_gt2g", ["", "R>2GB"], 7, 0),
        Column("locked", ["", "L<2GB"], 6, 0),
        Column("_l_gt2g", ["", "L>2GB"], 6, 0),
        Column("xstor", ["", "XSTOR"], 7, 0),
        Column("dasd", ["", "DASD"], 7, 0),
    ]
    if system_users:
        cols.append(Column("users", ["Nr of", "Users"], 5, 0, fmt=lambda v: "" if v is None else str(round(v))))
    if not xstor:
        cols = [c for c in cols if c.key not in _XSTOR_COLS]
    return Table(
        cols,
        [
            Group("Page Rate", "page_reads", "page_writes"),
            *([Group("Page Migration", "_gt2g", "x_to_ds")] if xstor else []),
            Group("Resident", "res_lt2g", "res_gt2g"),
            Group("Locked", "locked", "_l_gt2g"),
        ],
    )


def _no_xstor_lines(iv: Intervals) -> tuple[bool, list[str]]:
    """Whether the file has XSTOR figures, and the line that says it has none
    (a level without XSTOR: the columns are left out, not zeros)."""
    if no_xstor(iv.config):
        return False, [f"Expanded storage: {NO_XSTOR} (z/VM {iv.config.cp_level}): X>MS, MS>X, X>DS, XSTOR left out"]
    return True, []


def _upage_row(userid: str, m: dict[str, Any], prefix: str) -> dict[str, Any]:
    row = {k: m.get(prefix + k) for k in UPAGE_VALUES}
    row.update(userid=userid, seconds=m.get("seconds"), _spaces=None, _gt2g=None, _l_gt2g=None)
    return row


def upage(iv: Intervals, **_: Any) -> Report:
    rows: list[dict[str, Any]] = []
    if iv.users:
        sysm = iv.total_metrics()
        row = _upage_row(SYSTEM, sysm, "sys_")
        row["users"] = sysm.get("sys_users")
        row["storage_pages"] = sysm.get("sys_storage_pages")
        res = [u.reserved_pages for u in iv.config.users.values() if u.reserved_pages is not None]
        row["reserved"] = sum(res) / len(res) if res else None
        rows.append(row)
    for u in sorted(iv.users):
        m = user_metrics(iv.users[u])
        row = _upage_row(u, m, "")
        conf = iv.config.users.get(u)
        row["reserved"] = conf.reserved_pages if conf else None
        row["storage_pages"] = m.get("storage_pages")
        row["users"] = None
        rows.append(row)
    xstor, lines = _no_xstor_lines(iv)
    return new_report(
        iv,
        "UPAGE",
        "FCX113",
        "User Paging Activity and Storage Utilization",
        rows=rows,
        keys=UPAGE_KEYS if xstor else [k for k in UPAGE_KEYS if k not in _XSTOR_COLS],
        table=_upage_table(Column("userid", ["", "", "User ID"], 8, None), True, xstor),
        pre_lines=lines,
    )


def upagelog(iv: Intervals, users: Sequence[str] | None = None, **_: Any) -> Report:
    parts: list[Sequence[dict[str, Any]]] = []
    for subject in _log_subjects(iv, users):
        if subject == SYSTEM:
            parts.append(by_time_rows(iv, UPAGELOG_KEYS, lambda e, s, m: _log_upage(SYSTEM, e, s, m, "sys_")))
            continue
        parts.append(series_log_rows(iv, "user_series", subject, user_metrics, vmetrics.user_metrics,
                                     lambda e, s, m, u=subject: _log_upage(u, e, s, m, "")))  # fmt: skip
    xstor, lines = _no_xstor_lines(iv)
    table = _upage_table(interval_column(), False, xstor)
    return new_report(
        iv,
        "UPAGELOG",
        "FCX163",
        "User Paging Activity Log",
        rows=ChainRows(parts),
        pre_lines=lines,
        post_lines=_missing(iv, users),
        keys=UPAGELOG_KEYS if xstor else [k for k in UPAGELOG_KEYS if k not in _XSTOR_COLS],
        table=table,
        subject=" ".join(_log_subjects(iv, users)),
        group_key="userid",
        group_title="Page Data Log for User {}",
        time_key="interval_end",
        charts=[
            Chart("Page reads and writes per second", ["page_reads", "page_writes"], "/s"),
            *([Chart("Page migration per second", ["x_to_ms", "ms_to_x", "x_to_ds"], "/s")] if xstor else []),
            Chart("Pages", ["wss", "resident", "xstor", "dasd"] if xstor else ["wss", "resident", "dasd"], "pages"),
        ],
    )


def _log_upage(userid: str, end: Any, start: Any, m: dict[str, Any], prefix: str) -> dict[str, Any]:
    row = _upage_row(userid, m, prefix)
    row.update(interval_end=end, interval_start=start, reserved=None)
    return row


UCONF_KEYS = [
    "userid", "virt_cpus", "share_relative", "share_absolute", "share_max", "quickdsp",
    "stor_size_mb", "reserved_pages", "account", "logon", "logoff", "source",
]  # fmt: skip


def _stor(mb: float | None) -> str:
    if mb is None:
        return NA
    if mb >= 10240 and mb % 1024 == 0:
        return f"{mb / 1024:.0f}G"
    return f"{mb:.0f}M"


def uconf(iv: Intervals, **_: Any) -> Report:
    rows = []
    for u in sorted(iv.config.users):
        c = iv.config.users[u]
        mb = None if c.storage_pages is None else c.storage_pages * 4096 / 2**20
        rows.append(
            {
                "userid": c.userid,
                "virt_cpus": c.vcpus,
                "share_relative": c.relshare or None,
                "share_absolute": c.absshare or None,
                "share_max": c.maxshare or None,
                "quickdsp": c.quickdsp,
                "stor_size_mb": mb,
                "reserved_pages": c.reserved_pages,
                "account": c.account,
                "logon": c.logon,
                "logoff": c.logoff,
                "source": c.source,
                "_svm": NA,
                "_mode": NA,
                "_stormode": "V=V",
                "_nomdc": NA,
                "_stor": _stor(mb),
            }
        )
    table = Table(
        [
            Column("userid", ["", "User ID"], 8, None),
            Column("_svm", ["", "SVM"], 3, None),
            Column("virt_cpus", ["Virt", "CPUs"], 4, 0),
            Column("_mode", ["Mach", "Mode"], 4, None),
            Column("_stormode", ["Stor", "Mode"], 4, None),
            Column("share_relative", ["", "Relative"], 8, 0),
            Column("share_absolute", ["", "Absolute"], 8, 0),
            Column("share_max", ["Value/%", "Limit"], 7, 0),
            Column("quickdsp", ["QUICK", "DSP"], 5, None, fmt=lambda v: NA if v is None else ("Yes" if v else "No")),
            Column("_nomdc", ["No MDC", "Fair"], 6, None),
            Column("_stor", ["Stor Size", "(MB)"], 9, 0, fmt=str),
            Column("reserved_pages", ["Reserved", "Pages"], 8, 0),
        ],
        [Group("Share", "share_relative", "share_max")],
    )
    return new_report(
        iv,
        "UCONF",
        "FCX226",
        "User Configuration",
        rows=rows,
        keys=UCONF_KEYS,
        table=table,
        start=iv.start or iv.data_start,
        end=iv.end or iv.data_end,
    )
