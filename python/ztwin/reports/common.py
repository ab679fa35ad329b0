"""Helpers shared by the report builders."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ztwin.reports.core import Intervals, Raw, SysInterval
from ztwin.reports.model import LazyRows, Report
from ztwin.reports.text import Column, fmt_time

MEAN = ">>Mean>>"
SYSTEM = ">System<"


def time_or_label(v: Any) -> str:
    return fmt_time(v) if isinstance(v, datetime) else ("" if v is None else str(v))


def interval_column() -> Column:
    return Column("interval_end", ["Interval", "End Time"], 8, None, fmt=time_or_label, left=True)


def hexaddr(devno: int | None) -> str:
    return "...." if devno is None else f"{devno:04X}"


def new_report(iv: Intervals, name: str, fcx: str, title: str, **kw: Any) -> Report:
    """A report over the collected window."""
    return Report(
        name=name,
        fcx=fcx,
        title=title,
        config=iv.config,
        start=kw.pop("start", iv.start),
        end=kw.pop("end", iv.end),
        interim=iv.window.interim,
        **kw,
    )


def series_rows(
    iv: Intervals, series: list[tuple[int, Raw]], derive: Any, keys: list[str], extra: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One row per interval of a key's series: interval_end plus derived keys."""
    rows = []
    for idx, raw in series:
        s: SysInterval = iv.intervals[idx]
        m = derive(raw)
        row = {"interval_end": s.end, "interval_start": s.start, "seconds": raw.get("seconds")}
        row.update({k: m.get(k) for k in keys})
        if extra:
            row.update(extra)
        rows.append(row)
    return rows


def by_time_rows(iv: Intervals, keys: list[str], row: Any = None) -> LazyRows:
    """``>>Mean>>`` then one row per interval of the system figures, computed
    as they are read. ``row(end, start, metrics)`` builds a row (default: the
    ``keys`` of the figures plus interval_end/interval_start)."""

    def plain(end: Any, start: Any, m: dict[str, Any]) -> dict[str, Any]:
        m.update(interval_end=end, interval_start=start)
        return {k: m.get(k) for k in keys}

    make = row or plain
    head = [make(MEAN, None, iv.total_metrics())] if iv.intervals else []
    return LazyRows(head, iv.intervals, lambda s: make(s.end, s.start, s.metrics()))
