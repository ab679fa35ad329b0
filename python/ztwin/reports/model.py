"""The :class:`Report` every report builder returns, and its JSON/CSV forms."""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import json
import math
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TextIO, overload

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


@dataclass(frozen=True)
class Times:
    """A column of local times (microseconds since 1970) in a :class:`RowChunk`."""

    us: Any


@dataclass(frozen=True)
class Labels:
    """A column of a few values in a :class:`RowChunk`: row ``i`` has
    ``values[codes[i]]`` (a partition name, a processor type, a count)."""

    codes: Any
    values: list[Any]


@dataclass
class RowChunk:
    """``n`` consecutive rows as columns: per key a float64 numpy array (NaN
    for None), :class:`Times`, or one value every row has. Writers render a
    chunk natively (``ztwin._native.format_rows``), the same text the rows
    as dicts give."""

    n: int
    cols: dict[str, Any]

    def constant(self, key: str) -> tuple[bool, Any]:
        """(True, value) when every row has the same value of ``key``."""
        v = self.cols.get(key)
        if isinstance(v, Times | Labels) or _is_array(v):
            return False, None
        return True, v

    def dicts(self) -> Iterator[dict[str, Any]]:
        from ztwin.reports.core import local_from_us

        names = list(self.cols)
        lists: list[Any] = []
        for k in names:
            v = self.cols[k]
            if isinstance(v, Times):
                lists.append([local_from_us(x) for x in v.us.tolist()])
            elif isinstance(v, Labels):
                lists.append([v.values[c] for c in v.codes.tolist()])
            elif _is_array(v):
                lists.append([None if x != x else x for x in v.tolist()])
            else:
                lists.append(None)
        consts = {k: self.cols[k] for k, col in zip(names, lists, strict=True) if col is None}
        for i in range(self.n):
            yield {k: (consts[k] if col is None else col[i]) for k, col in zip(names, lists, strict=True)}


def _is_array(v: Any) -> bool:
    return hasattr(v, "dtype") and hasattr(v, "shape")


class ColumnRows(Sequence[dict[str, Any]]):
    """Rows computed when read: ``head`` rows (dicts), then the rows of the
    :class:`RowChunk` objects ``chunks()`` yields (a by-time report's
    intervals, computed a batch at a time). Writers stream the chunks as
    columns; reading the rows as dicts works too (``list(rows)``)."""

    def __init__(self, head: list[dict[str, Any]], chunks: Callable[[], Iterator[RowChunk]]) -> None:
        self.head = head
        self.chunks = chunks
        self._n: int | None = None

    def blocks(self) -> Iterator[list[dict[str, Any]] | RowChunk]:
        if self.head:
            yield self.head
        yield from self.chunks()

    def __len__(self) -> int:
        if self._n is None:
            self._n = len(self.head) + sum(c.n for c in self.chunks())
        return self._n

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if i < 0:
            raise IndexError(i)
        if i < len(self.head):
            return self.head[i]
        i -= len(self.head)
        for c in self.chunks():
            if i < c.n:
                return next(itertools.islice(c.dicts(), i, None))
            i -= c.n
        raise IndexError(i)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for b in self.blocks():
            yield from (b.dicts() if isinstance(b, RowChunk) else b)


class ChainRows(Sequence[dict[str, Any]]):
    """Several row sequences read as one."""

    def __init__(self, parts: Sequence[Sequence[dict[str, Any]]]) -> None:
        self.parts = parts

    def blocks(self) -> Iterator[Sequence[dict[str, Any]] | RowChunk]:
        for p in self.parts:
            if isinstance(p, ColumnRows | ChainRows):
                yield from p.blocks()
            else:
                yield p

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

    def row_blocks(self) -> Iterator[Sequence[dict[str, Any]] | RowChunk]:
        """The rows as blocks: lists of dicts, and :class:`RowChunk` columns."""
        rows = self.rows
        if isinstance(rows, ColumnRows | ChainRows):
            yield from rows.blocks()
        else:
            yield rows

    def write_json(self, out: TextIO) -> None:
        """The JSON object on one line, rows streamed."""
        cfg = self.config
        head = json.dumps(self._header_dict(), ensure_ascii=False)
        out.write(head[:-1] + ', "rows": [')
        keys = self.keys
        first = True
        raw = chunk_writer(out)
        put: Callable[[Any], Any] = raw or out.write
        for block in self.row_blocks():
            if isinstance(block, RowChunk):
                text = _render(block, "json", keys, cfg, raw=raw is not None)
                if text:
                    if not first:
                        out.write(", ")  # not ", " + text: a copy of megabytes
                    put(text)
                    first = False
                continue
            for r in block:
                if not first:
                    out.write(", ")
                first = False
                out.write(json.dumps({k: _json_value(r.get(k), cfg) for k in keys}, ensure_ascii=False,
                                     allow_nan=False))  # fmt: skip
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
        raw = chunk_writer(out)
        put: Callable[[Any], Any] = raw or out.write
        for block in self.row_blocks():
            if isinstance(block, RowChunk):
                put(_render(block, "csv", self.keys, cfg, raw=raw is not None))
                continue
            for r in block:
                w.writerow(["" if (v := _json_value(r.get(k), cfg)) is None else v for k in self.keys])

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


