"""Collections joined into one MONWRITE file (made here from the twin's output
with ``cat``): reported per segment, never mixed, marked in ``dump``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ztwin.monitor import read, scan
from ztwin.reports import build
from ztwin.segments import SegmentError, choose
from ztwin.twin import Scenario

SCENARIO = """
[scenario]
duration = "150s"
start = "{start}"
[system]
system_id = "{system}"
processors = 1
central_storage = "512M"
[monitor]
sample_interval = "30s"
[[paging]]
device_type = "3390-3"
first_address = "0A00"
volser_prefix = "PAG"
[[guest]]
userid = "{user}"
virtual_storage = "256M"
workload = {{ type = "cpu", utilization = 0.5 }}
"""


def make(tmp: Path, name: str, system: str, start: str, user: str = "LINUX") -> Path:
    sc = tmp / f"{name}.toml"
    sc.write_text(SCENARIO.format(system=system, start=start, user=user))
    out = tmp / f"{name}.monwrite"
    Scenario.load(sc).run(out)
    return out


def join(tmp: Path, name: str, *parts: Path) -> Path:
    out = tmp / name
    out.write_bytes(b"".join(p.read_bytes() for p in parts))
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("segments")
    tiny = make(d, "tiny", "TINY", "2024-03-01T10:00:00Z")
    later = make(d, "later", "TINY", "2024-03-01T12:00:00Z")
    vsp = make(d, "vsp", "VSPSYS", "2024-03-01T10:00:00Z", user="VSPUSER")
    return {
        "tiny": tiny,
        "vsp": vsp,
        "later": later,
        "twice": join(d, "twice.monwrite", tiny, tiny),
        "mixed": join(d, "mixed.monwrite", tiny, vsp),
        "day": join(d, "day.monwrite", tiny, later),
    }


def ztwin(*args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    return subprocess.run(
        [sys.executable, "-m", "ztwin", *map(str, args)], capture_output=True, text=True, check=False, env=env
    )


def test_the_reader_lists_the_segments(files: dict[str, Path]) -> None:
    size = files["tiny"].stat().st_size
    assert scan(files["tiny"])["segment_count"] == 1
    segs = scan(files["mixed"])["segments"]
    assert [(s["index"], s["offset"], s["end"], s["start"], s["system_id"]) for s in segs] == [
        (1, 0, size, "file-start", "TINY"),
        (2, size, 2 * size, "system-changed", "VSPSYS"),
    ]
    assert segs[1]["reason"] == "configuration records of system VSPSYS after system TINY"
    assert [s["start"] for s in scan(files["twice"])["segments"]] == ["file-start", "time-went-back"]
    assert [s["start"] for s in scan(files["day"])["segments"]] == ["file-start", "monitor-start"]


def test_ranges_keep_only_the_chosen_records(files: dict[str, Path]) -> None:
    size = files["tiny"].stat().st_size
    plan = choose(files["mixed"], system="vspsys")
    assert plan.ranges == [(size, 2 * size)]
    records = list(read(files["mixed"], plan.ranges))
    assert records and all(r["offset"] >= size for r in records)
    assert len(records) == len(list(read(files["vsp"])))


def test_two_systems_are_not_mixed(files: dict[str, Path]) -> None:
    for cmd in (["report", files["mixed"], "-r", "SYSSUMLG"], ["diagnose", files["mixed"]]):
        p = ztwin(*cmd)
        assert p.returncode == 2 and p.stdout == ""
        err = p.stderr.strip()
        assert err.count("\n") == 0, err
        assert "holds collections of 2 systems, which ztwin does not mix" in err
        assert "1: TINY at offset 0" in err and "2: VSPSYS at offset" in err
        assert err.endswith("choose one with --system NAME or --segment N")


@pytest.mark.parametrize(("args", "alone"), [(["--system", "VSPSYS"], "vsp"), (["--segment", "1"], "tiny")])
def test_a_chosen_system_reports_as_its_own_file(files: dict[str, Path], args: list[str], alone: str) -> None:
    for cmd in (["report", "-r", "SYSSUMLG", "-r", "DEVICE", "-r", "USTAT"], ["diagnose"]):
        joined = ztwin(*cmd, files["mixed"], *args)
        single = ztwin(*cmd, files[alone])
        assert joined.returncode == 0, joined.stderr
        assert joined.stdout.replace(str(files["mixed"]), "F") == single.stdout.replace(str(files[alone]), "F")


def test_the_same_collection_twice_is_refused_as_overlapping(files: dict[str, Path]) -> None:
    p = ztwin("report", files["twice"], "-r", "SYSSUMLG")
    assert p.returncode == 2
    assert "segments 1 and 2 overlap in time" in p.stderr and "choose one with --segment N" in p.stderr
    for n in ("1", "2"):
        p = ztwin("report", files["twice"], "-r", "SYSSUMLG", "--segment", n)
        assert p.returncode == 0
        assert p.stdout.replace(str(files["twice"]), "F") == ztwin("report", files["tiny"], "-r", "SYSSUMLG").stdout.replace(
            str(files["tiny"]), "F"
        )


def test_later_collections_of_one_system_are_reported_together(files: dict[str, Path]) -> None:
    reports = build(files["day"], ["SYSSUMLG"], segments=choose(files["day"]).ranges)
    one = build(files["tiny"], ["SYSSUMLG"])
    rows = [r for r in reports["SYSSUMLG"].rows if r.get("interval_end") is not None and r.get("interval_start")]
    single = [r for r in one["SYSSUMLG"].rows if r.get("interval_start")]
    # each collection's own intervals, none spanning the gap between them
    assert len(rows) == 2 * len(single)
    gaps = [(b["interval_start"] - a["interval_end"]).total_seconds() for a, b in zip(rows, rows[1:], strict=False)]
    assert max(gaps) == pytest.approx(7200 - 120, abs=1)
    assert all(r["seconds"] == pytest.approx(30) for r in rows)
    p = ztwin("report", files["day"], "-r", "SYSSUMLG")
    assert p.returncode == 0
    assert p.stderr.strip().startswith(f"ztwin report: note: {files['day']} holds 2 collections of TINY")


def test_choices_that_name_nothing(files: dict[str, Path]) -> None:
    with pytest.raises(SegmentError, match=r"--system NOPE: no collection of that system in .* \(systems: TINY, VSPSYS\)"):
        choose(files["mixed"], system="NOPE")
    with pytest.raises(SegmentError, match=r"--segment 3: .* has segments 1 to 2"):
        choose(files["mixed"], segment=3)
    p = ztwin("diagnose", files["mixed"], "--segment", "0")
    assert p.returncode == 2 and "has segments 1 to 2" in p.stderr


def test_dump_marks_the_boundaries(files: dict[str, Path]) -> None:
    size = files["tiny"].stat().st_size
    text = ztwin("dump", files["mixed"])
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    markers = [i for i, ln in enumerate(lines) if ln.startswith("-- segment")]
    assert len(markers) == 1
    assert lines[markers[0]] == (
        f"-- segment 2 at offset {size} (X'{size:X}') (system VSPSYS, processor 2094-606): "
        "configuration records of system VSPSYS after system TINY"
    )
    assert int(lines[markers[0] + 1].split()[0]) > size  # the first record of the new collection follows
    assert "segments (collections joined in one file): 2" in text.stderr
    objs = [json.loads(ln) for ln in ztwin("dump", "--json", files["mixed"]).stdout.splitlines()]
    assert {o.get("segment") for o in objs if o["offset"] < size} == {None}
    assert {o.get("segment") for o in objs if o["offset"] > size} == {2}
    single = ztwin("dump", files["tiny"])
    assert "-- segment" not in single.stdout and "segments" not in single.stderr


def _figures(iv: Any) -> Any:
    """Everything the reports read of a collection, in comparable form."""
    import io

    from ztwin.reports import build_from

    out = io.StringIO()
    for r in build_from(iv).values():
        r.write_json(out)
    return ([(s.start_tod, s.end_tod) for s in iv.intervals], iv.stats, out.getvalue())


def test_a_file_of_one_collection_is_read_once(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """``collect_file`` (``ztwin report``) reads a file of one collection once:
    the kernel's reader tells the segments, and the rest of the file after
    the window is read without aggregating. A file of several collections is
    read again as ``choose`` plans it: the same refusal, the same figures and
    notes as the scan first gave (and the refusal also when the window ended
    before the second collection, which only reading the rest finds)."""
    import ztwin.segments as seg
    from ztwin.reports.core import collect, collect_file

    scans: list[object] = []
    real = seg.scan

    def counting(path: Any, **kw: Any) -> Any:
        scans.append(path)
        return real(path, **kw)

    monkeypatch.setattr(seg, "scan", counting)
    once = collect_file(files["tiny"])
    assert scans == []
    ref = collect(files["tiny"])
    assert _figures(once) == _figures(ref)
    # a window ending at the second interval of the first collection
    end = ref.intervals[1].end.strftime("%Y-%m-%d %H:%M:%S")
    with pytest.raises(SegmentError, match="holds collections of 2 systems"):
        collect_file(files["mixed"], end=end)
    assert len(scans) == 1
    notes: list[str] = []
    day = collect_file(files["day"], note=notes.append)
    assert len(notes) == 1 and "holds 2 collections of TINY" in notes[0]
    assert _figures(day) == _figures(collect(files["day"], segments=choose(files["day"]).ranges))
    windowed = collect_file(files["tiny"], end=end)
    assert windowed.stopped_early and len(windowed.intervals) == 2
    assert _figures(windowed) == _figures(collect(files["tiny"], end=end))
