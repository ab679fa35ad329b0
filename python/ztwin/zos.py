"""A z/OS partition run (``crates/ztwin-engine/src/model/zos``): its records
and the figures computed from them.

``run(path, pagescm=None)`` runs a z/OS partition scenario and returns its
records (:class:`ZosRun`): one per second of the online phase (transactions,
response, page-ins and page-outs by tier, frames, slots, time the system was
non-dispatchable), the operations (``batch``, ``svc_dump``, ``sa_dump``), the
page data sets, the totals. :func:`figures` computes the study's metrics from
those records only; :data:`DERIVATION` says how each is computed.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ztwin._native import run_zos

__all__ = ["DERIVATION", "PATH_NOTE", "ZosRun", "data_set_io", "figures", "pagein_pages", "run"]

MB = 1 << 20
GB = 1 << 30

#: How each figure is computed from the records.
DERIVATION = {
    "steady_state_s": "end of the first interval from which, up to the SVC dump, the mean response over the last "
    "5 intervals stays within 1.5x the steady response (the mean over the 60 s before the dump)",
    "transactions_first_45s": "transactions completed in the first 45 one-second intervals after the online work starts",
    "avg_response_s_first_45s": "their summed response times over their number",
    "peak_pagein_per_s": "the highest interval's pages read in (4 KB pages; a 1 MB large page counts 256; "
    "speculative page-ins included)",
    "svc_dump_s": "SVC dump end minus start (common storage, then the address space)",
    "max_as_nondispatchable_s": "the dumped address space's non-dispatchable time (from the dump's start to its end)",
    "system_nondispatchable_s": "time the system was non-dispatchable (the dump's global capture of common storage)",
    "sa_dump_s": "stand-alone dump: real storage written, then paged-out storage read and written "
    "(the longer of reading and writing it)",
    "sa_dump_paging_wait_s": "stand-alone dump: time spent reading paged-out storage back",
    "sa_dump_read_mb_s": "paged-out MB the stand-alone dump read over that time",
}


#: Where the page data sets' I/O times come from (docs/zos.md, "Page data sets behind control units").
PATH_NOTE = (
    "page data set I/O times from model/io's path model: 16 data sets (3390-9) over 8 LCUs of a DS8800 "
    "(4 FICON Express8S paths of 800 MB/s shared by all LCUs, 0.1 ms command overhead, CMR 0.05 ms; 97.5% read "
    "hits; a miss staged from a RAID-5 rank of 8 HDDs, 5 ms positioning; 4 GB NVS, destaging first while over half "
    "full); response = ASM's queue + pending + disconnect + connect. Unloaded: a 4 KB read hit 0.16 ms, a miss "
    "about 5.5 ms (5 ms positioning + a 48 KB stage), a 64-page write 0.48 ms. After the batch's page-outs the server is still destaging: in the first "
    "seconds of the online work read misses wait behind destages at the ranks (dasd: the early response peak)"
)


def data_set_io(r: ZosRun) -> dict[str, float]:
    """The page data sets' I/O over the online phase, from the interval records:
    I/Os, mean response per I/O (ms, ASM's queue included), busy ms per page
    transferred, and the mean response of the first 10 s and of the rest."""
    rows = r.doc.get("ds_intervals", [])

    def agg(sel: list[dict[str, Any]]) -> tuple[int, float, float, int]:
        ios = sum(int(d["reads"]) + int(d["writes"]) for d in sel)
        return (ios, sum(float(d["resp_s"]) for d in sel), sum(float(d["busy_s"]) for d in sel),
                sum(int(d["pages_read"]) + int(d["pages_written"]) for d in sel))

    ios, resp, busy, pages = agg(rows)
    e_ios, e_resp, _, _ = agg([d for d in rows if float(d["t_s"]) <= 10.0 + 1e-9])
    l_ios, l_resp = ios - e_ios, resp - e_resp
    return {
        "ios": ios,
        "mean_response_ms": round(1e3 * resp / ios, 3) if ios else 0.0,
        "busy_ms_per_page": round(1e3 * busy / pages, 4) if pages else 0.0,
        "mean_response_ms_first_10s": round(1e3 * e_resp / e_ios, 3) if e_ios else 0.0,
        "mean_response_ms_after_10s": round(1e3 * l_resp / l_ios, 3) if l_ios else 0.0,
    }


@dataclass
class ZosRun:
    """The records of one run."""

    doc: dict[str, Any]

    @property
    def intervals(self) -> list[dict[str, Any]]:
        return list(self.doc["intervals"])

    @property
    def operations(self) -> list[dict[str, Any]]:
        return list(self.doc["operations"])

    @property
    def totals(self) -> dict[str, int]:
        return dict(self.doc["totals"])

    @property
    def data_sets(self) -> list[dict[str, Any]]:
        return list(self.doc["data_sets"])

    def op(self, kind: str) -> dict[str, Any] | None:
        return next((o for o in self.operations if o["kind"] == kind), None)


def run(path: Path, pagescm: str | None = None) -> ZosRun:
    """Run the z/OS partition scenario at ``path`` (``pagescm`` overrides
    its IEASYSxx PAGESCM: ``"ALL"``, ``"NONE"`` or a size)."""
    from ztwin.twin import _decode

    # A binary or non-UTF-8 file is a ScenarioError naming the file and the
    # byte, as for ``ztwin run``, not Python's codec message.
    text = _decode(Path(path).read_bytes(), str(path))
    return ZosRun(json.loads(run_zos(text, str(path), pagescm)))


def pagein_pages(iv: dict[str, Any]) -> int:
    """4 KB pages read in during an interval (a 1 MB page counts 256)."""
    return int(iv["pagein_scm"] + 256 * iv["pagein_scm_1m"] + iv["pagein_dasd"] + iv["pagein_spec"])


def _steady(ivs: list[dict[str, Any]], until: float) -> float | None:
    before = [i for i in ivs if i["t_s"] <= until + 1e-9]

    def mean_resp(win: list[dict[str, Any]]) -> float | None:
        tx = sum(i["tx"] for i in win)
        return sum(i["resp_s"] for i in win) / tx if tx else None

    ref = mean_resp([i for i in before if i["t_s"] > until - 60])
    if ref is None:
        return None
    steady: float | None = None
    for k, iv in enumerate(before):
        m = mean_resp(before[max(0, k - 4) : k + 1])
        if m is None or m > 1.5 * ref:
            steady = None
        elif steady is None:
            steady = float(iv["t_s"])
    return steady


def figures(r: ZosRun) -> dict[str, float | int | None]:
    """The study's metrics, from the run's records (see :data:`DERIVATION`)."""
    ivs = r.intervals
    svc, sa = r.op("svc_dump"), r.op("sa_dump")
    until = svc["start_s"] if svc else (ivs[-1]["t_s"] if ivs else 0.0)
    first = [i for i in ivs if i["t_s"] <= 45.0 + 1e-9]
    tx = sum(i["tx"] for i in first)
    resp = sum(i["resp_s"] for i in first)
    f: dict[str, float | int | None] = {
        "steady_state_s": _steady(ivs, until),
        "transactions_first_45s": tx,
        "avg_response_s_first_45s": round(resp / tx, 6) if tx else None,
        "peak_pagein_per_s": max((pagein_pages(i) for i in ivs), default=0),
        "svc_dump_s": None,
        "max_as_nondispatchable_s": None,
        "system_nondispatchable_s": None,
        "sa_dump_s": None,
        "sa_dump_paging_wait_s": None,
        "sa_dump_read_mb_s": None,
    }
    if svc:
        f["svc_dump_s"] = round(svc["end_s"] - svc["start_s"], 3)
        f["max_as_nondispatchable_s"] = round(svc["as_nd_s"], 3)
        f["system_nondispatchable_s"] = round(svc["system_nd_s"], 3)
    if sa:
        f["sa_dump_s"] = round(sa["end_s"] - sa["start_s"], 3)
        f["sa_dump_paging_wait_s"] = round(sa["aux_read_s"], 3)
        f["sa_dump_read_mb_s"] = round(sa["aux_bytes"] / MB / sa["aux_read_s"], 1) if sa["aux_read_s"] > 0 else None
    return f
