"""The formulas of :mod:`ztwin.reports.metrics` over whole columns.

Each function takes ``cols``, a mapping from raw-sum names to numpy float64
arrays of equal length (one element per interval or per key; NaN where a sum
is absent, an absent name is all-NaN) and returns figures as arrays, NaN where
the scalar function gives None. The arithmetic is the scalar functions',
operation for operation and in the same order, so every element equals the
scalar figure of that row's sums to the last bit
(``tests/python/reports/test_vmetrics.py`` checks it on random sums). Used by
the by-time reports (SYSSUMLG, PAGELOG, AVAILLOG, the ``>System<`` lines of
USTATLOG and UPAGELOG, the user logs), TREND and the exports, so that no
Python object is made per interval and field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ztwin.reports.metrics import HF_STATES, SCM_MS, UPAGE_LEVELS, UPAGE_RATES

Arr = np.ndarray[Any, np.dtype[np.float64]]
Cols = Mapping[str, Arr]


class Sums(Mapping[str, Arr]):
    """Columns by name with a length: absent names read as all-NaN, and
    ``get(name, default)`` fills NaN elements with ``default`` (the scalar
    ``raw.get(k, default)``)."""

    def __init__(self, n: int, cols: Mapping[str, Arr] | Callable[[str], Arr | None]) -> None:
        self.n = n
        self._cols = cols
        self._cache: dict[str, Arr] = {}

    def __getitem__(self, key: str) -> Arr:
        a = self._cache.get(key)
        if a is None:
            src = self._cols
            got = src(key) if callable(src) else src.get(key)
            a = np.full(self.n, np.nan) if got is None else np.asarray(got, dtype=np.float64)
            self._cache[key] = a
        return a

    def __iter__(self):  # type: ignore[no-untyped-def]
        src = self._cols
        return iter(() if callable(src) else src)

    def __len__(self) -> int:
        src = self._cols
        return 0 if callable(src) else len(src)

    def has(self, key: str) -> Arr:
        """Where ``key`` is present (``key in raw``)."""
        return ~np.isnan(self[key])

    def or_(self, key: str, default: float) -> Arr:
        """``raw.get(key, default)``."""
        a = self[key]
        return np.where(np.isnan(a), default, a)


def _quiet(fn: Callable[..., dict[str, Arr]]) -> Callable[..., dict[str, Arr]]:
    """Float overflow and invalid operations give inf and NaN silently, as
    Python's float arithmetic does (no numpy warnings)."""

    def wrapped(*args: Any, **kw: Any) -> dict[str, Arr]:
        with np.errstate(all="ignore"):
            return fn(*args, **kw)

    wrapped.__doc__ = fn.__doc__
    wrapped.__name__ = fn.__name__
    return wrapped


def ratio(a: Arr, b: Arr) -> Arr:
    """a / b; NaN where either is absent or b is zero."""
    out = np.full(np.broadcast(a, b).shape, np.nan)
    ok = ~np.isnan(a) & ~np.isnan(b) & (b != 0)
    np.divide(a, b, out=out, where=ok)
    return out


def pct(a: Arr, b: Arr) -> Arr:
    return 100.0 * ratio(a, b)


def _sum(*values: Arr) -> Arr:
    """``metrics._sum``: NaN if any is absent, else 0 + v1 + v2 ... in order."""
    acc = 0.0 + values[0]
    for v in values[1:]:
        acc = acc + v
    return acc  # NaN propagates: absent if any is absent


def _get(raw: Sums, *keys: str) -> Arr:
    """``metrics._get``: the sum of the present keys (0 + ... in order), NaN
    where none is present."""
    n = raw.n
    acc = np.zeros(n)
    any_ = np.zeros(n, dtype=bool)
    for k in keys:
        v = raw[k]
        has = ~np.isnan(v)
        acc = np.where(has, acc + np.where(has, v, 0.0), acc)
        any_ |= has
    return np.where(any_, acc, np.nan)


def _rate(raw: Sums, keys: tuple[str, ...], rec: str) -> Arr:
    return ratio(_get(raw, *keys), raw["sec_" + rec])


def _level(raw: Sums, key: str, rec: str) -> Arr:
    return ratio(raw[key], raw["lsec_" + rec])


def _first(a: Arr, b: Arr) -> Arr:
    """``a if a is not None else b``."""
    return np.where(np.isnan(a), b, a)


@_quiet
def hf_percentages(raw: Sums, prefix: str = "hf_") -> dict[str, Arr]:
    """``metrics.hf_percentages`` over columns."""
    total = raw[prefix + "total"]
    inq = raw[prefix + "queue"]
    out: dict[str, Arr] = {"act_pct": pct(inq, total)}
    for col, state in HF_STATES:
        out[col] = pct(raw[prefix + state], total)
    split = [raw[prefix + k] for k in ("q0", "q1", "q2", "q3", "e")]
    has_split = np.zeros(raw.n, dtype=bool)
    for v in split:
        has_split |= ~np.isnan(v) & (v != 0)
    for col, v in zip(("q0_pct", "q1_pct", "q2_pct", "q3_pct", "e0_3_pct"), split, strict=True):
        out[col] = np.where(has_split, pct(v, inq), np.nan)
    out["hf_samples"] = total
    return out


