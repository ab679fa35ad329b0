"""Figures derived from the additive sums that :mod:`ztwin.reports.core` keeps.

Every function takes one sum (``raw``: one interval of one key, or any merge of
them: a window, a ``>>Mean>>`` line) and returns a dict of figures; a figure is
None when the sums it needs are absent (a record the file does not have) or its
denominator is zero. Units are in the key names (``_pct``, ``_ms``, ``_rate`` =
per second, ``_s``).

Recipes: ``shared/spec/monitor-records.md`` section 7; times in the sums are
already seconds (TOD units / 4096e6), subchannel times are 128 us units.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Raw = Mapping[str, float]
#: Milliseconds per subchannel-measurement unit (128 microseconds).
SCM_MS = 0.128


def ratio(a: float | None, b: float | None) -> float | None:
    """a / b, or None when either is missing or b is zero."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def pct(a: float | None, b: float | None) -> float | None:
    r = ratio(a, b)
    return None if r is None else 100.0 * r


def _sum(*values: float | None) -> float | None:
    if any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None)


def _get(raw: Raw, *keys: str) -> float | None:
    """The sum of several raw keys, None if none is present."""
    vals = [raw[k] for k in keys if k in raw]
    return sum(vals) if vals else None


# --------------------------------------------------------------------------
# Devices and paging exposures
# --------------------------------------------------------------------------


def device_metrics(raw: Raw) -> dict[str, Any]:
    """DEVICE (FCX108) figures of one device.

    Rates over the seconds the device had samples; pend/disc/conn per measured
    I/O; serv = pend + disc + conn; the average queue (requests waiting) from
    high-frequency samples; queue wait by Little's law (queue / I/O rate);
    resp = serv + queue wait; busy = (conn + disc) time over elapsed time.
    """
    seconds = raw.get("seconds")
    measured = raw.get("measured")
    io_rate = ratio(raw.get("ssch"), seconds)
    pend = ratio(raw.get("pend"), measured)
    disc = ratio(raw.get("disc"), measured)
    conn = ratio(raw.get("conn"), measured)
    cuwt = ratio(raw.get("cuq"), measured)
    pend, disc, conn, cuwt = (None if v is None else v * SCM_MS for v in (pend, disc, conn, cuwt))
    serv = _sum(pend, disc, conn)
    queued = ratio(raw.get("hf_queue"), raw.get("hf_count"))
    wait_ms: float | None
    if queued is None:
        wait_ms = None
    elif queued == 0:
        wait_ms = 0.0
    else:
        wait_ms = None if not io_rate else 1000.0 * queued / io_rate
    resp = None if serv is None else serv + (wait_ms or 0.0)
    busy_time = _sum(raw.get("conn"), raw.get("disc"))
    busy = None if busy_time is None else pct(busy_time * SCM_MS / 1000.0, seconds)
    return {
        "io_rate": io_rate,
        "avoid_rate": ratio(raw.get("mdc_hits"), seconds),
        "pend_ms": pend,
        "disc_ms": disc,
        "conn_ms": conn,
        "serv_ms": serv,
        "resp_ms": resp,
        "cuwt_ms": cuwt,
        "queue_wait_ms": wait_ms,
        "queued": queued,
        "busy_pct": busy,
        "hf_busy_pct": pct(raw.get("hf_busy"), raw.get("hf_count")),
        "ios": raw.get("ssch"),
        "seconds": seconds,
    }


