"""Helpers shared by the report builders."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from ztwin.reports import vmetrics
from ztwin.reports.core import Intervals
from ztwin.reports.model import ColumnRows, Report, RowChunk, Times
from ztwin.reports.store import series_chunks, sys_chunks
from ztwin.reports.text import Column, fmt_time

MEAN = ">>Mean>>"
SYSTEM = ">System<"


def time_or_label(v: Any) -> str:
    return fmt_time(v) if isinstance(v, datetime) else ("" if v is None else str(v))


#: The native row writer shows a column of times as ``HH:MM:SS`` (what this gives a time).
time_or_label.native = "hms"  # type: ignore[attr-defined]


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


def by_time_rows(iv: Intervals, keys: list[str], row: Any = None) -> ColumnRows:
    """``>>Mean>>`` then one row per interval of the system figures, computed
    a batch of intervals at a time as columns (``vmetrics``) when the rows
    are written. ``row(end, start, figures)`` builds a row (default: the
    ``keys`` of the figures plus interval_end/interval_start); it is called
    with scalars for the ``>>Mean>>`` row and with columns (arrays, and
    :class:`~ztwin.reports.model.Times`) for each batch."""

    def plain(end: Any, start: Any, m: dict[str, Any]) -> dict[str, Any]:
        m.update(interval_end=end, interval_start=start)
        return {k: m.get(k) for k in keys}

    make = row or plain
    head = [make(MEAN, None, iv.total_metrics())] if iv.intervals else []

    def chunks() -> Iterator[RowChunk]:
        for c in sys_chunks(iv):
            m: Any = vmetrics.system_metrics(c.sums)
            yield RowChunk(c.n, make(Times(c.end_us), Times(c.start_us), m))

    return ColumnRows(head, chunks)


def series_log_rows(iv: Intervals, attr: str, key: Any, derive: Any, vderive: Any, row: Any) -> ColumnRows:
    """A key's ``>>Mean>>`` row (``derive`` of its sums merged over the
    window) then one row per interval (``vderive`` of a batch's columns);
    ``row(end, start, figures)`` builds a row, as for :func:`by_time_rows`."""
    from ztwin.reports.store import fold

    def chunks() -> Iterator[RowChunk]:
        for c in series_chunks(iv, attr, key):
            yield RowChunk(c.n, row(Times(c.end_us), Times(c.start_us), vderive(c.sums)))

    names = list(dict.fromkeys(k for c in series_chunks(iv, attr, key) for k in c.names))
    if not names:
        return ColumnRows([], chunks)
    total = fold((c.sums for c in series_chunks(iv, attr, key)), names)
    return ColumnRows([row(MEAN, None, derive(total))], chunks)
