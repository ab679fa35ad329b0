"""What the advisor reasons over: per-interval figures of the system, users,
devices and paging exposures, taken from the same interval data the reports
use (:func:`ztwin.reports.collect` and :mod:`ztwin.reports.metrics`).

A :class:`Period` holds the intervals of the window (``intervals``) and the
file's intervals before it (``history``, for baselines such as a device's
usual disconnect time). Each :class:`Interval` keeps the figures under the
key names of the reports (docs/reports.md), so evidence names them as the
reports do. Tests build Periods by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from ztwin.advisor.tables import FigureStore
from ztwin.reports import vmetrics
from ztwin.reports.core import DASD_CLASS, Intervals, TimeSpec, Window
from ztwin.reports.lpar import type_of
from ztwin.reports.metrics import device_metrics, exposure_metrics, user_metrics

Figures = Mapping[str, Any]

#: User figures kept per interval (USTAT, UPAGE keys) and the sample counts behind them.
USER_KEYS = (
    "act_pct", "run_pct", "cpu_pct", "pgw_pct", "iow_pct", "sim_pct", "tiw_pct", "cfw_pct", "ti_pct",
    "el_pct", "dm_pct", "ioa_pct", "pga_pct", "lim_pct", "oth_pct", "page_reads", "page_writes",
    "x_to_ms", "ms_to_x", "dasd", "xstor", "resident", "wss", "cpu_total_pct", "tv_ratio", "seconds",
    "steals", "virtual_io_rate",
)  # fmt: skip
USER_COUNTS = ("hf_total", "hf_queue", "hf_run", "hf_cpu", "hf_pgw", "hf_iow", "hf_sim", "hf_tiw", "hf_ti", "hf_el", "hf_lim")
DEVICE_KEYS = (
    "io_rate", "avoid_rate", "pend_ms", "disc_ms", "conn_ms", "serv_ms", "resp_ms", "cuwt_ms",
    "queue_wait_ms", "queued", "busy_pct", "ios", "seconds",
)  # fmt: skip
EXPOSURE_KEYS = (
    "used_pct", "slots_used", "page_slots", "page_reads", "page_writes", "page_total", "ssch_rate",
    "queue_len", "serv_ms", "resp_ms", "mload", "block_size", "block_read", "block_write", "seconds",
)  # fmt: skip


@dataclass
class Interval:
    """Figures of one sample interval."""

    index: int
    start: datetime
    end: datetime
    seconds: float
    #: SYSSUMLG / STORAGE / PAGELOG / AVAILLOG figures (``system_metrics``).
    sys: Figures = field(default_factory=dict)
    #: Per user: USTAT and UPAGE figures plus the high-frequency sample counts.
    users: Mapping[str, Figures] = field(default_factory=dict)
    #: Per device number: DEVICE figures.
    devices: Mapping[int, Figures] = field(default_factory=dict)
    #: Per paging exposure (device number): CPOWNED figures.
    exposures: Mapping[int, Figures] = field(default_factory=dict)
    #: LPAR figures: ``physical_load_pct`` (all partitions over the physical
    #: CPUs), ``others_load_pct`` (the other partitions' part of it),
    #: ``suspended_pct`` (z/VM's logical CPUs, mean), ``partitions``,
    #: ``dedicated`` (z/VM's partition has dedicated processors), ``pools``
    #: (per processor type: ``engines`` its shared logical processors used,
    #: ``lcpus``, ``partitions``), ``own_type`` (z/VM's processor type),
    #: ``pool_idle_engines`` (engines of that type's shared pool nobody used;
    #: one-type CECs only).
    lpar: Figures = field(default_factory=dict)


@dataclass
class Device:
    """A real device as configured: volser, DASD or not, CP-owned paging,
    PAV base (for an alias), page slots when it holds a paging area."""

    devno: int
    volser: str = ""
    dasd: bool = True
    paging: bool = False
    base: int | None = None
    dvid: str | None = None
    model: int | None = None

    @property
    def addr(self) -> str:
        return f"{self.devno:04X}"

    @property
    def label(self) -> str:
        return f"{self.addr} {self.volser}".strip()


@dataclass
class Period:
    """The intervals the advisor judges, the history before them, and the configuration."""

    path: str = ""
    intervals: list[Interval] = field(default_factory=list)
    history: list[Interval] = field(default_factory=list)
    devices: dict[int, Device] = field(default_factory=dict)
    system_id: str | None = None
    machine: str | None = None
    cp_level: str | None = None
    processors: int | None = None
    storage_bytes: int | None = None
    xstor_bytes: int | None = None
    sample_interval_s: float | None = None
    hf_rate_s: float | None = None
    lpar_name: str | None = None
    zone_s: int = 0

    # -- helpers -----------------------------------------------------------

    @property
    def start(self) -> datetime | None:
        return self.intervals[0].start if self.intervals else None

    @property
    def end(self) -> datetime | None:
        return self.intervals[-1].end if self.intervals else None

    def device(self, devno: int) -> Device:
        d = self.devices.get(devno)
        return d if d is not None else Device(devno)

    def paging_devices(self) -> list[int]:
        """Devices with a paging area or that are CP-owned paging volumes."""
        out = {d for d, dev in self.devices.items() if dev.paging}
        for iv in self.intervals:
            out.update(iv.exposures)
        return sorted(out)

    def aliases(self) -> dict[int, list[int]]:
        """PAV bases and their aliases."""
        out: dict[int, list[int]] = {}
        for devno, dev in self.devices.items():
            if dev.base is not None and dev.base != devno:
                out.setdefault(dev.base, []).append(devno)
        return {b: sorted(a) for b, a in sorted(out.items())}

    def iso(self, dt: datetime) -> str:
        z = self.zone_s
        text = dt.strftime("%Y-%m-%dT%H:%M:%S")
        if z == 0:
            return text + "Z"
        sign = "+" if z > 0 else "-"
        z = abs(z)
        return text + f"{sign}{z // 3600:02d}:{z % 3600 // 60:02d}"


# --------------------------------------------------------------------------
# From collected interval data
# --------------------------------------------------------------------------


def _round_s(dt: datetime) -> datetime:
    return (dt + timedelta(microseconds=500_000)).replace(microsecond=0)


def in_window(window: Window, day: datetime, start: datetime, end: datetime) -> str:
    """``"before"``, ``"in"`` or ``"after"``: where an interval lies relative
    to the window, with the reports' convention (intervals that start at or
    after --from and end at or before --to; times rounded to the second;
    --from/--to as times of day refer to the date of the first interval)."""
    frm = window.start.resolve(day) if window.start else None
    to = window.end.resolve(day) if window.end else None
    s, e = _round_s(start), _round_s(end)
    if to is not None and e > to:
        return "after"
    if frm is not None and s < frm:
        return "before"
    return "in"


def resolve_window(window: Window, day: datetime) -> tuple[datetime | None, datetime | None]:
    frm = window.start.resolve(day) if window.start else None
    to = window.end.resolve(day) if window.end else None
    return frm, to


def _pick(m: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    return {k: m[k] for k in keys if m.get(k) is not None}


def _series(series: Mapping[Any, Any]) -> dict[int, dict[Any, Any]]:
    """Per interval index: {key: raw}."""
    out: dict[int, dict[Any, Any]] = {}
    for key, items in series.items():
        for idx, raw in items:
            out.setdefault(idx, {})[key] = raw
    return out


def _sys_figures(s: Any) -> dict[str, Any]:
    """The interval's system figures plus spin-lock time (% of processor time)."""
    m: dict[str, Any] = s.metrics()
    spin, cpu_s = s.raw.get("cpu_spin"), s.raw.get("cpu_seconds")
    if spin is not None and cpu_s:
        m["cpu_spin_pct"] = 100.0 * spin / cpu_s
    return m


