"""Fixtures: MONWRITE files written through the Python writer."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import write_sample_file

from ztwin.monitor import Writer, iso_to_tod


@pytest.fixture
def sample_file(tmp_path: Path) -> Path:
    path = tmp_path / "sample.monwrite"
    write_sample_file(path)
    return path


@pytest.fixture
def long_group_file(tmp_path: Path) -> Path:
    """One sample group of 100 MRSYTRSG records (492 bytes, 8 per frame: 13
    data blocks after the control record)."""
    path = tmp_path / "long.monwrite"
    t = iso_to_tod("2024-03-01T11:00:00Z")
    with Writer(path) as w:
        for i in range(100):
            w.add("MRSYTRSG", t, {"SYTRSG_RSAAVAIL": i})
        w.write_sample_set(t)
    return path
