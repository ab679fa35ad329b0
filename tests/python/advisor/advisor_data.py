"""Hand-built interval data for the advisor's checks (imported by the tests;
conftest.py puts this directory on sys.path).

``iv(...)`` builds one :class:`Interval` from the figures a test states;
``user(...)`` turns wait-state percentages into the high-frequency sample
counts the checks use (100 samples per interval); ``period(...)`` puts
intervals and devices together. Tests say which figures trigger a rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from ztwin.advisor import Diagnosis, Finding, Period, evaluate, load_rules
from ztwin.advisor.facts import Device, Interval

T0 = datetime(2024, 3, 1, 10, 0, 0)
STEP = 600.0


def iv(
    i: int,
    sys_: Mapping[str, Any] | None = None,
    users: Mapping[str, Mapping[str, Any]] | None = None,
    devices: Mapping[int, Mapping[str, Any]] | None = None,
    exposures: Mapping[int, Mapping[str, Any]] | None = None,
    lpar: Mapping[str, Any] | None = None,
    seconds: float = STEP,
) -> Interval:
    start = T0 + timedelta(seconds=i * seconds)
    return Interval(
        index=i,
        start=start,
        end=start + timedelta(seconds=seconds),
        seconds=seconds,
        sys=dict(sys_ or {}),
        users={u: dict(m) for u, m in (users or {}).items()},
        devices={d: dict(m) for d, m in (devices or {}).items()},
        exposures={d: dict(m) for d, m in (exposures or {}).items()},
        lpar=dict(lpar or {}),
    )


def user(act: float = 100.0, run: float = 0.0, cpu: float = 0.0, pgw: float = 0.0, iow: float = 0.0,
         ti: float = 0.0, **figures: Any) -> dict[str, Any]:  # fmt: skip
    """A user's figures: states in % of all samples (100 per interval)."""
    m: dict[str, Any] = {
        "hf_total": 100.0, "hf_queue": act, "hf_run": run, "hf_cpu": cpu, "hf_pgw": pgw, "hf_iow": iow,
        "hf_ti": ti, "act_pct": act, "run_pct": run, "cpu_pct": cpu, "pgw_pct": pgw, "iow_pct": iow, "ti_pct": ti,
    }  # fmt: skip
    m.update(figures)
    return m


def period(
    intervals: Sequence[Interval],
    devices: Sequence[Device] = (),
    history: Sequence[Interval] = (),
    storage_gb: float | None = 8.0,
    **kw: Any,
) -> Period:
    p = Period(path="hand-built", intervals=list(intervals), history=list(history), **kw)
    p.storage_bytes = int(storage_gb * 2**30) if storage_gb else None
    p.devices = {d.devno: d for d in devices}
    return p


def run(p: Period, rules_text: str | None = None) -> list[Finding]:
    return evaluate(p, load_rules(text=rules_text) if rules_text else load_rules())


def by_id(findings: Sequence[Finding]) -> dict[str, Finding]:
    return {f.id: f for f in findings}


def diag(p: Period, findings: list[Finding]) -> Diagnosis:
    return Diagnosis(p, findings, load_rules())