def exposure_metrics(raw: Raw, device: Raw | None = None) -> dict[str, Any]:
    """DEVICE CPOWNED (FCX109) figures of one paging exposure.

    Page rates and SSCH rate over the exposure's seconds; block size = pages per
    SSCH; levels (slots in use, queue, MLOAD) averaged over time. Service and
    response time and the queue come from the same device's MRIODDEV sums when
    given, else the queue is the average of the sampled EXPCURQC.
    """
    seconds = raw.get("seconds")
    prd, pwr = raw.get("page_reads"), raw.get("page_writes")
    srd, swr = raw.get("ssch_reads"), raw.get("ssch_writes")
    used_pct = pct(raw.get("slots_used"), raw.get("page_slots"))
    if used_pct is None:
        used_pct = pct(raw.get("slots_used"), raw.get("spool_slots"))
    dev = device_metrics(device) if device else None
    queue = dev["queued"] if dev is not None and dev["queued"] is not None else ratio(raw.get("queue"), seconds)
    mload = ratio(raw.get("mload_us"), seconds)
    return {
        "used_pct": used_pct,
        "slots_used": ratio(raw.get("slots_used"), seconds),
        "page_slots": ratio(raw.get("page_slots"), seconds),
        "page_reads": ratio(prd, seconds),
        "page_writes": ratio(pwr, seconds),
        "page_total": ratio(_sum(prd, pwr), seconds),
        "ssch_rate": ratio(raw.get("ssch"), seconds),
        "queue_len": queue,
        "serv_ms": dev["serv_ms"] if dev else None,
        "resp_ms": dev["resp_ms"] if dev else None,
        "mload": None if mload is None else mload / 1000.0,
        "block_size": ratio(_sum(prd, pwr), _sum(srd, swr)),
        "block_read": ratio(prd, srd),
        "block_write": ratio(pwr, swr),
        "seconds": seconds,
    }


# --------------------------------------------------------------------------
# Users
# --------------------------------------------------------------------------

#: USTAT columns and the high-frequency counter behind each (D4R4 MRUSEINT).
HF_STATES = [
    ("run_pct", "run"), ("cpu_pct", "cpu"), ("ldg_pct", "ldg"), ("pgw_pct", "pgw"),
    ("iow_pct", "iow"), ("sim_pct", "sim"), ("tiw_pct", "tiw"), ("cfw_pct", "cfw"),
    ("ti_pct", "ti"), ("el_pct", "el"), ("dm_pct", "dm"), ("ioa_pct", "ioa"),
    ("pga_pct", "pga"), ("lim_pct", "lim"), ("oth_pct", "oth"),
]  # fmt: skip


def hf_percentages(raw: Raw, prefix: str = "hf_") -> dict[str, Any]:
    """USTAT wait-state percentages: each state's samples over all samples
    (%ACT: samples in the dispatch or eligible list); Q0..Q3 and E0-3 as shares
    of the in-queue samples (None when the file does not split them)."""
    total = raw.get(prefix + "total")
    out: dict[str, float | None] = {"act_pct": pct(raw.get(prefix + "queue"), total)}
    for col, state in HF_STATES:
        out[col] = pct(raw.get(prefix + state), total)
    inq = raw.get(prefix + "queue")
    split = [raw.get(prefix + k) for k in ("q0", "q1", "q2", "q3", "e")]
    has_split = any(v for v in split)
    for col, v in zip(("q0_pct", "q1_pct", "q2_pct", "q3_pct", "e0_3_pct"), split, strict=True):
        out[col] = pct(v, inq) if has_split else None
    out["hf_samples"] = total
    return out


#: UPAGE counters (per second) and levels (pages, time-averaged).
UPAGE_RATES = ["page_reads", "page_writes", "steals", "x_to_ms", "ms_to_x", "x_to_ds"]
UPAGE_LEVELS = ["wss", "res_lt2g", "res_gt2g", "locked", "xstor", "dasd", "storage_pages"]


def upage_figures(raw: Raw, prefix: str = "") -> dict[str, Any]:
    """UPAGE figures: page rates per second and time-averaged page counts."""
    seconds = raw.get(prefix + "store_seconds")
    out: dict[str, float | None] = {}
    for k in UPAGE_RATES:
        out[k] = ratio(raw.get(prefix + k), seconds)
    for k in UPAGE_LEVELS:
        out[k] = ratio(raw.get(prefix + k), seconds)
    out["resident"] = _sum(out["res_lt2g"], out["res_gt2g"] or 0.0)
    return out


