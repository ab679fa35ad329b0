"""I/O path reports from the records of the storage path: CACHEXT (FCX177,
cached control-unit activity, MRIODCAD), CHANNEL (FCX161-like channel load,
MRSYTEPM), HPALIAS (FCX327-like HyperPAV pool activity, MRIODHPP) and
MDCACHE (FCX134-like minidisk cache, MRSYTXSG / MRSYTRSG), and DEVLOG
(FCX168-like: DEVICE's figures per device per interval).

These records are not in the interval kernel's tables: each report reads its
record type from the file of the collected window (``Intervals.path``) with
:func:`ztwin.monitor.tables` and takes, per key, the counter deltas between
the first and the last sample inside the window (the samples at the window's
start and end), divided by the seconds between them. Figures come only from
decoded records. A file without these records gives empty reports.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ztwin._lazy import lazy
from ztwin.reports.common import hexaddr, new_report
from ztwin.reports.core import Intervals
from ztwin.reports.model import Report
from ztwin.reports.text import NA, Column, Group, Table

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy("pandas")  # imported when first used (import time: see ztwin._lazy)

TOD_PER_S = 4096e6


def _frames(iv: Intervals, names: list[str]) -> dict[str, pd.DataFrame]:
    from ztwin.monitor import tables

    return tables(iv.path, names)


def _window(iv: Intervals, df: pd.DataFrame) -> pd.DataFrame:
    """The samples of `df` inside the collected window (sample times are UTC;
    the window is local time: shifted by the system's zone)."""
    if df.empty or iv.start is None or iv.end is None:
        return df.iloc[0:0]
    zone = timedelta(seconds=iv.config.zone_s)
    local = df["tod"].dt.tz_convert(None) + zone
    lo, hi = iv.start - timedelta(seconds=1), iv.end + timedelta(seconds=1)
    return df[(local >= lo) & (local <= hi)].sort_values("tod", kind="stable")


def _delta(first: pd.Series, last: pd.Series, col: str) -> float | None:
    a, b = first.get(col), last.get(col)
    if a is None or b is None or pd.isna(a) or pd.isna(b):
        return None
    return float(b) - float(a)


def _rate(v: float | None, secs: float) -> float | None:
    return None if v is None or secs <= 0 else v / secs


def _pct(part: float | None, whole: float | None) -> float | None:
    return None if part is None or not whole else 100.0 * part / whole


# ------------------------------------------------------------------ CACHEXT

CACHEXT_KEYS = [
    "addr", "total_rate", "read_nseq_rate", "read_seq_rate", "write_rate", "read_hit_pct", "write_hit_pct",
    "dfw_delayed_rate", "bypass_rate", "staged_rate", "no_data", "seconds",
]  # fmt: skip


CAD_COUNTERS = ("NRDREQ", "NRDHIT", "SQRDREQ", "SQRDHIT", "WRTREQ", "DFWHIT", "DFWDLY", "BYPASS", "STAGED")


def cad_figures(d: dict[str, float | None], secs: float) -> dict[str, Any]:
    """CACHEXT's figures from MRIODCAD counters' growth ``d`` over ``secs``:
    requests per second and read and DASD fast write hit percentages."""
    reads = (d["NRDREQ"] or 0) + (d["SQRDREQ"] or 0)
    return {
        "total_rate": _rate(reads + (d["WRTREQ"] or 0), secs),
        "read_nseq_rate": _rate(d["NRDREQ"], secs),
        "read_seq_rate": _rate(d["SQRDREQ"], secs),
        "write_rate": _rate(d["WRTREQ"], secs),
        "read_hit_pct": _pct((d["NRDHIT"] or 0) + (d["SQRDHIT"] or 0), reads),
        "write_hit_pct": _pct(d["DFWHIT"], d["WRTREQ"]),
        "dfw_delayed_rate": _rate(d["DFWDLY"], secs),
        "bypass_rate": _rate(d["BYPASS"], secs),
        "staged_rate": _rate(d["STAGED"], secs),
        "seconds": secs,
    }


def cad_columns(wide: int = 6) -> list[Column]:
    """The columns of :func:`cad_figures` (CACHEXT; CTLUNIT, whose sums need
    ``wide`` columns for the total and non-sequential reads)."""
    return [
        Column("total_rate", ["Total", "Cache"], wide, 1),
        Column("read_nseq_rate", ["Read", "N-Seq"], wide, 1),
        Column("read_seq_rate", ["Read", "Seq"], 6, 1),
        Column("write_rate", ["", "FW"], 6, 1),
        Column("bypass_rate", ["", "Bypas"], 6, 1),
        Column("staged_rate", ["", "Stage"], 6, 1),
        Column("read_hit_pct", ["Read", "Hits"], 5, 0),
        Column("write_hit_pct", ["", "DFW"], 5, 0),
        Column("dfw_delayed_rate", ["DFW", "Dly/s"], 5, 1),
    ]


CAD_GROUPS = [Group("Rate/s", "total_rate", "staged_rate"), Group("Percent", "read_hit_pct", "write_hit_pct")]


def cachext(iv: Intervals, **_: Any) -> Report:
    """Per cached device: cache requests per second and hit percentages; a
    device whose control unit returned no data (caching off: pinned data, a
    failure; IODCAD_STATUS -2) over the whole window shows ``no_data``."""
    f = _window(iv, _frames(iv, ["MRIODCAD"]).get("MRIODCAD", pd.DataFrame(columns=["tod"])))
    rows: list[dict[str, Any]] = []
    if not f.empty:
        for devno, g in f.groupby("IODCAD_RDEVDEV", sort=True):
            ok = g[g["IODCAD_STATUS"].fillna(0).astype("int64") == 0]
            row: dict[str, Any] = {"addr": hexaddr(int(devno)), "no_data": len(ok) < 2}
            if len(ok) >= 2:
                a, b = ok.iloc[0], ok.iloc[-1]
                secs = (b["tod"] - a["tod"]).total_seconds()
                row.update(cad_figures({c: _delta(a, b, f"IODCAD_{c}") for c in CAD_COUNTERS}, secs))
            rows.append(row)
    for r in rows:
        r["_state"] = "no data" if r["no_data"] else ""
    table = Table(
        [
            Column("addr", ["", "Addr"], 4, None),
            *cad_columns(),
            Column("_state", ["", "Status"], 8, None),
        ],
        list(CAD_GROUPS),
    )
    return new_report(iv, "CACHEXT", "FCX177", "Cache Extended Functions", rows=rows, keys=CACHEXT_KEYS, table=table)


# ------------------------------------------------------------------ CHANNEL

CHANNEL_KEYS = ["chpid", "type", "speed_mb_s", "busy_pct", "io_rate", "mb_s", "seconds"]
CHP_TYPES = {1: "ESCON", 2: "FICON", 3: "FCP"}


def channel(iv: Intervals, **_: Any) -> Report:
    """Per channel path (MRSYTEPM entries): busy % of its capacity in this
    partition, I/Os and MB per second."""
    f = _window(iv, _frames(iv, ["MRSYTEPM"]).get("MRSYTEPM", pd.DataFrame(columns=["tod"])))
    samples: dict[int, list[tuple[Any, dict[str, Any]]]] = {}
    for _, rec in f.iterrows():
        entries = rec.get("SYTEPM_CHPATH")
        if entries is None or (not isinstance(entries, list | tuple) and not hasattr(entries, "__len__")):
            continue
        for e in entries:
            if e.get("SYTEPM_CALFLAGS") and int(str(e["SYTEPM_CALFLAGS"]), 16) & 0x80:
                continue  # entry not valid
            samples.setdefault(int(e["SYTEPM_CHPID"]), []).append((rec["tod"], e))
    rows: list[dict[str, Any]] = []
    for chp in sorted(samples):
        s = samples[chp]
        if len(s) < 2:
            continue
        (t0, a), (t1, b) = s[0], s[-1]
        secs = (t1 - t0).total_seconds()
        busy = _delta(pd.Series(a), pd.Series(b), "SYTEPM_CALPBUSY")
        data = _delta(pd.Series(a), pd.Series(b), "SYTEPM_CALPDATA")
        rows.append(
            {
                "chpid": f"{chp:02X}",
                "type": CHP_TYPES.get(int(b.get("SYTEPM_CHPTYPE") or 0), "?"),
                "speed_mb_s": b.get("SYTEPM_CALSPEED"),
                "busy_pct": None if busy is None or secs <= 0 else 100.0 * busy / TOD_PER_S / secs,
                "io_rate": _rate(_delta(pd.Series(a), pd.Series(b), "SYTEPM_CALPWORK"), secs),
                "mb_s": None if data is None or secs <= 0 else data * 32 / 1e6 / secs,
                "seconds": secs,
            }
        )
    table = Table(
        [
            Column("chpid", ["CHPID", "(Hex)"], 5, None),
            Column("type", ["Chan", "Type"], 6, None),
            Column("speed_mb_s", ["Link", "MB/s"], 5, 0),
            Column("busy_pct", ["%", "Busy"], 6, 1),
            Column("io_rate", ["I/O", "Rate/s"], 8, 1),
            Column("mb_s", ["Data", "MB/s"], 7, 1),
        ],
        [],
    )
    return new_report(iv, "CHANNEL", "FCX161", "Channel Load (extended channel measurement)", rows=rows, keys=CHANNEL_KEYS,
                      table=table)


# ------------------------------------------------------------------ HPALIAS

HPALIAS_KEYS = ["pool", "bases", "aliases", "tries_rate", "fail_pct", "min_free", "max_free", "seconds"]


def hpp_pools(iv: Intervals) -> dict[int, dict[str, Any]]:
    """Per HyperPAV pool of MRIODHPP in the window: bases and aliases, fewest
    and most free (last sample), alias gets per second, the share that found
    none free, the fewest free over the window's samples and the SSID (the
    pool token)."""
    f = _window(iv, _frames(iv, ["MRIODHPP"]).get("MRIODHPP", pd.DataFrame(columns=["tod"])))
    out: dict[int, dict[str, Any]] = {}
    for pool, g in f.groupby("IODHPP_HPPOOLNM", sort=True) if not f.empty else ():
        a, b = g.iloc[0], g.iloc[-1]
        secs = (b["tod"] - a["tod"]).total_seconds()
        tries, fails = _delta(a, b, "IODHPP_HPPTRIES"), _delta(a, b, "IODHPP_HPPFAILS")
        out[int(pool)] = {
            "bases": int(b["IODHPP_HPPNBASE"]),
            "aliases": int(b["IODHPP_HPPNALIS"]),
            "tries_rate": _rate(tries, secs),
            "fail_pct": _pct(fails, tries),
            "min_free": int(b["IODHPP_HPPMINCT"]),
            "max_free": int(b["IODHPP_HPPMAXCT"]),
            "window_min_free": int(g["IODHPP_HPPMINCT"].min()),
            "ssid": f"{int(b['IODHPP_HPPTOKEN']):04X}",
            "seconds": secs,
        }
    return out


def hpalias(iv: Intervals, **_: Any) -> Report:
    """Per HyperPAV pool (MRIODHPP): attempts to get an alias per second, the
    share that found none, fewest and most aliases free."""
    rows = [{"pool": pool, **{k: p[k] for k in HPALIAS_KEYS if k != "pool"}} for pool, p in hpp_pools(iv).items()]
    table = Table(
        [
            Column("pool", ["", "Pool"], 4, 0),
            Column("bases", ["", "Bases"], 5, 0),
            Column("aliases", ["", "Alias"], 5, 0),
            Column("tries_rate", ["Gets", "/s"], 7, 1),
            Column("fail_pct", ["%", "Fail"], 5, 1),
            Column("min_free", ["Free", "Min"], 4, 0),
            Column("max_free", ["Free", "Max"], 4, 0),
        ],
        [],
    )
    return new_report(iv, "HPALIAS", "FCX327", "HyperPAV Alias Activity", rows=rows, keys=HPALIAS_KEYS, table=table)


# ------------------------------------------------------------------ LCU

LCU_KEYS = [
    "lcu", "pool", "ssid", "chpids", "bases", "aliases", "io_rate", "alias_io_rate", "alias_pct", "base_only_rate",
    "pend_ms", "disc_ms", "conn_ms", "serv_ms", "resp_ms", "queued", "busy_pct", "hpav_gets_rate",
    "hpav_fail_pct", "hpav_min_free", "seconds",
]  # fmt: skip


def _lcu_key(conf: Any) -> tuple[int, tuple[int, ...]] | None:
    """The group a device belongs to: its HyperPAV pool (the pool is one LCU's
    aliases; MTRHPP's token is the LCU's SSID), else its channel paths."""
    if conf is None:
        return None
    if conf.hpp_pool:
        return (conf.hpp_pool, ())
    return (0, conf.chpids) if conf.chpids else None


def lcu(iv: Intervals, **_: Any) -> Report:
    """Per logical control unit: the DASD behind it (bases and aliases), its
    I/O rate and the part started on aliases, the I/O-weighted pending,
    disconnect, connect and service times, requests queued in CP (summed over
    its devices), the mean device busy, and, for a HyperPAV pool (MRIODHPP),
    its SSID (the pool token, MRIODHPP), alias gets per second, the share
    that found none free and the fewest free. The records carry no LCU number: a HyperPAV pool is one LCU;
    devices without a pool are grouped by their channel paths (MTRDEV_RDEVCHPS)."""
    from ztwin.reports.core import DASD_CLASS, merged
    from ztwin.reports.devices import pav_figures
    from ztwin.reports.metrics import device_metrics

    conf = iv.config.devices
    groups: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for devno in sorted(iv.devices):
        c = conf.get(devno)
        cls = iv.device_info.get(devno, {}).get("dev_class")
        key = _lcu_key(c)
        if key is None or (cls is not None and cls != DASD_CLASS):
            continue
        groups.setdefault(key, []).append(devno)
    pav = pav_figures(iv)
    pools = {
        pool: {"ssid": p["ssid"], "hpav_gets_rate": p["tries_rate"], "hpav_fail_pct": p["fail_pct"],
               "hpav_min_free": p["window_min_free"]}
        for pool, p in (hpp_pools(iv) if any(k[0] for k in groups) else {}).items()
    }  # fmt: skip
    rows: list[dict[str, Any]] = []
    for (pool, chp), devs in sorted(groups.items(), key=lambda kv: (kv[0][0] == 0, kv[0], kv[1][0])):
        raws = [iv.devices[d] for d in devs]
        m = device_metrics(merged(raws))
        per = [device_metrics(r) for r in raws]
        kinds = [pav.get(d, {}).get("pav") for d in devs]
        n_alias = sum(k in ("ALIAS", "HPALIAS") for k in kinds)
        secs = m["seconds"] / len(devs) if m["seconds"] else None
        io = sum(x["io_rate"] or 0.0 for x in per)
        uses = sum(float(r.get("pav_uses") or 0) for r in raws)
        inelig = sum(float(r.get("pav_inelig") or 0) for r in raws)
        queued = sum(x["queued"] or 0.0 for x in per) if any(x["queued"] is not None for x in per) else None
        serv = m["serv_ms"]
        resp = None if serv is None else serv + (1000.0 * queued / io if queued and io else 0.0)
        chpids = sorted({c for d in devs for c in conf[d].chpids})
        label = f"Pool {pool}" if pool else "CHP " + " ".join(f"{c:02X}" for c in chp)
        ios = sum(float(r.get("ssch") or 0) for r in raws)
        row = {
            "lcu": label,
            "pool": pool or None,
            "chpids": " ".join(f"{c:02X}" for c in chpids),
            "bases": len(devs) - n_alias,
            "aliases": n_alias,
            "io_rate": io,
            "alias_io_rate": _rate(uses, secs or 0.0) if pav else None,
            "alias_pct": _pct(uses, ios) if pav and ios else None,
            "base_only_rate": _rate(inelig, secs or 0.0) if pav else None,
            "pend_ms": m["pend_ms"],
            "disc_ms": m["disc_ms"],
            "conn_ms": m["conn_ms"],
            "serv_ms": serv,
            "resp_ms": resp,
            "queued": queued,
            "busy_pct": m["busy_pct"],
            "seconds": secs,
        }
        row.update(pools.get(pool, {"ssid": None, "hpav_gets_rate": None, "hpav_fail_pct": None, "hpav_min_free": None}))
        rows.append(row)
    table = Table(
        [
            Column("lcu", ["", "LCU"], 15, None),
            Column("ssid", ["", "SSID"], 4, None),
            Column("bases", ["", "Bases"], 5, 0),
            Column("aliases", ["Ali-", "ases"], 4, 0),
            Column("io_rate", ["", "I/O"], 6, 1),
            Column("alias_io_rate", ["Alias", "I/O"], 6, 1),
            Column("base_only_rate", ["Base", "Only"], 5, 1),
            Column("pend_ms", ["", "Pend"], 5, 1),
            Column("disc_ms", ["", "Disc"], 5, 1),
            Column("conn_ms", ["", "Conn"], 5, 1),
            Column("serv_ms", ["", "Serv"], 5, 1),
            Column("resp_ms", ["", "Resp"], 5, 1),
            Column("queued", ["Req.", "Qued"], 5, 1),
            Column("busy_pct", ["%", "Busy"], 4, 0),
            Column("hpav_gets_rate", ["Gets", "/s"], 6, 1),
            Column("hpav_fail_pct", ["%", "Fail"], 5, 1),
            Column("hpav_min_free", ["Free", "Min"], 4, 0),
        ],
        [
            Group("Rate/s", "io_rate", "base_only_rate"),
            Group("Time (msec)", "pend_ms", "resp_ms"),
            Group("HyperPAV pool", "hpav_gets_rate", "hpav_min_free"),
        ],
    )
    return new_report(iv, "LCU", "ZTWIN", "Logical Control Unit Activity", rows=rows, keys=LCU_KEYS, table=table)


# ------------------------------------------------------------------ MDCACHE

MDCACHE_KEYS = [
    "read_rate", "write_rate", "hit_rate", "hit_pct", "insert_rate", "fair_share_denied_rate", "main_frames",
    "main_target", "main_min", "main_max", "xstor_blocks", "seconds",
]  # fmt: skip


def mdcache(iv: Intervals, **_: Any) -> Report:
    """The minidisk cache (MRSYTXSG counters, MRSYTRSG sizes): eligible reads
    and writes, reads satisfied from the cache (I/Os avoided), insertions and
    fair-share refusals per second; frames held and the arbiter's target at
    the window's end. Empty when the records carry no MDC fields."""
    fr = _frames(iv, ["MRSYTXSG", "MRSYTRSG"])
    x = _window(iv, fr.get("MRSYTXSG", pd.DataFrame(columns=["tod"])))
    s = _window(iv, fr.get("MRSYTRSG", pd.DataFrame(columns=["tod"])))
    rows: list[dict[str, Any]] = []
    if len(x) >= 2 and "SYTXSG_HCPMDCPR" in x and x["SYTXSG_HCPMDCPR"].notna().any():
        a, b = x.iloc[0], x.iloc[-1]
        secs = (b["tod"] - a["tod"]).total_seconds()
        reads, hits = _delta(a, b, "SYTXSG_HCPMDCPR"), _delta(a, b, "SYTXSG_HCPMDCIA")
        row: dict[str, Any] = {
            "read_rate": _rate(reads, secs),
            "write_rate": _rate(_delta(a, b, "SYTXSG_HCPMDCPW"), secs),
            "hit_rate": _rate(hits, secs),
            "hit_pct": _pct(hits, reads),
            "insert_rate": _rate(_delta(a, b, "SYTXSG_HCPMDCIS"), secs),
            "fair_share_denied_rate": _rate(_delta(a, b, "SYTXSG_HCPMDCNE"), secs),
            "xstor_blocks": _int(b.get("SYTXSG_CALMDCAU")),
            "seconds": secs,
        }
        if not s.empty:
            last = s.iloc[-1]
            row.update(
                main_frames=_int(last.get("SYTRSG_TCMMAIN")),
                main_target=_int(last.get("SYTRSG_TCMMIDSZ")),
                main_min=_int(last.get("SYTRSG_TCMMNMIN")),
                main_max=_int(last.get("SYTRSG_TCMMNMAX")),
            )
        rows.append(row)
    table = Table(
        [
            Column("read_rate", ["Reads", "/s"], 7, 1),
            Column("write_rate", ["Writes", "/s"], 7, 1),
            Column("hit_rate", ["Hits", "/s"], 7, 1),
            Column("hit_pct", ["Hit", "%"], 5, 0),
            Column("insert_rate", ["Ins.", "/s"], 7, 1),
            Column("fair_share_denied_rate", ["FShr", "Den/s"], 6, 1),
            Column("main_frames", ["Main", "Frames"], 7, 0),
            Column("main_target", ["Ideal", "Frames"], 7, 0),
            Column("xstor_blocks", ["XSTOR", "Blocks"], 7, 0),
        ],
        [],
    )
    return new_report(iv, "MDCACHE", "FCX134", "Minidisk Cache Activity", rows=rows, keys=MDCACHE_KEYS, table=table)


# ------------------------------------------------------------------ DEVLOG

DEVLOG_KEYS = [
    "addr", "interval_end", "io_rate", "avoid_rate", "pend_ms", "disc_ms", "conn_ms", "serv_ms", "resp_ms", "queued",
    "busy_pct", "interval_start", "seconds",
]  # fmt: skip


def devlog(iv: Intervals, **_: Any) -> Report:
    """FCX168-like device activity log: per DASD device with I/O in the window,
    its DEVICE figures (``>>Mean>>`` first) per interval. Reads the file a
    second time with the devices' per-interval sums kept."""
    from ztwin.reports.common import MEAN, interval_column
    from ztwin.reports.core import collect, merged
    from ztwin.reports.metrics import device_metrics

    rows: list[dict[str, Any]] = []
    if iv.start is not None and iv.end is not None:
        fmt = "%Y-%m-%d %H:%M:%S"
        full = collect(iv.path, iv.start.strftime(fmt), iv.end.strftime(fmt), devices="all")
        for devno in sorted(full.device_series):
            series = full.device_series[devno]
            cls = full.device_info.get(devno, {}).get("dev_class")
            if cls not in (None, 0x04) or not any((device_metrics(r).get("io_rate") or 0) > 0 for _, r in series):
                continue
            addr = hexaddr(devno)
            m = device_metrics(merged(r for _, r in series))
            rows.append({k: m.get(k) for k in DEVLOG_KEYS} | {"addr": addr, "interval_end": MEAN, "interval_start": None})
            for idx, raw in series:
                s = full.intervals[idx]
                m = device_metrics(raw)
                rows.append({k: m.get(k) for k in DEVLOG_KEYS} | {"addr": addr, "interval_end": s.end, "interval_start": s.start})
    table = Table(
        [
            interval_column(),
            Column("io_rate", ["", "I/O"], 7, 1),
            Column("avoid_rate", ["", "Avoid"], 6, 1),
            Column("pend_ms", ["", "Pend"], 5, 1),
            Column("disc_ms", ["", "Disc"], 5, 1),
            Column("conn_ms", ["", "Conn"], 5, 1),
            Column("serv_ms", ["", "Serv"], 5, 1),
            Column("resp_ms", ["", "Resp"], 5, 1),
            Column("queued", ["Req.", "Qued"], 5, 2),
            Column("busy_pct", ["%", "Busy"], 4, 0),
        ],
        [Group("Rate/s", "io_rate", "avoid_rate"), Group("Time (msec)", "pend_ms", "resp_ms")],
    )
    return new_report(iv, "DEVLOG", "FCX168", "Device Activity Log", rows=rows, keys=DEVLOG_KEYS, table=table,
                      group_key="addr", group_title="Device Activity Log for Device {}", time_key="interval_end")


def _int(v: Any) -> int | None:
    return None if v is None or pd.isna(v) else int(v)


__all__ = ["NA", "cachext", "channel", "devlog", "hpalias", "mdcache"]


# ------------------------------------------------------------------ DEVCONF

DEVCONF_KEYS = [
    "addr", "sch", "type", "model", "dev_class", "volser", "cp_owned", "pav", "base", "pool", "edev",
    "chpids", "paths_online",
]  # fmt: skip

#: RDEVCLAS values as the layouts name them (X'04' DASD); others show as hex.
DEV_CLASSES = {0x04: "DASD"}


def devconf(iv: Intervals, **_: Any) -> Report:
    """One line per real device of the configuration records (MRMTRDEV, last
    seen): device number, subchannel id, type and model, device class, volume
    serial, CP-owned (a paging or spool extent or exposure), PAV kind and base
    (MTRDEV_RDEVPVFG, MTRDEV_CALRDEVDEV), HyperPAV pool (MTRDEV_RDEVHPPL),
    EDEV (MTRDEV_EDEVTYPE), the channel paths (MTRDEV_RDEVCHPS) and how many
    of them the logical path mask (MTRDEV_RDEVLPM) has online."""
    from ztwin.reports.devices import _cp_owned, pav_kind

    rows: list[dict[str, Any]] = []
    for devno, c in sorted(iv.config.devices.items()):
        slots = c.path_slots
        cls = c.dev_class
        rows.append(
            {
                "addr": hexaddr(devno),
                "sch": f"{c.sid:08X}" if isinstance(c.sid, int) else NA,
                "type": c.dvid or NA,
                "model": c.model if c.model else None,
                "dev_class": DEV_CLASSES.get(cls, f"X'{cls:02X}'") if isinstance(cls, int) else NA,
                "volser": c.volser,
                "cp_owned": "CP" if _cp_owned(iv, devno) else "",
                "pav": pav_kind(c.pav_flags) or "",
                "base": hexaddr(c.base) if c.base is not None else "",
                "pool": c.hpp_pool or None,
                "edev": "EDEV" if c.edev else "",
                "chpids": " ".join(f"{ch:02X}" for ch, _ in slots) or NA,
                "paths_online": sum(on for _, on in slots) if slots else None,
            }
        )
    table = Table(
        [
            Column("addr", ["", "Addr"], 4, None, left=True),
            Column("sch", ["Subchan.", "ID"], 8, None),
            Column("type", ["Dev.", "Type"], 4, None),
            Column("model", ["", "Mod"], 3, 0),
            Column("dev_class", ["", "Class"], 5, None, left=True),
            Column("volser", ["", "VOLSER"], 6, None, left=True),
            Column("cp_owned", ["", "CP"], 2, None),
            Column("pav", ["PAV", "Kind"], 7, None, left=True),
            Column("base", ["PAV", "Base"], 4, None),
            Column("pool", ["HPAV", "Pool"], 4, 0),
            Column("edev", ["", "EDEV"], 4, None),
            Column("chpids", ["", "CHPIDs"], 23, None, left=True),
            Column("paths_online", ["Paths", "Onl."], 5, 0),
        ],
        [Group("Device", "addr", "volser")],
    )
    return new_report(iv, "DEVCONF", "FCX131", "I/O Device Configuration", rows=rows, keys=DEVCONF_KEYS, table=table)
