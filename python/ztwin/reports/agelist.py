"""AGELLOG: the global aging list by time (z/VM 6.3 and later, Era C).

From MRSTORSG (D3R1) only, read whole from the file: at Era C levels the
twin writes the aging list in an INFERRED block of its own in the 6.3
record's appended area (``STORSG_AGL*``; IBM's fields for the aging list
were not found in the sources read, see ``docs/monitor-format.md``). A file
of an earlier level (no aging list) gets "no data at this level"; a
history database does not keep these records.

Per interval: the list's frames at the interval's sample, its target size
and how full it is, early writes in flight; and, from the counters'
growth over the interval, frames moved to the list, frames revalidated
(referenced while on the list, found at the head or faulted on during
their early write), frames reused from the head, and of those the share
freed with no I/O, the share whose early write had completed, and the
share that had to wait for a write (their early write still running, or a
page-out started at the head). :func:`agelist_intervals` is shared with
the Era C advisor checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ztwin.reports import direct
from ztwin.reports.common import MEAN, interval_column, new_report
from ztwin.reports.core import EPOCH_1900_US, Intervals
from ztwin.reports.direct import Sample
from ztwin.reports.model import Chart, Report
from ztwin.reports.text import Column, Group, Table

#: Level fields (the value at the sample) and counters (cumulative).
LEVELS = ("FRAME", "TARGT", "EWINF")
COUNTERS = ("MOVED", "EXAMD", "RECLM", "RCLFT", "FRNIO", "FRWRT", "FRWAI", "PGOUT", "EWRIT", "REPLN")
FIELDS = tuple(f"STORSG_AGL{k}" for k in (*LEVELS, *COUNTERS, "FLAGS"))

AGELLOG_KEYS = [
    "interval_end", "agl_frames", "agl_target", "agl_fill_pct", "ew_inflight", "earlywrites",
    "moved_rate", "reclaim_rate", "reused_rate", "reclaim_pct", "noio_pct", "written_pct", "wait_pct",
    "early_write_rate", "replenishments", "interval_start", "seconds",
]  # fmt: skip

#: What the report says of a file with no aging-list fields.
NO_DATA = "no data at this level (no global aging list before z/VM 6.3)"


@dataclass
class AgeInterval:
    """One interval's aging-list figures (see :func:`figures`)."""

    seconds: float
    levels: dict[str, float]
    deltas: dict[str, float]
    earlywrites: bool


def read_storsg(path: str) -> list[Sample] | None:
    """``(tod_us, fields)`` of the MRSTORSG records carrying the aging list, in
    file order (microseconds since 1970); None when the file's layout of
    MRSTORSG has no aging-list fields (a level before 6.3)."""
    recs = direct.read(path, {"MRSTORSG": FIELDS})["MRSTORSG"]
    if recs and len(recs[0][1]) != len(FIELDS):
        return None
    # Records too short for the block (null fields) carry no aging list.
    return [(t, f) for t, f in recs if f["STORSG_AGLFRAME"] is not None]


def agelist_intervals(records: list[Sample], windows: Sequence[tuple[float, float]]) -> list[AgeInterval | None]:
    """Per window ``(lo_us, hi_us]``: the levels of its last record and the
    counters' growth from the last record at or before ``lo_us`` (from zero
    when there is none: CP's counters start at IPL). None for a window with
    no record."""
    out: list[AgeInterval | None] = []
    recs = sorted(records, key=lambda r: r[0])
    i = 0
    before: dict[str, Any] | None = None
    for lo, hi in windows:
        while i < len(recs) and recs[i][0] <= lo:
            before = recs[i][1]
            i += 1
        span = direct.Span(before)
        while i < len(recs) and recs[i][0] <= hi:
            span.inside.append(recs[i][1])
            i += 1
        if not span.inside:
            out.append(None)
            continue
        last = span.inside[-1]
        levels = {k: direct.num(last[f"STORSG_AGL{k}"]) for k in LEVELS}
        flags = str(last.get("STORSG_AGLFLAGS") or "0")
        deltas = direct.growth(span, "STORSG_AGL", COUNTERS)
        out.append(AgeInterval((hi - lo) / 1e6, levels, deltas, int(flags, 16) & 0x80 != 0))
        before = last
    return out