def _lpar_figures(iv: Intervals, idx: int) -> dict[str, Any]:
    s = iv.intervals[idx]
    cfg = iv.config
    out: dict[str, Any] = {}
    if not s.lpar:
        return out
    dispatch = sum(r.get("dispatch", 0.0) for r in s.lpar.values())
    phys = cfg.physical_cpus
    if phys and s.seconds > 0:
        out["physical_load_pct"] = 100.0 * dispatch / (s.seconds * phys)
        out["physical_cpus"] = phys
    out["partitions"] = len({p for p, _ in s.lpar})
    own = cfg.lpar_name
    if phys and s.seconds > 0 and own is not None:
        others = sum(r.get("dispatch", 0.0) for (p, _), r in s.lpar.items() if p != own)
        out["others_load_pct"] = 100.0 * others / (s.seconds * phys)
    info = cfg.lpars.get(own) if own is not None else None
    if info is not None and info.get("dedicated") is not None:
        out["dedicated"] = bool(info["dedicated"])
    susp = []
    for (pname, cpu), raw in s.lpar.items():
        if pname != own:
            continue
        craw = s.cpus.get(cpu)
        sec, disp = raw.get("seconds"), raw.get("dispatch")
        wait = craw.get("cpu_wait") if craw is not None else None
        if sec and disp is not None and wait is not None:
            susp.append(100.0 * max(0.0, sec - disp - wait) / sec)
    if susp:
        out["suspended_pct"] = sum(susp) / len(susp)
    out.update(_own_share(s, cfg, own))
    out["pools"] = _pools(s, cfg)
    if own is not None:
        own_types = {type_of(cfg, p, c) for p, c in s.lpar if p == own}
        if len(own_types) == 1:
            out["own_type"] = own_types.pop()
    idle = _pool_idle(s, cfg, out["pools"], out.get("own_type"))
    if idle is not None:
        out["pool_idle_engines"] = idle
    return out


