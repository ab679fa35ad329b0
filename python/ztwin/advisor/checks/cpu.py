"""CPU checks: system and LPAR busy, users waiting for a processor, T/V,
capture ratio (SYSSUMLG, LPAR, USTAT)."""

from __future__ import annotations

import math
from typing import Any

from ztwin.advisor.checks.common import (
    Context,
    active_share,
    grade,
    held_intervals,
    lparfig,
    mean_over,
    names,
    num,
    peak,
    plural,
)
from ztwin.advisor.facts import Interval
from ztwin.advisor.tables import sum_over
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import Rule


def _sys(key: str) -> Any:
    def get(iv: Interval) -> float | None:
        v = iv.sys.get(key)
        return None if v is None else float(v)

    return get


def _rows(ivs: list[Interval], keys: list[str], sort_key: str | None = None, below: bool = False) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [{"interval_end": iv.end, **{k: iv.sys.get(k) for k in keys}} for iv in ivs]
    if sort_key is not None:
        sign = 1.0 if below else -1.0
        rows.sort(key=lambda r: (r.get(sort_key) is None, float(r.get(sort_key) or 0.0) * sign))
    return rows


def _top_users(ivs: list[Interval], count: str, n: int = 5, min_pct: float = 0.0) -> list[dict[str, Any]]:
    """Users by the share of their active samples in state ``count``, over ``ivs``."""
    keys = tuple(dict.fromkeys(("hf_total", "hf_queue", "hf_run", count)))  # count may be hf_run
    sums = sum_over(((iv.users, iv.seconds) for iv in ivs), keys)
    rows: list[dict[str, Any]] = []
    for u, s in sums.items():
        if not s.get("hf_queue"):
            continue
        share = 100.0 * s.get(count, 0.0) / s["hf_queue"]
        if share < min_pct or share <= 0:
            continue
        tot = s.get("hf_total") or s["hf_queue"]
        rows.append({
            "userid": u,
            "act_pct": 100.0 * s["hf_queue"] / tot,
            "run_pct": 100.0 * s.get("hf_run", 0.0) / tot,
            count.replace("hf_", "") + "_pct": 100.0 * s.get(count, 0.0) / tot,
            count.replace("hf_", "") + "_active_pct": share,
        })  # fmt: skip
    rows.sort(key=lambda r: -float(r[count.replace("hf_", "") + "_active_pct"]))
    return rows[:n] if n else rows


