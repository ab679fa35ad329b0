"""The Rust interval kernel and the plain Python reference
(``reference_intervals.py``, the rules of docs/reports.md) agree exactly on
random record sequences: counters that wrap (16 and 32 bit), 64-bit times that
are reset or step back, keys that are missing from a set or vanish, users that
log on or off and devices varied on between sets, virtual CPUs, logical CPUs of
partitions, and windows."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from builders import PRBTM_START, S, START, MonFile, config_records
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_intervals import collect as reference_collect

from ztwin.reports import collect

USERS = ["LINUX01", "LINUX02", "CMS1"]
DEVICES = [0x200, 0x201, 0x300]
CPUS = [0, 1]

# A counter step: mostly growing, sometimes falling (a wrap for 16/32-bit
# counters, a reset or a glitch for 64-bit times).
step = st.one_of(st.integers(0, 5000), st.integers(-70_000, -1), st.just(0))


@st.composite
def set_plan(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "dt": draw(st.sampled_from([60, 60, 60, 30, 0, -5])),
        "cpus": draw(st.lists(st.sampled_from(CPUS), unique=True, max_size=2)),
        "users": draw(st.lists(st.sampled_from(USERS), unique=True, max_size=3)),
        "vcpus": draw(st.integers(1, 2)),
        "hf_only": draw(st.booleans()),
        "devices": draw(st.lists(st.sampled_from(DEVICES), unique=True, max_size=3)),
        "globals": draw(st.booleans()),
        "lpar": draw(st.booleans()),
        "steps": draw(st.lists(step, min_size=40, max_size=40)),
        "events": draw(st.lists(st.sampled_from(["on", "off", "von", "none", "none"]), max_size=2)),
        "event_user": draw(st.sampled_from(USERS)),
        "event_dev": draw(st.sampled_from(DEVICES)),
        "reset_time": draw(st.booleans()),
    }


class Counters:
    """Cumulative values per (key, field), moved by the plan's steps."""

    def __init__(self) -> None:
        self.v: dict[tuple[Any, str], int] = {}

    def get(self, key: Any, field: str, d: int, bits: int) -> int:
        x = self.v.get((key, field), 1000 + 37 * len(field))
        x = (x + d) % (1 << bits)
        self.v[(key, field)] = x
        return x


