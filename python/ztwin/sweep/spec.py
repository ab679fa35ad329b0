"""Sweep files: what to vary, how often, and what to measure (docs/sweeps.md).

A sweep file is TOML. It names a base scenario, the scenario keys to vary (by
dotted path, as :meth:`ztwin.twin.Scenario.set` takes them), the seeds each
variant runs with, the window and metrics to compute from each run's MONWRITE
file, an optional goal and resource limits. :func:`load` validates all of it up
front -- every variant is built and checked by the scenario validator -- and
raises :class:`SweepError` with a message naming the file and line.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ztwin.sweep.metrics import Metric, MetricError, parse_metric
from ztwin.twin import SEED_MAX, Scenario, ScenarioError, _decode
from ztwin.units import format_size, parse_duration, parse_size

__all__ = ["Goal", "Limits", "Param", "Run", "Sweep", "SweepError", "Window", "load", "loads"]

#: A sweep larger than this is refused unless ``[limits] max_runs`` says more.
DEFAULT_MAX_RUNS = 10_000


class SweepError(Exception):
    """A sweep that cannot be run; the message names the place and the reason."""


# --------------------------------------------------------------------------
# Where keys are in the file (tomllib gives no line numbers)
# --------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEYLINE = re.compile(r"""^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.\-]+)\s*=""")


class Lines:
    """Line numbers of tables and keys: ``(table, key)`` -> line, where table is
    ``"sweep"`` or ``"param[2]"`` (the third ``[[param]]``)."""

    def __init__(self, text: str) -> None:
        self.keys: dict[tuple[str, str], int] = {}
        self.tables: dict[str, int] = {}
        counts: dict[str, int] = {}
        table = ""
        depth = 0  # open brackets of a multi-line array
        in_multiline = False
        for no, line in enumerate(text.splitlines(), 1):
            if in_multiline:
                if line.count('"""') % 2 == 1:
                    in_multiline = False
                continue
            if depth == 0:
                m = _HEADER.match(line)
                if m:
                    name = m.group(2).strip()
                    if m.group(1) == "[[":
                        i = counts.get(name, 0)
                        counts[name] = i + 1
                        table = f"{name}[{i}]"
                    else:
                        table = name
                    self.tables.setdefault(table, no)
                    continue
                k = _KEYLINE.match(line)
                if k:
                    key = k.group(1).strip("\"'")
                    self.keys.setdefault((table, key), no)
                    top = key.split(".")[0]
                    if table == "" and top != key:
                        self.tables.setdefault(top, no)
            if line.count('"""') % 2 == 1:
                in_multiline = True
            depth = max(0, depth + line.count("[") - line.count("]")) if depth or _KEYLINE.match(line) else 0

    def of(self, table: str, key: str | None = None) -> int | None:
        if key is not None and (table, key) in self.keys:
            return self.keys[(table, key)]
        return self.tables.get(table)