def check_cpu_busy(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    sev, flags = grade(rule, [_sys("cpu_busy_pct")(iv) for iv in ivs])
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    mean = mean_over(held, _sys("cpu_busy_pct"))
    pk_iv, pk = peak(held, _sys("cpu_busy_pct"))
    n = ctx.period.processors or (round(held[0].sys.get("cpus_online", 0)) if held else 0)
    users = _top_users(held, "hf_run", 5)
    ev = [
        Evidence(
            "SYSSUMLG",
            f"processors {num(mean)}% busy on average, peak {num(pk)}%"
            + (f" at {pk_iv.end:%H:%M:%S}" if pk_iv else ""),
            held, len(ivs), _rows(held, ["cpu_busy_pct", "cpus_online", "users_active", "tv_ratio"], "cpu_busy_pct"),
        )
    ]
    if users:
        ev.append(Evidence("USTAT", "users most often found running: " + names([str(r["userid"]) for r in users]), rows=users))
    return Finding(
        rule.id, sev, "The processors are nearly always busy",
        ev,
        f"z/VM's {plural(int(n), 'processor') if n else 'processors'} were {num(mean)}% busy on average in "
        f"{plural(len(held), 'interval')} (threshold {num(rule.level(sev))}%). With so little idle time "
        "work queues for the processors and peaks cannot be absorbed; dispatching delays show up as "
        "users waiting for CPU.",
        "Find who uses the processor time (the users above, and the CP share from T/V). If the demand "
        "is expected, add a processor (IFL) to the partition or move work elsewhere; otherwise lower "
        "the SHARE of the less important guests so the important ones are dispatched first.",
    )


def _others_can_starve_zvm(iv: Interval, others_min: float) -> bool:
    """Whether other partitions take enough of the physical processors to
    matter to z/VM: not when z/VM is the only partition or its processors are
    dedicated (PR/SM gives them to no one else), nor when the others' load is
    below ``others_min`` % (the load is z/VM's own: cpu-busy's business).
    Without the figures (older data) it cannot be ruled out."""
    lp = iv.lpar
    if lp.get("partitions") == 1 or lp.get("dedicated") is True:
        return False
    others = lp.get("others_load_pct")
    return others is None or float(others) >= others_min


def check_lpar_busy(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    get = lparfig("physical_load_pct")
    others_min = float(rule["others_min"])
    sev, flags = grade(
        rule, [get(iv) if _others_can_starve_zvm(iv, others_min) else (None if get(iv) is None else 0.0) for iv in ivs]
    )
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    mean = mean_over(held, get)
    susp = mean_over(held, lambda iv: iv.lpar.get("suspended_pct"))
    zvm = mean_over(held, _sys("cpu_busy_pct"))
    others = mean_over(held, lambda iv: iv.lpar.get("others_load_pct"))
    phys = next((iv.lpar.get("physical_cpus") for iv in held if iv.lpar.get("physical_cpus")), None)
    rows = [
        {"interval_end": iv.end, "physical_load_pct": iv.lpar.get("physical_load_pct"),
         "suspended_pct": iv.lpar.get("suspended_pct"), "cpu_busy_pct": iv.sys.get("cpu_busy_pct")}
        for iv in held
    ]  # fmt: skip
    return Finding(
        rule.id, sev, "The machine's physical processors are saturated by all partitions together",
        [Evidence("LPAR", f"overall physical load {num(mean)}% of {phys or '?'} physical processors"
                  + (f", {num(others)}% by the other partitions" if others is not None else "")
                  + f"; z/VM's own processors {num(zvm)}% busy, suspended {num(susp)}% of the time",
                  held, len(ivs), rows)],
        f"All partitions together kept the {phys or '?'} physical processors {num(mean)}% busy. z/VM's "
        f"partition can then count only on the share its weight gives it; its logical processors wait "
        f"for PR/SM ({num(susp)}% suspended), and services that need processor cycles on both sides, "
        "such as HiperSockets transfers, slow down although z/VM itself looks unconstrained.",
        "Compare the partitions' weights and numbers of logical processors (LPAR report) with the "
        "physical processors; add physical processors of the saturated type, or reduce the other "
        "partitions' demand or logical processor counts so that z/VM gets the cycles it needs.",
    )


def _pool(iv: Interval, t: str) -> dict[str, Any]:
    pools = iv.lpar.get("pools") or {}
    return dict(pools.get(t) or {})


def _hipersockets(ctx: Context) -> list[dict[str, Any]]:
    """The guests' HiperSockets devices (MRIODQDS, QDIO format 2) active in
    the period, with their SIGA-w rate over it: read from the file only (a
    history database has no QDIO records)."""
    import warnings
    from pathlib import Path

    from ztwin.advisor.checks.segments import _local

    path, start, end = ctx.period.path, ctx.period.start, ctx.period.end
    if not path or start is None or end is None or not Path(path).is_file():
        return []
    from ztwin.monitor import DamageWarning, arrow_tables

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamageWarning)
        qds = arrow_tables(path, ["MRIODQDS"]).get("MRIODQDS")
    seen: dict[int, list[Any]] = {}
    for r in qds.to_pylist() if qds is not None else []:
        t = _local(ctx, r.get("tod"))
        if t is None or not start < t <= end or int(r.get("IODQDS_QDIOFMT") or 0) != 2:
            continue
        dev = int(r.get("IODQDS_RDEVDEV") or 0)
        w = float(r.get("IODQDS_QDIOCSGW") or 0)
        first = seen.setdefault(dev, [t, w, t, w, r])
        first[2], first[3], first[4] = t, w, r
    rows = []
    for dev, (t0, w0, t1, w1, r) in sorted(seen.items()):
        secs = (t1 - t0).total_seconds()
        rows.append({"device": f"{dev:04X}", "owner": str(r.get("IODQDS_VMDUSER") or "").strip(),
                     "chpid": f"{int(r.get('IODQDS_CHPID') or 0):02X}",
                     "siga_w_rate": (w1 - w0) / secs if secs > 0 else None})  # fmt: skip
    return rows


def check_lpar_pool_busy(ctx: Context, rule: Rule) -> Finding | None:
    """A shared pool of one processor type kept full by the partitions on it,
    in a CEC of several types (lpar-busy judges a one-type CEC). The records
    before z/VM 6.3 count the physical processors of all types together, so a
    type's pool is inferred from its usage: a pool of P processors that the
    partitions keep full shows as a flat top at P engines (dispatch plus LPAR
    management time), in interval after interval, with more logical
    processors than P asking. The pool P is the whole number at or just above
    the window's highest usage; the type is judged only when that top is
    within ``flat_tol`` of P, and, when z/VM's own processors are of that
    type, only if PR/SM suspended them at least ``suspended_min`` % of the
    time (a steady load of z/VM's own near a whole number is not a full
    pool). The figure is the type's usage in % of P."""
    ivs = ctx.intervals
    types = sorted({t for iv in ivs for t in (iv.lpar.get("pools") or {})})
    if len(types) < 2:
        return None
    flat = float(rule["flat_tol"])
    susp_min = float(rule["suspended_min"])
    best: tuple[int, float, str, int, list[bool | None], str] | None = None
    for t in types:
        used = [_pool(iv, t).get("engines") for iv in ivs]
        good = [float(v) for v in used if v is not None]
        if not good:
            continue
        top = max(good)
        pool = max(1, math.ceil(top - 1e-6))
        lcpus = max(int(_pool(iv, t).get("lcpus") or 0) for iv in ivs)
        if top < pool * (1.0 - flat) or lcpus <= pool:
            continue
        values: list[float | None] = [None if v is None else 100.0 * float(v) / pool for v in used]
        if any(iv.lpar.get("own_type") == t for iv in ivs):
            values = [
                v if v is None or (iv.lpar.get("suspended_pct") or 0.0) >= susp_min else 0.0
                for v, iv in zip(values, ivs, strict=True)
            ]
        sev, flags = grade(rule, values)
        if sev is None:
            continue
        rank = 2 if sev == "critical" else 1
        if best is None or rank > best[0]:
            best = (rank, top, t, pool, flags, sev)
    if best is None:
        return None
    _, top, t, pool, flags, sev = best
    held = held_intervals(ivs, flags)
    mean = mean_over(held, lambda iv: _pool(iv, t).get("engines"))
    lcpus = max(int(_pool(iv, t).get("lcpus") or 0) for iv in held)
    parts = sorted({p for iv in held for p in _pool(iv, t).get("partitions", [])})
    own_type = next((iv.lpar.get("own_type") for iv in held if iv.lpar.get("own_type")), None)
    zvm = mean_over(held, _sys("cpu_busy_pct"))
    susp = mean_over(held, lambda iv: iv.lpar.get("suspended_pct"))
    rows = [
        {"interval_end": iv.end, "type": t, "engines": _pool(iv, t).get("engines"),
         "pool_pct": None if _pool(iv, t).get("engines") is None else 100.0 * float(_pool(iv, t)["engines"]) / pool,
         "cpu_busy_pct": iv.sys.get("cpu_busy_pct"), "suspended_pct": iv.lpar.get("suspended_pct")}
        for iv in held
    ]  # fmt: skip
    mine = own_type == t
    hs = _hipersockets(ctx)
    zvm_line = (
        f"z/VM's partition runs on {own_type or '?'}: its processors {num(zvm)}% busy, suspended {num(susp)}% "
        "of the time" + ("" if mine else " (its own busy does not show the full pool)")
    )
    return Finding(
        rule.id, sev, f"The CEC's shared {t} processors are kept full by the partitions on them",
        [Evidence("LPAR", f"{t}: {lcpus} shared logical processors of {plural(len(parts), 'partition')} "
                  f"({names(parts)}) used {num(mean)} engines, at most {num(top)}: a full pool of {pool} "
                  f"physical {t}s (inferred from the flat top; the records count the physical processors "
                  "of all types together)", held, len(ivs), rows),
         Evidence("CPU", zvm_line, held, len(ivs), []),
         *([Evidence("QDIO", f"{plural(len(hs), 'HiperSockets device')} of z/VM's guests active "
                    f"({', '.join(sorted({r['owner'] for r in hs}))}; CHPID "
                    f"{', '.join(sorted({r['chpid'] for r in hs}))}): each send is a synchronous copy that waits "
                    "for the receiving partition's processor", held, len(ivs), hs)] if hs else [])],
        f"In {len(held)} of {len(ivs)} intervals the partitions on the {t} pool used all its {pool} "
        f"processors ({lcpus} logical ones asking). A logical processor of that type then waits for PR/SM; "
        "work that needs cycles on both sides at once, such as HiperSockets transfers (the firmware copy "
        f"runs on the processors of sender and receiver), slows down with any partition on the {t} pool"
        + ("." if mine else f", while z/VM's own {own_type or ''} processors look unconstrained."),
        f"Add physical {t}s, or reduce the demand or the logical processors of the partitions on the {t} "
        "pool (their weights decide who waits); check those systems' own reports (RMF for z/OS) for the "
        "constraint's other effects.",
    )


def check_lpar_share(ctx: Context, rule: Rule) -> Finding | None:
    """z/VM's logical processors far above the physical share its weight
    gives it, judged only in intervals where PR/SM holds it back (its logical
    processors suspended at least ``suspended_min`` % of the time): then the
    logical processors beyond the share mostly wait for a physical one."""
    ivs = ctx.intervals
    susp_min = float(rule["suspended_min"])
    get = lparfig("logical_over_share")

    def value(iv: Interval) -> float | None:
        v, susp = get(iv), iv.lpar.get("suspended_pct")
        if v is None or susp is None:
            return None
        return v if float(susp) >= susp_min else 0.0

    sev, flags = grade(rule, [value(iv) for iv in ivs])
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    n = next((iv.lpar.get("own_logical_cpus") for iv in held), None)
    share = mean_over(held, lparfig("own_share_engines"))
    got = mean_over(held, lparfig("own_engines"))
    susp = mean_over(held, lambda iv: iv.lpar.get("suspended_pct"))
    ratio_ = mean_over(held, get)
    rows = [
        {"interval_end": iv.end, "logical_over_share": iv.lpar.get("logical_over_share"),
         "own_engines": iv.lpar.get("own_engines"), "suspended_pct": iv.lpar.get("suspended_pct")}
        for iv in held
    ]  # fmt: skip
    return Finding(
        rule.id, sev, "z/VM's logical processors far exceed the physical share its weight gives it",
        [Evidence("LPAR", f"{n} logical processors on a weight share of {num(share)} physical ones "
                  f"({num(ratio_)} times); the partition got {num(got)} engines, its logical processors "
                  f"suspended {num(susp)}% of the time", held, len(ivs), rows)],
        f"The partition's weight entitles it to {num(share)} physical processors when the others want "
        f"theirs, and it has {n} logical processors. PR/SM spreads the share over all of them, so each "
        f"runs a fraction of the time ({num(susp)}% suspended): z/VM's work waits while z/VM's own "
        "busy figures look low.",
        "Raise the partition's weight if z/VM should get more of the machine, or reduce its logical "
        "processors towards the share (or let HiperDispatch's vertical polarisation concentrate the "
        "share on fewer of them); compare the weights and logical processors of all partitions in the "
        "LPAR and LPARLOG reports.",
    )


def check_lpar_cap(ctx: Context, rule: Rule) -> Finding | None:
    """z/VM's partition held at a cap: its logical processors suspended by
    PR/SM (they had work: CP was not in its wait state) while the shared pool
    of its processor type had at least ``idle_min`` engines nobody used.
    PR/SM gives an uncapped partition what the others leave, so only a cap
    (initial capping, an absolute cap or a group cap) keeps it from idle
    capacity. Judged in one-type CECs (the pool's size is known there)."""
    ivs = ctx.intervals
    idle_min = float(rule["idle_min"])

    def value(iv: Interval) -> float | None:
        susp, idle = iv.lpar.get("suspended_pct"), iv.lpar.get("pool_idle_engines")
        if susp is None or idle is None or iv.lpar.get("dedicated") is True:
            return None
        return float(susp) if float(idle) >= idle_min else 0.0

    sev, flags = grade(rule, [value(iv) for iv in ivs])
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    susp = mean_over(held, lambda iv: iv.lpar.get("suspended_pct"))
    idle = mean_over(held, lambda iv: iv.lpar.get("pool_idle_engines"))
    got = [float(v) for iv in held if (v := iv.lpar.get("own_engines")) is not None]
    n = next((iv.lpar.get("own_logical_cpus") for iv in held if iv.lpar.get("own_logical_cpus")), None)
    t = next((iv.lpar.get("own_type") for iv in held if iv.lpar.get("own_type")), None) or "?"
    waiting = mean_over(held, lambda iv: active_share(iv, "hf_cpu"))
    rows = [
        {"interval_end": iv.end, "suspended_pct": iv.lpar.get("suspended_pct"),
         "pool_idle_engines": iv.lpar.get("pool_idle_engines"), "own_engines": iv.lpar.get("own_engines"),
         "cpu_busy_pct": iv.sys.get("cpu_busy_pct")}
        for iv in held
    ]  # fmt: skip
    used = f"{num(min(got))} to {num(max(got))} engines" if got else "? engines"
    ev = [
        Evidence("LPAR", f"z/VM's {n or '?'} logical {t} processors suspended {num(susp)}% of the time while "
                 f"{num(idle)} engines of the {t} pool went unused; the partition got {used}",
                 held, len(ivs), rows),
    ]
    if waiting is not None:
        ev.append(Evidence("USTAT", f"active users waiting for a processor in {num(waiting)}% of their samples"))
    return Finding(
        rule.id, sev, "z/VM's partition is held at a cap while the machine has idle processors",
        ev,
        f"PR/SM kept z/VM's logical processors from running {num(susp)}% of the time although "
        f"{num(idle)} engines of the shared {t} pool were idle. Without a cap PR/SM gives a partition "
        f"what the others leave unused, so the partition is capped (initial capping, an absolute cap "
        f"or a capacity group; the monitor records do not say which): it used {used}, and its work "
        "waits for the cap, not for the machine.",
        "Check the partition's capping on the HMC (image profile: initial capping, absolute capping, "
        "group profile): raise or remove the cap if z/VM should use the idle capacity, or accept the "
        "cap as the intended limit and reduce the demand; the LPAR report shows the partition's "
        "engines against the pool.",
    )


def check_cpu_wait(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    values = [active_share(iv, "hf_cpu") for iv in ivs]

    def shortage(iv: Interval) -> bool:
        busy = iv.sys.get("cpu_busy_pct")
        susp = iv.lpar.get("suspended_pct")
        return (busy is not None and busy >= rule["busy_min"]) or (susp is not None and susp >= rule["suspended_min"])

    corroborated = [v if v is not None and shortage(iv) else (None if v is None else 0.0) for v, iv in zip(values, ivs, strict=True)]
    sev, flags = grade(rule, corroborated)
    latency = False
    if sev is None:
        sev, flags = grade(rule, values)
        if sev is None:
            return None
        sev, latency = "info", True
    held = held_intervals(ivs, flags)
    share = mean_over(held, lambda iv: active_share(iv, "hf_cpu"))
    busy = mean_over(held, _sys("cpu_busy_pct"))
    susp = mean_over(held, lambda iv: iv.lpar.get("suspended_pct"))
    users = _top_users(held, "hf_cpu", 8)
    rows = [{"interval_end": iv.end, "cpu_wait_active_pct": active_share(iv, "hf_cpu"),
             "cpu_busy_pct": iv.sys.get("cpu_busy_pct"), "suspended_pct": iv.lpar.get("suspended_pct")} for iv in held]  # fmt: skip
    ev = [
        Evidence("USTAT", f"active users waiting for a processor in {num(share)}% of their samples; "
                 f"processors {num(busy)}% busy", held, len(ivs), rows),
    ]
    if users:
        ev.append(Evidence("USTAT", "users most often waiting: " + names([str(r["userid"]) for r in users]), rows=users))
    if latency:
        return Finding(
            rule.id, sev, "Users wait for a processor although the processors have idle time",
            ev,
            f"The active users were found waiting for a processor in {num(share)}% of their samples, but "
            f"the processors were only {num(busy)}% busy"
            + (f" and z/VM's logical processors were suspended {num(susp)}% of the time" if susp is not None else "")
            + ". That is the delay of bursts that arrive together (dispatch latency), not a shortage of "
            "processor capacity.",
            "Nothing to add for capacity. If response times matter, check the guests' SHARE settings "
            "and virtual processor counts, and whether some guests run in bursts that collide.",
        )
    return Finding(
        rule.id, sev, "Users wait for a processor: the processors are a bottleneck",
        ev,
        f"The active users were found waiting for a processor in {num(share)}% of their samples while "
        f"the processors were {num(busy)}% busy"
        + (f" (logical processors suspended {num(susp)}% of the time)" if susp is not None else "")
        + ". Work is ready to run but no processor is free, so every transaction takes longer.",
        "Add processor capacity (another IFL for the partition, or a higher LPAR weight if PR/SM holds "
        "z/VM back), reduce the demand of the heaviest users, or give the important guests a larger "
        "SHARE so they are dispatched first.",
    )


def check_tv_ratio(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    sev, flags = grade(rule, [_sys("tv_ratio")(iv) for iv in ivs])
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    tv = mean_over(held, _sys("tv_ratio"))
    pk_iv, pk = peak(held, _sys("tv_ratio"))
    paging = mean_over(held, lambda iv: (iv.sys.get("page_rate") or 0.0) + (iv.sys.get("read_write_rate") or 0.0))
    ssch = mean_over(held, _sys("ssch_rate"))
    rows = _rows(held, ["tv_ratio", "cpu_busy_pct", "page_rate", "read_write_rate", "ssch_rate"], "tv_ratio")
    return Finding(
        rule.id, sev, "CP uses much processor time on the guests' behalf (high T/V ratio)",
        [Evidence("SYSSUMLG", f"T/V {num(tv, 2)} on average, peak {num(pk, 2)}"
                  + (f" at {pk_iv.end:%H:%M:%S}" if pk_iv else "") + f"; paging {num(paging, 0)} pages/s, "
                  f"{num(ssch, 0)} SSCH/s", held, len(ivs), rows)],
        f"T/V = (CP time + guest time) / guest time was {num(tv, 2)}: for every second the guests ran, "
        f"CP spent another {num(None if tv is None else tv - 1.0, 2)} seconds on their behalf "
        "(1.0 is perfect; a healthy system shows about 1.02). CP time grows with paging, I/O simulation, "
        "page stealing and instruction simulation.",
        f"Find what CP is doing for the guests: paging ({num(paging, 0)} pages/s here; see the paging and "
        f"storage findings), I/O ({num(ssch, 0)} SSCH/s), VDISK paging, or guests that simulate many "
        "instructions. Reducing paging (more central storage) is the usual cure.",
    )


def check_capture_ratio(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    sev, flags = grade(rule, [_sys("capture_ratio")(iv) for iv in ivs], below=True)
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    cr = mean_over(held, _sys("capture_ratio"))
    steal = mean_over(held, _sys("steal_rate"))
    rows = _rows(held, ["capture_ratio", "cpu_busy_pct", "tv_ratio", "steal_rate"], "capture_ratio", below=True)
    lost = None if cr is None else 100.0 * (1.0 - cr)
    return Finding(
        rule.id, sev, "Much processor time is not charged to any user (low capture ratio)",
        [Evidence("SYSSUMLG", f"capture ratio {num(cr, 3)} on average; {num(steal, 0)} frames stolen/s", held, len(ivs), rows)],
        f"Only {num(None if cr is None else cr * 100, 1)}% of the processor time z/VM used was charged to "
        f"users; {num(lost, 1)}% went to CP work that belongs to nobody (page stealing and storage "
        "management, scheduling, monitoring). A healthy system captures about 99%.",
        "Look at the system-wide CP work: page stealing and paging (STORAGE, PAGELOG), spin-lock time "
        "(CPU report), and the monitor's own settings; reducing storage overcommitment usually raises "
        "the capture ratio.",
    )
