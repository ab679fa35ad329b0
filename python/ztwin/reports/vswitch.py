"""VSWITCH (FCX240 style): virtual switch activity.

One line per VSWITCH uplink (its OSA's DATA device) seen in MRIODVSW (D6R21,
one record per uplink at each sample, cumulative counters), and a
``>>System<<`` line with their sum: the VSWITCH's name (from the LAN ID,
z/VM 6.1 and later; dots before, as Performance Toolkit shows them), its
controller, queue storage (MB) and IP timeout (seconds), then per second
over the period the bytes, packets and discarded packets out to the LAN and
in from it, the SIGA write, read and sync signals CP issued to the OSA, and
the OSA's PCI interrupts received and processed. The rates are the
counters' growth from the last sample before the period (zero at the start
of the file: the counters start at IPL) to its last one; the 32-bit
counters wrap as CP's do. Traffic between two guests of the same VSWITCH
does not pass the uplink and is not in the record.

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

VSWITCH_KEYS = [
    "addr", "name", "controller", "queue_storage", "timeout_s", "tx_bytes_rate", "tx_packets_rate",
    "tx_discards_rate", "rx_bytes_rate", "rx_packets_rate", "rx_discards_rate", "siga_w_rate", "siga_r_rate",
    "siga_s_rate", "pci_received_rate", "pci_processed_rate", "samples",
]  # fmt: skip

#: Counter (MRIODVSW field suffix), report key, 32-bit (wraps).
_COUNTERS = (
    ("NICTXBYT", "tx_bytes_rate", False),
    ("NICTXPKT", "tx_packets_rate", True),
    ("NICTXDSC", "tx_discards_rate", True),
    ("NICRXBYT", "rx_bytes_rate", False),
    ("NICRXPKT", "rx_packets_rate", True),
    ("NICRXDSC", "rx_discards_rate", True),
    ("SIGWRITE", "siga_w_rate", True),
    ("SIGREAD", "siga_r_rate", True),
    ("SIGSYNC", "siga_s_rate", True),
    ("PCIRCVD", "pci_received_rate", True),
    ("PCIPROC", "pci_processed_rate", True),
)
_FIELDS = (
    "IODVSW_RDEVDEV", "IODVSW_VMDUSER", "IODVSW_LANFSV", "IODVSW_LANIPTO", "IODVSW_LANID",
    *(f"IODVSW_{k}" for k, _, _ in _COUNTERS),
)  # fmt: skip








def _name(lanid: Any) -> str:
    """The VSWITCH's name: the second half of the LAN ID (owner, name)."""
    s = str(lanid) if lanid is not None else ""
    return s[8:16].strip() or "....."


def vswitch(iv: Intervals, **_: Any) -> Report:
    ups: dict[int, Span] = {}
    secs = 0.0
    if (w := window(iv)) is not None:
        lo, hi, secs = w
        samples = read(iv.path, {"MRIODVSW": _FIELDS})["MRIODVSW"]
        ups = spans(samples, lo, hi, lambda f: int(num(f.get("IODVSW_RDEVDEV"))))
    rows = []
    total: dict[str, float] = {key: 0.0 for _, key, _ in _COUNTERS}
    for dev, u in sorted(ups.items()):
        if not u.inside:
            continue
        f = u.inside[-1]
        g = growth(u, "IODVSW_", (k for k, _key, _w in _COUNTERS), wraps={k for k, _key, w in _COUNTERS if w})
        row: dict[str, Any] = {
            "addr": f"{dev:04X}",
            "name": _name(f.get("IODVSW_LANID")),
            "controller": text(f.get("IODVSW_VMDUSER")),
            "queue_storage": int(num(f.get("IODVSW_LANFSV"))),
            # LANIPTO counts 30-second tics.
            "timeout_s": int(num(f.get("IODVSW_LANIPTO"))) * 30,
        }
        for k, key, _wraps in _COUNTERS:
            total[key] += g[k]
            row[key] = g[k] / secs if secs else None
        row["samples"] = len(u.inside)
        rows.append(row)
    if rows:
        system: dict[str, Any] = {
            "addr": ">>",
            "name": "System",
            "controller": "<<",
            "queue_storage": None,
            "timeout_s": None,
            **{key: (v / secs if secs else None) for key, v in total.items()},
            "samples": max(r["samples"] for r in rows),
        }
        rows.insert(0, system)
    table = Table(
        [
            Column("addr", ["", "Addr"], 4, None, left=True),
            Column("name", ["", "Name"], 8, None, left=True),
            Column("controller", ["", "Controlr"], 8, None, left=True),
            Column("queue_storage", ["Q", "S"], 2, 0),
            Column("timeout_s", ["Time", "Out"], 4, 0),
            Column("tx_bytes_rate", ["Outbound", "T_Byte/s"], 10, 0),
            Column("tx_packets_rate", ["", "T_Pack/s"], 8, 1),
            Column("tx_discards_rate", ["", "T_Disc/s"], 8, 1),
            Column("rx_bytes_rate", ["Inbound", "R_Byte/s"], 10, 0),
            Column("rx_packets_rate", ["", "R_Pack/s"], 8, 1),
            Column("rx_discards_rate", ["", "R_Disc/s"], 8, 1),
            Column("siga_w_rate", ["Signals", "Write/s"], 7, 1),
            Column("siga_r_rate", ["", "Read/s"], 6, 1),
            Column("siga_s_rate", ["", "Sync/s"], 6, 1),
            Column("pci_received_rate", ["Intrpts", "Rcv/s"], 7, 1),
            Column("pci_processed_rate", ["", "Pro/s"], 7, 1),
        ],
        [],
    )
    pre = [
        "VSWITCH activity (MRIODVSW: the uplinks' traffic; guest-to-guest traffic is not in it):",
        *notes(iv, not rows, "VSWITCH uplinks"),
    ]
    return new_report(
        iv,
        "VSWITCH",
        "FCX240",
        "VSWITCH Activity",
        rows=rows,
        keys=VSWITCH_KEYS,
        table=table,
        pre_lines=pre,
    )
