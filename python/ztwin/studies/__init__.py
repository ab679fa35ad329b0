"""The published studies the twin reproduces (``shared/spec/studies.md``).

Each study runs its scenario variants through the twin, measures figures from
the MONWRITE files with the same decoding the reports use, and compares them
with the published values: ``ztwin study run NAME [--quick] [--json]``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ztwin.studies import s1_paging_single_thread, s2_undersized_lpar, s3_healthy_system
from ztwin.studies.base import Check, StudyResult

__all__ = ["STUDIES", "Check", "Study", "StudyResult", "run_study"]


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    runner: Callable[[bool, Path], StudyResult]


STUDIES: dict[str, Study] = {
    s.NAME: Study(s.NAME, s.TITLE, s.run)
    for s in (s1_paging_single_thread, s2_undersized_lpar, s3_healthy_system)
}


def run_study(name: str, quick: bool = False, workdir: Path | None = None) -> StudyResult:
    """Run one study; MONWRITE files go to `workdir` (a temporary directory by default)."""
    study = STUDIES[name]
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
        return study.runner(quick, workdir)
    with tempfile.TemporaryDirectory(prefix=f"ztwin-{name}-") as tmp:
        return study.runner(quick, Path(tmp))
