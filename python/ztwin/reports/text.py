"""Performance Toolkit style text: the FCX header, column headings, numbers.

Numbers follow Perfkit's habits: no leading zero before the decimal point
(``.2``), fewer decimals when a value does not fit its column, then a ``k`` or
``M`` suffix (``1027k``); a figure the data cannot give is shown as dots.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ztwin.reports.model import Report

NA = "..."
RULE_WIDTH = 100


def fmt_num(v: Any, dec: int, width: int) -> str:
    """A number in at most ``width`` characters, Perfkit style."""
    if v is None:
        return NA
    if isinstance(v, bool):
        return "Yes" if v else "No"
    if not isinstance(v, int | float):
        return str(v)[:width]
    x = float(v)
    d = dec
    while True:
        s = f"{x:.{d}f}"
        if d > 0:
            if s.startswith("0."):
                s = s[1:]
            elif s.startswith("-0."):
                s = "-" + s[2:]
        if len(s) <= width or d == 0:
            break
        d -= 1
    if len(s) <= width:
        return s
    for div, suffix in ((1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T")):
        s = f"{x / div:.0f}{suffix}"
        if len(s) <= width:
            return s
    return "*" * width


def fmt_time(v: Any) -> str:
    return v.strftime("%H:%M:%S") if isinstance(v, datetime) else str(v)


@dataclass
class Column:
    """One report column: the row key, heading lines (top to bottom), width,
    decimals (None: text, left-aligned) and an optional formatter."""

    key: str
    heads: Sequence[str]
    width: int
    dec: int | None = 1
    fmt: Callable[[Any], str] | None = None
    left: bool = False

    def cell(self, v: Any) -> str:
        if self.fmt is not None:
            s = self.fmt(v)
        elif self.dec is None:
            s = NA if v is None else str(v)
        else:
            s = fmt_num(v, self.dec, self.width)
        s = s[: self.width] if len(s) > self.width and self.dec is None else s
        return s.ljust(self.width) if self.left or self.dec is None else s.rjust(self.width)


@dataclass
class Group:
    """A heading that spans columns ``first``..``last``: ``<--- label --->``."""

    label: str
    first: str
    last: str


@dataclass
class Table:
    columns: list[Column]
    groups: list[Group] = field(default_factory=list)
    gap: int = 1

    def _positions(self) -> dict[str, tuple[int, int]]:
        pos: dict[str, tuple[int, int]] = {}
        x = 0
        for c in self.columns:
            pos[c.key] = (x, x + c.width)
            x += c.width + self.gap
        return pos

    def heading(self) -> list[str]:
        lines: list[str] = []
        if self.groups:
            pos = self._positions()
            line = ""
            for g in self.groups:
                if g.first not in pos or g.last not in pos:
                    continue
                a, b = pos[g.first][0], pos[g.last][1]
                w = b - a
                inner = f" {g.label} " if w - 2 >= len(g.label) + 2 else g.label[: max(0, w - 2)]
                label = "<" + inner.center(w - 2, "-") + ">" if w >= 2 else g.label[:w]
                line = line.ljust(a) + label
            lines.append(line.rstrip())
        depth = max(len(c.heads) for c in self.columns)
        for i in range(depth):
            parts = []
            for c in self.columns:
                heads = [""] * (depth - len(c.heads)) + list(c.heads)
                h = heads[i]
                parts.append(h.ljust(c.width) if c.left or c.dec is None else h.rjust(c.width))
            lines.append((" " * self.gap).join(parts).rstrip())
        return lines

    def row(self, row: dict[str, Any]) -> str:
        return (" " * self.gap).join(c.cell(row.get(c.key)) for c in self.columns).rstrip()


def run_time() -> datetime:
    """When the report was made: now, or SOURCE_DATE_EPOCH (reproducible output)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), UTC).replace(tzinfo=None)
    return datetime.now().replace(microsecond=0)


