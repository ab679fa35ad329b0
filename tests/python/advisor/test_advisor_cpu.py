"""CPU checks on hand-built intervals: trigger, non-trigger, severity, persistence."""

from __future__ import annotations

from advisor_data import by_id, iv, period, run, user

from ztwin.advisor.facts import Interval


def busy(values: list[float], **extra: float) -> list[Interval]:
    return [iv(i, {"cpu_busy_pct": v, "cpus_online": 2.0, **extra}) for i, v in enumerate(values)]


def test_cpu_busy_warning_critical_and_quiet() -> None:
    f = by_id(run(period(busy([91, 93, 95, 92]))))["cpu-busy"]
    assert f.severity == "warning"
    assert "93.0% busy on average" not in f.evidence[0].summary  # mean over held intervals
    assert "92.8% busy on average" in f.evidence[0].summary
    assert len(f.evidence[0].held) == 4
    assert by_id(run(period(busy([99, 99, 98.5, 99]))))["cpu-busy"].severity == "critical"
    assert "cpu-busy" not in by_id(run(period(busy([85, 88, 89.9, 80]))))


def test_cpu_busy_persistence_consecutive_or_share() -> None:
    # one hot interval in six: neither two in a row nor half of them
    assert "cpu-busy" not in by_id(run(period(busy([50, 95, 50, 50, 50, 50]))))
    # two in a row
    f = by_id(run(period(busy([50, 95, 96, 50, 50, 50]))))["cpu-busy"]
    assert [i.index for i in f.evidence[0].held] == [1, 2]
    # scattered, but half of the period
    assert "cpu-busy" in by_id(run(period(busy([95, 50, 95, 50, 95, 50]))))
    # a stricter qualifier from the rules file
    strict = "[cpu-busy]\npersist = { intervals = 3, share = 0 }\n"
    assert "cpu-busy" not in by_id(run(period(busy([50, 95, 96, 50, 50, 50])), strict))
    # critical must persist on its own: one critical interval among warnings stays a warning
    assert by_id(run(period(busy([91, 99, 92, 93]))))["cpu-busy"].severity == "warning"


def test_lpar_busy_from_the_physical_load() -> None:
    ivs = [iv(i, {"cpu_busy_pct": 40.0}, lpar={"physical_load_pct": 96.0, "suspended_pct": 12.0, "physical_cpus": 6})
           for i in range(3)]  # fmt: skip
    f = by_id(run(period(ivs)))["lpar-busy"]
    assert f.severity == "warning" and "6 physical processors" in f.evidence[0].summary
    ivs = [iv(i, lpar={"physical_load_pct": 60.0}) for i in range(3)]
    assert "lpar-busy" not in by_id(run(period(ivs)))
    assert "lpar-busy" not in by_id(run(period(busy([40, 40]))))  # no LPAR data: nothing to say


def waiting(cpu_busy: float, share: float, suspended: float | None = None) -> list[Interval]:
    lpar = {} if suspended is None else {"suspended_pct": suspended}
    users = {f"U{k}": user(act=100, run=10, cpu=share) for k in range(4)}
    return [iv(i, {"cpu_busy_pct": cpu_busy}, users=users, lpar=lpar) for i in range(3)]


def test_cpu_wait_is_a_shortage_only_when_the_processors_are_busy() -> None:
    f = by_id(run(period(waiting(92.0, 30.0))))["cpu-wait"]
    assert f.severity == "critical" and "bottleneck" in f.title
    assert by_id(run(period(waiting(85.0, 15.0))))["cpu-wait"].severity == "warning"
    # PR/SM suspension instead of busy processors
    assert by_id(run(period(waiting(40.0, 15.0, suspended=20.0))))["cpu-wait"].severity == "warning"
    # idle processors: dispatch latency, info
    f = by_id(run(period(waiting(42.0, 27.0))))["cpu-wait"]
    assert f.severity == "info" and "idle time" in f.title
    assert "cpu-wait" not in by_id(run(period(waiting(95.0, 5.0))))


def test_tv_ratio_levels() -> None:
    def tv(v: float) -> list[Interval]:
        return [iv(i, {"tv_ratio": v, "page_rate": 100.0, "read_write_rate": 50.0, "ssch_rate": 10.0}) for i in range(3)]

    assert "tv-ratio" not in by_id(run(period(tv(1.02))))
    assert by_id(run(period(tv(1.25))))["tv-ratio"].severity == "info"
    f = by_id(run(period(tv(1.8))))["tv-ratio"]
    assert f.severity == "warning" and "0.80 seconds" in f.explanation and "150 pages/s" in f.evidence[0].summary
    assert by_id(run(period(tv(150.0))))["tv-ratio"].severity == "critical"


def test_capture_ratio_is_graded_downwards() -> None:
    def cr(v: float) -> list[Interval]:
        return [iv(i, {"capture_ratio": v, "steal_rate": 1000.0}) for i in range(3)]

    assert "capture-ratio" not in by_id(run(period(cr(0.99))))
    assert by_id(run(period(cr(0.85))))["capture-ratio"].severity == "info"
    f = by_id(run(period(cr(0.76))))["capture-ratio"]
    assert f.severity == "warning" and "24.0% went to CP work" in f.explanation


def _share(over: float, susp: float, n: int = 3) -> list[Interval]:
    return [iv(i, {"cpu_busy_pct": 20.0}, lpar={"logical_over_share": over, "suspended_pct": susp,
                                                 "own_logical_cpus": 8, "own_share_engines": 8 / over,
                                                 "own_engines": 1.5, "physical_load_pct": 99.0})
            for i in range(n)]  # fmt: skip


def test_lpar_share_judged_only_while_pr_sm_holds_zvm_back() -> None:
    # 8 logical processors on a share of 1.6: five times the share, 30% suspended.
    f = by_id(run(period(_share(5.0, 30.0))))["lpar-share"]
    assert f.severity == "critical"
    assert "8 logical processors on a weight share of 1.6 physical ones" in f.evidence[0].summary
    assert by_id(run(period(_share(2.5, 30.0))))["lpar-share"].severity == "warning"
    # Far above the share, but PR/SM does not hold it back: nothing to say.
    assert "lpar-share" not in by_id(run(period(_share(5.0, 1.0))))
    assert "lpar-share" not in by_id(run(period(_share(1.5, 30.0))))


def _capped(susp: float, idle: float | None, dedicated: bool = False) -> list[Interval]:
    lpar: dict[str, object] = {"suspended_pct": susp, "own_engines": 1.5, "own_logical_cpus": 4, "own_type": "IFL"}
    if idle is not None:
        lpar["pool_idle_engines"] = idle
    if dedicated:
        lpar["dedicated"] = True
    return [iv(i, {"cpu_busy_pct": 95.0}, lpar=lpar) for i in range(3)]


def test_lpar_cap_needs_suspension_with_idle_capacity() -> None:
    f = by_id(run(period(_capped(30.0, 2.0))))["lpar-cap"]
    assert f.severity == "critical" and "2.0 engines of the IFL pool went unused" in f.evidence[0].summary
    assert by_id(run(period(_capped(15.0, 2.0))))["lpar-cap"].severity == "warning"
    # The pool is full: the suspension is contention, not a cap.
    assert "lpar-cap" not in by_id(run(period(_capped(30.0, 0.2))))
    # Pool size unknown (several processor types before 6.3): not judged.
    assert "lpar-cap" not in by_id(run(period(_capped(30.0, None))))
    assert "lpar-cap" not in by_id(run(period(_capped(5.0, 2.0))))
