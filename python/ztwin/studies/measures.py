"""Figures the studies compare with published values, computed from decoded
monitor records only (never from simulator internals).

:class:`Run` reads a run's MONWRITE file with ztwin's own reports
(:func:`ztwin.reports.build`): the same decoding and the same Performance
Toolkit formulas a user gets from ``ztwin report``. Windows are given in
seconds after monitoring began (the scenario's time zero) and select whole
sample intervals, as ``ztwin report --from --to`` does.

The functions below :class:`Run` take the per-record-type DataFrames of one
file (:func:`ztwin.monitor.tables`) and a time window and return a number
(the benchmarks use them). Counter deltas follow the report conventions:
differences between consecutive samples of the same key, divided by the
seconds between their timestamps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd

from ztwin.monitor import tables
from ztwin.reports import Report, build

#: The reports a window's figures come from (one pass over the file each).
REPORTS = ["SYSSUMLG", "CPOWNED", "DEVICE", "UPAGE", "USTAT", "LPAR", "STORAGE", "UCONF", "MONSET", "SYSCONF"]
MEAN = ">>Mean>>"
SYSTEM = ">System<"



class Run:
    """One run's MONWRITE file and its reports over windows."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        sysrec = tables(self.path, ["MRMTRSYS"])["MRMTRSYS"]
        first = sysrec["tod"].min()
        zone = 0
        if "MTRSYS_SYSZONE" in sysrec and len(sysrec):
            z = sysrec["MTRSYS_SYSZONE"].iloc[0]
            zone = int(z) if z is not None and abs(int(z)) < 86400 else 0
        #: Local time of simulated time zero (monitoring start).
        self.start: datetime = first.tz_convert(None).to_pydatetime() + timedelta(seconds=zone)
        self._cache: dict[tuple[Any, ...], dict[str, Report]] = {}

    def time(self, s: float) -> datetime:
        return self.start + timedelta(seconds=s)

    def clock(self, s: float) -> str:
        return self.time(s).strftime("%H:%M:%S")

    def reports(self, a: float, b: float, users: Sequence[str] = ()) -> dict[str, Report]:
        """The reports over intervals that start at or after `a` and end at or
        before `b` seconds; with `users`, also their USTATLOG and UPAGELOG."""
        key = (a, b, tuple(users))
        if key not in self._cache:
            names = REPORTS + (["USTATLOG", "UPAGELOG"] if users else [])
            fmt = "%Y-%m-%d %H:%M:%S"
            self._cache[key] = build(
                self.path, names, self.time(a).strftime(fmt), self.time(b).strftime(fmt), users=list(users) or None
            )
        return self._cache[key]

    # -- SYSSUMLG (FCX225) --------------------------------------------------------

    def sys(self, a: float, b: float) -> dict[str, Any]:
        """The >>Mean>> line of SYSSUMLG over the window."""
        return dict(self.reports(a, b)["SYSSUMLG"].rows[0])

    def sys_intervals(self, a: float, b: float) -> list[dict[str, Any]]:
        """SYSSUMLG's interval lines."""
        return [dict(r) for r in self.reports(a, b)["SYSSUMLG"].rows if r["interval_end"] != MEAN]

    # -- devices (FCX108, FCX109) ---------------------------------------------------

    def devices(self, a: float, b: float, paging: bool | None = None) -> list[dict[str, Any]]:
        """DEVICE rows (not the >>All DASD<< line); `paging` True/False keeps
        only CP-owned (paging) / other devices."""
        rows = [dict(r) for r in self.reports(a, b)["DEVICE"].rows if r["addr"] != ">>All DASD<<"]
        if paging is not None:
            rows = [r for r in rows if bool(r.get("cp_owned")) == paging]
        return rows

    def exposures(self, a: float, b: float) -> list[dict[str, Any]]:
        """CPOWNED rows: one per paging exposure."""
        return [dict(r) for r in self.reports(a, b)["CPOWNED"].rows]

    def slots(self, a: float, b: float) -> dict[str, Any]:
        """CPOWNED's page/spool allocation summary."""
        return dict(self.reports(a, b)["CPOWNED"].extra.get("summary", {}))

    # -- users (FCX113, FCX114, FCX163, FCX164) -------------------------------------

    def upage(self, a: float, b: float) -> dict[str, dict[str, Any]]:
        return {r["userid"]: dict(r) for r in self.reports(a, b)["UPAGE"].rows}

    def ustat(self, a: float, b: float) -> dict[str, dict[str, Any]]:
        return {r["userid"]: dict(r) for r in self.reports(a, b)["USTAT"].rows}

    def upagelog(self, a: float, b: float, user: str) -> list[dict[str, Any]]:
        """UPAGELOG interval lines of `user`."""
        rep = self.reports(a, b, [user])["UPAGELOG"]
        return [dict(r) for r in rep.rows if r["userid"] == user and r["interval_end"] != MEAN]

    def ustatlog(self, a: float, b: float, user: str) -> list[dict[str, Any]]:
        rep = self.reports(a, b, [user])["USTATLOG"]
        return [dict(r) for r in rep.rows if r["userid"] == user and r["interval_end"] != MEAN]

    # -- processors (FCX126), storage (FCX103) --------------------------------------

    def lpar(self, a: float, b: float) -> list[dict[str, Any]]:
        """LPAR rows of the partition z/VM runs in, by logical CPU."""
        rep = self.reports(a, b)["LPAR"]
        name = rep.config.lpar_name
        return [dict(r) for r in rep.rows if r["partition"] == name]

    def storage(self, a: float, b: float) -> dict[str, Any]:
        return dict(self.reports(a, b)["STORAGE"].rows[0])


