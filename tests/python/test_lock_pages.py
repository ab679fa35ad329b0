"""CP's LOCK end to end: a twin run whose LOCK brings a guest's paged-out
pages back in and pins them; the monitor's USEACT_VMDCTPVL carries the
pinned pages and UPAGE (FCX113) shows them in its locked-pages column."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_ztwin

#: CMS touches its first 1 MB (pages 0-FF) once and sleeps while LNX
#: thrashes over more than central storage: by 4 s CMS's pages are on DASD.
#: LNX stops at 4 s (its page-outs no longer hold the paging volume) and
#: starts again at 7 s over a larger area, stealing again. LOCK at 6.5 s
#: brings CMS's pages 0-10F in (256 read from DASD, 16 never touched).
SCENARIO = """
[scenario]
duration = "12s"
[system]
processors = 2
central_storage = "256M"
[monitor]
sample_interval = "6s"
[[paging]]
device_type = "3390-3"
first_address = "7900"
volser_prefix = "PG"
[[guest]]
userid = "CMS"
virtual_storage = "32M"
workload = { type = "thrasher", area = "1M", touch = "write", think = "100s" }
[[guest]]
userid = "LNX"
virtual_storage = "512M"
workload = { type = "thrasher", area = "400M", pattern = "serial", touch = "write", cpu_per_touch_us = 1.0 }
[[timeline]]
at = "4s"
action = "stop"
guest = "LNX"
[[timeline]]
at = "7s"
action = "start"
guest = "LNX"
workload = { type = "thrasher", area = "480M", pattern = "serial", touch = "write", cpu_per_touch_us = 1.0 }
[[timeline]]
at = "6500ms"
action = "cp"
command = "lock userid cms 0 10f"
"""


def _upage(tmp_path: Path, scenario: str) -> dict[str, dict]:
    scen = tmp_path / "lock.toml"
    scen.write_text(scenario, encoding="utf-8")
    mon = tmp_path / "lock.mon"
    r = run_ztwin("run", scen, "-o", mon, "-q")
    assert r.returncode == 0, r.stderr
    r = run_ztwin("report", mon, "-r", "UPAGE", "--format", "json")
    assert r.returncode == 0, r.stderr
    return {row["userid"]: row for row in json.loads(r.stdout)["rows"]}


def test_lock_shows_in_upage_locked_column(tmp_path: Path) -> None:
    rows = _upage(tmp_path, SCENARIO)
    # The second interval (6-12 s) is the report's window: CMS's 272 pages
    # pinned from 6.5 s on, all resident; LNX pinned nothing.
    assert rows["CMS"]["locked"] == 272.0, rows["CMS"]
    assert rows["CMS"]["resident"] == 272.0, rows["CMS"]
    assert rows["LNX"]["locked"] == 0.0, rows["LNX"]
    # Without the LOCK nothing is locked and CMS stays paged out.
    rows = _upage(tmp_path, SCENARIO.split("[[timeline]]\nat = \"6500ms\"")[0])
    assert rows["CMS"]["locked"] == 0.0, rows["CMS"]
    assert rows["CMS"]["resident"] == 0.0, rows["CMS"]