def header(rep: Report, when: datetime) -> list[str]:
    """The FCX header: report number, run time, name and title, From / To / For,
    and on the right the system, processor and z/VM level."""
    cfg = rep.config
    name = ("INTERIM " if rep.interim else "") + rep.label + (f" {rep.subject}" if rep.subject else "")
    right = [
        cfg.system_id or "",
        "CPU " + "-".join(x for x in (cfg.machine_type, cfg.machine_model) if x) if cfg.machine_type else "",
        f"z/VM    V.{cfg.cp_level}" if cfg.cp_level else "",
    ]
    left = [
        f"{rep.fcx:<8}Run {when:%Y/%m/%d %H:%M:%S}",
        "",
        f"From {rep.start:%Y/%m/%d %H:%M:%S}" if rep.start else "From ...",
        f"To   {rep.end:%Y/%m/%d %H:%M:%S}" if rep.end else "To   ...",
    ]
    if rep.start and rep.end:
        secs = round((rep.end - rep.start).total_seconds())
        left.append(f"For {secs:>6} Secs {secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}")
    else:
        left.append("For    ... Secs")
    middle = [name, rep.title, "", "", "Result of ztwin report"]
    lines = []
    for i in range(5):
        r = right[i - 2] if i >= 2 else ""
        line = left[i].ljust(40) + middle[i]
        if r:
            line = line.ljust(76) + r
        lines.append(line.rstrip())
    lines.append("_" * RULE_WIDTH)
    return lines


def write_text(rep: Report, out: TextIO, when: datetime | None = None) -> None:
    """The whole text report, written line by line (rows streamed)."""
    when = when or run_time()

    def put(line: str) -> None:
        out.write(line + "\n")

    for line in header(rep, when):
        put(line)
    put("")
    for line in rep.pre_lines:
        put(line)
    if rep.table is not None:
        if rep.pre_lines:
            put("")
        _write_table(rep, rep.table, put, out)
    if rep.post_lines:
        put("")
        for line in rep.post_lines:
            put(line)


_NO_GROUP = object()


def _write_table(rep: Report, table: Table, put: Callable[[str], None], out: TextIO) -> None:
    """The table's heading and rows, a block per ``group_key`` value (a
    subtitle before each when the report groups its rows); column chunks of
    rows are written natively."""
    from ztwin.reports.model import RowChunk, chunk_writer, render_text_rows

    raw = chunk_writer(out)
    write = raw or out.write

    heading = table.heading()
    key = rep.group_key
    state: dict[str, Any] = {"group": _NO_GROUP, "groups": 0, "rows": False}

    def start(value: Any) -> None:
        if key is not None and value == state["group"]:
            return
        if key is None and state["groups"]:
            return
        subtitle = "" if key is None else rep.group_title.format(value)
        if subtitle:
            if state["groups"]:
                put("")
            put(subtitle)
            put("")
        for line in heading:
            put(line)
        state["group"] = value
        state["groups"] += 1

    if key is None:
        start(None)
    for block in rep.row_blocks():
        if isinstance(block, RowChunk):
            same, value = block.constant(key) if key is not None else (True, None)
            text = render_text_rows(block, table, raw=raw is not None) if same else None
            if text is not None:
                if block.n:
                    start(value)
                    state["rows"] = True
                    write(text)
                continue
            block = list(block.dicts())
        for row in block:
            start(row.get(key) if key is not None else None)
            state["rows"] = True
            put(table.row(row))
    if not state["rows"]:
        put("(no data in the selected period)")


def render(rep: Report, when: datetime | None = None) -> str:
    """The whole text report as a string."""
    buf = io.StringIO()
    write_text(rep, buf, when)
    return buf.getvalue()


def kv_lines(items: Sequence[tuple[str, Any]], width: int = 38) -> list[str]:
    """``Label ........ value`` lines; :func:`section` items start a section."""
    lines: list[str] = []
    for label, value in items:
        if value is _SECTION:
            if lines:
                lines.append("")
            lines.append(label)
            continue
        text = NA if value is None else str(value)
        lines.append(f"  {(label + ' ').ljust(width, '.')} {text}")
    return lines


_SECTION = object()


def section(title: str) -> tuple[str, Any]:
    return (title, _SECTION)