def write_file(path: Path, plans: list[dict[str, Any]]) -> Path:
    f = MonFile(path)
    # Device class and type are in the device configuration (MRMTRDEV).
    devconf = [("MRMTRDEV", {"MTRDEV_RDEVDEV": d, "MTRDEV_RDEVCLAS": 4 if d != 0x300 else 1,
                             "MTRDEV_RDEVTYPE": 0x04 if d != 0x300 else 0x10}) for d in DEVICES]  # fmt: skip
    f.sample_set(START, config_records(2, USERS[:2], interval=60) + devconf)
    c = Counters()
    t = 0
    for n, p in enumerate(plans):
        t += max(p["dt"], 0) if p["dt"] >= 0 else p["dt"]
        tod = START + (60 + t) * S
        s = iter(p["steps"] * 4)
        recs: list[tuple[str, dict[str, Any]]] = []
        for cpu in p["cpus"]:
            big = lambda name, k=cpu: c.get(k, name, abs(next(s)) * 100_000 if not p["reset_time"] else -(10**15), 62)  # noqa: E731
            recs.append(("MRSYTPRP", {
                "SYTPRP_PFXCPUAD": cpu, "SYTPRP_PFXUTIME": big("UTIME") + 10**13, "SYTPRP_PFXTMSYS": big("TMSYS"),
                "SYTPRP_PFXTOTWT": big("TOTWT"), "SYTPRP_PFXPRBTM": PRBTM_START - c.get(cpu, "PRBTM", abs(next(s)), 40),
                "SYTPRP_PFXSPINT": big("SPINT"), "SYTPRP_PFXCPUTY": 3,
            }))  # fmt: skip
            recs.append(("MRSYTSYP", {"SYTSYP_PFXCPUAD": cpu, "SYTSYP_PLSCTSS": c.get(cpu, "CTSS", next(s), 32),
                                      "SYTSYP_PLSPIOPR": c.get(cpu, "PIOPR", next(s), 32)}))  # fmt: skip
            recs.append(("MRSYTXSP", {"SYTXSP_PFXCPUAD": cpu, "SYTXSP_PLSPGIN": c.get(cpu, "PGIN", next(s), 32)}))
            recs.append(("MRSTORSP", {"STORSP_PFXCPUAD": cpu, "STORSP_PLSLTD1": c.get(cpu, "LTD1", next(s), 32),
                                      "STORSP_PLSELIGE": c.get(cpu, "ELIGE", next(s), 32)}))  # fmt: skip
            # The processors' high-frequency sample count (devices use it: MRIODDEV has none).
            recs.append(("MRPRCPRP", {"PRCPRP_PFXCPUAD": cpu, "PRCPRP_HFCOUNT": c.get(cpu, "HFC", abs(next(s)), 32)}))
        if p["globals"]:
            recs.append(("MRSYTRSG", {"SYTRSG_RSAAVAIL": 4000 + abs(next(s)), "SYTRSG_RSAFRQWT": c.get(0, "FRQWT", next(s), 32)}))
            recs.append(("MRSTORSG", {"STORSG_RSAAVLLT": 1000, "STORSG_RSAEMERG": c.get(0, "EMERG", next(s), 32)}))
            recs.append(("MRSYTUWT", {"SYTUWT_SRMCELIG": n % 3, "SYTUWT_CALCPURN": c.get(0, "CPURN", next(s), 31)}))
            recs.append(("MRSYTXSG", {"SYTXSG_XSTCTXAV": 5 + n, "SYTXSG_XSTCPPAR": 99,
                                      "SYTXSG_XSTXBGET": c.get(0, "XBGET", next(s), 32)}))  # fmt: skip
        if p["lpar"]:
            recs.append(("MRSYTCUG", {"SYTCUG_LCUTNPAR": 2, "SYTCUG_LCUTPCCT": 4, "SYTCUG_LPARNAME": "LPTEST"}))
            recs.append(("MRSYTCUP", {
                "SYTCUP_LCUPPNUM": 3, "SYTCUP_LCUPCPCT": 2, "SYTCUP_LCUPNAME": "LPTEST", "SYTCUP_LCPTYPE": "CP",
                "SYTCUP_CPUDATA": [{"SYTCUP_LCUCPUID": k, "SYTCUP_LCUCWGHT": 500, "SYTCUP_LCXCPTYP": "CP",
                                    "SYTCUP_LCUCACTM": c.get(("lp", k), "DSP", next(s) * 10**6, 60),
                                    "SYTCUP_LCUCLPTM": c.get(("lp", k), "OVH", next(s) * 10**4, 60)}
                                   for k in p["cpus"]],
            }))  # fmt: skip
        for u in p["users"]:
            for v in range(p["vcpus"]):
                if not p["hf_only"] or v:
                    recs.append(("MRUSEACT", {
                        "USEACT_VMDUSER": u, "USEACT_VMDCPUAD": v,
                        "USEACT_VMDTTIME": c.get((u, v), "TTIME", abs(next(s)) * 10**5, 60),
                        "USEACT_VMDVTIME": c.get((u, v), "VTIME", next(s) * 10**5, 60),
                        "USEACT_VMDVDSCT": c.get((u, v), "VDSCT", next(s), 32),
                        "USEACT_CALCPPGR": c.get((u, v), "PGR", next(s), 32), "USEACT_VMDWSSPR": 100 + next(s) % 50,
                        "USEACT_VMDCTPVR": 70 + v, "USEACT_CALTODON": START + (n // 3) * S if u == "CMS1" else START,
                    }))  # fmt: skip
                recs.append(("MRUSEINT", {
                    "USEINT_VMDUSER": u, "USEINT_VMDCPUAD": v,
                    "USEINT_HFSTCT": c.get((u, v), "STCT", abs(next(s)), 32),
                    "USEINT_HFQUCT": c.get((u, v), "QUCT", next(s), 32),
                    "USEINT_HFELIG1": c.get((u, v), "ELIG1", next(s), 32),
                }))  # fmt: skip
        for d in p["devices"]:
            recs.append(("MRIODDEV", {
                "IODDEV_RDEVDEV": d, "IODDEV_RDEVSER": f"V{d:04X}",
                "IODDEV_SCMSSCH": c.get(d, "SSCH", next(s), 16), "IODDEV_SCMCOUNT": c.get(d, "CNT", next(s), 16),
                "IODDEV_SCGSSCH": c.get(d, "GSSCH", next(s), 32) if d == 0x201 else 0,
                "IODDEV_SCMCNTIM": c.get(d, "CNTIM", next(s), 32), "IODDEV_SCMFPTIM": c.get(d, "FPTIM", next(s), 32),
                "IODDEV_SCMDDTIM": c.get(d, "DDTIM", next(s), 32), "IODDEV_HFCTIO": c.get(d, "HFC", abs(next(s)), 32),
                "IODDEV_HFRDEVCT": c.get(d, "HFQ", next(s), 32),
            }))  # fmt: skip
            if d != 0x300:
                recs.append(("MRSTOASP", {
                    "STOASP_RDEVDEV": d, "STOASP_CALVSER": f"V{d:04X}", "STOASP_CALFLAG1": "80",
                    "STOASP_CALPAGE": 1000, "STOASP_CPVALOCD": 100 + next(s) % 100,
                    "STOASP_EXPCTSRD": c.get(d, "SRD", next(s), 32), "STOASP_EXPCTPRD": c.get(d, "PRD", next(s), 32),
                    "STOASP_EXPCTSWR": c.get(d, "SWR", next(s), 32), "STOASP_EXPCTPWR": c.get(d, "PWR", next(s), 32),
                    "STOASP_EXPCURQC": next(s) % 7,
                }))  # fmt: skip
        f.sample_set(tod, recs)
        ev: list[tuple[str, dict[str, Any]]] = []
        for e in p["events"]:
            if e == "on":
                ev.append(("MRUSELON", {"USELON_VMDUSER": p["event_user"]}))
            elif e == "off":
                ev.append(("MRUSELOF", {"USELOF_VMDUSER": p["event_user"]}))
            elif e == "von":
                ev.append(("MRIODVON", {"IODVON_RDEVDEV": p["event_dev"]}))
        if ev:
            f.event_set(tod + S, ev)
    return f.close()


def plain(raw: Any) -> dict[str, float]:
    out = {k: float(v) for k, v in dict(raw.items() if hasattr(raw, "items") else raw).items()}
    assert not any(math.isnan(v) for v in out.values())
    return out


def typed(raw: Any) -> dict[str, tuple[type, float]]:
    return {k: (type(v), v) for k, v in raw.items()}


def same(a: Any, b: Any, detail: bool = True) -> None:
    """The kernel's Intervals (a) equal the reference's (b), figure for figure
    (``detail``: also each interval's per-CPU and per-logical-CPU sums, which
    the kernel's Intervals carry only when series are asked for)."""
    assert [(s.index, s.start_tod, s.end_tod, s.start, s.end, s.seconds) for s in a.intervals] == [
        (s.index, s.start_tod, s.end_tod, s.start, s.end, s.seconds) for s in b.intervals
    ]
    for x, y in zip(a.intervals, b.intervals, strict=True):
        assert plain(x.raw) == plain(y.raw), x.index
        if not detail:
            continue
        assert {k: plain(v) for k, v in x.cpus.items()} == {k: plain(v) for k, v in y.cpus.items()}
        assert {k: plain(v) for k, v in x.lpar.items()} == {k: plain(v) for k, v in y.lpar.items()}
    assert plain(a.total()) == plain(b.total())
    for name in ("cpus", "users", "devices", "exposures", "lpar"):
        ta, tb = getattr(a, name), getattr(b, name)
        assert list(ta) == list(tb), name  # first-seen order
        assert {k: typed(v) for k, v in ta.items()} == {k: typed(v) for k, v in tb.items()}, name
    for name in ("user_series", "device_series", "exposure_series"):
        sa, sb = getattr(a, name), getattr(b, name)
        assert {k: [(i, plain(r)) for i, r in v] for k, v in sa.items()} == {
            k: [(i, plain(r)) for i, r in v] for k, v in sb.items()
        }, name
    assert a.device_info == b.device_info
    assert a.exposure_info == b.exposure_info
    assert (a.data_start, a.data_end, a.sets, a.stopped_early) == (b.data_start, b.data_end, b.sets, b.stopped_early)
    ca, cb = a.config, b.config
    assert ca.cpus == cb.cpus and ca.users == cb.users and ca.lpars == cb.lpars
    assert (ca.partitions, ca.physical_cpus, ca.lpar_name) == (cb.partitions, cb.physical_cpus, cb.lpar_name)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plans=st.lists(set_plan(), min_size=1, max_size=7), window=st.sampled_from([None, (90, 250), (0, 400), (150, None)]))
