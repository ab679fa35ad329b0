"""NSS: saved segments (NSS/DCSS), shared storage and spool space.

Not a Performance Toolkit report (hence ``ZTWIN`` in place of an FCX number):
it gathers what CP's monitor records say about saved segments, in the spirit
of the toolkit's shared-storage displays. Per saved segment (MRSTOSHR, D3R3):
its users in shared and exclusive mode at the end of the period and its
resident pages (mean and maximum over the samples); shared storage as a whole
(MRSYTSHS, D0R7: active DCSSs and resident shared frames); the segment events
of the period (MRSTOSHS saved, MRSTOSHL loaded by its first user, MRSTOSHD
removed by its last); and each spool volume (MRSTOASP with SPOOL slots): its
slots, slots in use and the pages written and read in the period.

The records are not part of the interval kernel's catalog. When the kernel
reads the whole file (``ztwin report``: ``collect_file(nss=True)``), its read
also folds them into what the report shows, as it goes
(``ztwin_analysis::side``: per segment name, per spool volume, MRSYTSHS sums;
memory flat in file size), limited to the window's intervals (compared to the
microsecond). Otherwise, or when that fold's window is not the report's or
its assumptions did not hold (``exact``), they are read in a pass of their
own: only these record types, as columns (:func:`ztwin.monitor.tables`,
decoded in Rust), in file order, with the same limits. From the history
database (``--db``) the report is empty and says so.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from ztwin.reports.common import new_report
from ztwin.reports.core import EPOCH_1900_US, Intervals
from ztwin.reports.model import Report
from ztwin.reports.text import Column, Table, fmt_num

NSS_KEYS = [
    "name", "spoolid", "users_shared", "users_exclusive", "resident_pages_mean",
    "resident_pages_max", "samples",
]  # fmt: skip

_EVENTS = {"MRSTOSHS": "saved", "MRSTOSHL": "loaded (first user)", "MRSTOSHD": "removed (last user)"}


_NAMES = ("MRSTOSHR", "MRSYTSHS", "MRSTOASP", *_EVENTS)


def _text(v: Any) -> str:
    return str(v).strip() if v is not None else ""


def _int(v: Any) -> int:
    return int(v) if isinstance(v, int | float) else 0


#: The fields read, per record (events: their prefix's SDFFN and SDFIDNUM).
_FIELDS = {
    "MRSTOSHR": ("STOSHR_SNTNAME", "STOSHR_SDFIDNUM", "STOSHR_SNTUSRSH", "STOSHR_SNTUSREX", "STOSHR_ASCCTPRS"),
    "MRSYTSHS": ("SYTSHS_SYSTADCS", "SYTSHS_RSASHARE"),
    "MRSTOASP": ("STOASP_CALSPOOL", "STOASP_RDEVDEV", "STOASP_CALVSER", "STOASP_CPVALOCD", "STOASP_EXPCTPWR",
                 "STOASP_EXPCTPRD", "STOASP_SCGSSCH"),
    **{n: (f"{n[2:]}_SDFFN", f"{n[2:]}_SDFIDNUM") for n in _EVENTS},
}  # fmt: skip


class _Rows:
    """The rows of one record type read: ``offset`` and ``tod`` (microseconds
    since 1970) as int64 arrays, the fields as Python lists (None: absent)."""

    def __init__(self, cols: dict[str, Any], keep: np.ndarray | None = None) -> None:
        idx = None if keep is None or keep.all() else np.flatnonzero(keep)
        self.cols = cols if idx is None else {k: [v[i] for i in idx.tolist()] for k, v in cols.items()}
        self.n = len(self.cols["offset"])
        self.offset = np.array(self.cols["offset"], dtype=np.int64)
        self.tod = np.array(self.cols["tod"], dtype=np.int64)

    def ints(self, name: str) -> np.ndarray:
        """A field as int64, 0 where absent (the field missing or null)."""
        col = self.cols.get(name)
        if col is None:
            return np.zeros(self.n, dtype=np.int64)
        try:
            return np.array(col, dtype=np.int64)  # no absent values (the usual case)
        except (TypeError, ValueError, OverflowError):
            return np.array([_int(v) for v in col], dtype=np.int64)

    def texts(self, name: str) -> list[str]:
        col = self.cols.get(name)
        return [""] * self.n if col is None else [_text(v) for v in col]


#: The records and fields NSS reads when it reads them itself (``ztwin
#: report`` has the kernel's read fold them instead, ``nss=True``).
READ = (list(_NAMES), [f for fs in _FIELDS.values() for f in fs])


def _tables(path: str) -> dict[str, _Rows]:
    """The records this report reads by record name, in file order (only the
    fields read; of MRSTOASP only the spool volumes' records, CALSPOOL not
    zero). Read as Python columns (``read_columns``): no Arrow conversion,
    which would import pandas. The interval pass over the file (collect)
    has already warned about its damage; this read does not warn again."""
    from ztwin._native import read_columns
    from ztwin.monitor import _READ_OPTIONS

    columns, _ = read_columns(path, READ[0], fields=READ[1], **_READ_OPTIONS)
    out = {}
    for name, cols in columns.items():
        if not cols["offset"]:
            continue
        keep = None
        if name == "MRSTOASP":
            spool = cols.get("STOASP_CALSPOOL")
            if spool is None:
                continue
            keep = np.array([bool(v) for v in spool], dtype=bool)
            if not keep.any():
                continue
        out[name] = _Rows(cols, keep)
    return out


def _tod(iv: Intervals, row: int, column: str) -> int:
    """An interval's ``start_tod`` or ``end_tod`` (read from its column: making
    the interval would decode its whole batch)."""
    from ztwin.reports.store import IntervalSeq

    seq = iv.intervals
    return int(seq.time(row, column) if isinstance(seq, IntervalSeq) else getattr(seq[row], column))


def _last_of(codes: np.ndarray) -> dict[int, int]:
    """The row of each code's last occurrence."""
    u, rev = np.unique(codes[::-1], return_index=True)
    return dict(zip(u.tolist(), (len(codes) - 1 - rev).tolist(), strict=True))


