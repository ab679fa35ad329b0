"""D3 dcss-shared-binaries (the short form: five 120 s runs of a few seconds
each): five WebSphere guests execute their binaries in place from a DCSS, or
read them from a shared minidisk with guests of 768-783 MB. Figures from the
decoded records (LXCPU, STORAGE, the segment copy's MRSTOASI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.studies import run_study
from ztwin.twin import Scenario, ScenarioError


def test_shared_binaries(tmp_path: Path) -> None:
    res = run_study("dcss-shared-binaries", quick=True, workdir=tmp_path)
    assert res.ok, [c.to_json() for c in res.failed_required]
    by = {c.id: c for c in res.checks}
    assert all(c.source and c.category for c in res.checks)
    # Lazy loading: some of the binaries' pages loaded, never more than the
    # 400 MB the transactions use, never the 6 GB; none on paging DASD.
    pages = res.info["dcss_pages_mb"]
    assert pages and all(d == 0.0 for _, _, d in pages), pages
    assert 50.0 < max(r + x for r, x, _ in pages) <= 400.0, pages
    # Under z/VM's memory pressure CP stole some of the segment's pages:
    # they went to XSTOR (XSTOR has room here), not to DASD.
    assert any(x > 0 for _, x, _ in pages), pages
    # CP's pass 1 ages the copy's frames as a user's: the pages the
    # transactions no longer execute leave main storage while the guests run
    # (the paper's 10 MB resident, 50 MB peak); only the hot part stays.
    assert max(r for r, _, _ in pages) <= 50.0, pages
    assert by["D3-P3"].ok, by["D3-P3"].model
    # The DCSS case has no I/O wait for binaries (executed in place); the
    # minidisk guests wait for their page-cache misses.
    v = res.info["variants"]
    assert v["dcss"]["iowait_pct"] == 0.0
    assert all(v[n]["iowait_pct"] > 1.0 for n in ("disk768", "disk773", "disk778", "disk783"))
    assert by["D3-P4"].ok, by["D3-P4"].model


def test_heap_larger_than_the_guest_is_an_error(tmp_path: Path) -> None:
    from ztwin.studies.base import studies_dir

    text = (studies_dir() / "dcss-shared-binaries.toml").read_text().replace('heap = "700M"', 'heap = "900M"')
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(ScenarioError) as e:
        Scenario.load(p)
    msg = str(e.value)
    assert "workload.heap" in msg and "768 MB" in msg and "line" in msg, msg
