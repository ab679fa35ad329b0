"""Checks of virtual disks in storage and saved segments (issue 13, item 6):
VDISKs that could outgrow paging space, spool space for saved segments, and
saved segments nobody uses.

Their records (MRSTOASI for VDISKs, MRSTOSHR and MRSTOSHL for saved
segments, MRSTOASP for spool volumes) are not in the interval kernel's
catalog: they are read once, column-wise, for the judged period
(:func:`_facts`, cached in the context's notes), and only when the file has
them. From a history database the checks see nothing and stay silent.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ztwin.advisor.checks.common import Context, mean_over, num
from ztwin.advisor.finding import Evidence, Finding
from ztwin.advisor.rules import Rule

_NAMES = ["MRSTOASI", "MRSTOSHR", "MRSTOSHL", "MRSTOASP"]


@dataclass
class _Facts:
    #: Per VDISK space name: its size (512-byte blocks), the last sample's
    #: resident, XSTOR and DASD pages.
    vdisks: dict[str, dict[str, float]] = field(default_factory=dict)
    #: Per saved segment: the most users seen in a sample (shared + exclusive), its spool ID.
    segments: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Saved segments loaded by a first user in the period (MRSTOSHL).
    loaded: set[str] = field(default_factory=set)
    #: Spool: slots and slots in use at the period's last sample.
    spool_slots: int = 0
    spool_used: int = 0


def _local(ctx: Context, tod: Any) -> datetime | None:
    if tod is None:
        return None
    t: datetime = tod if tod.tzinfo else tod.replace(tzinfo=UTC)
    local: datetime = (t + timedelta(seconds=ctx.period.zone_s)).replace(tzinfo=None)
    return local


def _facts(ctx: Context) -> _Facts:
    cached = ctx.notes.get("segments-facts")
    if isinstance(cached, _Facts):
        return cached
    facts = _Facts()
    ctx.notes["segments-facts"] = facts
    path, start, end = ctx.period.path, ctx.period.start, ctx.period.end
    if not path or start is None or end is None or not Path(path).is_file():
        return facts
    from ztwin.monitor import DamageWarning, arrow_tables

    # The advisor's interval pass already reported damage: this read keeps quiet.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamageWarning)
        read = arrow_tables(path, _NAMES)
    tables = {k: t.to_pylist() for k, t in read.items()}

    def inside(r: dict[str, Any]) -> bool:
        t = _local(ctx, r.get("tod"))
        return t is not None and start < t <= end

    for r in tables.get("MRSTOASI", []):
        if inside(r) and not str(r.get("STOASI_ASCNAME") or "").startswith("DCSS$"):
            facts.vdisks[str(r.get("STOASI_ASCNAME") or "").strip()] = {
                "blocks": float(r.get("STOASI_VDIBLKS") or 0),
                "resident": float(r.get("STOASI_ASCCTPRS") or 0),
                "xstor": float(r.get("STOASI_ASCCTPXS") or 0),
                "dasd": float(r.get("STOASI_ASCCTPDS") or 0),
            }
    for r in tables.get("MRSTOSHR", []):
        if inside(r):
            name = str(r.get("STOSHR_SNTNAME") or "").strip()
            users = int(r.get("STOSHR_SNTUSRSH") or 0) + int(r.get("STOSHR_SNTUSREX") or 0)
            s = facts.segments.setdefault(name, {"users": 0, "spoolid": 0})
            s["users"] = max(s["users"], users)
            s["spoolid"] = int(r.get("STOSHR_SDFIDNUM") or 0)
    for r in tables.get("MRSTOSHL", []):
        if inside(r):
            facts.loaded.add(str(r.get("STOSHL_SDFFN") or "").strip())
    last: dict[int, tuple[datetime, int, int]] = {}
    for r in tables.get("MRSTOASP", []):
        slots = int(r.get("STOASP_CALSPOOL") or 0)
        t = _local(ctx, r.get("tod"))
        if slots and t is not None and t <= end:
            dev = int(r.get("STOASP_RDEVDEV") or 0)
            if dev not in last or last[dev][0] <= t:
                last[dev] = (t, slots, int(r.get("STOASP_CPVALOCD") or 0))
    facts.spool_slots = sum(s for _, s, _ in last.values())
    facts.spool_used = sum(u for _, _, u in last.values())
    return facts


def check_vdisk_paging_space(ctx: Context, rule: Rule) -> Finding | None:
    """The VDISKs' pages, were they all written and paged out, against the
    free paging space: CP pages VDISK pages like any other, so VDISK space
    is paging space too (a full paging space abends the system)."""
    facts = _facts(ctx)
    if not facts.vdisks:
        return None
    ivs = ctx.intervals
    total = mean_over(ivs[-1:], lambda iv: iv.sys.get("slots_total"))
    used_pct = mean_over(ivs[-1:], lambda iv: iv.sys.get("slots_used_pct"))
    if not total or used_pct is None:
        return None
    free = total * (1.0 - used_pct / 100.0)
    pages = sum(v["blocks"] / 8.0 for v in facts.vdisks.values())
    on_dasd = sum(v["dasd"] for v in facts.vdisks.values())
    share = 100.0 * pages / max(free, 1.0)
    sev = None
    for s, thr in rule.active_levels():
        if share >= thr:
            sev = s
    if sev is None:
        return None
    rows = [{"space": k, "blocks": v["blocks"], "resident": v["resident"], "xstor": v["xstor"], "dasd": v["dasd"]}
            for k, v in sorted(facts.vdisks.items())]  # fmt: skip
    return Finding(
        rule.id, sev, "VDISKs could fill the free paging space",
        [
            Evidence("VDISKS", f"{len(rows)} VDISKs of {num(pages, 0)} pages in all ({num(on_dasd, 0)} on paging DASD now)",
                     rows=rows),
            Evidence("CPOWNED", f"{num(free, 0)} free page slots of {num(total, 0)} ({num(used_pct, 0)}% used)"),
        ],
        f"The VDISKs defined hold up to {num(pages, 0)} pages, {num(share, 0)}% of the {num(free, 0)} free page "
        "slots. CP pages VDISK pages like any other, so VDISKs that fill up (Linux swapping hard to them) move "
        "into paging space when storage is short; if it runs out, z/VM stops.",
        "Keep SET VDISK SYSLIM within what paging space can hold on top of the guests' own pages, or add "
        "paging volumes.",
        order=30,
    )


def check_spool_segments(ctx: Context, rule: Rule) -> Finding | None:
    """Spool space in use while saved segments exist: a re-save (SR, SW,
    ER, EW pages go to spool) needs room for a second copy until the old
    one's last user leaves."""
    facts = _facts(ctx)
    if not facts.segments or not facts.spool_slots:
        return None
    pct = 100.0 * facts.spool_used / facts.spool_slots
    sev = None
    for s, thr in rule.active_levels():
        if pct >= thr:
            sev = s
    if sev is None:
        return None
    return Finding(
        rule.id, sev, "Spool space is short for saving segments",
        [Evidence("NSS", f"{facts.spool_used} of {facts.spool_slots} spool pages in use ({num(pct, 0)}%), "
                  f"{len(facts.segments)} saved segments",
                  rows=[{"segment": k, "spoolid": v["spoolid"], "users": v["users"]}
                        for k, v in sorted(facts.segments.items())])],  # fmt: skip
        f"{num(pct, 0)}% of the spool space is in use. Saved segments whose pages are saved (SR, SW, ER, EW) live "
        "on spool, and saving one again writes a new copy while the old one stays until its last user leaves: "
        "a SAVESEG that finds no room fails.",
        "Add spool space, or purge old system data files (PURGE NSS) and spool files nobody needs.",
        order=40,
    )


def check_segment_unused(ctx: Context, rule: Rule) -> Finding | None:
    """A saved segment no user had loaded in any sample of the period and
    none loaded it: its spool pages (and its place in the system's address
    range) are held for nothing."""
    facts = _facts(ctx)
    unused = sorted(k for k, v in facts.segments.items() if v["users"] == 0 and k not in facts.loaded)
    if not unused or len(ctx.intervals) < int(rule["min_intervals"]):
        return None
    return Finding(
        rule.id, "info", "Saved segments that nobody uses",
        [Evidence("NSS", f"{len(unused)} saved segments had no users in the period and were never loaded",
                  rows=[{"segment": k, "spoolid": facts.segments[k]["spoolid"]} for k in unused])],
        f"{', '.join(unused)}: saved, but no user loaded {'it' if len(unused) == 1 else 'them'} in the "
        f"{len(ctx.intervals)} intervals judged.",
        "If they are not needed (an old version, a test), PURGE NSS frees their spool space.",
        order=80,
    )