_SPOOL_KEYS = ("CALSPOOL", "CPVALOCD", "EXPCTPWR", "EXPCTPRD", "SCGSSCH")


def _when(tod: int) -> str:
    return (datetime(1970, 1, 1) + timedelta(microseconds=int(tod))).strftime("%Y-%m-%dT%H:%M:%S")


class _Found:
    """What the report shows of the records, within the window ``lo``-``hi``
    (microseconds since 1970): per segment name its last sample's spool ID
    and users, its resident pages' sum, maximum and samples; MRSYTSHS'
    samples, sums and maximum; the events in file order; per spool volume
    its volser and the counters of its last record before and in the
    window."""

    def __init__(self) -> None:
        self.segs: dict[str, dict[str, Any]] = {}
        self.shs: tuple[int, int, int, int] | None = None
        self.events: list[tuple[str, str, str, int]] = []
        self.spool: dict[int, dict[str, Any]] = {}


def _from_columns(tabs: dict[str, _Rows], lo: int, hi: int) -> _Found:
    """From the records as columns (a read of their own)."""
    out = _Found()
    found: list[tuple[int, str, str, str, int]] = []
    for name, what in _EVENTS.items():
        t = tabs.get(name)
        if t is None:
            continue
        p = name[2:]
        tods = t.tod
        sel = np.flatnonzero((lo <= tods) & (tods <= hi))
        if len(sel) == 0:
            continue
        names = t.texts(f"{p}_SDFFN")
        sids = t.ints(f"{p}_SDFIDNUM")
        for i in sel.tolist():
            found.append((int(t.offset[i]), _when(tods[i]), what, names[i], int(sids[i])))
    out.events = [e[1:] for e in sorted(found, key=lambda e: e[0])]
    t = tabs.get("MRSTOASP")
    if t is not None:
        tods = t.tod
        devs = t.ints("STOASP_RDEVDEV")
        volsers = t.cols.get("STOASP_CALVSER")
        cols = {k: t.ints(f"STOASP_{k}") for k in _SPOOL_KEYS}
        firsts = _last_of(devs[::-1])
        before = np.flatnonzero(tods <= lo)
        during = np.flatnonzero((lo < tods) & (tods <= hi))
        first_at = {d: int(before[i]) for d, i in _last_of(devs[before]).items()}
        last_at = {d: int(during[i]) for d, i in _last_of(devs[during]).items()}
        for d in sorted(firsts):
            row0 = len(devs) - 1 - firsts[d]
            out.spool[d] = {
                "volser": _text(volsers[row0]) if volsers is not None else "",
                **{w: None if at is None else {k: int(c[at]) for k, c in cols.items()}
                   for w, at in (("first", first_at.get(d)), ("last", last_at.get(d)))},
            }  # fmt: skip
    t = tabs.get("MRSYTSHS")
    if t is not None:
        inside = (lo < t.tod) & (t.tod <= hi)
        if inside.any():
            a, b = t.ints("SYTSHS_SYSTADCS")[inside].tolist(), t.ints("SYTSHS_RSASHARE")[inside].tolist()
            out.shs = (len(a), sum(a), sum(b), max(b))
    t = tabs.get("MRSTOSHR")
    if t is not None:
        sel = np.flatnonzero((lo < t.tod) & (t.tod <= hi))
        all_names = t.texts("STOSHR_SNTNAME")
        names = [all_names[i] for i in sel.tolist()]
        codes: dict[str, int] = {}
        code = np.fromiter((codes.setdefault(nm, len(codes)) for nm in names), dtype=np.int64, count=len(names))
        res = t.ints("STOSHR_ASCCTPRS")[sel]
        last = _last_of(code)
        spoolids = t.ints("STOSHR_SDFIDNUM")[sel]
        ush = t.ints("STOSHR_SNTUSRSH")[sel]
        uex = t.ints("STOSHR_SNTUSREX")[sel]
        count = np.bincount(code, minlength=len(codes))
        for nm, c in codes.items():
            mine = res[code == c]
            i = last[c]
            out.segs[nm] = {"name": nm, "spoolid": int(spoolids[i]), "users_shared": int(ush[i]),
                            "users_exclusive": int(uex[i]), "sum": int(mine.sum()), "max": int(mine.max()),
                            "n": int(count[c])}  # fmt: skip
    return out


