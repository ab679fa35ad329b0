"""Storage checks: user page wait, the storage-constrained verdict, the
eligible list, empty free-frame lists, emergency scan (with the S4 caution),
user pages on DASD (USTAT, UPAGE, STORAGE, AVAILLOG, SYSSUMLG)."""

from __future__ import annotations

from typing import Any

from ztwin.advisor.checks.common import (
    Context,
    active_share,
    gb,
    grade,
    held_intervals,
    lower_first,
    mean_over,
    sysfig,
    names,
    num,
    peak,
    plural,
    user_active_share,
)
from ztwin.advisor.tables import as_table, sum_over
from ztwin.advisor.facts import Interval, Period
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import Rule


def _user_rows(
    ivs: list[Interval], min_active_pct: float, exclude: set[str] | frozenset[str] = frozenset(), n: int = 10
) -> list[dict[str, Any]]:
    """USTAT/UPAGE rows of users in page wait over ``ivs`` (counts summed)."""
    sums = sum_over(
        ((iv.users, iv.seconds) for iv in ivs), ("hf_total", "hf_queue", "hf_pgw"), exclude, rate_names=("page_reads",)
    )
    rows: list[dict[str, Any]] = []
    for u, s in sums.items():
        q = s.get("hf_queue", 0.0)
        if not q:
            continue
        share = 100.0 * s.get("hf_pgw", 0.0) / q
        if share < min_active_pct or share <= 0:
            continue
        tot = s.get("hf_total") or q
        rows.append({
            "userid": u, "act_pct": 100.0 * q / tot, "pgw_pct": 100.0 * s.get("hf_pgw", 0.0) / tot,
            "pgw_active_pct": share, "page_reads": s["page_reads_x_s"] / s["seconds"] if s["seconds"] else None,
        })  # fmt: skip
    rows.sort(key=lambda r: -float(r["pgw_active_pct"]))
    return rows[:n] if n else rows


def _dasd_pages(iv: Interval) -> float | None:
    return as_table(iv.users).total("dasd")


def _xstor_pages(iv: Interval) -> float | None:
    return as_table(iv.users).total("xstor")


def _central_pages(p: Period) -> float | None:
    return p.storage_bytes / 4096 if p.storage_bytes else None


