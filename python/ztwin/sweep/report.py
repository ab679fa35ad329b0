"""``ztwin sweep report DIR``: per variant and metric the mean over seeds with
a 95% confidence interval (Student's t), charts of each metric against each
parameter (HTML, plotly), and the best variant for a goal."""

from __future__ import annotations

import html
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ztwin.sweep import store
from ztwin.sweep.spec import Goal, SweepError
from ztwin.units import parse_size

#: Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
_T975 = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
]  # fmt: skip


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError("df must be at least 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    # Cornish-Fisher expansion; within 0.001 of the exact value beyond 30.
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


@dataclass
class Stat:
    n: int
    mean: float | None
    std: float | None
    lo: float | None
    hi: float | None

    @classmethod
    def of(cls, values: list[float]) -> Stat:
        v = [x for x in values if x is not None and not math.isnan(x)]
        n = len(v)
        if n == 0:
            return cls(0, None, None, None, None)
        mean = math.fsum(v) / n
        if n == 1:
            return cls(1, mean, None, None, None)
        std = math.sqrt(math.fsum((x - mean) ** 2 for x in v) / (n - 1))
        half = t975(n - 1) * std / math.sqrt(n)
        return cls(n, mean, std, mean - half, mean + half)

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "mean": self.mean, "std": self.std, "ci95": None if self.lo is None else [self.lo, self.hi]}


@dataclass
class Point:
    index: int
    params: dict[str, Any]
    runs: int
    failed: int
    stats: dict[str, Stat] = field(default_factory=dict)
    texts: dict[str, str | None] = field(default_factory=dict)

    def label(self) -> str:
        return ", ".join(f"{k} = {_show(v)}" for k, v in self.params.items()) or "(base)"


