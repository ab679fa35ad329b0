"""The z/OS partition advisor (issue 19, item 5): findings from a run's
interval tables (:mod:`ztwin.zos_tables`), with the evidence rows and
numbers, as the z/VM advisor writes them (docs/advisor.md, "z/OS partition
rules").

* ``zos-paging-spike`` -- page-ins from local page data sets at a rate and
  a response that storage-class memory would absorb;
* ``zos-scm-full`` -- SCM full and page-outs spilling to the data sets;
* ``zos-large-pages-not-pageable`` -- pageable 1 MB large pages without SCM
  (backed by 4 KB frames), or broken up to go to disk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ztwin.advisor.finding import table_lines
from ztwin.zos_tables import ZosTables

__all__ = ["RULES", "ZosFinding", "diagnose", "render"]

#: Thresholds (documented in docs/advisor.md).
RULES: dict[str, dict[str, float]] = {
    # Page-ins from the data sets per second, the data sets' mean response
    # per I/O as a multiple of the SCM 4 KB latency, consecutive intervals.
    "zos-paging-spike": {"pagein_min": 1000.0, "resp_ratio": 4.0, "intervals": 3, "scm_latency_us": 50.0},
    # SCM slots in use (% of SCM) and page-outs to the data sets beside it.
    "zos-scm-full": {"used_pct": 90.0, "pageout_min": 1.0, "intervals": 1},
    "zos-large-pages-not-pageable": {},
}
INCREMENT = 16 << 30
PAGE = 4096


@dataclass
class ZosFinding:
    id: str
    severity: str
    title: str
    summary: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    explanation: str = ""
    recommendation: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "severity": self.severity, "title": self.title, "summary": self.summary,
                "rows": self.rows, "explanation": self.explanation, "recommendation": self.recommendation}  # fmt: skip


def _runs(flags: list[bool], n: int) -> list[tuple[int, int]]:
    """Spans (first, last index) of at least ``n`` consecutive True."""
    out, start = [], None
    for i, f in enumerate([*flags, False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            if i - start >= n:
                out.append((start, i - 1))
            start = None
    return out


def _increments(b: float) -> int:
    return max(1, math.ceil(b / INCREMENT))


def diagnose(t: ZosTables) -> list[ZosFinding]:
    """The findings of one run, most severe first."""
    pg = t.paging.to_pylist()
    scm = {float(r["t_s"]): r for r in t.scm.to_pylist()}
    pds: dict[float, list[dict[str, Any]]] = {}
    for r in t.pds.to_pylist():
        pds.setdefault(float(r["t_s"]), []).append(r)
    out: list[ZosFinding] = []

    # -- paging spikes flash would absorb ------------------------------------
    rule = RULES["zos-paging-spike"]
    lat_us = float(t.scm.column("latency_4k_us")[0].as_py()) if t.scm.num_rows else rule["scm_latency_us"]
    rows = []
    flags = []
    for r in pg:
        secs = float(r["seconds"]) or 1.0
        ds = pds.get(float(r["t_s"]), [])
        ios = sum(int(x["reads"]) + int(x["writes"]) for x in ds)
        resp_us = sum(float(x["resp_s"]) for x in ds) / ios * 1e6 if ios else 0.0
        rate = int(r["pagein_dasd"]) / secs
        hit = rate >= rule["pagein_min"] and resp_us >= rule["resp_ratio"] * lat_us
        flags.append(hit)
        rows.append({"t_s": r["t_s"], "pagein_dasd_per_s": rate, "ds_resp_us": resp_us,
                     "resp_s": float(r["resp_s"]) / int(r["tx"]) if int(r["tx"]) else None,
                     "ds_slots_used": int(r["ds_slots_used"])})  # fmt: skip
    spans = _runs(flags, int(rule["intervals"]))
    if spans:
        held = [rows[i] for a, b in spans for i in range(a, b + 1)]
        peak = max(held, key=lambda x: x["pagein_dasd_per_s"])
        slots = max(int(r["ds_slots_used"]) for r in pg)
        need = _increments(slots * PAGE)
        has_scm = t.scm.num_rows > 0
        out.append(ZosFinding(
            "zos-paging-spike", "warning",
            "page-ins from page data sets that storage-class memory would absorb",
            f"{len(held)} of {len(rows)} intervals (first ending at {held[0]['t_s']:.0f} s) read at least "
            f"{rule['pagein_min']:.0f} pages/s from local page data sets with a mean response of "
            f"{min(h['ds_resp_us'] for h in held):.0f} us or more per I/O, {rule['resp_ratio']:.0f}x the SCM 4 KB "
            f"latency of {lat_us:.0f} us; peak {peak['pagein_dasd_per_s']:.0f} pages/s at {peak['t_s']:.0f} s "
            f"({peak['ds_resp_us']:.0f} us).",
            [{k: v for k, v in h.items()} for h in sorted(held, key=lambda x: -x["pagein_dasd_per_s"])[:8]],
            "Every page fault served from a page data set waits for a DASD I/O (queue, pending, disconnect and "
            "connect time); an EADM read from Flash Express takes the SCM latency, and ASM prefers SCM while it has "
            "room and the better response. The spike is the online work paging back in what was paged out before "
            "(the morning after the batch).",
            ("Allocate storage-class memory to the partition and page to it (IEASYSxx PAGESCM=ALL): "
             if not has_scm else "Give ASM more SCM room (more increments online, PAGESCM): ")
            + f"the page data sets held up to {slots * PAGE / (1 << 30):.1f} GB, {need} increment(s) of 16 GB.",
        ))  # fmt: skip

    # -- flash full, spilling to disk ------------------------------------------
    rule = RULES["zos-scm-full"]
    if t.scm.num_rows:
        rows, flags = [], []
        for r in pg:
            s = scm.get(float(r["t_s"]))
            if s is None:
                flags.append(False)
                rows.append({})
                continue
            pct = 100.0 * int(s["used"]) / int(s["slots"])
            spill = int(r["pageout_dasd"]) - int(r["pageout_vio_dasd"])
            flags.append(pct >= rule["used_pct"] and spill >= rule["pageout_min"])
            rows.append({"t_s": r["t_s"], "scm_used_pct": pct, "pageout_dasd": spill,
                         "pageout_scm": int(r["pageout_scm"]) + 256 * int(r["pageout_scm_1m"]),
                         "large_split": int(r["large_split"])})  # fmt: skip
        spans = _runs(flags, int(rule["intervals"]))
        if spans:
            held = [rows[i] for a, b in spans for i in range(a, b + 1)]
            s0 = t.scm.to_pylist()[0]
            on, mx = int(s0["online_bytes"]), int(s0["max_bytes"])
            spilled = sum(h["pageout_dasd"] for h in held)
            more = (f"bring {_increments(mx - on)} more increment(s) online (the partition's maximum is "
                    f"{mx >> 30} GB, {on >> 30} GB online)" if mx > on else
                    f"raise the partition's maximum allocation above {mx >> 30} GB on the HMC (all of it is online)")  # fmt: skip
            out.append(ZosFinding(
                "zos-scm-full", "critical" if len(held) >= 10 else "warning",
                "storage-class memory full: page-outs spill to page data sets",
                f"{len(held)} of {len(rows)} intervals had SCM at least {rule['used_pct']:.0f}% in use while "
                f"{spilled} pages went to local page data sets.",
                held[:8],
                "When SCM has no room ASM writes to the local page data sets (flash full -> disk): those pages come "
                "back at DASD response, 1 MB large pages are broken into 4 KB pages to go there, and they are not "
                "read in speculatively.",
                f"Give the partition more SCM: {more}; or check PAGESCM limits it.",
            ))  # fmt: skip

    # -- large pages not pageable without flash ------------------------------
    last_t = float(pg[-1]["t_s"]) if pg else None
    spaces = [r for r in t.asid.to_pylist() if float(r["t_s"]) == last_t and int(r["large_pages"]) > 0]
    split = sum(int(r["large_split"]) for r in pg)
    if spaces and not t.scm.num_rows:
        mb = sum(int(r["large_pages"]) for r in spaces) * PAGE >> 20
        out.append(ZosFinding(
            "zos-large-pages-not-pageable", "info",
            "pageable large pages backed by 4 KB frames (no storage-class memory)",
            f"{len(spaces)} address space(s) ask for {mb} MB of pageable 1 MB large pages; without SCM they are "
            "backed by 4 KB frames.",
            [{"jobname": r["jobname"], "asid": f"{int(r['asid']):04X}", "large_mb": int(r["large_pages"]) * PAGE >> 20,
              "frames": int(r["frames"])} for r in spaces],
            "Pageable 1 MB large pages need SCM: only there can a 1 MB page be paged out and in whole. Without it "
            "z/OS backs them with 4 KB frames, losing the translation-lookaside-buffer benefit the heap was "
            "configured for.",
            "Allocate SCM to the partition (PAGESCM) so the large pages stay 1 MB pages, or use fixed large pages "
            "(LFAREA) for heaps that must not page.",
        ))  # fmt: skip
    elif spaces and split:
        out.append(ZosFinding(
            "zos-large-pages-not-pageable", "info",
            "1 MB large pages broken up to go to page data sets",
            f"{split} pageable large page(s) were broken into 4 KB pages because SCM had no room.",
            [{"t_s": r["t_s"], "large_split": int(r["large_split"])} for r in pg if int(r["large_split"])][:8],
            "A 1 MB page goes whole only to SCM; with SCM full it is broken into 256 pages for the page data "
            "sets and comes back as 4 KB pages.",
            "See zos-scm-full: more SCM keeps the large pages whole.",
        ))  # fmt: skip
    order = {"critical": 0, "warning": 1, "info": 2}
    return sorted(out, key=lambda f: order[f.severity])


def render(t: ZosTables, findings: list[ZosFinding]) -> str:
    lines = [f"z/OS partition {t.system}, run {t.run}: {len(findings)} finding{'s' if len(findings) != 1 else ''}"]
    for n, f in enumerate(findings, 1):
        lines += ["", f"{n}. {f.severity.upper()}  {f.id}: {f.title}", f"   Evidence: {f.summary}"]
        lines += table_lines(f.rows, "       ")
        lines += [f"   Explanation: {f.explanation}", f"   Recommendation: {f.recommendation}"]
    return "\n".join(lines) + "\n"
