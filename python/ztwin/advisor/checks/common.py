"""Helpers the checks share: grading a figure against a rule's levels with
its persistence qualifier, weighted means over the intervals that held, and
number formatting for the findings' sentences."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ztwin.advisor.tables import as_table
from ztwin.advisor.facts import Interval, Period
from ztwin.advisor.finding import Finding
from ztwin.advisor.rules import SEVERITIES, Rule, Rules

Flags = list[bool | None]


@dataclass
class Context:
    """What a check sees: the period, the rules, the findings of the checks
    that ran before it, and notes they left (e.g. users already explained)."""

    period: Period
    rules: Rules
    found: dict[str, Finding] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def intervals(self) -> list[Interval]:
        return self.period.intervals

    def fired(self, rule_id: str, at_least: str = "info") -> Finding | None:
        f = self.found.get(rule_id)
        if f is None or SEVERITIES.index(f.severity) < SEVERITIES.index(at_least):
            return None
        return f


def grade(rule: Rule, values: Sequence[float | None], below: bool = False) -> tuple[str | None, Flags]:
    """The highest severity whose threshold holds persistently, and the
    intervals in which that threshold held (None: no severity)."""
    severity: str | None = None
    held: Flags = []
    for sev, thr in rule.active_levels():
        flags: Flags = [None if v is None else (v <= thr if below else v >= thr) for v in values]
        if rule.persist.satisfied(flags):
            severity, held = sev, flags
    return severity, held


def held_intervals(intervals: Sequence[Interval], flags: Sequence[bool | None]) -> list[Interval]:
    return [iv for iv, f in zip(intervals, flags, strict=True) if f]


def wmean(pairs: Iterable[tuple[float | None, float]]) -> float | None:
    """Mean of values weighted by seconds, skipping None."""
    num = den = 0.0
    for v, w in pairs:
        if v is None:
            continue
        num += v * w
        den += w
    return num / den if den else None


def mean_over(intervals: Sequence[Interval], get: Callable[[Interval], float | None]) -> float | None:
    return wmean((get(iv), iv.seconds) for iv in intervals)


def peak(intervals: Sequence[Interval], get: Callable[[Interval], float | None], below: bool = False) -> tuple[Interval | None, float | None]:
    best: tuple[Interval | None, float | None] = (None, None)
    for iv in intervals:
        v = get(iv)
        if v is None:
            continue
        if best[1] is None or (v < best[1] if below else v > best[1]):
            best = (iv, v)
    return best


def max_severity(sevs: Iterable[str | None]) -> str | None:
    best: str | None = None
    for s in sevs:
        if s is not None and (best is None or SEVERITIES.index(s) > SEVERITIES.index(best)):
            best = s
    return best


def num(v: float | None, digits: int = 1) -> str:
    """A figure for a sentence: thousands separators, fixed decimals, '?' when unknown."""
    if v is None:
        return "?"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def pct_text(v: float | None, digits: int = 1) -> str:
    return "?%" if v is None else f"{num(v, digits)}%"


def gb(pages: float | None) -> str:
    """4 KB pages as GB."""
    if pages is None:
        return "? GB"
    return f"{pages * 4096 / 2**30:.1f} GB"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def lower_first(title: str) -> str:
    """A title inside a sentence: its first letter lower-cased unless the
    first word is an acronym or a name written with capitals (CP, MLOAD,
    XSTOR, I/Os), which keep their case; the rest is never touched."""
    first = title.split(" ", 1)[0]
    if not first or any(c.isupper() for c in first[1:]) or not first[0].isupper():
        return title
    return first[0].lower() + title[1:]


def names(items: Sequence[str], limit: int = 6) -> str:
    shown = list(items[:limit])
    text = ", ".join(shown)
    if len(items) > limit:
        text += f" and {len(items) - limit} more"
    return text


def active_share(iv: Interval, count: str, exclude: Iterable[str] = ()) -> float | None:
    """Share (%) of the active users' samples (in the dispatch or eligible
    list) found in the state whose sample count is ``count`` (e.g. hf_pgw)."""
    return as_table(iv.users).share(count, exclude)


def user_active_share(m: Any, count: str) -> float | None:
    q = m.get("hf_queue")
    if not q:
        return None
    return 100.0 * float(m.get(count, 0.0)) / float(q)


def grade_each(
    rule: Rule,
    intervals: Sequence[Interval],
    keys: Iterable[Any],
    value: Callable[[Interval, Any], float | None],
    below: bool = False,
) -> dict[Any, tuple[str, Flags]]:
    """Grade each key (device, user) on its own; keys without a severity are left out."""
    out: dict[Any, tuple[str, Flags]] = {}
    for k in keys:
        sev, flags = grade(rule, [value(iv, k) for iv in intervals], below)
        if sev is not None:
            out[k] = (sev, flags)
    return out


def dev_fig(iv: Interval, devno: int, key: str) -> float | None:
    m = iv.devices.get(devno)
    if m is None:
        return None
    v = m.get(key)
    return None if v is None else float(v)


def exp_fig(iv: Interval, devno: int, key: str) -> float | None:
    m = iv.exposures.get(devno)
    if m is None:
        return None
    v = m.get(key)
    return None if v is None else float(v)


def all_intervals_union(*groups: Sequence[Interval]) -> list[Interval]:
    seen: dict[int, Interval] = {}
    for g in groups:
        for iv in g:
            seen.setdefault(iv.index, iv)
    return [seen[k] for k in sorted(seen)]


def order_by_severity(graded: dict[Any, tuple[str, Flags]]) -> list[Any]:
    return sorted(graded, key=lambda k: (-SEVERITIES.index(graded[k][0]), -sum(1 for f in graded[k][1] if f), str(k)))


__all__ = [
    "Context", "Flags", "Rules", "active_share", "all_intervals_union", "dev_fig", "exp_fig", "gb", "grade",
    "grade_each", "held_intervals", "max_severity", "mean_over", "names", "num", "order_by_severity", "peak",
    "fnum", "lparfig", "pct_text", "plural", "sysfig", "user_active_share", "wmean",
]  # fmt: skip


def sysfig(key: str) -> Callable[[Interval], float | None]:
    """A getter of one system figure of an interval."""

    def get(iv: Interval) -> float | None:
        v = iv.sys.get(key)
        return None if v is None else float(v)

    return get


def lparfig(key: str) -> Callable[[Interval], float | None]:
    def get(iv: Interval) -> float | None:
        v = iv.lpar.get(key)
        return None if v is None else float(v)

    return get


def fnum(v: Any) -> float | None:
    """A figure from a row (Any) for num(): None stays None."""
    return None if v is None else float(v)