def _show(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


@dataclass
class Summary:
    desc: dict[str, Any]
    keys: list[str]
    metrics: dict[str, str]
    numeric: list[str]
    points: list[Point]
    errors: list[tuple[str, int, str]]
    runs: int

    def best(self, goal: Goal) -> tuple[Point, Point | None] | None:
        """The point with the best mean for the goal, and the runner-up."""
        ok = [p for p in self.points if p.stats[goal.metric].mean is not None]
        if not ok:
            return None
        sign = 1 if goal.direction == "min" else -1
        ranked = sorted(ok, key=lambda p: (sign * p.stats[goal.metric].mean, p.index))  # type: ignore[operator]
        return ranked[0], ranked[1] if len(ranked) > 1 else None


def load_results(directory: str | Path) -> tuple[dict[str, Any], Any]:
    """The sweep's description and its results table (pyarrow)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = Path(directory)
    path = d / store.RESULTS
    if not d.is_dir():
        raise SweepError(f"{d}: not a directory (give the --out directory of ztwin sweep)")
    if not path.is_file():
        raise SweepError(f"{d}: no {store.RESULTS} (has ztwin sweep run into it?)")
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as e:
        raise SweepError(f"{path}: cannot read: {e}") from None
    meta = (table.schema.metadata or {}).get(b"ztwin.sweep")
    if meta is None:
        raise SweepError(f"{path}: not written by ztwin sweep (no sweep description in its metadata)")
    try:
        desc = json.loads(meta)
    except ValueError:
        desc = None
    params = desc.get("params") if isinstance(desc, dict) else None
    if not (
        isinstance(desc, dict)
        and isinstance(params, list)
        and all(isinstance(x, dict) and isinstance(x.get("key"), str) for x in params)
        and isinstance(desc.get("metrics"), dict)
    ):
        raise SweepError(f"{path}: its sweep description (metadata ztwin.sweep) is damaged")
    return desc, table


def summarize(desc: dict[str, Any], table: Any) -> Summary:
    keys = [p["key"] for p in desc["params"]]
    metrics = dict(desc["metrics"])
    rows = table.to_pylist()
    numeric = [m for m in metrics if str(table.schema.field(m).type) == "double"]
    by_point: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        by_point.setdefault(r["point"], []).append(r)
    points = []
    errors = []
    for idx in sorted(by_point):
        rs = by_point[idx]
        ok = [r for r in rs if not r["error"]]
        p = Point(idx, {k: rs[0][k] for k in keys}, len(rs), len(rs) - len(ok))
        for m in numeric:
            p.stats[m] = Stat.of([r[m] for r in ok])
        for m in metrics:
            if m not in numeric:
                common = Counter(r[m] for r in ok if r[m] is not None).most_common(1)
                p.texts[m] = common[0][0] if common else None
        points.append(p)
        errors += [(r["run_id"], r["seed"], r["error"]) for r in rs if r["error"]]
    return Summary(desc, keys, metrics, numeric, points, errors, len(rows))


def _fmt(v: float | None) -> str:
    if v is None:
        return "..."
    a = abs(v)
    if a >= 1e5:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.3f}"
    return f"{v:.4g}"


def _ci(s: Stat) -> str:
    if s.lo is None:
        return "(one seed)" if s.n == 1 else ""
    return f"{_fmt(s.lo)} .. {_fmt(s.hi)}"


def _best_lines(summary: Summary, goal: Goal | None) -> list[str]:
    if goal is None:
        return ["No goal: give one with --goal min:METRIC or max:METRIC, or [goal] in the sweep file."]
    if goal.metric not in summary.numeric:
        raise SweepError(f"goal {goal.label()}: no numeric metric {goal.metric!r} (metrics: {', '.join(summary.numeric)})")
    found = summary.best(goal)
    if found is None:
        return [f"Best for {goal.label()}: none (no run gave {goal.metric})"]
    best, second = found
    s = best.stats[goal.metric]
    lines = [f"Best for {goal.label()}: {best.label()}", f"  {goal.metric} = {_fmt(s.mean)}" + (f" (95% CI {_ci(s)}, {s.n} seeds)" if s.lo is not None else f" ({s.n} seed{'s' if s.n != 1 else ''})")]
    if second is not None:
        s2 = second.stats[goal.metric]
        lines.append(f"  next: {second.label()}: {_fmt(s2.mean)}" + (f" (95% CI {_ci(s2)})" if s2.lo is not None else ""))
        if s.lo is not None and s2.lo is not None and s.hi is not None and s2.hi is not None:
            overlap = s.lo <= s2.hi and s2.lo <= s.hi
            lines.append(
                "  their confidence intervals overlap: more seeds are needed to tell them apart"
                if overlap
                else "  their confidence intervals do not overlap"
            )
    return lines


def to_text(summary: Summary, goal: Goal | None) -> str:
    d = summary.desc
    win = d["window"]
    if win["from_s"] is None and win["to_s"] is None:
        span = "every complete sample interval of each run"
    else:
        to = "the end" if win["to_s"] is None else f"{win['to_s']:g} s"
        span = f"{win['from_s'] or 0:g} s to {to} after monitoring started"
    out = [
        f"ztwin sweep report: {d['name']} ({summary.runs} runs of {d['runs']}, {len(summary.points)} variants, seeds {', '.join(map(str, d['seeds']))})",
        f"Base scenario: {d['base']}" + (f", {d['duration_s']:g} s simulated" if d.get("duration_s") else ""),
        f"Window: {span}",
        "",
    ]
    widths = {k: max([len(k)] + [len(_show(p.params[k])) for p in summary.points]) for k in summary.keys}
    width = 8
    for m in summary.metrics:
        out.append(f"{m}: {summary.metrics[m]}" + ("" if m in summary.numeric else "  (most frequent value)"))
        head = "  ".join(f"{k:<{widths[k]}}" for k in summary.keys) or f"{'variant':<{width}}"
        if m in summary.numeric:
            out.append(f"  {head}  {'n':>2}  {'mean':>12}  {'95% CI':<24}")
        else:
            out.append(f"  {head}  value")
        for p in summary.points:
            vals = "  ".join(f"{_show(p.params[k]):<{widths[k]}}" for k in summary.keys) or f"{'(base)':<{width}}"
            if m in summary.numeric:
                s = p.stats[m]
                out.append(f"  {vals}  {s.n:>2}  {_fmt(s.mean):>12}  {_ci(s):<24}".rstrip())
            else:
                out.append(f"  {vals}  {p.texts[m] if p.texts[m] is not None else '...'}")
        out.append("")
    out += _best_lines(summary, goal)
    if summary.errors:
        out += ["", f"{len(summary.errors)} run(s) failed:"]
        out += [f"  {rid} seed {seed}: {err}" for rid, seed, err in summary.errors[:20]]
        if len(summary.errors) > 20:
            out.append(f"  ... and {len(summary.errors) - 20} more")
    return "\n".join(out) + "\n"


def to_json(summary: Summary, goal: Goal | None) -> dict[str, Any]:
    best = summary.best(goal) if goal is not None and goal.metric in summary.numeric else None
    return {
        "sweep": summary.desc,
        "points": [
            {"point": p.index, "params": p.params, "runs": p.runs, "failed": p.failed,
             "metrics": {m: p.stats[m].to_json() for m in summary.numeric} | {m: p.texts[m] for m in p.texts}}
            for p in summary.points
        ],  # fmt: skip
        "goal": None if goal is None else {"metric": goal.metric, "direction": goal.direction},
        "best": None if best is None else {"point": best[0].index, "params": best[0].params},
        "errors": [{"run_id": r, "seed": s, "error": e} for r, s, e in summary.errors],
    }


# --------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------

_CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table.results { border-collapse: collapse; font-size: 13px; }
table.results td, table.results th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
table.results th { background: #f0f0f0; }
tr.best td { background: #e6f4e6; font-weight: bold; }
.chart { width: 100%; max-width: 900px; height: 340px; }
pre { background: #f7f7f7; padding: 0.8em; }
"""


def _axis(values: list[Any]) -> tuple[list[Any], str]:
    """x values for a parameter and the axis type: numbers as they are, sizes
    as categories in size order, anything else as categories in sweep order."""
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return sorted(set(values)), "linear"
    uniq = list(dict.fromkeys(_show(v) for v in values))
    try:
        uniq.sort(key=parse_size)
    except ValueError:
        pass
    return uniq, "category"


def _half_width(s: Stat) -> float | None:
    return None if s.lo is None or s.mean is None else s.mean - s.lo


#: Most lines in one chart; beyond, the variants are drawn as one scatter.
MAX_TRACES = 12


def _charts(summary: Summary) -> list[str]:
    import plotly.graph_objects as go  # type: ignore[import-untyped]

    out: list[str] = []
    n = 0
    kinds = {p["key"]: p.get("kind", "values") for p in summary.desc["params"]}
    for m in summary.numeric:
        for key in summary.keys:
            xs, axis = _axis([p.params[key] for p in summary.points])
            # A line per combination of the other grid parameters (sampled ones
            # vary continuously: their points are a scatter); one trace if too many.
            others = [k for k in summary.keys if k != key and kinds.get(k) != "sample"]
            groups: dict[str, list[Point]] = {}
            for p in summary.points:
                label = ", ".join(f"{k}={_show(p.params[k])}" for k in others) or m
                groups.setdefault(label, []).append(p)
            if len(groups) > MAX_TRACES:
                groups = {f"{m} (all variants)": list(summary.points)}
            scatter = any(kinds.get(k) == "sample" for k in summary.keys)
            traces = []
            for label, pts in groups.items():
                pts = sorted(pts, key=lambda p: xs.index(p.params[key] if axis == "linear" else _show(p.params[key])))
                x = [p.params[key] if axis == "linear" else _show(p.params[key]) for p in pts]
                y = [p.stats[m].mean for p in pts]
                err = [_half_width(p.stats[m]) for p in pts]
                traces.append(
                    go.Scatter(
                        x=x, y=y, name=label, mode="markers" if scatter else "lines+markers",
                        error_y={"type": "data", "array": [e if e is not None else 0 for e in err], "visible": any(e is not None for e in err)},
                    )
                )  # fmt: skip
            fig = go.Figure(
                data=traces,
                layout={
                    "title": {"text": f"{m} against {key}"},
                    "xaxis": {"title": {"text": key}, "type": axis, **({"categoryorder": "array", "categoryarray": xs} if axis == "category" else {})},
                    "yaxis": {"title": {"text": f"{m} (mean, 95% CI)"}},
                    "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
                    "showlegend": len(traces) > 1,
                },
            )
            out.append(
                fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"chart-{n}", default_height="340px",
                            config={"displaylogo": False, "responsive": True})
            )  # fmt: skip
            n += 1
    return out


