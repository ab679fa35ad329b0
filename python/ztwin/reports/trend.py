"""TREND: system figures rolled up by hour or by day (Performance Toolkit's
trend files / HISTLOG use: "how did paging develop over the last month").

Each row merges the additive sums of the intervals that end in that hour or
day (optionally only peak hours and weekdays) and derives the SYSSUMLG,
PAGELOG and AVAILLOG figures from the merged sums, so a day's row is the
same figure a report over that day's window gives.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ztwin.reports.common import MEAN, new_report
from ztwin.reports.core import Intervals, ReportError, merged
from ztwin.reports.metrics import system_metrics
from ztwin.reports.model import Report
from ztwin.reports.text import Column, Table

TREND_FIGURES = [
    "cpu_busy_pct", "cpus_online", "tv_ratio", "capture_ratio", "users_logged", "users_active",
    "ssch_rate", "dasd_resp_ms", "page_rate", "read_write_rate", "steal_rate", "avail_frames",
    "min_avail_frames", "slots_used_pct", "users_in_elist",
]  # fmt: skip
TREND_KEYS = ["period", *TREND_FIGURES, "intervals", "seconds"]


def parse_hours(text: str | None) -> tuple[int, int] | None:
    """``9-17``: intervals ending from 09:00 up to (not including) 17:00."""
    if not text:
        return None
    try:
        a, b = (int(x) for x in text.split("-", 1))
    except ValueError:
        raise ReportError(f"--hours {text!r} is not a range of hours such as 9-17") from None
    if not (0 <= a < b <= 24):
        raise ReportError(f"--hours {text!r}: need 0 <= first < last <= 24")
    return a, b


def _bucket(end: datetime, by: str) -> datetime:
    # an interval belongs to the hour/day in which it ends (an end at 10:00:00 closes 09:00-10:00)
    t = end - timedelta(microseconds=1)
    return t.replace(minute=0, second=0, microsecond=0) if by == "hour" else t.replace(
        hour=0, minute=0, second=0, microsecond=0
    )


def trend(iv: Intervals, by: str = "day", hours: tuple[int, int] | None = None, weekdays: bool = False,
          **_: Any) -> Report:  # fmt: skip
    if by not in ("hour", "day"):
        raise ReportError(f"--by {by!r}: hour or day")
    groups: dict[datetime, list[Any]] = {}
    for s in iv.intervals:
        t = s.end - timedelta(microseconds=1)
        if weekdays and t.weekday() >= 5:
            continue
        if hours is not None and not hours[0] <= t.hour < hours[1]:
            continue
        groups.setdefault(_bucket(s.end, by), []).append(s)
    rows: list[dict[str, Any]] = []
    chosen = [s for g in groups.values() for s in g]
    if chosen:
        m = system_metrics(merged(s.raw for s in chosen))
        row = {k: m.get(k) for k in TREND_FIGURES}
        row.update(period=MEAN, intervals=len(chosen), seconds=m.get("seconds"))
        rows.append(row)
    fmt = "%Y-%m-%d %H:00" if by == "hour" else "%Y-%m-%d"
    for b, ss in groups.items():
        m = system_metrics(merged(s.raw for s in ss))
        row = {k: m.get(k) for k in TREND_FIGURES}
        row.update(period=b.strftime(fmt), intervals=len(ss), seconds=m.get("seconds"))
        rows.append(row)
    filt = []
    if hours:
        filt.append(f"hours {hours[0]:02d}-{hours[1]:02d}")
    if weekdays:
        filt.append("weekdays")
    table = Table(
        [
            Column("period", ["", "Period"], 16, None, left=True),
            Column("cpu_busy_pct", ["Pct", "Busy"], 5, 1),
            Column("tv_ratio", ["", "T/V"], 5, 2),
            Column("users_active", ["Users", "Activ"], 5, 0),
            Column("ssch_rate", ["SSCH", "/s"], 6, 1),
            Column("dasd_resp_ms", ["DASD", "Resp"], 5, 1),
            Column("page_rate", ["PGIN+", "PGOUT"], 6, 1),
            Column("read_write_rate", ["Read+", "Write"], 6, 1),
            Column("avail_frames", ["Avail", "Frames"], 8, 0),
            Column("slots_used_pct", ["Slots", "%Used"], 5, 1),
            Column("intervals", ["", "Ivls"], 5, 0),
        ]
    )
    return new_report(
        iv,
        "TREND",
        "TREND",
        f"System Trend by {by.capitalize()}" + (f" ({', '.join(filt)})" if filt else ""),
        rows=rows,
        keys=TREND_KEYS,
        table=table,
    )
