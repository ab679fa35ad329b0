"""Sweep metrics: named figures computed from one run's MONWRITE file.

This is the only module of :mod:`ztwin.sweep` that touches the toolkit: every
figure is read from a report row (:func:`ztwin.reports.collect` and
:func:`ztwin.reports.build_from` over the window, the same rows ``ztwin report
--from --to`` prints) or from the advisor's findings
(:func:`ztwin.advisor.diagnose`). Nothing is computed from simulator internals.

A metric is written as

- ``REPORT.column``: the report's summary row over the window (``>>Mean>>`` of
  SYSSUMLG, CPU, PAGELOG, AVAILLOG; ``>System<`` of USTAT and UPAGE; ``>>All
  DASD<<`` of DEVICE; the only row of STORAGE, SYSCONF, MONSET);
- ``REPORT[ROW].column``: the row whose first column is ROW (a user ID in
  USTAT/UPAGE, a device number in DEVICE/CPOWNED, a processor in CPU);
- ``sum(REPORT.column)``, ``mean(...)``, ``min(...)``, ``max(...)``: over the
  report's rows other than its summary lines (e.g. the paging volumes of
  CPOWNED, or the intervals of SYSSUMLG);
- ``advisor``: the findings over the window, most important first
  (``id:severity`` separated by spaces; text); ``advisor.RULE``: 1 if the
  finding RULE was reported, else 0; ``advisor.warnings``: how many findings
  are at warning or critical;
- a short name for a common figure (:data:`NAMED`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["NAMED", "Metric", "MetricError", "compute", "parse_metric", "report_columns"]


class MetricError(Exception):
    """A metric no report provides, or a run whose file cannot give it."""


#: Short names for the figures a capacity planner asks for first.
NAMED: dict[str, str] = {
    "paging_rate": "SYSSUMLG.read_write_rate",
    "xstor_paging_rate": "SYSSUMLG.page_rate",
    "paging_ssch_rate": "STORAGE.paging_ssch_rate",
    "page_wait_pct": "USTAT.pgw_pct",
    "cpu_busy_pct": "SYSSUMLG.cpu_busy_pct",
    "tv_ratio": "SYSSUMLG.tv_ratio",
    "capture_ratio": "SYSSUMLG.capture_ratio",
    "dasd_resp_ms": "DEVICE.resp_ms",
    "dasd_io_rate": "SYSSUMLG.dasd_io_rate",
    "users_in_elist": "SYSSUMLG.users_in_elist",
    "steal_rate": "STORAGE.steal_rate",
    "avail_frames": "STORAGE.avail_frames",
    "paging_slots_used_pct": "STORAGE.slots_used_pct",
    "findings": "advisor",
}
#: Figures people ask for that no report provides (yet), and why.
_NO_TRANSACTIONS = (
    "no report provides transactions per second: the twin's workloads write no transaction "
    "records, and FCX100 (CPU) shows processor load only"
)
NOT_PROVIDED: dict[str, str] = {"transactions_rate": _NO_TRANSACTIONS, "transaction_rate": _NO_TRANSACTIONS}

#: The summary row a metric without [ROW] reads, per report (None: the report's only row).
SUMMARY_ROW: dict[str, str | None] = {
    "SYSSUMLG": ">>Mean>>",
    "CPU": ">>Mean>>",
    "PAGELOG": ">>Mean>>",
    "AVAILLOG": ">>Mean>>",
    "USTAT": ">System<",
    "UPAGE": ">System<",
    "DEVICE": ">>All DASD<<",
    "STORAGE": None,
    "SYSCONF": None,
    "MONSET": None,
}
#: Reports whose rows are per interval and per user: the window is what USTAT/UPAGE give.
BY_TIME_USER = {"USTATLOG": "USTAT", "UPAGELOG": "UPAGE"}
AGGREGATES = ("sum", "mean", "min", "max")

_FORM = re.compile(
    r"^\s*(?:(?P<agg>[a-z]+)\(\s*)?(?P<report>[A-Za-z0-9_ ]+?)\s*(?:\[(?P<row>[^\]]+)\])?\s*\.\s*(?P<col>[a-z0-9_]+)\s*(?P<close>\))?\s*$"
)


@dataclass(frozen=True)
class Metric:
    """A parsed metric (``text`` is its canonical form)."""

    text: str
    report: str | None = None
    row: str | None = None
    column: str | None = None
    agg: str | None = None
    #: For advisor metrics: None (the list of findings), "warnings", or a rule id.
    finding: str | None = None

    @property
    def advisor(self) -> bool:
        return self.report is None

    @property
    def numeric(self) -> bool:
        return not (self.advisor and self.finding is None)


@cache
def report_columns(name: str) -> tuple[str, ...]:
    """The columns (JSON keys) of a report, from its builder on no data."""
    from ztwin.reports import REPORTS, Config, Intervals, Window

    return tuple(REPORTS[name].builder(Intervals("", Config(), Window()), users=None).keys)


def _rule_ids() -> list[str]:
    from ztwin.advisor import CHECKS

    return [rule_id for rule_id, _area, _check in CHECKS]


def parse_metric(spec: Any) -> Metric:
    """Parse and check a metric: a string (see the module documentation) or a
    table ``{ report, row, column, agg }``. Raises :class:`MetricError`."""
    from ztwin.reports import ReportError, resolve_names

    if isinstance(spec, dict):
        unknown = set(spec) - {"report", "row", "column", "agg"}
        if unknown:
            raise MetricError(f"unknown key {sorted(unknown)[0]!r} (a metric table has report, row, column, agg)")
        if "report" not in spec or "column" not in spec:
            raise MetricError("a metric table needs report and column")
        text = f"{spec['report']}{'[' + str(spec['row']) + ']' if 'row' in spec else ''}.{spec['column']}"
        if "agg" in spec:
            text = f"{spec['agg']}({text})"
        spec = text
    if not isinstance(spec, str):
        raise MetricError(f"{spec!r} is not a metric (write e.g. \"SYSSUMLG.cpu_busy_pct\")")
    s = spec.strip()
    if s in NOT_PROVIDED:
        raise MetricError(NOT_PROVIDED[s])
    if s in NAMED:
        s = NAMED[s]
    if s == "advisor":
        return Metric("advisor")
    if s.startswith("advisor."):
        what = s.split(".", 1)[1]
        if what == "warnings":
            return Metric(s, finding="warnings")
        ids = _rule_ids()
        if what not in ids:
            raise MetricError(f"the advisor has no rule {what!r} (rules: {', '.join(ids)})")
        return Metric(s, finding=what)
    m = _FORM.match(s)
    if not m:
        raise MetricError(
            f"{spec!r} is not a metric: write REPORT.column, REPORT[ROW].column, sum|mean|min|max(REPORT.column), "
            f"advisor, advisor.RULE or a named metric ({', '.join(NAMED)})"
        )
    agg, col, row = m.group("agg"), m.group("col"), m.group("row")
    if (agg is None) != (m.group("close") is None):
        raise MetricError(f"{spec!r}: unbalanced parentheses")
    if agg is not None and agg not in AGGREGATES:
        raise MetricError(f"{spec!r}: unknown aggregate {agg!r} (use {', '.join(AGGREGATES)})")
    if agg is not None and row is not None:
        raise MetricError(f"{spec!r}: an aggregate runs over all rows; give no [ROW]")
    try:
        (report,) = resolve_names([m.group("report")])
    except ReportError as e:
        raise MetricError(str(e)) from None
    if report in BY_TIME_USER:
        raise MetricError(f"{report} is a by-time log of each user; {BY_TIME_USER[report]} gives the figures over the window")
    cols = report_columns(report)
    if col not in cols:
        raise MetricError(f"no report provides {col!r}: {report} has no such column (columns: {', '.join(cols[1:])})")
    if col == cols[0]:
        raise MetricError(f"{col!r} is the row label of {report}, not a figure")
    if agg is None and row is None and report not in SUMMARY_ROW:
        raise MetricError(
            f"{report} has a row per {cols[0]} and no summary row: name the row ({report}[ROW].{col}) "
            f"or aggregate (sum({report}.{col}), max(...))"
        )
    text = f"{report}{'[' + row.strip() + ']' if row else ''}.{col}"
    return Metric(f"{agg}({text})" if agg else text, report=report, row=row.strip() if row else None, column=col, agg=agg)


# --------------------------------------------------------------------------
# Computing
# --------------------------------------------------------------------------


def monitor_start(path: str | Path) -> datetime:
    """Local time at which monitoring started: the first configuration record
    (MRMTRSYS) and its time zone offset."""
    from ztwin.monitor import MonwriteError, read

    try:
        for i, rec in enumerate(read(path)):
            if rec["name"] == "MRMTRSYS":
                zone = rec["fields"].get("MTRSYS_SYSZONE")
                utc = datetime.strptime(rec["tod"][:26], "%Y-%m-%dT%H:%M:%S.%f")
                return utc + timedelta(seconds=zone if isinstance(zone, int) and abs(zone) <= 86_400 else 0)
            if i > 10_000:
                break
    except MonwriteError as e:
        raise MetricError(f"{path}: offset {e.offset}: {e.reason}") from None
    raise MetricError(f"{path}: no MRMTRSYS record: the window cannot be placed")


def window_text(path: str | Path, start_s: float | None, end_s: float | None) -> tuple[str | None, str | None]:
    """The window as the reports' --from/--to text (local date and time)."""
    if start_s is None and end_s is None:
        return None, None
    t0 = monitor_start(path)

    def fmt(s: float | None) -> str | None:
        return None if s is None else (t0 + timedelta(seconds=s)).strftime("%Y-%m-%d %H:%M:%S")

    return fmt(start_s), fmt(end_s)