@_quiet
def upage_figures(raw: Sums, prefix: str = "") -> dict[str, Arr]:
    """``metrics.upage_figures`` over columns."""
    seconds = raw[prefix + "store_seconds"]
    out: dict[str, Arr] = {}
    for k in UPAGE_RATES:
        out[k] = ratio(raw[prefix + k], seconds)
    for k in UPAGE_LEVELS:
        out[k] = ratio(raw[prefix + k], seconds)
    gt = out["res_gt2g"]
    out["resident"] = _sum(out["res_lt2g"], np.where(np.isnan(gt) | (gt == 0), 0.0, gt))
    return out


@_quiet
def user_metrics(raw: Sums) -> dict[str, Arr]:
    """``metrics.user_metrics`` over columns."""
    seconds = raw["seconds"]
    out: dict[str, Arr] = {
        "seconds": seconds,
        "cpu_total_pct": pct(raw["ttime"], seconds),
        "cpu_virtual_pct": pct(raw["vtime"], seconds),
        "tv_ratio": ratio(raw["ttime"], raw["vtime"]),
        "virtual_io_rate": ratio(raw["virtual_io"], seconds),
        "active_pct": pct(raw.or_("active_seconds", 0.0), seconds),
    }
    out.update(hf_percentages(raw))
    out.update(upage_figures(raw))
    return out


@_quiet
def device_metrics(raw: Sums) -> dict[str, Arr]:
    """``metrics.device_metrics`` over columns."""
    seconds = raw["seconds"]
    measured = raw["measured"]
    io_rate = ratio(raw["ssch"], seconds)
    pend, disc, conn, cuwt = (ratio(raw[k], measured) * SCM_MS for k in ("pend", "disc", "conn", "cuq"))
    serv = _sum(pend, disc, conn)
    queued = ratio(raw["hf_queue"], raw["hf_count"])
    # wait_ms: None without a queue; 0 with an empty one; else queue / I/O rate
    # (None when the rate is absent or zero)
    wait_ms = np.where(queued == 0, 0.0, ratio(1000.0 * queued, io_rate))
    wait_ms = np.where(np.isnan(queued), np.nan, wait_ms)
    # resp adds the wait unless it is absent (no queue figure, or no I/O rate)
    # or zero; a wait computed as NaN (an overflowed rate: inf / inf) is
    # added, as the scalar `wait_ms or 0.0` does
    absent = np.isnan(queued) | ((queued != 0) & (np.isnan(io_rate) | (io_rate == 0)))
    resp = serv + np.where(absent | (wait_ms == 0), 0.0, wait_ms)
    busy_time = _sum(raw["conn"], raw["disc"])
    busy = pct(busy_time * SCM_MS / 1000.0, seconds)
    return {
        "io_rate": io_rate,
        "avoid_rate": ratio(raw["mdc_hits"], seconds),
        "pend_ms": pend,
        "disc_ms": disc,
        "conn_ms": conn,
        "serv_ms": serv,
        "resp_ms": resp,
        "cuwt_ms": cuwt,
        "queue_wait_ms": wait_ms,
        "queued": queued,
        "busy_pct": busy,
        "hf_busy_pct": pct(raw["hf_busy"], raw["hf_count"]),
        "ios": raw["ssch"],
        "seconds": seconds,
    }