def _zone(cfg: Config) -> str:
    """The UTC offset suffix ``Config.iso`` writes."""
    z = cfg.zone_s
    if z == 0:
        return "Z"
    sign = "+" if z > 0 else "-"
    z = abs(z)
    return f"{sign}{z // 3600:02d}:{z % 3600 // 60:02d}"


def _csv_cell(v: Any) -> str:
    """One CSV field as ``csv.writer`` (lineterminator "\\n") writes it in a
    row of several: quoted when it holds a comma, a quote or a newline; an
    empty field is empty (alone on a line it would be written ``""``)."""
    if v is None or v == "":
        return ""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([v])
    return buf.getvalue()[:-1]


def _f64(a: Any) -> Any:
    import numpy as np

    return np.ascontiguousarray(a, dtype=np.float64)


def _i64(a: Any) -> Any:
    import numpy as np

    return np.ascontiguousarray(a, dtype=np.int64)


def chunk_writer(out: TextIO) -> Callable[[bytes], Any] | None:
    """A writer of a chunk's rows as UTF-8 bytes into ``out``'s byte stream,
    after the text written so far, when ``out`` writes its text as UTF-8
    unchanged (a file, standard output); None otherwise (a StringIO,
    another encoding: the rows are written as text). Rows of megabytes are
    then not made into a str and encoded again. A stream with its own
    ``write_bytes`` (``ztwin.cli.GuardedOut``) writes them itself."""
    buf = getattr(out, "buffer", None)
    enc = getattr(out, "encoding", None)
    if buf is None or not isinstance(enc, str) or os.linesep != "\n":
        return None
    try:
        if codecs.lookup(enc).name != "utf-8":
            return None
    except LookupError:
        return None
    own = getattr(out, "write_bytes", None)
    if callable(own):
        return own  # type: ignore[no-any-return]

    def put(data: bytes) -> None:
        out.flush()
        buf.write(data)

    return put


def _render(chunk: RowChunk, fmt: Literal["json", "csv"], keys: Sequence[str], cfg: Config, raw: bool = False) -> Any:
    """The rows of a chunk as JSON objects (", " between them) or CSV lines:
    the text the same rows as dicts give (UTF-8 bytes with ``raw``)."""
    from ztwin._native import format_rows, format_rows_bytes

    if chunk.n == 0:
        return b"" if raw else ""
    cols: list[tuple[str, Any, str, int, int, bool]] = []
    for k in keys:
        v = chunk.cols.get(k)
        jk = json.dumps(k, ensure_ascii=False) + ": "
        if isinstance(v, Times):
            cols.append(("t", _i64(v.us), jk, 0, 0, False))
        elif isinstance(v, Labels):
            if fmt == "json":
                texts = [json.dumps(_json_value(x, cfg), ensure_ascii=False, allow_nan=False) for x in v.values]
            else:
                texts = [_csv_cell(_json_value(x, cfg)) for x in v.values]
            cols.append(("c", (_i64(v.codes), texts), jk, 0, 0, False))
        elif _is_array(v):
            cols.append(("f", _f64(v), jk, 0, 0, False))
        elif fmt == "json":
            cols.append(("l", json.dumps(_json_value(v, cfg), ensure_ascii=False, allow_nan=False), jk, 0, 0, False))
        else:
            cols.append(("l", _csv_cell(_json_value(v, cfg)), jk, 0, 0, False))
    if raw:
        return bytes(format_rows_bytes(fmt, chunk.n, cols, _zone(cfg)))
    return str(format_rows(fmt, chunk.n, cols, _zone(cfg)))


def render_text_rows(chunk: RowChunk, table: Table, raw: bool = False) -> Any:
    """The rows of a chunk as text lines (``Table.row`` each; UTF-8 bytes
    with ``raw``), or None when a column needs a formatter the native writer
    does not have."""
    from ztwin._native import format_rows, format_rows_bytes

    if chunk.n == 0:
        return b"" if raw else ""
    cols: list[tuple[str, Any, str, int, int, bool]] = []
    for c in table.columns:
        v = chunk.cols.get(c.key)
        left = c.left or c.dec is None
        if isinstance(v, Times):
            if getattr(c.fmt, "native", None) != "hms" or c.width < 8:
                return None
            cols.append(("t", _i64(v.us), "", c.width, 0, left))
        elif isinstance(v, Labels):
            cols.append(("c", (_i64(v.codes), [c.cell(x) for x in v.values]), "", c.width, 0, left))
        elif _is_array(v):
            if c.fmt is not None or c.dec is None:
                return None
            cols.append(("f", _f64(v), "", c.width, c.dec, c.left))
        else:
            cols.append(("l", c.cell(v), "", c.width, 0, left))
    if raw:
        return bytes(format_rows_bytes("text", chunk.n, cols, "Z", table.gap))
    return str(format_rows("text", chunk.n, cols, "Z", table.gap))
