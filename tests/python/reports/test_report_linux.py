"""The Linux reports (LXCPU, LXMEM, LXNETWRK) on the twin's own data
(examples/linux-appldata.toml): their figures recomputed here from the raw
APPLDATA records, the guests without appldata absent, the history database
case, and text snapshots.

A changed layout must be looked at: ZTWIN_UPDATE_SNAPSHOTS=1 rewrites
``snapshots/lx*.txt``.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from ztwin.monitor import appldata
from ztwin.reports import build
from ztwin.twin import Scenario

REPO = Path(__file__).resolve().parents[3]
SNAPSHOTS = Path(__file__).parent / "snapshots"
WHEN = datetime(2024, 3, 2, 8, 30, 0)
NAMES = ["LXCPU", "LXMEM", "LXNETWRK", "LXVMMEM"]


@pytest.fixture(scope="module")
def linux_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("linux") / "linux.monwrite"
    Scenario.load(REPO / "examples" / "linux-appldata.toml").run(out)
    return out


def by_user(path: Path, module: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in appldata(path):
        if r["module"] == module:
            out.setdefault(r["userid"], []).append(r)
    return out


def test_records_per_guest_and_module(linux_run: Path) -> None:
    recs = appldata(linux_run)
    # Five samples, three guests, three modules each.
    assert len(recs) == 5 * 3 * 3
    assert {r["userid"] for r in recs} == {"LNXBIG", "LNXWEB", "LNXIDLE"}
    assert all(r["consistent"] for r in recs)


def test_lxmem_figures(linux_run: Path) -> None:
    rep = build(linux_run, ["LXMEM"])["LXMEM"]
    rows = {r["userid"]: r for r in rep.rows}
    raw = by_user(linux_run, "mem")
    for user, row in rows.items():
        recs = raw[user]
        # The window is the file's intervals: from the first sample's record
        # (at the first interval's start) to the last.
        first, last = recs[0]["fields"], recs[-1]["fields"]
        secs = (last["timestamp"] - first["timestamp"]) / 4096e6
        assert row["pswpout_s"] == pytest.approx((last["pswpout"] - first["pswpout"]) / secs)
        assert row["pgmajfault_s"] == pytest.approx((last["pgmajfault"] - first["pgmajfault"]) / secs)
        inside = [r["fields"] for r in recs[1:]]
        assert row["free_mb"] == pytest.approx(sum(f["freeram"] for f in inside) / len(inside) / 1024)
        assert row["total_mb"] == {"LNXBIG": 256, "LNXWEB": 256, "LNXIDLE": 128}[user]
    big, web, idle = rows["LNXBIG"], rows["LNXWEB"], rows["LNXIDLE"]
    # LNXBIG's 240M of anonymous memory do not fit beside its 48M kernel: it swaps.
    assert big["pswpout_s"] > 0 and big["pgmajfault_s"] > 0 and big["swap_used_mb"] > 0
    assert big["swap_total_mb"] == 64 + 512
    # LNXWEB fits: no swap device, its spare storage fills with page cache.
    assert web["pswpout_s"] == 0 and web["cached_mb"] > 50 and web["swap_total_mb"] == 0
    # LNXIDLE: only the kernel's 32M used.
    assert idle["used_mb"] == pytest.approx(32)


def test_lxcpu_figures(linux_run: Path) -> None:
    rep = build(linux_run, ["LXCPU"])["LXCPU"]
    rows = {r["userid"]: r for r in rep.rows}
    big = rows["LNXBIG"]
    assert big["cpus"] == 2 and big["nr_threads"] == 2
    # Every tick of the window is accounted for, per CPU.
    parts = sum(big[f"{k}_pct"] for k in ("user", "nice", "system", "irq", "softirq", "iowait", "steal", "idle"))
    assert parts == pytest.approx(100, abs=1.0)
    # Linux's own memory management and swap work is system time (it swaps).
    assert big["user_pct"] > 0 and big["system_pct"] > 0
    assert big["total_pct"] == pytest.approx(big["user_pct"] + big["system_pct"])
    assert rows["LNXIDLE"]["total_pct"] == 0 and rows["LNXIDLE"]["idle_pct"] == pytest.approx(100, abs=1.0)
    assert 0 <= big["load_15"] <= big["load_5"] <= big["load_1"] <= 2


def test_lxnetwrk_is_honest_about_no_network_model(linux_run: Path) -> None:
    rep = build(linux_run, ["LXNETWRK"])["LXNETWRK"]
    rows = {r["userid"]: r for r in rep.rows}
    assert rows["LNXWEB"]["interfaces"] == 2 and rows["LNXBIG"]["interfaces"] == 1
    assert all(r["rx_packets_s"] == 0 for r in rep.rows)
    assert "no network model" in rep.to_text(WHEN)


def test_lxvmmem_puts_linux_beside_zvm(linux_run: Path) -> None:
    reps = build(linux_run, ["LXVMMEM", "LXMEM", "UPAGE"])
    rows = {r["userid"]: r for r in reps["LXVMMEM"].rows}
    lx = {r["userid"]: r for r in reps["LXMEM"].rows}
    vm = {r["userid"]: r for r in reps["UPAGE"].rows}
    for user, row in rows.items():
        assert row["lx_free_mb"] == lx[user]["free_mb"] and row["lx_cached_mb"] == lx[user]["cached_mb"]
        assert row["vm_resident_mb"] == pytest.approx(vm[user]["resident"] * 4 / 1024)
        assert row["held_idle_mb"] == pytest.approx(max(row["vm_resident_mb"] - row["lx_used_mb"], 0))
    # LNXWEB's page cache (its fill) is in frames CP keeps resident.
    assert rows["LNXWEB"]["held_idle_mb"] > 50


def test_reports_on_a_file_without_appldata_are_empty(basic_file: Path) -> None:
    reps = build(basic_file, NAMES)
    for name in NAMES:
        assert reps[name].rows == []
        assert "no Linux APPLDATA records" in reps[name].to_text(WHEN)


@pytest.mark.parametrize("name", NAMES)
def test_snapshot(linux_run: Path, name: str) -> None:
    text = build(linux_run, [name])[name].to_text(WHEN)
    path = SNAPSHOTS / f"{name.lower()}.txt"
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert text == path.read_text(encoding="utf-8")
