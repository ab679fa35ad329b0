"""The I/O path reports (CACHEXT, CHANNEL, HPALIAS, MDCACHE, DEVLOG) on the twin's
own files: values against what the scenarios make happen, text snapshots,
and the HTML pages in a browser.

Files: studies/pinned-data.toml (cached for ten minutes, then the control unit
stops caching 1742), studies/pav-mdc-fixed.toml (MDC on, four FICON paths) and
a small HyperPAV scenario written here.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from ztwin.cli import main
from ztwin.reports import build
from ztwin.studies.base import studies_dir
from ztwin.twin import Scenario

SNAPSHOTS = Path(__file__).parent / "snapshots"
WHEN = datetime(2024, 3, 2, 8, 30, 0)

HYPERPAV = """
[scenario]
name = "hpav"
duration = "3min"
seed = 1
start = "2024-01-01T10:00:00Z"
[system]
cp_level = "5.4"
processors = 2
central_storage = "2G"
[monitor]
sample_interval = "1min"
[[chpid]]
id = "50"
count = 2
type = "ficon"
[[storage_server]]
name = "DS"
[[storage_server.rank]]
name = "R"
count = 2
[[control_unit]]
name = "LCU0"
server = "DS"
chpids = ["50", "51"]
hyperpav_aliases = 2
alias_address = "2100"
[[dasd]]
device_type = "3390-9"
count = 4
first_address = "2000"
volser_prefix = "HPV"
path = { control_unit = "LCU0" }
[[guest]]
userid = "CMSU"
count = 8
virtual_storage = "32M"
workload = { type = "cms", device = "2000", minidisk = "50M", access = "random", cpu_per_io_us = 50 }
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("iopath")
    out = {"pinned": d / "pinned.monwrite", "mdc": d / "mdc.monwrite", "hpav": d / "hpav.monwrite"}
    Scenario.load(studies_dir() / "pinned-data.toml").run(out["pinned"], duration=900)
    Scenario.load(studies_dir() / "pav-mdc-fixed.toml").run(out["mdc"], duration=180)
    scen = d / "hpav.toml"
    scen.write_text(HYPERPAV, encoding="utf-8")
    Scenario.load(scen).run(out["hpav"])
    return out


def test_cachext_hits_then_no_data_when_caching_stops(files: dict[str, Path]) -> None:
    before = build(files["pinned"], ["CACHEXT"], "09:01:00", "09:10:00")["CACHEXT"].rows
    after = build(files["pinned"], ["CACHEXT"], "09:11:00", "09:15:00")["CACHEXT"].rows
    assert [r["addr"] for r in before] == ["1742"] and [r["addr"] for r in after] == ["1742"]
    b = before[0]
    assert not b["no_data"] and b["read_hit_pct"] > 97 and 30 < b["total_rate"] < 50
    assert b["read_nseq_rate"] + b["read_seq_rate"] + b["write_rate"] == pytest.approx(b["total_rate"])
    assert after[0]["no_data"] and after[0].get("total_rate") is None
    text = build(files["pinned"], ["CACHEXT"], "09:11:00", "09:15:00")["CACHEXT"].to_text(WHEN)
    assert "no data" in text


def test_channel_busy_and_rates_add_up(files: dict[str, Path]) -> None:
    rows = build(files["mdc"], ["CHANNEL", "DEVICE"], "10:01:00")
    ch, dev = rows["CHANNEL"].rows, rows["DEVICE"].rows
    assert [r["chpid"] for r in ch] == ["40", "41", "42", "43"] and {r["type"] for r in ch} == {"FICON"}
    # Every real I/O goes over one of the paths, and a read miss (3% of them:
    # read_hit 0.97) uses a channel a second time when it reconnects: the
    # channels' work units are the subchannels' I/Os plus the misses.
    io = sum(r["io_rate"] for r in dev if r["addr"] != ">>All DASD<<")
    assert io <= sum(r["io_rate"] for r in ch) <= io * 1.05
    assert all(0 < r["busy_pct"] <= 100 for r in ch)


def test_mdcache_hits_are_the_devices_avoided_ios(files: dict[str, Path]) -> None:
    rows = build(files["mdc"], ["MDCACHE", "DEVICE"], "10:01:00")
    (m,) = rows["MDCACHE"].rows
    avoid = sum(r["avoid_rate"] or 0 for r in rows["DEVICE"].rows if r["addr"] != ">>All DASD<<")
    assert m["hit_rate"] == pytest.approx(avoid, rel=0.01)
    assert 0 < m["hit_pct"] < 100 and m["main_frames"] <= m["main_max"]


def test_hpalias_pool(files: dict[str, Path]) -> None:
    (p,) = build(files["hpav"], ["HPALIAS"])["HPALIAS"].rows
    assert (p["bases"], p["aliases"]) == (4, 2)
    assert p["tries_rate"] > 0 and 0 <= p["fail_pct"] <= 100 and 0 <= p["min_free"] <= p["max_free"] <= 2


def test_devlog_shows_the_jump_interval_by_interval(files: dict[str, Path]) -> None:
    rep = build(files["pinned"], ["DEVLOG", "DEVICE"], "09:08:00", "09:13:00")
    rows = rep["DEVLOG"].rows
    assert {r["addr"] for r in rows} == {"1742"}
    mean, *ivs = rows
    assert mean["interval_end"] == ">>Mean>>" and len(ivs) == 5
    assert [r["disc_ms"] < 1 for r in ivs] == [True, True, False, False, False]
    # The mean line is DEVICE's line for the device over the same window.
    dev = next(r for r in rep["DEVICE"].rows if r["addr"] == "1742")
    assert mean["io_rate"] == pytest.approx(dev["io_rate"]) and mean["disc_ms"] == pytest.approx(dev["disc_ms"])


def test_reports_are_empty_on_files_without_the_records(basic_file: Path) -> None:
    reps = build(basic_file, ["CACHEXT", "CHANNEL", "HPALIAS", "MDCACHE"])
    assert all(r.rows == [] for r in reps.values())


@pytest.mark.parametrize(("name", "file", "start", "end"), [
    ("CACHEXT", "pinned", "09:01:00", "09:10:00"),
    ("CHANNEL", "mdc", "10:01:00", None),
    ("HPALIAS", "hpav", None, None),
    ("MDCACHE", "mdc", "10:01:00", None),
    ("DEVLOG", "pinned", "09:08:00", "09:13:00"),
])  # fmt: skip
def test_text_matches_snapshot(files: dict[str, Path], name: str, file: str, start: str | None, end: str | None) -> None:
    text = build(files[file], [name], start, end)[name].to_text(WHEN)
    path = SNAPSHOTS / f"{name.lower()}.txt"
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert text == path.read_text(encoding="utf-8")


def test_html_pages_render_in_a_browser(files: dict[str, Path], tmp_path: Path) -> None:
    from test_report_html_browser import CHROMIUM, render_dom

    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    out = tmp_path / "html"
    assert main(["report", str(files["pinned"]), "--html", str(out), "-r", "CACHEXT", "-r", "CHANNEL", "--from", "09:01:00",
                 "--to", "09:10:00"]) == 0
    dom = render_dom(out / "cachext.html")
    assert "Cache Extended Functions" in dom and "1742" in dom
    dom = render_dom(out / "channel.html")
    assert "ESCON" in dom and "0A" in dom
