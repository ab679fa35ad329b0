"""The I/O experiments IBM published without figures to compare: modelled
from their setups (``studies/edev-*.toml``, ``linux-pav-multipath.toml``,
``ess-limits-*.toml``), their figures come out of the model. Each study prints
its figures (``info: figures``; ``--json``: ``"figures": {VARIANT: {METRIC:
value}}``) and checks the structural claims IBM made about them.

Every figure is measured from the run's decoded records through the reports:
system CPU (processor records: busy, emulation), DASD paging (MRSYTSYP /
MRSTORSP), DEVICE (MRIODDEV) and CHANNEL (MRSYTEPM). Where a figure needs a
scenario input (the CPU a guest spends per page touched), the docstring says so.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from ztwin.monitor import tables
from ztwin.reports import build, collect
from ztwin.studies.base import StudyResult, studies_dir
from ztwin.studies import measures as m
from ztwin.twin import Scenario

SPEC = "issue 12 / shared/spec/zvm-model.md 4.7 (IBM's z/VM 5.3 SCSI and Linux PAV/ESS reports)"


def _result(name: str, quick: bool) -> StudyResult:
    from ztwin.studies import STUDIES

    return StudyResult(name, STUDIES[name].title, floor=0.0, quick=quick)


def _system(path: Path, r: m.Run, w: tuple[float, float]) -> dict[str, Any]:
    fmt = "%Y-%m-%d %H:%M:%S"
    return collect(path, r.time(w[0]).strftime(fmt), r.time(w[1]).strftime(fmt)).total_metrics()


def _cp_s_per_s(s: dict[str, Any]) -> float | None:
    """CP's processor time per second (all processors): busy minus emulation."""
    busy, emul, online = s.get("cpu_busy_pct"), s.get("cpu_emul_pct"), s.get("cpus_online")
    if busy is None or emul is None or online is None:
        return None
    return float(busy - emul) / 100 * float(online)


def _virt_s_per_s(s: dict[str, Any]) -> float | None:
    emul, online = s.get("cpu_emul_pct"), s.get("cpus_online")
    return None if emul is None or online is None else emul / 100 * online


def _per(a: float | None, b: float | None, scale: float = 1.0) -> float | None:
    return None if a is None or not b else a * scale / b


def _rnd(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in d.items()}


def _run(scenario: str, out: Path, sets: dict[str, Any], duration: float | None = None) -> m.Run:
    sc = Scenario.load(studies_dir() / scenario)
    for k, v in sets.items():
        sc.set(k, v)
    sc.run(out, duration=duration)
    return m.Run(out)


# ------------------------------------------------------------------ edev-paging


def edev_paging(quick: bool, workdir: Path) -> StudyResult:
    """page_moves_per_s: DASD page reads + writes per second; cp_us_per_move:
    CP time (busy minus emulation, all processors) per page moved;
    touches_per_s: the guest's virtual time over its CPU per touch (the
    scenario's cpu_per_touch_us: the model charges exactly that per touch, so
    virt_us_per_touch is that input); moves_per_touch."""
    res = _result("edev-paging", quick)
    figs: dict[str, dict[str, Any]] = {}
    w = (60.0, 120.0 if quick else 180.0)
    for kind in ("eckd", "edev"):
        scen = f"edev-paging-{kind}.toml"
        touch_us = _touch_us(scen)
        for level in ("5.2", "5.3"):
            v = f"{kind}-{level}"
            r = _run(scen, workdir / f"{v}.monwrite", {"system.cp_level": level}, duration=w[1])
            s = _system(r.path, r, w)
            moves = (s.get("read_write_rate") or 0.0)
            virt = _virt_s_per_s(s)
            touches = _per(virt, touch_us, 1e6)
            figs[v] = _rnd({
                "page_moves_per_s": moves,
                "cp_us_per_move": _per(_cp_s_per_s(s), moves, 1e6),
                "touches_per_s": touches,
                "virt_us_per_touch": _per(virt, touches, 1e6),
                "moves_per_touch": _per(moves, touches),
            })
    res.info["figures"] = figs
    cp = {v: f.get("cp_us_per_move") or 0.0 for v, f in figs.items()}
    res.holds("EP-S1", "EDEV paging costs more CP per page moved than ECKD (each CP level)",
              cp["edev-5.2"] > cp["eckd-5.2"] and cp["edev-5.3"] > cp["eckd-5.3"],
              "EDEV paging costs more CP per page than ECKD", SPEC, model=[cp["eckd-5.3"], cp["edev-5.3"]])
    res.holds("EP-S2", "5.3's direct SCSI paging costs less CP per page moved to EDEV than 5.2's FBA emulation",
              cp["edev-5.3"] < cp["edev-5.2"], "5.3 cut CP CPU per page moved to EDEV (about 25%)", SPEC,
              model=[cp["edev-5.2"], cp["edev-5.3"]])
    return res


