"""HTML pages: an index and one page per report, with interactive time charts
(plotly) for the by-time reports.

The plotly.js bundle that the plotly package ships is written once into the
directory as ``plotly.min.js`` and every page loads it from there, so the pages
work offline. The directory is written through :class:`ztwin.safeout.OutputDir`:
only a new or empty directory, or one ztwin wrote before (its
``.ztwin-output`` marker), is used; the pages are built in a staging directory
and moved in at the end, so an error leaves nothing half-written; files the user
added to the directory are kept, and only ztwin's own files are replaced or
removed.
"""

from __future__ import annotations

import html
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ztwin.reports.text import render, run_time
from ztwin.safeout import OutputDir

if TYPE_CHECKING:
    from ztwin.reports.model import Report

#: Longer series are drawn as lines only.
MARKERS_UP_TO = 300
PLOTLY_JS = "plotly.min.js"

_CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
pre { font-family: monospace; font-size: 12px; background: #f7f7f7; padding: 0.8em; overflow-x: auto; }
.chart { width: 100%; max-width: 1100px; height: 340px; }
nav a { margin-right: 1em; }
table.index td { padding: 0.2em 0.8em; }
"""


def _page(title: str, body: str, with_plotly: bool) -> str:
    script = f'<script src="{PLOTLY_JS}" charset="utf-8"></script>\n' if with_plotly else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n{script}</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


def page_name(rep: Report) -> str:
    return f"{rep.name.lower()}.html"


def _charts(rep: Report) -> list[str]:
    """Chart snippets (a div and a script each) of a by-time report."""
    if rep.time_key is None or not rep.charts:
        return []
    import plotly.graph_objects as go  # type: ignore[import-untyped]

    keys = list(dict.fromkeys(k for c in rep.charts for k in c.keys))
    tkey = rep.time_key
    # one pass over the rows: per group, the times and the charted columns
    groups: list[tuple[Any, list[str], dict[str, list[Any]]]] = []
    for _, rows in rep.grouped_rows():
        x: list[str] = []
        cols: dict[str, list[Any]] = {k: [] for k in keys}
        who = None
        for r in rows:
            who = r.get(rep.group_key) if rep.group_key else None
            t = r.get(tkey)
            if not isinstance(t, datetime):
                continue
            x.append(t.strftime("%Y-%m-%d %H:%M:%S"))
            for k in keys:
                cols[k].append(r.get(k))
        if x:
            groups.append((who, x, cols))
    out = []
    for i, chart in enumerate(rep.charts):
        traces = []
        for who, x, cols in groups:
            for key in chart.keys:
                name = f"{who} {key}" if who and len(groups) > 1 else key
                mode = "lines+markers" if len(x) <= MARKERS_UP_TO else "lines"
                traces.append(go.Scatter(x=x, y=cols[key], mode=mode, name=name))
        if not traces:
            continue
        fig = go.Figure(
            data=traces,
            layout={
                "title": {"text": chart.title},
                "xaxis": {"title": {"text": "Interval end"}},
                "yaxis": {"title": {"text": chart.unit}, "rangemode": "tozero"},
                "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
                "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
            },
        )
        out.append(
            fig.to_html(
                full_html=False,
                include_plotlyjs=False,
                div_id=f"chart-{i}",
                default_height="340px",
                config={"displaylogo": False, "responsive": True},
            )
        )
    return out


def report_page(rep: Report, when: datetime, nav: str) -> str:
    charts = _charts(rep)
    title = f"{rep.fcx} {rep.label}"
    parts = [nav, f"<h1>{html.escape(title)}: {html.escape(rep.title)}</h1>"]
    if charts:
        parts.append('<div class="charts">')
        parts += [f'<div class="chart-box">{c}</div>' for c in charts]
        parts.append("</div>")
    parts.append(f"<pre class=\"report\">{html.escape(render(rep, when))}</pre>")
    return _page(title, "\n".join(parts), bool(charts))


def index_page(reports: dict[str, Report], source: str, when: datetime) -> str:
    rows = []
    for rep in reports.values():
        span = ""
        if rep.start and rep.end:
            span = f"{rep.start:%Y/%m/%d %H:%M:%S} to {rep.end:%H:%M:%S}"
        kind = "time charts" if rep.time_key and rep.charts else ""
        rows.append(
            f'<tr><td>{rep.fcx}</td><td><a href="{page_name(rep)}">{html.escape(rep.label)}</a></td>'
            f"<td>{html.escape(rep.title)}</td><td>{span}</td><td>{kind}</td></tr>"
        )
    body = (
        f"<h1>ztwin report</h1>\n<p>File: <code>{html.escape(source)}</code><br>"
        f"Run {when:%Y/%m/%d %H:%M:%S}</p>\n<table class=\"index\">\n" + "\n".join(rows) + "\n</table>"
    )
    return _page("ztwin report", body, False)


def write_html(
    reports: dict[str, Report],
    out_dir: str | os.PathLike[str] | OutputDir,
    source: str,
    when: datetime | None = None,
) -> Path:
    """Write the index and report pages into ``out_dir``.

    ``out_dir`` is a path or an :class:`~ztwin.safeout.OutputDir` the caller
    checked before reading the file; a path is checked here. Raises
    :class:`~ztwin.safeout.OutputError` for a directory ztwin must not write.
    """
    import plotly.offline  # type: ignore[import-untyped]

    when = when or run_time()
    out = out_dir if isinstance(out_dir, OutputDir) else OutputDir(out_dir, owner="ztwin report", inputs=[source])
    with out:
        stage = out.stage
        (stage / PLOTLY_JS).write_text(plotly.offline.get_plotlyjs(), encoding="utf-8")
        links = " ".join(f'<a href="{page_name(r)}">{html.escape(r.label)}</a>' for r in reports.values())
        nav = f'<nav><a href="index.html">Index</a> {links}</nav>'
        for rep in reports.values():
            (stage / page_name(rep)).write_text(report_page(rep, when, nav), encoding="utf-8")
        (stage / "index.html").write_text(index_page(reports, source, when), encoding="utf-8")
        return out.commit()