def total(rows: Sequence[dict[str, Any]], key: str) -> float:
    return float(sum(r.get(key) or 0.0 for r in rows))


def values(rows: Sequence[dict[str, Any]], key: str) -> list[float]:
    return [float(r[key]) for r in rows if r.get(key) is not None]


def mean(vals: Sequence[float]) -> float | None:
    """Plain mean, None for no values."""
    return sum(vals) / len(vals) if vals else None


def weighted(rows: Sequence[dict[str, Any]], key: str, weight: str) -> float | None:
    """Mean of `key` weighted by `weight` (e.g. service time by I/O rate)."""
    w = total(rows, weight)
    if not w:
        return None
    return sum((r.get(key) or 0.0) * (r.get(weight) or 0.0) for r in rows) / w


# --------------------------------------------------------------------------
# Record-table figures (the benchmarks use these)
# --------------------------------------------------------------------------

RECORDS = [
    "MRMTRSYS", "MRIODDEV", "MRSTOASP", "MRUSEACT", "MRUSEINT", "MRSYTPRP", "MRSYTUWT", "MRSYTSYP", "MRSYTXSP",
    "MRSYTRSG", "MRPRCPRP",
]  # fmt: skip
TOD_UNITS_PER_S = 4096e6


@dataclass
class Data:
    """The record tables of one run, and the sample times in it."""

    frames: dict[str, pd.DataFrame]
    start: pd.Timestamp

    @classmethod
    def load(cls, path: str | Path) -> Data:
        frames = tables(path, RECORDS)
        # Configuration records carry the time monitoring started.
        start = frames["MRMTRSYS"]["tod"].min()
        return cls(frames, start)

    def at(self, seconds: float) -> pd.Timestamp:
        """The time `seconds` after monitoring started."""
        return self.start + pd.Timedelta(seconds=seconds)


def deltas(df: pd.DataFrame, key: list[str], cols: list[str], t0: pd.Timestamp, t1: pd.Timestamp) -> pd.DataFrame:
    """Per key: summed deltas of `cols` between the sample at or before `t0` and
    the last sample at or before `t1`, plus the elapsed seconds `T`."""
    d = df[(df["tod"] >= t0) & (df["tod"] <= t1)]
    if d.empty:
        return pd.DataFrame(columns=key + cols + ["T"])
    first = d.sort_values("tod").groupby(key, dropna=False).first()
    last = d.sort_values("tod").groupby(key, dropna=False).last()
    out = pd.DataFrame(index=last.index)
    for c in cols:
        out[c] = last[c].astype("float64") - first[c].astype("float64")
    out["T"] = (last["tod"] - first["tod"]).dt.total_seconds()
    return out[out["T"] > 0].reset_index()


def paging_volumes(data: Data) -> int:
    """Number of paging exposures in the file (MRSTOASP keys)."""
    return int(data.frames["MRSTOASP"]["STOASP_RDEVDEV"].nunique())


def paging_ssch_rate(data: Data, t0: float, t1: float) -> float:
    """Paging SSCHs per second over all paging exposures (MRSTOASP)."""
    d = deltas(data.frames["MRSTOASP"], ["STOASP_RDEVDEV"], ["STOASP_EXPCTSRD", "STOASP_EXPCTSWR"], data.at(t0), data.at(t1))
    return float(((d["STOASP_EXPCTSRD"] + d["STOASP_EXPCTSWR"]) / d["T"]).sum())