def _touch_us(scen: str) -> float:
    doc = tomllib.loads((studies_dir() / scen).read_text(encoding="utf-8"))
    return float(doc["guest"][0]["workload"]["cpu_per_touch_us"])


# ------------------------------------------------------------------ edev-format


def edev_format(quick: bool, workdir: Path) -> StudyResult:
    """elapsed_s: the volume's busy time over the run (the FORMAT writes one
    request at a time, so its duration is the sum of its I/Os' times plus CMS's
    CPU between them, which the busy time leaves out); cp_cpu_ms: CP time over
    the run."""
    res = _result("edev-format", quick)
    figs: dict[str, dict[str, Any]] = {}
    for level in ("5.2", "5.3"):
        r = _run("edev-format.toml", workdir / f"format-{level}.monwrite", {"system.cp_level": level})
        end = _end(r)
        w = (0.0, end)
        devs = [d for d in r.devices(*w) if d.get("io_rate")]
        busy_s = sum((d.get("busy_pct") or 0) / 100 * (d.get("seconds") or 0) for d in devs)
        s = _system(r.path, r, w)
        cp = _cp_s_per_s(s)
        figs[level] = _rnd({"elapsed_s": busy_s, "cp_cpu_ms": None if cp is None else cp * (s.get("seconds") or 0) * 1000})
    res.info["figures"] = figs
    e, c = (figs["5.2"]["elapsed_s"], figs["5.3"]["elapsed_s"]), (figs["5.2"]["cp_cpu_ms"], figs["5.3"]["cp_cpu_ms"])
    res.holds("EF-S1", "WRITE SAME (5.3) formats faster and with less CP than 5.2", e[1] < e[0] and (c[1] or 0) < (c[0] or 0),
              "5.3: -41% elapsed, -97% CPU", SPEC, model=[*e, *c])
    return res


def _end(r: m.Run) -> float:
    """Seconds from monitoring start to the last sample."""
    sysrec = tables(r.path, ["MRSYTSYP"])["MRSYTSYP"]
    first = tables(r.path, ["MRMTRSYS"])["MRMTRSYS"]["tod"].min()
    return float((sysrec["tod"].max() - first).total_seconds())


# ------------------------------------------------------------------ edev-xedit-read


def edev_xedit_read(quick: bool, workdir: Path) -> StudyResult:
    """reads_per_s: the volume's I/Os per second over the file's 100 blocks
    (one block per I/O, MDC off); cp_us_per_read and virt_us_per_read: CP and
    emulation time per file read."""
    res = _result("edev-xedit-read", quick)
    figs: dict[str, dict[str, Any]] = {}
    w = (30.0, 120.0)
    for level in ("5.2", "5.3"):
        r = _run("edev-xedit-read.toml", workdir / f"xedit-{level}.monwrite", {"system.cp_level": level}, duration=w[1])
        io = sum(d.get("io_rate") or 0 for d in r.devices(*w))
        reads = io / 100
        s = _system(r.path, r, w)
        figs[level] = _rnd({"reads_per_s": reads, "cp_us_per_read": _per(_cp_s_per_s(s), reads, 1e6),
                            "virt_us_per_read": _per(_virt_s_per_s(s), reads, 1e6)})
    res.info["figures"] = figs
    a, b = figs["5.2"]["cp_us_per_read"] or 0, figs["5.3"]["cp_us_per_read"] or 0
    res.holds("EX-S1", "5.3's SCSI path costs less CP per read than 5.2", 0 < b < a, "5.3: 4-15% less CP per unit of work", SPEC,
              model=[a, b])
    return res


# ------------------------------------------------------------------ linux-pav-multipath