def user_metrics(raw: Raw) -> dict[str, Any]:
    """Figures of one user: CPU, wait states (USTAT) and paging (UPAGE)."""
    seconds = raw.get("seconds")
    out: dict[str, Any] = {
        "seconds": seconds,
        "cpu_total_pct": pct(raw.get("ttime"), seconds),
        "cpu_virtual_pct": pct(raw.get("vtime"), seconds),
        "tv_ratio": ratio(raw.get("ttime"), raw.get("vtime")),
        "virtual_io_rate": ratio(raw.get("virtual_io"), seconds),
        "active_pct": pct(raw.get("active_seconds", 0.0), seconds),
    }
    out.update(hf_percentages(raw))
    out.update(upage_figures(raw))
    return out


# --------------------------------------------------------------------------
# CPUs, logical CPUs
# --------------------------------------------------------------------------


def cpu_metrics(raw: Raw) -> dict[str, Any]:
    """FCX100 figures of one processor: busy (100 - wait), CP and emulation
    shares, user and system time, spin time; its SSCH and paging rates."""
    seconds = raw.get("seconds")
    busy = raw.get("cpu_busy")
    emul = raw.get("cpu_emul")
    return {
        "busy_pct": pct(busy, seconds),
        "emul_pct": pct(emul, seconds),
        "cp_pct": pct(None if busy is None or emul is None else max(0.0, busy - emul), seconds),
        "user_pct": pct(raw.get("cpu_user"), seconds),
        "sys_pct": pct(raw.get("cpu_sys"), seconds),
        "wait_pct": pct(raw.get("cpu_wait"), seconds),
        "spin_pct": pct(raw.get("cpu_spin"), seconds),
        "ssch_rate": ratio(_get(raw, "ssch", "rsch"), seconds),
        "page_rate": ratio(_get(raw, "page_reads", "page_writes"), seconds),
        "steal_rate": ratio(raw.get("steals"), seconds),
        "seconds": seconds,
    }


def lpar_metrics(raw: Raw) -> dict[str, Any]:
    """FCX126 figures of one logical CPU: dispatch and overhead time over elapsed."""
    seconds = raw.get("seconds")
    return {
        "busy_pct": pct(raw.get("dispatch"), seconds),
        "ovhd_pct": pct(raw.get("overhead"), seconds),
        "seconds": seconds,
    }


def zvm_view_of_lcpu(lraw: Raw, craw: Raw) -> tuple[float | None, float | None]:
    """(%Susp, %LogLd) of one of z/VM's own logical CPUs: PR/SM's dispatch
    time (``lraw``, SYTCUP) against z/VM's wait and busy time (``craw``,
    SYTPRP/SYTSYP). Time neither dispatched by PR/SM nor waited voluntarily
    by z/VM was suspended (steal); %LogLd is z/VM's busy over the time it was
    not suspended. None when a sum is missing."""
    wait, disp, seconds = craw.get("cpu_wait"), lraw.get("dispatch"), lraw.get("seconds")
    if wait is None or disp is None or not seconds:
        return None, None
    susp = max(0.0, seconds - disp - wait)
    return pct(susp, seconds), pct(craw.get("cpu_busy"), seconds - susp)


# --------------------------------------------------------------------------
# The system
# --------------------------------------------------------------------------


def _rate(raw: Raw, keys: tuple[str, ...], rec: str) -> float | None:
    return ratio(_get(raw, *keys), raw.get("sec_" + rec))


def _level(raw: Raw, key: str, rec: str) -> float | None:
    return ratio(raw.get(key), raw.get("lsec_" + rec))