def _label(v: Any) -> str:
    return str(v).strip().upper()


def _is_summary(row: dict[str, Any], key: str) -> bool:
    v = row.get(key)
    return isinstance(v, str) and v.startswith(">")


def _number(v: Any, what: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, int | float):
        f = float(v)
        return None if math.isnan(f) or math.isinf(f) else f
    raise MetricError(f"{what} is {v!r}, not a number")


def _report_value(rep: Any, m: Metric) -> float | None:
    key = rep.keys[0]
    assert m.column is not None
    if m.agg is not None:
        vals = [_number(r.get(m.column), f"{m.text}") for r in rep.rows if not _is_summary(r, key)]
        nums = [v for v in vals if v is not None]
        if not nums:
            return None
        if m.agg == "sum":
            return math.fsum(nums)
        if m.agg == "mean":
            return math.fsum(nums) / len(nums)
        return min(nums) if m.agg == "min" else max(nums)
    rows = list(rep.rows)
    label = m.row if m.row is not None else SUMMARY_ROW.get(rep.name)
    if label is None:
        if len(rows) != 1:
            return None
        row = rows[0]
    else:
        want = _label(label)
        row = next((r for r in rows if _label(r.get(key)) == want), None)
        if row is None:
            return None
    return _number(row.get(m.column), m.text)