def _is_paging(data: Data) -> pd.Series:
    """Per MRIODDEV row: whether the device is a paging exposure (has MRSTOASP records)."""
    dev = data.frames["MRIODDEV"]
    return dev["IODDEV_RDEVDEV"].isin(set(data.frames["MRSTOASP"]["STOASP_RDEVDEV"]))


def hf_samples(data: Data, t0: float, t1: float) -> float:
    """High-frequency samples taken between t0 and t1 (PRCPRP_HFCOUNT; every
    processor counts every sample)."""
    d = deltas(data.frames["MRPRCPRP"], ["PRCPRP_PFXCPUAD"], ["PRCPRP_HFCOUNT"], data.at(t0), data.at(t1))
    return float(d["PRCPRP_HFCOUNT"].max()) if len(d) else 0.0


def paging_busy_sum(data: Data, t0: float, t1: float) -> float:
    """Sum over paging volumes of %busy = (pending + disconnect + connect) / T
    (MRIODDEV), as DEVICE's ``busy_pct``."""
    dev = data.frames["MRIODDEV"]
    paging = dev[_is_paging(data)]
    cols = ["IODDEV_SCMCNTIM", "IODDEV_SCMDDTIM", "IODDEV_SCMFPTIM"]
    d = deltas(paging, ["IODDEV_RDEVDEV"], cols, data.at(t0), data.at(t1))
    return float((100 * (d["IODDEV_SCMCNTIM"] + d["IODDEV_SCMDDTIM"] + d["IODDEV_SCMFPTIM"]) * 128e-6 / d["T"]).sum())


def paging_service_ms(data: Data, t0: float, t1: float) -> float:
    """Average service time (pending + disconnect + connect) per paging I/O."""
    dev = data.frames["MRIODDEV"]
    paging = dev[_is_paging(data)]
    cols = ["IODDEV_SCMCNTIM", "IODDEV_SCMDDTIM", "IODDEV_SCMFPTIM", "IODDEV_SCGCOUNT"]
    d = deltas(paging, ["IODDEV_RDEVDEV"], cols, data.at(t0), data.at(t1))
    n = d["IODDEV_SCGCOUNT"].sum()
    if n <= 0:
        return 0.0
    return float((d["IODDEV_SCMCNTIM"] + d["IODDEV_SCMDDTIM"] + d["IODDEV_SCMFPTIM"]).sum() * 0.128 / n)


def paging_queue(data: Data, t0: float, t1: float) -> float:
    """Largest average queue length on any paging volume (HF samples)."""
    dev = data.frames["MRIODDEV"]
    paging = dev[_is_paging(data)]
    d = deltas(paging, ["IODDEV_RDEVDEV"], ["IODDEV_HFRDEVCT"], data.at(t0), data.at(t1))
    n = hf_samples(data, t0, t1)
    q = d["IODDEV_HFRDEVCT"] / n if n > 0 else d["IODDEV_HFRDEVCT"] * 0
    return float(q.max()) if len(q) else 0.0


def paging_response_ms(data: Data, t0: float, t1: float) -> float:
    """Average response (queue wait + service) per paging I/O."""
    return _response_ms(data, t0, t1, paging=True)


def dasd_response_ms(data: Data, t0: float, t1: float) -> float:
    """Average response (queue wait + service) per I/O to non-paging DASD."""
    return _response_ms(data, t0, t1, paging=False)


def _response_ms(data: Data, t0: float, t1: float, paging: bool) -> float:
    """Service from the measurement block, queue wait by Little's law from the
    high-frequency queue samples (average queue length / I/O rate), averaged
    over devices weighted by their I/Os."""
    dev = data.frames["MRIODDEV"]
    is_paging = _is_paging(data)
    paging = dev[is_paging if paging else ~is_paging]
    cols = ["IODDEV_SCMCNTIM", "IODDEV_SCMDDTIM", "IODDEV_SCMFPTIM", "IODDEV_SCGCOUNT", "IODDEV_HFRDEVCT"]
    d = deltas(paging, ["IODDEV_RDEVDEV"], cols, data.at(t0), data.at(t1))
    d = d[d["IODDEV_SCGCOUNT"] > 0]
    if d.empty:
        return 0.0
    serv = (d["IODDEV_SCMCNTIM"] + d["IODDEV_SCMDDTIM"] + d["IODDEV_SCMFPTIM"]) * 0.128 / d["IODDEV_SCGCOUNT"]
    rate = d["IODDEV_SCGCOUNT"] / d["T"]
    queue = d["IODDEV_HFRDEVCT"] / max(hf_samples(data, t0, t1), 1.0)
    resp = serv + 1000 * queue / rate
    return float((resp * d["IODDEV_SCGCOUNT"]).sum() / d["IODDEV_SCGCOUNT"].sum())