def _pool_idle(s: Any, cfg: Any, pools: Mapping[str, Any], own_type: str | None) -> float | None:
    """Engines of z/VM's processor type's shared pool no partition used in
    the interval: the physical processors less the dedicated ones, less what
    the shared logical processors used (dispatch and management time). Only
    in a CEC of one processor type: the records before z/VM 6.3 count the
    physical processors of all types together."""
    phys = cfg.physical_cpus
    if not phys or own_type is None or own_type not in pools:
        return None
    if len({type_of(cfg, p, c) for p, c in s.lpar}) != 1:
        return None
    dedicated = sum(1 for p, _ in s.lpar if cfg.lpars.get(p, {}).get("dedicated"))
    return max(0.0, float(phys - dedicated) - float(pools[own_type]["engines"]))


def _pools(s: Any, cfg: Any) -> dict[str, dict[str, Any]]:
    """Per processor type, the shared logical processors of every partition
    (weight not 0: a dedicated one carries weight 0) and the engines they used
    (PR/SM's dispatch plus management time over the interval), and the
    partitions they belong to."""
    out: dict[str, dict[str, Any]] = {}
    if not s.seconds:
        return out
    for (pname, cpu), raw in s.lpar.items():
        info = cfg.lpars.get(pname, {})
        if info.get("dedicated") or info.get("lcpus", {}).get(cpu, {}).get("weight", info.get("weight")) == 0:
            continue
        t = type_of(cfg, pname, cpu)
        a = out.setdefault(t, {"engines": 0.0, "lcpus": 0, "partitions": []})
        a["engines"] += ((raw.get("dispatch") or 0.0) + (raw.get("overhead") or 0.0)) / s.seconds
        a["lcpus"] += 1
        if pname not in a["partitions"]:
            a["partitions"].append(pname)
    return out




def _weight(info: Mapping[str, Any], cpus: Iterable[int]) -> float | None:
    for c in cpus:
        w = info.get("lcpus", {}).get(c, {}).get("weight")
        if w:
            return float(w)
    w = info.get("weight")
    return float(w) if w else None


