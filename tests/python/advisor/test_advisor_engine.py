"""How findings come together: order, one finding explaining another, the
no-constraint summary, and the interval data taken from a MONWRITE file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from advisor_data import by_id, iv, period, run, user

from ztwin.advisor import evaluate, load_rules, period_from
from ztwin.advisor.facts import Interval
from ztwin.reports import collect
from ztwin.reports.core import Window


def healthy(n: int = 3) -> list[Interval]:
    users = {f"APP{k}": user(act=100, run=7, cpu=2, iow=4, ti=87) for k in range(6)}
    sys_ = {"cpu_busy_pct": 42.0, "tv_ratio": 1.015, "capture_ratio": 0.995, "page_rate": 0.0, "read_write_rate": 0.0,
            "dasd_resp_ms": 3.8, "users_in_elist": 0.0, "users_active": 6.0, "users_logged": 22.0}  # fmt: skip
    return [iv(i, sys_, users=users) for i in range(n)]


def test_no_constraint_points_at_the_guests() -> None:
    found = run(period(healthy()))
    assert [f.id for f in found] == ["no-constraint"]
    f = found[0]
    assert f.severity == "info"
    assert "in test idle" in f.explanation and "91% of their active samples they waited for themselves" in f.explanation
    assert [r["state"] for r in f.evidence[1].rows][:2] == ["ti_pct", "run_pct"]


def test_no_constraint_is_silent_when_something_is_wrong() -> None:
    ivs = healthy()
    for x in ivs:
        x.sys = {**x.sys, "cpu_busy_pct": 97.0}
    assert "no-constraint" not in by_id(run(period(ivs)))
    # infos do not silence it
    for x in ivs:
        x.sys = {**x.sys, "cpu_busy_pct": 42.0, "tv_ratio": 1.25}
    assert set(by_id(run(period(ivs)))) == {"tv-ratio", "no-constraint"}


def test_order_is_severity_then_root_causes_first() -> None:
    ivs = healthy(4)
    for x in ivs:
        x.sys = {**x.sys, "cpu_busy_pct": 99.0, "tv_ratio": 1.7, "users_in_elist": 0.6, "capture_ratio": 0.85}
    ids = [(f.severity, f.id) for f in run(period(ivs))]
    assert ids == [("critical", "cpu-busy"), ("warning", "eligible-list"), ("warning", "tv-ratio"),
                   ("info", "capture-ratio")]  # fmt: skip


def test_disabled_rules_do_not_run() -> None:
    ivs = healthy()
    for x in ivs:
        x.sys = {**x.sys, "cpu_busy_pct": 99.0}
    found = evaluate(period(ivs), load_rules(text="[cpu-busy]\nenabled = false\n[no-constraint]\nenabled = false\n"))
    assert found == []


def test_empty_period_has_no_findings() -> None:
    assert evaluate(period([])) == []


def _write_basic(path: Path) -> Path:
    """The reports' hand-built file (tests/python/reports/conftest.py, write_basic)."""
    spec = importlib.util.spec_from_file_location("reports_conftest", Path(__file__).parent.parent / "reports" / "conftest.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out: Path = mod.write_basic(path)
    return out


@pytest.fixture(scope="module")
def basic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_basic(tmp_path_factory.mktemp("advisor") / "basic.monwrite")


def test_period_takes_the_reports_interval_data(basic: Path) -> None:
    data = collect(basic, users="all", devices="all", exposures="all")
    p = period_from(data, Window.parse("10:02:00", None))
    assert [i.end.strftime("%H:%M") for i in p.history] == ["10:02"]
    assert [i.end.strftime("%H:%M") for i in p.intervals] == ["10:03", "10:04"]
    first = p.history[0]
    # the reports' figures (SYSSUMLG cpu_busy_pct 42.5, docs of write_basic)
    assert first.sys["cpu_busy_pct"] == pytest.approx(42.5)
    # LINUX01 in the first interval: 30 samples, all in queue, 15 in page wait
    u = first.users["LINUX01"]
    assert (u["hf_total"], u["hf_queue"], u["hf_pgw"]) == (30, 30, 15)
    assert u["pgw_pct"] == pytest.approx(50.0)
    # device 0200: 3000 SSCH in 60 s; pend 2, disc 5, conn 20 units of 128 us per I/O; queue 0.5
    d = first.devices[0x0200]
    assert d["io_rate"] == pytest.approx(50.0)
    assert (d["pend_ms"], d["disc_ms"], d["conn_ms"]) == pytest.approx((0.256, 0.64, 2.56))
    assert d["queued"] == pytest.approx(0.5)
    assert p.devices[0x0200].paging and not p.devices[0x0201].paging
    assert 0x0200 in first.exposures and first.exposures[0x0200]["used_pct"] == pytest.approx(25.0)
    # 0300 comes online at 10:03: its first sample is a baseline
    assert 0x0300 not in p.intervals[0].devices and 0x0300 in p.intervals[1].devices
    assert p.paging_devices() == [0x0200]


def test_the_basic_file_judged(basic: Path) -> None:
    data = collect(basic, users="all", devices="all", exposures="all")
    found = {f.id: f for f in evaluate(period_from(data))}
    # LINUX01 waits for pages in 15 of its 30 active samples in the first interval only (1 of 3)
    assert "user-page-wait" not in found
    # system T/V (user 42 + system 9) / emulation 33 = 1.55: at the 1.5 warning line
    assert found["tv-ratio"].severity == "warning"
