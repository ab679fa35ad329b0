"""The Linux guests' advisor rules (issue 14, item 6): small runs that
trigger each of linux-swap-dasd, linux-double-paging and linux-cache-held,
and one with Linux guests that swap to a DCSS in a storage-rich system that
triggers none. Evidence from decoded records only (APPLDATA, UPAGE, USTAT,
MRSTOASI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.advisor import diagnose
from ztwin.twin import Scenario

HEAD = """
[scenario]
duration = "60s"
start = "2024-05-06T10:00:00Z"
[system]
processors = 2
central_storage = "{central}"
[monitor]
sample_interval = "10s"
[vdisk]
syslim = "infinite"
userlim = "infinite"
[[paging]]
device_type = "3390-3"
count = 2
first_address = "7900"
volser_prefix = "PG"
[[dasd]]
device_type = "3390-9"
count = 2
first_address = "6000"
volser_prefix = "LXS"
"""

THRASH = ('workload = {{ type = "thrasher", area = "{area}", pattern = "working_set", hot_fraction = 0.5, '
          'hot_share = 0.9, touch = "write", cpu_per_touch_us = 20.0, burst_touches = 100, think = "2ms"{extra} }}')  # fmt: skip

#: Linux swaps to its DASD minidisk only; storage is plentiful.
SWAP_DASD = HEAD.format(central="2G") + f"""
[[guest]]
userid = "LNXD"
virtual_storage = "256M"
{THRASH.format(area="300M", extra="")}
linux = {{ appldata = true, kernel = "48M", swap = [{{ device = "dasd", volume = "6000", size = "512M" }}] }}
"""

#: Linux swaps to a VDISK while CP, with 256 MB for a 384 MB guest, pages
#: the guest's frames out.
DOUBLE = HEAD.format(central="256M") + f"""
[[guest]]
userid = "LNXDP"
virtual_storage = "384M"
vdisk = [{{ vdev = "0300", size = "512M" }}]
{THRASH.format(area="420M", extra=", prefill = true")}
linux = {{ appldata = true, kernel = "48M", swap = [{{ device = "vdisk", vdev = "0300" }}] }}
"""

#: A Linux guest fills its page cache while a hog takes the storage.
CACHE = HEAD.format(central="384M") + f"""
[[guest]]
userid = "LNXWEB"
virtual_storage = "512M"
{THRASH.format(area="32M", extra=", fill_rate = 20000")}
linux = {{ appldata = true, kernel = "48M" }}
[[guest]]
userid = "HOG"
virtual_storage = "512M"
{THRASH.format(area="400M", extra="")}
"""

#: Storage-rich; one Linux guest swaps to a DCSS (no I/O), one fits.
QUIET = HEAD.format(central="2G") + f"""
[[spool]]
device_type = "3390-9"
first_address = "0300"
volser_prefix = "SPL"
[[segment]]
defseg = "LXSWAP 40000-4FFFF SN"
[[guest]]
userid = "LNXS"
virtual_storage = "256M"
{THRASH.format(area="300M", extra="")}
linux = {{ appldata = true, kernel = "48M", swap = [{{ device = "dcss", segment = "LXSWAP" }}] }}
[[guest]]
userid = "LNXFIT"
virtual_storage = "256M"
{THRASH.format(area="64M", extra=", fill_rate = 200")}
linux = {{ appldata = true, kernel = "48M" }}
"""

RULES = ("linux-swap-dasd", "linux-double-paging", "linux-cache-held")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("lxadv")
    out = {}
    for name, text in (("dasd", SWAP_DASD), ("double", DOUBLE), ("cache", CACHE), ("quiet", QUIET)):
        sc = d / f"{name}.toml"
        sc.write_text(text)
        out[name] = d / f"{name}.monwrite"
        Scenario.load(sc).run(out[name])
    return out


def fired(path: Path) -> dict[str, object]:
    d = diagnose(path)
    return {r: d.get(r) for r in RULES if d.get(r) is not None}


def test_swap_to_dasd(runs: dict[str, Path]) -> None:
    f = fired(runs["dasd"])
    assert set(f) == {"linux-swap-dasd"}, f
    s = f["linux-swap-dasd"]
    assert s.severity in ("info", "warning")  # type: ignore[attr-defined]
    ev = s.evidence[0]  # type: ignore[attr-defined]
    assert ev.report == "LXMEM" and "LNXD" in ev.summary
    assert ev.rows and {r["userid"] for r in ev.rows} == {"LNXD"}
    # Every row is an interval with its figures: DASD pages/s are the
    # swapped pages (no VDISK), with the guest's own I/Os.
    for r in ev.rows:
        assert r["vdisk_pages_s"] == 0.0 and r["dasd_pages_s"] == pytest.approx(r["swap_s"])
        assert r["dasd_pages_s"] >= 10.0 and r["other_io_s"] >= 1.0
        assert r["interval_end"] is not None
    assert "VDISK" in s.recommendation and "DCSS" in s.recommendation  # type: ignore[attr-defined]


def test_double_paging(runs: dict[str, Path]) -> None:
    f = fired(runs["double"])
    assert "linux-double-paging" in f, f
    # Its swap is the VDISK: not DASD.
    assert "linux-swap-dasd" not in f
    ev = f["linux-double-paging"].evidence  # type: ignore[attr-defined]
    assert ev[0].report == "UPAGE" and "LNXDP" in ev[0].summary
    for r in ev[0].rows:
        assert r["double_s"] == pytest.approx(min(r["cp_steals_s"], r["lx_pswpout_s"] + r["lx_pswpin_s"]))
        assert r["double_s"] >= 5.0


def test_cache_held(runs: dict[str, Path]) -> None:
    f = fired(runs["cache"])
    assert set(f) == {"linux-cache-held"}, f
    ev = f["linux-cache-held"].evidence  # type: ignore[attr-defined]
    assert ev[0].report == "LXMEM" and "LNXWEB" in ev[0].summary
    for r in ev[0].rows:
        assert r["userid"] == "LNXWEB" and r["cache_mb"] >= 64.0 and r["cp_steals_s"] >= 1.0


def test_quiet_when_linux_swaps_to_memory_in_a_rich_system(runs: dict[str, Path]) -> None:
    assert fired(runs["quiet"]) == {}


def test_thresholds_from_the_rules_file(runs: dict[str, Path]) -> None:
    from ztwin.advisor.rules import load_rules

    # Off, and a threshold above every figure: silent.
    assert diagnose(runs["dasd"], rules=load_rules(text="[linux-swap-dasd]\nenabled = false\n")).get("linux-swap-dasd") is None
    high = load_rules(text="[linux-cache-held]\ninfo = 100000.0\nwarning = false\n")
    assert diagnose(runs["cache"], rules=high).get("linux-cache-held") is None
    with pytest.raises(Exception, match="unknown key"):
        load_rules(text="[linux-double-paging]\nsteal_min = 3\n")
