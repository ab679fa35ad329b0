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

from typing import Any

from ztwin.reports.common import new_report
from ztwin.reports.core import Intervals
from ztwin.reports.direct import growth, notes, num, read, spans, text, window
from ztwin.reports.model import Report
from ztwin.reports.text import Column, Table

VDISKS_KEYS = [
    "owner", "vdev", "space", "blocks", "ios", "io_rate", "pages_read_rate", "pages_written_rate",
    "faults", "spin_ms", "resident_mean", "resident_max", "xstor_mean", "dasd_mean", "samples",
]  # fmt: skip

_COUNTERS = ("VDIIOCNT", "VDIPGRD", "VDIPGWT", "VDIFAULT", "VDISPIN")
_FIELDS = ("STOASI_ASCNAME", "STOASI_ASCCTPRS", "STOASI_ASCCTPXS", "STOASI_ASCCTPDS", "STOASI_VDIBLKS",
           *(f"STOASI_{k}" for k in _COUNTERS))  # fmt: skip








def vdisks(iv: Intervals, **_: Any) -> Report:
    rows = []
    if (w := window(iv)) is not None:
        lo, hi, secs = w
        samples = read(iv.path, {"MRSTOASI": _FIELDS})["MRSTOASI"]
        for name, s in sorted(spans(samples, lo, hi, lambda f: text(f.get("STOASI_ASCNAME"))).items()):
            if not s.inside or name.startswith("DCSS$"):
                continue  # DCSS$: a saved segment's XIP copy, not a virtual disk
            d = growth(s, "STOASI_", _COUNTERS)
            res, xs, ds = ([num(f.get(f"STOASI_ASCCTP{k}")) for f in s.inside] for k in ("RS", "XS", "DS"))
            parts = name.split("$")
            n = len(s.inside)
            rows.append(
                {
                    "owner": parts[1] if len(parts) > 2 else "",
                    "vdev": parts[2] if len(parts) > 2 else "",
                    "space": name,
                    "blocks": int(num(s.inside[-1].get("STOASI_VDIBLKS"))),
                    "ios": int(d["VDIIOCNT"]),
                    "io_rate": d["VDIIOCNT"] / secs if secs else None,
                    "pages_read_rate": d["VDIPGRD"] / secs if secs else None,
                    "pages_written_rate": d["VDIPGWT"] / secs if secs else None,
                    "faults": int(d["VDIFAULT"]),
                    # Durations are TOD units (4.096 per nanosecond).
                    "spin_ms": d["VDISPIN"] / 4.096e6,
                    "resident_mean": sum(res) / n,
                    "resident_max": max(res),
                    "xstor_mean": sum(xs) / n,
                    "dasd_mean": sum(ds) / n,
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
    pre = ["Virtual disks in storage (MRSTOASI, INFERRED map):", *notes(iv, not rows, "virtual disks")]
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