# --------------------------------------------------------------------------
# The parts of a sweep
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One varied scenario key. Grid kinds (values, range, log) list their
    values; a ``sample`` parameter is a dimension of the Latin hypercube."""

    key: str
    kind: str
    values: tuple[Any, ...] = ()
    lo: float = 0.0
    hi: float = 0.0
    log: bool = False
    integer: bool = False
    size: bool = False
    line: int | None = None

    def sample_value(self, u: float) -> Any:
        """The value at ``u`` in [0, 1) of this sample dimension."""
        if self.log:
            v = math.exp(math.log(self.lo) + u * (math.log(self.hi) - math.log(self.lo)))
        else:
            v = self.lo + u * (self.hi - self.lo)
        if self.size:
            return format_size(int(round(v / 2**20)) * 2**20)
        if self.integer:
            return int(round(v))
        return float(f"{v:.6g}")


@dataclass(frozen=True)
class Window:
    """The part of each run the metrics cover, in seconds after monitoring
    started (None: from the first or to the last sample interval)."""

    start_s: float | None = None
    end_s: float | None = None


@dataclass(frozen=True)
class Goal:
    metric: str
    direction: str  # "min" or "max"

    @classmethod
    def parse(cls, text: str, metrics: dict[str, Metric]) -> Goal:
        """``min:NAME`` or ``max:NAME`` (as the command line takes it)."""
        m = re.fullmatch(r"\s*(min|max|minimize|maximize)\s*:\s*(\S+)\s*", text)
        if not m:
            raise SweepError(f"goal {text!r}: write min:METRIC or max:METRIC")
        name = m.group(2)
        if name not in metrics:
            raise SweepError(f"goal {text!r}: no metric {name!r} in the sweep (metrics: {', '.join(metrics)})")
        if not metrics[name].numeric:
            raise SweepError(f"goal {text!r}: metric {name!r} is not a number")
        return cls(name, m.group(1)[:3])

    def label(self) -> str:
        return f"{'minimize' if self.direction == 'min' else 'maximize'} {self.metric}"


@dataclass(frozen=True)
class Limits:
    workers: int | None = None
    timeout_s: float | None = None
    memory_bytes: int | None = None
    max_runs: int = DEFAULT_MAX_RUNS


@dataclass(frozen=True)
class Run:
    """One simulation: a variant (the keys set on the base scenario) and a seed."""

    run_id: str
    point: int
    seed: int
    sets: tuple[tuple[str, Any], ...]

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.sets)


@dataclass
class Sweep:
    path: str
    name: str
    description: str
    base_path: str
    base_text: str
    seeds: list[int]
    duration_s: float | None
    window: Window
    params: list[Param]
    metrics: dict[str, Metric]
    goal: Goal | None
    limits: Limits
    samples: int = 0
    sample_seed: int = 0
    points: list[tuple[tuple[str, Any], ...]] = field(default_factory=list)

    @property
    def keys(self) -> list[str]:
        return [p.key for p in self.params]

    def base(self) -> Scenario:
        return Scenario(tomllib.loads(self.base_text), self.base_path, self.base_text)

    def scenario(self, sets: tuple[tuple[str, Any], ...]) -> Scenario:
        """The base scenario with one variant's keys set."""
        sc = self.base()
        for k, v in sets:
            sc.set(k, v)
        return sc

    def runs(self) -> list[Run]:
        return [Run(run_id(sets, seed), i, seed, sets) for i, sets in enumerate(self.points) for seed in self.seeds]

    def identity(self) -> str:
        """What every run's figures depend on besides its variant and seed: the
        base scenario, duration, window and metrics. Results of a sweep with the
        same identity can be reused (runs are matched by :func:`run_id`)."""
        doc = {
            "base": tomllib.loads(self.base_text),
            "duration_s": self.duration_s,
            "window": [self.window.start_s, self.window.end_s],
            "metrics": {k: m.text for k, m in self.metrics.items()},
        }
        return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        """The resolved sweep as JSON-able data (stored beside the results)."""
        return {
            "name": self.name,
            "description": self.description,
            "file": self.path,
            "base": self.base_path,
            "identity": self.identity(),
            "seeds": self.seeds,
            "duration_s": self.duration_s,
            "window": {"from_s": self.window.start_s, "to_s": self.window.end_s},
            "params": [
                {"key": p.key, "kind": p.kind, "values": list(p.values)} if p.kind != "sample"
                else {"key": p.key, "kind": p.kind, "from": p.lo, "to": p.hi, "log": p.log, "integer": p.integer}
                for p in self.params
            ],  # fmt: skip
            "samples": self.samples,
            "sample_seed": self.sample_seed,
            "metrics": {k: m.text for k, m in self.metrics.items()},
            "goal": None if self.goal is None else {"metric": self.goal.metric, "direction": self.goal.direction},
            "points": len(self.points),
            "runs": len(self.points) * len(self.seeds),
        }


