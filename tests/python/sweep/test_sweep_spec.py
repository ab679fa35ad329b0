"""Sweep files: parsing, the variants they expand to, and the errors (naming
the line) that stop a bad sweep before any run starts. No simulation here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ztwin.sweep import Sweep, SweepError, loads
from ztwin.sweep.metrics import parse_metric
from ztwin.sweep.report import t975
from ztwin.sweep.spec import latin_hypercube, run_id

ROOT = Path(__file__).resolve().parents[3]
S1 = ROOT / "studies" / "paging-single-thread.toml"

HEAD = f"""[sweep]
name = "t"
base = "{S1}"
seeds = [1, 2]
"""
METRICS = """
[metrics]
paging_rate = "SYSSUMLG.read_write_rate"
"""


def sweep(body: str, metrics: str = METRICS) -> Sweep:
    return loads(HEAD + body + metrics, "t.toml")


def error(text: str) -> str:
    with pytest.raises(SweepError) as e:
        loads(text, "t.toml")
    return str(e.value)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_grid_of_values_ranges_and_log_ranges() -> None:
    sw = sweep(
        """
[[param]]
key = "system.central_storage"
values = ["1G", "2G"]

[[param]]
key = "srm.block_max"
range = { from = 2, to = 8, step = 3 }

[[param]]
key = "guest[0].workload.cpu_per_touch_us"
log = { from = 1.0, to = 100.0, points = 3 }
"""
    )
    assert [p.values for p in sw.params] == [("1G", "2G"), (2, 5, 8), (1.0, 10.0, 100.0)]
    assert len(sw.points) == 2 * 3 * 3
    assert sw.points[0] == (("system.central_storage", "1G"), ("srm.block_max", 2), ("guest[0].workload.cpu_per_touch_us", 1.0))
    runs = sw.runs()
    assert len(runs) == 36 and [r.seed for r in runs[:4]] == [1, 2, 1, 2]
    assert len({r.run_id for r in runs}) == 36


def test_size_ranges_and_integer_log_ranges() -> None:
    sw = sweep(
        """
[[param]]
key = "system.central_storage"
range = { from = "1G", to = "2G", step = "512M" }

[[param]]
key = "paging[0].count"
log = { from = 1, to = 16, points = 5 }
"""
    )
    assert sw.params[0].values == ("1G", "1536M", "2G")
    assert sw.params[1].values == (1, 2, 4, 8, 16)


def test_latin_hypercube_has_one_point_per_stratum_and_follows_its_seed() -> None:
    pts = latin_hypercube(8, 2, 7)
    for d in range(2):
        strata = sorted(int(p[d] * 8) for p in pts)
        assert strata == list(range(8))
    assert latin_hypercube(8, 2, 7) == pts
    assert latin_hypercube(8, 2, 8) != pts


def test_latin_hypercube_parameters() -> None:
    text = HEAD + 'samples = 5\nsample_seed = 3\n' + """
[[param]]
key = "system.central_storage"
values = ["1G", "2G"]

[[param]]
key = "paging[0].service.connect_ms_per_io"
sample = { from = 1.0, to = 4.0 }