def check_user_page_wait(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    exclude: set[str] = ctx.notes.get("serialized_users", set())
    values = [active_share(iv, "hf_pgw", exclude) for iv in ivs]
    sev, flags = grade(rule, values)
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    share = mean_over(held, lambda iv: active_share(iv, "hf_pgw", exclude))
    users = _user_rows(held, rule["user_min"], exclude)
    all_users = _user_rows(held, rule["user_min"], exclude, n=0)
    rows = [{"interval_end": iv.end, "pgw_active_pct": active_share(iv, "hf_pgw", exclude),
             "users_active": iv.sys.get("users_active")} for iv in held]  # fmt: skip
    worst = f" (most: {users[0]['userid']} {num(users[0]['pgw_active_pct'])}%)" if users else ""
    return Finding(
        rule.id, sev, "Users wait for pages to be brought in",
        [
            Evidence("USTATLOG", f"active users in page wait in {num(share)}% of their samples", held, len(ivs), rows),
            Evidence("USTAT", f"{plural(len(all_users), 'user')} in page wait in at least {num(rule['user_min'])}% of "
                     f"their active samples{worst}", rows=users),
        ],
        f"The active users were found waiting for CP to bring in a page in {num(share)}% of the samples "
        f"that found them active, in {plural(len(held), 'interval')}. A guest in page wait does nothing "
        "until the page arrives from "
        + ("XSTOR or paging DASD" if ctx.period.xstor_bytes else "paging DASD")
        + ", so its work is delayed by that share.",
        "Find out why their pages are not resident: if central storage is short (see "
        "storage-constrained, user pages on DASD) add storage or reduce the guests' virtual storage; "
        "if paging is slow (see the paging findings) add paging volumes.",
    )


def check_eligible_list(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    get = sysfig("users_in_elist")
    sev, flags = grade(rule, [get(iv) for iv in ivs])
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    mean = mean_over(held, get)
    pk_iv, pk = peak(held, get)
    rows = [{"interval_end": iv.end, "users_in_elist": get(iv), "users_active": iv.sys.get("users_active"),
             "cpu_busy_pct": iv.sys.get("cpu_busy_pct")} for iv in held]  # fmt: skip
    return Finding(
        rule.id, sev, "An eligible list forms: the scheduler holds users back",
        [Evidence("SYSSUMLG", f"{num(mean)} users on the eligible list on average, peak {num(pk)}"
                  + (f" at {pk_iv.end:%H:%M:%S}" if pk_iv else ""), held, len(ivs), rows)],
        f"On average {num(mean)} users were on the eligible list: ready to run, but not admitted to the "
        "dispatch list because the scheduler judged storage (or paging) to be overcommitted. Their work "
        "does not progress at all while they wait there.",
        "Relieve the storage shortage (see the storage findings); check SET SRM STORBUF and LDUBUF - for "
        "Linux guests common practice is STORBUF 300 250 200 - and give servers that must never wait "
        "there QUICKDSP.",
    )


def check_free_frames(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals

    def flag(iv: Interval) -> bool | None:
        le, fw = iv.sys.get("list_empty"), iv.sys.get("frame_waits")
        if le is None and fw is None:
            return None
        return (le or 0) > 0 or (fw or 0) > 0

    flags = [flag(iv) for iv in ivs]
    if not rule.persist.satisfied(flags):
        return None
    held = held_intervals(ivs, flags)
    waits = mean_over(held, lambda iv: iv.sys.get("frame_wait_rate"))
    sev = "critical" if waits is not None and waits >= rule["critical_wait_rate"] else "warning"
    rows = [{k: (iv.end if k == "interval_end" else iv.sys.get(k)) for k in
             ("interval_end", "avail_frames", "min_avail_frames", "avail_low", "list_empty", "frame_waits",
              "frame_wait_rate", "steal_rate")} for iv in held]  # fmt: skip
    return Finding(
        rule.id, sev, "The free-frame lists run empty",
        [Evidence("AVAILLOG", f"free-frame list empty or frame requests waiting in {plural(len(held), 'interval')}; "
                  f"{num(waits, 2)} frame waits/s", held, len(ivs), rows)],
        "CP found its available (free-frame) lists empty and made requests for frames wait "
        f"({num(waits, 2)} per second): page faults and other storage requests are delayed until page "
        "stealing has freed frames. Routinely empty lists are a sign that storage is overcommitted "
        "beyond what stealing can keep up with.",
        "Treat it as storage duress when the other signs agree (page wait, paging rates): add central "
        "storage or reduce the guests' storage footprint.",
    )


def check_dasd_resident(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    central = _central_pages(ctx.period)
    if not central:
        return None
    def get(iv: Interval) -> float | None:
        v = _dasd_pages(iv)
        return None if v is None or central is None else 100.0 * v / central

    sev, flags = grade(rule, [get(iv) for iv in ivs])
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    pages = mean_over(held, _dasd_pages)
    share = mean_over(held, get)
    last = held[-1]
    top = as_table(last.users).top("dasd", 8)
    rows = [{"userid": u, "dasd": m.get("dasd"), "xstor": m.get("xstor"), "resident": m.get("resident"),
             "wss": m.get("wss")} for u, m in top]  # fmt: skip
    return Finding(
        rule.id, sev, "Many user pages live on paging DASD",
        [Evidence("UPAGE", f"{gb(pages)} of user pages on DASD ({num(pages, 0)} pages), {num(share, 0)}% of "
                  f"{gb(central)} central storage", held, len(ivs), rows)],
        f"The users had {gb(pages)} of their pages on paging DASD, {num(share, 0)}% of central storage. "
        "On its own this is storage overcommitment working as designed (pages nobody uses belong on "
        "DASD); it costs performance only when users wait for those pages.",
        f"If central storage is added to reduce paging, about {gb(pages)} more would let these pages stay "
        "resident (the undersized-LPAR study sized its upgrade this way).",
    )


# Signs that corroborate storage-constrained (rule id, what it shows).
_SIGNS = [
    ("paging-device-queue", "paging volumes queue"),
    ("eligible-list", "an eligible list forms"),
    ("free-frames-empty", "free-frame lists run empty"),
    ("xstor-vs-dasd", "DASD paging exceeds XSTOR paging with XSTOR full"),
]


def check_storage_constrained(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals
    exclude: set[str] = ctx.notes.get("serialized_users", set())

    def page_in(iv: Interval) -> float:
        return float(iv.sys.get("pgin_rate") or 0.0) + float(iv.sys.get("dasd_read_rate") or 0.0)

    def users_waiting(iv: Interval) -> int:
        return len(as_table(iv.users).keys_with_share("hf_pgw", rule["user_min"], exclude))

    def cond(iv: Interval) -> bool | None:
        pw = active_share(iv, "hf_pgw", exclude)
        steal = iv.sys.get("steal_rate")
        if pw is None or steal is None:
            return None
        pin = page_in(iv)
        return bool(
            pw >= rule["page_wait"]
            and users_waiting(iv) >= rule["min_users"]
            and pin >= rule["min_page_in_rate"]
            and steal >= rule["steal_ratio"] * pin
        )

    flags = [cond(iv) for iv in ivs]
    if not rule.persist.satisfied(flags):
        return None
    held = held_intervals(ivs, flags)
    pw = mean_over(held, lambda iv: active_share(iv, "hf_pgw", exclude))
    n_users = round(mean_over(held, lambda iv: float(users_waiting(iv))) or 0)
    active = mean_over(held, lambda iv: iv.sys.get("users_active"))
    steal = mean_over(held, lambda iv: iv.sys.get("steal_rate"))
    pin = mean_over(held, page_in)
    pgin = mean_over(held, lambda iv: iv.sys.get("pgin_rate"))
    dread = mean_over(held, lambda iv: iv.sys.get("dasd_read_rate"))
    dwrite = mean_over(held, lambda iv: iv.sys.get("dasd_write_rate"))
    xs_used = mean_over(held, lambda iv: iv.sys.get("xstor_used_pct"))
    # XSTOR is mentioned only on a system that has it (configuration or figures).
    has_xstor = bool(ctx.period.xstor_bytes) or bool(xs_used)
    avail = mean_over(held, sysfig("avail_frames"))
    low = mean_over(held, sysfig("avail_low"))
    high = mean_over(held, sysfig("avail_high"))
    dasd_pages = mean_over(held, _dasd_pages)
    xstor_pages = mean_over(held, _xstor_pages)
    central = _central_pages(ctx.period)
    tv = mean_over(held, lambda iv: iv.sys.get("tv_ratio"))

    signs: list[tuple[str, str]] = []
    for rid, text in _SIGNS:
        f = ctx.fired(rid, "warning")
        if f is not None:
            signs.append((rid, text))
    tv_rule = ctx.rules["tv-ratio"] if "tv-ratio" in ctx.rules else None
    tv_warn = tv_rule.level("warning") if tv_rule is not None and tv_rule.enabled else None
    if tv is not None and tv_warn is not None and tv >= tv_warn:
        signs.append(("tv-ratio", f"T/V {num(tv, 2)}"))
    res_pct = None if dasd_pages is None or not central else 100.0 * dasd_pages / central
    if res_pct is not None and res_pct >= rule["dasd_resident_pct"]:
        signs.append(("dasd-resident-pages", f"user pages on DASD are {num(res_pct, 0)}% of central storage"))
    upw = ctx.rules["user-page-wait"] if "user-page-wait" in ctx.rules else None
    upw_crit = upw.level("critical") if upw is not None else None
    if pw is not None and upw_crit is not None and pw >= upw_crit:
        signs.append(("user-page-wait", f"page wait {num(pw)}%"))
    sev = "critical" if len(signs) >= rule["critical_signs"] else "warning"

    rows = [
        {"interval_end": iv.end, "pgw_active_pct": active_share(iv, "hf_pgw", exclude),
         "users_in_page_wait": users_waiting(iv), "steal_rate": iv.sys.get("steal_rate"),
         "pgin_rate": iv.sys.get("pgin_rate"), "pgout_rate": iv.sys.get("pgout_rate"),
         "dasd_read_rate": iv.sys.get("dasd_read_rate"), "dasd_write_rate": iv.sys.get("dasd_write_rate"),
         "avail_frames": iv.sys.get("avail_frames")}
        for iv in held
    ]  # fmt: skip
    users = _user_rows(held, rule["user_min"], exclude)
    ev = [
        Evidence("USTAT", f"{n_users} of {plural(round(active or 0), 'active user')} in page wait; {num(pw)}% of "
                 "the active users' samples", held, len(ivs), users),
        Evidence("STORAGE", f"{num(steal, 0)} frames stolen/s for {num(pin, 0)} pages brought in/s "
                 + (f"({num(pgin, 0)} from XSTOR, {num(dread, 0)} from DASD)" if has_xstor else f"(from DASD: {num(dread, 0)})")
                 + f"; {num(dwrite, 0)} pages written to DASD/s"
                 + (f"; XSTOR {num(xs_used, 0)}% used" if has_xstor and xs_used is not None else ""),
                 held, len(ivs), rows),
    ]
    if dasd_pages is not None:
        ev.append(Evidence("UPAGE", f"user pages on DASD {gb(dasd_pages)}"
                           + (f", in XSTOR {gb(xstor_pages)}" if has_xstor else "") + "; central "
                           f"storage {gb(central)}"))
    if signs:
        ev.append(Evidence("CHECKLIST", "corroborating: " + "; ".join(t for _, t in signs),
                           rows=[{"rule": rid, "sign": t} for rid, t in signs]))
    add = dasd_pages
    target = None if add is None or central is None else central + add
    rec = (
        f"Add central storage. The users keep {gb(dasd_pages)} of pages on DASD"
        + (f" and {gb(xstor_pages)} in XSTOR" if xstor_pages else "")
        + f" next to {gb(central)} of central storage; adding about {gb(add)} (to about {gb(target)}) would "
        "keep them resident - size it from the pages on DASD, as the undersized-LPAR study did. Until then, "
        "reduce the guests' virtual storage where they do not need it (Linux uses spare memory as cache) "
        "and make paging faster (more paging volumes, see the paging findings)."
    )
    return Finding(
        rule.id, sev, "Central storage is too small for the active guests",
        ev,
        f"In {plural(len(held), 'interval')} {plural(n_users, 'active user')} waited for pages in {num(pw)}% of their "
        f"active samples while CP stole {num(steal, 0)} frames per second to bring in {num(pin, 0)} pages per "
        "second: pages are pushed out to make room for others and then faulted back in, so the guests' "
        "working sets do not fit in central storage"
        + (f" (free frames {num(avail, 0)} on average against CP's available-list thresholds of {num(low, 0)} low and "
           f"{num(high, 0)} high)" if avail is not None and low is not None and high is not None else "")
        + ". "
        + (f"Other signs agree: {'; '.join(t for _, t in signs)}." if signs else "No other sign of duress was found yet."),
        rec,
        order=10,
        subsumes=("user-page-wait",),
    )


# Checks of the emergency-scan study (S4): (rule id, question, report, whether
# "yes" is the sign of duress). The questions keep the study's wording, so for
# "Is ... OK?" the answer is "no" when the rule fired.
_S4_CHECKS = [
    ("free-frames-empty", "Are free frame lists routinely zero?", "AVAILLOG", True),
    ("tv-ratio", "Is system T/V high?", "SYSSUMLG", True),
    ("user-page-wait", "Does USTAT show users in page wait?", "USTAT", True),
    ("storage-constrained", "Is central storage too small for the active guests?", "USTAT", True),
    ("eligible-list", "Is an eligible list forming?", "SYSSUMLG", True),
    ("xstor-vs-dasd", "Is DASD page rate > XSTORE page rate?", "PAGELOG", True),
    ("paging-device-queue", "Are there queues at paging DASD?", "CPOWNED", True),
    ("paging-mload", "Is paging MLOAD OK?", "CPOWNED", False),
    ("paging-blocking", "Is paging blocking factor OK?", "STORAGE", False),
    ("paging-space-full", "Is paging space too full?", "CPOWNED", True),
]


def check_emergency_scan(ctx: Context, rule: Rule) -> Finding | None:
    ivs = ctx.intervals

    def share(iv: Interval) -> float | None:
        steals, em = iv.sys.get("steals"), iv.sys.get("steals_emergency")
        if not steals or em is None:
            return None
        return 100.0 * float(em) / float(steals)

    sev, flags = grade(rule, [share(iv) for iv in ivs])
    if sev is None:
        return None
    held = held_intervals(ivs, flags)
    mean = mean_over(held, share)
    scans = mean_over(held, lambda iv: iv.sys.get("emergency_scan_rate"))
    spin = mean_over(held, lambda iv: iv.sys.get("cpu_spin_pct"))
    checklist = []
    signs = []
    for rid, question, report, yes_is_duress in _S4_CHECKS:
        at_least = "warning" if rid in ("tv-ratio", "paging-blocking") else "info"
        f = ctx.fired(rid, at_least)
        if f is not None:
            signs.append(f"{rid} ({lower_first(f.title)})")
        duress = f is not None
        answer = "yes" if duress == yes_is_duress else "no"
        checklist.append({"question": question, "report": report, "rule": rid, "answer": answer, "duress": duress})
    rows = [{"interval_end": iv.end, "steals": iv.sys.get("steals"), "steals_emergency": iv.sys.get("steals_emergency"),
             "emergency_pct": share(iv), "emergency_scans": iv.sys.get("emergency_scans")} for iv in held]  # fmt: skip
    ev = [
        Evidence("STORAGE", f"emergency scan took {num(mean)}% of the stolen frames; {num(scans, 2)} emergency "
                 "scans/s", held, len(ivs), rows),
        Evidence("CHECKLIST", f"the emergency-scan study's list: {len(signs)} of {len(checklist)} signs of duress"
                 + (f" (spin-lock time {num(spin)}% of processor time)" if spin is not None else ""), rows=checklist),
    ]
    not_decoded = ("MDC hit ratios (FCX103/FCX108), SXS space (FCX264) and lock spinning per lock (FCX265) are "
                   "not in the records ztwin decodes; look at them too.")  # fmt: skip
    if len(signs) >= rule["min_signs"]:
        return Finding(
            rule.id, "warning", "Emergency scan, together with other signs of storage duress",
            ev,
            f"CP took {num(mean)}% of the frames it stole with the emergency scan, and the rest of the "
            f"checklist agrees that storage is in duress: {'; '.join(signs)}.",
            "Act on the other findings (they say what is short); the emergency scan itself needs no "
            "tuning. " + not_decoded,
        )
    return Finding(
        rule.id, "info", "Emergency scan without other signs of duress",
        ev,
        f"CP took {num(mean)}% of the frames it stole with the emergency scan. That alone is not duress: "
        "the friendlier steal passes skip pages that are referenced often (for example VDISK pages), so "
        "only the emergency scan can take them. None of the other checks shows trouble: free-frame lists, "
        "T/V, page wait, eligible list, DASD versus XSTOR paging, paging queues, MLOAD, blocking and "
        "paging space are fine.",
        "Nothing to do if the applications perform well. " + not_decoded,
    )