def to_html(summary: Summary, goal: Goal | None) -> str:
    d = summary.desc
    best = summary.best(goal) if goal is not None and goal.metric in summary.numeric else None
    head = "".join(f"<th>{html.escape(k)}</th>" for k in summary.keys) + "<th>runs</th>"
    head += "".join(f"<th>{html.escape(m)}<br><small>mean [95% CI]</small></th>" for m in summary.numeric)
    rows = []
    for p in summary.points:
        cls = ' class="best"' if best is not None and best[0] is p else ""
        cells = "".join(f"<td>{html.escape(_show(p.params[k]))}</td>" for k in summary.keys)
        cells += f"<td>{p.runs - p.failed}/{p.runs}</td>"
        for m in summary.numeric:
            s = p.stats[m]
            ci = f" [{_ci(s)}]" if s.lo is not None else ""
            cells += f"<td>{_fmt(s.mean)}{html.escape(ci)}</td>"
        rows.append(f"<tr{cls}>{cells}</tr>")
    charts = _charts(summary)
    best_text = "\n".join(_best_lines(summary, goal))
    metric_list = "".join(f"<li><code>{html.escape(m)}</code> = <code>{html.escape(t)}</code></li>" for m, t in summary.metrics.items())
    body = [
        f"<h1>Sweep {html.escape(d['name'])}</h1>",
        f"<p>{html.escape(d.get('description') or '')}</p>",
        f"<p>Base scenario <code>{html.escape(d['base'])}</code>; {summary.runs} runs of {d['runs']}; "
        f"seeds {html.escape(', '.join(map(str, d['seeds'])))}.</p>",
        f"<ul>{metric_list}</ul>",
        f'<table class="results"><tr>{head}</tr>\n' + "\n".join(rows) + "</table>",
        f'<pre class="best">{html.escape(best_text)}</pre>',
        *_text_tables(summary),
        '<div class="charts">' + "".join(f'<div class="chart-box">{c}</div>' for c in charts) + "</div>",
    ]
    if summary.errors:
        body.append("<h2>Failed runs</h2><pre>" + html.escape("\n".join(f"{r} seed {s}: {e}" for r, s, e in summary.errors)) + "</pre>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>Sweep {html.escape(d['name'])}</title>\n<style>{_CSS}</style>\n"
        f'<script src="{store.PLOTLY_JS}" charset="utf-8"></script>\n</head>\n<body>\n' + "\n".join(body) + "\n</body>\n</html>\n"
    )


