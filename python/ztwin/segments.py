"""Which collections (segments) of a MONWRITE file a report or a diagnosis covers.

A file can hold several MONWRITE collections joined end to end
(:mod:`ztwin_monitor`'s reader tells them apart: configuration records again,
another system or processor, time going back; see ``docs/monitor-format.md``).
Figures must never mix them silently, so before reading a file for figures the
commands ask :func:`choose`:

* one segment: the whole file, as always;
* ``segment=N``: that segment only;
* ``system=NAME``: the segments of that system (MTRSYS_SYSTMID);
* neither, and more than one system in the file: refused, listing the systems
  and how to pick one;
* the chosen segments must follow each other in time (a later one starting
  after the earlier one's last interval); otherwise refused, listing them, with
  ``--segment N`` to pick one.

Segments of one system in time order are reported together; counters start
from a new baseline at each segment start (a restarted monitor's counters do
not continue), which :class:`~ztwin.reports.core.Collector` does when given the
plan's ranges.

>>> plan = choose("week.monwrite", system="VSPSYS")          # doctest: +SKIP
>>> iv = collect("week.monwrite", segments=plan.ranges)      # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ztwin._native import scan

if TYPE_CHECKING:
    from ztwin._native import StrPath

__all__ = ["Plan", "SegmentError", "choose", "describe"]

_TOD_EPOCH = datetime(1900, 1, 1)


class SegmentError(ValueError):
    """The segments of a file cannot be reported as asked (one line, with how
    to choose)."""


@dataclass(frozen=True)
class Plan:
    """What to read: byte ``ranges`` (None: the whole file), the chosen
    ``segments`` (dicts as in the reader's statistics) and ``notes`` to show
    the user (one line each)."""

    ranges: list[tuple[int, int]] | None
    segments: list[dict[str, Any]]
    all_segments: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _utc(tod: int | None) -> str:
    if tod is None:
        return "?"
    return f"{_TOD_EPOCH + timedelta(microseconds=tod // 4096):%Y/%m/%d %H:%M:%S}"


def describe(s: dict[str, Any]) -> str:
    """One segment in a few words: number, system, offset, time span (UTC)."""
    system = s["system_id"] or "no configuration records"
    return f"{s['index']}: {system} at offset {s['offset']}, {_utc(s['first_tod'])} to {_utc(s['last_tod'])} UTC"


def _systems(segs: list[dict[str, Any]]) -> list[str | None]:
    return list(dict.fromkeys(s["system_id"] for s in segs))


def choose(path: StrPath, system: str | None = None, segment: int | None = None) -> Plan:
    """The plan for reading ``path`` (see the module documentation). Raises
    :class:`SegmentError`, ``OSError`` or :class:`~ztwin.monitor.MonwriteError`."""
    stats = scan(path)
    segs: list[dict[str, Any]] = [dict(s) for s in stats["segments"]]
    count = stats["segment_count"]
    if count > len(segs):
        raise SegmentError(
            f"{path} holds {count} collections, more than the {len(segs)} ztwin lists; split the file first"
        )
    if segment is not None:
        if not 1 <= segment <= len(segs):
            raise SegmentError(f"--segment {segment}: {path} has segments 1 to {len(segs)}")
        chosen = [segs[segment - 1]]
    elif system is not None:
        want = system.strip().upper()
        chosen = [s for s in segs if (s["system_id"] or "").upper() == want]
        if not chosen:
            names = ", ".join(n or "(no configuration records)" for n in _systems(segs))
            raise SegmentError(f"--system {system}: no collection of that system in {path} (systems: {names})")
    else:
        chosen = segs
        systems = _systems(segs)
        if len(systems) > 1:
            listing = "; ".join(describe(s) for s in segs)
            raise SegmentError(
                f"{path} holds collections of {len(systems)} systems, which ztwin does not mix "
                f"(segments {listing}); choose one with --system NAME or --segment N"
            )
    for a, b in zip(chosen, chosen[1:], strict=False):
        if a["last_tod"] is not None and b["first_tod"] is not None and b["first_tod"] <= a["last_tod"]:
            raise SegmentError(
                f"{path}: segments {a['index']} and {b['index']} overlap in time "
                f"({describe(a)}; {describe(b)}); choose one with --segment N"
            )
    notes: list[str] = []
    if len(segs) > 1 and len(chosen) > 1:
        notes.append(
            f"{path} holds {len(chosen)} collections of {chosen[0]['system_id'] or 'one system'} "
            f"(segments {', '.join(str(s['index']) for s in chosen)}), reported together; "
            "counters start a new baseline at each"
        )
    ranges = None if len(segs) == 1 else [(s["offset"], s["end"]) for s in chosen]
    return Plan(ranges, chosen, segs, notes)