def _from_summary(s: dict[str, Any]) -> _Found:
    """From the kernel read's reduction (``IntervalKernel(nss=True)``,
    ``nss_summary``): the same, folded as the file was read."""
    out = _Found()
    found = [(off, _when(tod), _EVENTS[rec], _text(name), int(sid)) for off, tod, rec, name, sid in s["events"]]
    out.events = [e[1:] for e in sorted(found, key=lambda e: e[0])]
    for dev, volser, first, last in s["spool"]:
        out.spool[dev] = {
            "volser": _text(volser),
            **{w: None if v is None else dict(zip(_SPOOL_KEYS, v, strict=True))
               for w, v in (("first", first), ("last", last))},
        }  # fmt: skip
    if s["shs"] is not None:
        out.shs = tuple(s["shs"])
    lasts: dict[str, int] = {}
    for name, off, sid, ush, uex, total, top, n in s["segments"]:
        nm = _text(name)  # names that differ only in blanks are one segment
        g = out.segs.get(nm)
        if g is None:
            out.segs[nm] = {"name": nm, "sum": 0, "max": top, "n": 0}
            g = out.segs[nm]
        if off > lasts.get(nm, -1):
            lasts[nm] = off
            g.update(spoolid=sid, users_shared=ush, users_exclusive=uex)
        g["sum"] += total
        g["max"] = max(g["max"], top)
        g["n"] += n
    return out


