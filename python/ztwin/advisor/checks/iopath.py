"""I/O limits the storage path's records show: a busy channel path
(MRSYTEPM, the CHANNEL report), a control unit that stopped caching a device
(MRIODCAD status "no data": pinned data or a cache failure, CACHEXT), and
requests queueing on a volume that has no PAV aliases to spread them over
(DEVICE).

The channel and cache records are not in the interval kernel's tables: these
checks read them from the period's file (``Period.path``) and place each
sample's counters on the period's intervals by their end times. A period from
a history database (no file) or a file without these records gives no
finding.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ztwin._lazy import lazy
from ztwin.advisor.checks.common import (
    Context,
    all_intervals_union,
    dev_fig,
    fnum,
    grade_each,
    held_intervals,
    max_severity,
    mean_over,
    num,
    order_by_severity,
    plural,
)
from ztwin.advisor.facts import Interval
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import Rule

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy("pandas")  # imported when first used (import time: see ztwin._lazy)

TOD_PER_S = 4096e6
CHP_TYPES = {1: "ESCON", 2: "FICON", 3: "FCP"}


def _frames(ctx: Context, name: str) -> pd.DataFrame | None:
    path = ctx.period.path
    if not path or not Path(path).is_file():
        return None
    from ztwin.monitor import tables

    try:
        df = tables(path, [name]).get(name)
    except Exception:  # noqa: BLE001 - damage is reported by the reports; no finding here
        return None
    return None if df is None or df.empty else df


def _local(ctx: Context, df: pd.DataFrame) -> pd.Series:
    return df["tod"].dt.tz_convert(None) + timedelta(seconds=ctx.period.zone_s)


def _at(times: list[datetime], t: datetime) -> int | None:
    """Index of the sample taken at `t` (within a second)."""
    for i, x in enumerate(times):
        if abs((x - t).total_seconds()) <= 1.0:
            return i
    return None


# ------------------------------------------------------------------ channel-busy


def _channel_series(ctx: Context) -> dict[int, dict[str, Any]]:
    """Per CHPID: its type and, per judged interval, its busy % (None where the
    interval has no samples at both ends)."""
    df = _frames(ctx, "MRSYTEPM")
    if df is None:
        return {}
    local = list(_local(ctx, df))
    samples: dict[int, dict[int, dict[str, Any]]] = {}
    for i, (_, rec) in enumerate(df.iterrows()):
        entries = rec.get("SYTEPM_CHPATH")
        if entries is None:
            continue
        for e in entries:
            flags = e.get("SYTEPM_CALFLAGS")
            if flags and int(str(flags), 16) & 0x80:
                continue
            samples.setdefault(int(e["SYTEPM_CHPID"]), {})[i] = e
    out: dict[int, dict[str, Any]] = {}
    for chp, by_rec in samples.items():
        busy: list[float | None] = []
        ios: list[float | None] = []
        for iv in ctx.intervals:
            a, b = _at(local, iv.start), _at(local, iv.end)
            ea, eb = by_rec.get(a) if a is not None else None, by_rec.get(b) if b is not None else None
            if ea is None or eb is None or iv.seconds <= 0:
                busy.append(None)
                ios.append(None)
                continue
            busy.append(100.0 * (float(eb["SYTEPM_CALPBUSY"]) - float(ea["SYTEPM_CALPBUSY"])) / TOD_PER_S / iv.seconds)
            ios.append((float(eb["SYTEPM_CALPWORK"]) - float(ea["SYTEPM_CALPWORK"])) / iv.seconds)
        last = next(iter(by_rec.values()))
        out[chp] = {"type": CHP_TYPES.get(int(last.get("SYTEPM_CHPTYPE") or 0), "?"), "busy": busy, "ios": ios}
    return out


def check_channel_busy(ctx: Context, rule: Rule) -> Finding | None:
    series = _channel_series(ctx)
    if not series:
        return None
    index = {iv.index: k for k, iv in enumerate(ctx.intervals)}

    def value(iv: Interval, chp: int) -> float | None:
        busy: float | None = series[chp]["busy"][index[iv.index]]
        return busy

    graded = grade_each(rule, ctx.intervals, sorted(series), value)
    if not graded:
        return None
    sev = max_severity(s for s, _ in graded.values())
    assert sev is not None
    rows = []
    for chp in order_by_severity(graded):
        csev, flags = graded[chp]
        held = held_intervals(ctx.intervals, flags)
        rows.append({
            "chpid": f"{chp:02X}", "type": series[chp]["type"],
            "busy_pct": mean_over(held, lambda iv, c=chp: value(iv, c)),  # type: ignore[misc]
            "io_rate": mean_over(held, lambda iv, c=chp: series[c]["ios"][index[iv.index]]),  # type: ignore[misc]
            "severity": csev, "intervals": len(held),
        })
    worst = rows[0]
    held_all = all_intervals_union(*(held_intervals(ctx.intervals, f) for _, f in graded.values()))
    return Finding(
        rule.id, sev, "Channel paths are busy",
        [Evidence("CHANNEL", f"{plural(len(rows), 'channel path')} at >= {num(rule.level('warning'))}% busy; busiest "
                  f"{worst['chpid']} ({worst['type']}) {num(fnum(worst['busy_pct']))}% at {num(fnum(worst['io_rate']))} I/Os/s",
                  held_all, len(ctx.intervals), rows)],
        f"Channel path {worst['chpid']} ({worst['type']}) was {num(fnum(worst['busy_pct']))}% busy. A busy channel makes "
        "I/Os wait before they reach their device (function pending time), and on ESCON one transfer at a time "
        "holds the whole path.",
        "Add channel paths to the control units these volumes use (FICON carries many transfers at once), or "
        "spread the busiest volumes over control units reached through other channels.",
        order=31,
    )


# ------------------------------------------------------------------ cache-off


def check_cache_off(ctx: Context, rule: Rule) -> Finding | None:
    df = _frames(ctx, "MRIODCAD")
    if df is None or not ctx.intervals:
        return None
    local = _local(ctx, df)
    t0, t1 = ctx.intervals[0].start, ctx.intervals[-1].end
    inside = df[(local > t0 + timedelta(seconds=1)) & (local <= t1 + timedelta(seconds=1))]
    before = df[local <= t0 + timedelta(seconds=1)]
    rows: list[dict[str, Any]] = []
    for devno, g in inside.groupby("IODCAD_RDEVDEV", sort=True):
        status = g["IODCAD_STATUS"].fillna(0).astype("int64")
        off = float((status == -2).mean())
        if off * 100 < rule["min_share_pct"]:
            continue
        prev = before[(before["IODCAD_RDEVDEV"] == devno) & (before["IODCAD_STATUS"].fillna(0).astype("int64") == 0)]
        was_cached = not prev.empty
        dev = ctx.period.device(int(devno))
        d = int(devno)
        disc = mean_over(ctx.intervals, lambda iv: dev_fig(iv, d, "disc_ms"))
        rows.append({"addr": dev.addr, "volser": dev.volser, "no_data_pct": round(100 * off, 1),
                     "cached_before": was_cached, "disc_ms": disc})
    if not rows:
        return None
    sev = "critical" if any(r["no_data_pct"] >= 99 and (r["disc_ms"] or 0) >= rule["critical_disc_ms"] for r in rows) else "warning"
    w = rows[0]
    return Finding(
        rule.id, sev, "The control unit does not cache a device (pinned data or a cache failure)",
        [Evidence("CACHEXT", f"{plural(len(rows), 'device')} with no cache data from the control unit; "
                  f"{w['addr']} {w['volser']} in {num(w['no_data_pct'])}% of the samples"
                  + (", cached earlier in the file" if w["cached_before"] else ""), list(ctx.intervals),
                  len(ctx.intervals), rows)],
        f"The control unit returned no cache statistics for {w['addr']}: caching is off for the device. Every read "
        "now goes to the disk (disconnect time "
        + (f"{num(fnum(w['disc_ms']))} ms per I/O" if w["disc_ms"] is not None else "high")
        + "). Pinned data (a write the control unit could not destage) or a cache failure turns caching off.",
        "Check the device with CP QUERY DASD DETAILS (PINNED Y?) and QUERY PINNED; involve the storage team; "
        "move busy data off the volume until caching is back.",
        order=29,
    )


# ------------------------------------------------------------------ dasd-queue-no-pav


def check_queue_no_pav(ctx: Context, rule: Rule) -> Finding | None:
    aliases = ctx.period.aliases()
    alias_devs = {a for v in aliases.values() for a in v}
    devs: set[int] = set()
    for iv in ctx.intervals:
        devs.update(iv.devices)
    cands = [d for d in sorted(devs) if ctx.period.device(d).dasd and not ctx.period.device(d).paging
             and d not in aliases and d not in alias_devs]

    def value(iv: Interval, d: int) -> float | None:
        io = dev_fig(iv, d, "io_rate")
        if io is None or io < rule["min_io_rate"]:
            return None
        return dev_fig(iv, d, "queued")

    graded = grade_each(rule, ctx.intervals, cands, value)
    if not graded:
        return None
    sev = max_severity(s for s, _ in graded.values())
    assert sev is not None
    rows = []
    for d in order_by_severity(graded):
        dsev, flags = graded[d]
        held = held_intervals(ctx.intervals, flags)
        dev = ctx.period.device(d)
        row: dict[str, Any] = {"addr": dev.addr, "volser": dev.volser}
        for k in ("io_rate", "serv_ms", "resp_ms", "queued", "busy_pct"):
            row[k] = mean_over(held, lambda iv, d=d, k=k: dev_fig(iv, d, k))  # type: ignore[misc]
        row.update(severity=dsev, intervals=len(held))
        rows.append(row)
    w = rows[0]
    held_all = all_intervals_union(*(held_intervals(ctx.intervals, f) for _, f in graded.values()))
    return Finding(
        rule.id, sev, "Requests queue on a volume with no PAV aliases",
        [Evidence("DEVICE", f"{plural(len(rows), 'volume')} without aliases with >= {num(rule.level('warning'))} requests "
                  f"queued; {w['addr']} {w['volser']} {num(fnum(w['queued']), 2)} queued at {num(fnum(w['io_rate']))} I/O/s, "
                  f"{num(fnum(w['busy_pct']))}% busy", held_all, len(ctx.intervals), rows)],
        f"{w['addr']} runs one I/O at a time and its requests wait in CP's queue ({num(fnum(w['queued']), 2)} on "
        f"average, response {num(fnum(w['resp_ms']))} ms against a service time of {num(fnum(w['serv_ms']))} ms).",
        "Give the volume PAV or HyperPAV aliases (the control unit permitting) so CP can run several I/Os to it "
        "at once, or spread its data over more volumes; minidisk cache can avoid reads altogether.",
        order=41,
    )
