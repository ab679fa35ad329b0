"""QDIO (FCX251 style): QDIO device activity.

One line per real QDIO device whose queues CP shadows for a guest (an OSA or
HiperSockets device dedicated to a Linux guest), from MRIODQDS (D6R26, one
record per active device at each sample; its body after the SIGA counts is an
INFERRED map: see ``docs/monitor-format.md``) and MRIODQDA (D6R25, the activation:
owner, QDIO format, queues): the SIGA-w (write) and SIGA-r (read)
instructions the guest issued and the buffers and bytes moved out and in,
per second over the period (the counters' growth from the last sample before
the period to its last one), and the bytes per buffer out. A device that is
activated in the period counts from zero.

The records are read as columns in a pass of their own over the file (they
are not part of the interval kernel's catalog), limited to the window's
intervals; from the history database (``--db``) the report is empty and says
so.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from ztwin.reports.common import new_report
from ztwin.reports.core import EPOCH_1900_US, Intervals
from ztwin.reports.model import Report
from ztwin.reports.text import Column, Table

QDIO_KEYS = [
    "device", "owner", "format", "chpid", "siga_w_rate", "siga_r_rate", "bufs_out_rate", "bufs_in_rate",
    "bytes_out_rate", "bytes_in_rate", "bytes_per_buf", "siga_w", "samples",
]  # fmt: skip

#: QDIO format (IODQDA_QDIOFMT) as the report names it.
FORMATS = {0: "QDIO", 1: "FCP", 2: "HIPERS"}

_COUNTERS = ("QDIOCSGW", "QDIOCSGR", "BUFSOUT", "BUFSIN", "BYTESOUT", "BYTESIN")
_QDS = ("IODQDS_RDEVDEV", "IODQDS_VMDUSER", "IODQDS_QDIOFMT", "IODQDS_CHPID", *(f"IODQDS_{k}" for k in _COUNTERS))
_QDA = ("IODQDA_RDEVDEV", "IODQDA_VMDUSER", "IODQDA_QDIOFMT")


def _num(v: Any) -> float:
    return float(v) if isinstance(v, int | float) else 0.0


def _text(v: Any) -> str:
    return str(v).strip() if v is not None else ""


def _records(path: str) -> tuple[list[tuple[float, dict[str, Any]]], list[tuple[float, dict[str, Any]]]]:
    """``(tod_us, fields)`` of the MRIODQDS and MRIODQDA records in file order
    (microseconds since 1970), read as columns."""
    import pyarrow as pa

    from ztwin.monitor import DamageWarning, arrow_tables

    # The interval pass already warned about damage: this second read keeps quiet.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamageWarning)
        ts = arrow_tables(path, ["MRIODQDS", "MRIODQDA"], fields=[*_QDS, *_QDA])
    out: list[list[tuple[float, dict[str, Any]]]] = []
    for name, fields in (("MRIODQDS", _QDS), ("MRIODQDA", _QDA)):
        t = ts[name]
        if t.num_rows == 0:
            out.append([])
            continue
        us = t["tod"].cast(pa.int64()).to_pylist()
        cols = [c for c in fields if c in t.column_names]
        out.append([(float(u), f) for u, f in zip(us, t.select(cols).to_pylist(), strict=True)])
    return out[0], out[1]


def qdio(iv: Intervals, **_: Any) -> Report:
    devs: dict[int, dict[str, Any]] = {}
    from_file = Path(iv.path).is_file()
    secs = 0.0
    if iv.intervals and from_file:
        lo, hi = (t / 4096 - EPOCH_1900_US for t in (iv.intervals[0].start_tod, iv.intervals[-1].end_tod))
        secs = sum(i.seconds for i in iv.intervals)
        qds, qda = _records(iv.path)
        # Activations in the period: those devices count from zero.
        fresh = {int(_num(f.get("IODQDA_RDEVDEV"))) for t, f in qda if lo < t <= hi}
        for t, f in qds:
            if t > hi:
                continue
            dev = int(_num(f.get("IODQDS_RDEVDEV")))
            d = devs.setdefault(dev, {"first": None, "last": None, "n": 0, "f": f})
            vals = {k: _num(f.get(f"IODQDS_{k}")) for k in _COUNTERS}
            if t <= lo:
                d["first"] = vals
                continue
            d["last"], d["f"] = vals, f
            d["n"] += 1
        for dev in fresh:
            if dev in devs:
                devs[dev]["first"] = None
    rows = []
    for dev, d in sorted(devs.items()):
        last = d["last"]
        if last is None:
            continue
        first = d["first"] or dict.fromkeys(_COUNTERS, 0.0)
        g = {k: last[k] - first[k] for k in _COUNTERS}
        # SIGA counts are 32-bit and wrap as CP's do.
        for k in ("QDIOCSGW", "QDIOCSGR"):
            if g[k] < 0:
                g[k] += 2**32
        f = d["f"]

        def rate(k: str, g: dict[str, float] = g) -> float | None:
            return g[k] / secs if secs else None

        rows.append(
            {
                "device": f"{dev:04X}",
                "owner": _text(f.get("IODQDS_VMDUSER")),
                "format": FORMATS.get(int(_num(f.get("IODQDS_QDIOFMT"))), "?"),
                "chpid": f"{int(_num(f.get('IODQDS_CHPID'))):02X}",
                "siga_w_rate": rate("QDIOCSGW"),
                "siga_r_rate": rate("QDIOCSGR"),
                "bufs_out_rate": rate("BUFSOUT"),
                "bufs_in_rate": rate("BUFSIN"),
                "bytes_out_rate": rate("BYTESOUT"),
                "bytes_in_rate": rate("BYTESIN"),
                "bytes_per_buf": g["BYTESOUT"] / g["BUFSOUT"] if g["BUFSOUT"] else None,
                "siga_w": int(g["QDIOCSGW"]),
                "samples": d["n"],
            }
        )
    table = Table(
        [
            Column("device", ["", "Device"], 6, None, left=True),
            Column("owner", ["", "Userid"], 8, None, left=True),
            Column("format", ["QDIO", "Format"], 6, None, left=True),
            Column("chpid", ["", "CHPID"], 5, None, left=True),
            Column("siga_w_rate", ["SIGA-w", "/s"], 8, 1),
            Column("siga_r_rate", ["SIGA-r", "/s"], 8, 1),
            Column("bufs_out_rate", ["Bufs", "Out/s"], 8, 1),
            Column("bufs_in_rate", ["Bufs", "In/s"], 8, 1),
            Column("bytes_out_rate", ["Bytes", "Out/s"], 10, 0),
            Column("bytes_in_rate", ["Bytes", "In/s"], 10, 0),
            Column("bytes_per_buf", ["Bytes/", "BufOut"], 7, 0),
        ],
        [],
    )
    pre = ["QDIO device activity (MRIODQDS, INFERRED byte and buffer counters; MRIODQDA):"]
    if not from_file:
        pre.append("  (read from MONWRITE files only: the history database does not keep these records)")
    elif not rows:
        pre.append("  (no active QDIO devices in the selected period)")
    return new_report(
        iv,
        "QDIO",
        "FCX251",
        "QDIO Device Activity",
        rows=rows,
        keys=QDIO_KEYS,
        table=table,
        pre_lines=pre,
    )
