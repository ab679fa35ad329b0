"""S2 undersized-lpar: before and after adding storage, paging volumes and a CPU.

Before, 26 active Linux guests overcommit a 19.5 GB LPAR about 3.5 times: the
paging volumes queue, users wait for pages, CP's paging work raises T/V. After
the upgrade (52 GB, 40 paging volumes, 3 IFLs) the same workload pages a few
pages a second: no queues, no page wait, far fewer user pages on DASD, lower T/V.
"""

from __future__ import annotations

from pathlib import Path

from ztwin.advisor import diagnose
from ztwin.studies import STUDIES
from ztwin.studies import measures as m
from ztwin.studies.base import StudyResult, studies_dir
from ztwin.twin import Scenario

NAME = "undersized-lpar"
TITLE = STUDIES[NAME].title
BEFORE = "undersized-lpar-before.toml"
AFTER = "undersized-lpar-after.toml"
WARMUP = 7200.0  # the first two hours fill storage and settle; the published day starts warm


def _window(quick: bool, full: float) -> tuple[float, float]:
    return WARMUP, (WARMUP + 3600.0 if quick else full)


def run(quick: bool, workdir: Path) -> StudyResult:
    res = StudyResult(NAME, TITLE)
    before = Scenario.load(studies_dir() / BEFORE)
    after = Scenario.load(studies_dir() / AFTER)
    b0, b1 = _window(quick, 14 * 3600.0)
    a0, a1 = _window(quick, 4 * 3600.0)
    bp, ap = workdir / "s2-before.monwrite", workdir / "s2-after.monwrite"
    before.run(bp, duration=b1)
    after.run(ap, duration=a1)
    db, da = m.Data.load(bp), m.Data.load(ap)
    users_b = list(db.frames["MRUSEINT"]["USEINT_VMDUSER"].unique())
    users_a = list(da.frames["MRUSEINT"]["USEINT_VMDUSER"].unique())

    q_b, q_a = m.paging_queue(db, b0, b1), m.paging_queue(da, a0, a1)
    pgw_b = m.user_state_pct(db, users_b, "USEINT_HFWTPAG", b0, b1, of="USEINT_HFQUCT")
    pgw_a = m.user_state_pct(da, users_a, "USEINT_HFWTPAG", a0, a1, of="USEINT_HFQUCT")
    dasd_b, dasd_a = m.user_dasd_pages(db, b0, b1), m.user_dasd_pages(da, a0, a1)
    tv_b, tv_a = m.tv_ratio(db, b0, b1), m.tv_ratio(da, a0, a1)
    rate_b, rate_a = m.page_rate(db, b0, b1), m.page_rate(da, a0, a1)
    xs_b, xs_a = m.xstor_rate(db, b0, b1), m.xstor_rate(da, a0, a1)
    serv_b = m.paging_service_ms(db, b0, b1)
    resp_b = m.paging_response_ms(db, b0, b1)

    # Before: the calibrated figures first, then what the model predicts.
    res.within("before: CPU busy % (calibrated)", m.cpu_busy_pct(db, b0, b1), 46.7, 0.15)
    res.within("before: T/V (calibrated)", tv_b, 1.25, 0.10)
    res.between("before: paging service ms per I/O (calibrated)", serv_b, 5, 7, "5-7")
    res.holds("before: paging I/Os queue (response >= 1.5 x service)", resp_b >= 1.5 * serv_b,
              "response 13-29 ms for 5-7 ms service", f"{resp_b:.1f} ms vs {serv_b:.1f} ms")
    res.between("before: paging response ms (queue + service)", resp_b, 13, 29, "13-29")
    res.at_least("before: % of active users' samples in page wait", pgw_b, 2.0, "users in page wait")
    res.within("before: PGIN+PGOUT (XSTOR) per second", xs_b, 1680, 0.40, "workload mix assumed; wide tolerance")
    res.within("before: DASD page reads+writes per second", rate_b, 1046, 0.40, "workload mix assumed; wide tolerance")
    # After.
    res.at_most("after: busiest paging volume's average queue", q_a, 0.05, 0)
    res.at_most("after: % of active users' samples in page wait", pgw_a, 0.5, "no page wait")
    res.at_most("after: PGIN+PGOUT (XSTOR) per second", xs_a, 50, "about 6")
    fewer = 100 * (1 - dasd_a / dasd_b) if dasd_b else 0.0
    res.at_least("after: % fewer user pages on DASD", fewer, 50, 60)
    res.holds("after: T/V lower than before", tv_a < tv_b, "1.25 -> 1.06", f"{tv_b:.3f} -> {tv_a:.3f}")
    res.within("after: T/V", tv_a, 1.06, 0.10)
    res.info.update(
        window_before_s=[b0, b1],
        window_after_s=[a0, a1],
        cpu_busy_after_pct=round(m.cpu_busy_pct(da, a0, a1), 1),
        capture_ratio_before=round(m.capture_ratio(db, b0, b1), 3),
        user_dasd_pages=[round(dasd_b), round(dasd_a)],
        busiest_queue=[round(q_b, 2), round(q_a, 2)],
    )
    # The advisor over the same windows: the study's verdict before, none of it after.
    adv_b = diagnose(bp, db.at(b0).to_pydatetime(), db.at(b1).to_pydatetime()).ids()
    adv_a = diagnose(ap, da.at(a0).to_pydatetime(), da.at(a1).to_pydatetime()).ids()
    res.info.update(advisor_before=adv_b, advisor_after=adv_a)
    res.holds("advisor before: storage-constrained", "storage-constrained" in adv_b, "undersized LPAR", ", ".join(adv_b))
    res.holds("advisor before: paging-device-queue", "paging-device-queue" in adv_b, "paging queues", ", ".join(adv_b))
    res.holds("advisor after: neither storage-constrained nor paging-device-queue",
              not {"storage-constrained", "paging-device-queue"} & set(adv_a), "no queue, no page wait", ", ".join(adv_a))
    return res
