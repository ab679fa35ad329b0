"""The twin from Python: load a scenario, change values, run it.

>>> from ztwin.twin import Scenario                         # doctest: +SKIP
>>> sc = Scenario.load("studies/paging-single-thread.toml")
>>> sc.set("system.central_storage", "4G")                  # what if: more storage
>>> result = sc.run("more-storage.monwrite", seed=7)
>>> result.path, result.sim_s, result.refs_per_s

A run writes its MONWRITE file atomically, through :mod:`ztwin.safeout`: the
output path is checked before the simulation starts (a device, FIFO, directory,
symbolic link without ``force=True``, or the scenario file itself is refused
with :class:`~ztwin.safeout.OutputError`), and on any error (an invalid
scenario, Ctrl-C, SIGTERM) no output file is left behind. The same scenario and
seed always give a byte-identical file.
"""

from __future__ import annotations

import copy
import json
import math
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ztwin._native import ScenarioError, SimulationError, run_scenario, validate_scenario
from ztwin.safeout import OutputError, OutputFile

__all__ = ["SEED_MAX", "OutputError", "RunResult", "Scenario", "ScenarioError", "SimulationError", "run"]

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?")
#: Seeds are unsigned 64-bit integers.
SEED_MAX = 2**64 - 1


def scenario_error(origin: str, place: str, reason: str, line: int | None = None) -> ScenarioError:
    """A :class:`ScenarioError` made in Python, shaped like the engine's:
    ``origin: line N: place: reason`` (``line`` is the TOML file's line, if
    known; ``place`` the key path, if any)."""
    where = "".join(f"{w}: " for w in (f"line {line}" if line is not None else "", place) if w)
    e = ScenarioError(f"{origin}: {where}{reason}")
    e.origin, e.line, e.place, e.reason = origin, line, place, reason
    return e


def _decode(data: bytes, origin: str) -> str:
    """Scenario text from a file's bytes: UTF-8 TOML text, or a clear error
    (a binary file, bytes that are not UTF-8, a JSON document)."""
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise scenario_error(
            origin, "", f"a binary file, not a TOML scenario (byte X'00' at offset {nul})", line
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise scenario_error(
            origin,
            "",
            f"not UTF-8 text (byte X'{data[e.start]:02X}' at offset {e.start}); "
            "scenario files are TOML, which is UTF-8",
            line,
        ) from None
    if text.lstrip().startswith("{"):
        # No TOML document starts with "{" (TOML's parser says only "invalid key-value pair").
        line = text[: len(text) - len(text.lstrip())].count("\n") + 1
        raise scenario_error(origin, "", "this is JSON, not TOML: scenario files are TOML (docs/scenario.md)", line)
    return text


def _check_numbers(node: Any, origin: str, path: str = "") -> None:
    """NaN and infinity have no JSON form: name the key that holds one."""
    if isinstance(node, float) and not math.isfinite(node):
        raise scenario_error(origin, path or "(top)", f"{node} is not a number the scenario can use")
    if isinstance(node, dict):
        for k, v in node.items():
            _check_numbers(v, origin, f"{path}.{k}" if path else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _check_numbers(v, origin, f"{path}[{i}]")


def check_seed(seed: int | None) -> None:
    """Raise ``ValueError`` unless ``seed`` is None or in ``0..SEED_MAX``."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX):
        raise ValueError(f"seed {seed!r} must be an integer from 0 to {SEED_MAX} (2**64 - 1)")

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
    #: The CP console: the timeline's CP commands and DIAGNOSE X'64' calls
    #: with their responses, one ``hh:mm:ss.mmm USERID text`` line each.
    console: tuple[str, ...] = ()


class Scenario:
    """A scenario: the parsed TOML as nested dicts and lists, plus where it came from."""

    def __init__(
        self, data: dict[str, Any], origin: str = "api", text: str | None = None, path: Path | None = None
    ) -> None:
        self.data = data
        self.origin = origin
        self._text = text  # original TOML text, used while unmodified (errors keep line numbers)
        #: The file the scenario was loaded from (a run never overwrites it).
        self.path = path

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read and validate a TOML scenario file.

        Raises ``OSError`` if it cannot be read and :class:`ScenarioError` if
        it is not a valid scenario (binary or non-UTF-8 files included)."""
        p = Path(path)
        text = _decode(p.read_bytes(), str(p))
        validate_scenario(text, str(p), "toml")
        return cls(tomllib.loads(text), str(p), text, p)

    @classmethod
    def from_dict(cls, data: dict[str, Any], origin: str = "api") -> Scenario:
        """A scenario from a dict shaped like the TOML file (validated)."""
        sc = cls(copy.deepcopy(data), origin)
        sc.validate()
        return sc

    def copy(self) -> Scenario:
        return Scenario(copy.deepcopy(self.data), self.origin, self._text, self.path)

    def validate(self) -> None:
        """Raise :class:`ScenarioError` if the scenario is invalid."""
        text, fmt = self._source()
        validate_scenario(text, self.origin, fmt)

    def _source(self) -> tuple[str, Literal["toml", "json"]]:
        if self._text is not None:
            return self._text, "toml"
        _check_numbers(self.data, self.origin)
        try:
            return json.dumps(self.data, allow_nan=False), "json"
        except (TypeError, ValueError) as e:
            raise scenario_error(self.origin, "", f"a value has no TOML/JSON form: {e}") from None

    def _inputs(self) -> list[Path]:
        return [self.path] if self.path is not None else []

    def _walk(self, key: str, create: bool) -> tuple[Any, str | int]:
        parts = key.split(".")
        node: Any = self.data
        for i, part in enumerate(parts):
            m = _KEY.fullmatch(part)
            if not m:
                raise KeyError(f"{key!r}: {part!r} is not a key such as guest[0] or system")
            name, index = m.group(1), m.group(2)
            last = i == len(parts) - 1
            if not isinstance(node, dict):
                raise KeyError(f"{key!r}: {'.'.join(parts[:i])} is a value, not a table")
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
        out: str | Path | OutputFile,
        seed: int | None = None,
        duration: float | None = None,
        progress: Progress | None = None,
        *,
        force: bool = False,
    ) -> RunResult:
        """Simulate and write the MONWRITE file ``out``.

        ``seed`` (0 to 2**64 - 1) overrides ``scenario.seed``; ``duration``
        (seconds) overrides ``scenario.duration``; ``progress(simulated_s,
        end_s)`` is called once per sample interval and may return False to
        stop. ``out`` may be an :class:`~ztwin.safeout.OutputFile` the caller
        has already checked; ``force`` lets a path that is a symbolic link be
        written through. Raises :class:`~ztwin.safeout.OutputError` (before
        simulating) for an output path that must not be written, and
        :class:`SimulationError` when the simulated system abends (``code``,
        e.g. "PGT004", and ``at_s``); if the MONWRITE data up to the abend was
        kept (``kept``), it is at ``path``.
        """
        check_seed(seed)
        text, fmt = self._source()
        target = out if isinstance(out, OutputFile) else OutputFile(out, inputs=self._inputs(), force=force)
        with target:
            try:
                d = run_scenario(text, self.origin, fmt, str(target.temp), seed, duration, progress)
            except SimulationError as e:
                # A simulated abend with the data up to it written as a whole
                # file (with an event record saying so): keep it, as a real
                # MONWRITE would have it, and say where.
                if getattr(e, "kept", False):
                    target.commit()
                    e.path = target.path
                raise
            target.commit()
        return RunResult(
            path=target.path,
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
            console=tuple(d["console"]),
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
