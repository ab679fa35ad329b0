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

import numpy as np

from ztwin._native import fold_by_keys
from ztwin.reports.common import MEAN, new_report
from ztwin.reports.core import Intervals, ReportError
from ztwin.reports.metrics import system_metrics
from ztwin.reports.store import IntervalSeq, sys_chunks, value_names
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


#: Microseconds per bucket.
_UNIT = {"hour": 3_600_000_000, "day": 86_400_000_000}


def trend(iv: Intervals, by: str = "day", hours: tuple[int, int] | None = None, weekdays: bool = False,
          **_: Any) -> Report:  # fmt: skip
    if by not in ("hour", "day"):
        raise ReportError(f"--by {by!r}: hour or day")
    # Each interval belongs to the hour/day in which it ends (an end at 10:00:00
    # closes 09:00-10:00); buckets numbered in the order they first appear,
    # computed a batch of intervals at a time from the end times.
    names = _sum_names(iv)
    kinds = ["min" if k.startswith("min_") else "max" if k.startswith("max_") else "sum" for k in names]
    buckets: dict[int, int] = {}
    counts = np.zeros(0, dtype=np.int64)
    folds = [np.full(0, np.nan) for _ in names]
    mean = [np.full(1, np.nan) for _ in names]
    chosen = 0
    for c in sys_chunks(iv):
        t = c.end_us - 1
        keep = np.ones(c.n, dtype=bool)
        if weekdays:
            keep &= (np.floor_divide(t, _UNIT["day"]) + 3) % 7 < 5  # 1970-01-01 was a Thursday
        if hours is not None:
            h = np.floor_divide(t, _UNIT["hour"]) % 24
            keep &= (hours[0] <= h) & (h < hours[1])
        if not keep.any():
            continue
        bl = np.floor_divide(t[keep], _UNIT[by]).tolist()
        for b in bl:
            buckets.setdefault(b, len(buckets))
        codes = np.array([buckets[b] for b in bl], dtype=np.int64)
        nb = len(buckets)
        if nb > len(counts):
            counts = np.concatenate([counts, np.zeros(nb - len(counts), dtype=np.int64)])
            folds = [np.concatenate([f, np.full(nb - len(f), np.nan)]) for f in folds]
        counts += np.bincount(codes, minlength=nb)
        cols = [np.ascontiguousarray(c.sums[k][keep]) for k in names]
        fold_by_keys(codes, cols, kinds, folds)
        fold_by_keys(np.zeros(len(codes), dtype=np.int64), cols, kinds, mean)
        chosen += len(codes)
    rows: list[dict[str, Any]] = []
    if chosen:
        m = system_metrics(_raw(names, mean, 0))
        row = {k: m.get(k) for k in TREND_FIGURES}
        row.update(period=MEAN, intervals=chosen, seconds=m.get("seconds"))
        rows.append(row)
    fmt = "%Y-%m-%d %H:00" if by == "hour" else "%Y-%m-%d"
    for b, i in buckets.items():
        m = system_metrics(_raw(names, folds, i))
        row = {k: m.get(k) for k in TREND_FIGURES}
        start = datetime(1970, 1, 1) + timedelta(microseconds=b * _UNIT[by])
        row.update(period=start.strftime(fmt), intervals=int(counts[i]), seconds=m.get("seconds"))
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


def _sum_names(iv: Intervals) -> list[str]:
    """The system sums the intervals can have."""
    seq = iv.intervals
    if isinstance(seq, IntervalSeq):
        return value_names(seq.system.schema) if seq.system.schema is not None else []
    return list(dict.fromkeys(k for s in seq for k in s.raw))


def _raw(names: list[str], folds: list[np.ndarray], i: int) -> dict[str, float]:
    """Bucket ``i``'s folded sums as a raw sum (absent ones left out)."""
    return {k: float(a[i]) for k, a in zip(names, folds, strict=True) if not np.isnan(a[i])}
