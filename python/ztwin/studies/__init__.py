"""The published studies the twin reproduces (``shared/spec/studies.md``).

Each study runs its scenario variants through the twin, measures figures from
the MONWRITE files with the same decoding the reports use, and compares them
with the published values: ``ztwin study run NAME [--quick] [--json]``.
"""

from __future__ import annotations

import importlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ztwin.studies.base import Check, StudyResult

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["STUDIES", "Check", "Study", "StudyResult", "run_study"]


@dataclass(frozen=True)
class Study:
    """A study's name, title and the module that runs it (imported on first
    use, so listing studies or starting the CLI stays light)."""

    name: str
    title: str
    module: str

    @property
    def runner(self) -> Callable[[bool, Path], StudyResult]:
        mod = importlib.import_module(f"ztwin.studies.{self.module}")
        run: Callable[[bool, Path], StudyResult] = mod.run
        return run


STUDIES: dict[str, Study] = {
    s.name: s
    for s in (
        Study(
            "paging-single-thread",
            "S1: one single-threaded faulting guest cannot use the paging volumes' capacity",
            "s1_paging_single_thread",
        ),
        Study(
            "undersized-lpar",
            "S2: an undersized LPAR before and after adding storage, paging volumes and a CPU",
            "s2_undersized_lpar",
        ),
        Study(
            "healthy-system",
            "S3: a healthy system; whatever limits the applications, it is not z/VM",
            "s3_healthy_system",
        ),
        Study(
            "dcss-load-times",
            "D1: saving and loading large DCSSs of type SN and SR (SAVESEG, Linux add and save)",
            "d1_dcss_load_times",
        ),
    )
}


def run_study(name: str, quick: bool = False, workdir: Path | None = None) -> StudyResult:
    """Run one study; MONWRITE files go to `workdir` (a temporary directory by default)."""
    study = STUDIES[name]
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
        return study.runner(quick, workdir)
    with tempfile.TemporaryDirectory(prefix=f"ztwin-{name}-") as tmp:
        return study.runner(quick, Path(tmp))
