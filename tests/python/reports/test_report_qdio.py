"""QDIO device activity on the twin's own data (examples/hipersockets.toml):
the QDIO report (FCX251) from MRIODQDS and MRIODQDA, what it shows of
HiperSockets in a CPU-constrained CEC against an OSA, its text snapshot, and
an empty report for a run without QDIO devices.

A changed layout must be looked at: ZTWIN_UPDATE_SNAPSHOTS=1 rewrites
``snapshots/qdio.txt``.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from ztwin.monitor import tables
from ztwin.reports import build
from ztwin.twin import Scenario

REPO = Path(__file__).resolve().parents[3]
SNAPSHOTS = Path(__file__).parent / "snapshots"
WHEN = datetime(2024, 3, 2, 8, 30, 0)


@pytest.fixture(scope="module")
def hs_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("qdio") / "hs.monwrite"
    Scenario.load(REPO / "examples" / "hipersockets.toml").run(out)
    return out


def test_qdio_records(hs_run: Path) -> None:
    t = tables(hs_run, ["MRIODQDA", "MRIODQDS", "MRIODQDD"])
    qda = t["MRIODQDA"]
    # One activation per guest device at logon; no deactivation (no logoff).
    assert sorted(qda["IODQDA_RDEVDEV"].tolist()) == [0x7000, 0x7003, 0x7100, 0x7103, 0x7200, 0x7300]
    fmt = dict(zip(qda["IODQDA_RDEVDEV"], qda["IODQDA_QDIOFMT"], strict=True))
    assert fmt[0x7000] == 2 and fmt[0x7100] == 0  # HiperSockets, QDIO (OSA)
    assert len(t["MRIODQDD"]) == 0
    # One MRIODQDS per device and interval (4 one-minute intervals).
    assert len(t["MRIODQDS"]) == 6 * 4


def test_qdio_report_figures(hs_run: Path) -> None:
    rep = build(hs_run, ["QDIO"])["QDIO"]
    rows = {r["device"]: r for r in rep.rows}
    assert set(rows) == {"7000", "7003", "7100", "7103", "7200", "7300"}
    hs, osa, st, cr = rows["7000"], rows["7100"], rows["7200"], rows["7300"]
    assert (hs["owner"], hs["format"], hs["chpid"]) == ("LNXHS1", "HIPERS", "F4")
    assert (osa["owner"], osa["format"]) == ("LNXOSA1", "QDIO")
    # Request/response: one 600-byte buffer out and in per transaction.
    assert hs["bytes_per_buf"] == pytest.approx(600)
    assert hs["siga_w_rate"] == pytest.approx(hs["bufs_out_rate"])
    assert hs["bytes_in_rate"] == pytest.approx(hs["bytes_out_rate"], rel=0.01)
    # A 64 KB stream goes in 16K frames (the CHPID's frame size), no replies.
    assert st["bytes_per_buf"] == pytest.approx(16384) and st["bufs_in_rate"] == 0
    # Connect, request, close out; connect acknowledgement and response in.
    assert cr["bufs_out_rate"] == pytest.approx(3 * cr["bufs_in_rate"] / 2, rel=0.02)
    # With exact think times (jitter 0) a guest's rate tells its response
    # time: 1/rate - 50 ms. Half the run ZOSA gets a third of the CP it asks
    # for: HiperSockets requests wait for its logical CP, OSA's do not.
    resp = {d: 1000.0 / rows[d]["siga_w_rate"] - 50.0 for d in ("7000", "7003", "7100", "7103")}
    assert min(resp["7000"], resp["7003"]) > 2 * max(resp["7100"], resp["7103"]), resp


def test_qdio_report_snapshot(hs_run: Path) -> None:
    text = build(hs_run, ["QDIO"])["QDIO"].to_text(WHEN)
    snap = SNAPSHOTS / "qdio.txt"
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        snap.write_text(text, encoding="utf-8")
    assert snap.exists(), "no snapshot: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert text == snap.read_text(encoding="utf-8")


def test_no_qdio_devices_no_records_and_an_empty_report(tmp_path: Path) -> None:
    out = tmp_path / "s.monwrite"
    Scenario.load(REPO / "examples" / "dcss-basics.toml").run(out)
    assert len(tables(out, ["MRIODQDS"])["MRIODQDS"]) == 0
    rep = build(out, ["QDIO"])["QDIO"]
    assert rep.rows == [] and "(no active QDIO devices in the selected period)" in rep.to_text(WHEN)
