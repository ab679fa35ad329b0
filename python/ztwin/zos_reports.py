"""RMF-style reports of a z/OS partition run, from its interval tables
(:mod:`ztwin.zos_tables`, so a run or a history database alike):

* :func:`page_data_set_activity`: Page Data Set Activity per report
  interval (RMF's Paging Activity report, page data set part; the fields of
  SMF record 75): per local page data set and the SCM line,
* :func:`storage_frames`: frames and auxiliary slots per address space per
  report interval.

docs/zos.md ("Reports") says how each column is computed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ztwin.zos_tables import ZosTables

__all__ = ["page_data_set_activity", "storage_frames", "windows"]


def windows(t: ZosTables, interval: float) -> Iterator[tuple[float, float, list[float]]]:
    """Report intervals of ``interval`` seconds over the run's intervals:
    (start, end, the interval ends in it)."""
    if not interval > 0:
        raise ValueError(f"{interval}: a report interval must be positive")
    ends = [float(x) for x in t.paging.column("t_s").to_pylist()]
    start = 0.0
    cur: list[float] = []
    for e in ends:
        cur.append(e)
        if e - start >= interval - 1e-9:
            yield start, e, cur
            start, cur = e, []
    if cur:
        yield start, cur[-1], cur


def _mmss(s: float) -> str:
    return f"{int(s) // 60:02d}.{int(s) % 60:02d}"


def _by_time(rows: list[dict[str, Any]]) -> dict[float, list[dict[str, Any]]]:
    out: dict[float, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(float(r["t_s"]), []).append(r)
    return out


def page_data_set_activity(t: ZosTables, interval: float = 60.0) -> list[str]:
    """Page Data Set Activity per report interval: slots allocated, slots
    used (minimum, maximum, mean of the interval ends), bad slots, % in use
    (device busy over the interval), page transfer time (busy over pages
    transferred), I/O requests, pages transferred, VIO accepted, name; then
    the SCM line (EADM requests and pages; transfer time: the mean smoothed
    response)."""
    pds = _by_time(t.pds.to_pylist())
    scm = {float(r["t_s"]): r for r in t.scm.to_pylist()}
    out: list[str] = []
    for start, end, ends in windows(t, interval):
        secs = end - start
        out.append(f"P A G I N G   A C T I V I T Y   z/OS PARTITION {t.system}   RUN {t.run}")
        out.append(f"PAGE DATA SET ACTIVITY   START {_mmss(start)}  END {_mmss(end)}  INTERVAL {_mmss(secs)}  "
                   f"({len(ends)} INTERVALS OF 1 S)")  # fmt: skip
        out.append(f"{'PAGE':<6} {'DEV':>4} {'SLOTS':>9} {'---- SLOTS USED ----':>29} {'BAD':>5} {'%':>5} "
                   f"{'PAGE':>7} {'NUMBER':>7} {'PAGES':>8} {'V':>2}")  # fmt: skip
        out.append(f"{'SPACE':<6} {'NUM':>4} {'ALLOC':>9} {'MIN':>9} {'MAX':>9} {'AVG':>9} {'SLOTS':>5} {'IN USE':>5} "
                   f"{'TRANS':>7} {'IO REQ':>7} {'XFER D':>8} {'IO':>2}  DATA SET NAME")  # fmt: skip
        names: list[str] = []
        per: dict[str, list[dict[str, Any]]] = {}
        for e in ends:
            for r in pds.get(e, []):
                if r["dsname"] not in per:
                    names.append(r["dsname"])
                per.setdefault(r["dsname"], []).append(r)
        for n in names:
            rs = per[n]
            used = [int(r["used"]) for r in rs]
            busy = sum(float(r["busy_s"]) for r in rs)
            io = sum(int(r["reads"]) + int(r["writes"]) for r in rs)
            pages = sum(int(r["pages_read"]) + int(r["pages_written"]) for r in rs)
            trans = f"{busy / pages:7.5f}" if pages else f"{'-':>7}"
            typ = "LOCAL" + ("*" if rs[0]["plpa"] else "")
            out.append(
                f"{typ:<6} {rs[0]['devno']:>4X} {rs[0]['slots']:>9} {min(used):>9} {max(used):>9} "
                f"{sum(used) / len(used):>9.0f} {0:>5} {100 * busy / secs:>6.1f} {trans} {io:>7} {pages:>8} {'Y':>2}  {n}"
            )
        srs = [scm[e] for e in ends if e in scm]
        if srs:
            used = [int(r["used"]) for r in srs]
            io = sum(int(r["reads"]) + int(r["writes"]) for r in srs)
            pages = sum(int(r["pages_read"]) + int(r["pages_written"]) for r in srs)
            resp = sum(float(r["resp_us"]) for r in srs) / len(srs) / 1e6
            out.append(
                f"{'SCM':<6} {'N/A':>4} {srs[0]['slots']:>9} {min(used):>9} {max(used):>9} {sum(used) / len(used):>9.0f} "
                f"{0:>5} {'N/A':>6} {resp:>7.5f} {io:>7} {pages:>8} {'N':>2}  N/A"
            )
        else:
            out.append("SCM    not in use (PAGESCM=NONE or no SCM online)")
        out.append("LOCAL*: holds PLPA's copy. % IN USE: device busy over the interval; PAGE TRANS: busy seconds per "
                   "page transferred (SCM: mean smoothed response, seconds)")  # fmt: skip
        out.append("")
    return out


def storage_frames(t: ZosTables, interval: float = 60.0) -> list[str]:
    """Frames per address space per report interval (mean, minimum and
    maximum of the interval ends), its slots on SCM and on page data sets at
    the end, pages read in per second, pageable large pages (MB)."""
    rows = _by_time(t.asid.to_pylist())
    out: list[str] = []
    for start, end, ends in windows(t, interval):
        secs = end - start
        out.append(f"S T O R A G E   F R A M E S   z/OS PARTITION {t.system}   RUN {t.run}")
        out.append(f"START {_mmss(start)}  END {_mmss(end)}  INTERVAL {_mmss(secs)}")
        out.append(f"{'JOBNAME':<8} {'ASID':>4} {'KIND':<11} {'FRAMES AVG':>10} {'MIN':>9} {'MAX':>9} "
                   f"{'SCM SLOTS':>10} {'DASD SLOTS':>10} {'PAGE-IN/S':>10} {'LARGE MB':>8}")  # fmt: skip
        per: dict[int, list[dict[str, Any]]] = {}
        for e in ends:
            for r in rows.get(e, []):
                per.setdefault(int(r["asid"]), []).append(r)
        for asid in sorted(per):
            rs = per[asid]
            fr = [int(r["frames"]) for r in rs]
            last = rs[-1]
            pin = sum(int(r["pageins"]) for r in rs)
            out.append(
                f"{last['jobname']:<8} {asid:>04X} {last['kind']:<11} {sum(fr) / len(fr):>10.0f} {min(fr):>9} "
                f"{max(fr):>9} {last['scm_slots']:>10} {last['ds_slots']:>10} {pin / secs:>10.1f} "
                f"{int(last['large_pages']) * 4096 >> 20:>8}"
            )
        out.append("")
    return out
