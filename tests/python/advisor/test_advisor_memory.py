"""ztwin diagnose in bounded memory: its peak RSS does not grow with the
number of intervals (per-key figures go to a temporary store, read back per
interval: ztwin.advisor.tables). 621 users for 20 and for 80 intervals; before
the store the longer file took about 100 MB more."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ztwin.twin import Scenario

SCENARIO = """
[scenario]
duration = "{minutes}m"
start = "2024-03-04T06:00:00Z"
[system]
system_id = "MANY"
processors = 8
central_storage = "64G"
[monitor]
sample_interval = "60s"
[[paging]]
device_type = "3390-9"
count = 8
first_address = "0A00"
volser_prefix = "PAG"
[[dasd]]
device_type = "3390-9"
count = 32
first_address = "0B00"
volser_prefix = "USR"
[[guest]]
userid = "CMS"
count = 500
virtual_storage = "32M"
[[guest]]
userid = "LNX"
count = 100
virtual_storage = "2G"
workload = {{ type = "cpu", utilization = 0.2 }}
[[guest]]
userid = "DB"
count = 21
virtual_storage = "1G"
workload = {{ type = "minidisk_io", device = "0B00+", think = "50ms" }}
"""

PEAK = """
import resource, sys
from ztwin.advisor import diagnose
d = diagnose(sys.argv[1])
assert len(d.period.intervals) > 10, len(d.period.intervals)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss_mb(path: Path) -> float:
    out = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True, text=True, check=True, timeout=300)
    return int(out.stdout.strip()) / 1024  # KiB on Linux


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    d = tmp_path_factory.mktemp("many")
    out = {}
    for minutes in (20, 80):
        sc = d / f"m{minutes}.toml"
        sc.write_text(SCENARIO.format(minutes=minutes))
        out[minutes] = d / f"m{minutes}.monwrite"
        Scenario.load(sc).run(out[minutes])
    return out


def test_peak_rss_does_not_grow_with_the_intervals(files: dict[int, Path]) -> None:
    short, long = peak_rss_mb(files[20]), peak_rss_mb(files[80])
    assert files[80].stat().st_size > 3.5 * files[20].stat().st_size
    assert long - short < 20, (short, long)


def test_the_store_gives_the_figures_the_dicts_gave(files: dict[int, Path]) -> None:
    from ztwin.advisor import diagnose, evaluate, load_rules
    from ztwin.advisor.facts import period_from
    from ztwin.reports.core import Window, collect

    streamed = diagnose(files[20])
    iv = collect(files[20], users="all", devices="all", exposures="all")
    in_memory = period_from(iv, Window())
    assert [i.index for i in streamed.period.intervals] == [i.index for i in in_memory.intervals]
    for a, b in zip(streamed.period.intervals, in_memory.intervals, strict=True):
        assert dict(a.users.items()) == dict(b.users.items())
        assert dict(a.devices.items()) == dict(b.devices.items())
        assert dict(a.exposures.items()) == dict(b.exposures.items())
    findings = evaluate(in_memory, load_rules())
    assert [(f.id, f.severity, f.explanation) for f in streamed.findings] == [
        (f.id, f.severity, f.explanation) for f in findings
    ]


def _stored(store: object) -> dict[tuple[str, int], tuple[list[object], bytes]]:
    from ztwin.advisor.tables import FigureStore

    assert isinstance(store, FigureStore)
    out = {}
    for kind, idx in sorted(store._index):
        t = store.table(kind, idx)
        out[(kind, idx)] = (list(t), t.vals.tobytes())
    return out


@pytest.mark.parametrize("source", ["twin", "synthetic"])
def test_column_figures_equal_the_per_row_figures(
    files: dict[int, Path], source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sink's figures over columns (vmetrics) equal the per-row ones
    (metrics.Scalar) bit for bit, keys in the same order, interval by
    interval, for users, devices and paging exposures (on the synthetic
    file with their devices' queue and service times)."""
    from builders import write_synthetic

    from ztwin.advisor.facts import STORE_KINDS, figure_sink
    from ztwin.advisor.tables import FigureStore
    from ztwin.reports.core import collect

    path = files[20] if source == "twin" else write_synthetic(tmp_path / "s.monwrite", intervals=15, users=9, devices=5)

    from ztwin.advisor import facts

    stores = [FigureStore(STORE_KINDS), FigureStore(STORE_KINDS)]
    collect(path, users="all", devices="all", exposures="all", sink=figure_sink(stores[1], columns=False), step=7)
    with monkeypatch.context() as m:  # the column path makes no figures per row

        def no_rows(*_: object) -> None:
            raise AssertionError("per-row figures")

        m.setattr(facts, "_interval_figures", no_rows)
        collect(path, users="all", devices="all", exposures="all", sink=figure_sink(stores[0]), step=7)
    fast, slow = _stored(stores[0]), _stored(stores[1])
    assert fast.keys() == slow.keys()
    assert {k for k, _ in fast} == {"user", "device", "exposure"}
    assert all(fast[k][0] for k in fast if k[0] == "exposure"), "paging exposures in every interval"
    exps = [stores[0].table("exposure", i) for k, i in fast if k == "exposure"]
    with_device = any(not np.isnan(t.col("serv_ms")).all() for t in exps)
    assert with_device == (source == "synthetic")
    for k in fast:
        assert fast[k] == slow[k], k
    for kind in STORE_KINDS:
        assert stores[0].cats[kind].keys == stores[1].cats[kind].keys


def test_a_key_twice_in_an_interval_takes_the_per_row_path() -> None:
    """Duplicate keys in one interval: the per-row path (the last row of the
    key counts, at the place of its first); the column path would have to
    guess."""
    import pyarrow as pa

    from ztwin.advisor.facts import STORE_KINDS, figure_sink
    from ztwin.advisor.tables import FigureStore

    def table(keys: list[object], name: str, typ: pa.DataType) -> pa.Table:
        n = len(keys)
        return pa.table({"interval": pa.array([1] * n, pa.int64()), name: pa.array(keys, typ),
                         "flags": pa.array([0] * n, pa.int64()),
                         "seconds": pa.array([60.0 + i for i in range(n)], pa.float64())})

    tables = {"user": table(["A", "B", "A"], "userid", pa.string()), "device": table([1], "devno", pa.int64()),
              "exposure": table([1], "devno", pa.int64())}
    stores = [FigureStore(STORE_KINDS), FigureStore(STORE_KINDS)]
    figure_sink(stores[0])(tables)
    figure_sink(stores[1], columns=False)(tables)
    a, b = _stored(stores[0]), _stored(stores[1])
    assert a == b
    assert a[("user", 1)][0] == ["A", "B"]
    assert stores[0].table("user", 1)["A"]["seconds"] == 62.0