def _own_share(s: Any, cfg: Any, own: str | None) -> dict[str, Any]:
    """z/VM's partition against its weight's share of the physical processors:
    its logical processors, the engines it got, and its share in engines
    (weight over all partitions' weights, times the physical processors).
    Only when every partition runs one processor type (the records before
    z/VM 6.3 count the physical processors of all types together) and none is
    dedicated or without a weight."""
    if own is None or not s.seconds or not cfg.physical_cpus:
        return {}
    cpus: dict[str, list[int]] = {}
    for p, c in s.lpar:
        cpus.setdefault(p, []).append(c)
    if own not in cpus:
        return {}
    types, weights = set(), {}
    for p, cs in cpus.items():
        info = cfg.lpars.get(p, {})
        if info.get("dedicated"):
            return {}
        types.add(info.get("cpu_type"))
        w = _weight(info, cs)
        if w is None:
            return {}
        weights[p] = w
    if len(types) != 1:
        return {}
    share = cfg.physical_cpus * weights[own] / sum(weights.values())
    got = sum(r.get("dispatch", 0.0) for (p, _), r in s.lpar.items() if p == own) / s.seconds
    return {
        "own_logical_cpus": len(cpus[own]),
        "own_share_engines": share,
        "own_engines": got,
        "logical_over_share": len(cpus[own]) / share if share > 0 else None,
    }


#: The figure names a :class:`~ztwin.advisor.tables.FigureStore` keeps per kind.
STORE_KINDS = {
    "user": (*USER_KEYS, *USER_COUNTS),
    "device": DEVICE_KEYS,
    "exposure": EXPOSURE_KEYS,
}


def _user_figures(raw: Figures) -> dict[str, Any]:
    m = _pick(user_metrics(raw), USER_KEYS)
    m.update({k: raw[k] for k in USER_COUNTS if k in raw})
    return m


def _interval_figures(
    users: Mapping[str, Figures], devs: Mapping[int, Figures], exps: Mapping[int, Figures]
) -> tuple[dict[str, Figures], dict[int, Figures], dict[int, Figures]]:
    """One interval's user, device and exposure figures from its raw sums."""
    u: dict[str, Figures] = {userid: _user_figures(raw) for userid, raw in users.items()}
    dm: dict[int, Figures] = {devno: _pick(device_metrics(raw), DEVICE_KEYS) for devno, raw in devs.items()}
    e: dict[int, Figures] = {
        devno: _pick(exposure_metrics(raw, devs.get(devno)), EXPOSURE_KEYS) for devno, raw in exps.items()
    }
    return u, dm, e


def figure_sink(store: FigureStore, columns: bool = True) -> Callable[[Mapping[str, Any]], None]:
    """A ``collect(..., sink=)`` callback that turns each step's per-interval
    tables into figures and writes them to ``store`` (nothing kept in memory).

    The figures of all the step's rows of a kind are computed at once over
    columns (:mod:`ztwin.reports.vmetrics`: the formulas of
    :mod:`ztwin.reports.metrics`, equal to the last bit), then cut per
    interval; each interval's keys are in the order in which they first
    appear in the step, as the per-row path (``columns=False``: each row's
    figures from :func:`_interval_figures`) gives them. A step in which a
    key appears twice in one interval takes the per-row path."""
    from ztwin.reports.core import _table
    from ztwin.reports.store import series_of as table_series

    def per_row(t: Mapping[str, Any]) -> None:
        users = _series(table_series(t["user"], ["userid"], "user"))
        devices = _series(table_series(t["device"], ["devno"], "device"))
        exposures = _series(table_series(t["exposure"], ["devno"], "exposure"))
        for idx in sorted(set(users) | set(devices) | set(exposures)):
            u, d, e = _interval_figures(users.get(idx, {}), devices.get(idx, {}), exposures.get(idx, {}))
            store.put("user", idx, u)
            store.put("device", idx, d)
            store.put("exposure", idx, e)

    def sink(tables: Mapping[str, Any]) -> None:
        t = {k: _table(tables[k]) for k in ("user", "device", "exposure")}
        cols = {k: _StepRows.of(t[k], "userid" if k == "user" else "devno") for k in t} if columns else {}
        if not columns or any(c is None for c in cols.values()):
            per_row(t)
            return
        steps = {k: c for k, c in cols.items() if c is not None}
        figs = {
            "user": _user_columns(steps["user"]),
            "device": _pick_columns(vmetrics.device_metrics(steps["device"].sums), DEVICE_KEYS),
            "exposure": _pick_columns(
                vmetrics.exposure_metrics(steps["exposure"].sums, steps["device"].gather(steps["exposure"])),
                EXPOSURE_KEYS,
            ),
        }
        idxs = sorted(set().union(*(set(c.intervals.tolist()) for c in steps.values())))
        for kind, c in steps.items():
            c.put(store, kind, figs[kind], idxs)

    return sink


