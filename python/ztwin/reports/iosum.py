"""Summaries over the storage path's records, in layouts of their own:
HPSHARE (HyperPAV share: per pool and per base device, who used the pool's
aliases; MRIODHPP, MRIODDEV, MRMTRDEV), MDCSTOR (minidisk cache storage by
time; MRSYTRSG, MRSYTXSG) and CTLUNIT (cached control units: CACHEXT's
MRIODCAD figures summed over the devices of each control unit).

Figures come only from decoded records. The Performance Toolkit numbers of
these layouts are not confirmed by the sources at hand: the reports carry
ZTWIN as their number (docs/reports.md).
"""

from __future__ import annotations

from typing import Any

from ztwin.reports import direct
from ztwin.reports.common import MEAN, hexaddr, interval_column, new_report
from ztwin.reports.core import Intervals
from ztwin.reports.iopath import (
    CAD_COUNTERS,
    CAD_GROUPS,
    _delta,
    _frames,
    _lcu_key,
    _pct,
    _window,
    cad_columns,
    cad_figures,
    hpp_pools,
)
from ztwin.reports.model import Chart, Report
from ztwin.reports.text import Column, Group, Table

# ------------------------------------------------------------------ HPSHARE

HPSHARE_KEYS = [
    "pool", "addr", "bases", "aliases", "gets_rate", "fail_pct", "alias_io_rate", "share_pct", "alias_pct",
    "io_rate", "seconds",
]  # fmt: skip

POOL_LINE = ">>Pool<<"


def hpshare(iv: Intervals, **_: Any) -> Report:
    """Per HyperPAV pool (a ``>>Pool<<`` line, from MRIODHPP and the sum of its
    bases) and then per base device of the pool (MTRDEV_RDEVHPPL): the I/Os
    of the base's volume started on a pool alias per second (ΔIODDEV_PAVUSES),
    the base's share of the pool's alias starts, and the share of the
    volume's I/Os that ran on an alias. Empty without HyperPAV devices."""
    from ztwin.reports.devices import pav_figures
    from ztwin.reports.metrics import device_metrics

    pav = pav_figures(iv)
    bases: dict[int, list[int]] = {}
    for devno, f in sorted(pav.items()):
        if f["pav"] == "HPBASE" and f["hpav_pool"]:
            bases.setdefault(f["hpav_pool"], []).append(devno)
    pools = hpp_pools(iv) if bases else {}
    rows: list[dict[str, Any]] = []
    for pool, devs in sorted(bases.items()):
        per = []
        for d in devs:
            raw = iv.devices.get(d)
            io = device_metrics(raw)["io_rate"] if raw is not None else None
            f = pav[d]
            per.append({"pool": pool, "addr": hexaddr(d), "bases": None, "aliases": f["aliases"], "gets_rate": None,
                        "fail_pct": None, "alias_io_rate": f["alias_io_rate"], "share_pct": f["hpav_share_pct"],
                        "alias_pct": f["alias_pct"], "io_rate": io,
                        "seconds": raw.get("seconds") if raw is not None else None})
        alias_io = [r["alias_io_rate"] for r in per if r["alias_io_rate"] is not None]
        ios = [r["io_rate"] for r in per if r["io_rate"] is not None]
        total_alias = sum(alias_io) if alias_io else None
        total_io = sum(ios) if ios else None
        raws = [r for d in devs if (r := iv.devices.get(d)) is not None]
        uses = sum(float(r.get("pav_uses") or 0) for r in raws)
        ssch = sum(float(r.get("ssch") or 0) for r in raws)
        p = pools.get(pool, {})
        rows.append({
            "pool": pool, "addr": POOL_LINE, "bases": p.get("bases", len(devs)),
            "aliases": p.get("aliases", per[0]["aliases"]), "gets_rate": p.get("tries_rate"),
            "fail_pct": p.get("fail_pct"), "alias_io_rate": total_alias,
            "share_pct": 100.0 if total_alias else None,
            # The pool's volumes: alias starts of all I/Os (base SSCHs + alias starts).
            "alias_pct": _pct(uses, uses + ssch) if raws else None,
            "io_rate": total_io, "seconds": per[0]["seconds"],
        })  # fmt: skip
        rows += per
    table = Table(
        [
            Column("pool", ["", "Pool"], 4, 0),
            Column("addr", ["", "Base"], 8, None, left=True),
            Column("bases", ["", "Bases"], 5, 0),
            Column("aliases", ["", "Alias"], 5, 0),
            Column("gets_rate", ["Gets", "/s"], 7, 1),
            Column("fail_pct", ["%", "Fail"], 5, 1),
            Column("io_rate", ["Base", "I/O/s"], 7, 1),
            Column("alias_io_rate", ["Alias", "I/O/s"], 7, 1),
            Column("share_pct", ["%Pool", "Share"], 6, 1),
            Column("alias_pct", ["%On", "Alias"], 6, 1),
        ],
        [Group("Pool (MRIODHPP)", "bases", "fail_pct"), Group("Volume", "io_rate", "alias_pct")],
    )
    pre = ["HyperPAV share: per pool, then its bases; %Pool Share of the pool's alias starts (IODDEV_PAVUSES),",
           "  %On Alias of the volume's I/Os (base SSCHs + alias starts)"]  # fmt: skip
    return new_report(iv, "HPSHARE", "ZTWIN", "HyperPAV Share Activity", rows=rows, keys=HPSHARE_KEYS, table=table,
                      pre_lines=pre)


