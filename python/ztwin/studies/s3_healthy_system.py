"""S3 healthy-system: "z/VM seems to be fine".

Two CPs, 22 users logged on and 12 active, CPU 31-62% busy, T/V 1.02, almost no
paging, DASD response about 3.7 ms, no eligible list. Nothing here limits the
guests; the advisor must find nothing wrong with z/VM.
"""

from __future__ import annotations

from pathlib import Path

from ztwin.advisor import diagnose
from ztwin.studies import STUDIES
from ztwin.studies import measures as m
from ztwin.studies.base import StudyResult, studies_dir
from ztwin.twin import Scenario

NAME = "healthy-system"
TITLE = STUDIES[NAME].title
SCENARIO = "healthy-system.toml"


def run(quick: bool, workdir: Path) -> StudyResult:
    res = StudyResult(NAME, TITLE)
    sc = Scenario.load(studies_dir() / SCENARIO)
    end = 1800.0 if quick else 7200.0
    t0, t1 = 300.0, end
    out = workdir / "s3.monwrite"
    sc.run(out, duration=end)
    d = m.Data.load(out)
    users = list(d.frames["MRUSEINT"]["USEINT_VMDUSER"].unique())
    res.at_most("T/V", m.tv_ratio(d, t0, t1), 1.1, 1.02)
    res.at_most("paging per second (XSTOR PGIN+PGOUT and DASD reads+writes)", m.xstor_rate(d, t0, t1) + m.page_rate(d, t0, t1), 10, "no paging to speak of")
    res.at_most("users on the eligible list (most at any sample)", m.eligible_max(d, t0, t1), 0, 0)
    res.between("CPU busy %", m.cpu_busy_pct(d, t0, t1), 31, 62, "31-62")
    res.within("DASD response ms (calibrated)", m.dasd_response_ms(d, t0, t1), 3.7, 0.15)
    res.at_most("% of active users' samples in page wait", m.user_state_pct(d, users, "USEINT_HFWTPAG", t0, t1, of="USEINT_HFQUCT"), 1.0, "none")
    res.info.update(window_s=[t0, t1], users_logged_on=len(users), capture_ratio=round(m.capture_ratio(d, t0, t1), 3))
    # The advisor over the whole window: nothing wrong with z/VM, look at the guests.
    adv = diagnose(out, d.at(t0).to_pydatetime(), d.at(t1).to_pydatetime())
    res.info["advisor"] = [f"{f.id}:{f.severity}" for f in adv.findings]
    res.holds("advisor: no finding of severity warning or critical", not adv.ids("warning"),
              "nothing wrong with z/VM", ", ".join(adv.ids("warning")) or "none")
    res.holds("advisor: points at the guests (no-constraint)", "no-constraint" in adv.ids(), "look inside the guests")
    return res
