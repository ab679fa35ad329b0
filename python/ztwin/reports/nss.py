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

The records are read in a pass of their own over the file (they are not part
of the interval kernel's catalog): only these record types, as columns
(:func:`ztwin.monitor.tables`, decoded in Rust), then in file order, limited to
the window's intervals (compared to the microsecond); from the history database
(``--db``) the report is empty and says so.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

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


#: The fields read, per record (events: their prefix's SDFFN and SDFIDNUM).
_FIELDS = {
    "MRSTOSHR": ("STOSHR_SNTNAME", "STOSHR_SDFIDNUM", "STOSHR_SNTUSRSH", "STOSHR_SNTUSREX", "STOSHR_ASCCTPRS"),
    "MRSYTSHS": ("SYTSHS_SYSTADCS", "SYTSHS_RSASHARE"),
    "MRSTOASP": ("STOASP_CALSPOOL", "STOASP_RDEVDEV", "STOASP_CALVSER", "STOASP_CPVALOCD", "STOASP_EXPCTPWR",
                 "STOASP_EXPCTPRD", "STOASP_SCGSSCH"),
    **{n: (f"{n[2:]}_SDFFN", f"{n[2:]}_SDFIDNUM") for n in _EVENTS},
}  # fmt: skip


def _records(path: str) -> Iterator[tuple[str, int, str, dict[str, Any]]]:
    """``(name, tod_us, iso_time, fields)`` of the records this report reads,
    in file order; ``tod_us`` in microseconds since 1970, absent fields None.
    Only the fields read are converted, and of MRSTOASP only the spool
    volumes' records (CALSPOOL not zero)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ztwin.monitor import DamageWarning, arrow_tables

    rows: list[tuple[int, str, int, dict[str, Any]]] = []
    wanted = [f for fs in _FIELDS.values() for f in fs]
    with warnings.catch_warnings():
        # The interval pass over the file (collect) has already warned about
        # its damage; this second read must not warn again (under -W error a
        # repeated DamageWarning would abort the report).
        warnings.simplefilter("ignore", DamageWarning)
        tabs = arrow_tables(path, list(_NAMES), fields=wanted)
    for name, t in tabs.items():
        if t.num_rows == 0:
            continue
        cols = [c for c in _FIELDS[name] if c in t.column_names]
        if name == "MRSTOASP" and "STOASP_CALSPOOL" in cols:
            t = t.filter(pc.fill_null(pc.not_equal(t["STOASP_CALSPOOL"], 0), False))
        us = t["tod"].cast(pa.int64()).to_pylist()
        data = t.select(cols).to_pylist()
        for off, u, fields in zip(t["offset"].to_pylist(), us, data, strict=True):
            rows.append((off, name, u, fields))
    rows.sort(key=lambda r: r[0])
    for _, name, u, fields in rows:
        when = datetime(1970, 1, 1) + timedelta(microseconds=u)
        yield name, u, when.strftime("%Y-%m-%dT%H:%M:%S"), fields


def _int(v: Any) -> int:
    return int(v) if isinstance(v, int | float) else 0


def nss(iv: Intervals, **_: Any) -> Report:
    segs: dict[str, dict[str, Any]] = {}
    shs: list[tuple[int, int]] = []
    events: list[tuple[str, str, str, int]] = []
    spool: dict[int, dict[str, Any]] = {}
    from_file = Path(iv.path).is_file()
    if iv.intervals and from_file:
        lo = iv.intervals[0].start_tod // 4096 - EPOCH_1900_US
        hi = iv.intervals[-1].end_tod // 4096 - EPOCH_1900_US
        for name, t, when, f in _records(iv.path):
            if name in _EVENTS:
                if lo <= t <= hi:
                    p = name[2:]
                    events.append((when, _EVENTS[name], _text(f.get(f"{p}_SDFFN")), _int(f.get(f"{p}_SDFIDNUM"))))
                continue
            if name == "MRSTOASP":
                if not f.get("STOASP_CALSPOOL"):
                    continue
                dev = _int(f.get("STOASP_RDEVDEV"))
                s = spool.setdefault(dev, {"volser": _text(f.get("STOASP_CALVSER")), "first": None, "last": None})
                vals = {
                    k: _int(f.get(f"STOASP_{k}")) for k in ("CALSPOOL", "CPVALOCD", "EXPCTPWR", "EXPCTPRD", "SCGSSCH")
                }
                if t <= lo:
                    s["first"] = vals
                elif t <= hi:
                    s["last"] = vals
                continue
            if not (lo < t <= hi):
                continue
            if name == "MRSYTSHS":
                shs.append((_int(f.get("SYTSHS_SYSTADCS")), _int(f.get("SYTSHS_RSASHARE"))))
                continue
            seg = _text(f.get("STOSHR_SNTNAME"))
            s = segs.setdefault(seg, {"name": seg, "resident": [], "spoolid": 0})
            s["spoolid"] = _int(f.get("STOSHR_SDFIDNUM"))
            s["users_shared"] = _int(f.get("STOSHR_SNTUSRSH"))
            s["users_exclusive"] = _int(f.get("STOSHR_SNTUSREX"))
            s["resident"].append(_int(f.get("STOSHR_ASCCTPRS")))
    rows = []
    for s in sorted(segs.values(), key=lambda s: (s["name"], s["spoolid"])):
        res = s.pop("resident")
        rows.append(
            {
                "name": s["name"],
                "spoolid": s["spoolid"],
                "users_shared": s["users_shared"],
                "users_exclusive": s["users_exclusive"],
                "resident_pages_mean": sum(res) / len(res),
                "resident_pages_max": max(res),
                "samples": len(res),
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
        n = len(shs)
        pre.append(f"  Active DCSSs (mean)                 {fmt_num(sum(a for a, _ in shs) / n, 1, 12)}")
        pre.append(f"  Resident shared frames (mean)       {fmt_num(sum(b for _, b in shs) / n, 0, 12)}")
        pre.append(f"  Resident shared frames (max)        {fmt_num(max(b for _, b in shs), 0, 12)}")
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