# ------------------------------------------------------------------ MDCSTOR

MDCSTOR_KEYS = [
    "interval_end", "main_frames", "main_ideal", "main_min", "main_max", "ideal_pct", "xstor_blocks",
    "interval_start", "seconds",
]  # fmt: skip

RSG_FIELDS = ("SYTRSG_TCMMAIN", "SYTRSG_TCMMIDSZ", "SYTRSG_TCMMNMIN", "SYTRSG_TCMMNMAX")
XSG_FIELDS = ("SYTXSG_CALMDCAU", "SYTXSG_HCPMDCPR")


def _last(recs: list[direct.Sample], lo: float, hi: float) -> dict[str, Any] | None:
    got = [f for t, f in recs if lo < t <= hi]
    return got[-1] if got else None


def _opt(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) else None


def mdcstor(iv: Intervals, **_: Any) -> Report:
    """Per interval: the minidisk cache's frames in central storage
    (SYTRSG_TCMMAIN), the arbiter's ideal size (SYTRSG_TCMMIDSZ), the SET
    MDCACHE minimum and maximum (SYTRSG_TCMMNMIN/MAX), frames as a percentage
    of the ideal, and the expanded storage blocks it holds (SYTXSG_CALMDCAU,
    levels with XSTOR). Levels of the last sample in each interval; the
    ``>>Mean>>`` line is their mean. Empty, as MDCACHE, when MRSYTXSG
    carries no minidisk cache fields."""
    from ztwin.reports.agelist import windows_of

    rows: list[dict[str, Any]] = []
    if direct.from_file(iv) and iv.intervals:
        recs = direct.read(iv.path, {"MRSYTRSG": RSG_FIELDS, "MRSYTXSG": XSG_FIELDS})
        rsg = [(t, f) for t, f in recs["MRSYTRSG"] if f.get("SYTRSG_TCMMAIN") is not None]
        xsg = recs["MRSYTXSG"]
        # As MDCACHE: a file whose MRSYTXSG carries no minidisk cache fields has no cache to show.
        has_mdc = any(f.get("SYTXSG_HCPMDCPR") is not None for _, f in xsg)
        per: list[dict[str, Any]] = []
        for i, (lo, hi) in zip(iv.intervals, windows_of(iv), strict=True) if has_mdc else ():
            r = _last(rsg, lo, hi)
            if r is None:
                continue
            x = _last(xsg, lo, hi)
            frames, ideal = _opt(r.get("SYTRSG_TCMMAIN")), _opt(r.get("SYTRSG_TCMMIDSZ"))
            per.append({
                "interval_end": i.end, "interval_start": i.start, "seconds": i.seconds,
                "main_frames": frames, "main_ideal": ideal,
                "main_min": _opt(r.get("SYTRSG_TCMMNMIN")), "main_max": _opt(r.get("SYTRSG_TCMMNMAX")),
                "ideal_pct": _pct(frames, ideal),
                "xstor_blocks": _opt(x.get("SYTXSG_CALMDCAU")) if x is not None else None,
            })  # fmt: skip
        if per:
            mean: dict[str, Any] = {"interval_end": MEAN, "interval_start": None,
                                    "seconds": sum(p["seconds"] for p in per)}
            for k in ("main_frames", "main_ideal", "main_min", "main_max", "xstor_blocks"):
                vals = [p[k] for p in per if p[k] is not None]
                mean[k] = sum(vals) / len(vals) if vals else None
            mean["ideal_pct"] = _pct(mean["main_frames"], mean["main_ideal"])
            rows = [mean, *per]
    table = Table(
        [
            interval_column(),
            Column("main_frames", ["Main", "Frames"], 8, 0),
            Column("main_ideal", ["Ideal", "Frames"], 8, 0),
            Column("ideal_pct", ["%of", "Ideal"], 6, 0),
            Column("main_min", ["Set", "Min"], 8, 0),
            Column("main_max", ["Set", "Max"], 8, 0),
            Column("xstor_blocks", ["XSTOR", "Blocks"], 8, 0),
        ],
        [Group("Central storage", "main_frames", "main_max")],
    )
    pre = ["Minidisk cache storage (MRSYTRSG sizes, MRSYTXSG expanded storage), last sample of each interval:"]
    pre += direct.notes(iv, not rows, "minidisk cache samples")
    return new_report(iv, "MDCSTOR", "ZTWIN", "Minidisk Cache Storage by Time", rows=rows, keys=MDCSTOR_KEYS,
                      table=table, pre_lines=pre, time_key="interval_end",
                      charts=[Chart("Minidisk cache frames and ideal size", ["main_frames", "main_ideal"], "frames")])


