"""Era C checks (z/VM 6.3 and later): the global aging list's size and the
early writes, from the aging-list figures of MRSTORSG (AGELLOG; read from
the period's file, ``Period.path``) and the paging figures (PAGELOG).

* ``agelist-small``: frames stay on the list too short a time to be
  referenced again before they are reused (the list's frames over the rate
  frames are reused from its head), while the pages taken come back: DASD
  page reads at least ``min_read_ratio`` of the frames reused. The list is
  then too small to tell the pages in use from the others, and early writes
  are spent on pages faulted back soon after.
* ``agelist-large``: most frames leaving the list were referenced while on
  it (revalidated): the list holds pages the guests use, CP trial-
  invalidates and revalidates them for nothing, and those frames are not
  the old ones the list exists to find.
* ``earlywrite-lag``: a large share of the frames reused from the head had
  to wait for a write (their early write still running, or a page-out
  started at the head): the early writes do not keep ahead of the reuse, or
  are off.

Every figure comes from the records; files of levels before 6.3 (no aging
list) and history databases give no finding.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ztwin.advisor.checks.common import Context, grade, held_intervals, mean_over, num, plural
from ztwin.advisor.facts import Interval
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import Rule
from ztwin.reports.agelist import AgeInterval, agelist_intervals, figures, read_storsg


def _utc_us(ctx: Context, t: datetime) -> float:
    u = (t - timedelta(seconds=ctx.period.zone_s)).replace(tzinfo=UTC)
    return u.timestamp() * 1e6


def _figures(ctx: Context) -> list[dict[str, Any] | None]:
    """Per interval of the period, its AGELLOG figures (None: no aging-list
    record in it); all None for a file without the aging list."""
    cached = ctx.notes.get("agelist-figures")
    if isinstance(cached, list):
        return cached
    ivs = ctx.intervals
    out: list[dict[str, Any] | None] = [None] * len(ivs)
    path = ctx.period.path
    if path and ivs and Path(path).is_file():
        records = read_storsg(path)
        if records:
            windows = [(_utc_us(ctx, iv.start), _utc_us(ctx, iv.end)) for iv in ivs]
            per: list[AgeInterval | None] = agelist_intervals(records, windows)
            out = [None if a is None else figures(a) for a in per]
    ctx.notes["agelist-figures"] = out
    return out


def _rows(ctx: Context, held: list[Interval], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    figs = dict(zip((iv.index for iv in ctx.intervals), _figures(ctx), strict=True))
    rows = []
    for iv in held:
        f = figs.get(iv.index) or {}
        rows.append({"interval_end": iv.end} | {k: f.get(k, iv.sys.get(k)) for k in keys})
    return rows


def _residence_s(f: dict[str, Any] | None) -> float | None:
    """Seconds a frame spends on the list: its frames over the reuse rate."""
    if not f or not f.get("reused_rate") or f.get("agl_frames") is None:
        return None
    return float(f["agl_frames"]) / float(f["reused_rate"])


def check_agelist_small(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    figs = _figures(ctx)

    def value(iv: Interval, f: dict[str, Any] | None) -> float | None:
        res = _residence_s(f)
        reads, reused = iv.sys.get("dasd_read_rate"), (f or {}).get("reused_rate")
        if res is None or reads is None or not reused or reads < rule["min_read_ratio"] * reused:
            return None
        return res

    values = [value(iv, f) for iv, f in zip(ivs, figs, strict=True)]
    sev, flags = grade(rule, values, below=True)
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    by = dict(zip((iv.index for iv in ivs), figs, strict=True))
    res = mean_over(held, lambda iv: _residence_s(by[iv.index]))
    frames = mean_over(held, lambda iv: (by[iv.index] or {}).get("agl_frames"))
    reused = mean_over(held, lambda iv: (by[iv.index] or {}).get("reused_rate"))
    reads = mean_over(held, lambda iv: iv.sys.get("dasd_read_rate"))
    reval = mean_over(held, lambda iv: (by[iv.index] or {}).get("reclaim_pct"))
    return Finding(
        rule.id, sev, "The global aging list is too small for the rate frames pass through it",
        [
            Evidence("AGELLOG", f"frames stay {num(res, 2)} s on the aging list ({num(frames, 0)} frames, "
                     f"{num(reused, 0)} reused/s; {num(reval)}% revalidated) in {plural(len(held), 'interval')}",
                     held, len(ivs),
                     _rows(ctx, held, ("agl_frames", "agl_target", "reused_rate", "reclaim_pct", "wait_pct"))),
            Evidence("PAGELOG", f"{num(reads, 0)} pages/s read back from paging DASD"),
        ],
        f"A frame spends about {num(res, 2)} seconds on the global aging list between leaving its owner and "
        f"being reused, too short for a page still in use to be referenced again and revalidated (only "
        f"{num(reval)}% of the frames leaving the list were), and the pages taken come back: {num(reads, 0)} "
        f"page reads per second against {num(reused, 0)} frames reused. CP then steals pages the guests still "
        "use, and the early writes of those pages are wasted work.",
        "Make the aging list larger (SET AGELIST SIZE, [agelist] size; IBM's default is 2% of the DPA) so a "
        "frame stays on it long enough for a reference to save it; if it is large already, storage is too "
        "small for the active guests (see the storage findings).",
        order=35,
        # Early writes cannot end before frames that pass so quickly reach
        # the head: the small list explains their lag.
        subsumes=("earlywrite-lag",),
    )


def check_agelist_large(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    figs = _figures(ctx)
    values = [(f or {}).get("reclaim_pct") for f in figs]
    sev, flags = grade(rule, values)
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    by = dict(zip((iv.index for iv in ivs), figs, strict=True))
    reval = mean_over(held, lambda iv: (by[iv.index] or {}).get("reclaim_pct"))
    rate = mean_over(held, lambda iv: (by[iv.index] or {}).get("reclaim_rate"))
    frames = mean_over(held, lambda iv: (by[iv.index] or {}).get("agl_frames"))
    return Finding(
        rule.id, sev, "The global aging list holds pages in use",
        [Evidence("AGELLOG", f"{num(reval)}% of the frames leaving the aging list were referenced on it "
                  f"({num(rate, 0)}/s revalidated; {num(frames, 0)} frames on the list) in "
                  f"{plural(len(held), 'interval')}", held, len(ivs),
                  _rows(ctx, held, ("agl_frames", "agl_target", "reclaim_rate", "reclaim_pct", "reused_rate")))],
        f"{num(reval)}% of the frames that left the global aging list went back to their owners because the "
        f"page was referenced while on the list ({num(rate, 0)} revalidations per second). The list is long "
        "enough to hold pages the guests are using: CP trial-invalidates and revalidates them, spending CP "
        "time, and the frames on the list are storage the guests need rather than the old frames it exists "
        "to find.",
        "Make the aging list smaller (SET AGELIST SIZE, [agelist] size) unless the revalidations are cheap "
        "for this workload; a list that revalidates most frames at any size means the guests' working sets "
        "fill storage (see the storage findings).",
        order=36,
    )


def check_earlywrite_lag(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    figs = _figures(ctx)
    values = [(f or {}).get("wait_pct") if (f or {}).get("reused_rate") else None for f in figs]
    sev, flags = grade(rule, values)
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    by = dict(zip((iv.index for iv in ivs), figs, strict=True))
    wait = mean_over(held, lambda iv: (by[iv.index] or {}).get("wait_pct"))
    reused = mean_over(held, lambda iv: (by[iv.index] or {}).get("reused_rate"))
    ew_on = any((by[iv.index] or {}).get("earlywrites") == "YES" for iv in held)
    if ew_on:
        why = ("early writes are on, but the writes started as pages enter the list do not end before the "
               "frames reach its head: the paging devices cannot keep up with the rate frames are reused")
        rec = ("Make paging faster (more paging volumes, HyperPAV aliases for paging from 6.4, see the paging "
               "findings) or the aging list larger, so early writes have time to complete.")
    else:
        why = ("early writes are off (EARLYWRITES NO), so a changed page is written only when its frame reaches "
               "the head and is needed")
        rec = ("Turn early writes on (SET AGELIST EARLYWRITES YES, [agelist] earlywrites = true) so changed "
               "pages are written while their frames age on the list.")
    return Finding(
        rule.id, sev, "Frames reused from the aging list wait for page writes",
        [Evidence("AGELLOG", f"{num(wait)}% of the frames reused from the aging list waited for a write "
                  f"({num(reused, 0)} reused/s; early writes {'on' if ew_on else 'off'}) in "
                  f"{plural(len(held), 'interval')}", held, len(ivs),
                  _rows(ctx, held, ("reused_rate", "noio_pct", "written_pct", "wait_pct", "ew_inflight")))],
        f"Of the frames CP reused from the head of the global aging list, {num(wait)}% could not be freed at "
        f"once because their page still had to be written to paging DASD: {why}. Frame requests are served "
        "later and the available list runs lower than it would.",
        rec,
        order=37,
    )


__all__ = ["check_agelist_large", "check_agelist_small", "check_earlywrite_lag"]
