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
        # "module" (its run) or "module:function".
        name, _, func = self.module.partition(":")
        mod = importlib.import_module(f"ztwin.studies.{name}")
        run: Callable[[bool, Path], StudyResult] = getattr(mod, func or "run")
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
        Study(
            "swap-device-choice",
            "D2: a Linux guest that swaps: to DASD, VDISK or a DCSS, or a bigger guest without swap",
            "d2_swap_device_choice",
        ),
        Study(
            "dcss-shared-binaries",
            "D3: five WebSphere guests run their binaries from a DCSS (XIP) or from minidisk with larger guests",
            "d3_dcss_shared_binaries",
        ),
        Study(
            "dcss-readonly-db",
            "D4: a read-only database for five Linux guests: shared minidisk, with MDC, in a DCSS (XIP)",
            "d4_dcss_readonly_db",
        ),
        Study(
            "emergency-scan-vdisk",
            "S4: emergency scan rises with written VDISKs while the workload is unaffected: not duress",
            "s4_emergency_scan_vdisk",
        ),
        Study(
            "pav-mdc",
            "S5: the minidisk cache's own I/Os forced to the PAV base (VM64199): queue on the base, aliases idle",
            "s5_pav_mdc",
        ),
        Study(
            "vdisk-format-channels",
            "S6 (channel part): paging volumes on two ESCON channels wait for a path (pending time)",
            "s6_vdisk_format_channels",
        ),
        Study(
            "pinned-data",
            "S7: a control unit stops caching one volume (pinned data): disconnect and response jump",
            "s7_pinned_data",
        ),
        Study(
            "hipersockets-cpu",
            "S8: z/OS partitions keep the CEC's CPs full; z/VM on IFLs looks fine (HiperSockets seem slow)",
            "s8_hipersockets_cpu",
        ),
        Study(
            "era-compare",
            "Issue 15: one overcommitted Linux workload under z/VM 5.4 (XSTOR) and 7.3 (aging list, HyperPAV paging)",
            "era_compare",
        ),
        Study(
            "flash-morning-transition",
            "Issue 19: z/OS the morning after batch, SVC and stand-alone dumps: page data sets vs Flash Express",
            "f1_flash_morning",
        ),
        # The I/O experiments (figures from the model, structural claims checked).
        Study("edev-paging", "Experiment: paging to ECKD vs EDEV at CP 5.2 and 5.3 (CP per page moved)",
              "io_experiments:edev_paging"),
        Study("edev-format", "Experiment: CMS FORMAT of an EDEV minidisk, 5.2 vs 5.3 (SCSI WRITE SAME)",
              "io_experiments:edev_format"),
        Study("edev-xedit-read", "Experiment: XEDIT file reads from an EDEV minidisk, 5.2 vs 5.3",
              "io_experiments:edev_xedit_read"),
        Study("linux-pav-multipath", "Experiment: Linux sequential I/O over 1-8 paths (base + PAV aliases)",
              "io_experiments:linux_pav_multipath"),
        Study("ess-limits", "Experiment: Linux sequential I/O on an ESS 2105-F20 in six layouts: what saturates",
              "io_experiments:ess_limits"),
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
