"""The reference implementation of the interval rules: the streaming
Python aggregation that ``ztwin.reports.core`` used before the Rust kernel
(``crates/ztwin-analysis``) took over, kept to check the kernel against it
(``test_kernel_reference.py``). Same rules, written plainly.

Only the order in which users are added into the system sums of one
interval differs from the historical code (which took them in ``set`` order,
so that the last bits of those float sums varied from run to run): here they
are taken in the order of their first record in the sample set, as the
kernel does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ztwin.monitor import read
from ztwin.reports.core import (
    MAX_SERVICE_S,
    TOD_PER_S,
    CompactRaw,
    Config,
    DeviceConf,
    Intervals,
    PagingExtent,
    ReportError,
    Selection,
    SysInterval,
    Tracker,
    UserConf,
    Window,
    _add_level,
    _round_s,
    _text,
    _wanted,
    add,
    domains_from_bits,
    merge,
)
from ztwin.reports.metrics import device_metrics

if TYPE_CHECKING:
    from ztwin._native import StrPath

Raw = dict[str, float]
Fields = Mapping[str, Any]

# --------------------------------------------------------------------------
# Record families
# --------------------------------------------------------------------------

_DOMAIN1_CONFIG = {
    "MRMTRSYS", "MRMTRPRP", "MRMTRDEV", "MRMTRMEM", "MRMTRPAG", "MRMTRSPR", "MRMTRUSR",
    "MRMTRXSG", "MRMTREPR", "MRMTRSCM", "MRMTRECM", "MRMTRDDR", "MRMTRSUS",
}  # fmt: skip

# Per-CPU counters: (record, key field, [(raw key, field)], down-counting fields)
_CPU_COUNTERS: list[tuple[str, str, list[tuple[str, str]], tuple[str, ...]]] = [
    (
        "MRSYTPRP",
        "SYTPRP_PFXCPUAD",
        [
            ("cpu_user", "SYTPRP_PFXUTIME"),
            ("cpu_sys", "SYTPRP_PFXTMSYS"),
            ("cpu_wait", "SYTPRP_PFXTOTWT"),
            ("cpu_emul", "SYTPRP_PFXPRBTM"),
            ("cpu_spin", "SYTPRP_PFXSPINT"),
        ],
        ("SYTPRP_PFXPRBTM",),
    ),
    (
        "MRSYTSYP",
        "SYTSYP_PFXCPUAD",
        [
            ("ssch", "SYTSYP_PLSCTSS"),
            ("rsch", "SYTSYP_PLSCTRS"),
            ("page_reads", "SYTSYP_PLSPIOPR"),
            ("page_writes", "SYTSYP_PLSPIOPW"),
            ("spool_reads", "SYTSYP_PLSPIOSR"),
            ("spool_writes", "SYTSYP_PLSPIOSW"),
            ("diagnose", "SYTSYP_PLSDIAGT"),
            ("simulated", "SYTSYP_PLSPRVIS"),
        ],
        (),
    ),
    (
        "MRSYTRSP",
        "SYTRSP_PFXCPUAD",
        [("steals", "SYTRSP_PLSSTLFR"), ("frame_deferred", "SYTRSP_PLSPRQDF"), ("shared_reads", "SYTRSP_PLSSHRRD")],
        (),
    ),
    (
        "MRSYTXSP",
        "SYTXSP_PFXCPUAD",
        [("pgin", "SYTXSP_PLSPGIN"), ("pgout", "SYTXSP_PLSPGOUT"), ("migrations", "SYTXSP_PLSPGMRD")],
        (),
    ),
    (
        "MRSTORSP",
        "STORSP_PFXCPUAD",
        [
            ("dasd_page_reads", "STORSP_PLSPGDRD"),
            ("dasd_page_writes", "STORSP_PLSPGDWT"),
            ("steal_pass1", "STORSP_PLSLTD1"),
            ("steal_pass1", "STORSP_PLSDORM1"),
            ("steal_pass1", "STORSP_PLSSHAR1"),
            ("steal_pass1", "STORSP_PLSELIG1"),
            ("steal_pass1", "STORSP_PLSDISP1"),
            ("steal_pass2", "STORSP_PLSLTD2"),
            ("steal_pass2", "STORSP_PLSDORM2"),
            ("steal_pass2", "STORSP_PLSELIG2"),
            ("steal_pass2", "STORSP_PLSDISP2"),
            ("steal_emerg", "STORSP_PLSSHARE"),
            ("steal_emerg", "STORSP_PLSDORME"),
            ("steal_emerg", "STORSP_PLSELIGE"),
            ("steal_emerg", "STORSP_PLSDISPE"),
        ],
        (),
    ),
    (
        "MRPRCPRP",
        "PRCPRP_PFXCPUAD",
        [("hf_count", "PRCPRP_HFCOUNT"), ("dispatches", "PRCPRP_PFXDSPCS")],
        (),
    ),
]

# Global records: (record, [(raw key, counter field)], [(raw key, level field)])
_GLOBAL: list[tuple[str, list[tuple[str, str]], list[tuple[str, str]]]] = [
    (
        "MRSYTRSG",
        [("rsg_frame_waits", "SYTRSG_RSAFRQWT")],
        [
            ("avail_frames", "SYTRSG_RSAAVAIL"),
            ("pageable_frames", "SYTRSG_RSAPGABL"),
            ("cp_locked", "SYTRSG_RSACPLOK"),
            ("nonpageable", "SYTRSG_RSANONPG"),
            ("save_frames", "SYTRSG_RSASAVFR"),
            ("reserved_frames", "SYTRSG_SYSRSVPG"),
        ],
    ),
    (
        "MRSTORSG",
        [
            ("emergency_scans", "STORSG_RSAEMERG"),
            ("list_empty", "STORSG_RSAEMPTY"),
            ("frame_waits", "STORSG_RSAFRQWT"),
            ("scans", "STORSG_RSASTLWT"),
        ],
        [
            ("avail_low", "STORSG_RSAAVLLT"),
            ("avail_high", "STORSG_RSAAVLHT"),
            ("avail_low_g", "STORSG_RSAAVLLG"),
            ("avail_high_g", "STORSG_RSAAVLHG"),
            ("max_pageable", "STORSG_RSAMAXPP"),
        ],
    ),
    (
        "MRSYTASG",
        [("full90", "SYTASG_CAL90FUL")],
        [
            ("slots_total", "SYTASG_CALSLTA1"),
            ("slots_used", "SYTASG_CALSLTI1"),
            ("spool_total", "SYTASG_CALSLTA2"),
            ("spool_used", "SYTASG_CALSLTI2"),
            ("dump_total", "SYTASG_CALDMPAV"),
            ("dump_used", "SYTASG_CALDMPIU"),
        ],
    ),
    (
        "MRSYTUWT",
        [
            ("uwt_ti", "SYTUWT_CALTIDL"),
            ("uwt_tiw", "SYTUWT_CALTSVM"),
            ("uwt_iow", "SYTUWT_CALIOWT"),
            ("uwt_pgw", "SYTUWT_CALWTPAG"),
            ("uwt_cfw", "SYTUWT_CALCFWT"),
            ("uwt_sim", "SYTUWT_CALSIMWT"),
            ("uwt_cpu", "SYTUWT_CALCPUWT"),
            ("uwt_run", "SYTUWT_CALCPURN"),
            ("uwt_oth", "SYTUWT_CALOTHR"),
            ("uwt_queue", "SYTUWT_CALQDISP"),
            ("uwt_el", "SYTUWT_CALELSVM"),
            ("uwt_ioa", "SYTUWT_CALIOACT"),
            ("uwt_lim", "SYTUWT_CALLLIST"),
        ],
        [("elist", "SYTUWT_SRMCELIG")],
    ),
    (
        "MRSYTXSG",
        [("xstor_gets", "SYTXSG_XSTXBGET"), ("xstor_releases", "SYTXSG_XSTXBREL")],
        [("xstor_free", "SYTXSG_XSTCTXAV"), ("xstor_total", "SYTXSG_XSTCPPAR")],
    ),
    (
        "MRSTOXSG",
        [("xstor_migrations", "STOXSG_XSTMIGS")],
        [("xstor_age", "STOXSG_XSTSUMAG"), ("xstor_low", "STOXSG_XSTLOTHR")],
    ),
]

_ACT_TIME_FIELDS = [("ttime", "USEACT_VMDTTIME"), ("vtime", "USEACT_VMDVTIME"), ("virtual_io", "USEACT_VMDVDSCT")]
_ACT_STORE_FIELDS = [
    ("page_reads", "USEACT_CALCPPGR"),
    ("page_writes", "USEACT_CALCPPGW"),
    ("steals", "USEACT_CALCPPST"),
    ("x_to_ms", "USEACT_CALCPXRD"),
    ("ms_to_x", "USEACT_CALCPXWT"),
    ("x_to_ds", "USEACT_CALCPMIG"),
    ("faults", "USEACT_VMDCTFLT"),
]
_ACT_LEVELS = [
    ("wss", "USEACT_VMDWSSPR"),
    ("res_lt2g", "USEACT_VMDCTPVR"),
    ("res_gt2g", "USEACT_VMDCTPVG"),
    ("locked", "USEACT_VMDCTPVL"),
    ("xstor", "USEACT_VMDCTXBK"),
    ("dasd", "USEACT_CALCTPGS"),
    ("storage_pages", "USEACT_VMDSSIZE"),
]
_HF_FIELDS = [
    ("hf_total", "USEINT_HFSTCT"),
    ("hf_queue", "USEINT_HFQUCT"),
    ("hf_run", "USEINT_HFCPURN"),
    ("hf_cpu", "USEINT_HFCPUWT"),
    ("hf_ldg", "USEINT_HFLOAD"),
    ("hf_pgw", "USEINT_HFWTPAG"),
    ("hf_iow", "USEINT_HFIOWT"),
    ("hf_sim", "USEINT_HFSIMWT"),
    ("hf_tiw", "USEINT_HFTSVM"),
    ("hf_cfw", "USEINT_HFCFWT"),
    ("hf_ti", "USEINT_HFTIDL"),
    ("hf_el", "USEINT_HFESVM"),
    ("hf_dm", "USEINT_HFDORM"),
    ("hf_ioa", "USEINT_HFIOACT"),
    ("hf_pga", "USEINT_HFPGACT"),
    ("hf_lim", "USEINT_HFLLIST"),
    ("hf_oth", "USEINT_HFOTHR"),
    ("hf_q0", "USEINT_HFDISP0"),
    ("hf_q1", "USEINT_HFDISP1"),
    ("hf_q2", "USEINT_HFDISP2"),
    ("hf_q3", "USEINT_HFDISP3"),
    ("hf_e", "USEINT_HFELIG0"),
    ("hf_e", "USEINT_HFELIG1"),
    ("hf_e", "USEINT_HFELIG2"),
    ("hf_e", "USEINT_HFELIG3"),
]
# IODDEV_HFRDEVCT / HFCTIO: high-frequency counts of queued requests and of
# I/O active, RDEVMCIA: minidisk-cache I/Os avoided (meanings inferred from the
# names). The number of high-frequency samples is not in the record: it is the
# processors' (PRCPRP_HFCOUNT).
_DEV_FIELDS = [
    "IODDEV_HFRDEVCT", "IODDEV_HFCTIO",
    "IODDEV_SCMSSCH", "IODDEV_SCMCOUNT", "IODDEV_SCMCNTIM", "IODDEV_SCMFPTIM",
    "IODDEV_SCMDDTIM", "IODDEV_SCMCQTIM", "IODDEV_SCGSSCH", "IODDEV_SCGCOUNT", "IODDEV_RDEVMCIA",
    "IODDEV_PAVUSES", "IODDEV_PAVINELG",
]  # fmt: skip
_EXP_FIELDS = [
    "STOASP_EXPCTSRD", "STOASP_EXPCTSWR", "STOASP_EXPCTPRD", "STOASP_EXPCTPWR",
    "STOASP_SCMSSCH", "STOASP_SCGSSCH",
]  # fmt: skip
_EXP_LEVELS = [
    ("queue", "STOASP_EXPCURQC"),
    ("mload_us", "STOASP_EXPMLOAD"),
    ("slots_used", "STOASP_CPVALOCD"),
    ("page_slots", "STOASP_CALPAGE"),
    ("spool_slots", "STOASP_CALSPOOL"),
]
#: User sums added into the system sums (T/V, capture ratio, >System< lines).
_SYS_USER_KEYS = [("ttime", "user_ttime"), ("vtime", "user_vtime"), ("store_seconds", "users_store_seconds")]
_SYS_USER_KEYS += [(k, "users_" + k) for k in dict.fromkeys(k for k, _ in _HF_FIELDS)]
_SYS_USER_KEYS += [(k, "users_" + k) for k, _ in _ACT_STORE_FIELDS]
_SYS_LEVEL_KEYS = [(k, "users_" + k) for k, _ in _ACT_LEVELS]
#: Device classes that are DASD (RDEVCLAS X'04').
DASD_CLASS = 0x04


def device_implausible(raw: Raw) -> bool:
    """A device busy beyond the interval or serving an I/O beyond
    MAX_SERVICE_S (times in 128 us units)."""
    t = raw["seconds"]
    busy = (float(raw.get("conn", 0.0)) + float(raw.get("disc", 0.0))) * 128e-6
    if t > 0.0 and busy > 1.05 * t + 0.01:
        return True
    io = float(raw.get("measured", 0.0))
    serv = (float(raw.get("conn", 0.0)) + float(raw.get("pend", 0.0)) + float(raw.get("disc", 0.0))) * 128e-6
    return io >= 1.0 and serv / io > MAX_SERVICE_S


def device_raw(seconds: float, d: list[int | None], cur: Fields, hf_samples: float | None = None) -> Raw:
    """Additive sums of one device interval from MRIODDEV deltas (in
    ``_DEV_FIELDS`` order). The SSCH and measured-I/O counts come from the
    32-bit SCG counters when the record has them (non-zero), else from the
    16-bit SCM counters, else from CP's RDEVSSCH. The high-frequency sample
    count, absent from the record, is ``hf_samples`` (the processors')."""
    (hfqueue, hfbusy, scmssch, scmcount, conn, pend, disc, cuq, scgssch, scgcount, mdc, pav_uses, pav_inelig) = d
    rdevssch = None
    hfcount = hf_samples or None
    raw: Raw = {"seconds": seconds}
    ssch = scgssch if cur.get("IODDEV_SCGSSCH") and scgssch is not None else scmssch
    if ssch is None:
        ssch = rdevssch
    count = scgcount if cur.get("IODDEV_SCGCOUNT") and scgcount is not None else scmcount
    if count is None:
        count = ssch
    add(raw, "ssch", ssch)
    add(raw, "measured", count)
    add(raw, "conn", conn)
    add(raw, "pend", pend)
    add(raw, "disc", disc)
    add(raw, "cuq", cuq)
    add(raw, "hf_count", hfcount)
    add(raw, "hf_queue", hfqueue)
    add(raw, "hf_busy", hfbusy)
    add(raw, "mdc_hits", mdc)
    add(raw, "pav_uses", pav_uses)
    add(raw, "pav_inelig", pav_inelig)
    return raw


class Collector:
    """Reads a file once and fills an :class:`Intervals`; see :func:`collect`."""

    def __init__(
        self,
        path: StrPath,
        window: Window | None = None,
        users: Selection = None,
        devices: Selection = None,
        exposures: Selection = None,
    ) -> None:
        self.iv = Intervals(str(path), Config(), window or Window())
        self.sel_users = {u.upper() for u in users} if isinstance(users, set) else users
        self.sel_devices = devices
        self.sel_exposures = exposures
        self._set: dict[str, list[tuple[int, Fields]]] = defaultdict(list)
        self._set_first: int | None = None
        self._set_last: int = 0
        self._seen_end = False
        self._prev_end: int | None = None
        self._seq = 0
        self._set_cpus = 0
        self._set_cpu_bad = False
        self._from: datetime | None = None
        self._to: datetime | None = None
        self._resolved = False
        self._stop = False
        self._user_gen: dict[str, int] = defaultdict(int)
        self._dev_gen: dict[int, int] = defaultdict(int)
        self._cpu = [(rec, key, [k for k, _ in f], Tracker([n for _, n in f], down)) for rec, key, f, down in _CPU_COUNTERS]
        self._global = [
            (rec, [k for k, _ in c], Tracker([n for _, n in c]), lv) for rec, c, lv in _GLOBAL
        ]
        self._act_time = Tracker([n for _, n in _ACT_TIME_FIELDS])
        self._act_store = Tracker([n for _, n in _ACT_STORE_FIELDS])
        self._hf = Tracker([n for _, n in _HF_FIELDS])
        self._dev = Tracker(_DEV_FIELDS)
        self._exp = Tracker(_EXP_FIELDS)
        self._lcpu = Tracker(["SYTCUP_LCUCACTM", "SYTCUP_LCUCLPTM"])

    # -- reading ---------------------------------------------------------

    def run(self) -> Intervals:
        reader = read(self.iv.path)
        for rec in reader:
            self._record(rec)
            if self._stop:
                self.iv.stopped_early = True
                break
        else:
            if self._set and not self._seen_end:
                # A writer that never closes its sets with MRMTREND: take the last one.
                self._close_set(self._set_last)
        self.iv.stats = reader.stats()
        # A logon record (MRUSELON) has no virtual CPU count (IBM): count the
        # user's virtual CPUs from its activity records.
        for userid, u in self.iv.config.users.items():
            t = self.iv.users.get(userid)
            if u.vcpus is None and t and t.get("seconds") and t.get("vcpu_seconds"):
                u.vcpus = round(t["vcpu_seconds"] / t["seconds"])
        return self.iv

    def _record(self, rec: Mapping[str, Any]) -> None:
        name: str = rec["name"]
        if rec["domain"] == 1:
            if name == "MRMTREND":
                if rec["kind"] == "sample":
                    self._seen_end = True
                    self._close_set(rec["tod_raw"])
                return
            if name in _DOMAIN1_CONFIG:
                self._config(name, rec["tod_raw"], rec["fields"])
            return
        if rec["kind"] == "event":
            self._event(name, rec["tod_raw"], rec["fields"])
            return
        tod: int = rec["tod_raw"]
        if self._set_first is None:
            self._set_first = tod
        elif not self._seen_end and tod - self._set_first > TOD_PER_S // 2:
            # No MRMTREND seen so far: a jump in time starts a new set.
            self._close_set(self._set_last)
            self._set_first = tod
        self._set_last = tod
        self._set[name].append((tod, rec["fields"]))

    # -- configuration and events ----------------------------------------

    def _config(self, name: str, tod: int, f: Fields) -> None:
        c = self.iv.config
        if name == "MRMTRSYS":
            zone = f.get("MTRSYS_SYSZONE")
            if isinstance(zone, int) and abs(zone) <= 86_400:
                c.zone_s = zone
            c.system_id = _text(f.get("MTRSYS_SYSTMID"))
            c.cp_level = _text(f.get("MTRSYS_HCPCPEID"))
            c.machine_type = _text(f.get("MTRSYS_SYSMTYPE"))
            c.machine_model = _text(f.get("MTRSYS_SYSMMODL"))
            c.lpar_name = _text(f.get("MTRSYS_LPARNAME"))
            c.lpar_number = f.get("MTRSYS_LPNUMBER")
            c.cpu_count = f.get("MTRSYS_CPUCOUNT")
            ipl = f.get("MTRSYS_SYSTODST")
            if isinstance(ipl, str) and not ipl.startswith("1900-01-01"):
                c.ipl = _iso_local(ipl, c.zone_s)
        elif name == "MRMTRPRP":
            cpu = f.get("MTRPRP_PFXCPUAD")
            if cpu is not None:
                c.cpus[cpu] = f.get("MTRPRP_PFXCPUTY")
        elif name == "MRMTRDEV":
            devno = f.get("MTRDEV_RDEVDEV")
            if devno is not None:
                d = c.devices.setdefault(devno, DeviceConf(devno))
                d.volser = _text(f.get("MTRDEV_RDEVSER")) or d.volser
                dvid = _text(f.get("MTRDEV_RDEVDVID"))
                d.dvid = dvid if dvid and dvid != "0000" else d.dvid
                d.model = f.get("MTRDEV_CALMODLN") or d.model
                d.type_code = f.get("MTRDEV_RDEVTYPE")
                d.dev_class = f.get("MTRDEV_RDEVCLAS")
                d.sid = f.get("MTRDEV_RDEVSID")
                base = f.get("MTRDEV_CALRDEVDEV")
                d.base = base if base and base != devno else None
        elif name == "MRMTRMEM":
            g = f.get("MTRMEM_RSAGSTOR")
            c.storage_bytes = g if g else f.get("MTRMEM_RSASTORE")
        elif name == "MRMTRPAG":
            # MTRPAG_CALTYPE: 'PAGE' or 'SPOL'; the extent is CALCYLNO cylinders from CALSTART.
            kind = {"PAGE": "PAGE", "SPOL": "SPOOL"}.get(_text(f.get("MTRPAG_CALTYPE")) or "", "?????")
            start, count = f.get("MTRPAG_CALSTART"), f.get("MTRPAG_CALCYLNO")
            end = start + count - 1 if isinstance(start, int) and isinstance(count, int) and count else None
            ppc = f.get("MTRPAG_RDCPCYL")
            slots = count * ppc if isinstance(count, int) and isinstance(ppc, int) and count and ppc else None
            c.paging.append(
                PagingExtent(_text(f.get("MTRPAG_CPVOLSER")) or "", f.get("MTRPAG_RDEVDEV"), kind, start, end, slots)
            )
        elif name == "MRMTRSPR":
            c.sample_interval_s = f.get("MTRSPR_INTERVAL")
            hf = f.get("MTRSPR_HFRATE")
            c.hf_rate_s = hf / 100 if isinstance(hf, int) else None
            c.sample_domains = domains_from_bits(f.get("MTRSPR_SDOMAINS"))
            c.hf_domains = domains_from_bits(f.get("MTRSPR_HDOMAINS"))
        elif name == "MRMTREPR":
            c.event_domains = domains_from_bits(f.get("MTREPR_EDOMAINS"))
        elif name == "MRMTRUSR":
            self._user_conf("MTRUSR", f, "MRMTRUSR")
        elif name == "MRMTRXSG":
            c.xstor_blocks = f.get("MTRXSG_XSTOTALB")
        elif name in ("MRMTRSCM", "MRMTRECM"):
            text = _text(f.get("MTRSCM_CALCMD") if name == "MRMTRSCM" else f.get("MTRECM_CALCMD"))
            if text:
                c.commands.append((c.local(tod), text))

    def _user_conf(self, prefix: str, f: Fields, source: str) -> UserConf | None:
        userid = _text(f.get(f"{prefix}_VMDUSER"))
        if userid is None:
            return None
        # CALSTAT X'40' is VMDQDSPU (QUICKDSP) on IBM's MRUSELON page.
        flags = f.get(f"{prefix}_CALSTAT")
        logon = f.get(f"{prefix}_CALTODON")
        u = UserConf(
            userid,
            vcpus=f.get(f"{prefix}_VMDCPUCT"),
            quickdsp=bool(int(flags, 16) & 0x40) if isinstance(flags, str) and flags else None,
            relshare=f.get(f"{prefix}_VMDRELSH"),
            absshare=f.get(f"{prefix}_VMDABSSH"),
            maxshare=f.get(f"{prefix}_VMDMXSHR"),
            storage_pages=f.get(f"{prefix}_VMDSSIZE"),
            reserved_pages=f.get(f"{prefix}_VMDRSRVD"),
            account=_text(f.get(f"{prefix}_VMDACTNO")),
            logon=_iso_local(logon, self.iv.config.zone_s) if isinstance(logon, str) else None,
            source=source,
        )
        self.iv.config.users[userid] = u
        return u

    def _event(self, name: str, tod: int, f: Fields) -> None:
        if name == "MRUSELON":
            u = self._user_conf("USELON", f, "MRUSELON")
            if u is not None:
                self._user_gen[u.userid] += 1
        elif name == "MRUSELOF":
            userid = _text(f.get("USELOF_VMDUSER"))
            if userid is not None:
                self._user_gen[userid] += 1
                u = self.iv.config.users.get(userid)
                if u is not None:
                    u.logoff = self.iv.config.local(tod)
        elif name in ("MRIODVON", "MRIODVOF"):
            devno = f.get("IODVON_RDEVDEV" if name == "MRIODVON" else "IODVOF_RDEVDEV")
            if devno is not None:
                self._dev_gen[devno] += 1

    # -- closing a sample set --------------------------------------------

    def _window_status(self, start: datetime, end: datetime) -> str:
        if not self._resolved:
            self._resolved = True
            w = self.iv.window
            day = start
            self._from = w.start.resolve(day) if w.start else None
            self._to = w.end.resolve(day) if w.end else None
            if self._from is not None and self._to is not None and self._from >= self._to:
                raise ReportError(f"--from {w.start.text} is not before --to {w.end.text}")  # type: ignore[union-attr]
        s, e = _round_s(start), _round_s(end)
        if self._to is not None and e > self._to:
            return "after"
        if self._from is not None and s < self._from:
            return "before"
        return "in"

    def _close_set(self, end_tod: int) -> None:
        records = self._set
        self._set = defaultdict(list)
        self._set_first = None
        if not records:
            return
        self._seq += 1
        seq = self._seq
        cfg = self.iv.config
        prev_end, self._prev_end = self._prev_end, end_tod
        end = cfg.local(end_tod)
        if self.iv.data_start is None:
            self.iv.data_start = end
        self.iv.data_end = end
        self.iv.sets += 1
        iv: SysInterval | None = None
        if prev_end is not None and end_tod > prev_end:
            start = cfg.local(prev_end)
            status = self._window_status(start, end)
            if status == "after":
                self._stop = True
                return
            if status == "in":
                iv = SysInterval(len(self.iv.intervals), prev_end, end_tod, start, end, (end_tod - prev_end) / TOD_PER_S)
                iv.raw["seconds"] = iv.seconds
                iv.raw["intervals"] = 1
        self._cpus(records, seq, iv)
        self._globals(records, seq, iv)
        self._lpar(records, seq, iv)
        self._users(records, seq, iv)
        if iv is not None:
            tt, cu = iv.raw.get("user_ttime"), iv.raw.get("cpu_user")
            if tt is not None and (cu is None or self._set_cpu_bad):
                iv.raw.pop("user_ttime", None)
                iv.raw.pop("user_vtime", None)
            elif tt is not None and cu is not None:
                busy = cu + iv.raw.get("cpu_sys", 0.0)
                if tt > 1.05 * busy + 0.01 * iv.seconds:  # capture ratio above 1: implausible
                    iv.raw.pop("user_ttime", None)
                    iv.raw.pop("user_vtime", None)
        self._devices(records, seq, iv)
        self._exposures(records, seq, iv)
        if iv is not None:
            iv.raw = CompactRaw(iv.raw, "system")  # type: ignore[assignment]
            iv.cpus = {k: CompactRaw(v, "cpu") for k, v in iv.cpus.items()}  # type: ignore[misc]
            iv.lpar = {k: CompactRaw(v, "lpar") for k, v in iv.lpar.items()}  # type: ignore[misc]
            self.iv.intervals.append(iv)

    def _cpus(self, records: dict[str, list[tuple[int, Fields]]], seq: int, iv: SysInterval | None) -> None:
        self._set_cpus = len({f.get("SYTPRP_PFXCPUAD", 0) for _, f in records.get("MRSYTPRP", [])})
        self._set_cpu_bad = False
        for rec, keyf, keys, tr in self._cpu:
            rows = records.get(rec)
            if not rows:
                continue
            seen = False
            for tod, f in rows:
                cpu: int = f.get(keyf, 0)
                if iv is None:
                    tr.note(cpu, seq, tod, f)
                    continue
                r = tr.delta(cpu, seq, tod, f)
                if r is None:
                    self._set_cpu_bad |= rec == "MRSYTPRP" and tr.implausible
                    continue
                seconds, d = r
                if rec == "MRSYTPRP" and any(v is not None and v / TOD_PER_S > 1.05 * seconds + 0.01 for v in d[:4]):
                    self._set_cpu_bad = True
                    continue  # a CPU time longer than the interval: implausible
                seen = True
                per = iv.cpus.setdefault(cpu, {})
                if rec == "MRSYTPRP":
                    per["seconds"] = seconds
                    cputy = f.get("SYTPRP_PFXCPUTY")
                    if cputy is not None:
                        self.iv.config.cpus.setdefault(cpu, cputy)
                    # busy = T - wait, at most user + system; times in seconds
                    user, sys_, wait, emul, spin = (None if v is None else v / TOD_PER_S for v in d)
                    busy = max(0.0, seconds - wait) if wait is not None else (
                        None if user is None else user + (sys_ or 0.0)
                    )
                    if wait is not None and user is not None and sys_ is not None and user + sys_ < busy:
                        busy = user + sys_
                    vals = {"cpu_busy": busy, "cpu_user": user, "cpu_sys": sys_, "cpu_wait": wait,
                            "cpu_emul": emul, "cpu_spin": spin}  # fmt: skip
                    add(iv.raw, "cpu_seconds", seconds)
                    for k, v in vals.items():
                        add(per, k, v)
                        add(iv.raw, k, v)
                else:
                    for k, v in zip(keys, d, strict=True):
                        add(per, k, v)
                        add(iv.raw, k, v)
            if seen and iv is not None:
                add(iv.raw, "sec_" + rec, iv.seconds)
        if iv is not None:
            for cpu, per in iv.cpus.items():
                merge(self.iv.cpus.setdefault(cpu, {}), per)

    def _globals(self, records: dict[str, list[tuple[int, Fields]]], seq: int, iv: SysInterval | None) -> None:
        for rec, keys, tr, levels in self._global:
            rows = records.get(rec)
            if not rows:
                continue
            tod, f = rows[-1]
            if iv is None:
                tr.note(None, seq, tod, f)
                continue
            raw = iv.raw
            r = tr.delta(None, seq, tod, f)
            if r is not None:
                add(raw, "sec_" + rec, iv.seconds)
                for k, v in zip(keys, r[1], strict=True):
                    add(raw, k, v)
            add(raw, "lsec_" + rec, iv.seconds)
            for k, name in levels:
                _add_level(raw, k, f.get(name), iv.seconds)
        # LPAR description (levels, last value wins)
        cug = records.get("MRSYTCUG")
        if cug:
            f = cug[-1][1]
            c = self.iv.config
            c.partitions = f.get("SYTCUG_LCUTNPAR")
            c.physical_cpus = f.get("SYTCUG_LCUTPCCT")
            c.time_slice_ms = f.get("SYTCUG_LCUTSLCE")
            if c.lpar_name is None:
                c.lpar_name = _text(f.get("SYTCUG_LPARNAME"))

    def _lpar(self, records: dict[str, list[tuple[int, Fields]]], seq: int, iv: SysInterval | None) -> None:
        rows = records.get("MRSYTCUP")
        if not rows:
            return
        lpars = self.iv.config.lpars
        for tod, f in rows:
            pname = _text(f.get("SYTCUP_LCUPNAME")) or f"LP{f.get('SYTCUP_LCUPPNUM')}"
            info = lpars.setdefault(pname, {})
            # One record per partition, or (from z/VM 6.3) several: entries are
            # keyed by partition and CPU, never by record.
            info.update(
                number=f.get("SYTCUP_LCUPPNUM"),
                logical_cpus=f.get("SYTCUP_LCUPCPCT"),
                weight=None,
                dedicated=None,
                cpu_type=_text(f.get("SYTCUP_LCPTYPE")),
            )
            entries = f.get("SYTCUP_CPUDATA") or []
            lcpus = info.setdefault("lcpus", {})
            for e in entries:
                cpu = e.get("SYTCUP_LCUCPUID")
                lcpus[cpu] = {"weight": e.get("SYTCUP_LCUCWGHT"), "cpu_type": _text(e.get("SYTCUP_LCXCPTYP"))}
                key = (pname, cpu)
                if iv is None:
                    self._lcpu.note(key, seq, tod, e)
                    continue
                r = self._lcpu.delta(key, seq, tod, e)
                if r is None:
                    continue
                seconds, (dsp, ovh) = r
                raw: Raw = {"seconds": seconds}
                add(raw, "dispatch", None if dsp is None else dsp / TOD_PER_S)
                add(raw, "overhead", None if ovh is None else ovh / TOD_PER_S)
                iv.lpar[key] = raw
                merge(self.iv.lpar.setdefault(key, {}), raw)

    def _users(self, records: dict[str, list[tuple[int, Fields]]], seq: int, iv: SysInterval | None) -> None:
        act = records.get("MRUSEACT", [])
        hfr = records.get("MRUSEINT", [])
        if not act and not hfr:
            return
        by_user: dict[str, list[tuple[int, Fields]]] = defaultdict(list)
        for tod, f in act:
            u = _text(f.get("USEACT_VMDUSER"))
            if u is not None:
                by_user[u].append((tod, f))
        hf_by_user: dict[str, list[tuple[int, Fields]]] = defaultdict(list)
        for tod, f in hfr:
            u = _text(f.get("USEINT_VMDUSER"))
            if u is not None:
                hf_by_user[u].append((tod, f))
        logged = list(dict.fromkeys([*by_user, *hf_by_user]))
        sysraw = iv.raw if iv is not None else None
        if sysraw is not None:
            add(sysraw, "sec_users", iv.seconds)  # type: ignore[union-attr]
            add(sysraw, "users_logged", len(logged) * iv.seconds)  # type: ignore[union-attr]
        active = 0
        for user in logged:
            gen = self._user_gen.get(user, 0)
            recs = by_user.get(user, [])
            raw: Raw = {}
            seconds: float | None = None
            base = min(recs, key=lambda r: r[1].get("USEACT_VMDCPUAD") or 0) if recs else None
            for tod, f in recs:
                key = (user, f.get("USEACT_VMDCPUAD"))
                g = (gen, f.get("USEACT_CALTODON"))
                if iv is None:
                    self._act_time.note(key, seq, tod, f, g)
                    continue
                r = self._act_time.delta(key, seq, tod, f, g)
                if r is None:
                    continue
                tt = r[1][0]
                cpus = self._set_cpus or 64
                if tt is not None and tt / TOD_PER_S > 1.05 * r[0] * cpus + 0.01:
                    continue  # more processor time than the processors give
                seconds = seconds or r[0]
                add(raw, "vcpu_seconds", r[0])
                for (k, _), v in zip(_ACT_TIME_FIELDS, r[1], strict=True):
                    if k == "virtual_io":
                        add(raw, k, v)
                    else:
                        add(raw, k, None if v is None else v / TOD_PER_S)
            if base is not None:
                tod, f = base
                g = (gen, f.get("USEACT_CALTODON"))
                if iv is None:
                    self._act_store.note(user, seq, tod, f, g)
                else:
                    r = self._act_store.delta(user, seq, tod, f, g)
                    if r is not None:
                        seconds = seconds or r[0]
                        raw["store_seconds"] = r[0]
                        for (k, _), v in zip(_ACT_STORE_FIELDS, r[1], strict=True):
                            add(raw, k, v)
                        for k, name in _ACT_LEVELS:
                            v = f.get(name)
                            if v is not None:
                                raw[k] = v * r[0]
            # the logon time on the user's activity record also renews the wait-state baselines
            hgen = (gen, base[1].get("USEACT_CALTODON") if base is not None else None)
            for tod, f in hf_by_user.get(user, []):
                key = (user, f.get("USEINT_VMDCPUAD"))
                if iv is None:
                    self._hf.note(key, seq, tod, f, hgen)
                    continue
                r = self._hf.delta(key, seq, tod, f, hgen)
                if r is None:
                    continue
                seconds = seconds or r[0]
                for (k, _), v in zip(_HF_FIELDS, r[1], strict=True):
                    if v is not None:
                        raw[k] = raw.get(k, 0) + v
            if iv is None or seconds is None:
                continue
            raw["seconds"] = seconds
            raw["intervals"] = 1
            if raw.get("ttime", 0) > 0 or raw.get("hf_queue", 0) > 0:
                active += 1
                raw["active_seconds"] = seconds
            totals = self.iv.users.get(user)
            if totals is None:
                self.iv.users[user] = dict(raw)
            else:
                tget = totals.get
                for k, x in raw.items():  # users' sums have no min_/max_ keys
                    totals[k] = tget(k, 0) + x
            if _wanted(self.sel_users, user):
                self.iv.user_series.setdefault(user, []).append((iv.index, CompactRaw(raw, "user")))  # type: ignore[arg-type]
            # system sums over users (T/V, capture ratio, >System< lines)
            assert sysraw is not None
            sget = sysraw.get
            sysraw["users_counted"] = sget("users_counted", 0) + iv.seconds
            rget = raw.get
            for k, sk in _SYS_USER_KEYS:
                y = rget(k)
                if y is not None:
                    sysraw[sk] = sget(sk, 0) + y
            if "store_seconds" in raw:
                sysraw["users_store_n"] = sget("users_store_n", 0) + iv.seconds
                for k, sk in _SYS_LEVEL_KEYS:
                    y = rget(k)
                    if y is not None:
                        sysraw[sk] = sget(sk, 0) + y
        if sysraw is not None:
            add(sysraw, "users_active", active * iv.seconds)  # type: ignore[union-attr]

    def _devices(self, records: dict[str, list[tuple[int, Fields]]], seq: int, iv: SysInterval | None) -> None:
        rows = records.get("MRIODDEV")
        if not rows:
            return
        seen = False
        for tod, f in rows:
            devno = f.get("IODDEV_RDEVDEV")
            if devno is None:
                continue
            gen = self._dev_gen.get(devno, 0)
            info = self.iv.device_info.setdefault(devno, {})
            # Type, class and PAV base are in the device configuration (MRMTRDEV).
            conf = self.iv.config.devices.get(devno)
            info.update(
                volser=_text(f.get("IODDEV_RDEVSER")) or "",
                type_code=None if conf is None else conf.type_code,
                dev_class=None if conf is None else conf.dev_class,
                flags=None,
                base=None if conf is None else conf.base,
            )
            if iv is None:
                self._dev.note(devno, seq, tod, f, gen)
                continue
            r = self._dev.delta(devno, seq, tod, f, gen)
            if r is None:
                continue
            seen = True
            samples = max((per.get("hf_count") or 0 for per in iv.cpus.values()), default=0)
            raw = device_raw(r[0], r[1], f, samples)
            raw["intervals"] = 1
            if device_implausible(raw):
                continue
            merge(self.iv.devices.setdefault(devno, {}), raw)
            if _wanted(self.sel_devices, devno):
                self.iv.device_series.setdefault(devno, []).append((iv.index, CompactRaw(raw, "device")))  # type: ignore[arg-type]
            cls = info.get("dev_class")
            if cls is None or cls == DASD_CLASS:
                m = device_metrics(raw)
                io = raw.get("ssch", 0)
                add(iv.raw, "dasd_ssch", io)
                add(iv.raw, "dasd_devices", iv.seconds)
                if io and m["resp_ms"] is not None:
                    add(iv.raw, "dasd_resp_x_io", m["resp_ms"] * io)
                    add(iv.raw, "dasd_serv_x_io", m["serv_ms"] * io)
                    add(iv.raw, "dasd_resp_io", io)
        if seen and iv is not None:
            add(iv.raw, "sec_MRIODDEV", iv.seconds)

    def _exposures(self, records: dict[str, list[tuple[int, Fields]]], seq: int, iv: SysInterval | None) -> None:
        rows = records.get("MRSTOASP")
        if not rows:
            return
        seen = False
        for tod, f in rows:
            devno = f.get("STOASP_RDEVDEV")
            if devno is None:
                continue
            flag = f.get("STOASP_CALFLAG1")
            self.iv.exposure_info[devno] = {
                "volser": _text(f.get("STOASP_CALVSER")) or "",
                "flags": int(flag, 16) if isinstance(flag, str) and flag else None,
                "page_slots": f.get("STOASP_CALPAGE"),
                "spool_slots": f.get("STOASP_CALSPOOL"),
            }
            gen = self._dev_gen.get(devno, 0)
            if iv is None:
                self._exp.note(devno, seq, tod, f, gen)
                continue
            r = self._exp.delta(devno, seq, tod, f, gen)
            if r is None:
                continue
            seen = True
            seconds, (srd, swr, prd, pwr, scm, scg) = r
            raw: Raw = {"seconds": seconds, "intervals": 1}
            add(raw, "ssch_reads", srd)
            add(raw, "ssch_writes", swr)
            add(raw, "page_reads", prd)
            add(raw, "page_writes", pwr)
            ssch = scg if f.get("STOASP_SCGSSCH") and scg is not None else scm
            if ssch is None and srd is not None and swr is not None:
                ssch = srd + swr
            add(raw, "ssch", ssch)
            for k, name in _EXP_LEVELS:
                _add_level(raw, k, f.get(name), seconds)
            merge(self.iv.exposures.setdefault(devno, {}), raw)
            if _wanted(self.sel_exposures, devno):
                self.iv.exposure_series.setdefault(devno, []).append((iv.index, CompactRaw(raw, "exposure")))  # type: ignore[arg-type]
            for k in ("ssch_reads", "ssch_writes", "page_reads", "page_writes", "ssch"):
                add(iv.raw, "exp_" + k, raw.get(k))
        if seen and iv is not None:
            add(iv.raw, "sec_MRSTOASP", iv.seconds)


def _iso_local(text: str, zone_s: int) -> datetime | None:
    """A decoded TOD field (ISO text, UTC) as local time."""
    try:
        dt = datetime.strptime(text[:26], "%Y-%m-%dT%H:%M:%S.%f")
    except ValueError:
        return None
    return dt + timedelta(seconds=zone_s)


def collect(
    path: StrPath,
    start: str | None = None,
    end: str | None = None,
    *,
    users: Selection = None,
    devices: Selection = None,
    exposures: Selection = None,
) -> Intervals:
    """Read a MONWRITE file once and aggregate it per sample interval.

    ``start``/``end`` (``HH:MM:SS`` on the first sample's date, or
    ``YYYY-MM-DD HH:MM:SS``, local time of the monitored system) limit the
    intervals; ``users``/``devices``/``exposures`` select keys whose
    per-interval sums are kept (``"all"`` or a set; window totals are always
    kept). Raises ``OSError``, :class:`~ztwin.monitor.MonwriteError` or
    :class:`ReportError`.
    """
    return Collector(path, Window.parse(start, end), users, devices, exposures).run()