def user_state_pct(
    data: Data, users: list[str], field: str, t0: float, t1: float, of: str = "USEINT_HFSTCT"
) -> float:
    """Share (%) of high-frequency samples of `users` found in state `field`
    (e.g. USEINT_HFWTPAG for page wait), out of all samples or, with
    ``of="USEINT_HFQUCT"``, out of the samples that found them active."""
    ui = data.frames["MRUSEINT"]
    ui = ui[ui["USEINT_VMDUSER"].isin(users)]
    d = deltas(ui, ["USEINT_VMDUSER", "USEINT_VMDCPUAD"], [field, of], data.at(t0), data.at(t1))
    total = d[of].sum()
    return float(100 * d[field].sum() / total) if total else 0.0


def users_with_state(data: Data, field: str, min_pct: float, t0: float, t1: float) -> int:
    """Number of users in state `field` in at least `min_pct` % of their samples."""
    ui = data.frames["MRUSEINT"]
    d = deltas(ui, ["USEINT_VMDUSER", "USEINT_VMDCPUAD"], [field, "USEINT_HFSTCT"], data.at(t0), data.at(t1))
    g = d.groupby("USEINT_VMDUSER")[[field, "USEINT_HFSTCT"]].sum()
    pct = 100 * g[field] / g["USEINT_HFSTCT"].where(g["USEINT_HFSTCT"] > 0)
    return int((pct >= min_pct).sum())


def user_page_read_rate(data: Data, users: list[str], t0: float, t1: float) -> tuple[float, float]:
    """DASD page reads/s and XSTOR-to-central pages/s of `users` (MRUSEACT)."""
    ua = data.frames["MRUSEACT"]
    ua = ua[ua["USEACT_VMDUSER"].isin(users) & (ua["USEACT_VMDCPUAD"] == 0)]
    d = deltas(ua, ["USEACT_VMDUSER"], ["USEACT_CALCPPGR", "USEACT_CALCPXRD"], data.at(t0), data.at(t1))
    return float((d["USEACT_CALCPPGR"] / d["T"]).sum()), float((d["USEACT_CALCPXRD"] / d["T"]).sum())


def tv_ratio(data: Data, t0: float, t1: float) -> float:
    """T/V as Performance Toolkit's system summary shows it: processor time
    used (user plus system) over guest emulation time (MRSYTPRP)."""
    d = deltas(data.frames["MRSYTPRP"], ["SYTPRP_PFXCPUAD"], ["SYTPRP_PFXUTIME", "SYTPRP_PFXTMSYS", "SYTPRP_PFXPRBTM"], data.at(t0), data.at(t1))
    emul = -d["SYTPRP_PFXPRBTM"].sum()  # counts down
    return float((d["SYTPRP_PFXUTIME"] + d["SYTPRP_PFXTMSYS"]).sum() / emul) if emul > 0 else 0.0


def capture_ratio(data: Data, t0: float, t1: float) -> float:
    """Processor time charged to users over all processor time used."""
    d = deltas(data.frames["MRSYTPRP"], ["SYTPRP_PFXCPUAD"], ["SYTPRP_PFXUTIME", "SYTPRP_PFXTMSYS"], data.at(t0), data.at(t1))
    total = (d["SYTPRP_PFXUTIME"] + d["SYTPRP_PFXTMSYS"]).sum()
    return float(d["SYTPRP_PFXUTIME"].sum() / total) if total > 0 else 0.0


def user_tv_ratio(data: Data, t0: float, t1: float) -> float:
    """T/V of the users alone: total over virtual CPU time (MRUSEACT)."""
    ua = data.frames["MRUSEACT"]
    d = deltas(ua, ["USEACT_VMDUSER", "USEACT_VMDCPUAD"], ["USEACT_VMDTTIME", "USEACT_VMDVTIME"], data.at(t0), data.at(t1))
    v = d["USEACT_VMDVTIME"].sum()
    return float(d["USEACT_VMDTTIME"].sum() / v) if v else 0.0