# ------------------------------------------------------------------ CTLUNIT

CTLUNIT_KEYS = [
    "cu", "devices", "no_data", "total_rate", "read_nseq_rate", "read_seq_rate", "write_rate", "read_hit_pct",
    "write_hit_pct", "dfw_delayed_rate", "bypass_rate", "staged_rate", "seconds",
]  # fmt: skip

def ctlunit(iv: Intervals, **_: Any) -> Report:
    """Per cached control unit: the MRIODCAD counters of its devices summed
    over the window (a device's growth from its first to its last sample with
    data), as rates and hit percentages weighted by the requests. The records
    carry no control unit number: a HyperPAV pool is one control unit, other
    devices are grouped by their channel paths (MTRDEV_RDEVCHPS), as in LCU.
    Devices that returned no data over the whole window are counted apart."""
    import pandas as pd

    f = _window(iv, _frames(iv, ["MRIODCAD"]).get("MRIODCAD", pd.DataFrame(columns=["tod"])))
    conf = iv.config.devices
    groups: dict[tuple[int, tuple[int, ...]], dict[str, Any]] = {}
    for devno, g in f.groupby("IODCAD_RDEVDEV", sort=True) if not f.empty else ():
        key = _lcu_key(conf.get(int(devno))) or (0, ())
        grp = groups.setdefault(key, {"devs": [], "no_data": 0, "secs": [], "d": dict.fromkeys(CAD_COUNTERS, 0.0)})
        grp["devs"].append(int(devno))
        ok = g[g["IODCAD_STATUS"].fillna(0).astype("int64") == 0]
        if len(ok) < 2:
            grp["no_data"] += 1
            continue
        a, b = ok.iloc[0], ok.iloc[-1]
        grp["secs"].append((b["tod"] - a["tod"]).total_seconds())
        for c in CAD_COUNTERS:
            grp["d"][c] += _delta(a, b, f"IODCAD_{c}") or 0.0
    rows: list[dict[str, Any]] = []
    for (pool, chp), grp in sorted(groups.items(), key=lambda kv: (kv[0][0] == 0, kv[0])):
        label = f"Pool {pool}" if pool else ("CHP " + " ".join(f"{c:02X}" for c in chp) if chp else "(no paths)")
        row: dict[str, Any] = {"cu": label, "devices": len(grp["devs"]), "no_data": grp["no_data"]}
        if grp["secs"]:
            # The devices' counters add up; the span is the longest device's.
            row.update(cad_figures(grp["d"], max(grp["secs"])))
        rows.append(row)
    table = Table(
        [
            Column("cu", ["Control", "Unit"], 15, None, left=True),
            Column("devices", ["", "Devs"], 4, 0),
            Column("no_data", ["No", "Data"], 4, 0),
            *cad_columns(wide=7),
        ],
        list(CAD_GROUPS),
    )
    return new_report(iv, "CTLUNIT", "ZTWIN", "Cached Control Units", rows=rows, keys=CTLUNIT_KEYS, table=table)


__all__ = ["ctlunit", "hpshare", "mdcstor"]
