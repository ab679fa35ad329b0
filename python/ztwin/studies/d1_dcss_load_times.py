"""D1 dcss-load-times: saving and loading large DCSSs of type SN and SR.

Source: "Linux on IBM System z Large Discontiguous Saved Segments (DCSS) Under
Linux" (seed 000_4bdb7a9f4f9f704a.txt), "DCSS access and load times" and
Table 5. For each type (SN, SR) and size (1, 2, 4, 8, 16 GB; above 2 GB as
2 GB segments concatenated by Linux, defined as in the paper's appendix) the
study runs ``studies/dcss-load-times.toml`` with this timeline:

* a CMS user DEFSEGs and SAVESEGs the segments (CP saves one at a time);
* the Linux guest adds them (DIAGNOSE X'64' LOADSHR, one after the other, as
  dcssblk does): the first add;
* (SR) the Linux guest saves them (its DEFSEG and SAVESEG, as dcssblk's save
  does), removes them (PURGESG) and adds them again: the Linux save and the
  second add.

Durations come from the decoded monitor records only: a save ends at the
last segment's MRSTOSHS (D3R5) event; a load ends when the spool volume's
page reads (MRSTOASP EXPCTPRD, D3R4) stop, the last interval's pages divided
by the interval rate before it; each starts at its timeline time (an input).
The fill measurements (Figures 3 and 6) are not modelled: no workload writes
segment pages yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ztwin.monitor import read
from ztwin.studies import STUDIES
from ztwin.studies.base import StudyResult, studies_dir
from ztwin.twin import Scenario

NAME = "dcss-load-times"
TITLE = STUDIES[NAME].title
SCENARIO = "dcss-load-times.toml"
SIZES = (1, 2, 4, 8, 16)
#: Least share of predicted figures within tolerance.
FLOOR = {"full": 0.6, "quick": 0.6}
TOD_S = 4096e6  # TOD units per second

#: The paper's DEFSEG page ranges (appendix "Examples"): 1 GB, then 2 GB pieces.
RANGES_2G = (
    "20000-9FEFF", "9FF00-11FDFF", "11FE00-19FCFF", "19FD00-21FBFF",
    "21FC00-29FAFF", "29FB00-31F9FF", "31FA00-39F8FF", "39F900-41F7FF",
)  # fmt: skip
GB = 262144  # pages


def segments(size: int) -> list[tuple[str, str]]:
    """(name, page range) of a DCSS of `size` GB, as the paper defines it."""
    if size == 1:
        return [("DCSS1G", "20000-5FFFF")]
    if size == 2:
        return [("DCSS2G", RANGES_2G[0])]
    return [(f"DCSS{size}G{k + 1}", r) for k, r in enumerate(RANGES_2G[: size // 2])]


def pages_of(rng: str) -> int:
    a, b = (int(x, 16) for x in rng.split("-"))
    return b - a + 1


@dataclass
class Phases:
    """Start times (s) of the timeline's phases of one variant."""

    save: float = 1.0
    add: float = 0.0
    linux_save: float = 0.0
    add2: float = 0.0
    end: float = 0.0
    timeline: list[dict[str, Any]] = field(default_factory=list)


def plan(kind: str, size: int) -> Phases:
    segs = segments(size)
    code = "sr loadnshr" if kind == "SR" else "sn"
    est_save = 81.0 * size + 60
    est_load = 63.0 * size + 60
    p = Phases()
    tl = p.timeline

    def cp(at: float, who: str, cmd: str) -> None:
        tl.append({"at": f"{at:g}s", "action": "cp", "guest": who, "command": cmd})

    def diag(at: float, cmd: str) -> None:
        tl.append({"at": f"{at:g}s", "action": "diag64", "guest": "LNX001", "command": cmd})

    for name, rng in segs:
        cp(p.save, "CMSUSER", f"defseg {name} {rng} {code}")
    for name, _ in segs:
        cp(p.save, "CMSUSER", f"saveseg {name}")
    p.add = round(p.save + (est_save if kind == "SR" else 10) * 1.3 + 30)
    for name, _ in segs:
        diag(p.add, f"loadshr {name}")
    if kind == "SN":
        p.end = p.add + 120
        return p
    p.linux_save = round(p.add + est_load * 1.3 + 30)
    for name, rng in segs:
        cp(p.linux_save, "LNX001", f"defseg {name} {rng} {code}")
    for name, _ in segs:
        cp(p.linux_save, "LNX001", f"saveseg {name}")
    p.add2 = round(p.linux_save + est_save * 1.3 + 30)
    for name, _ in segs:
        diag(p.add2, f"purgesg {name}")
    for name, _ in segs:
        diag(p.add2, f"loadshr {name}")
    p.end = round(p.add2 + est_load * 1.3 + 60)
    return p


