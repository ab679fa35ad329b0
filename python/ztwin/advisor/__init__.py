"""The advisor: walks the experts' checklists (the case studies in
``shared/seeds``) over every sample interval of a MONWRITE file and reports
findings, most important first (``ztwin diagnose``; docs/advisor.md).

>>> from ztwin.advisor import diagnose                       # doctest: +SKIP
>>> d = diagnose("day.monwrite", start="10:00", end="11:00")
>>> [(f.id, f.severity) for f in d.findings]
>>> print(d.to_text())

It reasons over the same interval data as the reports
(:func:`ztwin.reports.collect`, :mod:`ztwin.reports.metrics`); thresholds and
persistence qualifiers come from ``rules.toml`` merged with a user's file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ztwin.advisor.checks import CHECKS, Context
from ztwin.advisor.facts import STORE_KINDS, Interval, Period, figure_sink, period_from, resolve_window
from ztwin.advisor.tables import FigureStore
from ztwin.advisor.finding import Evidence, Finding, rank, render_text
from ztwin.advisor.rules import SEVERITIES, AdvisorError, Persist, Rule, Rules, load_rules
from ztwin.monitor import MonwriteError, damage_text
from ztwin.reports.core import ReportError, Window, collect, implausible_text
from ztwin.segments import SegmentError, choose

if TYPE_CHECKING:
    from ztwin._native import Stats, StrPath

__all__ = [
    "CHECKS", "SEVERITIES", "AdvisorError", "Diagnosis", "Evidence", "Finding", "Interval", "Period", "Persist",
    "Rule", "Rules", "diagnose", "diagnose_history", "evaluate", "load_rules", "period_from",
]  # fmt: skip


def evaluate(period: Period, rules: Rules | None = None) -> list[Finding]:
    """Run the enabled checks over a period; findings most important first
    (severity, then root causes before symptoms). A finding that explains
    another (``subsumes``) replaces it."""
    rules = rules or load_rules()
    ctx = Context(period, rules)
    if period.intervals:
        for rule_id, _area, check in CHECKS:
            rule = rules[rule_id]
            if not rule.enabled:
                continue
            f = check(ctx, rule)
            if f is not None:
                ctx.found[rule_id] = f
    out = dict(ctx.found)
    for f in ctx.found.values():
        for sid in f.subsumes:
            out.pop(sid, None)
    return sorted(out.values(), key=lambda f: (-rank(f.severity), f.order, f.id))


@dataclass
class Diagnosis:
    """The findings over a period, and what they were computed from."""

    period: Period
    findings: list[Finding]
    rules: Rules
    stats: Stats | None = None
    #: Notes for the user (e.g. several collections reported together).
    notes: list[str] = field(default_factory=list)
    #: Samples left out of every figure as implausible (never judged), and
    #: one line saying so (None if there were none).
    implausible: list[dict[str, Any]] = field(default_factory=list)
    implausible_count: int = 0
    implausible_note: str | None = None

    def ids(self, at_least: str = "info") -> list[str]:
        lo = SEVERITIES.index(at_least)
        return [f.id for f in self.findings if SEVERITIES.index(f.severity) >= lo]

    def get(self, finding_id: str) -> Finding | None:
        return next((f for f in self.findings if f.id == finding_id), None)

    def to_json(self) -> dict[str, Any]:
        p = self.period
        return {
            "file": p.path,
            "system": {
                "system_id": p.system_id,
                "machine": p.machine,
                "cp_level": p.cp_level,
                "processors": p.processors,
                "storage_mb": None if p.storage_bytes is None else p.storage_bytes // 2**20,
                "xstor_mb": None if p.xstor_bytes is None else p.xstor_bytes // 2**20,
            },
            "from": p.iso(p.start) if p.start else None,
            "to": p.iso(p.end) if p.end else None,
            "intervals": len(p.intervals),
            "rules": list(self.rules.sources),
            "implausible_count": self.implausible_count,
            "implausible_samples": self.implausible,
            "findings": [f.to_json(p) for f in self.findings],
        }

    def header(self) -> list[str]:
        p = self.period
        lines = [f"ztwin diagnose: {p.path}"]
        parts = []
        if p.machine:
            parts.append(p.machine + (f", z/VM {p.cp_level}" if p.cp_level else ""))
        if p.processors:
            parts.append(f"{p.processors} processor{'s' if p.processors != 1 else ''}")
        if p.storage_bytes:
            parts.append(f"{p.storage_bytes / 2**30:.1f} GB central")
        if p.xstor_bytes:
            parts.append(f"{p.xstor_bytes / 2**30:.1f} GB XSTOR")
        lines.append(f"System {p.system_id or '?'}" + (f" ({', '.join(parts)})" if parts else ""))
        if p.start and p.end:
            secs = {round(iv.seconds) for iv in p.intervals}
            each = f" of {secs.pop()} s" if len(secs) == 1 else ""
            hist = f"; {len(p.history)} earlier as history" if p.history else ""
            lines.append(
                f"Period {p.start:%Y/%m/%d %H:%M:%S} - {p.end:%Y/%m/%d %H:%M:%S}: "
                f"{len(p.intervals)} interval{'s' if len(p.intervals) != 1 else ''}{each}{hist}"
            )
        lines.append("Rules: " + " + ".join(self.rules.sources))
        return lines

    def to_text(self) -> str:
        return render_text(self.findings, self.period, self.header())


#: Intervals the kernel hands over at a time while ``diagnose`` reads a file.
STREAM_STEP = 10


def diagnose(
    path: StrPath,
    start: str | datetime | None = None,
    end: str | datetime | None = None,
    rules: Rules | str | Path | None = None,
    *,
    system: str | None = None,
    segment: int | None = None,
) -> Diagnosis:
    """Read a MONWRITE file and judge the intervals between ``start`` and
    ``end`` (``HH:MM:SS`` on the first sample's date or ``YYYY-MM-DD
    HH:MM:SS``, local time of the monitored system; the reports' --from/--to
    convention; a timezone-aware ``datetime`` is an instant, a naive one local
    time). Intervals before ``start`` serve as history. ``rules``: a
    :class:`Rules` or a rules file merged over the defaults. A file holding
    collections of several systems needs ``system`` (or ``segment``, counted
    from 1) to pick one (:func:`ztwin.segments.choose`). Raises
    :class:`AdvisorError` with a message naming the place and the reason."""
    texts = not isinstance(start, datetime) and not isinstance(end, datetime)
    try:
        window = Window.parse(start, end) if not isinstance(start, datetime) and not isinstance(end, datetime) else Window()
    except ReportError as e:
        raise AdvisorError(str(e)) from None
    if not isinstance(rules, Rules):
        rules = load_rules(rules)
    if Path(path).is_dir():
        raise AdvisorError(f"cannot open {path}: Is a directory")
    # Read up to --to (the Collector stops there); everything before --from is history.
    to_text = end if isinstance(end, str) else None
    try:
        plan = choose(path, system=system, segment=segment)
        # Per-key figures go to a temporary store, a few intervals at a time:
        # memory does not grow with the file (ztwin.advisor.tables).
        store = FigureStore(STORE_KINDS)
        iv = collect(
            path,
            None,
            to_text,
            users="all",
            devices="all",
            exposures="all",
            segments=plan.ranges,
            sink=figure_sink(store),
            step=STREAM_STEP,
        )
    except SegmentError as e:
        raise AdvisorError(str(e)) from None
    except MonwriteError as e:
        raise AdvisorError(f"{path}: offset {e.offset} (X'{e.offset:X}'): {e.reason}") from None
    except ReportError as e:
        raise AdvisorError(f"{path}: {e}") from None
    except OSError as e:
        raise AdvisorError(f"cannot open {path}: {e.strerror or e}") from None
    damage = damage_text(iv.stats)
    also = f"; {damage}" if damage else ""
    if not iv.intervals:
        if window.interim and iv.data_start is not None and iv.sets > 1:
            raise AdvisorError(f"{path}: no complete sample interval between --from and --to ({_span(iv)}){also}")
        raise AdvisorError(f"{path}: no complete sample interval (the file needs two sample sets with data){also}")
    if not texts:
        window = Window.parse(_local_text(start, iv.config.zone_s), _local_text(end, iv.config.zone_s))
    frm, to = resolve_window(window, iv.intervals[0].start)
    if frm is not None and to is not None and frm >= to and window.start is not None and window.end is not None:
        raise AdvisorError(f"--from {window.start.text} is not before --to {window.end.text}")
    period = period_from(iv, window, store)
    if not period.intervals:
        raise AdvisorError(f"{path}: no complete sample interval between --from and --to ({_span(iv)}){also}")
    return Diagnosis(
        period,
        evaluate(period, rules),
        rules,
        iv.stats,
        plan.notes,
        iv.implausible,
        iv.implausible_count,
        implausible_text(iv),
    )


def diagnose_history(
    db: StrPath,
    system: str | None = None,
    start: str | None = None,
    end: str | None = None,
    rules: Rules | str | Path | None = None,
) -> Diagnosis:
    """:func:`diagnose` over a window of a history database (``ztwin ingest``):
    ``start``/``end`` are local dates and times (``YYYY-MM-DD HH:MM:SS``);
    stored intervals before ``start`` serve as history."""
    from ztwin.history import HistoryError
    from ztwin.history import open as open_history

    try:
        window = Window.parse(start, end)
    except ReportError as e:
        raise AdvisorError(str(e)) from None
    if not isinstance(rules, Rules):
        rules = load_rules(rules)
    try:
        with open_history(db) as h:
            iv = h.intervals(system, None, end, detail=True)
    except HistoryError as e:
        raise AdvisorError(str(e)) from None
    period = period_from(iv, window)
    if not period.intervals:
        raise AdvisorError(f"{db}: no stored interval between --from and --to ({_span(iv)})")
    return Diagnosis(period, evaluate(period, rules), rules, None)


def _span(iv: Any) -> str:
    """Where the file's samples are, for a window that missed them."""
    if iv.stopped_early or iv.data_end is None:
        return f"the file's samples start at {iv.data_start:%Y/%m/%d %H:%M:%S}"
    return f"the file has samples from {iv.data_start:%Y/%m/%d %H:%M:%S} to {iv.data_end:%Y/%m/%d %H:%M:%S}"


def _local_text(v: str | datetime | None, zone_s: int) -> str | None:
    """A window bound as the reports' text: an aware datetime is converted to
    the monitored system's local time."""
    if v is None or isinstance(v, str):
        return v
    if v.tzinfo is not None:
        v = v.astimezone(timezone.utc).replace(tzinfo=None) + timedelta(seconds=zone_s)
    return v.strftime("%Y-%m-%d %H:%M:%S")
