"""Paging checks: serialized paging (S1), queues, busy and MLOAD of paging
volumes, blocking factor, paging space, XSTOR versus DASD paging, mixed
volume sizes (CPOWNED, DEVICE, STORAGE, PAGELOG, USTAT, UPAGE)."""

from __future__ import annotations

from typing import Any

from ztwin.advisor.checks.common import (
    Context,
    all_intervals_union,
    dev_fig,
    exp_fig,
    fnum,
    grade,
    grade_each,
    held_intervals,
    max_severity,
    mean_over,
    names,
    num,
    order_by_severity,
    plural,
    sysfig,
    user_active_share,
    wmean,
)
from ztwin.advisor.tables import as_table
from ztwin.advisor.facts import Interval
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import Rule


def _volume_rows(ctx: Context, graded: dict[int, tuple[str, Any]], keys: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """One row per volume (worst first): means over the intervals where its condition held."""
    rows = []
    for devno in order_by_severity(graded):
        sev, flags = graded[devno]
        held = held_intervals(ctx.intervals, flags)
        dev = ctx.period.device(devno)
        row: dict[str, Any] = {"addr": dev.addr, "volser": dev.volser}
        for key, src in keys:
            fig = dev_fig if src == "device" else exp_fig
            row[key] = mean_over(held, lambda iv, d=devno, k=key, f=fig: f(iv, d, k))  # type: ignore[misc]
        row["severity"] = sev
        row["intervals"] = len(held)
        rows.append(row)
    return rows


def _io_weighted(ivs: list[Interval], devs: list[int], key: str) -> float | None:
    return wmean(
        (dev_fig(iv, d, key), (dev_fig(iv, d, "io_rate") or 0.0) * iv.seconds) for iv in ivs for d in devs
    )


def check_paging_serialized(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    vols = [d for d in ctx.period.paging_devices() if any(d in iv.devices for iv in ivs)]
    if len(vols) < rule["min_volumes"]:
        return None

    def guests(iv: Interval) -> list[str]:
        return sorted(str(u) for u in as_table(iv.users).keys_with_share("hf_pgw", rule["page_wait"]))

    def busy_sum(iv: Interval) -> float | None:
        vals = [dev_fig(iv, d, "busy_pct") for d in vols]
        vals2 = [v for v in vals if v is not None]
        return sum(vals2) if vals2 else None

    def resp_ratio(iv: Interval) -> float | None:
        resp = _io_weighted([iv], vols, "resp_ms")
        serv = _io_weighted([iv], vols, "serv_ms")
        return None if resp is None or not serv else resp / serv

    def reads(iv: Interval, users: list[str]) -> tuple[float, float]:
        mine = sum(float(iv.users[u].get("page_reads") or 0.0) for u in users)
        total = iv.sys.get("dasd_read_rate")
        if total is None:
            total = as_table(iv.users).total("page_reads") or 0.0
        return mine, float(total)

    def cond(iv: Interval) -> bool | None:
        if not iv.users or not iv.devices:
            return None
        g = guests(iv)
        if not g:
            return False
        mine, total = reads(iv, g)
        busy, ratio = busy_sum(iv), resp_ratio(iv)
        if busy is None or ratio is None or total <= 0:
            return False
        per_guest = busy / len(g)
        return bool(
            100.0 * mine / total >= rule["reads_share"]
            and rule["busy_min"] <= per_guest <= rule["busy_max"]
            and ratio < rule["max_resp_ratio"]
        )

    flags = [cond(iv) for iv in ivs]
    if not rule.persist.satisfied(flags):
        return None
    held = held_intervals(ivs, flags)
    who: dict[str, int] = {}
    for iv in held:
        for u in guests(iv):
            who[u] = who.get(u, 0) + 1
    users = sorted(who, key=lambda u: (-who[u], u))
    ctx.notes["serialized_users"] = set(users)
    n_g = mean_over(held, lambda iv: float(len(guests(iv)))) or 1.0
    busy = mean_over(held, busy_sum)
    serv = _io_weighted(held, vols, "serv_ms")
    resp = _io_weighted(held, vols, "resp_ms")
    ssch = mean_over(held, lambda iv: sum(dev_fig(iv, d, "io_rate") or 0.0 for d in vols))
    pages = mean_over(held, lambda iv: reads(iv, guests(iv))[0])
    share = mean_over(held, lambda iv: 100.0 * reads(iv, guests(iv))[0] / (reads(iv, guests(iv))[1] or 1.0))
    slots = mean_over(held, lambda iv: iv.sys.get("slots_used_pct"))
    n_vol = len(vols)
    per_vol = None if busy is None else busy / n_vol
    per_guest = None if busy is None else busy / n_g
    max_rate = None if not serv else 1000.0 / serv
    capacity = None if not per_guest else 100.0 * n_vol / per_guest

    urows = []
    for u in users:
        sums: dict[str, float] = {}
        secs = 0.0
        for iv in held:
            m = iv.users.get(u)
            if m is None:
                continue
            for k in ("hf_total", "hf_queue", "hf_pgw"):
                sums[k] = sums.get(k, 0.0) + float(m.get(k, 0.0))
            sums["page_reads"] = sums.get("page_reads", 0.0) + float(m.get("page_reads") or 0.0) * iv.seconds
            secs += iv.seconds
        tot, q = sums.get("hf_total") or 0.0, sums.get("hf_queue") or 0.0
        urows.append({
            "userid": u, "act_pct": 100 * q / tot if tot else None, "pgw_pct": 100 * sums.get("hf_pgw", 0) / tot if tot else None,
            "pgw_active_pct": 100 * sums.get("hf_pgw", 0) / q if q else None,
            "page_reads": sums["page_reads"] / secs if secs else None, "intervals": who[u],
        })  # fmt: skip
    vrows = []
    for d in vols:
        dev = ctx.period.device(d)
        vrows.append({
            "addr": dev.addr, "volser": dev.volser,
            "io_rate": mean_over(held, lambda iv, d=d: dev_fig(iv, d, "io_rate")),  # type: ignore[misc]
            "serv_ms": mean_over(held, lambda iv, d=d: dev_fig(iv, d, "serv_ms")),  # type: ignore[misc]
            "resp_ms": mean_over(held, lambda iv, d=d: dev_fig(iv, d, "resp_ms")),  # type: ignore[misc]
            "queued": mean_over(held, lambda iv, d=d: dev_fig(iv, d, "queued")),  # type: ignore[misc]
            "busy_pct": mean_over(held, lambda iv, d=d: dev_fig(iv, d, "busy_pct")),  # type: ignore[misc]
        })  # fmt: skip
    who_text = names(users)
    one = len(users) == 1
    at_once = max(len(guests(iv)) for iv in held)
    subject = who_text if one else (
        f"{who_text} (one at a time)" if at_once == 1 else f"these {len(users)} guests ({who_text})"
    )
    return Finding(
        rule.id, "warning",
        f"Paging is serialized by {'the guest ' + who_text if one else 'single guests'}, not limited by the paging volumes",
        [
            Evidence("USTAT", f"{who_text} in page wait in {num(fnum(urows[0]['pgw_active_pct']) if urows else None, 0)}% "
                     f"of {'its' if one else 'their'} active samples; {num(share, 0)}% of the DASD page reads",
                     held, len(ivs), urows),
            Evidence("DEVICE", f"{n_vol} paging volumes {num(per_vol)}% busy each, {num(busy, 0)}% together; "
                     f"{num(ssch, 0)} paging I/Os/s; response {num(resp)} ms = service {num(serv)} ms (no queue)",
                     held, len(ivs), vrows),
        ],
        f"{subject} {'was' if one else 'were'} in page wait nearly always and did {num(share, 0)}% of the DASD page "
        f"reads ({num(pages, 0)} pages/s). The {n_vol} paging volumes were only {num(per_vol)}% busy each, but "
        f"their busy percentages add up to {num(busy, 0)}%"
        + (" - about 100%" if at_once == 1 else f" - about 100% for each of the {num(n_g, 0)} guests paging at once")
        + ": one paging I/O in flight at any time per guest. A guest that touches its pages with one thread "
        "faults on one page, waits for that paging I/O to finish, and only then faults on the next, so it "
        f"can drive at most 1000 / {num(serv)} ms = {num(max_rate, 0)} paging I/Os per second however many "
        "volumes there are. The volumes have no queue (response equals service time): paging is "
        "serialized by the guest, not limited by the paging configuration.",
        f"More or faster paging volumes will not make {who_text} page much faster (only a shorter service time "
        "would). Keep its pages resident instead - enough central storage for its working set - or let the "
        "application fault in parallel (more threads or virtual processors). The same volumes can serve "
        f"about {n_vol} x 100% / {num(per_guest, 0)}% = {num(capacity, 1)} such guests at once; paging space is "
        f"{num(slots)}% used, so leave room before running many of them together.",
        order=10,
    )


def check_paging_device_queue(ctx: Context, rule: Rule) -> Finding | None:
    vols = ctx.period.paging_devices()
    warn = rule.level("warning")

    def value(iv: Interval, d: int) -> float | None:
        io = dev_fig(iv, d, "io_rate")
        if io is None or io < rule["min_ssch_rate"]:
            return None
        resp, serv, q = dev_fig(iv, d, "resp_ms"), dev_fig(iv, d, "serv_ms"), dev_fig(iv, d, "queued")
        r = resp / serv if resp is not None and serv else None
        if q is not None and q >= rule["queue"] and warn is not None:
            r = max(r or 0.0, warn)
        return r

    graded = grade_each(rule, ctx.intervals, vols, value)
    if not graded:
        return None
    sev = max_severity(s for s, _ in graded.values())
    assert sev is not None
    rows = _volume_rows(ctx, graded, [("ssch_rate", "exposure"), ("serv_ms", "device"), ("resp_ms", "device"),
                                      ("queued", "device"), ("busy_pct", "device"), ("mload", "exposure")])  # fmt: skip
    for r in rows:
        r["resp_serv"] = None if r["resp_ms"] is None or not r["serv_ms"] else r["resp_ms"] / r["serv_ms"]
    held = all_intervals_union(*(held_intervals(ctx.intervals, f) for _, f in graded.values()))
    flagged = list(graded)
    resp = _io_weighted(held, flagged, "resp_ms")
    serv = _io_weighted(held, flagged, "serv_ms")
    q = mean_over(held, lambda iv: wmean((dev_fig(iv, d, "queued"), 1.0) for d in flagged))
    busy = mean_over(held, lambda iv: wmean((dev_fig(iv, d, "busy_pct"), 1.0) for d in flagged))
    ratio = None if resp is None or not serv else resp / serv
    return Finding(
        rule.id, sev, "Paging I/Os queue on the paging volumes",
        [Evidence("CPOWNED", f"{len(flagged)} of {len(vols)} paging volumes: response {num(resp)} ms for "
                  f"{num(serv)} ms service ({num(ratio)} x), {num(q, 2)} requests waiting on average",
                  held, len(ctx.intervals), rows)],
        f"Paging I/Os waited in the volumes' queues about as long as or longer than they took to be served: "
        f"response {num(resp)} ms against {num(serv)} ms service on {plural(len(flagged), 'paging volume')}. "
        "Every page fault that goes to DASD waits the whole response time. "
        + (f"The volumes are only {num(busy, 0)}% busy, so requests arrive in bursts (page-outs are written "
           "in blocks to many volumes at once) and there are too few volumes to absorb them."
           if busy is not None and busy < 30 else
           f"The volumes are {num(busy, 0)}% busy: they are near their capacity."),
        "Add paging volumes (all of the same size, spread over control units and channels) so each carries "
        "fewer requests - halving the requests per volume roughly halves the wait - and use faster devices "
        "if the service time itself is long. Reducing the paging (more central storage, see "
        "storage-constrained) removes the cause.",
        order=20,
        subsumes=("paging-mload",),
    )


def check_paging_device_busy(ctx: Context, rule: Rule) -> Finding | None:
    vols = ctx.period.paging_devices()
    graded = grade_each(rule, ctx.intervals, vols, lambda iv, d: dev_fig(iv, d, "busy_pct"))
    if not graded:
        return None
    sev = max_severity(s for s, _ in graded.values())
    assert sev is not None
    rows = _volume_rows(ctx, graded, [("busy_pct", "device"), ("io_rate", "device"), ("serv_ms", "device"),
                                      ("resp_ms", "device"), ("queued", "device")])  # fmt: skip
    busy = wmean((r["busy_pct"], 1.0) for r in rows)
    held = all_intervals_union(*(held_intervals(ctx.intervals, f) for _, f in graded.values()))
    return Finding(
        rule.id, sev, "Paging volumes are busier than paging volumes should be",
        [Evidence("DEVICE", f"{len(graded)} of {len(vols)} paging volumes {num(busy, 0)}% busy on average "
                  f"(target at most {num(rule.level('warning'), 0)}%)", held, len(ctx.intervals), rows)],
        f"{plural(len(graded), 'paging volume')} {'was' if len(graded) == 1 else 'were'} {num(busy, 0)}% busy. "
        "Page faults are synchronous for the guest that takes them; a busy volume makes them wait for "
        "the I/O ahead of them, and above about 50% busy the waits exceed the service times.",
        "Spread paging over more volumes of the same size (the guideline is at most 20% busy each), on "
        "separate control units and channels, or reduce the paging with more central storage.",
        order=30,
    )


def check_paging_mload(ctx: Context, rule: Rule) -> Finding | None:
    vols = ctx.period.paging_devices()
    warn = rule.level("warning")

    def value(iv: Interval, d: int) -> float | None:
        ssch = exp_fig(iv, d, "ssch_rate")
        mload = exp_fig(iv, d, "mload")
        if ssch is None or ssch < rule["min_ssch_rate"] or mload is None:
            return None
        serv = dev_fig(iv, d, "serv_ms")
        if serv:
            return mload / serv
        return warn if warn is not None and mload >= rule["max_ms"] else 0.0

    graded = grade_each(rule, ctx.intervals, vols, value)
    if not graded:
        return None
    sev = max_severity(s for s, _ in graded.values())
    assert sev is not None
    rows = _volume_rows(ctx, graded, [("mload", "exposure"), ("serv_ms", "device"), ("resp_ms", "device"),
                                      ("ssch_rate", "exposure")])  # fmt: skip
    mload = wmean((r["mload"], 1.0) for r in rows)
    serv = wmean((r["serv_ms"], 1.0) for r in rows)
    held = all_intervals_union(*(held_intervals(ctx.intervals, f) for _, f in graded.values()))
    return Finding(
        rule.id, sev, "CP sees slow paging volumes (high MLOAD)",
        [Evidence("CPOWNED", f"{len(graded)} of {len(vols)} paging volumes: MLOAD {num(mload)} ms against "
                  f"{num(serv)} ms device service time", held, len(ctx.intervals), rows)],
        f"MLOAD, CP's running estimate of a paging volume's response, was {num(mload)} ms while the devices "
        f"served an I/O in {num(serv)} ms: paging requests spend most of their time waiting, and CP steers "
        "page-outs away from the slowest volumes, crowding the others.",
        "Add paging volumes or faster ones, and check the paging-queue and storage findings for the cause.",
        order=30,
    )


def _blocking(iv: Interval) -> float | None:
    pages = sschs = 0.0
    for m in iv.exposures.values():
        total, block = m.get("page_total"), m.get("block_size")
        if total and block:
            pages += total
            sschs += total / block
    if sschs:
        return pages / sschs
    rd, wr = iv.sys.get("page_read_block"), iv.sys.get("page_write_block")
    vals = [v for v in (rd, wr) if v is not None]
    return sum(vals) / len(vals) if vals else None


def check_paging_blocking(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals

    def value(iv: Interval) -> float | None:
        ssch = iv.sys.get("paging_ssch_rate")
        if ssch is None or ssch < rule["min_ssch_rate"]:
            return None
        return _blocking(iv)

    sev, flags = grade(rule, [value(iv) for iv in ivs], below=True)
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    block = mean_over(held, _blocking)
    rd = mean_over(held, lambda iv: iv.sys.get("page_read_block"))
    wr = mean_over(held, lambda iv: iv.sys.get("page_write_block"))
    used = mean_over(held, lambda iv: iv.sys.get("slots_used_pct"))
    rows = [{"interval_end": iv.end, "block": _blocking(iv), "page_read_block": iv.sys.get("page_read_block"),
             "page_write_block": iv.sys.get("page_write_block"), "paging_ssch_rate": iv.sys.get("paging_ssch_rate"),
             "slots_used_pct": iv.sys.get("slots_used_pct")} for iv in held]  # fmt: skip
    return Finding(
        rule.id, sev, "Few pages per paging I/O (low blocking factor)",
        [Evidence("STORAGE", f"{num(block)} pages per paging I/O ({num(rd)} per read, {num(wr)} per write); "
                  f"paging space {num(used, 0)}% used", held, len(ivs), rows)],
        f"Each paging I/O moved {num(block)} pages on average. z/VM writes pages in blocks to contiguous "
        "slots and reads a block back at once; with room in paging space it usually moves 10 or more pages "
        "per I/O. Small blocks mean more I/Os for the same paging, so the paging volumes work harder.",
        "Keep paging space well below 75% used (more or larger paging volumes of one size) so CP finds "
        "contiguous slots; if the guests' reference pattern is the cause (pages touched one at a time), "
        "reducing paging with more central storage helps most.",
        order=40,
    )


def check_paging_space(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    get = sysfig("slots_used_pct")
    sev, flags = grade(rule, [get(iv) for iv in ivs])
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    used = mean_over(held, get)
    total = mean_over(held, lambda iv: iv.sys.get("slots_total"))
    last = held[-1]
    vols = sorted(last.exposures.items(), key=lambda kv: -(kv[1].get("used_pct") or 0.0))
    rows = [{"addr": ctx.period.device(d).addr, "volser": ctx.period.device(d).volser, "used_pct": m.get("used_pct"),
             "page_slots": m.get("page_slots"), "block_size": m.get("block_size")} for d, m in vols[:15]]  # fmt: skip
    return Finding(
        rule.id, sev, "Paging space is too full",
        [Evidence("CPOWNED", f"{num(used, 0)}% of {num(total, 0)} page slots in use", held, len(ivs), rows)],
        f"{num(used, 0)}% of the page slots were in use. Above about 75% CP finds fewer contiguous free "
        "slots, so blocks get smaller and paging needs more I/Os; when the space runs out, guests stop "
        "(and z/VM can abend).",
        "Add paging volumes (of the size the others have) so that paging space stays below 75% used at "
        "peak; plan for about twice the space the guests need.",
        order=20,
    )


def check_xstor_vs_dasd(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals

    def cond(iv: Interval) -> bool | None:
        total, used = iv.sys.get("xstor_total"), iv.sys.get("xstor_used_pct")
        if not total or used is None:
            return None
        dasd = iv.sys.get("read_write_rate")
        xs = iv.sys.get("page_rate")
        if dasd is None or xs is None:
            return None
        return bool(used >= rule["full_pct"] and dasd >= rule["min_dasd_rate"] and dasd > xs)

    flags = [cond(iv) for iv in ivs]
    if not rule.persist.satisfied(flags):
        return None
    held = held_intervals(ivs, flags)
    dasd = mean_over(held, lambda iv: iv.sys.get("read_write_rate"))
    xs = mean_over(held, lambda iv: iv.sys.get("page_rate"))
    used = mean_over(held, lambda iv: iv.sys.get("xstor_used_pct"))
    rows = [{k: (iv.end if k == "interval_end" else iv.sys.get(k)) for k in
             ("interval_end", "pgin_rate", "pgout_rate", "migrate_rate", "read_write_rate", "xstor_used_pct")} for iv in held]  # fmt: skip
    return Finding(
        rule.id, "warning", "More paging goes to DASD than to XSTOR, and XSTOR is full",
        [Evidence("PAGELOG", f"DASD {num(dasd, 0)} pages/s against XSTOR (PGIN+PGOUT) {num(xs, 0)} pages/s; XSTOR "
                  f"{num(used, 0)}% used", held, len(ivs), rows)],
        f"Expanded storage is full ({num(used, 0)}% used) and more pages move to and from paging DASD "
        f"({num(dasd, 0)}/s) than to and from XSTOR ({num(xs, 0)}/s): the pages that are paged out and back in "
        "no longer fit in XSTOR, so page faults wait for DASD I/O instead of a fast storage move.",
        "Add central storage (on z/VM 6.3 and later, where XSTOR is gone, that is the only way) or, on older "
        "levels, expanded storage, sized so that the paging mostly stays in storage.",
        order=30,
    )


def check_paging_volume_mix(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    sizes: dict[int, float] = {}
    used: dict[int, float] = {}
    for d in ctx.period.paging_devices():
        s = mean_over(ivs, lambda iv, d=d: exp_fig(iv, d, "page_slots"))  # type: ignore[misc]
        if s:
            sizes[d] = s
            used_pct = mean_over(ivs, lambda iv, d=d: exp_fig(iv, d, "used_pct"))  # type: ignore[misc]
            if used_pct is not None:
                used[d] = used_pct
    if len(sizes) < 2:
        return None
    small, large = min(sizes.values()), max(sizes.values())
    if large < rule["size_ratio"] * small:
        return None
    groups: dict[float, list[int]] = {}
    for d, s in sizes.items():
        groups.setdefault(round(s), []).append(d)
    rows: list[dict[str, Any]] = []
    for size in sorted(groups):
        ds = sorted(groups[size])
        u = [used[d] for d in ds if d in used]
        rows.append({"page_slots": size, "volumes": len(ds), "used_pct": sum(u) / len(u) if u else None,
                     "first": ctx.period.device(ds[0]).label, "last": ctx.period.device(ds[-1]).label})  # fmt: skip
    small_used = fnum(rows[0]["used_pct"])
    large_used = fnum(rows[-1]["used_pct"])
    crowded = small_used is not None and small_used >= rule["full_pct"] and (large_used or 0.0) < rule["full_pct"]
    n_large = int(rows[-1]["volumes"])
    return Finding(
        rule.id, "warning" if crowded else "info", "Paging volumes of different sizes",
        [Evidence("CPOWNED", f"{len(sizes)} paging volumes in {len(rows)} sizes from {num(small, 0)} to {num(large, 0)} "
                  f"slots; the smallest {num(small_used, 0)}% used, the largest {num(large_used, 0)}% used", rows=rows)],
        f"The paging volumes are not all the same size ({num(small, 0)} to {num(large, 0)} page slots). CP "
        "spreads page-outs over the volumes with free space; when the smaller volumes fill up, all page-outs "
        f"crowd onto the {plural(int(n_large), 'larger volume')}, each of which does one I/O at a time."
        + (f" That is happening: the smaller volumes are {num(small_used, 0)}% used." if crowded else ""),
        "Use paging volumes of one size: replace the odd-sized ones (or add enough volumes of the common "
        "size) so that paging I/O spreads evenly.",
        order=35,
    )


def check_paging_crowding(ctx: Context, rule: Rule) -> Finding | None:
    """Page-outs crowding onto the few paging volumes with free space: the
    volumes at most ``full_pct`` % used are no more than ``max_share`` of the
    paging volumes, yet each takes at least ``ratio`` times the page writes of
    a fuller one (CPOWNED page writes and used %, over the period)."""
    ivs = ctx.intervals
    used: dict[int, float] = {}
    writes: dict[int, float] = {}
    for d in ctx.period.paging_devices():
        u = mean_over(ivs, lambda iv, d=d: exp_fig(iv, d, "used_pct"))  # type: ignore[misc]
        w = mean_over(ivs, lambda iv, d=d: exp_fig(iv, d, "page_writes"))  # type: ignore[misc]
        if u is not None and w is not None:
            used[d], writes[d] = u, w
    roomy = [d for d in used if used[d] <= rule["full_pct"]]
    full = [d for d in used if used[d] > rule["full_pct"]]
    if not roomy or not full or len(roomy) > rule["max_share"] / 100.0 * len(used):
        return None
    w_roomy = sum(writes[d] for d in roomy) / len(roomy)
    w_full = sum(writes[d] for d in full) / len(full)
    total = w_roomy * len(roomy) + w_full * len(full)
    if total < rule["min_page_writes"] or w_roomy < rule["ratio"] * max(w_full, 1e-9):
        return None
    share = 100.0 * w_roomy * len(roomy) / total
    rows = [
        {"addr": ctx.period.device(d).label, "used_pct": used[d], "page_writes": writes[d],
         "block_size": mean_over(ivs, lambda iv, d=d: exp_fig(iv, d, "block_write"))}  # type: ignore[misc]
        for d in sorted(roomy, key=lambda d: -writes[d]) + sorted(full, key=lambda d: -writes[d])[:5]
    ]  # fmt: skip
    sev = "critical" if share >= rule["critical_share"] else "warning"
    return Finding(
        rule.id, sev, "Page-outs crowd onto the few paging volumes with free space",
        [Evidence("CPOWNED", f"{plural(len(roomy), 'volume')} at most {num(rule['full_pct'], 0)}% used take "
                  f"{num(w_roomy)} page writes/s each, the {len(full)} fuller ones {num(w_full)}: {num(share, 0)}% "
                  "of the page-outs", rows=rows)],
        f"{len(full)} of the {len(used)} paging volumes are more than {num(rule['full_pct'], 0)}% used, so CP finds "
        f"few runs of free slots on them and writes most page-outs to the {plural(len(roomy), 'volume')} with free "
        "space, each of which does one I/O at a time; the fuller volumes get only short blocks.",
        "Add paging volumes (of one size, many small ones rather than a few large ones) so that free space "
        "is spread over many volumes, or free space on the full ones.",
        order=35,
    )


#: Device types CP reports for FBA volumes, SCSI EDEVs among them (9336).
FBA_TYPES = ("9336", "FBA")


def check_paging_edev_cpu(ctx: Context, rule: Rule) -> Finding | None:
    """Paging to EDEVs (SCSI LUNs emulated as FBA) costs CP time: at least
    ``min_share`` % of the paging volumes' pages move on FBA volumes, and
    CP time per page moved (CPU busy x (1 - 1/T/V) over DASD pages read and
    written, SYSSUMLG) reaches ``warning`` / ``critical`` microseconds."""
    ivs = ctx.intervals
    fba: list[int] = []
    pages: dict[int, float] = {}
    for d in ctx.period.paging_devices():
        p = mean_over(ivs, lambda iv, d=d: exp_fig(iv, d, "page_total"))  # type: ignore[misc]
        pages[d] = p or 0.0
        if (ctx.period.device(d).dvid or "") in FBA_TYPES:
            fba.append(d)
    total = sum(pages.values())
    if not fba or total < rule["min_page_rate"]:
        return None
    share = 100.0 * sum(pages[d] for d in fba) / total
    if share < rule["min_share"]:
        return None

    def cp_us(iv: Interval) -> float | None:
        busy, tv, n = iv.sys.get("cpu_busy_pct"), iv.sys.get("tv_ratio"), iv.sys.get("cpus_online")
        moved = iv.sys.get("read_write_rate")
        if busy is None or not tv or not n or not moved:
            return None
        return float(busy) / 100.0 * float(n) * (1.0 - 1.0 / float(tv)) * 1e6 / float(moved)

    us = mean_over(ivs, cp_us)
    warn, crit = rule.level("warning"), rule.level("critical")
    if us is None or warn is None or us < warn:
        return None
    sev = "critical" if crit is not None and us >= crit else "warning"
    moved = mean_over(ivs, lambda iv: iv.sys.get("read_write_rate"))
    rows = [{"addr": ctx.period.device(d).label, "type": ctx.period.device(d).dvid, "pages": pages[d]} for d in sorted(fba)]
    return Finding(
        rule.id, sev, "Paging to EDEVs (SCSI disks) costs CP much processor time per page",
        [Evidence("CPOWNED", f"{plural(len(fba), 'FBA paging volume')} ({', '.join(sorted({str(r['type']) for r in rows}))}) "
                  f"move {num(share, 0)}% of the {num(total, 0)} pages/s", rows=rows),
         Evidence("SYSSUMLG", f"CP time about {num(us)} us per page moved ({num(moved, 0)} DASD pages/s)")],
        f"CP spent about {num(us)} microseconds of processor time for each page it read from or wrote to DASD, "
        "and most paging goes to FBA volumes: SCSI LUNs behind FCP channels (EDEVs). CP reaches them through "
        "its SCSI layer (and before z/VM 5.3 through the FBA emulation too), a much longer path than an ECKD "
        "channel program, so each page moved costs more CP time than on ECKD paging volumes.",
        "Page to ECKD volumes where processor time matters; on EDEVs run z/VM 5.3 or later (paging calls the "
        "SCSI layer directly, about a quarter less CP time per page) and reduce paging (more central storage).",
        order=36,
    )