def compute(
    path: str | Path, start_s: float | None, end_s: float | None, metrics: dict[str, Metric]
) -> dict[str, float | str | None]:
    """The metrics of one MONWRITE file over the window (seconds after
    monitoring started). A figure the file cannot give (a user or device that
    is not in it, a zero denominator) is None. Raises :class:`MetricError`."""
    from ztwin.advisor import AdvisorError, diagnose
    from ztwin.monitor import MonwriteError
    from ztwin.reports import ReportError, build_from, collect

    start, end = window_text(path, start_s, end_s)
    out: dict[str, float | str | None] = {}
    names = sorted({m.report for m in metrics.values() if m.report is not None})
    if names:
        try:
            iv = collect(path, start, end)
        except MonwriteError as e:
            raise MetricError(f"{path}: offset {e.offset}: {e.reason}") from None
        except (ReportError, OSError) as e:
            raise MetricError(f"{path}: {e}") from None
        if not iv.intervals:
            raise MetricError(f"{path}: no complete sample interval in the window ({start} to {end})")
        reports = build_from(iv, names)
        for name, m in metrics.items():
            if m.report is not None:
                out[name] = _report_value(reports[m.report], m)
    if any(m.advisor for m in metrics.values()):
        try:
            d = diagnose(path, start, end)
        except AdvisorError as e:
            raise MetricError(str(e)) from None
        for name, m in metrics.items():
            if not m.advisor:
                continue
            if m.finding is None:
                out[name] = " ".join(f"{f.id}:{f.severity}" for f in d.findings)
            elif m.finding == "warnings":
                out[name] = float(len(d.ids("warning")))
            else:
                out[name] = 1.0 if m.finding in d.ids() else 0.0
    return {name: out.get(name) for name in metrics}