def run_id(sets: tuple[tuple[str, Any], ...], seed: int) -> str:
    """A run's name: a hash of its variant and seed, stable when a sweep is extended."""
    doc = json.dumps({"sets": [[k, v] for k, v in sets], "seed": seed}, sort_keys=True)
    return hashlib.sha256(doc.encode()).hexdigest()[:16]


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------

_TOP = {"sweep", "window", "param", "metrics", "goal", "limits"}
_SWEEP_KEYS = {"name", "description", "base", "seeds", "duration", "samples", "sample_seed"}
_PARAM_KINDS = ("values", "range", "log", "sample")


class _Ctx:
    def __init__(self, origin: str, lines: Lines) -> None:
        self.origin = origin
        self.lines = lines

    def err(self, table: str, key: str | None, msg: str) -> SweepError:
        line = self.lines.of(table, key)
        where = f"line {line}" if line else (f"[{table}]" if table else "top level")
        return SweepError(f"{self.origin}: {where}: {msg}")


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _duration(ctx: _Ctx, table: str, key: str, v: Any) -> float:
    if _num(v):
        return float(v)
    if isinstance(v, str):
        try:
            return parse_duration(v)
        except ValueError as e:
            raise ctx.err(table, key, f"{key}: {e}") from None
    raise ctx.err(table, key, f"{key}: {v!r} is not a duration such as 90s or 10min")


def _is_size(v: Any) -> bool:
    return isinstance(v, str) and re.fullmatch(r"\s*[0-9]*\.?[0-9]+\s*[KMGTkmgt]\s*", v) is not None


