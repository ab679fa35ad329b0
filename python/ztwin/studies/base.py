"""What a study is: scenario variants run through the twin, figures measured
from their MONWRITE files, and checks against the published values."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


def studies_dir() -> Path:
    """Where the study scenario files live (``studies/`` at the repository root,
    or ``$ZTWIN_STUDIES``)."""
    env = os.environ.get("ZTWIN_STUDIES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "studies"


@dataclass
class Check:
    """One model-versus-published comparison."""

    metric: str
    model: float | int | bool | str
    published: float | int | bool | str
    tolerance: str
    ok: bool
    note: str = ""


@dataclass
class StudyResult:
    study: str
    title: str
    checks: list[Check] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {
            "study": self.study,
            "ok": self.ok,
            "checks": [{k: v for k, v in asdict(c).items() if k != "note" or v} for c in self.checks],
            "info": self.info,
        }

    # -- check helpers -------------------------------------------------------------

    def within(self, metric: str, model: float, published: float, rel: float, note: str = "") -> None:
        """Model within ``rel`` (relative) of the published value."""
        ok = abs(model - published) <= rel * abs(published)
        self.checks.append(Check(metric, round(model, 3), published, f"±{rel * 100:.0f}%", ok, note))

    def between(self, metric: str, model: float, lo: float, hi: float, published: Any, note: str = "") -> None:
        """Model inside ``[lo, hi]``."""
        self.checks.append(Check(metric, round(model, 3), published, f"{lo:g}..{hi:g}", lo <= model <= hi, note))

    def at_least(self, metric: str, model: float, lo: float, published: Any, note: str = "") -> None:
        self.checks.append(Check(metric, round(model, 3), published, f">= {lo:g}", model >= lo, note))

    def at_most(self, metric: str, model: float, hi: float, published: Any, note: str = "") -> None:
        self.checks.append(Check(metric, round(model, 3), published, f"<= {hi:g}", model <= hi, note))

    def holds(self, metric: str, value: bool, published: str, note: str = "") -> None:
        """A structural claim that must hold exactly."""
        self.checks.append(Check(metric, value, published, "exact", bool(value), note))
