"""The :class:`Report` every report builder returns, and its JSON/CSV forms."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO, overload

if TYPE_CHECKING:
    import pandas as pd

    from ztwin.reports.core import Config
    from ztwin.reports.text import Table


@dataclass
class Chart:
    """A time chart of a by-time report for the HTML pages: one line per key."""

    title: str
    keys: Sequence[str]
    unit: str = ""


class LazyRows(Sequence[dict[str, Any]]):
    """Rows computed when read: ``head`` rows, then ``fn(item)`` per item.

    The by-time reports use it so that a long file's rows are never all held
    at once: writers stream them, ``list(rows)`` materializes them."""

    def __init__(self, head: list[dict[str, Any]], items: Sequence[Any], fn: Callable[[Any], dict[str, Any]]) -> None:
        self.head = head
        self.items = items
        self.fn = fn

    def __len__(self) -> int:
        return len(self.head) + len(self.items)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        n = len(self.head)
        return self.head[i] if i < n else self.fn(self.items[i - n])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        yield from self.head
        fn = self.fn
        for x in self.items:
            yield fn(x)


class ChainRows(Sequence[dict[str, Any]]):
    """Several row sequences read as one."""

    def __init__(self, parts: Sequence[Sequence[dict[str, Any]]]) -> None:
        self.parts = parts

    def __len__(self) -> int:
        return sum(len(p) for p in self.parts)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        for p in self.parts:
            if 0 <= i < len(p):
                return p[i]
            i -= len(p)
        raise IndexError(i)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for p in self.parts:
            yield from p


@dataclass
class Report:
    """One report: rows (dicts keyed by the documented snake_case names) plus
    how to lay them out as Perfkit text.

    Keys starting with ``_`` are for the text layout only and are left out of
    JSON, CSV and :meth:`frame`. Summary lines (``>>Mean>>``, ``>System<``,
    ``>>All DASD<<``) are rows too, marked by that label in the row's first key.
    """

    name: str
    fcx: str
    title: str
    config: Config
    start: datetime | None
    end: datetime | None
    rows: Sequence[dict[str, Any]]
    keys: list[str]
    table: Table | None = None
    display: str | None = None
    interim: bool = False
    subject: str | None = None
    time_key: str | None = None
    charts: list[Chart] = field(default_factory=list)
    #: Rows with different values of this key are printed as separate blocks.
    group_key: str | None = None
    group_title: str = ""
    pre_lines: list[str] = field(default_factory=list)
    post_lines: list[str] = field(default_factory=list)
    #: Extra top-level JSON members (e.g. CPOWNED's slot summary).
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.display or self.name

    def grouped_rows(self) -> Iterator[tuple[str, Iterator[dict[str, Any]]]]:
        """``(subtitle, rows)`` per run of rows with the same ``group_key``
        (the builders keep each group's rows together); streams."""
        if self.group_key is None:
            yield "", iter(self.rows)
            return
        key = self.group_key
        for value, rows in itertools.groupby(self.rows, key=lambda r: r.get(key)):
            yield self.group_title.format(value), rows

    def public_rows(self) -> Iterator[dict[str, Any]]:
        keys = self.keys
        return ({k: r.get(k) for k in keys} for r in self.rows)

    def _header_dict(self) -> dict[str, Any]:
        cfg = self.config
        return {
            "report": self.name,
            "fcx": self.fcx,
            "from": cfg.iso(self.start) if self.start else None,
            "to": cfg.iso(self.end) if self.end else None,
        }

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: report, fcx, from, to, rows (plus any extra members)."""
        cfg = self.config
        out = self._header_dict()
        out["rows"] = [{k: _json_value(v, cfg) for k, v in r.items()} for r in self.public_rows()]
        for k, v in self.extra.items():
            out[k] = _json_value(v, cfg)
        return out

    def write_json(self, out: TextIO) -> None:
        """The JSON object on one line, rows streamed."""
        cfg = self.config
        head = json.dumps(self._header_dict(), ensure_ascii=False)
        out.write(head[:-1] + ', "rows": [')
        for i, r in enumerate(self.public_rows()):
            if i:
                out.write(", ")
            out.write(json.dumps({k: _json_value(v, cfg) for k, v in r.items()}, ensure_ascii=False, allow_nan=False))
        out.write("]")
        for k, v in self.extra.items():
            out.write(f", {json.dumps(k)}: {json.dumps(_json_value(v, cfg), ensure_ascii=False, allow_nan=False)}")
        out.write("}\n")

    def to_json(self) -> str:
        buf = io.StringIO()
        self.write_json(buf)
        return buf.getvalue().rstrip("\n")

    def write_csv(self, out: TextIO) -> None:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(self.keys)
        cfg = self.config
        for r in self.public_rows():
            w.writerow(["" if (v := _json_value(r[k], cfg)) is None else v for k in self.keys])

    def to_csv(self) -> str:
        buf = io.StringIO()
        self.write_csv(buf)
        return buf.getvalue()

    def frame(self) -> pd.DataFrame:
        """The rows as a pandas DataFrame (summary rows included)."""
        import pandas as pd

        return pd.DataFrame(list(self.public_rows()), columns=self.keys)

    def write_text(self, out: TextIO, when: datetime | None = None) -> None:
        from ztwin.reports.text import write_text

        write_text(self, out, when)

    def to_text(self, when: datetime | None = None) -> str:
        buf = io.StringIO()
        self.write_text(buf, when)
        return buf.getvalue()


def _json_value(v: Any, cfg: Config) -> Any:
    if isinstance(v, datetime):
        return cfg.iso(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return None
        return round(v, 6)
    if isinstance(v, dict):
        return {k: _json_value(x, cfg) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_json_value(x, cfg) for x in v]
    return v
