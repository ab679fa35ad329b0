"""Shared pieces of the reports that read their records whole from the file.

Some reports (VDISKS, QDIO, VSWITCH, ...) use records that are not part of the
interval kernel's catalog: they read them as columns in a pass of their own
over the MONWRITE file, limited to the window's intervals, and say so when they
are asked to report from the history database, which does not keep them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ztwin.reports.core import EPOCH_1900_US, Intervals

#: ``(tod_us, fields)``: a record's time (microseconds since 1970) and its fields.
Sample = tuple[float, dict[str, Any]]
K = TypeVar("K")


def num(v: Any) -> float:
    """A numeric field's value, 0.0 where the record does not carry it."""
    return float(v) if isinstance(v, int | float) else 0.0


def text(v: Any) -> str:
    """A character field's value without padding, "" where absent."""
    return str(v).strip() if v is not None else ""


def read(path: str, wanted: Mapping[str, Sequence[str]]) -> dict[str, list[Sample]]:
    """The records named in ``wanted`` (record name -> fields to read) as
    ``(tod_us, fields)`` in file order, one list per record name."""
    import pyarrow as pa

    from ztwin.monitor import DamageWarning, arrow_tables

    # The interval pass already warned about damage: this second read keeps quiet.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamageWarning)
        ts = arrow_tables(path, list(wanted), fields=[f for fs in wanted.values() for f in fs])
    out: dict[str, list[Sample]] = {}
    for name, fields in wanted.items():
        t = ts[name]
        if t.num_rows == 0:
            out[name] = []
            continue
        us = t["tod"].cast(pa.int64()).to_pylist()
        cols = [c for c in fields if c in t.column_names]
        out[name] = [(float(u), f) for u, f in zip(us, t.select(cols).to_pylist(), strict=True)]
    return out


def window(iv: Intervals) -> tuple[float, float, float] | None:
    """``(lo_us, hi_us, seconds)`` of the report's window when it reads from a
    file and has intervals; None otherwise (history database, or empty)."""
    if not (iv.intervals and from_file(iv)):
        return None
    lo, hi = (t / 4096 - EPOCH_1900_US for t in (iv.intervals[0].start_tod, iv.intervals[-1].end_tod))
    return lo, hi, sum(i.seconds for i in iv.intervals)


def from_file(iv: Intervals) -> bool:
    """True when the report reads a MONWRITE file (not the history database)."""
    return Path(iv.path).is_file()


def notes(iv: Intervals, empty: bool, nothing: str) -> list[str]:
    """The lines under a direct report's title that say why it may be empty:
    read from the history database, or ``nothing`` in the selected period."""
    if not from_file(iv):
        return ["  (read from MONWRITE files only: the history database does not keep these records)"]
    if empty:
        return [f"  (no {nothing} in the selected period)"]
    return []


@dataclass
class Span:
    """One entity's samples around a window: ``first``, the last sample at or
    before the window's start (None: the counters start from zero), and
    ``inside``, the samples in the window in file order."""

    first: dict[str, Any] | None = None
    inside: list[dict[str, Any]] = field(default_factory=list)


def spans(samples: Iterable[Sample], lo: float, hi: float, key: Callable[[dict[str, Any]], K]) -> dict[K, Span]:
    """The samples up to ``hi`` grouped by ``key`` into their :class:`Span`."""
    out: dict[K, Span] = {}
    for t, f in samples:
        if t > hi:
            continue
        s = out.setdefault(key(f), Span())
        if t <= lo:
            s.first = f
        else:
            s.inside.append(f)
    return out


def growth(span: Span, prefix: str, counters: Iterable[str], wraps: Container[str] = ()) -> dict[str, float]:
    """Each cumulative counter's growth over the window: from ``span.first``
    (zero when None) to the last sample inside; the counters in ``wraps`` are
    32-bit and wrap as CP's do. The span must have a sample inside."""
    last, first = span.inside[-1], span.first
    out: dict[str, float] = {}
    for k in counters:
        g = num(last.get(prefix + k)) - (num(first.get(prefix + k)) if first is not None else 0.0)
        if g < 0 and k in wraps:
            g += 2**32
        out[k] = g
    return out
