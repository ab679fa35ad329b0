"""I/O checks: device response, pending time (channel contention),
disconnect time (cache) absolute and against the device's own history, and
queues on a PAV base while its aliases are idle (DEVICE)."""

from __future__ import annotations

from statistics import median
from typing import Any

from ztwin.advisor.checks.common import (
    Context,
    Flags,
    all_intervals_union,
    dev_fig,
    fnum,
    grade_each,
    held_intervals,
    max_severity,
    mean_over,
    names,
    num,
    order_by_severity,
    plural,
)
from ztwin.advisor.facts import Interval
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import Persist, Rule

TIME_KEYS = ["io_rate", "pend_ms", "disc_ms", "conn_ms", "serv_ms", "resp_ms", "queued", "busy_pct"]


def _dasd(ctx: Context, paging: bool = True) -> list[int]:
    devs: set[int] = set()
    for iv in ctx.intervals:
        devs.update(iv.devices)
    out = []
    for d in sorted(devs):
        dev = ctx.period.device(d)
        if not dev.dasd or (not paging and dev.paging):
            continue
        out.append(d)
    return out


def _rows(ctx: Context, graded: dict[int, tuple[str, Flags]], keys: list[str]) -> list[dict[str, Any]]:
    rows = []
    for d in order_by_severity(graded):
        sev, flags = graded[d]
        held = held_intervals(ctx.intervals, flags)
        dev = ctx.period.device(d)
        row: dict[str, Any] = {"addr": dev.addr, "volser": dev.volser}
        for k in keys:
            row[k] = mean_over(held, lambda iv, d=d, k=k: dev_fig(iv, d, k))  # type: ignore[misc]
        row["severity"] = sev
        row["intervals"] = len(held)
        rows.append(row)
    return rows


def _min_io(rule: Rule, key: str) -> Any:
    def value(iv: Interval, d: int) -> float | None:
        io = dev_fig(iv, d, "io_rate")
        if io is None or io < rule["min_io_rate"]:
            return None
        return dev_fig(iv, d, key)

    return value


def _dominant(row: dict[str, Any]) -> str:
    """Which part of the response time is largest, in words (and, when it is
    queueing, which part of the service time drives it)."""
    service = {
        "pending time (the path to the device: channels, control unit)": float(row.get("pend_ms") or 0.0),
        "disconnect time (cache misses: the disks behind the cache)": float(row.get("disc_ms") or 0.0),
        "connect time (data transfer: large I/Os)": float(row.get("conn_ms") or 0.0),
    }
    queue = max(0.0, float(row.get("resp_ms") or 0.0) - float(row.get("serv_ms") or 0.0))
    top = max(service, key=lambda k: service[k])
    if queue > service[top]:
        return (f"queueing in z/VM ({num(queue)} ms: more requests than the device serves at once), and the "
                f"service time it multiplies is mostly {top}")
    return top


def _held(ctx: Context, graded: dict[int, tuple[str, Flags]]) -> list[Interval]:
    return all_intervals_union(*(held_intervals(ctx.intervals, f) for _, f in graded.values()))


def check_dasd_response(ctx: Context, rule: Rule) -> Finding | None:
    graded = grade_each(rule, ctx.intervals, _dasd(ctx, paging=False), _min_io(rule, "resp_ms"))
    if not graded:
        return None
    sev = max_severity(s for s, _ in graded.values())
    assert sev is not None
    rows = _rows(ctx, graded, TIME_KEYS)
    worst = rows[0]
    return Finding(
        rule.id, sev, "Slow DASD response",
        [Evidence("DEVICE", f"{plural(len(rows), 'volume')} with response >= {num(rule.level('warning'))} ms; worst "
                  f"{worst['addr']} {worst['volser']} {num(fnum(worst['resp_ms']))} ms at {num(fnum(worst['io_rate']))} I/O/s",
                  _held(ctx, graded), len(ctx.intervals), rows)],
        f"{plural(len(rows), 'volume')} answered slowly: {worst['addr']} took {num(fnum(worst['resp_ms']))} ms per I/O "
        f"(pending {num(fnum(worst['pend_ms']))}, disconnect {num(fnum(worst['disc_ms']))}, connect {num(fnum(worst['conn_ms']))} ms, "
        f"{num(fnum(worst['queued']), 2)} requests queued). The largest part is {_dominant(worst)}.",
        "Work on the largest component: pending time points at channels and control units, disconnect "
        "time at the cache (see the disconnect findings), connect time at big transfers, queueing at too "
        "much I/O for one volume (spread the data, use PAV aliases, or cache it with MDC).",
        order=40,
    )


