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

from collections.abc import Callable, Iterator, Mapping
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


class Scalar:
    """The operations the formulas below are written in, on one sum: a
    value is a float, None when absent. :mod:`ztwin.reports.vmetrics` gives
    the same operations over whole columns (NaN when absent), so each figure
    is defined once and computed either for one sum or for all intervals at
    once, to the same bit."""

    ratio = staticmethod(ratio)
    pct = staticmethod(pct)
    sum = staticmethod(_sum)
    get = staticmethod(_get)

    @staticmethod
    def col(raw: Raw, key: str) -> float | None:
        """``raw.get(key)``."""
        return raw.get(key)

    @staticmethod
    def col_or(raw: Raw, key: str, default: float) -> float:
        """``raw.get(key, default)``."""
        return raw.get(key, default)

    @staticmethod
    def has(raw: Raw, key: str) -> bool:
        return key in raw

    @staticmethod
    def present(a: float | None) -> bool:
        return a is not None

    @staticmethod
    def nonempty(raw: Raw | None) -> bool:
        """Sums given and not empty (``if raw``)."""
        return bool(raw)

    @staticmethod
    def truthy(a: float | None) -> bool:
        """Present and not zero (``if a``)."""
        return bool(a)

    @staticmethod
    def is_zero(a: float | None) -> bool:
        return a == 0

    @staticmethod
    def any_truthy(values: list[float | None]) -> bool:
        return any(v for v in values)

    @staticmethod
    def and_(a: bool, b: bool) -> bool:
        return a and b

    @staticmethod
    def or_(a: bool, b: bool) -> bool:
        return a or b

    @staticmethod
    def where(cond: bool, a: Any, b: Any) -> Any:
        """``a if cond else b``."""
        return a if cond else b

    @staticmethod
    def first(a: float | None, b: float | None) -> float | None:
        """``a if a is not None else b``."""
        return a if a is not None else b

    @staticmethod
    def add(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else a + b

    @staticmethod
    def sub(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else a - b

    @staticmethod
    def mul(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else a * b

    @staticmethod
    def div(a: float | None, c: float) -> float | None:
        """``a / c`` by a constant (None when a is)."""
        return None if a is None else a / c

    @staticmethod
    def max0(a: float | None) -> float | None:
        """``max(0.0, a)`` (None when a is)."""
        return None if a is None else max(0.0, a)

    @staticmethod
    def sums(like: Raw, cols: dict[str, Any]) -> Raw:
        """Sums made of ``cols`` (absent ones left out)."""
        return {k: v for k, v in cols.items() if v is not None}


S = Scalar
#: The operations (:class:`Scalar`, or ``vmetrics.Vector``).
Ops = Any
#: One sum (a Mapping of floats), or columns of sums (``vmetrics.Sums``).
In = Any


# --------------------------------------------------------------------------
# Devices and paging exposures
# --------------------------------------------------------------------------


def device_metrics(raw: In, o: Ops = S) -> dict[str, Any]:
    """DEVICE (FCX108) figures of one device.

    Rates over the seconds the device had samples; pend/disc/conn per measured
    I/O; serv = pend + disc + conn; the average queue (requests waiting) from
    high-frequency samples; queue wait by Little's law (queue / I/O rate);
    resp = serv + queue wait; busy = (pend + disc + conn) time over elapsed
    time, i.e. I/O rate x service time, as Perfkit's FCX108 %Busy (the
    published lines of S1 and S7 reproduce it; docs/fidelity.md, DEVICE %Busy).
    """
    col = o.col
    seconds = col(raw, "seconds")
    measured = col(raw, "measured")
    io_rate = o.ratio(col(raw, "ssch"), seconds)
    pend, disc, conn, cuwt = (o.mul(o.ratio(col(raw, k), measured), SCM_MS) for k in ("pend", "disc", "conn", "cuq"))
    serv = o.sum(pend, disc, conn)
    queued = o.ratio(col(raw, "hf_queue"), col(raw, "hf_count"))
    # no queue figure: no wait; an empty queue: 0; else queue / I/O rate
    # (none without an I/O rate)
    wait_ms = o.where(o.is_zero(queued), 0.0, o.ratio(o.mul(queued, 1000.0), io_rate))
    # resp adds the wait when there is one (an empty queue adds 0.0)
    has_wait = o.and_(o.present(queued), o.or_(o.is_zero(queued), o.truthy(io_rate)))
    resp = o.add(serv, o.where(has_wait, wait_ms, 0.0))
    busy_time = o.sum(col(raw, "pend"), col(raw, "conn"), col(raw, "disc"))
    busy = o.pct(o.div(o.mul(busy_time, SCM_MS), 1000.0), seconds)
    return {
        "io_rate": io_rate,
        "avoid_rate": o.ratio(col(raw, "mdc_hits"), seconds),
        "pend_ms": pend,
        "disc_ms": disc,
        "conn_ms": conn,
        "serv_ms": serv,
        "resp_ms": resp,
        "cuwt_ms": cuwt,
        "queue_wait_ms": wait_ms,
        "queued": queued,
        "busy_pct": busy,
        "hf_busy_pct": o.pct(col(raw, "hf_busy"), col(raw, "hf_count")),
        "ios": col(raw, "ssch"),
        "seconds": seconds,
    }


def exposure_metrics(raw: In, device: In | None = None, o: Ops = S) -> dict[str, Any]:
    """DEVICE CPOWNED (FCX109) figures of one paging exposure.

    Page rates and SSCH rate over the exposure's seconds; block size = pages per
    SSCH; levels (slots in use, queue, MLOAD) averaged over time. Service and
    response time and the queue come from the same device's MRIODDEV sums when
    given (and not empty), else the queue is the average of the sampled
    EXPCURQC. Over columns (``vmetrics``), ``device`` is the devices' sums
    row for row, all absent where an exposure has no device.
    """
    col = o.col
    seconds = col(raw, "seconds")
    prd, pwr = col(raw, "page_reads"), col(raw, "page_writes")
    srd, swr = col(raw, "ssch_reads"), col(raw, "ssch_writes")
    slots = col(raw, "slots_used")
    used_pct = o.first(o.pct(slots, col(raw, "page_slots")), o.pct(slots, col(raw, "spool_slots")))
    dev = device_metrics(device, o) if o.nonempty(device) else None
    own_queue = o.ratio(col(raw, "queue"), seconds)
    return {
        "used_pct": used_pct,
        "slots_used": o.ratio(slots, seconds),
        "page_slots": o.ratio(col(raw, "page_slots"), seconds),
        "page_reads": o.ratio(prd, seconds),
        "page_writes": o.ratio(pwr, seconds),
        "page_total": o.ratio(o.sum(prd, pwr), seconds),
        "ssch_rate": o.ratio(col(raw, "ssch"), seconds),
        "queue_len": own_queue if dev is None else o.first(dev["queued"], own_queue),
        "serv_ms": None if dev is None else dev["serv_ms"],
        "resp_ms": None if dev is None else dev["resp_ms"],
        "mload": o.div(o.ratio(col(raw, "mload_us"), seconds), 1000.0),
        "block_size": o.ratio(o.sum(prd, pwr), o.sum(srd, swr)),
        "block_read": o.ratio(prd, srd),
        "block_write": o.ratio(pwr, swr),
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


def hf_percentages(raw: In, prefix: str = "hf_", o: Ops = S) -> dict[str, Any]:
    """USTAT wait-state percentages: each state's samples over all samples
    (%ACT: samples in the dispatch or eligible list); Q0..Q3 and E0-3 as shares
    of the in-queue samples (None when the file does not split them)."""
    total = o.col(raw, prefix + "total")
    inq = o.col(raw, prefix + "queue")
    out: dict[str, Any] = {"act_pct": o.pct(inq, total)}
    for col, state in HF_STATES:
        out[col] = o.pct(o.col(raw, prefix + state), total)
    split = [o.col(raw, prefix + k) for k in ("q0", "q1", "q2", "q3", "e")]
    has_split = o.any_truthy(split)
    for col, v in zip(("q0_pct", "q1_pct", "q2_pct", "q3_pct", "e0_3_pct"), split, strict=True):
        out[col] = o.where(has_split, o.pct(v, inq), None)
    out["hf_samples"] = total
    return out


#: UPAGE counters (per second) and levels (pages, time-averaged).
UPAGE_RATES = ["page_reads", "page_writes", "steals", "x_to_ms", "ms_to_x", "x_to_ds"]
UPAGE_LEVELS = ["wss", "res_lt2g", "res_gt2g", "locked", "xstor", "dasd", "storage_pages"]


def upage_figures(raw: In, prefix: str = "", o: Ops = S) -> dict[str, Any]:
    """UPAGE figures: page rates per second and time-averaged page counts."""
    seconds = o.col(raw, prefix + "store_seconds")
    out: dict[str, Any] = {}
    for k in UPAGE_RATES:
        out[k] = o.ratio(o.col(raw, prefix + k), seconds)
    for k in UPAGE_LEVELS:
        out[k] = o.ratio(o.col(raw, prefix + k), seconds)
    gt = out["res_gt2g"]
    out["resident"] = o.sum(out["res_lt2g"], o.where(o.truthy(gt), gt, 0.0))
    return out


def user_metrics(raw: In, o: Ops = S) -> dict[str, Any]:
    """Figures of one user: CPU, wait states (USTAT) and paging (UPAGE)."""
    col = o.col
    seconds = col(raw, "seconds")
    out: dict[str, Any] = {
        "seconds": seconds,
        "cpu_total_pct": o.pct(col(raw, "ttime"), seconds),
        "cpu_virtual_pct": o.pct(col(raw, "vtime"), seconds),
        "tv_ratio": o.ratio(col(raw, "ttime"), col(raw, "vtime")),
        "virtual_io_rate": o.ratio(col(raw, "virtual_io"), seconds),
        "active_pct": o.pct(o.col_or(raw, "active_seconds", 0.0), seconds),
    }
    out.update(hf_percentages(raw, o=o))
    out.update(upage_figures(raw, o=o))
    return out


# --------------------------------------------------------------------------
# CPUs, logical CPUs
# --------------------------------------------------------------------------


def cpu_metrics(raw: In, o: Ops = S) -> dict[str, Any]:
    """FCX100 figures of one processor: busy (100 - wait), CP and emulation
    shares, user and system time, spin time; its SSCH and paging rates."""
    col = o.col
    seconds = col(raw, "seconds")
    busy = col(raw, "cpu_busy")
    emul = col(raw, "cpu_emul")
    return {
        "busy_pct": o.pct(busy, seconds),
        "emul_pct": o.pct(emul, seconds),
        "cp_pct": o.pct(o.max0(o.sub(busy, emul)), seconds),
        "user_pct": o.pct(col(raw, "cpu_user"), seconds),
        "sys_pct": o.pct(col(raw, "cpu_sys"), seconds),
        "wait_pct": o.pct(col(raw, "cpu_wait"), seconds),
        "spin_pct": o.pct(col(raw, "cpu_spin"), seconds),
        "ssch_rate": o.ratio(o.get(raw, "ssch", "rsch"), seconds),
        "page_rate": o.ratio(o.get(raw, "page_reads", "page_writes"), seconds),
        "steal_rate": o.ratio(col(raw, "steals"), seconds),
        "seconds": seconds,
    }


def lpar_metrics(raw: In, o: Ops = S) -> dict[str, Any]:
    """FCX126 figures of one logical CPU: dispatch and overhead time over elapsed."""
    seconds = o.col(raw, "seconds")
    return {
        "busy_pct": o.pct(o.col(raw, "dispatch"), seconds),
        "ovhd_pct": o.pct(o.col(raw, "overhead"), seconds),
        "seconds": seconds,
    }


def zvm_view_of_lcpu(lraw: In, craw: In, o: Ops = S) -> tuple[Any, Any]:
    """(%Susp, %LogLd) of one of z/VM's own logical CPUs: PR/SM's dispatch
    time (``lraw``, SYTCUP) against z/VM's wait and busy time (``craw``,
    SYTPRP/SYTSYP). Time neither dispatched by PR/SM nor waited voluntarily
    by z/VM was suspended (steal); %LogLd is z/VM's busy over the time it was
    not suspended. None when a sum is missing."""
    wait, disp, seconds = o.col(craw, "cpu_wait"), o.col(lraw, "dispatch"), o.col(lraw, "seconds")
    ok = o.and_(o.and_(o.present(wait), o.present(disp)), o.truthy(seconds))
    susp = o.where(ok, o.max0(o.sub(o.sub(seconds, disp), wait)), None)
    return o.pct(susp, seconds), o.where(ok, o.pct(o.col(craw, "cpu_busy"), o.sub(seconds, susp)), None)


# --------------------------------------------------------------------------
# The system
# --------------------------------------------------------------------------


def system_metrics(raw: In, o: Ops = S) -> dict[str, Any]:
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
    return SystemFigures(raw, o).all()


def _rate(f: SystemFigures, keys: tuple[str, ...], rec: str) -> Any:
    return f.o.ratio(f.o.get(f.raw, *keys), f.col("sec_" + rec))


def _level(f: SystemFigures, key: str, rec: str) -> Any:
    return f.o.ratio(f.col(key), f.col("lsec_" + rec))


#: :func:`system_metrics`' figures in their order, each a function of the
#: :class:`SystemFigures` (names starting with ``_`` are shared intermediate
#: values, not figures).
_SYSTEM: dict[str, Callable[[SystemFigures], Any]] = {
    "_cpu_user_sys": lambda f: f.o.sum(f.col("cpu_user"), f.o.col_or(f.raw, "cpu_sys", 0.0)),
    "_user_tv": lambda f: f.o.where(f.o.truthy(f.col("user_vtime")), f.o.ratio(f.col("user_ttime"), f.col("user_vtime")),
                                    None),
    "_rd0": lambda f: _rate(f, ("page_reads",), "MRSYTSYP"),
    "_has_rd": lambda f: f.o.present(f["_rd0"]),
    "_xs_total": lambda f: _level(f, "xstor_total", "MRSYTXSG"),
    "_xs_free": lambda f: _level(f, "xstor_free", "MRSYTXSG"),
    "_has_fw": lambda f: f.o.has(f.raw, "frame_waits"),
    "seconds": lambda f: f.col("seconds"),
    "cpus_online": lambda f: f.o.ratio(f.col("cpu_seconds"), f.col("seconds")),
    "cpu_busy_pct": lambda f: f.o.pct(f.col("cpu_busy"), f.col("cpu_seconds")),
    "cpu_busy_total_pct": lambda f: f.o.mul(f["cpu_busy_pct"], f["cpus_online"]),
    "cpu_user_pct": lambda f: f.o.pct(f.col("cpu_user"), f.col("cpu_seconds")),
    "cpu_sys_pct": lambda f: f.o.pct(f.col("cpu_sys"), f.col("cpu_seconds")),
    "cpu_emul_pct": lambda f: f.o.pct(f.col("cpu_emul"), f.col("cpu_seconds")),
    "cpu_wait_pct": lambda f: f.o.pct(f.col("cpu_wait"), f.col("cpu_seconds")),
    "tv_ratio": lambda f: f.o.first(f.o.ratio(f["_cpu_user_sys"], f.col("cpu_emul")), f["_user_tv"]),
    "user_tv_ratio": lambda f: f["_user_tv"],
    "capture_ratio": lambda f: f.o.ratio(f.col("user_ttime"), f["_cpu_user_sys"]),
    "ssch_rate": lambda f: f.o.first(_rate(f, ("ssch", "rsch"), "MRSYTSYP"), _rate(f, ("dasd_ssch",), "MRIODDEV")),
    "dasd_io_rate": lambda f: _rate(f, ("dasd_ssch",), "MRIODDEV"),
    "dasd_resp_ms": lambda f: f.o.ratio(f.col("dasd_resp_x_io"), f.col("dasd_resp_io")),
    "dasd_serv_ms": lambda f: f.o.ratio(f.col("dasd_serv_x_io"), f.col("dasd_resp_io")),
    "users_logged": lambda f: f.o.ratio(f.col("users_logged"), f.col("sec_users")),
    "users_active": lambda f: f.o.ratio(f.col("users_active"), f.col("sec_users")),
    "users_in_elist": lambda f: _level(f, "elist", "MRSYTUWT"),
    "page_rate": lambda f: f.o.sum(f["pgin_rate"], f["pgout_rate"]),
    "read_write_rate": lambda f: f.o.sum(f["dasd_read_rate"], f["dasd_write_rate"]),
    "xstor_rate": lambda f: f.o.where(f.o.present(f["migrate_rate"]),
                                      f.o.sum(f["pgin_rate"], f["pgout_rate"], f["migrate_rate"]),
                                      f.o.sum(f["pgin_rate"], f["pgout_rate"])),
    "pgin_rate": lambda f: _rate(f, ("pgin",), "MRSYTXSP"),
    "pgout_rate": lambda f: _rate(f, ("pgout",), "MRSYTXSP"),
    "migrate_rate": lambda f: _rate(f, ("migrations",), "MRSYTXSP"),
    "dasd_read_rate": lambda f: f.o.where(f["_has_rd"], f["_rd0"], _rate(f, ("dasd_page_reads",), "MRSTORSP")),
    "dasd_write_rate": lambda f: f.o.where(f["_has_rd"], _rate(f, ("page_writes",), "MRSYTSYP"),
                                           _rate(f, ("dasd_page_writes",), "MRSTORSP")),
    "spool_rate": lambda f: _rate(f, ("spool_reads", "spool_writes"), "MRSYTSYP"),
    "steal_rate": lambda f: _rate(f, ("steals",), "MRSYTRSP"),
    "steals": lambda f: f.col("steals"),
    "steals_pass1": lambda f: f.col("steal_pass1"),
    "steals_pass2": lambda f: f.col("steal_pass2"),
    "steals_emergency": lambda f: f.col("steal_emerg"),
    "frame_deferred_rate": lambda f: _rate(f, ("frame_deferred",), "MRSYTRSP"),
    "frame_waits": lambda f: f.o.where(f["_has_fw"], f.col("frame_waits"), f.col("rsg_frame_waits")),
    "frame_wait_rate": lambda f: f.o.ratio(f["frame_waits"], f.o.where(f["_has_fw"], f.col("sec_MRSTORSG"),
                                                                          f.col("sec_MRSYTRSG"))),
    "list_empty": lambda f: f.col("list_empty"),
    "list_empty_rate": lambda f: _rate(f, ("list_empty",), "MRSTORSG"),
    "emergency_scans": lambda f: f.col("emergency_scans"),
    "emergency_scan_rate": lambda f: _rate(f, ("emergency_scans",), "MRSTORSG"),
    "scans": lambda f: f.col("scans"),
    "avail_frames": lambda f: _level(f, "avail_frames", "MRSYTRSG"),
    "min_avail_frames": lambda f: f.col("min_avail_frames"),
    "max_avail_frames": lambda f: f.col("max_avail_frames"),
    "pageable_frames": lambda f: _level(f, "pageable_frames", "MRSYTRSG"),
    "cp_locked": lambda f: _level(f, "cp_locked", "MRSYTRSG"),
    "avail_low": lambda f: _level(f, "avail_low", "MRSTORSG"),
    "avail_high": lambda f: _level(f, "avail_high", "MRSTORSG"),
    "avail_low_g": lambda f: _level(f, "avail_low_g", "MRSTORSG"),
    "avail_high_g": lambda f: _level(f, "avail_high_g", "MRSTORSG"),
    "slots_total": lambda f: _level(f, "slots_total", "MRSYTASG"),
    "slots_used": lambda f: _level(f, "slots_used", "MRSYTASG"),
    "slots_used_pct": lambda f: f.o.pct(f["slots_used"], f["slots_total"]),
    "spool_total": lambda f: _level(f, "spool_total", "MRSYTASG"),
    "spool_used": lambda f: _level(f, "spool_used", "MRSYTASG"),
    "spool_used_pct": lambda f: f.o.pct(f["spool_used"], f["spool_total"]),
    "dump_total": lambda f: _level(f, "dump_total", "MRSYTASG"),
    "dump_used": lambda f: _level(f, "dump_used", "MRSYTASG"),
    "full90": lambda f: f.col("full90"),
    "xstor_total": lambda f: f["_xs_total"],
    "xstor_free": lambda f: f["_xs_free"],
    "xstor_used": lambda f: f.o.sub(f["_xs_total"], f["_xs_free"]),
    "xstor_used_pct": lambda f: f.o.pct(f["xstor_used"], f["_xs_total"]),
    "xstor_age_s": lambda f: _level(f, "xstor_age", "MRSTOXSG"),
    "xstor_migrations": lambda f: f.col("xstor_migrations"),
    "page_read_block": lambda f: f.o.ratio(f.col("exp_page_reads"), f.col("exp_ssch_reads")),
    "page_write_block": lambda f: f.o.ratio(f.col("exp_page_writes"), f.col("exp_ssch_writes")),
    "paging_ssch_rate": lambda f: _rate(f, ("exp_ssch",), "MRSTOASP"),
    "users_counted": lambda f: f.o.ratio(f.col("users_counted"), f.col("sec_users")),
}

#: The ``>System<`` figures of USTATLOG and UPAGELOG (all users' samples
#: together; UPAGE as the mean per user, Perfkit's convention), each group
#: computed whole when one of it is first read.
_SYS_HF = ["sys_" + k for k in ("act_pct", *(c for c, _ in HF_STATES), "q0_pct", "q1_pct", "q2_pct", "q3_pct",
                                "e0_3_pct", "hf_samples")]  # fmt: skip
_SYS_UPAGE = ["sys_" + k for k in (*UPAGE_RATES, *UPAGE_LEVELS, "resident")]
_SYS_HF_SET = frozenset(_SYS_HF)
_SYS_GROUP = _SYS_HF_SET | frozenset(_SYS_UPAGE)


class SystemFigures(Mapping[str, Any]):
    """:func:`system_metrics` of one sum (or of columns of sums), each figure
    computed when first read, with the same operations in the same order as
    all of them together (a by-time report reads a few of the ~100): a
    mapping that ``update`` can add to (a report's row builder adds its
    times)."""

    raw: In
    o: Ops

    def __init__(self, raw: In, o: Ops) -> None:
        self.raw = raw
        self.o = o
        self._done: dict[str, Any] = {}

    def col(self, key: str) -> Any:
        return self.o.col(self.raw, key)

    def __getitem__(self, key: str) -> Any:
        done = self._done
        if key in done:
            return done[key]
        make = _SYSTEM.get(key)
        if make is not None:
            v = done[key] = make(self)
            return v
        if key in _SYS_GROUP:
            o = self.o
            if key in _SYS_HF_SET:
                done.update({"sys_" + k: v for k, v in hf_percentages(self.raw, "users_hf_", o).items()})
            else:
                store = {k: self.col("users_" + k) for k in (*UPAGE_RATES, *UPAGE_LEVELS)}
                store["store_seconds"] = o.col_or(self.raw, "users_store_seconds", 0.0)
                # Sum over users of deltas / sum over users of seconds = the mean per user.
                done.update({"sys_" + k: v for k, v in upage_figures(o.sums(self.raw, store), o=o).items()})
            return done[key]
        if key == "sys_users":
            v = done[key] = self["users_counted"]
            return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.all())

    def __len__(self) -> int:
        return len(self.all())

    def update(self, other: Mapping[str, Any] | None = None, /, **kw: Any) -> None:
        """Add values (a row builder's times), read back as figures are."""
        if other is not None:
            self._done.update(other)
        self._done.update(kw)

    def all(self) -> dict[str, Any]:
        """Every figure, in :func:`system_metrics`' order."""
        out = {k: self[k] for k in _SYSTEM if not k.startswith("_")}
        out.update({k: self[k] for k in (*_SYS_HF, *_SYS_UPAGE, "sys_users")})
        extra = {k: v for k, v in self._done.items() if k not in out and not k.startswith("_")}
        out.update(extra)
        return out