def figures(a: AgeInterval) -> dict[str, Any]:
    """The report's figures of one interval (or of the window's totals)."""
    d, s = a.deltas, a.seconds
    reclaim = d["RECLM"] + d["RCLFT"]
    reused = d["FRNIO"] + d["FRWAI"] + d["PGOUT"]

    def rate(v: float) -> float | None:
        return v / s if s else None

    def share(v: float, of: float) -> float | None:
        return 100.0 * v / of if of else None

    target = a.levels["TARGT"]
    return {
        "agl_frames": a.levels["FRAME"],
        "agl_target": target,
        "agl_fill_pct": share(a.levels["FRAME"], target),
        "ew_inflight": a.levels["EWINF"],
        "earlywrites": "YES" if a.earlywrites else "NO",
        "moved_rate": rate(d["MOVED"]),
        "reclaim_rate": rate(reclaim),
        "reused_rate": rate(reused),
        # Of the frames leaving the list (back to their owner or reused):
        # those referenced while on it.
        "reclaim_pct": share(reclaim, reclaim + reused),
        "noio_pct": share(d["FRNIO"], reused),
        "written_pct": share(d["FRWRT"], reused),
        "wait_pct": share(d["FRWAI"] + d["PGOUT"], reused),
        "early_write_rate": rate(d["EWRIT"]),
        "replenishments": d["REPLN"],
        "seconds": s,
    }


def windows_of(iv: Intervals) -> list[tuple[float, float]]:
    """The intervals as ``(lo_us, hi_us]`` in microseconds since 1970."""
    return [(i.start_tod / 4096 - EPOCH_1900_US, i.end_tod / 4096 - EPOCH_1900_US) for i in iv.intervals]


def agellog(iv: Intervals, **_: Any) -> Report:
    from_file = direct.from_file(iv)
    records = read_storsg(iv.path) if from_file and iv.intervals else []
    rows: list[dict[str, Any]] = []
    if records:
        per = agelist_intervals(records, windows_of(iv))
        got = [(i, a) for i, a in zip(iv.intervals, per, strict=True) if a is not None]
        if got:
            total = AgeInterval(
                sum(a.seconds for _, a in got),
                # Levels: the mean over the intervals' samples.
                {k: sum(a.levels[k] for _, a in got) / len(got) for k in LEVELS},
                {k: sum(a.deltas[k] for _, a in got) for k in COUNTERS},
                got[-1][1].earlywrites,
            )
            rows.append(figures(total) | {"interval_end": MEAN, "interval_start": None})
            rows += [figures(a) | {"interval_end": i.end, "interval_start": i.start} for i, a in got]
    table = Table(
        [
            interval_column(),
            Column("agl_frames", ["", "Frames"], 8, 0),
            Column("agl_target", ["", "Target"], 8, 0),
            Column("agl_fill_pct", ["", "%Full"], 5, 0),
            Column("ew_inflight", ["EarlyW", "InFlt"], 6, 0),
            Column("moved_rate", ["Moved", "In/s"], 8, 1),
            Column("reclaim_rate", ["Reval", "/s"], 7, 1),
            Column("reused_rate", ["Reused", "/s"], 8, 1),
            Column("reclaim_pct", ["%", "Reval"], 5, 1),
            Column("noio_pct", ["%", "NoIO"], 5, 1),
            Column("written_pct", ["%", "EWdone"], 6, 1),
            Column("wait_pct", ["%", "Wait"], 5, 1),
            Column("early_write_rate", ["EarlyW", "/s"], 7, 1),
        ],
        [
            Group("Aging List", "agl_frames", "ew_inflight"),
            Group("Frames (rate/s)", "moved_rate", "reused_rate"),
            Group("Frames Leaving", "reclaim_pct", "wait_pct"),
        ],
    )
    pre = ["Global aging list (MRSTORSG, INFERRED aging-list block STORSG_AGL*):"]
    if records is None:
        pre.append(f"  {NO_DATA}")
    elif not from_file or not rows:
        pre += direct.notes(iv, not rows, "aging-list samples")
    else:
        ew = rows[0]["earlywrites"]
        pre.append(f"  early writes: {ew}; %Reval of the frames leaving the list, %NoIO/%EWdone/%Wait of those reused")
    return new_report(
        iv,
        "AGELLOG",
        "ZTWIN",
        "Global Aging List by Time",
        rows=rows,
        keys=AGELLOG_KEYS,
        table=table,
        pre_lines=pre,
        time_key="interval_end",
        charts=[
            Chart("Aging list frames and target", ["agl_frames", "agl_target"], "frames"),
            Chart("Frames moved in, revalidated and reused per second", ["moved_rate", "reclaim_rate", "reused_rate"],
                  "/s"),
            Chart("Frames leaving the list", ["reclaim_pct", "noio_pct", "wait_pct"], "%"),
        ],
    )


__all__ = ["AGELLOG_KEYS", "NO_DATA", "AgeInterval", "agellog", "agelist_intervals", "figures", "read_storsg"]
