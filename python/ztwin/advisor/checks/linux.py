"""Checks of Linux guests (issue 14, item 6): swapping to DASD where a VDISK
or a DCSS would serve, double paging, and a page cache holding storage CP
is short of.

Linux's own figures come from its APPLDATA records (domain 10, MRAPLSDT, the
kernel's ``appldata_mem``: swap-ins and swap-outs, page cache and buffers,
swap in use), read once for the file in a pass of their own
(:func:`_facts`, cached in the context's notes); z/VM's from the interval
kernel (UPAGE: the frames CP steals from the guest, its page reads; USTAT:
the guest's virtual I/O) and from MRSTOASI (each VDISK's I/O and page
counters, its owner from the space name ``VDISK$userid$vdev``). The records
do not name a guest's swap devices: pages swapped that its VDISKs did not
move went to a DASD when the guest did virtual I/O besides its VDISKs', to
a DCSS (dcssblk's copy, no I/O at all) when it did none. From a history
database (no APPLDATA there) the checks see nothing and stay silent.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ztwin.advisor.checks.common import Context, grade_each, held_intervals, names, num, order_by_severity
from ztwin.advisor.facts import Interval
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import Rule

#: The TOD clock's epoch; its bit 51 is one microsecond.
_TOD_EPOCH = datetime(1900, 1, 1)
#: A record written at a sample belongs to the interval that sample ends
#: (its TOD may be a little after the interval's end).
_SLACK = timedelta(seconds=1)
#: The largest VFB-512 VDISK (2 GB less 8 blocks), MB.
VDISK_MAX_MB = 2048.0


@dataclass
class _Facts:
    #: Per Linux guest, per judged interval (index): its APPLDATA_MEM figures
    #: (rates per second, sizes in MB) or absent.
    linux: dict[str, dict[int, dict[str, float]]] = field(default_factory=dict)
    #: Per VDISK owner, per interval: I/Os and pages moved per second.
    vdisk: dict[str, dict[int, dict[str, float]]] = field(default_factory=dict)


def _local(ctx: Context, utc: datetime) -> datetime:
    return utc + timedelta(seconds=ctx.period.zone_s)


def _tod_local(ctx: Context, tod_raw: int) -> datetime:
    return _local(ctx, _TOD_EPOCH + timedelta(microseconds=tod_raw >> 12))


def _at_or_before(times: list[datetime], t: datetime) -> int | None:
    """Index of the last of ``times`` (ascending) at or before ``t``."""
    k = None
    for i, x in enumerate(times):
        if x <= t:
            k = i
        else:
            break
    return k


def _per_interval(
    ctx: Context, times: list[datetime], recs: list[Any], figures: Any
) -> dict[int, dict[str, float]]:
    """Figures of each judged interval from the records at or before its
    start and its end (``figures(first, last, records_in_between)``)."""
    out: dict[int, dict[str, float]] = {}
    for iv in ctx.intervals:
        a = _at_or_before(times, iv.start + _SLACK)
        b = _at_or_before(times, iv.end + _SLACK)
        if a is None or b is None or b <= a:
            continue
        f = figures(recs[a], recs[b], recs[a + 1 : b + 1], iv)
        if f is not None:
            out[iv.index] = f
    return out


def _mem_figures(a: dict[str, Any], b: dict[str, Any], inside: list[dict[str, Any]], iv: Interval) -> dict[str, float] | None:
    fa, fb = a["fields"], b["fields"]
    secs = float(fb.get("timestamp", 0) - fa.get("timestamp", 0)) / 4096e6
    if secs <= 0:
        return None

    def rate(k: str) -> float:
        x, y = fa.get(k), fb.get(k)
        return float(y - x) / secs if isinstance(x, int) and isinstance(y, int) and y >= x else 0.0

    def mean_mb(*ks: str) -> float:
        vals = [sum(int(r["fields"].get(k) or 0) for k in ks) for r in inside]
        return sum(vals) / len(vals) / 1024.0 if vals else 0.0

    return {
        "pswpin_s": rate("pswpin"),
        "pswpout_s": rate("pswpout"),
        "pgmajfault_s": rate("pgmajfault"),
        "cache_mb": mean_mb("cached", "bufferram"),
        "total_mb": mean_mb("totalram"),
        "free_mb": mean_mb("freeram"),
        "swap_used_mb": mean_mb("totalswap") - mean_mb("freeswap"),
    }


def _facts(ctx: Context) -> _Facts:
    cached = ctx.notes.get("linux-facts")
    if isinstance(cached, _Facts):
        return cached
    facts = _Facts()
    ctx.notes["linux-facts"] = facts
    path = ctx.period.path
    if not path or not ctx.intervals or not Path(path).is_file():
        return facts
    from ztwin.monitor import AppldataWarning, DamageWarning, appldata, arrow_tables

    # The interval pass already reported damage (and the reports a wrong
    # APPLDATA length): these reads keep quiet.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamageWarning)
        warnings.simplefilter("ignore", AppldataWarning)
        recs = [r for r in appldata(path) if r["module"] == "mem" and r["name"] == "MRAPLSDT"]
        if not recs:
            return facts
        asi = arrow_tables(path, ["MRSTOASI"]).get("MRSTOASI")
    by_user: dict[str, list[dict[str, Any]]] = {}
    for r in recs:
        by_user.setdefault(str(r["userid"]).strip(), []).append(r)
    for user, rs in by_user.items():
        rs.sort(key=lambda r: r["tod_raw"])
        times = [_tod_local(ctx, r["tod_raw"]) for r in rs]
        facts.linux[user] = _per_interval(ctx, times, rs, _mem_figures)
    if asi is not None:
        spaces: dict[str, list[tuple[datetime, dict[str, float]]]] = {}
        for r in asi.to_pylist():
            name = str(r.get("STOASI_ASCNAME") or "").strip()
            tod = r.get("tod")
            if not name.startswith("VDISK$") or tod is None:
                continue
            t = tod if tod.tzinfo else tod.replace(tzinfo=UTC)
            row = {k: float(r.get(f"STOASI_{k}") or 0) for k in ("VDIIOCNT", "VDIPGRD", "VDIPGWT")}
            spaces.setdefault(name, []).append((_local(ctx, t).replace(tzinfo=None), row))
        for name, samples in spaces.items():
            owner = name.split("$")[1] if name.count("$") >= 2 else ""
            samples.sort(key=lambda s: s[0])

            def moved(a: Any, b: Any, _in: Any, iv: Interval) -> dict[str, float] | None:
                d = {k: max(b[1][k] - a[1][k], 0.0) / iv.seconds for k in a[1]} if iv.seconds else None
                return None if d is None else {"ios_s": d["VDIIOCNT"], "pages_s": d["VDIPGRD"] + d["VDIPGWT"]}

            per = _per_interval(ctx, [s[0] for s in samples], samples, moved)
            mine = facts.vdisk.setdefault(owner, {})
            for i, f in per.items():
                m = mine.setdefault(i, {"ios_s": 0.0, "pages_s": 0.0})
                m["ios_s"] += f["ios_s"]
                m["pages_s"] += f["pages_s"]
    return facts


def _user(iv: Interval, user: str, key: str) -> float:
    m = iv.users.get(user)
    v = m.get(key) if m is not None else None
    return float(v) if v is not None else 0.0


def _swap_dasd(ctx: Context, rule: Rule, facts: _Facts, iv: Interval, user: str) -> dict[str, float] | None:
    """The guest's swap pages per second that went to a DASD in interval
    ``iv`` (None: no APPLDATA for it there)."""
    lx = facts.linux.get(user, {}).get(iv.index)
    if lx is None:
        return None
    vd = facts.vdisk.get(user, {}).get(iv.index, {"ios_s": 0.0, "pages_s": 0.0})
    swap = lx["pswpin_s"] + lx["pswpout_s"]
    other_io = max(_user(iv, user, "virtual_io_rate") - vd["ios_s"], 0.0)
    rest = max(swap - vd["pages_s"], 0.0)
    dasd = rest if other_io >= float(rule["min_io_rate"]) else 0.0
    return {"swap_s": swap, "vdisk_pages_s": vd["pages_s"], "other_io_s": other_io, "dasd_pages_s": dasd,
            "swap_used_mb": lx["swap_used_mb"], "total_mb": lx["total_mb"]}  # fmt: skip


def _rows(ctx: Context, graded: dict[Any, tuple[str, Any]], row: Any, limit: int = 10) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for user in order_by_severity(graded)[:limit]:
        for iv in held_intervals(ctx.intervals, graded[user][1]):
            out.append({"userid": user, "interval_end": iv.end, **row(iv, user)})
    return out


def _mean(ctx: Context, flags: Any, get: Any) -> float:
    held = held_intervals(ctx.intervals, flags)
    vals = [get(iv) for iv in held]
    return sum(vals) / len(vals) if vals else 0.0


def check_swap_dasd(ctx: Context, rule: Rule) -> Finding | None:
    """Linux guests swapping to DASD: each swapped page a real I/O the guest
    waits for, where a VDISK (CP's copy) or a DCSS (the guest's own copy)
    would move it in microseconds; D2's order: a bigger guest, then DCSS,
    then VDISK, then DASD."""
    facts = _facts(ctx)
    if not facts.linux:
        return None

    def value(iv: Interval, user: str) -> float | None:
        f = _swap_dasd(ctx, rule, facts, iv, user)
        return None if f is None else f["dasd_pages_s"]

    graded = grade_each(rule, ctx.intervals, sorted(facts.linux), value)
    if not graded:
        return None
    users = order_by_severity(graded)
    sev = graded[users[0]][0]
    top = users[0]
    figs = {k: _mean(ctx, graded[top][1], lambda iv, k=k: (_swap_dasd(ctx, rule, facts, iv, top) or {}).get(k, 0.0))
            for k in ("dasd_pages_s", "other_io_s", "swap_used_mb", "total_mb")}  # fmt: skip
    held = held_intervals(ctx.intervals, graded[top][1])
    fits = figs["swap_used_mb"] <= VDISK_MAX_MB

    def row(iv: Interval, user: str) -> dict[str, Any]:
        f = _swap_dasd(ctx, rule, facts, iv, user) or {}
        return {k: f.get(k) for k in ("swap_s", "vdisk_pages_s", "dasd_pages_s", "other_io_s", "swap_used_mb")}

    return Finding(
        rule.id, sev, "Linux guests swap to DASD",
        [
            Evidence("LXMEM", f"{names(users)} swap to DASD; {top}: {num(figs['dasd_pages_s'])} pages/s not moved by "
                     f"a VDISK, with {num(figs['other_io_s'])} virtual I/Os/s besides its VDISKs', "
                     f"{num(figs['swap_used_mb'])} MB of swap in use", held, len(ctx.intervals), _rows(ctx, graded, row)),
        ],
        f"{names(users)} swapped pages that no VDISK of theirs moved while doing virtual I/O (APPLDATA pswpin and "
        f"pswpout less the VDISKs' pages in MRSTOASI; the guest's I/O in USTAT): Linux swap on DASD. {top} moved "
        f"{num(figs['dasd_pages_s'])} pages/s that way in {len(held)} of {len(ctx.intervals)} intervals: each a real "
        "I/O the guest waits for (a major fault reads one page and stalls the process), where a VDISK is CP's copy "
        "and a DCSS swap device the guest's own copy, without an I/O. The DCSS paper's order: a bigger guest that "
        "does not swap, then a DCSS, then a VDISK, then DASD.",
        f"Give {top} more storage if z/VM has it (the bigger guest beats every swap device), or put a "
        + ("VDISK (its swap in use fits the 2 GB limit) or " if fits else "")
        + "an EW/EN DCSS swap device in front of the DASD (higher swapon priority), keeping the DASD as overflow.",
        order=60,
    )


def _double(facts: _Facts, iv: Interval, user: str) -> dict[str, float] | None:
    lx = facts.linux.get(user, {}).get(iv.index)
    if lx is None:
        return None
    steals = _user(iv, user, "steals")
    swap = lx["pswpout_s"] + lx["pswpin_s"]
    return {"cp_steals_s": steals, "cp_page_reads_s": _user(iv, user, "page_reads"), "lx_pswpout_s": lx["pswpout_s"],
            "lx_pswpin_s": lx["pswpin_s"], "double_s": min(steals, swap)}  # fmt: skip


def check_double_paging(ctx: Context, rule: Rule) -> Finding | None:
    """Double paging: CP pages out a Linux guest's frames while Linux swaps.
    Linux picks the pages it has not used lately, the same ones CP took: CP
    must page each back in for Linux to write it to swap."""
    facts = _facts(ctx)
    if not facts.linux:
        return None

    def value(iv: Interval, user: str) -> float | None:
        f = _double(facts, iv, user)
        return None if f is None else f["double_s"]

    graded = grade_each(rule, ctx.intervals, sorted(facts.linux), value)
    if not graded:
        return None
    users = order_by_severity(graded)
    top = users[0]
    figs = {k: _mean(ctx, graded[top][1], lambda iv, k=k: (_double(facts, iv, top) or {}).get(k, 0.0))
            for k in ("cp_steals_s", "cp_page_reads_s", "lx_pswpout_s", "lx_pswpin_s")}  # fmt: skip
    held = held_intervals(ctx.intervals, graded[top][1])

    def row(iv: Interval, user: str) -> dict[str, Any]:
        return dict(_double(facts, iv, user) or {})

    return Finding(
        rule.id, graded[top][0], "Double paging: CP pages out Linux guests that swap",
        [
            Evidence("UPAGE", f"{top}: CP steals {num(figs['cp_steals_s'])} frames/s and reads back "
                     f"{num(figs['cp_page_reads_s'])} pages/s", held, len(ctx.intervals), _rows(ctx, graded, row)),
            Evidence("LXMEM", f"{top}: Linux swaps out {num(figs['lx_pswpout_s'])} and in {num(figs['lx_pswpin_s'])} "
                     "pages/s in the same intervals"),
        ],
        f"In {len(held)} of {len(ctx.intervals)} intervals CP took frames from {names(users)} while Linux in "
        f"{'it' if len(users) == 1 else 'them'} swapped: {top} lost {num(figs['cp_steals_s'])} frames/s to CP and "
        f"swapped {num(figs['lx_pswpout_s'] + figs['lx_pswpin_s'])} pages/s. Both pick the pages least used lately, "
        "so Linux chooses pages CP has already paged out, and CP must bring each back in (a page fault the guest "
        "waits for) only for Linux to write it to its swap device: every such page is moved three times.",
        "Make the guests smaller so Linux's working set fits and CP need not page it (or larger, with the storage "
        "to hold it, so Linux need not swap); let CMM give Linux's unused pages back to CP; do not give a guest "
        "both a swap device and more virtual storage than z/VM can back.",
        order=55,
    )


def _cache(ctx: Context, rule: Rule, facts: _Facts, iv: Interval, user: str) -> dict[str, float] | None:
    lx = facts.linux.get(user, {}).get(iv.index)
    if lx is None:
        return None
    steals = _user(iv, user, "steals")
    share = 100.0 * lx["cache_mb"] / lx["total_mb"] if lx["total_mb"] else 0.0
    short = steals >= float(rule["min_steal_rate"]) or bool(ctx.fired("storage-constrained", "warning"))
    held = lx["cache_mb"] if short and share >= float(rule["min_share"]) else 0.0
    return {"cache_mb": lx["cache_mb"], "cache_pct": share, "cp_steals_s": steals,
            "resident_mb": _user(iv, user, "resident") * 4 / 1024, "held_mb": held}  # fmt: skip


def check_cache_held(ctx: Context, rule: Rule) -> Finding | None:
    """Linux's page cache fills the storage it is given; z/VM keeps those
    frames resident like any other while it is short of storage, stealing
    from this guest or others."""
    facts = _facts(ctx)
    if not facts.linux:
        return None

    def value(iv: Interval, user: str) -> float | None:
        f = _cache(ctx, rule, facts, iv, user)
        return None if f is None else f["held_mb"]

    graded = grade_each(rule, ctx.intervals, sorted(facts.linux), value)
    if not graded:
        return None
    users = order_by_severity(graded)
    top = users[0]
    figs = {k: _mean(ctx, graded[top][1], lambda iv, k=k: (_cache(ctx, rule, facts, iv, top) or {}).get(k, 0.0))
            for k in ("cache_mb", "cache_pct", "cp_steals_s", "resident_mb")}  # fmt: skip
    held = held_intervals(ctx.intervals, graded[top][1])
    constrained = ctx.fired("storage-constrained", "warning") is not None

    def row(iv: Interval, user: str) -> dict[str, Any]:
        f = _cache(ctx, rule, facts, iv, user) or {}
        return {k: f.get(k) for k in ("cache_mb", "cache_pct", "cp_steals_s", "resident_mb")}

    why = ("the system is storage-constrained" if constrained else f"CP steals {num(figs['cp_steals_s'])} frames/s "
           "from it")  # fmt: skip
    return Finding(
        rule.id, graded[top][0], "Linux page cache holds storage z/VM is short of",
        [
            Evidence("LXMEM", f"{top}: {num(figs['cache_mb'])} MB of page cache and buffers "
                     f"({num(figs['cache_pct'])}% of its storage)", held, len(ctx.intervals), _rows(ctx, graded, row)),
            Evidence("UPAGE", f"{top}: {num(figs['resident_mb'])} MB resident, CP steals "
                     f"{num(figs['cp_steals_s'])} frames/s"),
        ],
        f"{names(users)} kept large page caches while z/VM was short of storage: {top} held "
        f"{num(figs['cache_mb'])} MB of cache in {len(held)} of {len(ctx.intervals)} intervals while {why}. Linux "
        "fills the storage it is given with cached file data it may never read again; to z/VM those are written "
        "frames like any other, so CP pages them out and in for data Linux could simply reread or drop.",
        f"Reduce {top}'s virtual storage toward its working set (Linux caches what it has), or let CMM (or "
        "CMMA) give the unused pages back to CP.",
        order=65,
    )