def _text_tables(summary: Summary) -> list[str]:
    """Text metrics (the advisor's findings): the most frequent value per variant."""
    out = []
    for m in summary.metrics:
        if m in summary.numeric:
            continue
        head = "".join(f"<th>{html.escape(k)}</th>" for k in summary.keys)
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(_show(p.params[k]))}</td>" for k in summary.keys)
            + f'<td style="text-align:left">{html.escape(p.texts[m] or "...")}</td></tr>'
            for p in summary.points
        )  # fmt: skip
        out.append(f"<h2>{html.escape(m)} (most frequent value)</h2>"
                   f'<table class="results text"><tr>{head}<th>{html.escape(m)}</th></tr>{rows}</table>')  # fmt: skip
    return out


def write_html(summary: Summary, goal: Goal | None, out_dir: str | Path) -> Path:
    return store.write_html_dir(out_dir, {"index.html": to_html(summary, goal)}, True, "ztwin sweep report")


def goal_from(desc: dict[str, Any], text: str | None, numeric: list[str]) -> Goal | None:
    """The goal from --goal, else the sweep file's."""
    from ztwin.sweep.metrics import Metric

    metrics = {m: Metric(m, report="x" if m in numeric else None) for m in desc["metrics"]}
    if text:
        return Goal.parse(text, metrics)
    g = desc.get("goal")
    return None if g is None else Goal(g["metric"], g["direction"])
