"""VDISKS (FCX147 style): virtual disks in storage.

One line per VDISK address space, from MRSTOASI (D3R14, INFERRED map: see
``docs/monitor-format.md``), which CP writes at each sample while the VDISK
exists: its owner and device (from the space name ``VDISK$userid$vdev``),
its size in 512-byte blocks, the I/Os and pages moved in the period (the
counters' growth from the last sample before the period to its last one)
with their rates, the pages the I/Os had to bring back from XSTOR or paging
DASD first, the time they spun on the VDISK serialisation, and its pages in
central storage, XSTOR and on paging DASD (mean and maximum over the
period's samples).

The records are read as columns in a pass of their own over the file (they
are not part of the interval kernel's catalog), limited to the window's intervals; from the
history database (``--db``) the report is empty and says so.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from ztwin.reports.common import new_report
from ztwin.reports.core import EPOCH_1900_US, Intervals
from ztwin.reports.model import Report
from ztwin.reports.text import Column, Table

VDISKS_KEYS = [
    "owner", "vdev", "space", "blocks", "ios", "io_rate", "pages_read_rate", "pages_written_rate",
    "faults", "spin_ms", "resident_mean", "resident_max", "xstor_mean", "dasd_mean", "samples",
]  # fmt: skip

_COUNTERS = ("VDIIOCNT", "VDIPGRD", "VDIPGWT", "VDIFAULT", "VDISPIN")
_FIELDS = ("STOASI_ASCNAME", "STOASI_ASCCTPRS", "STOASI_ASCCTPXS", "STOASI_ASCCTPDS", "STOASI_VDIBLKS",
           *(f"STOASI_{k}" for k in _COUNTERS))  # fmt: skip


def _text(v: Any) -> str:
    return str(v).strip() if v is not None else ""


def _num(v: Any) -> float:
    return float(v) if isinstance(v, int | float) else 0.0


def _records(path: str) -> list[tuple[float, dict[str, Any]]]:
    """``(tod_us, fields)`` of the MRSTOASI records in file order (microseconds
    since 1970), read as columns."""
    import pyarrow as pa

    from ztwin.monitor import DamageWarning, arrow_tables

    # The interval pass already warned about damage: this second read keeps quiet.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamageWarning)
        t = arrow_tables(path, ["MRSTOASI"], fields=list(_FIELDS))["MRSTOASI"]
    if t.num_rows == 0:
        return []
    us = t["tod"].cast(pa.int64()).to_pylist()
    cols = [c for c in _FIELDS if c in t.column_names]
    return [(float(u), f) for u, f in zip(us, t.select(cols).to_pylist(), strict=True)]


def vdisks(iv: Intervals, **_: Any) -> Report:
    spaces: dict[str, dict[str, Any]] = {}
    from_file = Path(iv.path).is_file()
    secs = 0.0
    if iv.intervals and from_file:
        lo, hi = (t / 4096 - EPOCH_1900_US for t in (iv.intervals[0].start_tod, iv.intervals[-1].end_tod))
        secs = sum(i.seconds for i in iv.intervals)
        for t, f in _records(iv.path):
            if t > hi:
                continue
            name = _text(f.get("STOASI_ASCNAME"))
            if name.startswith("DCSS$"):
                continue  # a saved segment's XIP copy, not a virtual disk
            s = spaces.setdefault(name, {"first": None, "last": None, "res": [], "xs": [], "ds": [], "blocks": 0})
            vals = {k: _num(f.get(f"STOASI_{k}")) for k in _COUNTERS}
            if t <= lo:
                s["first"] = vals
                continue
            s["last"] = vals
            s["blocks"] = int(_num(f.get("STOASI_VDIBLKS")))
            s["res"].append(_num(f.get("STOASI_ASCCTPRS")))
            s["xs"].append(_num(f.get("STOASI_ASCCTPXS")))
            s["ds"].append(_num(f.get("STOASI_ASCCTPDS")))
    rows = []
    for name, s in sorted(spaces.items()):
        last = s["last"]
        if last is None:
            continue
        first = s["first"] or dict.fromkeys(_COUNTERS, 0.0)
        d = {k: last[k] - first[k] for k in _COUNTERS}
        parts = name.split("$")
        n = len(s["res"])
        rows.append(
            {
                "owner": parts[1] if len(parts) > 2 else "",
                "vdev": parts[2] if len(parts) > 2 else "",
                "space": name,
                "blocks": s["blocks"],
                "ios": int(d["VDIIOCNT"]),
                "io_rate": d["VDIIOCNT"] / secs if secs else None,
                "pages_read_rate": d["VDIPGRD"] / secs if secs else None,
                "pages_written_rate": d["VDIPGWT"] / secs if secs else None,
                "faults": int(d["VDIFAULT"]),
                # Durations are TOD units (4.096 per nanosecond).
                "spin_ms": d["VDISPIN"] / 4.096e6,
                "resident_mean": sum(s["res"]) / n,
                "resident_max": max(s["res"]),
                "xstor_mean": sum(s["xs"]) / n,
                "dasd_mean": sum(s["ds"]) / n,
                "samples": n,
            }
        )
    table = Table(
        [
            Column("owner", ["Owner", "Userid"], 8, None, left=True),
            Column("vdev", ["", "Vdev"], 4, None, left=True),
            Column("blocks", ["Size", "Blocks"], 8, 0),
            Column("ios", ["I/O", "Count"], 8, 0),
            Column("io_rate", ["I/O", "Rate"], 7, 1),
            Column("pages_read_rate", ["Pages", "Read/s"], 7, 1),
            Column("pages_written_rate", ["Pages", "Writ/s"], 7, 1),
            Column("faults", ["Page", "Faults"], 7, 0),
            Column("spin_ms", ["Spin", "msec"], 8, 1),
            Column("resident_mean", ["Resid.", "Pages"], 8, 0),
            Column("resident_max", ["Resid.", "Max"], 8, 0),
            Column("xstor_mean", ["XSTOR", "Pages"], 7, 0),
            Column("dasd_mean", ["DASD", "Pages"], 7, 0),
        ],
        [],
    )
    pre = ["Virtual disks in storage (MRSTOASI, INFERRED map):"]
    if not from_file:
        pre.append("  (read from MONWRITE files only: the history database does not keep these records)")
    elif not rows:
        pre.append("  (no virtual disks in the selected period)")
    return new_report(
        iv,
        "VDISKS",
        "FCX147",
        "Virtual Disks in Storage",
        rows=rows,
        keys=VDISKS_KEYS,
        table=table,
        pre_lines=pre,
    )