def test_kernel_agrees_with_the_reference(tmp_path: Path, plans: list[dict[str, Any]], window: Any) -> None:
    path = write_file(tmp_path / "k.monwrite", plans)
    kw: dict[str, Any] = {"users": "all", "devices": "all", "exposures": "all"}
    if window is not None:
        lo, hi = window
        base = (START // 4096 - 2_208_988_800 * 10**6) // 10**6  # seconds since 1970 of START
        import datetime as dt

        fmt = lambda s: (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=base + s)).strftime("%Y-%m-%d %H:%M:%S")  # noqa: E731
        kw["start"] = fmt(lo)
        kw["end"] = fmt(hi) if hi is not None else None
    a = collect(path, **kw)
    b = reference_collect(path, **kw)
    same(a, b)


def test_kernel_agrees_on_the_report_fixture(basic_file: Path) -> None:
    for kw in ({}, {"users": "all", "devices": "all", "exposures": "all"}, {"start": "10:01:30", "end": "10:04:00"}):
        same(collect(basic_file, **kw), reference_collect(basic_file, **kw), "users" in kw)  # type: ignore[arg-type]


def test_per_sample_flags(tmp_path: Path) -> None:
    """The kernel marks wraps and glitches per row, and on the system rows also
    the keys whose sample only set a baseline or whose time was reset."""
    import pyarrow as pa

    from ztwin._native import IntervalKernel

    f = MonFile(tmp_path / "flags.monwrite")
    f.sample_set(START, config_records(1, []))
    dev = lambda n, ssch: ("MRIODDEV", {"IODDEV_RDEVDEV": n, "IODDEV_SCMSSCH": ssch})  # noqa: E731
    cpu = lambda t: ("MRSYTPRP", {"SYTPRP_PFXCPUAD": 0, "SYTPRP_PFXTOTWT": t, "SYTPRP_PFXPRBTM": PRBTM_START})  # noqa: E731
    f.sample_set(START + 60 * S, [dev(0x200, 65_000), cpu(10 * S)])
    f.sample_set(START + 120 * S, [dev(0x200, 100), cpu(40 * S)])  # SCMSSCH wraps
    f.sample_set(START + 180 * S, [dev(0x200, 200), dev(0x201, 5), cpu(39 * S)])  # new device; TOTWT glitch
    f.sample_set(START + 240 * S, [dev(0x200, 300), dev(0x201, 9), cpu(10)])  # TOTWT reset
    k = IntervalKernel(str(f.close()), None, None, None, "all", None)
    k.step()
    t = k.take()
    system = pa.table(t["system"]).column("flags").to_pylist()
    devices = pa.table(t["device"])
    assert list(zip(devices.column("devno").to_pylist(), devices.column("flags").to_pylist(), strict=True)) == [
        (0x200, 1), (0x200, 0), (0x200, 0), (0x201, 0)
    ]
    assert system == [1, 2 | 8, 4]


def test_rows_of_small_steps_equal_one_step(basic_file: Path) -> None:
    """The rows of steps of one and two intervals, put together, are those
    of one step over the file, entity by entity."""
    import pyarrow as pa

    from ztwin._native import IntervalKernel

    def tables(step: int) -> dict[str, pa.Table]:
        k = IntervalKernel(str(basic_file), None, None, "all", "all", "all")
        parts: dict[str, list[pa.Table]] = {}
        more, steps = True, 0
        while more:
            more = k.step(step)
            steps += 1
            for e, t in k.take().items():
                parts.setdefault(e, []).append(pa.table(t))
        assert step == 0 or steps >= 2
        return {e: pa.concat_tables(ts) for e, ts in parts.items()}

    whole = tables(0)
    assert whole["user"].num_rows and whole["device"].num_rows and whole["cpu"].num_rows
    for step in (1, 2):
        got = tables(step)
        assert set(got) == set(whole)
        for e, t in whole.items():
            assert got[e].to_pylist() == t.to_pylist(), (step, e)
