"""Text output of every report on the hand-built file, against stored snapshots.

A changed layout must be looked at: run with ZTWIN_UPDATE_SNAPSHOTS=1 to
rewrite ``snapshots/*.txt``, then review the diff. A missing snapshot fails.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from ztwin.reports import REPORTS, build

SNAPSHOTS = Path(__file__).parent / "snapshots"
WHEN = datetime(2024, 3, 2, 8, 30, 0)


@pytest.fixture(scope="module")
def texts(basic_file: Path) -> dict[str, str]:
    reps = build(basic_file, users=["LINUX01"])
    return {name: rep.to_text(WHEN) for name, rep in reps.items()}


@pytest.mark.parametrize("name", list(REPORTS))
def test_text_matches_snapshot(texts: dict[str, str], name: str) -> None:
    path = SNAPSHOTS / f"{name.lower()}.txt"
    text = texts[name]
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert text == path.read_text(encoding="utf-8")


def test_interim_header(basic_file: Path) -> None:
    rep = build(basic_file, ["SYSSUMLG"], start="10:02:00")["SYSSUMLG"]
    head = rep.to_text(WHEN).splitlines()[:5]
    assert head[0] == "FCX225  Run 2024/03/02 08:30:00         INTERIM SYSSUMLG"
    assert head[2].startswith("From 2024/03/01 10:02:00")
    assert head[4].startswith("For    120 Secs 00:02:00")
