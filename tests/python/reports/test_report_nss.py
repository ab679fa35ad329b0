"""The NSS report (saved segments, shared storage, spool) on the twin's own
data: examples/dcss-basics.toml, whose figures are known from the scenario.

A changed layout must be looked at: ZTWIN_UPDATE_SNAPSHOTS=1 rewrites
``snapshots/nss-dcss.txt``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from ztwin.reports import build
from ztwin.twin import Scenario

REPO = Path(__file__).resolve().parents[3]
SNAPSHOTS = Path(__file__).parent / "snapshots"
WHEN = datetime(2024, 3, 2, 8, 30, 0)


@pytest.fixture(scope="module")
def dcss_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tuple[str, ...]]:
    out = tmp_path_factory.mktemp("nss") / "dcss.monwrite"
    r = Scenario.load(REPO / "examples" / "dcss-basics.toml").run(out)
    return out, r.console


def test_console_shows_the_commands_and_cp_responses(dcss_run: tuple[Path, tuple[str, ...]]) -> None:
    _, console = dcss_run
    text = "\n".join(console)
    assert "CMSUSER  > saveseg dcssr" in text
    assert "HCP440I Saved segment DCSSR was successfully saved in fileid 0001." in text
    assert "HCP1364E Saved segment NOSUCH cannot be saved: it is not defined" in text
    assert "00:02:00.000 LNX2     RC=0 segment DCSSR loaded" in text


def test_nss_report_figures(dcss_run: tuple[Path, tuple[str, ...]]) -> None:
    path, _ = dcss_run
    rep = build(path, ["NSS"])["NSS"]
    rows = {r["name"]: r for r in rep.rows}
    assert set(rows) == {"DCSSR", "DCSSN"}
    # 128 MB shared read-only: 32,768 pages resident once the first load is in,
    # whatever the number of users; max users in the window: two shared.
    assert rows["DCSSR"]["resident_pages_max"] == 32768
    assert rows["DCSSN"]["resident_pages_max"] == 0, "SN pages never come from spool"
    text = rep.to_text(WHEN)
    assert "loaded (first user)" in text and "removed (last user)" in text
    # Spool: the saves (at 1 s) fall in the baseline interval before the
    # report's window; the first load's 32,768 pages are read in it.
    lines = [ln for ln in text.splitlines() if ln.strip().startswith("SPL")]
    assert len(lines) == 2
    written = sum(int(ln.split()[5]) for ln in lines)
    read_ = sum(int(ln.split()[6]) for ln in lines)
    assert (written, read_) == (0, 32768), text
    in_use = sum(int(ln.split()[3]) for ln in lines)
    assert in_use == 32770, "32,768 saved pages and two descriptor pages"



def test_nss_report_snapshot(dcss_run: tuple[Path, tuple[str, ...]]) -> None:
    path, _ = dcss_run
    text = build(path, ["NSS"])["NSS"].to_text(WHEN)
    snap = SNAPSHOTS / "nss-dcss.txt"
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        snap.write_text(text, encoding="utf-8")
    assert snap.exists(), "no snapshot: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert text == snap.read_text(encoding="utf-8")


def test_cli_run_prints_the_console(tmp_path: Path) -> None:
    out = tmp_path / "d.monwrite"
    p = subprocess.run(
        [sys.executable, "-m", "ztwin", "run", str(REPO / "examples" / "dcss-basics.toml"), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert "CP console" in p.stderr and "HCP440I" in p.stderr


def test_records_reduced_on_the_interval_pass_give_the_same_report(
    dcss_run: tuple[Path, tuple[str, ...]],
) -> None:
    """``collect_file(nss=True)``: the kernel's read folds NSS's records as it
    goes (issue 11: memory flat in file size); the report equals the one
    from the records read whole, for windows that start and end inside the
    file (records before the first interval, records after the last one);
    a summary whose window is not the report's is not used."""
    from ztwin.reports import build_from
    from ztwin.reports.core import collect_file

    path, _ = dcss_run
    windows = ((None, None), ("15:02:00", "15:04:00"), ("15:03:00", None), (None, "15:03:00"))
    for window in windows:
        iv = collect_file(path, *window, nss=True)
        s = iv.nss
        assert s is not None and s["exact"], window
        assert s["spool"], "the spool volumes are seen"
        reduced = build_from(iv, ["NSS"])["NSS"].to_text(WHEN)
        iv.nss = None  # the report reads the records itself
        whole = build_from(iv, ["NSS"])["NSS"].to_text(WHEN)
        assert reduced == whole, window
        if window == (None, None):
            assert s["shs"] is not None and s["segments"] and s["events"]
            assert "DCSSR" in reduced and "loaded (first user)" in reduced
        iv.nss = {**s, "lo": s["lo"] + 1, "events": [], "segments": [], "spool": [], "shs": None}
        assert build_from(iv, ["NSS"])["NSS"].to_text(WHEN) == whole, "a summary of another window is not used"