class _StepRows:
    """One kind's rows of a step, in interval order and, within an
    interval, in the order the keys first appear in the step; their sums
    as columns (:class:`ztwin.reports.vmetrics.Sums`)."""

    def __init__(self, t: Any, key: str) -> None:
        import pyarrow as pa

        from ztwin.reports.store import array_f64, array_i64, value_names

        n = t.num_rows
        t = t.combine_chunks()
        interval = array_i64(t.column("interval").chunk(0)) if n else np.zeros(0, dtype=np.int64)
        if n:
            enc = t.column(key).chunk(0).dictionary_encode()
            code = np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
            keys = enc.dictionary.to_pylist()
        else:
            code, keys = np.zeros(0, dtype=np.int64), []
        order = np.lexsort((code, interval))
        self.n = n
        self.interval = interval[order]
        self.code = code[order]
        self.keys = keys
        self.unique = bool(n == 0 or np.all(np.diff(self.interval * len(keys) + self.code) > 0))
        self.intervals = np.unique(self.interval)
        names = value_names(t.schema) if n or t.num_columns else []
        data: dict[str, pa.ChunkedArray] = {k: t.column(k) for k in names}

        def column(name: str) -> np.ndarray | None:
            c = data.get(name)
            if c is None:
                return None
            return array_f64(c.chunk(0))[order] if n else np.zeros(0)

        self.sums = vmetrics.Sums(n, column)

    @classmethod
    def of(cls, t: Any, key: str) -> _StepRows | None:
        rows = cls(t, key)
        return rows if rows.unique else None

    def gather(self, other: _StepRows) -> vmetrics.Sums:
        """This kind's sums on ``other``'s rows, matched by interval and key
        (all NaN where this kind has no row)."""
        mine = {k: i for i, k in enumerate(self.keys)}
        to_mine = np.array([mine.get(k, -1) for k in other.keys], dtype=np.int64)
        theirs = to_mine[other.code] if other.n else np.zeros(0, dtype=np.int64)
        width = max(len(self.keys), 1)
        me = self.interval * width + self.code
        want = other.interval * width + theirs
        pos = np.searchsorted(me, want) if self.n else np.zeros(other.n, dtype=np.int64)
        pos = np.minimum(pos, max(self.n - 1, 0))
        hit = (theirs >= 0) & (self.n > 0)
        if self.n:
            hit &= me[pos] == want
        src = self.sums

        def column(name: str) -> np.ndarray | None:
            a = src[name]
            out = np.full(other.n, np.nan)
            out[hit] = a[pos[hit]]
            return out

        return vmetrics.Sums(other.n, column)

    def put(self, store: FigureStore, kind: str, figures: Mapping[str, np.ndarray], idxs: list[int]) -> None:
        """Each interval's rows of ``figures`` to ``store`` (an empty table
        for an interval of ``idxs`` without rows of this kind)."""
        cat = store.cats[kind]
        # Intern the keys in the order the per-row path meets them.
        firsts = np.unique(self.code, return_index=True)
        for c in firsts[0][np.argsort(firsts[1], kind="stable")]:
            cat.intern(self.keys[int(c)])
        ids = np.array([cat.ids[k] for k in self.keys], dtype=np.int64)[self.code] if self.n else self.code
        nan = np.full(self.n, np.nan)
        vals = np.column_stack([np.broadcast_to(figures.get(name, nan), (self.n,)) for name in cat.names])
        vals = vals.reshape(self.n, len(cat.names))
        for idx in idxs:
            a = int(np.searchsorted(self.interval, idx, side="left"))
            b = int(np.searchsorted(self.interval, idx, side="right"))
            store.put_table(kind, idx, ids[a:b], np.ascontiguousarray(vals[a:b]))


