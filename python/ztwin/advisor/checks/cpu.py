"""CPU checks: system and LPAR busy, users waiting for a processor, T/V,
capture ratio (SYSSUMLG, LPAR, USTAT)."""

from __future__ import annotations

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