def cpu_busy_pct(data: Data, t0: float, t1: float) -> float:
    """Average busy % per processor: 100 * (1 - Δwait / T) (MRSYTPRP)."""
    d = deltas(data.frames["MRSYTPRP"], ["SYTPRP_PFXCPUAD"], ["SYTPRP_PFXTOTWT"], data.at(t0), data.at(t1))
    busy = 100 * (1 - d["SYTPRP_PFXTOTWT"] / TOD_UNITS_PER_S / d["T"])
    return float(busy.mean()) if len(busy) else 0.0


def xstor_rate(data: Data, t0: float, t1: float) -> float:
    """PGIN + PGOUT per second as Performance Toolkit shows them: pages moved
    from and to expanded storage (MRSYTXSP)."""
    d = deltas(data.frames["MRSYTXSP"], ["SYTXSP_PFXCPUAD"], ["SYTXSP_PLSPGIN", "SYTXSP_PLSPGOUT"], data.at(t0), data.at(t1))
    return float(((d["SYTXSP_PLSPGIN"] + d["SYTXSP_PLSPGOUT"]) / d["T"]).sum())


def page_rate(data: Data, t0: float, t1: float) -> float:
    """Paging to DASD per second: pages read plus pages written (MRSYTSYP)."""
    d = deltas(data.frames["MRSYTSYP"], ["SYTSYP_PFXCPUAD"], ["SYTSYP_PLSPIOPR", "SYTSYP_PLSPIOPW"], data.at(t0), data.at(t1))
    return float(((d["SYTSYP_PLSPIOPR"] + d["SYTSYP_PLSPIOPW"]) / d["T"]).sum())


def user_dasd_pages(data: Data, t0: float, t1: float) -> float:
    """Average number of user pages on DASD (MRUSEACT CALCTPGS) over the window."""
    ua = data.frames["MRUSEACT"]
    ua = ua[(ua["USEACT_VMDCPUAD"] == 0) & (ua["tod"] >= data.at(t0)) & (ua["tod"] <= data.at(t1))]
    if ua.empty:
        return 0.0
    return float(ua.groupby("tod")["USEACT_CALCTPGS"].sum().mean())


def eligible_max(data: Data, t0: float, t1: float) -> int:
    """Most users on the eligible list at any sample (MRSYTUWT SRMCELIG)."""
    u = data.frames["MRSYTUWT"]
    u = u[(u["tod"] >= data.at(t0)) & (u["tod"] <= data.at(t1))]
    return int(u["SYTUWT_SRMCELIG"].max()) if len(u) else 0


def linux_query_clock(s: float) -> str:
    """The clock time of `s` seconds into a `linux_query_run` run (it starts
    at 15:00:00; before midnight)."""
    t = int(s)
    if not 0 <= t < 9 * 3600:
        raise ValueError(f"linux_query_run: {s} s is not within the run's day (15:00:00 to 24:00:00)")
    return f"{15 + t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}"


def linux_query_run(
    text: str, name: str, end: float, window: float, workdir: Path
) -> tuple[Path, Sequence[dict[str, Any]], float]:
    """Run one variant of a Linux `linux_db` study (the scenario ``text``,
    written to ``workdir/NAME.toml``) for ``end`` seconds from 15:00:00 and
    read its last ``window`` seconds: the MONWRITE file, the LXCPU rows
    (APPLDATA) and the queries per second (:func:`linux_query_rate`)."""
    from ztwin.twin import Scenario

    scen = workdir / f"{name}.toml"
    scen.write_text(text)
    out = workdir / f"{name}.monwrite"
    Scenario.load(scen).run(out, duration=end)
    cpu, rate = linux_query_rate(out, text, end - window, end, name)
    return out, cpu, rate


def linux_query_rate(
    out: Path, text: str, t0: float, t1: float, name: str = "run"
) -> tuple[Sequence[dict[str, Any]], float]:
    """The LXCPU rows of a `linux_query_run` file from ``t0`` to ``t1`` s and
    the queries (transactions) per second: the guests' user CPU over one
    query's CPU (the scenario ``text``'s ``cpu_per_query_us``)."""
    import re

    cpu = build(out, ["LXCPU"], start=linux_query_clock(t0), end=linux_query_clock(t1))["LXCPU"].rows
    m = re.search(r"cpu_per_query_us = ([0-9.]+)", text)
    if m is None:
        raise ValueError(f"{name}: the scenario has no cpu_per_query_us")
    rate = sum((r["user_pct"] or 0.0) / 100 * r["cpus"] for r in cpu) / (float(m.group(1)) / 1e6)
    return cpu, rate