def _pick_columns(m: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    return {k: m[k] for k in keys if m.get(k) is not None}


def _user_columns(rows: _StepRows) -> dict[str, Any]:
    """:func:`_user_figures` over columns."""
    m = _pick_columns(vmetrics.user_metrics(rows.sums), USER_KEYS)
    m.update({k: rows.sums[k] for k in USER_COUNTS})
    return m


def period_from(iv: Intervals, window: Window | None = None, store: FigureStore | None = None) -> Period:
    """A Period from data collected over the whole file (``collect(path,
    users="all", devices="all", exposures="all")``, or with ``sink=`` a
    :func:`figure_sink` over ``store``, whose tables the intervals then read
    lazily); ``window`` picks the intervals judged, those before it become
    the history."""
    cfg = iv.config
    window = window or Window()
    p = Period(
        path=iv.path,
        system_id=cfg.system_id,
        machine="-".join(x for x in (cfg.machine_type, cfg.machine_model) if x) or None,
        cp_level=cfg.cp_level,
        processors=cfg.cpu_count or (len(cfg.cpus) or None),
        storage_bytes=cfg.storage_bytes,
        xstor_bytes=cfg.xstor_blocks * 4096 if cfg.xstor_blocks else None,
        sample_interval_s=cfg.sample_interval_s,
        hf_rate_s=cfg.hf_rate_s,
        lpar_name=cfg.lpar_name,
        zone_s=cfg.zone_s,
    )
    # Devices: configuration records, then what the activity records say.
    paging_devs = {e.devno for e in cfg.paging if e.devno is not None and e.area_type == "PAGE"}
    for devno, conf in cfg.devices.items():
        p.devices[devno] = Device(
            devno,
            volser=conf.volser,
            dasd=conf.dev_class is None or conf.dev_class == DASD_CLASS,
            paging=devno in paging_devs,
            base=conf.base,
            dvid=conf.dvid,
            model=conf.model,
        )
    for devno, info in iv.device_info.items():
        d = p.devices.setdefault(devno, Device(devno))
        d.volser = info.get("volser") or d.volser
        cls = info.get("dev_class")
        if cls is not None:
            d.dasd = cls == DASD_CLASS
        base = info.get("base")
        if d.base is None and base and base != devno:
            d.base = base
    for devno, info in iv.exposure_info.items():
        d = p.devices.setdefault(devno, Device(devno))
        d.volser = d.volser or info.get("volser") or ""
        flags = info.get("flags")
        if devno in paging_devs or (info.get("page_slots") or 0) > 0 or (isinstance(flags, int) and flags & 0x80):
            d.paging = True
    users = _series(iv.user_series)
    devices = _series(iv.device_series)
    exposures = _series(iv.exposure_series)
    day = iv.intervals[0].start if iv.intervals else None
    for s in iv.intervals:
        where = in_window(window, day, s.start, s.end) if day is not None else "in"
        if where == "after":
            break
        u: Mapping[str, Figures]
        dm: Mapping[int, Figures]
        e: Mapping[int, Figures]
        if store is not None:
            u, dm, e = (store.lazy("user", s.index), store.lazy("device", s.index), store.lazy("exposure", s.index))
        else:
            u, dm, e = _interval_figures(
                users.get(s.index, {}), devices.get(s.index, {}), exposures.get(s.index, {})
            )
        item = Interval(
            index=s.index,
            start=s.start,
            end=s.end,
            seconds=s.seconds,
            sys=_sys_figures(s),
            users=u,
            devices=dm,
            exposures=e,
            lpar=_lpar_figures(iv, s.index),
        )
        (p.history if where == "before" else p.intervals).append(item)
    return p


__all__ = ["Device", "Interval", "Period", "TimeSpec", "Window", "in_window", "period_from", "resolve_window"]
