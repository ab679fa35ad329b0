"""AGELLOG (the global aging list by time) on the twin's own data: a 7.3
run writes MRSTORSG at its 6.3 size with the INFERRED aging-list block, the
reader decodes it, the report's figures agree with the other records (the
frames reused from the list are the steals of MRSYTRSP), its text
snapshot, and "no data at this level" for a 5.4 file.

A changed layout must be looked at: ZTWIN_UPDATE_SNAPSHOTS=1 rewrites
``snapshots/agellog.txt``.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from ztwin.monitor import tables
from ztwin.reports import build
from ztwin.reports.agelist import NO_DATA
from ztwin.twin import Scenario

SNAPSHOTS = Path(__file__).parent / "snapshots"
WHEN = datetime(2024, 3, 4, 11, 0, 0)

#: Four Linux guests thrashing 900M each (35% hot) at CP level `level`;
#: shared with the advisor's Era C tests (tests/python/advisor).
SCENARIO = """
[scenario]
duration = "{duration}"
start = "2024-03-04T10:00:00Z"
[system]
cp_level = "{level}"
processors = 2
processor_type = "IFL"
central_storage = "{storage}"
[monitor]
sample_interval = "30s"
[[paging]]
device_type = "3390-9"
count = 2
first_address = "0200"
volser_prefix = "PAG"
[[guest]]
userid = "LNX"
count = 4
virtual_storage = "1G"
virtual_cpus = 1
workload = {{ type = "thrasher", area = "900M", pattern = "working_set", hot_fraction = 0.35, hot_share = {hot_share}, touch = "write", cpu_per_touch_us = 20.0, burst_touches = 100, think = "2ms" }}
{agelist}
"""


def scenario(
    level: str = "7.3", storage: str = "1536M", hot_share: float = 0.9, agelist: str = "", duration: str = "150s"
) -> str:
    return SCENARIO.format(level=level, storage=storage, hot_share=hot_share, agelist=agelist, duration=duration)


def _run(tmp: Path, level: str) -> Path:
    sc = tmp / f"agl-{level}.toml"
    sc.write_text(scenario(level))
    out = tmp / f"agl-{level}.monwrite"
    Scenario.load(sc).run(out)
    return out


@pytest.fixture(scope="module")
def run73(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("agl73"), "7.3")


def test_the_records_carry_the_aging_list_at_the_6_3_size(run73: Path) -> None:
    t = tables(run73, ["MRSTORSG"])["MRSTORSG"]
    assert len(t) == 5
    assert t["STORSG_AGLTARGT"].nunique() == 1 and int(t["STORSG_AGLTARGT"].iloc[0]) > 0
    assert (t["STORSG_AGLFRAME"] <= 2 * t["STORSG_AGLTARGT"]).all()
    assert set(t["STORSG_AGLFLAGS"]) == {"80"}  # early writes on (the default)
    # Cumulative counters never go down.
    for k in ("MOVED", "RECLM", "FRNIO", "PGOUT", "EWRIT", "REPLN"):
        assert t[f"STORSG_AGL{k}"].is_monotonic_increasing, k
    assert int(t["STORSG_AGLMOVED"].iloc[-1]) > 0 and int(t["STORSG_AGLEWRIT"].iloc[-1]) > 0


def test_the_frames_reused_are_the_steals(run73: Path) -> None:
    reps = build(run73, ["AGELLOG", "STORAGE"])
    rows = reps["AGELLOG"].rows
    # The first sample starts the first interval: 4 intervals after the mean.
    assert rows[0]["interval_end"] == ">>Mean>>" and len(rows) == 5
    mean = rows[0]
    # Every frame CP stole at 7.3 came from the head of the aging list.
    assert mean["reused_rate"] == pytest.approx(reps["STORAGE"].rows[0]["steal_rate"], rel=1e-9)
    assert mean["reused_rate"] > 0
    for r in rows:
        for k in ("reclaim_pct", "noio_pct", "written_pct", "wait_pct"):
            assert r[k] is None or 0.0 <= r[k] <= 100.0, (k, r)
        if r["noio_pct"] is not None:
            # Freed with no I/O or waiting for a write: nothing else.
            assert r["noio_pct"] + r["wait_pct"] == pytest.approx(100.0)
            assert r["written_pct"] <= r["noio_pct"] + 1e-9
    assert mean["earlywrites"] == "YES"


def test_agellog_snapshot(run73: Path) -> None:
    text = build(run73, ["AGELLOG"])["AGELLOG"].to_text(WHEN)
    snap = SNAPSHOTS / "agellog.txt"
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        snap.write_text(text, encoding="utf-8")
    assert snap.exists(), "no snapshot: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert text == snap.read_text(encoding="utf-8")


def test_an_era_a_file_has_no_data_at_this_level(tmp_path: Path) -> None:
    out = _run(tmp_path, "5.4")
    rep = build(out, ["AGELLOG"])["AGELLOG"]
    assert rep.rows == []
    assert any(NO_DATA in line for line in rep.pre_lines), rep.pre_lines
    # The 5.4 layout of MRSTORSG has no aging-list fields.
    assert not [c for c in tables(out, ["MRSTORSG"])["MRSTORSG"].columns if "AGL" in c]
