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

from typing import Any

from ztwin.reports.common import new_report
from ztwin.reports.core import Intervals
from ztwin.reports.direct import Span, growth, notes, num, read, spans, text, window
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








def qdio(iv: Intervals, **_: Any) -> Report:
    devs: dict[int, Span] = {}
    secs = 0.0
    if (w := window(iv)) is not None:
        lo, hi, secs = w
        got = read(iv.path, {"MRIODQDS": _QDS, "MRIODQDA": _QDA})
        devs = spans(got["MRIODQDS"], lo, hi, lambda f: int(num(f.get("IODQDS_RDEVDEV"))))
        # Activations in the period: those devices count from zero.
        for t, f in got["MRIODQDA"]:
            if lo < t <= hi and (d := devs.get(int(num(f.get("IODQDA_RDEVDEV"))))) is not None:
                d.first = None
    rows = []
    for dev, span in sorted(devs.items()):
        if not span.inside:
            continue
        # SIGA counts are 32-bit and wrap as CP's do.
        g = growth(span, "IODQDS_", _COUNTERS, wraps=("QDIOCSGW", "QDIOCSGR"))
        f = span.inside[-1]

        def rate(k: str, g: dict[str, float] = g) -> float | None:
            return g[k] / secs if secs else None

        rows.append(
            {
                "device": f"{dev:04X}",
                "owner": text(f.get("IODQDS_VMDUSER")),
                "format": FORMATS.get(int(num(f.get("IODQDS_QDIOFMT"))), "?"),
                "chpid": f"{int(num(f.get('IODQDS_CHPID'))):02X}",
                "siga_w_rate": rate("QDIOCSGW"),
                "siga_r_rate": rate("QDIOCSGR"),
                "bufs_out_rate": rate("BUFSOUT"),
                "bufs_in_rate": rate("BUFSIN"),
                "bytes_out_rate": rate("BYTESOUT"),
                "bytes_in_rate": rate("BYTESIN"),
                "bytes_per_buf": g["BYTESOUT"] / g["BUFSOUT"] if g["BUFSOUT"] else None,
                "siga_w": int(g["QDIOCSGW"]),
                "samples": len(span.inside),
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
    pre = [
        "QDIO device activity (MRIODQDS, INFERRED byte and buffer counters; MRIODQDA):",
        *notes(iv, not rows, "active QDIO devices"),
    ]
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
