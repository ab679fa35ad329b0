"""What a study is: scenario variants run through the twin, figures measured
from their MONWRITE files, and one check per published figure.

Every figure a study's source publishes becomes a :class:`Check` with

* ``id`` — the figure's id in ``shared/spec/fidelity-001-audit.md`` (S1-P13 ...);
* ``category`` — one of :data:`CATEGORIES`:
  ``calibrated`` (the figure set a scenario parameter; at most one figure per
  parameter, named in the scenario's ``calibration`` text), ``input`` (a
  configuration figure copied into the scenario), ``structural`` (a claim
  about who waits on what: must hold exactly), ``predicted`` (comes out of the
  model), ``not-modelled`` (the twin has no mechanism or report for it; the
  note says why);
* ``source`` — the report and column it was published in;
* ``published`` — a number, a range ``[lo, hi]``, or a text for claims;
* ``model`` — the twin's value, measured from the run's decoded monitor
  records (never from the simulator's internals);
* ``tolerance`` — what "within" means for this figure; ``ok`` the verdict
  (None for not-modelled figures).

A study passes when every calibrated, input and structural check holds (or
is a documented known gap, see :attr:`Check.gap`) and the share of predicted
figures within tolerance is at least the study's floor: a ratchet set at what
the model reaches today, to be raised as the model improves.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Check categories, in the order they are printed.
CATEGORIES = ("calibrated", "input", "structural", "predicted", "not-modelled")
#: Categories whose checks must all hold for a study to pass.
REQUIRED = ("calibrated", "input", "structural")


def studies_dir() -> Path:
    """Where the study scenario files live (``studies/`` at the repository root,
    or ``$ZTWIN_STUDIES``)."""
    env = os.environ.get("ZTWIN_STUDIES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "studies"


Value = float | int | bool | str | None


@dataclass
class Check:
    """One published figure against the model."""

    id: str
    metric: str
    category: str
    source: str
    published: Any
    model: Any
    tolerance: str
    ok: bool | None
    note: str = ""
    #: A required (calibrated, input, structural) check the model cannot meet
    #: yet: why, and which model change will fix it. It does not fail the
    #: study, is counted as not within tolerance, and is printed as a gap.
    gap: str = ""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "metric": self.metric,
            "category": self.category,
            "source": self.source,
            "published": _jsonable(self.published),
            "model": _jsonable(self.model),
            "tolerance": self.tolerance,
            "ok": self.ok,
        }
        if self.note:
            d["note"] = self.note
        if self.gap:
            d["gap"] = self.gap
        return d


def _jsonable(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    if isinstance(v, float):
        return None if math.isnan(v) else round(v, 4)
    return v


def _r(v: Any) -> Any:
    """A model value as it is kept: floats rounded to 6 significant places."""
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return None
        return float(f"{v:.6g}")
    if isinstance(v, tuple):
        return tuple(_r(x) for x in v)
    if isinstance(v, list):
        return [_r(x) for x in v]
    return v


def _num(v: Any) -> float | None:
    if v is None or isinstance(v, bool | str):
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


@dataclass
class Tally:
    """Figures of one category: published, checked (not-modelled excluded), within tolerance."""

    published: int = 0
    checked: int = 0
    within: int = 0

    def to_json(self) -> dict[str, int]:
        return {"published": self.published, "checked": self.checked, "within": self.within}


@dataclass
class StudyResult:
    study: str
    title: str
    checks: list[Check] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    #: Least share of predicted figures within tolerance for the study to pass.
    floor: float = 0.0
    quick: bool = False

    # -- verdict ------------------------------------------------------------------

    def tally(self) -> dict[str, Tally]:
        out = {c: Tally() for c in CATEGORIES}
        for c in self.checks:
            t = out[c.category]
            t.published += 1
            if c.category != "not-modelled":
                t.checked += 1
                t.within += bool(c.ok) and not c.gap
        return out

    @property
    def predicted_fraction(self) -> float:
        t = self.tally()["predicted"]
        return t.within / t.checked if t.checked else 1.0

    @property
    def failed_required(self) -> list[Check]:
        return [c for c in self.checks if c.category in REQUIRED and not c.ok and not c.gap]

    @property
    def gaps(self) -> list[Check]:
        return [c for c in self.checks if c.gap]

    @property
    def ok(self) -> bool:
        return not self.failed_required and self.predicted_fraction + 1e-9 >= self.floor

    def to_json(self) -> dict[str, Any]:
        t = self.tally()
        return {
            "study": self.study,
            "title": self.title,
            "quick": self.quick,
            "ok": self.ok,
            "floor": self.floor,
            "predicted_within": round(self.predicted_fraction, 4),
            "tally": {k: v.to_json() for k, v in t.items()},
            "checks": [c.to_json() for c in self.checks],
            "info": self.info,
            **({"figures": self.info["figures"]} if "figures" in self.info else {}),
        }

    # -- check helpers --------------------------------------------------------------

    def add(self, check: Check) -> Check:
        if check.category not in CATEGORIES:
            raise ValueError(f"{check.id}: unknown category {check.category!r}")
        if any(c.id == check.id for c in self.checks):
            raise ValueError(f"{check.id}: two checks with one id")
        self.checks.append(check)
        return check

    def rel(
        self,
        id: str,
        metric: str,
        category: str,
        source: str,
        model: Any,
        published: float,
        tol: float = 0.15,
        abs_tol: float = 0.0,
        note: str = "",
        shown: Any = None,
    ) -> Check:
        """Model within ``tol`` (relative) of the published value, or within
        ``abs_tol`` of it (for figures printed near zero). ``shown`` is what
        to print as the published value when it is more than the number (a
        range of rows with its mean)."""
        m = _num(model)
        ok = m is not None and (abs(m - published) <= tol * abs(published) + 1e-12 or abs(m - published) <= abs_tol)
        parts = [f"±{tol * 100:g}%"] if tol else []
        if abs_tol:
            parts.append(f"±{abs_tol:g}")
        return self.add(
            Check(id, metric, category, source, published if shown is None else shown, _r(model), " or ".join(parts), ok, note)
        )

    def in_range(
        self,
        id: str,
        metric: str,
        category: str,
        source: str,
        model: Any,
        lo: float,
        hi: float,
        note: str = "",
        published: Any = None,
    ) -> Check:
        """A published range: the model value (or every one of several model
        values: a tuple of per-volume or per-interval figures, shown as their
        range) lies in ``[lo, hi]``."""
        vals = list(model) if isinstance(model, tuple | list) else [model]
        # Several model figures (per volume, per interval): shown as their range.
        nums = [_num(v) for v in vals]
        ok = bool(nums) and all(v is not None and lo - 1e-9 <= v <= hi + 1e-9 for v in nums)
        shown: Any = _r(model)
        if isinstance(model, tuple | list):
            good = [v for v in nums if v is not None]
            shown = (_r(min(good)), _r(max(good))) if good else None
        return self.add(
            Check(id, metric, category, source, published if published is not None else (lo, hi), shown, "range", ok, note)
        )

    def at_least(self, id: str, metric: str, category: str, source: str, model: Any, lo: float, published: Any, note: str = "") -> Check:
        m = _num(model)
        return self.add(Check(id, metric, category, source, published, _r(model), f">= {lo:g}", m is not None and m >= lo, note))

    def at_most(self, id: str, metric: str, category: str, source: str, model: Any, hi: float, published: Any, note: str = "") -> Check:
        m = _num(model)
        return self.add(Check(id, metric, category, source, published, _r(model), f"<= {hi:g}", m is not None and m <= hi, note))

    def equal(self, id: str, metric: str, category: str, source: str, model: Any, published: Any, note: str = "") -> Check:
        """Exactly the published value (configuration inputs, counts)."""
        return self.add(Check(id, metric, category, source, published, _r(model), "exact", model == published, note))

    def holds(
        self, id: str, metric: str, value: bool, published: str, source: str, model: Any = None, note: str = "", gap: str = ""
    ) -> Check:
        """A structural claim that must hold exactly. ``model`` is what the
        model shows (printed); ``gap`` marks a claim the model cannot meet yet."""
        shown = _r(model) if model is not None else bool(value)
        return self.add(Check(id, metric, "structural", source, published, shown, "exact", bool(value), note, "" if value else gap))

    def not_modelled(self, id: str, metric: str, source: str, published: Any, reason: str) -> Check:
        return self.add(Check(id, metric, "not-modelled", source, published, None, "-", None, reason))

    def mark_gap(self, check: Check, gap: str) -> None:
        """A required check that does not hold today is a known gap (see :attr:`Check.gap`)."""
        if not check.ok:
            check.gap = gap


def fmt_value(v: Any) -> str:
    """A published or model value for the text table."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        a = abs(v)
        if a >= 1000:
            return f"{v:,.0f}"
        if a >= 100:
            return f"{v:.1f}"
        if a >= 1:
            return f"{v:.2f}".rstrip("0").rstrip(".") if a < 10 else f"{v:.1f}"
        return f"{v:.3g}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10000 else str(v)
    if isinstance(v, tuple):  # a range
        return "-".join(fmt_value(x) for x in v)
    if isinstance(v, list):  # several figures
        return " / ".join(fmt_value(x) for x in v)
    return str(v)


def id_order(check_id: str) -> tuple[Any, ...]:
    """Natural order of check ids: S1-C2 before S1-C10, S1-S3a after S1-S3."""
    import re

    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", check_id))


def mean(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None
