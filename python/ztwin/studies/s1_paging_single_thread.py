"""S1 paging-single-thread: "Why doesn't my system page faster?"

One single-threaded guest re-reads a paged-out area serially: every fault on a
DASD page waits for one paging I/O, so the guest drives at most 1000/service
I/Os per second however many paging volumes there are, the volumes' busy
percentages add up to about 100%, and the guest is in page wait in nearly every
high-frequency sample. With k such guests the aggregate rate grows about
linearly until the volumes saturate.
"""

from __future__ import annotations

from pathlib import Path

from ztwin.advisor import diagnose
from ztwin.studies import STUDIES
from ztwin.studies import measures as m
from ztwin.studies.base import StudyResult, studies_dir
from ztwin.twin import Scenario

NAME = "paging-single-thread"
TITLE = STUDIES[NAME].title
SCENARIO = "paging-single-thread.toml"

PUBLISHED_SERVICE_MS = 3.1
PUBLISHED_RATE = 1000 / PUBLISHED_SERVICE_MS  # 322.6 SSCH/s
PUBLISHED_GUESTS_SUPPORTED = 1100 / 115  # 9.5
READ_START = 330.0
WINDOW = 40.0  # sample intervals inside the re-read (330 s to 370 s)
SCALING = [1, 2, 4, 8, 12, 16, 30]
QUICK_SCALING = [1, 4, 30]


def _variant(base: Scenario, k: int) -> Scenario:
    """The scenario with `k` identical thrashers instead of LIN102."""
    sc = base.copy()
    if k == 1:
        return sc
    sc.set("guest[0].userid", "LIN")
    sc.set("guest[0].count", k)
    for i, entry in enumerate(sc.data["timeline"]):
        if entry["guest"] == "LIN102":
            sc.set(f"timeline[{i}].guest", "LIN*")
    return sc


def run(quick: bool, workdir: Path) -> StudyResult:
    res = StudyResult(NAME, TITLE)
    base = Scenario.load(studies_dir() / SCENARIO)
    t0, t1 = READ_START, READ_START + WINDOW

    out = workdir / "s1-k1.monwrite"
    base.run(out)
    d = m.Data.load(out)
    rate = m.paging_ssch_rate(d, t0, t1)
    busy = m.paging_busy_sum(d, t0, t1)
    serv = m.paging_service_ms(d, t0, t1)
    pgw = m.user_state_pct(d, ["LIN102"], "USEINT_HFWTPAG", t0, t1, of="USEINT_HFQUCT")
    dasd_rd, xs_rd = m.user_page_read_rate(d, ["LIN102"], t0, t1)
    res.info.update(
        service_ms=round(serv, 3),
        lin102_dasd_pages_per_s=round(dasd_rd, 1),
        lin102_xstor_pages_per_s=round(xs_rd, 1),
        window_s=[t0, t1],
    )
    res.within("paging SSCH/s, one serial thrasher", rate, round(PUBLISHED_RATE, 1), 0.15,
               "published: 1000/3.1 ms; 387/s seen with other guests paging lightly")
    res.between("sum of paging volumes' %busy", busy, 85, 130, 115)
    res.at_least("LIN102 % of its active HF samples in page wait", pgw, 90, 100)
    res.within("paging service time per I/O (ms, calibrated)", serv, PUBLISHED_SERVICE_MS, 0.10)

    ks = QUICK_SCALING if quick else SCALING
    rates: dict[int, float] = {1: rate}
    for k in ks:
        if k == 1:
            continue
        out = workdir / f"s1-k{k}.monwrite"
        _variant(base, k).run(out)
        rates[k] = m.paging_ssch_rate(m.Data.load(out), t0, t1)
    res.info["scaling_ssch_per_s"] = {str(k): round(v, 1) for k, v in sorted(rates.items())}
    nvol = m.paging_volumes(d)
    capacity = nvol * 1000 / serv if serv else 0.0
    res.info["capacity_ssch_per_s"] = round(capacity, 1)
    small = [k for k in rates if 1 < k <= 4]
    # Two guests' I/Os now and then meet on one of the eleven volumes and one
    # waits: with k guests that costs roughly (k-1)/22 of the ideal rate.
    res.holds(
        "aggregate rate grows about linearly for few guests (>= 80% of k x one guest)",
        all(rates[k] >= 0.80 * k * rate for k in small),
        "linear until the volumes saturate",
    )
    ordered = [rates[k] for k in sorted(rates)]
    res.holds(
        "aggregate rate never falls as guests are added",
        all(b >= 0.97 * a for a, b in zip(ordered, ordered[1:])),
        "monotone",
    )
    kmax = max(rates)
    res.within(
        f"such guests the volumes sustain at once (rate with {kmax} / rate with one)",
        rates[kmax] / rate,
        round(PUBLISHED_GUESTS_SUPPORTED, 1),
        0.20,
        "published: 1100% / 115% = 9.5",
    )
    res.holds(
        f"{kmax} guests saturate the volumes (>= 80% of {nvol} x 1000/service)",
        rates[kmax] >= 0.8 * capacity,
        "about 6000 pages/s with 30 busy guests",
    )
    res.holds(
        f"{kmax} guests are far from {kmax} x one guest (the curve flattens)",
        rates[kmax] <= 0.6 * kmax * rate,
        "flattens near 9.5 guests",
    )
    # The advisor over the re-read window of the one-guest run: the study's verdict.
    adv = diagnose(workdir / "s1-k1.monwrite", d.at(t0).to_pydatetime(), d.at(t1).to_pydatetime())
    found = adv.ids()
    res.info["advisor"] = [f"{f.id}:{f.severity}" for f in adv.findings]
    res.holds("advisor: paging-serialized (the guest, not the volumes, limits paging)",
              "paging-serialized" in found, "paging-serialized", ", ".join(found))
    res.holds("advisor: no storage-constrained, no paging-device-queue",
              not {"storage-constrained", "paging-device-queue"} & set(found), "the system isn't broken", ", ".join(found))
    return res