def _halves(r: m.Run, path: Path) -> tuple[float, float]:
    """MB/s over the channels in the write half (30-120 s) and the read half (150-240 s)."""
    fmt = "%Y-%m-%d %H:%M:%S"
    out = []
    for a, b in ((30.0, 120.0), (150.0, 240.0)):
        rows = build(path, ["CHANNEL"], r.time(a).strftime(fmt), r.time(b).strftime(fmt))["CHANNEL"].rows
        out.append(sum(x.get("mb_s") or 0.0 for x in rows))
    return out[0], out[1]


def linux_pav_multipath(quick: bool, workdir: Path) -> StudyResult:
    """write_mb_s, read_mb_s: data moved over the channel paths (MRSYTEPM
    data units) in each half."""
    res = _result("linux-pav-multipath", quick)
    figs: dict[str, dict[str, Any]] = {}
    paths = (1, 2, 4, 8) if quick else tuple(range(1, 9))
    for k in paths:
        sets = {"guest[0].workload.paths": k, "timeline[0].workload.paths": k}
        p = workdir / f"paths-{k}.monwrite"
        r = _run("linux-pav-multipath.toml", p, sets)
        wr, rd = _halves(r, p)
        figs[f"paths-{k}"] = _rnd({"write_mb_s": wr, "read_mb_s": rd})
    res.info["figures"] = figs
    reads = [figs[f"paths-{k}"]["read_mb_s"] for k in paths]
    res.holds("LP-S1", "more paths never lower read throughput", all(b >= a * 0.98 for a, b in zip(reads, reads[1:], strict=False)),
              "read throughput rises with paths (base + PAV aliases) until another resource limits", SPEC, model=reads)
    res.holds("LP-S2", "two paths read faster than one", reads[1] > 1.2 * reads[0], "PAV multipath helps", SPEC, model=reads[:2])
    return res


# ------------------------------------------------------------------ ess-limits

ESS_LAYOUTS = ("single-disk", "single-rank", "single-ha", "single-chpid", "two-chpids", "4c4h4r")


def ess_limits(quick: bool, workdir: Path) -> StudyResult:
    """write_mb_s, read_mb_s as linux-pav-multipath; limit: the saturated
    resource the records show: the busier of the channel paths (CHANNEL) and
    the volumes (DEVICE: the disk, or with several volumes the rank) when it
    is at least 75% busy, else "host-adapter or device-adapter" (the adapters
    have no monitor records: a limit there is not visible in them)."""
    res = _result("ess-limits", quick)
    figs: dict[str, dict[str, Any]] = {}
    layouts = ("single-disk", "single-ha", "4c4h4r") if quick else ESS_LAYOUTS
    fmt = "%Y-%m-%d %H:%M:%S"
    for lay in layouts:
        p = workdir / f"ess-{lay}.monwrite"
        r = _run(f"ess-limits-{lay}.toml", p, {})
        wr, rd = _halves(r, p)
        reps = build(p, ["CHANNEL", "DEVICE"], r.time(150).strftime(fmt), r.time(240).strftime(fmt))
        chan_busy = max((x.get("busy_pct") or 0 for x in reps["CHANNEL"].rows), default=0)
        devs = [x for x in reps["DEVICE"].rows if x["addr"] != ">>All DASD<<" and x.get("io_rate")]
        dev_busy = max((x.get("busy_pct") or 0 for x in devs), default=0)
        if max(chan_busy, dev_busy) < 75:
            limit = "host-adapter or device-adapter"
        elif chan_busy >= dev_busy:
            limit = "chpid"
        else:
            limit = "disk" if len(devs) == 1 else "rank"
        figs[lay] = _rnd({"write_mb_s": wr, "read_mb_s": rd, "limit": limit, "max_channel_busy_pct": chan_busy,
                          "max_device_busy_pct": dev_busy})
    res.info["figures"] = figs
    if "single-ha" in figs and "4c4h4r" in figs:
        res.holds("EL-S1", "four of each reads faster than a single host adapter", figs["4c4h4r"]["read_mb_s"] > figs["single-ha"]["read_mb_s"],
                  "a single host adapter caps throughput regardless of ranks", SPEC,
                  model=[figs["single-ha"]["read_mb_s"], figs["4c4h4r"]["read_mb_s"]])
    res.holds("EL-S2", "a single disk reads slowest", figs["single-disk"]["read_mb_s"] <= min(f["read_mb_s"] for f in figs.values()) + 1e-9,
              "one disk is the tightest layout", SPEC, model=[f["read_mb_s"] for f in figs.values()])
    return res
