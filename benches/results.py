"""bench-results.json, shared by the benchmark scripts (run.py, twin.py): each
merges its own keys into the file and keeps the other script's."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


def merge_into(path: Path, own_keys: Iterable[str], new: Mapping[str, Any]) -> None:
    """Drop `own_keys` (a script's keys from an earlier run) from the JSON object
    at `path`, add `new`, and write it back atomically. A missing or unreadable
    file counts as empty."""
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    for k in own_keys:
        data.pop(k, None)
    data.update(new)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)