def check_dasd_pending(ctx: Context, rule: Rule) -> Finding | None:
    graded = grade_each(rule, ctx.intervals, _dasd(ctx), _min_io(rule, "pend_ms"))
    if not graded:
        return None
    sev = max_severity(s for s, _ in graded.values())
    assert sev is not None
    rows = _rows(ctx, graded, TIME_KEYS)
    pend = mean_over(_held(ctx, graded), lambda iv: _mean_dev(iv, list(graded), "pend_ms"))
    n_paging = sum(1 for d in graded if ctx.period.device(d).paging)
    return Finding(
        rule.id, sev, "I/Os wait to get a path to the device (channel contention)",
        [Evidence("DEVICE", f"{plural(len(rows), 'volume')} with function pending time {num(pend)} ms per I/O"
                  + (f" ({n_paging} of them paging volumes)" if n_paging else ""), _held(ctx, graded), len(ctx.intervals), rows)],
        f"Function pending time - from the start of an I/O until the device is reached - was {num(pend)} ms "
        f"on {plural(len(rows), 'volume')} (a healthy path takes about 0.2 ms). High pending time usually "
        "means the channels or control units these volumes share are too busy.",
        "Check which channels (CHPIDs) and control units the volumes use (device configuration, channel "
        "report) and add channel paths, preferably FICON, or spread the volumes over more control units.",
        order=30,
    )


def _mean_dev(iv: Interval, devs: list[int], key: str) -> float | None:
    vals = [v for d in devs if (v := dev_fig(iv, d, key)) is not None]
    return sum(vals) / len(vals) if vals else None


def check_dasd_disconnect(ctx: Context, rule: Rule) -> Finding | None:
    skip: set[int] = ctx.notes.get("disc_changed", set())
    devs = [d for d in _dasd(ctx) if d not in skip]
    graded = grade_each(rule, ctx.intervals, devs, _min_io(rule, "disc_ms"))
    if not graded:
        return None
    sev = max_severity(s for s, _ in graded.values())
    assert sev is not None
    rows = _rows(ctx, graded, TIME_KEYS)
    worst = rows[0]
    return Finding(
        rule.id, sev, "Long disconnect times: I/Os miss the control unit's cache",
        [Evidence("DEVICE", f"{plural(len(rows), 'volume')} with disconnect >= {num(rule.level('warning'))} ms; worst "
                  f"{worst['addr']} {worst['volser']} {num(fnum(worst['disc_ms']))} ms", _held(ctx, graded), len(ctx.intervals), rows)],
        f"Disconnect time is the time a device works without the channel - for cached DASD, reading from "
        f"or writing to the disks behind the cache. {worst['addr']} spent {num(fnum(worst['disc_ms']))} ms per I/O "
        "there, so most of its I/Os miss the cache.",
        "Look at the control unit's cache statistics for these volumes (read hit ratio, pinned data, "
        "NVS full); spread write-heavy or random-read data, or enlarge the cache.",
        order=40,
    )


def check_disconnect_change(ctx: Context, rule: Rule) -> Finding | None:
    all_ivs = ctx.period.history + ctx.period.intervals
    n_hist = len(ctx.period.history)
    found: dict[int, tuple[list[bool | None], list[float], list[float]]] = {}
    for d in _dasd(ctx):
        normal: list[float] = []
        resp_normal: list[float] = []
        flags: list[bool | None] = []
        base_at: list[float] = []
        base_resp: list[float] = []
        for i, iv in enumerate(all_ivs):
            io, disc = dev_fig(iv, d, "io_rate"), dev_fig(iv, d, "disc_ms")
            flag: bool | None = None
            if io is not None and io >= rule["min_io_rate"] and disc is not None:
                if len(normal) >= rule["min_history"]:
                    base = median(normal)
                    flag = disc >= rule["factor"] * base and disc - base >= rule["min_increase_ms"]
                    if flag:
                        base_at.append(base)
                        base_resp.append(median(resp_normal) if resp_normal else float("nan"))
                if not flag:
                    normal.append(disc)
                    r = dev_fig(iv, d, "resp_ms")
                    if r is not None:
                        resp_normal.append(r)
            if i >= n_hist:
                flags.append(flag)
        persist: Persist = rule.persist
        if persist.satisfied(flags):
            found[d] = (flags, base_at, base_resp)
    if not found:
        return None
    ctx.notes["disc_changed"] = set(found)
    rows: list[dict[str, Any]] = []
    sevs: list[str] = []
    held_all = []
    for d, (flags, base_at, base_resp) in found.items():
        held = held_intervals(ctx.intervals, flags)
        held_all.append(held)
        dev = ctx.period.device(d)
        disc = mean_over(held, lambda iv, d=d: dev_fig(iv, d, "disc_ms"))  # type: ignore[misc]
        base_disc = median(base_at) if base_at else None
        inc = None if disc is None or base_disc is None else disc - base_disc
        dsev = "critical" if inc is not None and inc >= rule["critical_increase_ms"] else "warning"
        sevs.append(dsev)
        br = [b for b in base_resp if b == b]
        rows.append({
            "addr": dev.addr, "volser": dev.volser, "disc_before_ms": base_disc, "disc_ms": disc,
            "resp_before_ms": median(br) if br else None,
            "resp_ms": mean_over(held, lambda iv, d=d: dev_fig(iv, d, "resp_ms")),  # type: ignore[misc]
            "io_rate": mean_over(held, lambda iv, d=d: dev_fig(iv, d, "io_rate")),  # type: ignore[misc]
            "busy_pct": mean_over(held, lambda iv, d=d: dev_fig(iv, d, "busy_pct")),  # type: ignore[misc]
            "severity": dsev, "intervals": len(held), "first": held[0].end if held else None,
        })  # fmt: skip
    rows.sort(key=lambda r: -(float(r["disc_ms"] or 0.0) - float(r["disc_before_ms"] or 0.0)))
    sev = max_severity(sevs)
    assert sev is not None
    w = rows[0]
    return Finding(
        rule.id, sev, "Disconnect time jumped against the device's own history (cache trouble)",
        [Evidence("DEVICE", f"{w['addr']} {w['volser']}: disconnect {num(fnum(w['disc_ms']))} ms against "
                  f"{num(fnum(w['disc_before_ms']))} ms before, response {num(fnum(w['resp_ms']))} ms against {num(fnum(w['resp_before_ms']))} ms"
                  + (f"; {len(rows) - 1} more volumes" if len(rows) > 1 else ""),
                  all_intervals_union(*held_all), len(ctx.intervals), rows)],
        f"The disconnect time of {names([str(r['addr']) for r in rows])} rose from {num(fnum(w['disc_before_ms']))} ms "
        f"(its usual value earlier in this file) to {num(fnum(w['disc_ms']))} ms per I/O from {w['first']:%H:%M:%S} on. "
        "Disconnect time on cached DASD is time spent on the disks behind the cache: a jump like this "
        "means the control unit stopped caching these volumes (cache or NVS failure, pinned data, cache "
        "turned off), not that the workload changed its size.",
        "Query the control unit's cache state for the volume (CP QUERY DASD DETAILS rdev; QUERY PINNED) and "
        "call the storage hardware support; until it is repaired, move the busiest data off the affected "
        "control unit or string.",
        order=15,
        subsumes=(),
    )


