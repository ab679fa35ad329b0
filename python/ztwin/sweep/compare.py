"""``ztwin compare A B``: the same reports of two runs side by side, each
figure of A next to B with the difference, and the differences marked.

Rows are matched by their label (the report's first column: ``>>Mean>>``, a
user ID, a device number); by-time reports compare their ``>>Mean>>`` line
unless ``intervals`` is asked for, then also interval by interval (the n-th
interval of A against the n-th of B, so runs that started at different times
compare). A figure is marked ``*`` when it differs by at least the threshold
(percent of A; any change when A is zero), ``+``/``-`` when a row is only in
B/A.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ztwin.sweep import store

if TYPE_CHECKING:
    from collections.abc import Callable

#: What ``ztwin compare`` shows without -r.
DEFAULT_REPORTS = ["SYSCONF", "SYSSUMLG", "CPU", "STORAGE", "PAGELOG", "USTAT", "UPAGE", "DEVICE", "CPOWNED"]
DEFAULT_THRESHOLD_PCT = 5.0


class CompareError(Exception):
    pass


@dataclass
class Cell:
    row: str
    column: str
    a: Any
    b: Any
    diff: float | None
    pct: float | None
    mark: str


@dataclass
class Section:
    name: str
    fcx: str
    title: str
    cells: list[Cell]
    charts: list[tuple[str, str, list[tuple[float, Any]], list[tuple[float, Any]]]]

    @property
    def marked(self) -> int:
        return sum(1 for c in self.cells if c.mark)


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v))


def _label(v: Any, key: str, rep: Any, idx: int) -> str:
    if rep.time_key is not None and key == rep.time_key and not (isinstance(v, str) and v.startswith(">")):
        return f"interval {idx}"
    return str(v)


def _rows(rep: Any, intervals: bool) -> dict[str, dict[str, Any]]:
    key = rep.keys[0]
    out: dict[str, dict[str, Any]] = {}
    n = 0
    for r in rep.rows:
        v = r.get(key)
        summary = isinstance(v, str) and v.startswith(">")
        if rep.time_key is not None and not summary:
            n += 1
            if not intervals:
                continue
        label = _label(v, key, rep, n)
        if rep.group_key and rep.group_key != key:
            label = f"{r.get(rep.group_key)} {label}"
        out.setdefault(label, r)
    return out


def _skip_column(rep: Any, col: str) -> bool:
    return col in (rep.keys[0], rep.time_key, "interval_start", "interval_end")


def compare_reports(a: Any, b: Any, threshold_pct: float, intervals: bool) -> Section:
    ra, rb = _rows(a, intervals), _rows(b, intervals)
    cells: list[Cell] = []
    labels = list(ra) + [k for k in rb if k not in ra]
    for label in labels:
        x, y = ra.get(label), rb.get(label)
        if x is None or y is None:
            cells.append(Cell(label, "(row)", "present" if x else "absent", "present" if y else "absent", None, None, "+" if x is None else "-"))
            continue
        for col in a.keys:
            if _skip_column(a, col):
                continue
            va, vb = x.get(col), y.get(col)
            if isinstance(va, int | float) and isinstance(vb, int | float) and _num(va) and _num(vb):
                diff = float(vb) - float(va)
                pct = None if va == 0 else 100.0 * diff / abs(float(va))
                changed = diff != 0 and (pct is None or abs(pct) >= threshold_pct)
                cells.append(Cell(label, col, va, vb, diff, pct, "*" if changed else ""))
            else:
                sa, sb = _plain(va), _plain(vb)
                cells.append(Cell(label, col, sa, sb, None, None, "*" if sa != sb else ""))
    charts = []
    if a.time_key is not None and a.charts:
        for chart in a.charts:
            for key in chart.keys:
                charts.append((f"{chart.title}: {key}", chart.unit, _series(a, key), _series(b, key)))
    return Section(a.name, a.fcx, a.title, cells, charts)


def _plain(v: Any) -> Any:
    if v is None or isinstance(v, str | int | float | bool):
        return v
    if isinstance(v, list | tuple):
        return ", ".join(str(x) for x in v)
    return str(v)


def _series(rep: Any, key: str) -> list[tuple[float, Any]]:
    """(seconds since the first interval's start, value) of a by-time report."""
    out = []
    t0 = None
    for r in rep.rows:
        t = r.get(rep.time_key)
        if not isinstance(t, datetime):
            continue
        if t0 is None:
            s = r.get("interval_start")
            t0 = s if isinstance(s, datetime) else t
        out.append(((t - t0).total_seconds(), r.get(key)))
    return out


def compare(
    a: str | Path,
    b: str | Path,
    names: list[str] | None = None,
    start: str | None = None,
    end: str | None = None,
    threshold_pct: float = DEFAULT_THRESHOLD_PCT,
    intervals: bool = False,
    on_damage: Callable[[str], object] | None = None,
) -> list[Section]:
    """Build the reports of both files over the same window and compare them.
    ``on_damage`` is told of each file whose read skipped damaged byte ranges
    ("PATH: N damaged span(s) skipped ..."), as ``ztwin report`` warns."""
    from ztwin.monitor import MonwriteError, damage_text
    from ztwin.reports import ReportError, build_from, collect, resolve_names

    try:
        chosen = resolve_names(names or DEFAULT_REPORTS)
    except ReportError as e:
        raise CompareError(str(e)) from None
    chosen = [n for n in chosen if n not in ("USTATLOG", "UPAGELOG")] or chosen
    built = []
    for path in (a, b):
        if Path(path).is_dir():
            raise CompareError(f"cannot open {path}: Is a directory")
        try:
            iv = collect(path, start, end)
        except MonwriteError as e:
            raise CompareError(f"{path}: offset {e.offset} (X'{e.offset:X}'): {e.reason}") from None
        except ReportError as e:
            raise CompareError(f"{path}: {e}") from None
        except OSError as e:
            raise CompareError(f"cannot open {path}: {e.strerror or e}") from None
        damage = damage_text(iv.stats)
        if not iv.intervals:
            raise CompareError(f"{path}: no complete sample interval" + (" between --from and --to" if start or end else "")
                               + (f"; {damage}" if damage else ""))  # fmt: skip
        if damage and on_damage is not None:
            on_damage(f"{path}: {damage}")
        built.append(build_from(iv, chosen))
    return [compare_reports(built[0][n], built[1][n], threshold_pct, intervals) for n in chosen]


def _f(v: Any) -> str:
    if v is None:
        return "..."
    if isinstance(v, bool):
        return "Yes" if v else "No"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        a = abs(v)
        return f"{v:,.0f}" if a >= 1e5 else f"{v:.1f}" if a >= 100 else f"{v:.3f}" if a >= 1 else f"{v:.4g}"
    return str(v)


def to_text(sections: list[Section], a: str, b: str, threshold_pct: float, changed_only: bool) -> str:
    out = [f"ztwin compare: A = {a}", f"               B = {b}",
           f"Marked: * a figure that differs by {threshold_pct:g}% or more (of A); + a row only in B, - a row only in A", ""]  # fmt: skip
    for s in sections:
        out.append(f"{s.fcx} {s.name}: {s.title}  ({s.marked} marked)")
        cells = [c for c in s.cells if c.mark] if changed_only else s.cells
        if not cells:
            out.append("  (no differences)" if changed_only else "  (no rows)")
            out.append("")
            continue
        wr = max(len("ROW"), *(len(c.row) for c in cells))
        wc = max(len("FIGURE"), *(len(c.column) for c in cells))
        out.append(f"  {'ROW':<{wr}}  {'FIGURE':<{wc}}  {'A':>14}  {'B':>14}  {'B-A':>12}  {'%':>8}")
        for c in cells:
            pct = "" if c.pct is None else f"{c.pct:+.1f}%"
            diff = "" if c.diff is None else _f(c.diff)
            out.append(f"{c.mark or ' ':1} {c.row:<{wr}}  {c.column:<{wc}}  {_f(c.a):>14}  {_f(c.b):>14}  {diff:>12}  {pct:>8}".rstrip())
        out.append("")
    return "\n".join(out)


_CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table.cmp { border-collapse: collapse; font-size: 13px; margin-bottom: 1.5em; }
table.cmp td, table.cmp th { border: 1px solid #ccc; padding: 0.15em 0.6em; }
table.cmp td.n { text-align: right; font-family: monospace; }
table.cmp th { background: #f0f0f0; }
tr.diff td { background: #fde8e8; }
tr.diff td.mark { color: #b00; font-weight: bold; }
.chart { width: 100%; max-width: 900px; height: 300px; }
"""


def to_html(sections: list[Section], a: str, b: str, threshold_pct: float) -> str:
    import plotly.graph_objects as go  # type: ignore[import-untyped]

    parts = [f"<h1>ztwin compare</h1><p>A = <code>{html.escape(a)}</code><br>B = <code>{html.escape(b)}</code></p>",
             f"<p>Rows in red differ by {threshold_pct:g}% or more of A (or only one run has them).</p>", "<ul>"]  # fmt: skip
    parts += [f'<li><a href="#{s.name.lower()}">{s.fcx} {html.escape(s.name)}</a>: {s.marked} marked</li>' for s in sections]
    parts.append("</ul>")
    n = 0
    for s in sections:
        parts.append(f'<h2 id="{s.name.lower()}">{s.fcx} {html.escape(s.name)}: {html.escape(s.title)}</h2>')
        for title, unit, sa, sb in s.charts:
            fig = go.Figure(
                data=[
                    go.Scatter(x=[t for t, _ in sa], y=[v for _, v in sa], name="A", mode="lines+markers"),
                    go.Scatter(x=[t for t, _ in sb], y=[v for _, v in sb], name="B", mode="lines+markers"),
                ],
                layout={"title": {"text": title}, "xaxis": {"title": {"text": "seconds after the first interval started"}},
                        "yaxis": {"title": {"text": unit}, "rangemode": "tozero"}, "margin": {"l": 60, "r": 20, "t": 50, "b": 50}},
            )  # fmt: skip
            parts.append(fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"chart-{n}", default_height="300px",
                                     config={"displaylogo": False, "responsive": True}))  # fmt: skip
            n += 1
        rows = []
        for c in s.cells:
            pct = "" if c.pct is None else f"{c.pct:+.1f}%"
            cls = ' class="diff"' if c.mark else ""
            rows.append(
                f"<tr{cls}><td class=\"mark\">{html.escape(c.mark)}</td><td>{html.escape(c.row)}</td><td>{html.escape(c.column)}</td>"
                f'<td class="n">{html.escape(_f(c.a))}</td><td class="n">{html.escape(_f(c.b))}</td>'
                f'<td class="n">{"" if c.diff is None else html.escape(_f(c.diff))}</td><td class="n">{pct}</td></tr>'
            )
        parts.append('<table class="cmp"><tr><th></th><th>row</th><th>figure</th><th>A</th><th>B</th><th>B-A</th><th>%</th></tr>'
                     + "\n".join(rows) + "</table>")  # fmt: skip
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>ztwin compare</title>\n'
        f'<style>{_CSS}</style>\n<script src="{store.PLOTLY_JS}" charset="utf-8"></script>\n</head>\n<body>\n'
        + "\n".join(parts) + "\n</body>\n</html>\n"
    )


def write_html(sections: list[Section], a: str, b: str, threshold_pct: float, out_dir: str | Path) -> Path:
    return store.write_html_dir(out_dir, {"index.html": to_html(sections, a, b, threshold_pct)}, True, "ztwin compare")