def nss(iv: Intervals, **_: Any) -> Report:
    found = _Found()
    from_file = Path(iv.path).is_file()
    rows = []
    if iv.intervals and from_file:
        lo = _tod(iv, 0, "start_tod") // 4096 - EPOCH_1900_US
        hi = _tod(iv, -1, "end_tod") // 4096 - EPOCH_1900_US
        s = iv.nss
        if s is not None and s["exact"] and (s["lo"], s["hi"]) == (lo, hi):
            found = _from_summary(s)
        else:
            found = _from_columns(_tables(iv.path), lo, hi)
    segs, shs, events, spool = found.segs, found.shs, found.events, found.spool
    for s in sorted(segs.values(), key=lambda s: (s["name"], s["spoolid"])):
        rows.append(
            {
                "name": s["name"],
                "spoolid": s["spoolid"],
                "users_shared": s["users_shared"],
                "users_exclusive": s["users_exclusive"],
                "resident_pages_mean": s["sum"] / s["n"],
                "resident_pages_max": s["max"],
                "samples": s["n"],
            }
        )
    table = Table(
        [
            Column("name", ["Saved", "Segment"], 8, None, left=True),
            Column("spoolid", ["Spool", "ID"], 5, 0),
            Column("users_shared", ["Users", "Shared"], 6, 0),
            Column("users_exclusive", ["Users", "Excl."], 6, 0),
            Column("resident_pages_mean", ["Resid.", "Pages", "Mean"], 9, 0),
            Column("resident_pages_max", ["Resid.", "Pages", "Max"], 9, 0),
            Column("samples", ["", "", "Samples"], 7, 0),
        ],
        [],
    )
    pre = ["Shared storage (MRSYTSHS):"]
    if not from_file:
        pre.append("  (read from MONWRITE files only: the history database does not keep these records)")
    elif shs:
        n, dcss, frames, top = shs
        pre.append(f"  Active DCSSs (mean)                 {fmt_num(dcss / n, 1, 12)}")
        pre.append(f"  Resident shared frames (mean)       {fmt_num(frames / n, 0, 12)}")
        pre.append(f"  Resident shared frames (max)        {fmt_num(top, 0, 12)}")
    else:
        pre.append("  (no saved segments in the selected period)")
    post = ["", "Saved segment events:"]
    if events:
        for tod, what, name, sid in events:
            post.append(f"  {tod[:19].replace('T', ' ')}  {name:<8} spool ID {sid:04d}  {what}")
    else:
        post.append("  (none in the selected period)")
    post.extend(["", "Spool volumes (MRSTOASP):"])
    if spool:
        post.append("  Volser  Device   Slots    In use  %Used  Pages written  Pages read  SSCH")
        for dev, s in sorted(spool.items()):
            last = s["last"] or s["first"]
            if last is None:
                continue
            first = s["first"] or dict.fromkeys(last, 0)
            slots = last["CALSPOOL"]
            used = last["CPVALOCD"]
            post.append(
                f"  {s['volser']:<6}  {dev:04X}  {slots:>8} {used:>8}  {100 * used / max(slots, 1):>5.1f}"
                f"  {last['EXPCTPWR'] - first['EXPCTPWR']:>13}  {last['EXPCTPRD'] - first['EXPCTPRD']:>10}"
                f"  {last['SCGSSCH'] - first['SCGSSCH']:>4}"
            )
    else:
        post.append("  (no spool volumes)")
    return new_report(
        iv,
        "NSS",
        "ZTWIN",
        "Saved Segments (NSS/DCSS) and Spool",
        rows=rows,
        keys=NSS_KEYS,
        table=table,
        pre_lines=pre,
        post_lines=post,
    )
