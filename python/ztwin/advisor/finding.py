"""Findings and their evidence, rendered as text or JSON."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ztwin.advisor.rules import SEVERITIES

if TYPE_CHECKING:
    from ztwin.advisor.facts import Interval, Period

#: Reports the evidence cites: name -> FCX number.
FCX = {
    "SYSSUMLG": "FCX225", "CPU": "FCX100", "LPAR": "FCX126", "USTAT": "FCX114", "USTATLOG": "FCX164",
    "UPAGE": "FCX113", "DEVICE": "FCX108", "CPOWNED": "FCX109", "STORAGE": "FCX103", "PAGELOG": "FCX143",
    "AVAILLOG": "FCX254", "SYSCONF": "FCX180", "CACHEXT": "FCX177", "CHANNEL": "FCX161", "VDISKS": "FCX147",
    "MDCACHE": "FCX134", "QDIO": "FCX251", "AGELLOG": "ZTWIN",
}  # fmt: skip


def rank(severity: str) -> int:
    return SEVERITIES.index(severity)


@dataclass
class Evidence:
    """What triggered a finding: a report, the intervals in which the condition
    held (``held``) out of those judged (``of``), a one-line summary and rows
    with the report's key names."""

    report: str
    summary: str
    held: Sequence[Interval] = ()
    of: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self, period: Period) -> dict[str, Any]:
        out: dict[str, Any] = {"report": self.report, "fcx": FCX.get(self.report), "summary": self.summary}
        if self.of:
            out["intervals"] = {
                "held": len(self.held),
                "of": self.of,
                "first": period.iso(self.held[0].start) if self.held else None,
                "last": period.iso(self.held[-1].end) if self.held else None,
                "ends": [period.iso(i.end) for i in self.held],
            }
        out["rows"] = [{k: _json_value(v, period) for k, v in r.items()} for r in self.rows]
        return out


@dataclass
class Finding:
    id: str
    severity: str
    title: str
    evidence: list[Evidence]
    explanation: str
    recommendation: str
    #: Order among findings of the same severity (lower first): root causes first.
    order: int = 50
    #: Ids of findings this one explains (dropped from the output when both fire).
    subsumes: tuple[str, ...] = ()

    def to_json(self, period: Period) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity,
            "title": self.title,
            "evidence": [e.to_json(period) for e in self.evidence],
            "explanation": self.explanation,
            "recommendation": self.recommendation,
        }


def _json_value(v: Any, period: Period) -> Any:
    if isinstance(v, float):
        return round(v, 6) if math.isfinite(v) else None
    if isinstance(v, datetime):
        return period.iso(v)
    return v


# --------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------

WIDTH = 100


def _fmt_cell(v: Any) -> str:
    if v is None:
        return "..."
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        a = abs(v)
        if a >= 1000:
            return f"{v:,.0f}"
        if a >= 100:
            return f"{v:.0f}"
        if a >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}"
    if isinstance(v, datetime):
        return v.strftime("%H:%M:%S")
    return str(v)


def table_lines(rows: list[dict[str, Any]], indent: str, limit: int = 12) -> list[str]:
    if not rows:
        return []
    keys: list[str] = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    shown = rows[:limit]
    cells = [[_fmt_cell(r.get(k)) for k in keys] for r in shown]
    widths = [max(len(k), *(len(c[i]) for c in cells)) for i, k in enumerate(keys)]
    lines = [indent + "  ".join(k.rjust(w) for k, w in zip(keys, widths, strict=True))]
    for c in cells:
        lines.append(indent + "  ".join(v.rjust(w) for v, w in zip(c, widths, strict=True)))
    if len(rows) > limit:
        lines.append(f"{indent}... and {len(rows) - limit} more (see --json)")
    return lines


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent) or [indent]


def _held_text(e: Evidence) -> str:
    if not e.of:
        return ""
    if not e.held:
        return f", 0 of {e.of} intervals"
    first, last = e.held[0], e.held[-1]
    return f", {len(e.held)} of {e.of} intervals ({first.start:%H:%M:%S}-{last.end:%H:%M:%S})"


def render_text(findings: Sequence[Finding], period: Period, header: Sequence[str]) -> str:
    out: list[str] = list(header)
    counts = {s: sum(1 for f in findings if f.severity == s) for s in reversed(SEVERITIES)}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    out.append("")
    out.append(f"{len(findings)} finding{'s' if len(findings) != 1 else ''}" + (f": {summary}" if summary else ""))
    for n, f in enumerate(findings, 1):
        out.append("")
        out.append(f"{n}. {f.severity.upper()}  {f.id}: {f.title}")
        out.append("   Evidence:")
        for e in f.evidence:
            fcx = FCX.get(e.report)
            head = f"{e.report} ({fcx})" if fcx else e.report
            out += textwrap.wrap(
                f"- {head}{_held_text(e)}: {e.summary}", WIDTH, initial_indent="     ", subsequent_indent="       "
            )
            out += table_lines(e.rows, "       ")
        out.append("   Explanation:")
        out += _wrap(f.explanation, "     ")
        out.append("   Recommendation:")
        out += _wrap(f.recommendation, "     ")
    return "\n".join(out) + "\n"