def system_metrics(raw: Raw) -> dict[str, Any]:
    """System figures of one interval or any merge of intervals.

    CPU: busy per processor from wait time, averaged over processors; on-line
    processors = processor-seconds / seconds. T/V as Performance Toolkit's
    SYSSUMLG computes it, system-wide: all processor time used (user + system)
    over guest emulation time (the users' own T/V, their total over virtual
    time, when the file has no processor records); ``user_tv_ratio`` = the
    users' total / virtual time (what USER and USTAT show per user); capture
    ratio = user total time / processor (user + system) time.
    I/O: SSCH + RSCH issued by CP per second; DASD response = I/O-weighted mean
    of the devices' response times. Users: logged on (with records), active
    (CPU time or in-queue samples), in the eligible list (SRMCELIG). Paging:
    ``page_rate`` = PGIN + PGOUT per second (moves between central and expanded
    storage, Perfkit's PGIN+PGOUT column), ``read_write_rate`` = DASD page reads
    plus writes per second (Perfkit's Read+Write), ``xstor_rate`` = all expanded
    storage traffic (PGIN + PGOUT + migrations) per second.
    """
    seconds = raw.get("seconds")
    cpu_s = raw.get("cpu_seconds")
    busy_pct = pct(raw.get("cpu_busy"), cpu_s)
    online = ratio(cpu_s, seconds)
    tt, vt = raw.get("user_ttime"), raw.get("user_vtime")
    user_tv = ratio(tt, vt) if vt else None
    tv = ratio(_sum(raw.get("cpu_user"), raw.get("cpu_sys", 0.0)), raw.get("cpu_emul"))
    if tv is None:
        tv = user_tv
    pgin = _rate(raw, ("pgin",), "MRSYTXSP")
    pgout = _rate(raw, ("pgout",), "MRSYTXSP")
    migr = _rate(raw, ("migrations",), "MRSYTXSP")
    rd = _rate(raw, ("page_reads",), "MRSYTSYP")
    wr = _rate(raw, ("page_writes",), "MRSYTSYP")
    if rd is None:
        rd = _rate(raw, ("dasd_page_reads",), "MRSTORSP")
        wr = _rate(raw, ("dasd_page_writes",), "MRSTORSP")
    ssch = _rate(raw, ("ssch", "rsch"), "MRSYTSYP")
    if ssch is None:
        ssch = _rate(raw, ("dasd_ssch",), "MRIODDEV")
    slots_total = _level(raw, "slots_total", "MRSYTASG")
    slots_used = _level(raw, "slots_used", "MRSYTASG")
    spool_total = _level(raw, "spool_total", "MRSYTASG")
    spool_used = _level(raw, "spool_used", "MRSYTASG")
    xs_total = _level(raw, "xstor_total", "MRSYTXSG")
    xs_free = _level(raw, "xstor_free", "MRSYTXSG")
    xs_used = None if xs_total is None or xs_free is None else xs_total - xs_free
    frame_waits = raw.get("frame_waits", raw.get("rsg_frame_waits"))
    frame_sec = raw.get("sec_MRSTORSG") if "frame_waits" in raw else raw.get("sec_MRSYTRSG")
    out: dict[str, Any] = {
        "seconds": seconds,
        "cpus_online": online,
        "cpu_busy_pct": busy_pct,
        "cpu_busy_total_pct": None if busy_pct is None or online is None else busy_pct * online,
        "cpu_user_pct": pct(raw.get("cpu_user"), cpu_s),
        "cpu_sys_pct": pct(raw.get("cpu_sys"), cpu_s),
        "cpu_emul_pct": pct(raw.get("cpu_emul"), cpu_s),
        "cpu_wait_pct": pct(raw.get("cpu_wait"), cpu_s),
        "tv_ratio": tv,
        "user_tv_ratio": user_tv,
        "capture_ratio": ratio(tt, _sum(raw.get("cpu_user"), raw.get("cpu_sys", 0.0))),
        "ssch_rate": ssch,
        "dasd_io_rate": _rate(raw, ("dasd_ssch",), "MRIODDEV"),
        "dasd_resp_ms": ratio(raw.get("dasd_resp_x_io"), raw.get("dasd_resp_io")),
        "dasd_serv_ms": ratio(raw.get("dasd_serv_x_io"), raw.get("dasd_resp_io")),
        "users_logged": ratio(raw.get("users_logged"), raw.get("sec_users")),
        "users_active": ratio(raw.get("users_active"), raw.get("sec_users")),
        "users_in_elist": _level(raw, "elist", "MRSYTUWT"),
        "page_rate": _sum(pgin, pgout),
        "read_write_rate": _sum(rd, wr),
        "xstor_rate": _sum(pgin, pgout, migr) if migr is not None else _sum(pgin, pgout),
        "pgin_rate": pgin,
        "pgout_rate": pgout,
        "migrate_rate": migr,
        "dasd_read_rate": rd,
        "dasd_write_rate": wr,
        "spool_rate": _rate(raw, ("spool_reads", "spool_writes"), "MRSYTSYP"),
        "steal_rate": _rate(raw, ("steals",), "MRSYTRSP"),
        "steals": raw.get("steals"),
        "steals_pass1": raw.get("steal_pass1"),
        "steals_pass2": raw.get("steal_pass2"),
        "steals_emergency": raw.get("steal_emerg"),
        "frame_deferred_rate": _rate(raw, ("frame_deferred",), "MRSYTRSP"),
        "frame_waits": frame_waits,
        "frame_wait_rate": ratio(frame_waits, frame_sec),
        "list_empty": raw.get("list_empty"),
        "list_empty_rate": _rate(raw, ("list_empty",), "MRSTORSG"),
        "emergency_scans": raw.get("emergency_scans"),
        "emergency_scan_rate": _rate(raw, ("emergency_scans",), "MRSTORSG"),
        "scans": raw.get("scans"),
        "avail_frames": _level(raw, "avail_frames", "MRSYTRSG"),
        "min_avail_frames": raw.get("min_avail_frames"),
        "max_avail_frames": raw.get("max_avail_frames"),
        "pageable_frames": _level(raw, "pageable_frames", "MRSYTRSG"),
        "cp_locked": _level(raw, "cp_locked", "MRSYTRSG"),
        "avail_low": _level(raw, "avail_low", "MRSTORSG"),
        "avail_high": _level(raw, "avail_high", "MRSTORSG"),
        "avail_low_g": _level(raw, "avail_low_g", "MRSTORSG"),
        "avail_high_g": _level(raw, "avail_high_g", "MRSTORSG"),
        "slots_total": slots_total,
        "slots_used": slots_used,
        "slots_used_pct": pct(slots_used, slots_total),
        "spool_total": spool_total,
        "spool_used": spool_used,
        "spool_used_pct": pct(spool_used, spool_total),
        "dump_total": _level(raw, "dump_total", "MRSYTASG"),
        "dump_used": _level(raw, "dump_used", "MRSYTASG"),
        "full90": raw.get("full90"),
        "xstor_total": xs_total,
        "xstor_free": xs_free,
        "xstor_used": xs_used,
        "xstor_used_pct": pct(xs_used, xs_total),
        "xstor_age_s": _level(raw, "xstor_age", "MRSTOXSG"),
        "xstor_migrations": raw.get("xstor_migrations"),
        "page_read_block": ratio(raw.get("exp_page_reads"), raw.get("exp_ssch_reads")),
        "page_write_block": ratio(raw.get("exp_page_writes"), raw.get("exp_ssch_writes")),
        "paging_ssch_rate": _rate(raw, ("exp_ssch",), "MRSTOASP"),
        "users_counted": ratio(raw.get("users_counted"), raw.get("sec_users")),
    }
    # >System< lines of USTATLOG / UPAGELOG: all users' samples together,
    # UPAGE as the mean per user (Perfkit's convention).
    out.update({"sys_" + k: v for k, v in hf_percentages(raw, "users_hf_").items()})
    n = out["users_counted"]
    store: dict[str, float] = {}
    for k in (*UPAGE_RATES, *UPAGE_LEVELS):
        v = raw.get("users_" + k)
        if v is not None:
            store[k] = v
    store["store_seconds"] = raw.get("users_store_seconds", 0.0)
    # Sum over users of deltas / sum over users of seconds = the mean per user.
    out.update({"sys_" + k: v for k, v in upage_figures(store).items()})
    out["sys_users"] = n
    return out