[[param]]
key = "system.xstor"
sample = { from = "128M", to = "1G", log = true }
""" + METRICS
    sw = loads(text, "t.toml")
    assert len(sw.points) == 10
    conn = [dict(p)["paging[0].service.connect_ms_per_io"] for p in sw.points[:5]]
    assert sorted(int((c - 1.0) / 3.0 * 5) for c in conn) == [0, 1, 2, 3, 4]
    xs = [dict(p)["system.xstor"] for p in sw.points[:5]]
    assert all(re.fullmatch(r"\d+M|1G", x) for x in xs)
    # the same file gives the same points; another sample_seed others
    assert loads(text, "t.toml").points == sw.points
    assert loads(text.replace("sample_seed = 3", "sample_seed = 4"), "t.toml").points != sw.points


def test_run_ids_depend_on_the_variant_and_seed_only() -> None:
    a = run_id((("system.central_storage", "1G"),), 1)
    assert a == run_id((("system.central_storage", "1G"),), 1)
    assert a != run_id((("system.central_storage", "1G"),), 2)
    assert a != run_id((("system.central_storage", "2G"),), 1)


@pytest.mark.parametrize(
    ("body", "needle", "message"),
    [
        ('[[param]]\nkey = "system.foo"\nvalues = [1, 2]\n', 'key = "system.foo"', "param system.foo: not a scenario key: unknown field `foo`"),
        ('[[param]]\nkey = "guest[9].userid"\nvalues = ["A"]\n', 'key = "guest[9]', "not a key of the base scenario"),
        ('[[param]]\nkey = "system.central_storage"\nvalues = []\n', "values = []", "values is empty"),
        ('[[param]]\nkey = "srm.block_max"\nrange = { from = 8, to = 2, step = 1 }\n', "range =", "empty range"),
        ('[[param]]\nkey = "srm.block_max"\nrange = { from = 2, to = 8, step = 0 }\n', "range =", "step must be positive"),
        ('[[param]]\nkey = "system.xstor"\nlog = { from = 0, to = 8, points = 3 }\n', "log =", "above zero"),
        ('[[param]]\nkey = "system.xstor"\nsample = { from = "1G", to = "1G" }\n', "sample =", "empty sample range"),
        ('[[param]]\nkey = "system.xstor"\nsample = { from = "1G", to = "2G" }\n', "sample =", "samples = N"),
        ('[[param]]\nkey = "system.central_storage"\nvalues = ["1G", "lots"]\n', "values =", "variant system.central_storage = \"lots\""),
        ('[[param]]\nkey = "system.central_storage"\nvalues = ["1G"]\nrange = { from = 1, to = 2, step = 1 }\n', 'key = "system.central_storage"', "exactly one of"),
        ('[window]\nfrom = "100s"\nto = "50s"\n', 'to = "50s"', "empty window"),
        ('[window]\nfrom = "900s"\n', 'from = "900s"', "at or after the end of the run"),
        ('[limits]\nmax_runs = 3\n[[param]]\nkey = "system.central_storage"\nvalues = ["1G", "2G"]\n', "max_runs = 3", "4 runs, more than max_runs = 3"),
        ('[limits]\ntimeout = "soon"\n', 'timeout = "soon"', "not a duration"),
        ('[oops]\nx = 1\n', "[oops]", "unknown table or key 'oops'"),
    ],
)
def test_bad_sweeps_name_the_line(body: str, needle: str, message: str) -> None:
    text = HEAD + body + METRICS
    msg = error(text)
    assert message in msg, msg
    assert msg.startswith(f"t.toml: line {line_of(text, needle)}: "), msg


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        ('"SYSSUMLG.trans_rate"', "no report provides 'trans_rate': SYSSUMLG has no such column"),
        ('"transactions_rate"', "no report provides transactions per second"),
        ('"NOSUCH.cpu_busy_pct"', "unknown report 'NOSUCH'"),
        ('"CPOWNED.resp_ms"', "name the row (CPOWNED[ROW].resp_ms) or aggregate"),
        ('"USTATLOG.pgw_pct"', "USTAT gives the figures over the window"),
        ('"median(CPOWNED.resp_ms)"', "unknown aggregate 'median'"),
        ('"advisor.no-such-rule"', "the advisor has no rule 'no-such-rule'"),
        ('"SYSSUMLG.interval_end"', "is the row label of SYSSUMLG"),
        ("42", "is not a metric"),
    ],
)
def test_metrics_no_report_provides_are_refused_with_their_line(metric: str, message: str) -> None:
    text = HEAD + f"\n[metrics]\nok = \"cpu_busy_pct\"\nbad = {metric}\n"
    msg = error(text)
    assert message in msg, msg
    assert msg.startswith(f"t.toml: line {line_of(text, 'bad =')}: metric bad: "), msg


def test_metric_forms() -> None:
    assert parse_metric("paging_rate").text == "SYSSUMLG.read_write_rate"
    m = parse_metric("ustat[lin102].pgw_pct")
    assert (m.report, m.row, m.column, m.agg) == ("USTAT", "lin102", "pgw_pct", None)
    m = parse_metric({"report": "CPOWNED", "column": "page_total", "agg": "sum"})
    assert m.text == "sum(CPOWNED.page_total)" and m.numeric
    assert not parse_metric("advisor").numeric
    assert parse_metric("advisor.paging-serialized").finding == "paging-serialized"
    assert parse_metric("FCX108.resp_ms").report == "DEVICE"


def test_missing_base_and_goal_errors(tmp_path: Path) -> None:
    msg = error('[sweep]\nbase = "nope.toml"\n' + METRICS)
    assert msg.startswith("t.toml: line 2: cannot read base scenario nope.toml")
    msg = error(HEAD + METRICS + '\n[goal]\nminimize = "cpu"\n')
    assert "no metric 'cpu' in the sweep" in msg and "line" in msg
    msg = error(HEAD)
    assert "[metrics] names at least one metric" in msg


def test_student_t_quantiles() -> None:
    assert t975(1) == 12.706
    assert t975(10) == 2.228
    assert abs(t975(60) - 2.000) < 0.001
    assert abs(t975(120) - 1.980) < 0.001


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("sweep-*.toml")), ids=lambda p: p.name)
def test_shipped_sweep_files_are_valid(path: Path) -> None:
    from ztwin.sweep import load

    sw = load(path)
    assert sw.runs() and sw.metrics and sw.goal is not None
