"""The I/O path reports (CACHEXT, CHANNEL, HPALIAS, LCU, MDCACHE, DEVLOG, DEVCONF and
DEVICE's PAV columns) on the twin's
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
    out = {"pinned": d / "pinned.monwrite", "mdc": d / "mdc.monwrite", "hpav": d / "hpav.monwrite",
           "defect": d / "defect.monwrite"}  # fmt: skip
    Scenario.load(studies_dir() / "pinned-data.toml").run(out["pinned"], duration=900)
    Scenario.load(studies_dir() / "pav-mdc-fixed.toml").run(out["mdc"], duration=180)
    Scenario.load(studies_dir() / "pav-mdc-defect.toml").run(out["defect"], duration=180)
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


def test_cachext_only_for_bases(files: dict[str, Path]) -> None:
    # IBM (mon610, mon620 MRIODCAD): not created for PAV or HyperPAV aliases.
    assert [r["addr"] for r in build(files["hpav"], ["CACHEXT"])["CACHEXT"].rows] == ["2000", "2001", "2002", "2003"]
    assert [r["addr"] for r in build(files["defect"], ["CACHEXT"])["CACHEXT"].rows] == ["E700"]


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


def _dev(rows: list[dict], addr: str) -> dict:
    return next(r for r in rows if r["addr"] == addr)


def test_device_pav_columns_static_aliases(files: dict[str, Path]) -> None:
    fixed = build(files["mdc"], ["DEVICE"], "10:01:00")["DEVICE"].rows
    bad = build(files["defect"], ["DEVICE"], "10:01:00")["DEVICE"].rows
    for rows in (fixed, bad):
        base = _dev(rows, "E700")
        assert (base["pav"], base["aliases"], base["hpav_share_pct"]) == ("BASE", 3, None)
        assert {_dev(rows, a)["pav"] for a in ("E7FC", "E7FD", "E7FE")} == {"ALIAS"}
        # Conservation: every I/O the base's volume started on an alias is an
        # SSCH on one of the alias subchannels.
        on_aliases = sum(_dev(rows, a)["io_rate"] for a in ("E7FC", "E7FD", "E7FE"))
        assert base["alias_io_rate"] == pytest.approx(on_aliases, rel=0.01, abs=0.05)
    # The fix spreads the volume over its aliases (about 3 of 4 I/Os there);
    # with the defect every I/O is the cache's and runs on the base.
    assert 65 < _dev(fixed, "E700")["alias_pct"] < 85 and _dev(fixed, "E700")["base_only_rate"] == 0
    b = _dev(bad, "E700")
    assert b["alias_pct"] < 1 and b["base_only_rate"] == pytest.approx(b["io_rate"], rel=0.01)
    assert "Kind" in build(files["mdc"], ["DEVICE"], "10:01:00")["DEVICE"].to_text(WHEN)
    assert _dev(fixed, "E700")["paths"] == 4 and _dev(fixed, "E7FC")["paths"] == 4


def test_device_pav_columns_hyperpav_and_not_without_pav(files: dict[str, Path], basic_file: Path) -> None:
    rows = build(files["hpav"], ["DEVICE"])["DEVICE"].rows
    bases = [r for r in rows if r.get("pav") == "HPBASE"]
    assert len(bases) == 4 and all(r["aliases"] == 2 and r["hpav_pool"] == 1 for r in bases)
    shares = [r["hpav_share_pct"] for r in bases]
    assert sum(shares) == pytest.approx(100.0) and max(shares) == pytest.approx(100.0)  # one busy volume
    on_aliases = sum(r["io_rate"] for r in rows if r.get("pav") == "HPALIAS")
    assert sum(r["alias_io_rate"] for r in bases) == pytest.approx(on_aliases, rel=0.01)
    rep = build(basic_file, ["DEVICE"])["DEVICE"]
    assert all(r.get("pav") is None for r in rep.rows) and "Kind" not in rep.to_text(WHEN)


def test_lcu_groups_a_pool_or_the_paths(files: dict[str, Path]) -> None:
    reps = build(files["hpav"], ["LCU", "HPALIAS", "DEVICE"])
    (lcu,) = reps["LCU"].rows
    (pool,) = reps["HPALIAS"].rows
    dev = [r for r in reps["DEVICE"].rows if r["addr"] != ">>All DASD<<"]
    assert (lcu["lcu"], lcu["ssid"], lcu["bases"], lcu["aliases"], lcu["chpids"]) == ("Pool 1", "0001", 4, 2, "50 51")
    assert lcu["io_rate"] == pytest.approx(sum(r["io_rate"] for r in dev))
    assert lcu["queued"] == pytest.approx(sum(r["queued"] for r in dev))
    assert lcu["hpav_gets_rate"] == pytest.approx(pool["tries_rate"]) and lcu["hpav_fail_pct"] == pytest.approx(pool["fail_pct"])
    assert 0 <= lcu["hpav_min_free"] <= 2 and lcu["resp_ms"] >= lcu["serv_ms"]
    (lcu,) = build(files["mdc"], ["LCU"], "10:01:00")["LCU"].rows
    assert (lcu["lcu"], lcu["pool"], lcu["bases"], lcu["aliases"]) == ("CHP 40 41 42 43", None, 1, 3)
    assert lcu["hpav_gets_rate"] is None and lcu["ssid"] is None and 65 < lcu["alias_pct"] < 85
    assert build(files["pinned"], ["LCU"])["LCU"].rows[0]["chpids"] == "0A 2A 4A"


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
    reps = build(basic_file, ["CACHEXT", "CHANNEL", "HPALIAS", "MDCACHE", "LCU", "HPSHARE", "MDCSTOR", "CTLUNIT"])
    assert all(r.rows == [] for r in reps.values())


@pytest.mark.parametrize(("name", "file", "start", "end"), [
    ("CACHEXT", "pinned", "09:01:00", "09:10:00"),
    ("CHANNEL", "mdc", "10:01:00", None),
    ("HPALIAS", "hpav", None, None),
    ("LCU", "hpav", None, None),
    ("MDCACHE", "mdc", "10:01:00", None),
    ("DEVLOG", "pinned", "09:08:00", "09:13:00"),
    ("HPSHARE", "hpav", None, None),
    ("MDCSTOR", "mdc", "10:01:00", None),
    ("CTLUNIT", "hpav", None, None),
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
    out = tmp_path / "html-pav"
    assert main(["report", str(files["hpav"]), "--html", str(out), "-r", "LCU", "-r", "DEVICE"]) == 0
    dom = render_dom(out / "lcu.html")
    assert "Logical Control Unit Activity" in dom and "Pool 1" in dom
    dom = render_dom(out / "device.html")
    assert "HPBASE" in dom and "HPALIAS" in dom
    out = tmp_path / "html-sum"
    assert main(["report", str(files["hpav"]), "--html", str(out), "-r", "HPSHARE", "-r", "CTLUNIT"]) == 0
    dom = render_dom(out / "hpshare.html")
    assert "HyperPAV Share Activity" in dom and "2000" in dom and "&gt;&gt;Pool&lt;&lt;" in dom
    dom = render_dom(out / "ctlunit.html")
    assert "Cached Control Units" in dom and "Pool 1" in dom
    out = tmp_path / "html-mdc"
    assert main(["report", str(files["mdc"]), "--html", str(out), "-r", "MDCSTOR", "--from", "10:01:00"]) == 0
    dom = render_dom(out / "mdcstor.html")
    assert "Minidisk Cache Storage by Time" in dom and "&gt;&gt;Mean&gt;&gt;" in dom


@pytest.mark.parametrize("name", ["DEVICE", "DEVCONF"])
def test_pav_text_matches_snapshot(files: dict[str, Path], name: str) -> None:
    text = build(files["hpav"], [name])[name].to_text(WHEN)
    path = SNAPSHOTS / f"{name.lower()}-pav.txt"
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert text == path.read_text(encoding="utf-8")


def test_device_path_fields_that_are_not_hex_are_ignored() -> None:
    # A layout pack could map MRMTRDEV's bit strings otherwise: no traceback.
    from ztwin.reports.core import DeviceConf

    d = DeviceConf(1, path_fields={"MTRDEV_RDEVCHPS": "ZZZZZZZZZZZZZZZZ", "MTRDEV_RDEVPVFG": "xx", "MTRDEV_RDEVHPPL": 3})
    assert (d.chpids, d.pav_flags, d.hpp_pool) == ((), 0, 3)
    d = DeviceConf(2, path_fields={"MTRDEV_RDEVCHPS": "0A2A4A0000000000", "MTRDEV_RDEVPVFG": "80"})
    assert (d.chpids, d.pav_flags, d.hpp_pool) == ((0x0A, 0x2A, 0x4A), 0x80, 0)


def test_devconf_lists_the_configured_devices_with_paths_and_pav(files: dict[str, Path], basic_file: Path) -> None:
    rows = {r["addr"]: r for r in build(files["hpav"], ["DEVCONF"])["DEVCONF"].rows}
    # four HyperPAV bases 2000-2003 and two pool aliases from 2100, all in pool 1 behind CHPIDs 50 and 51
    assert sorted(rows) == ["2000", "2001", "2002", "2003", "2100", "2101"]
    base, alias = rows["2000"], rows["2100"]
    assert (base["type"], base["dev_class"], base["volser"], base["pav"], base["pool"]) == ("3390", "DASD", "HPV1", "HPBASE", 1)
    assert (alias["pav"], alias["pool"], alias["base"]) == ("HPALIAS", 1, "")  # a HyperPAV alias has no fixed base
    assert all(r["chpids"] == "50 51" and r["paths_online"] == 2 for r in rows.values())
    assert len({r["sch"] for r in rows.values()}) == len(rows)  # one subchannel each
    pinned = {r["addr"]: r for r in build(files["pinned"], ["DEVCONF"])["DEVCONF"].rows}
    assert pinned["1742"]["chpids"] == "0A 2A 4A" and pinned["1742"]["pav"] == ""
    # a file without MRMTRDEV records: an empty report, no error
    assert build(basic_file, ["DEVCONF"])["DEVCONF"].rows == []


def test_devconf_path_slots_follow_the_logical_path_mask() -> None:
    from ztwin.reports.core import DeviceConf

    def slots(**f: str) -> tuple[tuple[int, bool], ...]:
        return DeviceConf(1, path_fields=f).path_slots

    assert slots(MTRDEV_RDEVCHPS="0A2A000000000000", MTRDEV_RDEVLPM="80") == ((0x0A, True), (0x2A, False))
    assert slots(MTRDEV_RDEVCHPS="0A2A000000000000") == ((0x0A, True), (0x2A, True))
    assert slots(MTRDEV_RDEVCHPS="not hex at all!!", MTRDEV_RDEVLPM="C0") == ()
    assert slots(MTRDEV_RDEVCHPS="0A00000000000000", MTRDEV_RDEVLPM="zz") == ((0x0A, True),)
    assert DeviceConf(2).path_slots == () and not DeviceConf(2).edev


def test_hpshare_pool_line_and_bases_add_up(files: dict[str, Path]) -> None:
    reps = build(files["hpav"], ["HPSHARE", "HPALIAS", "DEVICE"])
    pool, *bases = reps["HPSHARE"].rows
    (hp,) = reps["HPALIAS"].rows
    dev = reps["DEVICE"].rows
    assert pool["addr"] == ">>Pool<<" and [r["addr"] for r in bases] == ["2000", "2001", "2002", "2003"]
    assert (pool["pool"], pool["bases"], pool["aliases"]) == (1, 4, 2) and all(r["pool"] == 1 for r in bases)
    assert pool["gets_rate"] == pytest.approx(hp["tries_rate"]) and pool["fail_pct"] == pytest.approx(hp["fail_pct"])
    # the bases' shares of the pool's alias starts make 100%; each is DEVICE's figure
    assert sum(r["share_pct"] for r in bases) == pytest.approx(100.0)
    for r in bases:
        assert r["share_pct"] == pytest.approx(_dev(dev, r["addr"])["hpav_share_pct"])
        assert r["alias_io_rate"] == pytest.approx(_dev(dev, r["addr"])["alias_io_rate"])
    # every alias start is an SSCH on one of the pool's alias subchannels
    on_aliases = sum(r["io_rate"] for r in dev if r.get("pav") == "HPALIAS")
    assert pool["alias_io_rate"] == pytest.approx(on_aliases, rel=0.01) and pool["alias_io_rate"] > 0
    assert 0 < pool["alias_pct"] < 100
    # no HyperPAV (static PAV only): no rows
    assert build(files["mdc"], ["HPSHARE"], "10:01:00")["HPSHARE"].rows == []


def test_mdcstor_intervals_follow_the_records(files: dict[str, Path]) -> None:
    reps = build(files["mdc"], ["MDCSTOR", "MDCACHE"], "10:01:00")
    mean, *ivs = reps["MDCSTOR"].rows
    (m,) = reps["MDCACHE"].rows
    assert mean["interval_end"] == ">>Mean>>" and len(ivs) >= 2
    # the last interval's levels are MDCACHE's figures at the window's end
    assert (ivs[-1]["main_frames"], ivs[-1]["main_ideal"]) == (m["main_frames"], m["main_target"])
    assert all(0 < r["main_frames"] <= r["main_max"] for r in ivs)
    assert mean["main_frames"] == pytest.approx(sum(r["main_frames"] for r in ivs) / len(ivs))
    for r in ivs:
        assert r["ideal_pct"] == pytest.approx(100.0 * r["main_frames"] / r["main_ideal"])


def test_ctlunit_sums_cachext_per_control_unit(files: dict[str, Path]) -> None:
    reps = build(files["hpav"], ["CTLUNIT", "CACHEXT"])
    (cu,) = reps["CTLUNIT"].rows
    dev = reps["CACHEXT"].rows
    assert (cu["cu"], cu["devices"], cu["no_data"]) == ("Pool 1", 4, 0)
    for k in ("total_rate", "read_nseq_rate", "read_seq_rate", "write_rate", "staged_rate"):
        assert cu[k] == pytest.approx(sum(r[k] for r in dev)), k
    # the read hit % is weighted by the reads, not the mean of the devices'
    reads = [r["read_nseq_rate"] + r["read_seq_rate"] for r in dev]
    want = sum(r["read_hit_pct"] * n for r, n in zip(dev, reads, strict=True) if n) / sum(reads)
    assert cu["read_hit_pct"] == pytest.approx(want)
    # a control unit whose only device stops caching: counted as no data
    (cu,) = build(files["pinned"], ["CTLUNIT"], "09:11:00", "09:15:00")["CTLUNIT"].rows
    assert (cu["cu"], cu["devices"], cu["no_data"], cu.get("total_rate")) == ("CHP 0A 2A 4A", 1, 1, None)
