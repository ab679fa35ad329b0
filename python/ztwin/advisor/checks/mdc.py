"""The minidisk cache: off where it would help (mdc-off), and on but starved
of frames (mdc-starved).

Both read the cache's system counters (MRSYTXSG: eligible reads, hits,
inserts, fair-share refusals) and sizes (MRSYTRSG: frames held, the
arbiter's target, SET MDCACHE STORAGE min and max) from the period's file,
as the MDCACHE report does, and the volumes' figures from the DEVICE data
of the period's intervals; mdc-off also reads the control units' cache
statistics (MRIODCAD, CACHEXT) for the volumes' read share and read hits.
A period from a history database (no file) gives no finding.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ztwin._lazy import lazy
from ztwin.advisor.checks.common import Context, dev_fig, fnum, mean_over, num, plural
from ztwin.advisor.checks.iopath import _frames, _local
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import Rule

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy("pandas")  # imported when a check first uses it (not at every command's start)


def _ends(ctx: Context, df: pd.DataFrame | None) -> pd.DataFrame | None:
    """The samples of `df` inside the period (its first and last interval's
    ends, within a second)."""
    if df is None or not ctx.intervals:
        return None
    local = _local(ctx, df)
    t0, t1 = ctx.intervals[0].start, ctx.intervals[-1].end
    inside = df[(local >= t0 - timedelta(seconds=1)) & (local <= t1 + timedelta(seconds=1))]
    return inside.sort_values("tod", kind="stable") if len(inside) >= 2 else None


def _delta(a: pd.Series, b: pd.Series, col: str) -> float | None:
    x, y = a.get(col), b.get(col)
    if x is None or y is None or pd.isna(x) or pd.isna(y):
        return None
    return float(y) - float(x)


def _int(v: Any) -> int | None:
    return None if v is None or pd.isna(v) else int(v)


def mdc_figures(ctx: Context) -> dict[str, Any] | None:
    """The cache over the period: reads, hits and inserts per second, hit %,
    fair-share refusals per second, frames at the end, their mean and the
    arbiter's target, the SET MDCACHE STORAGE bounds. None without the
    records."""
    x = _ends(ctx, _frames(ctx, "MRSYTXSG"))
    if x is None or "SYTXSG_HCPMDCPR" not in x or not x["SYTXSG_HCPMDCPR"].notna().any():
        return None
    a, b = x.iloc[0], x.iloc[-1]
    secs = (b["tod"] - a["tod"]).total_seconds()
    if secs <= 0:
        return None
    reads, hits = _delta(a, b, "SYTXSG_HCPMDCPR"), _delta(a, b, "SYTXSG_HCPMDCIA")
    inserts, denied = _delta(a, b, "SYTXSG_HCPMDCIS"), _delta(a, b, "SYTXSG_HCPMDCNE")
    out: dict[str, Any] = {
        "read_rate": None if reads is None else reads / secs,
        "hit_rate": None if hits is None else hits / secs,
        "hit_pct": None if not reads or hits is None else 100.0 * hits / reads,
        "insert_rate": None if inserts is None else inserts / secs,
        "fair_share_denied_rate": None if denied is None else denied / secs,
        "main_frames": None, "main_frames_mean": None, "main_target": None, "main_min": None, "main_max": None,
    }  # fmt: skip
    s = _ends(ctx, _frames(ctx, "MRSYTRSG"))
    if s is not None and "SYTRSG_TCMMAIN" in s:
        last = s.iloc[-1]
        out.update(
            main_frames=_int(last.get("SYTRSG_TCMMAIN")),
            main_frames_mean=float(s["SYTRSG_TCMMAIN"].astype("float64").mean()),
            main_target=_int(last.get("SYTRSG_TCMMIDSZ")),
            main_min=_int(last.get("SYTRSG_TCMMNMIN")),
            main_max=_int(last.get("SYTRSG_TCMMNMAX")),
        )
    return out


def _cache_reads(ctx: Context) -> dict[int, dict[str, float | None]]:
    """Per device on a caching control unit (MRIODCAD with data at both ends
    of the period): read share of its cache requests and read hit %."""
    f = _ends(ctx, _frames(ctx, "MRIODCAD"))
    out: dict[int, dict[str, float | None]] = {}
    if f is None:
        return out
    for devno, g in f.groupby("IODCAD_RDEVDEV", sort=True):
        ok = g[g["IODCAD_STATUS"].fillna(0).astype("int64") == 0]
        if len(ok) < 2:
            continue
        a, b = ok.iloc[0], ok.iloc[-1]
        d = {c: _delta(a, b, f"IODCAD_{c}") or 0.0 for c in ("NRDREQ", "NRDHIT", "SQRDREQ", "SQRDHIT", "WRTREQ")}
        reads = d["NRDREQ"] + d["SQRDREQ"]
        total = reads + d["WRTREQ"]
        out[int(devno)] = {
            "read_pct": 100.0 * reads / total if total else None,
            "cu_read_hit_pct": 100.0 * (d["NRDHIT"] + d["SQRDHIT"]) / reads if reads else None,
        }
    return out


# ------------------------------------------------------------------ mdc-off


def check_mdc_off(ctx: Context, rule: Rule) -> Finding | None:
    """Minidisk volumes read often with no I/O avoided by the minidisk cache,
    where the reads are re-read (their control unit hits its cache)."""
    if ctx.period.path is None or not ctx.intervals:
        return None
    mdc = mdc_figures(ctx)
    system_off = mdc is None or not (mdc.get("read_rate") or 0) > 0
    cache = _cache_reads(ctx)
    devs: set[int] = set()
    for iv in ctx.intervals:
        devs.update(iv.devices)
    aliases = ctx.period.aliases()
    alias_devs = {a for v in aliases.values() for a in v}
    rows: list[dict[str, Any]] = []
    for d in sorted(devs):
        dev = ctx.period.device(d)
        if not dev.dasd or dev.paging or d in alias_devs or d not in cache:
            continue
        # the volume's I/O: its own and its aliases'
        io = 0.0
        for x in (d, *aliases.get(d, [])):
            io += mean_over(ctx.intervals, lambda iv: dev_fig(iv, x, "io_rate")) or 0.0
        avoid = mean_over(ctx.intervals, lambda iv: dev_fig(iv, d, "avoid_rate")) or 0.0
        c = cache[d]
        read_pct, hit_pct = c["read_pct"], c["cu_read_hit_pct"]
        if avoid > 0 or read_pct is None or hit_pct is None:
            continue
        if read_pct < rule["min_read_pct"] or hit_pct < rule["min_cu_hit_pct"]:
            continue
        reads = io * read_pct / 100.0
        rows.append({"addr": dev.addr, "volser": dev.volser, "io_rate": io, "read_pct": read_pct,
                     "cu_read_hit_pct": hit_pct, "reads_per_s": reads,
                     "resp_ms": mean_over(ctx.intervals, lambda iv: dev_fig(iv, d, "resp_ms"))})
    total = sum(r["reads_per_s"] for r in rows)
    sev = None
    for level, thr in rule.active_levels():
        if total >= thr:
            sev = level
    if sev is None:
        return None
    rows.sort(key=lambda r: -r["reads_per_s"])
    w = rows[0]
    where = ("the minidisk cache is off (no reads counted in MRSYTXSG: SET MDCACHE SYSTEM OFF, or no cache storage)"
             if system_off else "the minidisk cache is on but avoids no I/O on these volumes (SET MDCACHE RDEV or "
             "MDISK OFF, or the minidisks are not eligible)")
    ev = [Evidence("DEVICE", f"{plural(len(rows), 'volume')} with {num(total)} reads/s and no I/O avoided; "
                   f"{w['addr']} {w['volser']} {num(fnum(w['io_rate']))} I/O/s, {num(fnum(w['read_pct']), 0)}% reads, "
                   f"response {num(fnum(w['resp_ms']))} ms", list(ctx.intervals), len(ctx.intervals), rows),
          Evidence("CACHEXT", f"the control unit hits {num(fnum(w['cu_read_hit_pct']), 0)}% of {w['addr']}'s reads: "
                   "the data is read again and again", list(ctx.intervals), len(ctx.intervals),
                   [{k: r[k] for k in ("addr", "volser", "read_pct", "cu_read_hit_pct")} for r in rows])]
    if mdc is not None:
        ev.append(Evidence("MDCACHE", f"minidisk cache reads {num(fnum(mdc['read_rate']))}/s, hits "
                           f"{num(fnum(mdc['hit_rate']))}/s, {num(fnum(mdc['main_frames']), 0)} frames",
                           list(ctx.intervals), len(ctx.intervals), [mdc]))
    return Finding(
        rule.id, sev, "Minidisk cache is off where it would avoid reads",
        ev,
        f"{num(total)} reads per second go to DASD on {plural(len(rows), 'volume')} whose data the control unit "
        f"finds in its cache (re-read data), but {where}. Each of those reads costs an I/O (start, interrupt, "
        "channel and control unit time) that a minidisk cache hit would avoid.",
        "Turn the minidisk cache on for these volumes (SET MDCACHE SYSTEM ON, SET MDCACHE RDEV ... ON, or the "
        "minidisks' MDISK options) and give it storage (SET MDCACHE STORAGE); with PAV, make sure CP's cache I/O "
        "may use the aliases (APAR VM64199).",
        order=43,
    )


# ------------------------------------------------------------------ mdc-starved


def check_mdc_starved(ctx: Context, rule: Rule) -> Finding | None:
    """The cache is on and busy but hits little while it is held small: at
    its SET MDCACHE STORAGE maximum, squeezed by the arbiter to a fraction of
    its target, or refused inserts by the fair-share limit."""
    if ctx.period.path is None:
        return None
    m = mdc_figures(ctx)
    if m is None or (m["read_rate"] or 0) < rule["min_read_rate"] or m["hit_pct"] is None:
        return None
    sev = None
    for level, thr in rule.active_levels():
        if m["hit_pct"] <= thr:
            sev = level
    if sev is None:
        return None
    frames, mx, mn, target = m["main_frames"], m["main_max"], m["main_min"], m["main_target"]
    mean = m["main_frames_mean"]
    causes: list[str] = []
    if frames is not None and mx and frames >= rule["at_limit_pct"] / 100.0 * mx:
        causes.append(f"held at its SET MDCACHE STORAGE maximum ({num(mx, 0)} frames)")
    if target and mean is not None and mean < rule["below_target_pct"] / 100.0 * target:
        causes.append(f"held at {num(100.0 * mean / target, 0)}% of the arbiter's target ({num(target, 0)} frames)")
    elif frames is not None and mn is not None and frames <= max(mn, 1) * 1.05 and (not mx or frames < mx):
        causes.append(f"shrunk by the arbiter to its minimum ({num(mn, 0)} frames)")
    denied, ins = m["fair_share_denied_rate"] or 0.0, m["insert_rate"] or 0.0
    if denied > 0 and denied >= rule["denied_pct"] / 100.0 * (denied + ins):
        causes.append(f"refusing {num(denied)} inserts/s by the fair-share limit")
    if not causes:
        return None
    return Finding(
        rule.id, sev, "Minidisk cache is starved of storage",
        [Evidence("MDCACHE", f"hit ratio {num(m['hit_pct'], 0)}% of {num(m['read_rate'])} reads/s, "
                  f"{num(m['insert_rate'])} inserts/s; {num(frames, 0) if frames is not None else '?'} frames, "
                  + "; ".join(causes), list(ctx.intervals), len(ctx.intervals), [m])],
        f"The minidisk cache misses {num(100 - m['hit_pct'], 0)}% of its reads and keeps inserting "
        f"({num(m['insert_rate'])} pages/s) while it is " + " and ".join(causes) + ": the data the guests re-read "
        "does not stay in it.",
        "Raise the cache's maximum (SET MDCACHE STORAGE min max) or its bias (SET MDCACHE STORAGE BIAS) if "
        "storage allows, exempt a server that reads for many users from the fair share (NOMDCFS), or turn the "
        "cache off for minidisks read once (SET MDCACHE MDISK ... OFF) so it keeps the re-read data.",
        order=44,
    )
