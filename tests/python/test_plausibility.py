"""Plausibility bounds: bits flipped inside record data (no structural damage,
so the reader sees nothing) give figures that cannot be; such samples are left
out of every figure, named with their offset in a warning, and never reach the
advisor. Files are made here from the twin's output."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from ztwin.advisor import diagnose
from ztwin.cli import main
from ztwin.monitor import layouts, read
from ztwin.reports import build, collect
from ztwin.twin import Scenario

SCENARIO = """
[scenario]
duration = "600s"
start = "2024-03-01T10:00:00Z"
[system]
system_id = "FLIPS"
processors = 2
central_storage = "512M"
[monitor]
sample_interval = "60s"
[[paging]]
device_type = "3390-3"
count = 2
first_address = "0A00"
volser_prefix = "PAG"
[[dasd]]
device_type = "3390-9"
first_address = "0B00"
volser_prefix = "USR"
[[guest]]
userid = "LINUX"
count = 3
virtual_storage = "512M"
workload = { type = "thrasher", area = "300M", pattern = "random", touch = "write", cpu_per_touch_us = 5.0 }
[[guest]]
userid = "DB"
virtual_storage = "256M"
workload = { type = "minidisk_io", device = "0B00", think = "20ms" }
"""

FIELDS = {f["name"]: (f["offset"], f["width"]) for lay in layouts() for f in lay["fields"]}


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("plausible")
    (d / "s.toml").write_text(SCENARIO)
    out = d / "good.monwrite"
    Scenario.load(d / "s.toml").run(out)
    return out


def record_offset(path: Path, name: str, nth: int, **match: Any) -> int:
    """Offset of the nth record of type ``name`` whose fields match."""
    hits = [r["offset"] for r in read(path) if r["name"] == name and all(r["fields"].get(k) == v for k, v in match.items())]
    return hits[nth]


def flip(data: bytearray, record: int, field: str, bit: int) -> None:
    """Flip bit ``bit`` (0 = least significant) of a big-endian field."""
    off, width = FIELDS[field]
    byte = record + off + width - 1 - bit // 8
    data[byte] ^= 1 << (bit % 8)


def test_the_twins_own_data_is_plausible(good: Path) -> None:
    iv = collect(good, users="all", devices="all", exposures="all")
    assert iv.implausible_count == 0 and iv.implausible == []
    assert len(iv.intervals) == 9


# (record, field, bit, match, what the warning says)
FLIPS = [
    ("MRIODDEV", "IODDEV_SCMCNTIM", 30, {"IODDEV_RDEVDEV": 0x0A00}, "IODDEV_SCMCNTIM rose by"),
    ("MRIODDEV", "IODDEV_SCMCNTIM", 25, {"IODDEV_RDEVDEV": 0x0A01}, "busy (pending + disconnect + connect time over the interval)"),
    ("MRUSEACT", "USEACT_VMDTTIME", 42, {"USEACT_VMDUSER": "LINUX1"}, "s of processor time in"),
    ("MRSYTPRP", "SYTPRP_PFXUTIME", 40, {"SYTPRP_PFXCPUAD": 1}, "SYTPRP_PFXUTIME"),
    ("MRSTOASP", "STOASP_EXPCTPRD", 30, {"STOASP_RDEVDEV": 0x0A00}, "STOASP_EXPCTPRD rose by"),
]


@pytest.mark.parametrize(("rec", "field", "bit", "match", "says"), FLIPS, ids=[f"{f[1]}-bit{f[2]}" for f in FLIPS])
def test_one_flipped_bit_is_left_out_and_named(
    good: Path, tmp_path: Path, rec: str, field: str, bit: int, match: dict[str, Any], says: str
) -> None:
    data = bytearray(good.read_bytes())
    at = record_offset(good, rec, 4, **match)
    flip(data, at, field, bit)
    path = tmp_path / "flipped.monwrite"
    path.write_bytes(bytes(data))
    iv = collect(path, users="all", devices="all", exposures="all")
    assert iv.implausible_count >= 1
    first = iv.implausible[0]
    assert (first["offset"], first["record"]) == (at, rec)
    assert says in first["reason"], first
    # every figure stays within what can be
    reports = build(path, ["SYSSUMLG", "DEVICE", "CPOWNED", "USTAT"])
    for row in reports["SYSSUMLG"].rows:
        assert row["cpu_busy_pct"] is None or row["cpu_busy_pct"] <= 100.5
        assert row["capture_ratio"] is None or row["capture_ratio"] <= 1.05
    for row in reports["DEVICE"].rows:
        assert row.get("busy_pct") is None or row["busy_pct"] <= 105, row
        assert row.get("serv_ms") is None or row["serv_ms"] < 30_000, row
    # the advisor never judges the implausible sample: nothing new, nothing worse
    d = diagnose(path)
    assert d.implausible_count == iv.implausible_count
    before = {f.id: f.severity for f in diagnose(good).findings}
    order = ["info", "warning", "critical"]
    for f in d.findings:
        assert f.id in before, f.id
        assert order.index(f.severity) <= order.index(before[f.id]), (f.id, f.severity, before[f.id])


def test_the_commands_warn_with_the_offset(good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(good.read_bytes())
    at = record_offset(good, "MRIODDEV", 4, IODDEV_RDEVDEV=0x0A00)
    flip(data, at, "IODDEV_SCMCNTIM", 30)
    path = tmp_path / "flipped.monwrite"
    path.write_bytes(bytes(data))
    for command in ("report", "diagnose"):
        code = main([command, str(path)])
        out, err = capsys.readouterr()
        assert code == 0
        line = err.strip()
        assert "\n" not in line
        assert line.startswith(f"ztwin {command}: warning: {path}: ")
        assert f"implausible sample(s) left out of the figures, the first at offset {at} (X'{at:X}'): MRIODDEV device 0A00: " in line
    assert main(["diagnose", "--json", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["implausible_count"] >= 1 and doc["implausible_samples"][0]["offset"] == at


def test_many_flipped_bits_never_give_impossible_figures(good: Path, tmp_path: Path) -> None:
    """Random high bits of random counter fields of random sample records."""
    rng = random.Random(20)
    records = [r for r in read(good) if r["kind"] == "sample" and r["domain"] != 1]
    counters = {
        "MRIODDEV": ["IODDEV_SCMCNTIM", "IODDEV_SCMDDTIM", "IODDEV_SCMFPTIM", "IODDEV_SCGSSCH", "IODDEV_RDEVSSCH"],
        "MRUSEACT": ["USEACT_VMDTTIME", "USEACT_VMDVTIME", "USEACT_CALCPPGR"],
        "MRSYTPRP": ["SYTPRP_PFXUTIME", "SYTPRP_PFXTMSYS", "SYTPRP_PFXTOTWT"],
        "MRSTOASP": ["STOASP_EXPCTPRD", "STOASP_EXPCTPWR", "STOASP_EXPCTSRD"],
    }
    data = bytearray(good.read_bytes())
    flips = 0
    for r in rng.sample(records, len(records)):
        names = [n for n in counters.get(r["name"], []) if n in FIELDS]
        if not names:
            continue
        name = rng.choice(names)
        width = FIELDS[name][1]
        flip(data, r["offset"], name, rng.randrange(8 * width - 12, 8 * width))
        flips += 1
        if flips == 40:
            break
    path = tmp_path / "flipped.monwrite"
    path.write_bytes(bytes(data))
    iv = collect(path, users="all", devices="all", exposures="all")
    assert iv.implausible_count > 0
    reports = build(path, ["SYSSUMLG", "DEVICE", "USTAT"])
    for row in reports["SYSSUMLG"].rows:
        assert row["cpu_busy_pct"] is None or row["cpu_busy_pct"] <= 100.5, row
        assert row["capture_ratio"] is None or row["capture_ratio"] <= 1.05, row
        assert row["tv_ratio"] is None or row["tv_ratio"] < 100, row
    for row in reports["DEVICE"].rows:
        assert row.get("busy_pct") is None or row["busy_pct"] <= 105, row
    for row in reports["USTAT"].rows:
        assert row.get("cpu_pct") is None or row["cpu_pct"] <= 100.5, row
