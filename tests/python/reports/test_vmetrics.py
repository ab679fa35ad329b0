"""The column-wise figures (ztwin.reports.vmetrics) equal metrics.py's
scalar formulas on every row, to the last bit, for random sums (absent sums,
zeros, integers, fractions, huge and tiny values)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ztwin.reports import collect, metrics, vmetrics
from ztwin.reports.store import value_names


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """The sum columns of the kernel's tables (from a tiny file)."""
    from builders import write_synthetic

    path = write_synthetic(tmp_path_factory.mktemp("v") / "v.monwrite", intervals=3, users=2, devices=2)
    iv = collect(path, users="all", devices="all", exposures="all")
    out = {"system": value_names(iv.intervals.system.schema)}
    for ent, attr in (("user", "user_series"), ("device", "device_series"), ("exposure", "exposure_series")):
        out[ent] = value_names(getattr(iv, attr).store.schema)
    return out


SPECIAL = np.array([0.0, 1e-300, 5e-324, 1e300, 0.1, 1 / 3, 2.0**53 + 2, -0.0, 60.0, 300.0])


@st.composite
def rows_strategy(draw: st.DrawFn, keys: list[str]) -> list[dict[str, float]]:
    """1 to 6 rows of sums: each sum absent with a drawn probability, else
    zero, an integer, a fraction, a negative or a special value."""
    n = draw(st.integers(1, 6))
    absent = draw(st.sampled_from([0.0, 0.05, 0.3, 0.7, 1.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kinds = rng.integers(0, 6, (n, len(keys)))
    vals = np.select(
        [kinds == 0, kinds == 1, kinds == 2, kinds == 3, kinds == 4],
        [np.zeros((n, len(keys))), rng.integers(0, 2**40, (n, len(keys))).astype(float),
         rng.random((n, len(keys))) * 10.0 ** rng.integers(-3, 10, (n, len(keys))),
         -rng.random((n, len(keys))) * 1e3, rng.choice(SPECIAL, (n, len(keys)))],
        rng.integers(0, 100, (n, len(keys))).astype(float),
    )
    gone = rng.random((n, len(keys))) < absent
    return [{k: float(vals[i, j]) for j, k in enumerate(keys) if not gone[i, j]} for i in range(n)]


def columns(rows: list[dict[str, float]], keys: list[str]) -> vmetrics.Sums:
    cols = {k: np.array([r.get(k, np.nan) for r in rows], dtype=np.float64) for k in keys}
    return vmetrics.Sums(len(rows), cols)


def same(scalar: Any, vec: float) -> bool:
    if scalar is None or (isinstance(scalar, float) and math.isnan(scalar)):
        return math.isnan(vec)
    s = float(scalar)
    return s == vec and math.copysign(1, s) == math.copysign(1, vec) or (math.isinf(s) and s == vec)


def check(rows: list[dict[str, float]], keys: list[str], scalar_fn: Any, vec_fn: Any) -> None:
    vec = vec_fn(columns(rows, keys))
    for i, raw in enumerate(rows):
        want = scalar_fn(raw)
        assert set(vec) >= set(want)
        for k, v in want.items():
            assert same(v, float(vec[k][i])), f"{k}: scalar {v!r}, columns {vec[k][i]!r}, sums {raw}"


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=st.data())
def test_system_figures_equal_the_scalar_formulas(names: dict[str, list[str]], data: st.DataObject) -> None:
    keys = names["system"]
    rows = data.draw(rows_strategy(keys))
    check(rows, keys, metrics.system_metrics, vmetrics.system_metrics)


@SETTINGS
@given(data=st.data())
def test_user_figures_equal_the_scalar_formulas(names: dict[str, list[str]], data: st.DataObject) -> None:
    keys = names["user"]
    check(data.draw(rows_strategy(keys)), keys, metrics.user_metrics, vmetrics.user_metrics)


@SETTINGS
@given(data=st.data())
def test_device_figures_equal_the_scalar_formulas(names: dict[str, list[str]], data: st.DataObject) -> None:
    keys = names["device"]
    check(data.draw(rows_strategy(keys)), keys, metrics.device_metrics, vmetrics.device_metrics)


@SETTINGS
@given(data=st.data())
def test_exposure_figures_equal_the_scalar_formulas(names: dict[str, list[str]], data: st.DataObject) -> None:
    """CPOWNED figures, with the same device's sums: present, empty or none
    (the columns then all NaN in that row)."""
    keys, dkeys = names["exposure"], names["device"]
    rows = data.draw(rows_strategy(keys))
    drows = data.draw(rows_strategy(dkeys).filter(lambda d: len(d) >= len(rows)))[: len(rows)]
    which = data.draw(st.lists(st.sampled_from(["device", "empty", "none"]), min_size=len(rows), max_size=len(rows)))
    devs: list[dict[str, float] | None] = [
        d if w == "device" else ({} if w == "empty" else None) for d, w in zip(drows, which, strict=True)
    ]
    vec = vmetrics.exposure_metrics(columns(rows, keys), columns([d or {} for d in devs], dkeys))
    for i, raw in enumerate(rows):
        for k, v in metrics.exposure_metrics(raw, devs[i]).items():
            assert same(v, float(vec[k][i])), f"{k}: scalar {v!r}, columns {vec[k][i]!r}, sums {raw}, device {devs[i]}"
    alone = vmetrics.exposure_metrics(columns(rows, keys))
    for i, raw in enumerate(rows):
        for k, v in metrics.exposure_metrics(raw).items():
            assert same(v, float(alone[k][i])), k


def test_real_intervals(names: dict[str, list[str]], tmp_path: Path) -> None:
    """Every interval of a simulated-looking file, figure for figure."""
    from builders import write_synthetic
    from ztwin.reports.store import sys_chunks

    iv = collect(write_synthetic(tmp_path / "r.monwrite", intervals=40, users=5, devices=3))
    got = [vmetrics.system_metrics(c.sums) for c in sys_chunks(iv)]
    flat = {k: np.concatenate([g[k] for g in got]) for k in got[0]}
    for i, s in enumerate(iv.intervals):
        for k, v in metrics.system_metrics(s.raw).items():
            assert same(v, float(flat[k][i])), (i, k)


@SETTINGS
@given(data=st.data())
def test_system_figures_read_one_at_a_time(names: dict[str, list[str]], data: st.DataObject) -> None:
    """A figure read alone (the by-time reports read a few, computed when
    read) equals the same figure of all of them, in any order of reading,
    for columns and for one sum."""
    keys = names["system"]
    rows = data.draw(rows_strategy(keys))
    whole = dict(vmetrics.system_metrics(columns(rows, keys)))
    order = data.draw(st.permutations(list(whole)))
    some = order[: data.draw(st.integers(1, len(order)))]
    lazy = vmetrics.system_metrics(columns(rows, keys))
    for k in some:
        got, want = lazy[k], whole[k]
        assert all(same(float(w), float(g)) for w, g in zip(want, got, strict=True)), k
    lazy.update(interval_end="x")
    assert lazy.get("interval_end") == "x" and lazy.get("no_such_figure") is None
    one = metrics.system_metrics(rows[0])
    alone = metrics.SystemFigures(rows[0], metrics.S)
    for k in some:
        assert same(one[k], math.nan if alone[k] is None else float(alone[k])), k