def check_pav_base_queue(ctx: Context, rule: Rule) -> Finding | None:
    pavs = ctx.period.aliases()
    if not pavs:
        return None

    def value(iv: Interval, base: int) -> float | None:
        io = dev_fig(iv, base, "io_rate")
        if io is None or io < rule["min_io_rate"]:
            return None
        alias_io = sum(dev_fig(iv, a, "io_rate") or 0.0 for a in pavs[base])
        share = 100.0 * alias_io / (io + alias_io)
        if share > rule["alias_share"]:
            return 0.0
        return dev_fig(iv, base, "queued")

    graded = grade_each(rule, ctx.intervals, list(pavs), value)
    if not graded:
        return None
    sev = max_severity(s for s, _ in graded.values())
    assert sev is not None
    rows: list[dict[str, Any]] = []
    texts = []
    mdc = False
    for base in order_by_severity(graded):
        bsev, flags = graded[base]
        held = held_intervals(ctx.intervals, flags)
        for d in [base, *pavs[base]]:
            dev = ctx.period.device(d)
            row: dict[str, Any] = {"addr": dev.addr, "type": "base" if d == base else f"->{base:04X}", "volser": dev.volser}
            for k in ("io_rate", "avoid_rate", "serv_ms", "resp_ms", "queued", "busy_pct"):
                row[k] = mean_over(held, lambda iv, d=d, k=k: dev_fig(iv, d, k))  # type: ignore[misc]
            rows.append(row)
        b = rows[-1 - len(pavs[base])]
        alias_io = sum(r["io_rate"] or 0.0 for r in rows[-len(pavs[base]):])
        if (b.get("avoid_rate") or 0.0) > 0:
            mdc = True
        texts.append(f"{b['addr']}: queue {num(fnum(b['queued']), 1)} at {num(fnum(b['io_rate']), 0)} I/O/s, its "
                     f"{len(pavs[base])} aliases {num(alias_io, 1)} I/O/s together")
    first = rows[0]
    return Finding(
        rule.id, sev, "Requests queue on a PAV base volume while its aliases are idle",
        [Evidence("DEVICE", "; ".join(texts), _held(ctx, graded), len(ctx.intervals), rows)],
        f"{first['addr']} has PAV aliases that could run I/Os in parallel, but its requests queued at the base "
        f"({num(fnum(first['queued']), 1)} waiting on average) while the aliases did almost nothing. With PAV working, "
        "I/O spreads over base and aliases and nothing waits at the base while an alias is free; here the "
        "I/Os are being forced to the base."
        + (f" Minidisk cache is active on the volume ({num(fnum(first['avoid_rate']), 1)} I/Os avoided per second): "
           "CP's MDC I/Os were not PAV-eligible before APAR VM64199, exactly this pattern." if mdc else ""),
        "Check that the aliases are online and bound to the base (CP QUERY PAV), and that the I/O source can "
        "use PAV; for minidisk cache apply the fix for APAR VM64199 (z/VM 5.2/5.3). Until then turn MDC off "
        "for the volume (SET MDCACHE RDEV ... OFF) or spread the data over more volumes.",
        order=15,
    )
