"""Short forms of the I/O studies (S5 pav-mdc, S7 pinned-data, S6's channel
part): every published figure a check, figures from the decoded records only;
the required checks hold and the predicted share stays above its floor."""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.studies import run_study


@pytest.mark.parametrize("name", ["pav-mdc", "pinned-data"])
def test_io_study_short_form_passes(name: str, tmp_path: Path) -> None:
    res = run_study(name, quick=True, workdir=tmp_path)
    assert res.ok, [c.to_json() for c in res.failed_required]
    by = {c.id: c for c in res.checks}
    # Every check names its source and category; structural claims hold.
    assert all(c.source and c.category for c in res.checks)
    assert all(c.ok for c in res.checks if c.category == "structural" and not c.gap)
    if name == "pav-mdc":
        # The defect: queue on the base while the aliases idle; the advisor says so.
        assert by["S5-S1"].ok and by["S5-S5"].ok
    else:
        # Caching stops: CACHEXT has no data and the advisor flags the jump.
        assert by["S7-S1"].ok and by["S7-S3"].ok


def test_vdisk_format_channels_short_form(tmp_path: Path) -> None:
    res = run_study("vdisk-format-channels", quick=True, workdir=tmp_path)
    assert res.ok, [c.to_json() for c in res.failed_required]
    by = {c.id: c for c in res.checks}
    assert by["S6-I2"].ok and by["S6-S2"].ok
    # After four more channels: page-outs crowd onto the large volumes with
    # free space, and the advisor says so (only after).
    assert by["S6-S3"].ok and by["S6-S5"].ok and by["S6-I3"].ok
    # The VDISK part: CP pages the VDISK pages, only in its emergency pass.
    assert by["S6-S6"].ok and by["S6-I6"].ok and by["S6-C4"].ok


EXPERIMENT_METRICS = {
    "edev-paging": ({"eckd-5.2", "eckd-5.3", "edev-5.2", "edev-5.3"},
                    {"page_moves_per_s", "cp_us_per_move", "touches_per_s", "virt_us_per_touch", "moves_per_touch"}),
    "edev-format": ({"5.2", "5.3"}, {"elapsed_s", "cp_cpu_ms"}),
    "edev-xedit-read": ({"5.2", "5.3"}, {"reads_per_s", "cp_us_per_read", "virt_us_per_read"}),
    "linux-pav-multipath": ({"paths-1", "paths-2", "paths-4", "paths-8"}, {"write_mb_s", "read_mb_s"}),
    "ess-limits": ({"single-disk", "single-ha", "4c4h4r"}, {"write_mb_s", "read_mb_s", "limit"}),
}


@pytest.mark.parametrize("name", list(EXPERIMENT_METRICS))
def test_experiment_short_form_prints_its_figures(name: str, tmp_path: Path) -> None:
    res = run_study(name, quick=True, workdir=tmp_path)
    assert res.ok, [c.to_json() for c in res.failed_required]
    variants, metrics = EXPERIMENT_METRICS[name]
    figs = res.to_json()["figures"]
    assert set(figs) == variants
    for v, f in figs.items():
        assert metrics <= set(f), (v, f)
        assert all(f[k] is not None for k in metrics), (v, f)
    # The structural claims (more paths never lower reads, EDEV costs more CP
    # per page than ECKD, WRITE SAME is faster, ...) are checks that must hold.
    assert res.checks and all(c.category == "structural" and c.ok for c in res.checks)