def _bounds(ctx: _Ctx, table: str, kind: str, spec: Any, need: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(spec, dict):
        raise ctx.err(table, kind, f"{kind} must be a table such as {{ {', '.join(f'{n} = ...' for n in need)} }}")
    extra = set(spec) - set(need) - {"integer", "log"}
    if extra:
        raise ctx.err(table, kind, f"{kind}: unknown key {sorted(extra)[0]!r} (expected {', '.join(need)})")
    for n in need:
        if n not in spec:
            raise ctx.err(table, kind, f"{kind}: missing {n!r}")
    return spec


def _grid_numbers(ctx: _Ctx, table: str, kind: str, spec: dict[str, Any], keys: tuple[str, ...]) -> tuple[list[float], bool]:
    """The numeric bounds of a range/log/sample spec and whether they are sizes."""
    raw = [spec[k] for k in keys]
    sizes = all(_is_size(v) or isinstance(v, int) for v in raw) and any(_is_size(v) for v in raw)
    out: list[float] = []
    for k, v in zip(keys, raw, strict=True):
        if sizes:
            out.append(float(parse_size(v)))
        elif _num(v):
            out.append(float(v))
        else:
            raise ctx.err(table, kind, f"{kind}: {k} = {v!r} is not a number or a size such as 512M")
    return out, sizes


def _param(ctx: _Ctx, i: int, p: Any) -> Param:
    table = f"param[{i}]"
    if not isinstance(p, dict):
        raise ctx.err(table, None, "each [[param]] must be a table")
    unknown = set(p) - {"key", *_PARAM_KINDS}
    if unknown:
        k = sorted(unknown)[0]
        raise ctx.err(table, k, f"unknown key {k!r} in [[param]] (expected key and one of {', '.join(_PARAM_KINDS)})")
    key = p.get("key")
    if not isinstance(key, str) or not key:
        raise ctx.err(table, "key", "[[param]] needs key = \"dotted.path\" of a scenario key, e.g. \"system.central_storage\"")
    kinds = [k for k in _PARAM_KINDS if k in p]
    if len(kinds) != 1:
        raise ctx.err(table, "key", f"param {key}: give exactly one of {', '.join(_PARAM_KINDS)}")
    kind = kinds[0]
    line = ctx.lines.of(table, kind)
    spec = p[kind]
    if kind == "values":
        if not isinstance(spec, list):
            raise ctx.err(table, kind, f"param {key}: values must be a list")
        if not spec:
            raise ctx.err(table, kind, f"param {key}: values is empty")
        if len({json.dumps(v, sort_keys=True) for v in spec}) != len(spec):
            raise ctx.err(table, kind, f"param {key}: values repeat")
        return Param(key, kind, tuple(spec), line=line)
    if kind == "range":
        b = _bounds(ctx, table, kind, spec, ("from", "to", "step"))
        (lo, hi, step), sizes = _grid_numbers(ctx, table, kind, b, ("from", "to", "step"))
        if step <= 0:
            raise ctx.err(table, kind, f"param {key}: range step must be positive")
        if hi < lo:
            raise ctx.err(table, kind, f"param {key}: empty range (from {b['from']} is above to {b['to']})")
        n = int(math.floor((hi - lo) / step + 1e-9)) + 1
        ints = all(isinstance(b[k], int) for k in ("from", "to", "step"))
        vals: list[Any] = []
        for j in range(n):
            v = lo + j * step
            vals.append(format_size(int(round(v))) if sizes else int(round(v)) if ints else float(f"{v:.12g}"))
        return Param(key, kind, tuple(vals), size=sizes, line=line)
    if kind == "log":
        b = _bounds(ctx, table, kind, spec, ("from", "to", "points"))
        (lo, hi), sizes = _grid_numbers(ctx, table, kind, b, ("from", "to"))
        pts = b["points"]
        if not isinstance(pts, int) or isinstance(pts, bool) or pts < 1:
            raise ctx.err(table, kind, f"param {key}: log points must be a positive integer")
        if lo <= 0 or hi <= 0:
            raise ctx.err(table, kind, f"param {key}: log range bounds must be above zero")
        if hi < lo:
            raise ctx.err(table, kind, f"param {key}: empty range (from {b['from']} is above to {b['to']})")
        ints = b.get("integer", isinstance(b["from"], int) and isinstance(b["to"], int))
        raw = [lo] if pts == 1 else [lo * (hi / lo) ** (j / (pts - 1)) for j in range(pts)]
        vals = []
        for v in raw:
            if sizes:
                val: Any = format_size(int(round(v / 2**20)) * 2**20)
            elif ints:
                val = int(round(v))
            else:
                val = float(f"{v:.6g}")
            if val not in vals:
                vals.append(val)
        return Param(key, kind, tuple(vals), size=sizes, line=line)
    b = _bounds(ctx, table, kind, spec, ("from", "to"))
    (lo, hi), sizes = _grid_numbers(ctx, table, kind, b, ("from", "to"))
    if hi <= lo:
        raise ctx.err(table, kind, f"param {key}: empty sample range (from {b['from']} is not below to {b['to']})")
    log = bool(b.get("log", False))
    if log and lo <= 0:
        raise ctx.err(table, kind, f"param {key}: a log sample range must be above zero")
    integer = bool(b.get("integer", isinstance(b["from"], int) and isinstance(b["to"], int) and not sizes))
    return Param(key, kind, lo=lo, hi=hi, log=log, integer=integer, size=sizes, line=line)


def latin_hypercube(n: int, dims: int, seed: int) -> list[list[float]]:
    """``n`` points in [0, 1)^dims, one in each of n equal strata per dimension
    (numpy's PCG64 stream from ``seed``: the same seed gives the same points)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = np.empty((n, dims))
    for d in range(dims):
        out[:, d] = (rng.permutation(n) + rng.random(n)) / n
    return [[float(x) for x in row] for row in out]


def _scenario_error(e: Exception) -> str:
    """The validator's message without the position in the generated JSON text."""
    msg = str(e)
    msg = re.sub(r" at line \d+ column \d+$", "", msg)
    return msg.split(": ", 1)[1] if ": " in msg and msg.split(": ", 1)[0].endswith((".toml", ".json", "api")) else msg


def loads(text: str, origin: str = "<sweep>", root: str | Path | None = None) -> Sweep:
    """Parse and validate a sweep from TOML text; ``base`` is relative to ``root``."""
    lines = Lines(text)
    ctx = _Ctx(origin, lines)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{origin}: {e}") from None
    for k in doc:
        if k not in _TOP:
            raise ctx.err(k if isinstance(doc[k], dict | list) else "", k, f"unknown table or key {k!r} (expected {', '.join(sorted(_TOP))})")
    sw = doc.get("sweep")
    if not isinstance(sw, dict):
        raise SweepError(f"{origin}: no [sweep] table (it names the base scenario: base = \"scenario.toml\")")
    for k in sw:
        if k not in _SWEEP_KEYS:
            raise ctx.err("sweep", k, f"unknown key {k!r} in [sweep] (expected {', '.join(sorted(_SWEEP_KEYS))})")
    base = sw.get("base")
    if not isinstance(base, str):
        raise ctx.err("sweep", "base", "[sweep] needs base = \"path/to/scenario.toml\"")
    base_path = Path(os.path.normpath(Path(base) if Path(base).is_absolute() or root is None else Path(root) / base))
    try:
        base_bytes = base_path.read_bytes()
    except OSError as e:
        raise ctx.err("sweep", "base", f"cannot read base scenario {base_path}: {e.strerror or e}") from None
    try:
        # A binary or non-UTF-8 base is the scenario loader's error (file, line, byte).
        base_text = _decode(base_bytes, str(base_path))
        base_sc = Scenario.load(base_path)
    except ScenarioError as e:
        raise ctx.err("sweep", "base", f"base scenario: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ctx.err("sweep", "base", f"base scenario {base_path}: {e}") from None

    seeds_v = sw.get("seeds", [int(base_sc.data.get("scenario", {}).get("seed", 1))])
    if isinstance(seeds_v, int) and not isinstance(seeds_v, bool):
        if seeds_v < 1:
            raise ctx.err("sweep", "seeds", "seeds must be at least 1 (a count) or a list of seeds")
        # A range, not a list, until the run count is checked against max_runs
        # (seeds = 1000000000000 was a MemoryError).
        seed_range: range | list[int] = range(1, seeds_v + 1)
    elif isinstance(seeds_v, list) and seeds_v and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds_v):
        seed_range = list(seeds_v)
        if len(set(seed_range)) != len(seed_range):
            raise ctx.err("sweep", "seeds", "seeds repeat")
        if max(seed_range) > SEED_MAX:
            raise ctx.err("sweep", "seeds", f"seed {max(seed_range)} is above {SEED_MAX} (2**64 - 1)")
    else:
        raise ctx.err("sweep", "seeds", "seeds must be a count (seeds = 3: seeds 1, 2, 3) or a non-empty list of integers >= 0")
    duration = _duration(ctx, "sweep", "duration", sw["duration"]) if "duration" in sw else None
    if duration is not None and duration <= 0:
        raise ctx.err("sweep", "duration", "duration must be above zero")

    win = doc.get("window", {})
    if not isinstance(win, dict):
        raise ctx.err("window", None, "[window] must be a table: from = \"330s\", to = \"370s\"")
    for k in win:
        if k not in ("from", "to"):
            raise ctx.err("window", k, f"unknown key {k!r} in [window] (expected from, to: seconds after monitoring started)")
    w_from = _duration(ctx, "window", "from", win["from"]) if "from" in win else None
    w_to = _duration(ctx, "window", "to", win["to"]) if "to" in win else None
    if w_from is not None and w_to is not None and w_from >= w_to:
        raise ctx.err("window", "to", f"empty window: from {win['from']} is not before to {win['to']}")
    end = duration if duration is not None else _base_duration(base_sc)
    if end is not None and w_from is not None and w_from >= end:
        raise ctx.err("window", "from", f"window from {win['from']} is at or after the end of the run ({end:g} s)")
    window = Window(w_from, w_to)

    raw_params = doc.get("param", [])
    if not isinstance(raw_params, list):
        raise ctx.err("param", None, "parameters are [[param]] tables")
    params = [_param(ctx, i, p) for i, p in enumerate(raw_params)]
    seen: set[str] = set()
    for i, p in enumerate(params):
        if p.key in seen:
            raise ctx.err(f"param[{i}]", "key", f"param {p.key} is given twice")
        seen.add(p.key)
        try:
            base_sc.copy().set(p.key, p.values[0] if p.values else p.sample_value(0.5))
        except KeyError as e:
            raise ctx.err(f"param[{i}]", "key", f"param {p.key}: not a key of the base scenario ({e.args[0]})") from None

    samples = sw.get("samples", 0)
    sample_seed = sw.get("sample_seed", 0)
    has_sample = any(p.kind == "sample" for p in params)
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 0:
        raise ctx.err("sweep", "samples", "samples must be a non-negative integer (points of the Latin hypercube)")
    if not isinstance(sample_seed, int) or isinstance(sample_seed, bool):
        raise ctx.err("sweep", "sample_seed", "sample_seed must be an integer")
    if has_sample and samples == 0:
        i = next(i for i, p in enumerate(params) if p.kind == "sample")
        raise ctx.err(f"param[{i}]", "sample", "sample parameters need [sweep] samples = N (points of the Latin hypercube)")
    if samples and not has_sample:
        raise ctx.err("sweep", "samples", "samples is set but no [[param]] has sample = { from, to }")

    raw_metrics = doc.get("metrics", {})
    if not isinstance(raw_metrics, dict) or not raw_metrics:
        raise ctx.err("metrics", None, "[metrics] names at least one metric, e.g. paging_rate = \"SYSSUMLG.read_write_rate\"")
    metrics: dict[str, Metric] = {}
    for name, spec in raw_metrics.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ctx.err("metrics", name, f"metric name {name!r}: use letters, digits and _")
        if name in ("run_id", "point", "seed", "wall_s", "cpu_s", "sim_wall_s", "error", "monwrite") or name in seen:
            raise ctx.err("metrics", name, f"metric name {name!r} is taken by a results column")
        try:
            metrics[name] = parse_metric(spec)
        except MetricError as e:
            raise ctx.err("metrics", name, f"metric {name}: {e}") from None

    goal = None
    if "goal" in doc:
        g = doc["goal"]
        if not isinstance(g, dict) or len(g) != 1 or next(iter(g)) not in ("minimize", "maximize"):
            raise ctx.err("goal", None, "[goal] is minimize = \"METRIC\" or maximize = \"METRIC\"")
        (k, v), = g.items()
        try:
            goal = Goal.parse(f"{k}:{v}", metrics)
        except SweepError as e:
            raise ctx.err("goal", k, str(e)) from None

    limits = _limits(ctx, doc.get("limits", {}))

    # The variants: the grid of value lists times the Latin hypercube rows.
    grid = [p for p in params if p.kind != "sample"]
    dims = [p for p in params if p.kind == "sample"]
    n_points = math.prod(len(p.values) for p in grid) * (samples if dims else 1)
    n_runs = n_points * (seeds_v if isinstance(seed_range, range) else len(seed_range))
    if n_runs > limits.max_runs:
        raise ctx.err("limits", "max_runs", f"the sweep has {n_runs} runs, more than max_runs = {limits.max_runs} ([limits])")
    seeds = list(seed_range)
    rows = latin_hypercube(samples, len(dims), sample_seed) if dims else [[]]
    points: list[tuple[tuple[str, Any], ...]] = []
    for combo in itertools.product(*(p.values for p in grid)):
        chosen = dict(zip((p.key for p in grid), combo, strict=True))
        for r in rows:
            for d, p in enumerate(dims):
                chosen[p.key] = p.sample_value(float(r[d]))
            points.append(tuple((p.key, chosen[p.key]) for p in params))
    if len({json.dumps(p) for p in points}) != len(points):
        raise SweepError(f"{origin}: two variants are the same (integer sample parameters rounded to equal values?); use fewer samples")

    sweep = Sweep(
        path=origin,
        name=str(sw.get("name", Path(origin).stem)),
        description=str(sw.get("description", "")),
        base_path=str(base_path),
        base_text=base_text,
        seeds=seeds,
        duration_s=duration,
        window=window,
        params=params,
        metrics=metrics,
        goal=goal,
        limits=limits,
        samples=samples,
        sample_seed=sample_seed,
        points=points,
    )
    _validate_variants(ctx, sweep)
    return sweep


def _base_duration(sc: Scenario) -> float | None:
    try:
        v = sc.get("scenario.duration")
    except KeyError:
        return 600.0
    try:
        return float(v) if _num(v) else parse_duration(str(v))
    except ValueError:
        return None


def _limits(ctx: _Ctx, lim: Any) -> Limits:
    if not isinstance(lim, dict):
        raise ctx.err("limits", None, "[limits] must be a table")
    known = ("workers", "timeout", "memory", "max_runs")
    for k in lim:
        if k not in known:
            raise ctx.err("limits", k, f"unknown key {k!r} in [limits] (expected {', '.join(known)})")
    workers = lim.get("workers")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise ctx.err("limits", "workers", "workers must be a positive integer")
    timeout = _duration(ctx, "limits", "timeout", lim["timeout"]) if "timeout" in lim else None
    if timeout is not None and timeout <= 0:
        raise ctx.err("limits", "timeout", "timeout must be above zero")
    memory = None
    if "memory" in lim:
        try:
            memory = parse_size(lim["memory"])
        except (ValueError, TypeError):
            raise ctx.err("limits", "memory", f"memory: {lim['memory']!r} is not a size such as 4G") from None
        if memory < 256 * 2**20:
            raise ctx.err("limits", "memory", "memory must be at least 256M (a run's process needs that much to start)")
    max_runs = lim.get("max_runs", DEFAULT_MAX_RUNS)
    if not isinstance(max_runs, int) or isinstance(max_runs, bool) or max_runs < 1:
        raise ctx.err("limits", "max_runs", "max_runs must be a positive integer")
    return Limits(workers, timeout, memory, max_runs)


def _validate_variants(ctx: _Ctx, sweep: Sweep) -> None:
    """Build every variant and run the scenario validator on it, so that a bad
    value stops the sweep before any run starts. The error names the line of
    the parameter whose key the validator complains about."""
    checked: set[str] = set()
    for sets in sweep.points:
        # Variants that differ only in values already checked together are skipped
        # when the sweep is large: each distinct (key, value) pair is validated at least once.
        sig = json.dumps(sets)
        if len(sweep.points) > 200 and all(json.dumps([k, v]) in checked for k, v in sets):
            continue
        checked.update(json.dumps([k, v]) for k, v in sets)
        checked.add(sig)
        try:
            sweep.scenario(sets).validate()
        except ScenarioError as e:
            msg = _scenario_error(e)
            culprit = next((i for i, p in enumerate(sweep.params) if msg.startswith(p.key) or f" {p.key}" in msg), None)
            shown = ", ".join(f"{k} = {json.dumps(v)}" for k, v in sets)
            if culprit is None:
                culprit = next((i for i, p in enumerate(sweep.params) if p.key.split(".")[0] in msg), 0 if sweep.params else None)
            table = f"param[{culprit}]" if culprit is not None else "sweep"
            if culprit is not None and "unknown field" in msg:
                p = sweep.params[culprit]
                reason = msg.split(": ", 1)[1] if msg.startswith(p.key + ": ") else msg
                raise ctx.err(table, "key", f"param {p.key}: not a scenario key: {reason}") from None
            key = sweep.params[culprit].kind if culprit is not None else "base"
            raise ctx.err(table, key, f"variant {shown}: {msg}") from None


def load(path: str | os.PathLike[str]) -> Sweep:
    """Read and validate a sweep file (``base`` is relative to the file's directory)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise SweepError(f"cannot read {p}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise SweepError(f"{p}: not a UTF-8 text file") from None
    return loads(text, str(p), p.parent)
