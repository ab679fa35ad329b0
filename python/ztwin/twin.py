"""The twin from Python: load a scenario, change values, run it.

>>> from ztwin.twin import Scenario                         # doctest: +SKIP
>>> sc = Scenario.load("studies/paging-single-thread.toml")
>>> sc.set("system.central_storage", "4G")                  # what if: more storage
>>> result = sc.run("more-storage.monwrite", seed=7)
>>> result.path, result.sim_s, result.refs_per_s

A run writes its MONWRITE file atomically: on any error (an invalid scenario, a
simulated abend such as PGT004, Ctrl-C) no output file is left behind. The same
scenario and seed always give a byte-identical file.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ztwin._native import ScenarioError, SimulationError, run_scenario, validate_scenario

__all__ = ["RunResult", "Scenario", "ScenarioError", "SimulationError", "run"]

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?")

Progress = Callable[[float, float], object]


@dataclass(frozen=True)
class RunResult:
    """What a run produced: the MONWRITE file and the closing figures."""

    path: Path
    seed: int
    sim_s: float
    wall_s: float
    events: int
    page_refs: int
    refs_per_s: float
    events_per_s: float
    sim_per_wall: float
    intervals: int
    records: int
    bytes: int


class Scenario:
    """A scenario: the parsed TOML as nested dicts and lists, plus where it came from."""

    def __init__(self, data: dict[str, Any], origin: str = "api", text: str | None = None) -> None:
        self.data = data
        self.origin = origin
        self._text = text  # original TOML text, used while unmodified (errors keep line numbers)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read and validate a TOML scenario file (raises :class:`ScenarioError`)."""
        p = Path(path)
        text = p.read_text(encoding="utf-8")
        validate_scenario(text, str(p), "toml")
        return cls(tomllib.loads(text), str(p), text)

    @classmethod
    def from_dict(cls, data: dict[str, Any], origin: str = "api") -> Scenario:
        """A scenario from a dict shaped like the TOML file (validated)."""
        sc = cls(copy.deepcopy(data), origin)
        sc.validate()
        return sc

    def copy(self) -> Scenario:
        return Scenario(copy.deepcopy(self.data), self.origin, self._text)

    def validate(self) -> None:
        """Raise :class:`ScenarioError` if the scenario is invalid."""
        text, fmt = self._source()
        validate_scenario(text, self.origin, fmt)

    def _source(self) -> tuple[str, Literal["toml", "json"]]:
        if self._text is not None:
            return self._text, "toml"
        return json.dumps(self.data), "json"

    def _walk(self, key: str, create: bool) -> tuple[Any, str | int]:
        parts = key.split(".")
        node: Any = self.data
        for i, part in enumerate(parts):
            m = _KEY.fullmatch(part)
            if not m:
                raise KeyError(f"{key!r}: {part!r} is not a key such as guest[0] or system")
            name, index = m.group(1), m.group(2)
            last = i == len(parts) - 1
            if last and index is None:
                return node, name
            if name not in node:
                if not create:
                    raise KeyError(f"{key!r}: no {name!r}")
                node[name] = {} if index is None else []
            node = node[name]
            if index is not None:
                idx = int(index)
                if not isinstance(node, list) or idx >= len(node):
                    raise KeyError(f"{key!r}: {name} has no element {idx}")
                if last:
                    return node, idx
                node = node[idx]
        raise KeyError(key)

    def get(self, key: str) -> Any:
        """A value by dotted key, e.g. ``system.central_storage`` or ``guest[0].workload.area``."""
        parent, k = self._walk(key, create=False)
        if isinstance(k, str) and k not in parent:
            raise KeyError(f"{key!r}: not set")
        return parent[k]

    def set(self, key: str, value: Any) -> Scenario:
        """Set a value by dotted key (tables are created as needed); returns self."""
        parent, k = self._walk(key, create=True)
        parent[k] = value
        self._text = None
        return self

    def run(
        self,
        out: str | Path,
        seed: int | None = None,
        duration: float | None = None,
        progress: Progress | None = None,
    ) -> RunResult:
        """Simulate and write the MONWRITE file ``out``.

        ``seed`` overrides ``scenario.seed``; ``duration`` (seconds) overrides
        ``scenario.duration``; ``progress(simulated_s, end_s)`` is called once per
        sample interval and may return False to stop.
        """
        text, fmt = self._source()
        d = run_scenario(text, self.origin, fmt, str(out), seed, duration, progress)
        return RunResult(
            path=Path(d["out"]),
            seed=d["seed"],
            sim_s=d["sim_s"],
            wall_s=d["wall_s"],
            events=d["events"],
            page_refs=d["page_refs"],
            refs_per_s=d["refs_per_s"],
            events_per_s=d["events_per_s"],
            sim_per_wall=d["sim_per_wall"],
            intervals=d["intervals"],
            records=d["records"],
            bytes=d["bytes"],
        )


def run(
    scenario: str | Path | Scenario,
    out: str | Path,
    seed: int | None = None,
    duration: float | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Load (if a path) and run a scenario; see :meth:`Scenario.run`."""
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    return sc.run(out, seed=seed, duration=duration, progress=progress)
