"""Fixtures for the advisor tests. Hand-built interval data lives in
``advisor_data.py``; MONWRITE files are written with the reports' builders."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "reports"))


@pytest.fixture
def rules_file(tmp_path: Path) -> Any:
    def write(text: str, name: str = "rules.toml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write
