"""VSWITCH activity on the twin's own data (examples/vswitch.toml): the
VSWITCH report (FCX240) from MRIODVSW, what it shows of an uplink whose
1 Gb/s line a backup stream fills, its text snapshot, the VSWITCH name from
6.1 on, and an empty report for a run without VSWITCHes.

A changed layout must be looked at: ZTWIN_UPDATE_SNAPSHOTS=1 rewrites
``snapshots/vswitch.txt``.
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
EXAMPLE = REPO / "examples" / "vswitch.toml"


@pytest.fixture(scope="module")
def vsw_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vswitch") / "vsw.monwrite"
    Scenario.load(EXAMPLE).run(out)
    return out


def test_vswitch_records(vsw_run: Path) -> None:
    t = tables(vsw_run, ["MRIODVSW", "MRIODQDS", "MRIODQDA"])
    v = t["MRIODVSW"]
    # One record per sample (3 one-minute intervals) for VSW1's uplink only
    # (VSW2 has none); its DATA device is the uplink's first device + 2.
    assert len(v) == 3
    assert set(v["IODVSW_RDEVDEV"].tolist()) == {0x0602}
    assert set(v["IODVSW_VMDUSER"].str.strip().tolist()) == {"DTCVSW1"}
    assert set(v["IODVSW_LANFSV"].tolist()) == {8} and set(v["IODVSW_LANIPTO"].tolist()) == {10}
    # Virtual NICs are not real QDIO devices: no QDIO records.
    assert len(t["MRIODQDS"]) == 0 and len(t["MRIODQDA"]) == 0


def test_vswitch_report_figures(vsw_run: Path) -> None:
    rep = build(vsw_run, ["VSWITCH"])["VSWITCH"]
    sysrow, up = rep.rows
    assert (sysrow["addr"], sysrow["name"]) == (">>", "System")
    assert (up["addr"], up["name"], up["controller"]) == ("0602", ".....", "DTCVSW1")
    assert (up["queue_storage"], up["timeout_s"]) == (8, 300)
    assert sysrow["tx_bytes_rate"] == up["tx_bytes_rate"]
    # Two backup guests stream 64 KB messages with no pause: the 1 Gb/s
    # line (payload plus 38 bytes of framing per 1492-byte packet) is the
    # limit, at least 95% used and never above it.
    wire = up["tx_bytes_rate"] + 38 * up["tx_packets_rate"]
    assert 0.95 * 125e6 < wire <= 125e6
    # Requests of 200 bytes and 1000-byte replies from the web guests: one
    # packet and one PCI interrupt per reply in.
    assert up["rx_bytes_rate"] == pytest.approx(1000 * up["rx_packets_rate"])
    assert up["pci_received_rate"] == pytest.approx(up["rx_packets_rate"])
    assert up["pci_processed_rate"] == pytest.approx(up["pci_received_rate"])
    assert up["tx_discards_rate"] == 0 and up["siga_r_rate"] == 0
    # One SIGA per outbound burst: fewer than the packets (a 64 KB message is 44).
    assert up["siga_w_rate"] < up["tx_packets_rate"] / 10


def test_vswitch_report_snapshot(vsw_run: Path) -> None:
    text = build(vsw_run, ["VSWITCH"])["VSWITCH"].to_text(WHEN)
    snap = SNAPSHOTS / "vswitch.txt"
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        snap.write_text(text, encoding="utf-8")
    assert snap.exists(), "no snapshot: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert text == snap.read_text(encoding="utf-8")


def test_vswitch_name_from_6_1(tmp_path: Path) -> None:
    text = EXAMPLE.read_text().replace('lpar_name = "ZVM1"', 'lpar_name = "ZVM1"\ncp_level = "6.2"')
    scen = tmp_path / "v62.toml"
    scen.write_text(text)
    out = tmp_path / "v62.monwrite"
    Scenario.load(scen).run(out)
    rows = build(out, ["VSWITCH"])["VSWITCH"].rows
    assert [r["name"] for r in rows] == ["System", "VSW1"]


def test_no_vswitch_no_records_and_an_empty_report(tmp_path: Path) -> None:
    out = tmp_path / "s.monwrite"
    Scenario.load(REPO / "examples" / "hipersockets.toml").run(out)
    assert len(tables(out, ["MRIODVSW"])["MRIODVSW"]) == 0
    rep = build(out, ["VSWITCH"])["VSWITCH"]
    assert rep.rows == []
    assert "no VSWITCH uplinks" in rep.to_text(WHEN)
