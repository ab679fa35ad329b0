"""The summary finding when nothing is wrong with z/VM (S3): the figures
checked, and what the active guests spend their time on."""

from __future__ import annotations

from typing import Any

from ztwin.advisor.checks.common import Context, mean_over, num, sysfig
from ztwin.advisor.tables import as_table
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import SEVERITIES, Rule

#: USTAT states: sample count, column, what it is, and whether the guest waits
#: for itself (True) or for a z/VM resource (False; None for running).
STATES = [
    ("hf_run", "run_pct", "running", None),
    ("hf_cpu", "cpu_pct", "waiting for a processor", False),
    ("hf_pgw", "pgw_pct", "waiting for a page", False),
    ("hf_el", "el_pct", "on the eligible list", False),
    ("hf_lim", "lim_pct", "held back by a SHARE limit", False),
    ("hf_sim", "sim_pct", "waiting for CP to simulate an instruction", False),
    ("hf_iow", "iow_pct", "waiting for their own I/O", True),
    ("hf_tiw", "tiw_pct", "waiting for a virtual machine service", True),
    ("hf_ti", "ti_pct", "in test idle (their own timers or outside events: network, other servers)", True),
]


def _the_active(active: float | None) -> str:
    n = round(active or 0)
    return "The active user was" if n == 1 else f"The {n} active users were"


def check_no_constraint(ctx: Context, rule: Rule) -> Finding | None:
    if any(SEVERITIES.index(f.severity) >= 1 for f in ctx.found.values()):
        return None
    ivs = ctx.intervals
    if not ivs:
        return None
    g = sysfig
    busy = mean_over(ivs, g("cpu_busy_pct"))
    busy_max = max((float(v) for iv in ivs if (v := iv.sys.get("cpu_busy_pct")) is not None), default=None)
    tv = mean_over(ivs, g("tv_ratio"))
    paging = mean_over(ivs, lambda iv: float(iv.sys.get("page_rate") or 0.0) + float(iv.sys.get("read_write_rate") or 0.0))
    resp = mean_over(ivs, g("dasd_resp_ms"))
    elist = max((iv.sys.get("users_in_elist") or 0.0 for iv in ivs), default=0.0)
    active = mean_over(ivs, g("users_active"))
    logged = mean_over(ivs, g("users_logged"))
    sums: dict[str, float] = {}
    for iv in ivs:
        t = as_table(iv.users)
        for k in ("hf_queue", *(st[0] for st in STATES)):
            sums[k] = sums.get(k, 0.0) + (t.total(k) or 0.0)
    q = sums.get("hf_queue", 0.0)
    shares = sorted(
        ((100.0 * sums.get(k, 0.0) / q, col, text, own) for k, col, text, own in STATES if q), key=lambda x: -x[0]
    )
    pgw = next((sh for sh, col, _, _ in shares if col == "pgw_pct"), None)
    own = sum(sh for sh, _, _, o in shares if o)
    zvm = sum(sh for sh, _, _, o in shares if o is False)
    sys_row: dict[str, Any] = {
        "cpu_busy_pct": busy, "cpu_busy_max_pct": busy_max, "tv_ratio": tv, "paging_rate": paging,
        "dasd_resp_ms": resp, "users_in_elist_max": elist, "users_logged": logged, "users_active": active,
    }  # fmt: skip
    state_rows = [{"state": col, "active_pct": sh} for sh, col, _, _ in shares if sh > 0]
    doing = ", ".join(f"{text} {num(sh, 0)}%" for sh, _, text, _ in shares if sh >= 1.0) or "nothing measurable"
    resp_text = "DASD did no I/O" if resp is None else f"DASD answered in {num(resp)} ms"
    if q and own >= zvm:
        verdict = f"{num(own, 0)}% of their active samples they waited for themselves, {num(zvm, 0)}% for z/VM resources"
        if ctx.fired("cpu-wait"):
            verdict += " (the CPU wait is dispatch latency, see cpu-wait)"
        verdict += ": the time goes inside the guests, not in z/VM"
    elif q:
        verdict = (f"{num(zvm, 0)}% of their active samples they waited for z/VM resources, but no check found "
                   "a resource short (see the info findings)")
    else:
        verdict = "there were no users' wait-state samples (USTAT) to tell what they waited for"
    return Finding(
        rule.id, "info", "No z/VM constraint found: look inside the guests",
        [
            Evidence("SYSSUMLG", f"CPU {num(busy, 0)}% busy (peak {num(busy_max, 0)}%), T/V {num(tv, 2)}, paging "
                     f"{num(paging, 1)} pages/s, DASD response {num(resp) + ' ms' if resp is not None else 'none (no DASD I/O)'}, "
                     f"eligible list at most {num(elist, 0)}",
                     ivs, len(ivs), [sys_row]),
            Evidence("USTAT", f"the active users' samples: {doing}", rows=state_rows),
        ],
        f"Every check passed: the processors were {num(busy, 0)}% busy, T/V was {num(tv, 2)} (1.0 is perfect), "
        f"the system paged {num(paging, 1)} pages per second, users were in page wait in {num(pgw or 0.0, 1)}% "
        f"of their active samples, {resp_text} and no eligible list formed. "
        + (f"{_the_active(active)} {doing}; {verdict}." if q else f"But {verdict}."),
        "Look inside the guests for the cause of slow responses: their own tools (for Linux top, vmstat, "
        "sar, the application's and JVM's logs, database statistics) show what they are waiting for.",
        order=90,
    )
