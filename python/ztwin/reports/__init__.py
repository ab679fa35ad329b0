"""Performance Toolkit style reports from MONWRITE files.

>>> from ztwin.reports import build, collect                 # doctest: +SKIP
>>> reports = build("day.monwrite", ["SYSSUMLG", "DEVICE"], start="10:00:00")
>>> reports["SYSSUMLG"].rows[0]["cpu_busy_pct"]            # the >>Mean>> line
>>> print(reports["DEVICE"].to_text())
>>> iv = collect("day.monwrite", users="all", devices="all")  # per-interval data
>>> [system_metrics(s.raw)["page_rate"] for s in iv.intervals]

Every figure is computed from decoded records only, in one streaming pass
(:mod:`ztwin.reports.core`); :mod:`ztwin.reports.metrics` holds the formulas.
Report names, FCX numbers and JSON keys: ``docs/reports.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ztwin.reports import agelist as _agelist
from ztwin.reports import config as _config
from ztwin.reports import devices as _devices
from ztwin.reports import iopath as _iopath
from ztwin.reports import iosum as _iosum
from ztwin.reports import linux as _linux
from ztwin.reports import lpar as _lpar
from ztwin.reports import nss as _nss
from ztwin.reports import qdio as _qdio
from ztwin.reports import storage as _storage
from ztwin.reports import system as _system
from ztwin.reports import trend as _trend
from ztwin.reports import vdisks as _vdisks
from ztwin.reports import users as _users
from ztwin.reports import vswitch as _vswitch
from ztwin.reports.core import Config, Intervals, ReportError, SysInterval, Window, collect
from ztwin.reports.metrics import (
    cpu_metrics,
    device_metrics,
    exposure_metrics,
    lpar_metrics,
    system_metrics,
    user_metrics,
)
from ztwin.reports.model import Chart, Report
from ztwin.reports.provenance import annotate

if TYPE_CHECKING:
    from ztwin._native import StrPath

__all__ = [
    "EXTRA_REPORTS",
    "REPORTS",
    "Chart",
    "Config",
    "Intervals",
    "Report",
    "ReportError",
    "ReportSpec",
    "SysInterval",
    "Window",
    "build",
    "build_from",
    "collect",
    "cpu_metrics",
    "device_metrics",
    "exposure_metrics",
    "lpar_metrics",
    "resolve_names",
    "system_metrics",
    "user_metrics",
]


@dataclass(frozen=True)
class ReportSpec:
    name: str
    fcx: str
    title: str
    builder: Callable[..., Report]
    #: Needs per-interval series of the users named with ``users``.
    user_logs: bool = False
    #: Needs each interval's per-CPU and per-logical-CPU sums.
    detail: bool = False
    aliases: tuple[str, ...] = ()
    #: The records the report reads besides MRMTRSYS (IBM names; see
    #: :mod:`ztwin.reports.provenance`): its note on inferred fields lists
    #: theirs.
    records: tuple[str, ...] = ()
    #: Records the report reads whole from the file (not through the kernel).
    direct: tuple[str, ...] = ()


REPORTS: dict[str, ReportSpec] = {
    s.name: s
    for s in (
        ReportSpec(
            "SYSSUMLG",
            "FCX225",
            "System Performance Summary by Time",
            _system.syssumlg,
            records=("MRSYTPRP", "MRSYTSYP", "MRSYTXSP", "MRSYTUWT", "MRPRCPRP", "MRUSEACT", "MRIODDEV"),
        ),
        ReportSpec(
            "CPU",
            "FCX100",
            "CPU Load and Transactions",
            _system.cpu,
            records=("MRSYTPRP", "MRSYTSYP", "MRSYTRSP", "MRSYTXSP", "MRSYTUWT", "MRUSEACT"),
        ),
        ReportSpec(
            "LPAR", "FCX126", "Logical Partition Activity", _system.lpar, records=("MRSYTPRP", "MRSYTCUP", "MRSYTCUG")
        ),
        ReportSpec(
            "LPARLOG",
            "FCX202",
            "Logical Partition Activity Log",
            _lpar.lparlog,
            detail=True,
            records=("MRSYTCUP", "MRSYTCUG"),
        ),
        ReportSpec(
            "PHYSLOG",
            "FCX302",
            "Real CPU Utilization Log",
            _lpar.physlog,
            detail=True,
            records=("MRSYTCUP", "MRSYTCUG"),
        ),
        ReportSpec(
            "PROCLOG",
            "FCX144",
            "Processor Activity, by Time",
            _lpar.proclog,
            detail=True,
            records=("MRSYTPRP", "MRSYTSYP", "MRSYTRSP", "MRSYTXSP", "MRSYTCUP"),
        ),
        ReportSpec(
            "LSHARACT", "FCX306", "Logical Partition Share", _lpar.lsharact, records=("MRSYTCUP", "MRSYTCUG")
        ),
        ReportSpec("USTAT", "FCX114", "Wait State Analysis by User", _users.ustat, records=("MRUSEINT",)),
        ReportSpec(
            "USTATLOG", "FCX164", "User Wait States Log", _users.ustatlog, user_logs=True, records=("MRUSEINT",)
        ),
        ReportSpec(
            "UPAGE", "FCX113", "User Paging Activity and Storage Utilization", _users.upage, records=("MRUSEACT",)
        ),
        ReportSpec(
            "UPAGELOG", "FCX163", "User Paging Activity Log", _users.upagelog, user_logs=True, records=("MRUSEACT",)
        ),
        ReportSpec(
            "DEVICE",
            "FCX108",
            "General I/O Device Load and Performance",
            _devices.device,
            records=("MRIODDEV", "MRMTRDEV", "MRPRCPRP", "MRSTOASP"),
        ),
        ReportSpec(
            "CPOWNED",
            "FCX109",
            "Load and Performance of CP Owned Disks",
            _devices.cpowned,
            aliases=("DEVICE CPOWNED", "DEVICE_CPOWNED"),
            records=("MRIODDEV", "MRMTRDEV", "MRPRCPRP", "MRSTOASP", "MRSYTASG"),
        ),
        ReportSpec(
            "STORAGE",
            "FCX103",
            "General Storage Utilization",
            _storage.storage,
            records=(
                "MRSYTRSG",
                "MRSTORSG",
                "MRSYTRSP",
                "MRSTORSP",
                "MRSYTSYP",
                "MRSYTXSP",
                "MRSYTXSG",
                "MRSTOXSG",
                "MRSYTASG",
                "MRSTOASP",
                "MRMTRMEM",
            ),
        ),
        ReportSpec(
            "PAGELOG",
            "FCX143",
            "Paging Activity Log",
            _storage.pagelog,
            records=("MRSYTSYP", "MRSYTXSP", "MRSYTXSG", "MRSYTASG", "MRSTOASP"),
        ),
        ReportSpec(
            "AVAILLOG",
            "FCX254",
            "Available List Data by Time",
            _storage.availlog,
            records=("MRSYTRSG", "MRSTORSG", "MRSYTRSP"),
        ),
        ReportSpec("MONSET", "FCX149", "Monitor Settings", _config.monset, records=("MRMTRSPR", "MRMTREPR")),
        ReportSpec(
            "SYSCONF",
            "FCX180",
            "System Configuration",
            _config.sysconf,
            records=(
                "MRMTRPRP",
                "MRSYTPRP",
                "MRMTRMEM",
                "MRMTRXSG",
                "MRMTRDEV",
                "MRMTRPAG",
                "MRMTRUSR",
                "MRUSELON",
                "MRSTOASP",
            ),
        ),
        ReportSpec("UCONF", "FCX226", "User Configuration", _users.uconf, records=("MRMTRUSR", "MRUSELON", "MRUSEACT")),
        ReportSpec(
            "DEVCONF",
            "FCX131",
            "I/O Device Configuration",
            _iopath.devconf,
            records=("MRIODDEV", "MRMTRDEV", "MRMTRPAG", "MRSTOASP"),
        ),
        ReportSpec(
            "NSS",
            "ZTWIN",
            "Saved Segments (NSS/DCSS) and Spool",
            _nss.nss,
            aliases=("DCSS",),
            direct=("MRSTOSHR", "MRSYTSHS", "MRSTOASP", "MRSTOSHS", "MRSTOSHL", "MRSTOSHD"),
        ),
    )
}


#: Reports produced only when named (``-r TREND`` or ``--by``), not in "all reports".
EXTRA_REPORTS: dict[str, ReportSpec] = {
    "TREND": ReportSpec(
        "TREND",
        "TREND",
        "System Trend by Hour or Day",
        _trend.trend,
        records=("MRSYTPRP", "MRSYTSYP", "MRSYTXSP", "MRSYTRSG", "MRSYTASG", "MRPRCPRP", "MRUSEACT", "MRIODDEV"),
    ),
    # The storage path's records (the I/O path model's volumes): asked for by
    # name, not part of the default set.
    "CACHEXT": ReportSpec("CACHEXT", "FCX177", "Cache Extended Functions", _iopath.cachext, direct=("MRIODCAD",)),
    "CHANNEL": ReportSpec("CHANNEL", "FCX161", "Channel Load", _iopath.channel, direct=("MRSYTEPM",)),
    "HPALIAS": ReportSpec("HPALIAS", "FCX327", "HyperPAV Alias Activity", _iopath.hpalias, direct=("MRIODHPP",)),
    "HPSHARE": ReportSpec(
        "HPSHARE",
        "ZTWIN",
        "HyperPAV Share Activity",
        _iosum.hpshare,
        records=("MRIODDEV", "MRMTRDEV", "MRPRCPRP"),
        direct=("MRIODHPP",),
    ),
    "MDCSTOR": ReportSpec(
        "MDCSTOR", "ZTWIN", "Minidisk Cache Storage by Time", _iosum.mdcstor, direct=("MRSYTRSG", "MRSYTXSG")
    ),
    "CTLUNIT": ReportSpec(
        "CTLUNIT", "ZTWIN", "Cached Control Units", _iosum.ctlunit, records=("MRMTRDEV",), direct=("MRIODCAD",)
    ),
    "LCU": ReportSpec(
        "LCU",
        "ZTWIN",
        "Logical Control Unit Activity",
        _iopath.lcu,
        records=("MRIODDEV", "MRMTRDEV", "MRPRCPRP"),
        direct=("MRIODHPP",),
    ),
    "MDCACHE": ReportSpec(
        "MDCACHE", "FCX134", "Minidisk Cache Activity", _iopath.mdcache, direct=("MRSYTXSG", "MRSYTRSG")
    ),
    "DEVLOG": ReportSpec(
        "DEVLOG",
        "FCX168",
        "Device Activity Log",
        _iopath.devlog,
        records=("MRIODDEV", "MRMTRDEV", "MRPRCPRP", "MRSTOASP"),
    ),
    # The global aging list (Era C levels; MRSTORSG's INFERRED aging-list block).
    "AGELLOG": ReportSpec("AGELLOG", "ZTWIN", "Global Aging List by Time", _agelist.agellog, direct=("MRSTORSG",)),
    # Virtual disks in storage (MRSTOASI, written only when VDISKs exist).
    "VDISKS": ReportSpec("VDISKS", "FCX147", "Virtual Disks in Storage", _vdisks.vdisks, direct=("MRSTOASI",)),
    # Guests' real QDIO devices (HiperSockets, OSA; written only when they exist).
    "QDIO": ReportSpec(
        "QDIO", "FCX251", "QDIO Device Activity", _qdio.qdio, direct=("MRIODQDS", "MRIODQDA")
    ),
    # VSWITCH uplinks (MRIODVSW, written only when a VSWITCH has an uplink).
    "VSWITCH": ReportSpec("VSWITCH", "FCX240", "VSWITCH Activity", _vswitch.vswitch, direct=("MRIODVSW",)),
    # Linux guests' APPLDATA (domain 10, written when a guest's appldata is on).
    "LXCPU": ReportSpec("LXCPU", "ZTWIN", "Linux CPU Utilization (APPLDATA)", _linux.lxcpu, direct=("MRAPLSDT",)),
    "LXMEM": ReportSpec("LXMEM", "ZTWIN", "Linux Memory Utilization (APPLDATA)", _linux.lxmem, direct=("MRAPLSDT",)),
    "LXNETWRK": ReportSpec(
        "LXNETWRK", "ZTWIN", "Linux Network Activity (APPLDATA)", _linux.lxnetwrk, direct=("MRAPLSDT",)
    ),
    "LXVMMEM": ReportSpec(
        "LXVMMEM",
        "ZTWIN",
        "Linux and z/VM Memory per Guest",
        _linux.lxvmmem,
        records=("MRUSEACT",),
        direct=("MRAPLSDT",),
    ),
}


def spec(name: str) -> ReportSpec:
    return REPORTS.get(name) or EXTRA_REPORTS[name]


def _lookup() -> dict[str, str]:
    table: dict[str, str] = {}
    for s in (*REPORTS.values(), *EXTRA_REPORTS.values()):
        for alias in (s.name, s.fcx, *s.aliases):
            if alias == "ZTWIN":
                continue  # ztwin's own reports have no FCX number: asked for by name only
            table[alias.upper()] = s.name
    return table


_ALIASES = _lookup()


def resolve_names(names: Iterable[str] | None) -> list[str]:
    """Canonical report names (case-insensitive; FCX numbers work too), in the
    order given without repeats; all reports when ``names`` is None or empty.
    Raises :class:`ReportError` naming an unknown report."""
    if not names:
        return list(REPORTS)
    out: list[str] = []
    for n in names:
        key = n.strip().upper()
        if key not in _ALIASES:
            known = ", ".join(REPORTS)
            extra = ", ".join(EXTRA_REPORTS)
            raise ReportError(f"unknown report {n!r} (known: {known}; asked for by name only: {extra})")
        canon = _ALIASES[key]
        if canon not in out:
            out.append(canon)
    return out


def build_from(
    iv: Intervals, names: Iterable[str] | None = None, users: Sequence[str] | None = None, **opts: Any
) -> dict[str, Report]:
    """Reports from an already collected :class:`Intervals` (``opts``: TREND's
    ``by``, ``hours``, ``weekdays``), each with its note on the inferred
    fields it reads (:func:`ztwin.reports.provenance.annotate`)."""
    out = {}
    for n in resolve_names(names):
        s = spec(n)
        rep = s.builder(iv, users=users, **opts)
        annotate(rep, s.records, iv.config.cp_level, s.direct)
        out[n] = rep
    return out


def build(
    path: StrPath,
    names: Iterable[str] | None = None,
    start: str | None = None,
    end: str | None = None,
    users: Sequence[str] | None = None,
    **collect_kw: Any,
) -> dict[str, Report]:
    """Read a file once and build the named reports (all when None).

    ``start``/``end``: the window (``HH:MM:SS`` or ``YYYY-MM-DD HH:MM:SS``,
    local time of the monitored system); reports over a window are INTERIM
    reports. ``users`` names the users of USTATLOG and UPAGELOG (their
    ``>System<`` lines when None). Raises ``OSError``,
    :class:`~ztwin.monitor.MonwriteError` or :class:`ReportError`.
    """
    chosen = resolve_names(names)
    sel = {u.upper() for u in users} if users else None
    if sel and any(spec(n).user_logs for n in chosen):
        collect_kw.setdefault("users", sel)
    if any(spec(n).detail for n in chosen):
        collect_kw.setdefault("detail", True)
    iv = collect(path, start, end, **collect_kw)
    return build_from(iv, chosen, users)