@_quiet
def system_metrics(raw: Sums) -> dict[str, Arr]:
    """``metrics.system_metrics`` over columns (the same keys)."""
    n = raw.n
    seconds = raw["seconds"]
    cpu_s = raw["cpu_seconds"]
    busy_pct = pct(raw["cpu_busy"], cpu_s)
    online = ratio(cpu_s, seconds)
    tt, vt = raw["user_ttime"], raw["user_vtime"]
    user_tv = np.where(np.isnan(vt) | (vt == 0), np.nan, ratio(tt, vt))
    cpu_user_sys = _sum(raw["cpu_user"], raw.or_("cpu_sys", 0.0))
    tv = _first(ratio(cpu_user_sys, raw["cpu_emul"]), user_tv)
    pgin = _rate(raw, ("pgin",), "MRSYTXSP")
    pgout = _rate(raw, ("pgout",), "MRSYTXSP")
    migr = _rate(raw, ("migrations",), "MRSYTXSP")
    rd = _rate(raw, ("page_reads",), "MRSYTSYP")
    wr = _rate(raw, ("page_writes",), "MRSYTSYP")
    no_rd = np.isnan(rd)
    rd = np.where(no_rd, _rate(raw, ("dasd_page_reads",), "MRSTORSP"), rd)
    wr = np.where(no_rd, _rate(raw, ("dasd_page_writes",), "MRSTORSP"), wr)
    ssch = _first(_rate(raw, ("ssch", "rsch"), "MRSYTSYP"), _rate(raw, ("dasd_ssch",), "MRIODDEV"))
    slots_total = _level(raw, "slots_total", "MRSYTASG")
    slots_used = _level(raw, "slots_used", "MRSYTASG")
    spool_total = _level(raw, "spool_total", "MRSYTASG")
    spool_used = _level(raw, "spool_used", "MRSYTASG")
    xs_total = _level(raw, "xstor_total", "MRSYTXSG")
    xs_free = _level(raw, "xstor_free", "MRSYTXSG")
    xs_used = xs_total - xs_free
    has_fw = raw.has("frame_waits")
    frame_waits = np.where(has_fw, raw["frame_waits"], raw["rsg_frame_waits"])
    frame_sec = np.where(has_fw, raw["sec_MRSTORSG"], raw["sec_MRSYTRSG"])
    out: dict[str, Arr] = {
        "seconds": seconds,
        "cpus_online": online,
        "cpu_busy_pct": busy_pct,
        "cpu_busy_total_pct": busy_pct * online,
        "cpu_user_pct": pct(raw["cpu_user"], cpu_s),
        "cpu_sys_pct": pct(raw["cpu_sys"], cpu_s),
        "cpu_emul_pct": pct(raw["cpu_emul"], cpu_s),
        "cpu_wait_pct": pct(raw["cpu_wait"], cpu_s),
        "tv_ratio": tv,
        "user_tv_ratio": user_tv,
        "capture_ratio": ratio(tt, cpu_user_sys),
        "ssch_rate": ssch,
        "dasd_io_rate": _rate(raw, ("dasd_ssch",), "MRIODDEV"),
        "dasd_resp_ms": ratio(raw["dasd_resp_x_io"], raw["dasd_resp_io"]),
        "dasd_serv_ms": ratio(raw["dasd_serv_x_io"], raw["dasd_resp_io"]),
        "users_logged": ratio(raw["users_logged"], raw["sec_users"]),
        "users_active": ratio(raw["users_active"], raw["sec_users"]),
        "users_in_elist": _level(raw, "elist", "MRSYTUWT"),
        "page_rate": _sum(pgin, pgout),
        "read_write_rate": _sum(rd, wr),
        "xstor_rate": np.where(np.isnan(migr), _sum(pgin, pgout), _sum(pgin, pgout, migr)),
        "pgin_rate": pgin,
        "pgout_rate": pgout,
        "migrate_rate": migr,
        "dasd_read_rate": rd,
        "dasd_write_rate": wr,
        "spool_rate": _rate(raw, ("spool_reads", "spool_writes"), "MRSYTSYP"),
        "steal_rate": _rate(raw, ("steals",), "MRSYTRSP"),
        "steals": raw["steals"],
        "steals_pass1": raw["steal_pass1"],
        "steals_pass2": raw["steal_pass2"],
        "steals_emergency": raw["steal_emerg"],
        "frame_deferred_rate": _rate(raw, ("frame_deferred",), "MRSYTRSP"),
        "frame_waits": frame_waits,
        "frame_wait_rate": ratio(frame_waits, frame_sec),
        "list_empty": raw["list_empty"],
        "list_empty_rate": _rate(raw, ("list_empty",), "MRSTORSG"),
        "emergency_scans": raw["emergency_scans"],
        "emergency_scan_rate": _rate(raw, ("emergency_scans",), "MRSTORSG"),
        "scans": raw["scans"],
        "avail_frames": _level(raw, "avail_frames", "MRSYTRSG"),
        "min_avail_frames": raw["min_avail_frames"],
        "max_avail_frames": raw["max_avail_frames"],
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
        "full90": raw["full90"],
        "xstor_total": xs_total,
        "xstor_free": xs_free,
        "xstor_used": xs_used,
        "xstor_used_pct": pct(xs_used, xs_total),
        "xstor_age_s": _level(raw, "xstor_age", "MRSTOXSG"),
        "xstor_migrations": raw["xstor_migrations"],
        "page_read_block": ratio(raw["exp_page_reads"], raw["exp_ssch_reads"]),
        "page_write_block": ratio(raw["exp_page_writes"], raw["exp_ssch_writes"]),
        "paging_ssch_rate": _rate(raw, ("exp_ssch",), "MRSTOASP"),
        "users_counted": ratio(raw["users_counted"], raw["sec_users"]),
    }
    out.update({"sys_" + k: v for k, v in hf_percentages(raw, "users_hf_").items()})
    # the >System< UPAGE line: the users' sums over their store seconds
    store = {k: raw["users_" + k] for k in (*UPAGE_RATES, *UPAGE_LEVELS)}
    store["store_seconds"] = raw.or_("users_store_seconds", 0.0)
    out.update({"sys_" + k: v for k, v in upage_figures(Sums(n, store)).items()})
    out["sys_users"] = out["users_counted"]
    return out


__all__ = ["Sums", "device_metrics", "hf_percentages", "pct", "ratio", "system_metrics", "upage_figures",
           "user_metrics"]  # fmt: skip