@dataclass
class Measured:
    """What one variant's records say."""

    saves: list[tuple[float, str]]  # (time s, segment) of MRSTOSHS events
    reads: list[tuple[float, int]]  # (time s, cumulative pages read), spool volumes summed
    writes: list[tuple[float, int]]
    paging_writes: int = 0


def _int(v: Any) -> int:
    return int(v) if isinstance(v, int | float) else 0


def measure(path: Path) -> Measured:
    zero: int | None = None
    saves: list[tuple[float, str]] = []
    by_tod: dict[int, list[int]] = {}
    paging_writes = 0
    for rec in read(path):
        t = rec["tod_raw"]
        if zero is None:
            zero = t
        name = rec["name"]
        f = rec["fields"]
        if name == "MRSTOSHS":
            saves.append(((t - zero) / TOD_S, str(f.get("STOSHS_SDFFN") or "").strip()))
        elif name == "MRSTOASP":
            if f.get("STOASP_CALSPOOL"):
                acc = by_tod.setdefault(t, [0, 0])
                acc[0] += _int(f.get("STOASP_EXPCTPRD"))
                acc[1] += _int(f.get("STOASP_EXPCTPWR"))
            else:
                paging_writes = max(paging_writes, _int(f.get("STOASP_EXPCTPWR")))
    z = zero or 0
    times = sorted(by_tod)
    return Measured(
        saves,
        [((t - z) / TOD_S, by_tod[t][0]) for t in times],
        [((t - z) / TOD_S, by_tod[t][1]) for t in times],
        paging_writes,
    )


def load_time(series: list[tuple[float, int]], start: float, end: float) -> tuple[float | None, int]:
    """Duration and pages of the reads that began at `start` (before `end`):
    they end within the last interval whose count rose, at the pace of the
    interval before it."""
    pts = [(t, c) for t, c in series if start - 1e-9 <= t <= end + 1e-9]
    before = [c for t, c in series if t < start - 1e-9]
    base = before[-1] if before else 0
    pts = [(start, base), *pts]
    active = [k for k in range(1, len(pts)) if pts[k][1] > pts[k - 1][1]]
    if not active:
        return 0.0, 0
    k = active[-1]
    pages = pts[k][1] - base
    t0, c0 = pts[k - 1]
    t1, c1 = pts[k]
    if k >= 2 and pts[k - 1][1] > pts[k - 2][1]:
        rate = (pts[k - 1][1] - pts[k - 2][1]) / (pts[k - 1][0] - pts[k - 2][0])
        finish = t0 + (c1 - c0) / rate
    else:  # one interval only: it ended somewhere inside it
        finish = t1
    return finish - start, pages


def save_time(saves: list[tuple[float, str]], names: set[str], start: float, end: float) -> float | None:
    ts = [t for t, n in saves if n in names and start <= t <= end]
    return max(ts) - start if len(ts) >= len(names) else None


def fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least-squares line: slope, intercept, R^2."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    icpt = my - slope * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - (icpt + slope * x)) ** 2 for x, y in zip(xs, ys, strict=True))
    return slope, icpt, 1 - ss_res / ss_tot if ss_tot else 1.0


def run_variant(kind: str, size: int, workdir: Path) -> dict[str, Any]:
    p = plan(kind, size)
    sc = Scenario.load(studies_dir() / SCENARIO)
    sc.set("timeline", p.timeline)
    sc.set("scenario.duration", f"{p.end:g}s")
    out = workdir / f"d1-{kind.lower()}-{size}g.monwrite"
    sc.run(out)
    m = measure(out)
    names = {n for n, _ in segments(size)}
    pages = sum(pages_of(r) for _, r in segments(size))
    v: dict[str, Any] = {"kind": kind, "size": size, "pages": pages}
    v["save_s"] = save_time(m.saves, names, p.save, p.add)
    add = load_time(m.reads, p.add, p.linux_save or p.end)
    v["add_s"], v["add_pages"] = add
    w = [c for t, c in m.writes if t <= p.add]
    v["saved_pages"] = w[-1] if w else 0
    if kind == "SR":
        v["linux_save_s"] = save_time(m.saves, names, p.linux_save, p.add2)
        v["add2_s"], v["add2_pages"] = load_time(m.reads, p.add2, p.end)
    v["paging_writes"] = m.paging_writes
    return v


