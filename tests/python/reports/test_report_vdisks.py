"""Virtual disks in storage on the twin's own data (examples/vdisk-basics.toml):
the CP console (DEFINE VFB-512 refused over SYSLIM, then defined; QUERY VDISK;
DETACH), the VDISKS report (FCX147) from MRSTOASI, its text snapshot, and the
advisor's VDISK and saved-segment rules on real runs.

A changed layout must be looked at: ZTWIN_UPDATE_SNAPSHOTS=1 rewrites
``snapshots/vdisks.txt``.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from ztwin.advisor import diagnose, load_rules
from ztwin.monitor import tables
from ztwin.reports import build
from ztwin.twin import Scenario

REPO = Path(__file__).resolve().parents[3]
SNAPSHOTS = Path(__file__).parent / "snapshots"
WHEN = datetime(2024, 3, 2, 8, 30, 0)


@pytest.fixture(scope="module")
def vdisk_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tuple[str, ...]]:
    out = tmp_path_factory.mktemp("vdisk") / "vdisk.monwrite"
    r = Scenario.load(REPO / "examples" / "vdisk-basics.toml").run(out)
    return out, r.console


def test_console_shows_define_refusal_query_and_detach(vdisk_run: tuple[Path, tuple[str, ...]]) -> None:
    text = "\n".join(vdisk_run[1])
    # 524288 blocks (the directory VDISK) + 131072 > SYSLIM 300M (614400 blocks).
    assert "00:00:30.000 CMSUSER  HCP1380E Virtual disk 0200 not defined; the system limit" in text
    assert "00:00:50.000 CMSUSER  DASD 0200 DEFINED" in text
    assert "VDISK SYSTEM LIMIT IS 2097152 BLK, 655360 BLK IN USE" in text
    assert "VDISK USER LIMIT IS INFINITE" in text
    assert "00:03:00.000 CMSUSER  DASD 0200 DETACHED" in text
    assert text.rstrip().endswith("VDISK SYSTEM LIMIT IS 2097152 BLK, 524288 BLK IN USE")


def test_vdisks_report_figures(vdisk_run: tuple[Path, tuple[str, ...]]) -> None:
    path, _ = vdisk_run
    rep = build(path, ["VDISKS"])["VDISKS"]
    rows = {r["vdev"]: r for r in rep.rows}
    assert set(rows) == {"0300", "0200"}
    swap, fmt = rows["0300"], rows["0200"]
    assert (swap["owner"], swap["blocks"]) == ("LNXSWAP", 524288)
    assert (fmt["owner"], fmt["blocks"]) == ("CMSUSER", 131072)
    # The swap disk is written more than read (write_share 0.7), in 8-page I/Os.
    assert swap["pages_written_rate"] > swap["pages_read_rate"] > 0
    rate = swap["io_rate"]
    assert 8 * rate == pytest.approx(swap["pages_written_rate"] + swap["pages_read_rate"], rel=1e-6)
    # Storage is short (the guests lose frames), yet the VDISKs' pages stay in
    # central storage: a written VDISK page is referenced, pass 1 leaves it,
    # pass 2 passes VDISKs over; only an emergency pass takes one (the first
    # scans, when every frame was referenced since the last look, take a few
    # hundred swap pages, the shared space first: under 0.1% of the disk on
    # average). Even the formatted disk (every page written once, then left
    # alone) keeps all its pages: in the model a page written once sticks as
    # one written often.
    pages = 524288 // 8
    assert 0 < swap["resident_mean"] <= swap["resident_max"] <= pages
    assert swap["xstor_mean"] + swap["dasd_mean"] < 0.001 * pages
    assert fmt["resident_mean"] == 131072 // 8 and fmt["xstor_mean"] + fmt["dasd_mean"] == 0


def test_shared_steals_in_the_steal_counters(vdisk_run: tuple[Path, tuple[str, ...]]) -> None:
    """MRSTORSP counts the frames taken from shared address spaces (VDISKs):
    pass 1 (unreferenced ones), the emergency pass; pass 2 has no counter:
    it passes them over. Here the users' frames go in passes 1 and 2; VDISK
    pages go in the emergency pass of the first scans (every frame was
    referenced since the last look) and, once a block read brought some
    back unreferenced, a few in pass 1: under 1% of the steals."""
    path, _ = vdisk_run
    sp = tables(path, ["MRSTORSP"])["MRSTORSP"]
    last = sp[sp["tod"] == sp["tod"].max()]
    shar1, share = int(last["STORSP_PLSSHAR1"].sum()), int(last["STORSP_PLSSHARE"].sum())
    users = [f"STORSP_PLS{w}{p}" for p in "12" for w in ("LTD", "DORM", "ELIG", "DISP")]
    taken = int(last[users].sum().sum())
    assert taken > 0 and share > 0
    assert shar1 + share < 0.01 * taken


def test_vdisks_report_snapshot(vdisk_run: tuple[Path, tuple[str, ...]]) -> None:
    path, _ = vdisk_run
    text = build(path, ["VDISKS"])["VDISKS"].to_text(WHEN)
    snap = SNAPSHOTS / "vdisks.txt"
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        snap.write_text(text, encoding="utf-8")
    assert snap.exists(), "no snapshot: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert text == snap.read_text(encoding="utf-8")


def test_no_vdisks_no_records_and_an_empty_report(tmp_path: Path) -> None:
    out = tmp_path / "s.monwrite"
    Scenario.load(REPO / "examples" / "dcss-basics.toml").run(out)
    assert len(tables(out, ["MRSTOASI"])["MRSTOASI"]) == 0
    rep = build(out, ["VDISKS"])["VDISKS"]
    assert rep.rows == [] and "(no virtual disks in the selected period)" in rep.to_text(WHEN)


def test_advisor_vdisk_against_paging_space(vdisk_run: tuple[Path, tuple[str, ...]]) -> None:
    path, _ = vdisk_run
    # Two 3390-3 paging volumes (about 1.2M slots) hold the 80,000 VDISK
    # pages easily: silent by default ...
    d = diagnose(path, "15:03:00", "15:05:00")
    assert d.get("vdisk-paging-space") is None
    # ... and information when the threshold is lowered below their share.
    rules = load_rules(text="[vdisk-paging-space]\ninfo = 1.0\nwarning = 50.0\n")
    f = diagnose(path, "15:03:00", "15:05:00", rules=rules).get("vdisk-paging-space")
    assert f is not None and f.severity == "info"
    assert "65,536 pages in all" in f.evidence[0].summary  # the 256 MB directory VDISK (0200 is detached)
    assert [r["space"] for r in f.evidence[0].rows] == ["VDISK$LNXSWAP$0300"]


def test_advisor_saved_segment_never_used(tmp_path: Path) -> None:
    out = tmp_path / "d.monwrite"
    Scenario.load(REPO / "examples" / "dcss-basics.toml").run(out)
    d = diagnose(out)
    f = d.get("segment-unused")
    assert f is not None and f.severity == "info"
    # DCSSN is saved but no guest loads it; DCSSR is loaded by the Linux guests.
    assert [r["segment"] for r in f.evidence[0].rows] == ["DCSSN"]
    # Spool is far from full: no spool finding.
    assert d.get("spool-space-segments") is None
    rules = load_rules(text="[spool-space-segments]\ninfo = 0.001\nwarning = 90.0\n")
    s = diagnose(out, rules=rules).get("spool-space-segments")
    assert s is not None and s.severity == "info" and "2 saved segments" in s.evidence[0].summary