def run(quick: bool, workdir: Path) -> StudyResult:
    res = StudyResult(NAME, TITLE, floor=FLOOR["quick" if quick else "full"], quick=quick)
    sr = {s: run_variant("SR", s, workdir) for s in SIZES}
    sn = {s: run_variant("SN", s, workdir) for s in SIZES}
    res.info["SR"] = sr
    res.info["SN"] = sn
    src = "D1 text (DCSS of type SR; Summary)"
    t5 = "D1 Table 5 (minutes)"
    xs = [float(s) for s in SIZES]

    save = [sr[s]["save_s"] for s in SIZES]
    add = [sr[s]["add_s"] for s in SIZES]
    if None in save or None in add:
        res.holds("D1-S0", "every save and load completed in the run", False, "yes", "-")
        return res
    s_slope, s_icpt, s_r2 = fit(xs, save)
    a_slope, a_icpt, a_r2 = fit(xs, add)
    res.rel("D1-C1", "SAVESEG of SR, seconds per GB (slope)", "calibrated", f"{src}: 12 s + 81 s/GB", s_slope, 81.0, tol=0.02,
            note="calibrates spool_options.write_page_us (CP's work per page before its write)")
    res.rel("D1-C2", "first Linux add of SR, seconds per GB (slope)", "calibrated", f"{src}: 12 s + 63 s/GB", a_slope, 63.0, tol=0.02,
            note="calibrates the spool volume's connect time per page")
    res.not_modelled("D1-N1", "SAVESEG of SR, fixed part (s)", src, 12.0,
                     "the same 12 s appears in the save, load and fill fits of different operations: a constant of the "
                     f"measurement procedure the paper does not explain; the model has none (save intercept {s_icpt:.1f} s)")
    res.not_modelled("D1-N2", "first Linux add of SR, fixed part (s)", src, 12.0,
                     f"as D1-N1 (model intercept {a_icpt:.1f} s)")
    res.holds("D1-S1", "SAVESEG time of SR linear in size (R^2 of the fit >= 0.999)", s_r2 >= 0.999,
              "linear (Figure 4)", "D1 Figure 4 observation", model=round(s_r2, 6))
    res.holds("D1-S2", "first add time of SR linear in size (R^2 >= 0.999)", a_r2 >= 0.999,
              "linear (Figure 5)", "D1 Figure 5 observation", model=round(a_r2, 6))
    res.holds("D1-S3", "loading is faster than saving (every size)", all(a < s for a, s in zip(add, save, strict=True)),
              "yes", "D1 Summary", model=f"add/save {min(a / s for a, s in zip(add, save, strict=True)):.2f}-"
              f"{max(a / s for a, s in zip(add, save, strict=True)):.2f}")
    res.holds("D1-S4", "SAVESEG writes every page of an SR DCSS, even empty ones (pages written = pages + descriptor pages)",
              all(sr[s]["saved_pages"] == sr[s]["pages"] + len(segments(s)) for s in SIZES),
              "yes", "D1 Figure 4 observation", model=f"16 GB: {sr[16]['saved_pages']:,} of {sr[16]['pages']:,} + 8")
    res.holds("D1-S5", "the first add reads the whole DCSS from spool (pages read = pages)",
              all(sr[s]["add_pages"] == sr[s]["pages"] for s in SIZES), "yes", "D1 Figure 5 conclusions",
              model=f"16 GB: {sr[16]['add_pages']:,}")
    # SN: nothing to spool.
    sn_save = max(sn[s]["save_s"] or 0.0 for s in SIZES)
    sn_add = max(sn[s]["add_s"] or 0.0 for s in SIZES)
    res.holds("D1-S6", "SN: save on CP negligible (< 1 s at every size)", sn_save < 1.0, "negligible",
              "D1 DCSS of type SN", model=f"{sn_save:.3f} s")
    res.holds("D1-S7", "SN: initial access from Linux negligible (< 1 s)", sn_add < 1.0, "negligible",
              "D1 DCSS of type SN", model=f"{sn_add:.3f} s")
    res.holds("D1-S8", "SN: no data written to spool (descriptor page only)",
              all(sn[s]["saved_pages"] <= len(segments(s)) for s in SIZES), "yes", "D1 Summary; Table 4",
              model=f"16 GB: {sn[16]['saved_pages']} pages")
    res.holds("D1-S9", "DCSS pages never written to paging DASD", all(v["paging_writes"] == 0 for v in (*sr.values(), *sn.values())),
              "never (under memory pressure they go to XSTOR)", "D1 Location of the DCSS pages",
              note="no memory pressure in these runs; segment frames are not stolen at all in the model (to XSTOR: not modelled)")

    res.rel("D1-P1", "SAVESEG 16 GB, minutes", "predicted", "D1 text: 23 minutes for a 16 GB DCSS", save[4] / 60, 23.0)
    for i, (s, pub_save, pub_add, pub_lsave, pub_add2) in enumerate(((8, 11, 8, 12, 4), (16, 22, 16, 28, 8))):
        v = sr[s]
        k = 2 + 4 * i
        res.rel(f"D1-P{k}", f"CMS save {s} GB, minutes", "predicted", t5, v["save_s"] / 60, float(pub_save))
        res.rel(f"D1-P{k + 1}", f"first Linux add {s} GB, minutes", "predicted", t5, v["add_s"] / 60, float(pub_add))
        res.rel(f"D1-P{k + 2}", f"Linux save {s} GB, minutes", "predicted", t5, (v["linux_save_s"] or 0) / 60, float(pub_lsave))
        res.rel(f"D1-P{k + 3}", f"second Linux add {s} GB, minutes", "predicted", t5, v["add2_s"] / 60, float(pub_add2))
    res.rel("D1-P10", "16 GB: save minus first add, minutes", "predicted",
            "D1 Figure 5 conclusions: load almost 17 minutes shorter than the save", (save[4] - add[4]) / 60, 17.0,
            note="Table 5 gives 22 - 16 = 6 minutes for the same DCSS")
    lsave = [sr[s]["linux_save_s"] or 0 for s in SIZES]
    ratio = [a / b for a, b in zip(add, [sr[s]["add2_s"] or 1e-9 for s in SIZES], strict=True)]
    res.holds("D1-S10", "Linux save slightly slower than SAVESEG (8 and 16 GB)",
              all(lsave[i] > save[i] for i in (3, 4)), "slower (Table 5: 12 vs 11, 28 vs 22 min)", "D1 Figure 7; Table 5",
              model=f"{lsave[3] / save[3]:.2f}x, {lsave[4] / save[4]:.2f}x",
              gap="the model saves the Linux guest's copy exactly as the CMS user's; what makes the Linux save slower "
                  "(and 27% slower at 16 GB) is not said in the paper")
    res.holds("D1-S11", "second add about twice as fast as the first (ratio 1.7-2.3, every size)",
              all(1.7 <= r <= 2.3 for r in ratio), "twice as fast", "D1 Figure 8 conclusion; Table 5",
              model=f"{min(ratio):.2f}-{max(ratio):.2f}",
              gap="the model reads the whole segment from spool again at the second add; the paper says only that "
                  "'z/VM is able to reuse some of the DCSS pages' and gives no rule, so none is invented")
    res.not_modelled("D1-N3", "fill SR: 12 s + 11 s/GB", src, "12 s + 11 s/GB",
                     "no workload writes segment pages yet (a Linux copy into a nonshared copy of the DCSS)")
    res.not_modelled("D1-N4", "fill SN: linear in size, mostly guest system time", "D1 Figure 3", "linear",
                     "no workload writes segment pages yet")
    res.not_modelled("D1-N5", "fill SR: real time much larger than user + system time", "D1 Figure 6", "yes",
                     "no workload writes segment pages yet")
    res.info["fits"] = {"save": [s_slope, s_icpt, s_r2], "add": [a_slope, a_icpt, a_r2]}
    return res
