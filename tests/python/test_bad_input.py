"""The bad-input corpus (tests/corpus/README.md): every bad scenario file and
every damaged MONWRITE file gets its one expected line, never a traceback, a
panic, exit 0 for input that cannot be used, or an output left behind."""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ztwin.cli import main
from ztwin.twin import Scenario

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
BLOCK = 4096


def clean(err: str) -> None:
    assert "Traceback" not in err, err
    assert "panicked" not in err and "PanicException" not in err, err
    assert "internal error" not in err, err
    assert "Exception ignored" not in err, err


# -- scenario files ------------------------------------------------------------


def _expectation(path: Path) -> tuple[str, str | None, bool]:
    """(expected text, what it waits on, whether running it is unsafe until then)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    expect = lines[0].removeprefix("# expect: ")
    waits = lines[1].removeprefix("# waits: ") if len(lines) > 1 and lines[1].startswith("# waits: ") else None
    unsafe = any(ln.startswith("# unsafe: ") for ln in lines[1:4])
    return expect, waits, unsafe


def _scenario_cases() -> list[object]:
    cases = []
    for p in sorted((CORPUS / "scenario").glob("*.toml")):
        _, waits, unsafe = _expectation(p)
        marks = []
        if waits and unsafe:
            marks = [pytest.mark.skip(reason=f"waits on {waits}; running it before would fill the disk")]
        elif waits:
            marks = [pytest.mark.xfail(strict=True, reason=f"waits on {waits}")]
        cases.append(pytest.param(p, id=p.stem, marks=marks))
    return cases


def run_scenario_file(path: Path, tmp_path: Path) -> tuple[int, str]:
    out = tmp_path / "out" / "x.monwrite"
    out.parent.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "ztwin", "run", str(path), "-o", str(out), "-q"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    clean(proc.stderr)
    assert list(out.parent.iterdir()) == [], "output left behind"
    return proc.returncode, proc.stderr


@pytest.mark.parametrize("path", _scenario_cases())
def test_bad_scenario_file(path: Path, tmp_path: Path) -> None:
    expect, _, _ = _expectation(path)
    code, err = run_scenario_file(path, tmp_path)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"ztwin run: {path}: "), err
    assert expect in lines[0], err


GENERATED = [
    ("binary", bytes(range(256)), "line 1: a binary file, not a TOML scenario (byte X'00' at offset 0)"),
    ("nul-inside", b'[system]\nprocessors = 1\x00\n', "line 2: a binary file, not a TOML scenario (byte X'00' at offset 23)"),
    ("latin1", '[system]\n# café\n'.encode("latin-1"), "line 2: not UTF-8 text (byte X'E9' at offset 14)"),
    ("utf16", '[system]\nprocessors = 1\n'.encode("utf-16"), "a binary file, not a TOML scenario"),
    ("random", random.Random(7).randbytes(3000), "line 1: "),
]


@pytest.mark.parametrize(("name", "data", "expect"), GENERATED, ids=[g[0] for g in GENERATED])
def test_generated_bad_scenario_file(name: str, data: bytes, expect: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.toml"
    path.write_bytes(data)
    code, err = run_scenario_file(path, tmp_path)
    assert code == 2
    line = err.strip()
    assert "\n" not in line and line.startswith(f"ztwin run: {path}: ") and expect in line, err


# -- MONWRITE files --------------------------------------------------------------

GOOD = """
[scenario]
duration = "300s"
start = "2024-03-01T10:00:00Z"
[system]
system_id = "{system}"
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
workload = {{ type = "thrasher", area = "300M", pattern = "random", touch = "write", cpu_per_touch_us = 5.0 }}
[[guest]]
userid = "DB"
virtual_storage = "256M"
workload = {{ type = "minidisk_io", device = "0B00", think = "20ms" }}
"""


@dataclass(frozen=True)
class Case:
    """A damaged file and what each command must say about it.

    ``fatal``: the line every command gives (exit 2); else ``warning``: what
    the damage summary must contain (report and diagnose print it as a
    warning and exit 0; ``dump --strict`` lists it and exits 1). ``report``
    overrides the outcome of report and diagnose (exit 2, that line).
    """

    name: str
    fatal: str | None = None
    warning: str | None = None
    report: str | None = None


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    d = tmp_path_factory.mktemp("good")
    out = {}
    for system in ("TINY", "VSPSYS"):
        sc = d / f"{system}.toml"
        sc.write_text(GOOD.format(system=system))
        path = d / f"{system}.monwrite"
        Scenario.load(sc).run(path)
        out[system] = path.read_bytes()
    return out


def groups(data: bytes) -> list[int]:
    """Offsets of the control records (IPTYPE X'09' at byte 3 of a block with
    a sample or event entry at byte 40)."""
    return [o for o in range(0, len(data), BLOCK) if data[o + 3] == 0x09 and data[o + 40] in (0xE2, 0xC5)]


def flip(data: bytes, offset: int, mask: int = 0xFF) -> bytes:
    b = bytearray(data)
    b[offset] ^= mask
    return bytes(b)


def make_case(name: str, g: dict[str, bytes]) -> bytes:
    a = g["TINY"]
    ctl = groups(a)
    mid = ctl[len(ctl) // 2]
    match name:
        case "empty":
            return b""
        case "short":
            return a[:100]
        case "zeros":
            return bytes(3 * BLOCK)
        case "random":
            return random.Random(3).randbytes(3 * BLOCK)
        case "control-record-only":
            return a[:BLOCK]
        case "cut-mid-block":
            return a[: len(a) - BLOCK - 1000]
        case "cut-mid-group":
            # the last group with at least two data blocks, cut after its first
            ends = [*ctl[1:], len(a)]
            last = max(c for c, e in zip(ctl, ends, strict=True) if e - c >= 3 * BLOCK)
            return a[: last + 2 * BLOCK]
        case "flipped-control-record":
            return flip(a, mid + 3)
        case "flipped-record-header":
            return flip(a, mid + BLOCK + 2)  # MRHDRZER of the group's first record
        case "same-file-twice":
            return a + a
        case "two-systems":
            return a + g["VSPSYS"]
        case "junk-prefix-misaligned":
            return random.Random(5).randbytes(1000) + a
        case "junk-prefix-aligned":
            return random.Random(5).randbytes(BLOCK) + a
        case "junk-suffix":
            return a + random.Random(6).randbytes(1000)
    raise KeyError(name)


CASES = [
    Case("empty", fatal="offset 0 (X'0'): the file is empty"),
    Case("short", fatal="the file is 100 bytes, shorter than one 4096-byte MONWRITE control record"),
    Case("zeros", fatal="not a MONWRITE file: no valid control record found"),
    Case("random", fatal="not a MONWRITE file: no valid control record found"),
    Case("junk-prefix-misaligned", fatal="a control record starts at offset 1000 (X'3E8'), 1000 bytes past a 4096-byte boundary"),
    Case("control-record-only", warning="truncated-group", report="no complete sample interval"),
    Case("cut-mid-block", warning="partial-block"),
    Case("cut-mid-group", warning="truncated-group"),
    Case("flipped-control-record", warning="bad-control-record"),
    Case("flipped-record-header", warning="bad-record-header"),
    Case("junk-prefix-aligned", warning="resynchronised on the control record at offset 4096"),
    Case("junk-suffix", warning="partial-block"),
    Case("same-file-twice", report="segments 1 and 2 overlap in time"),
    Case("two-systems", report="holds collections of 2 systems, which ztwin does not mix"),
]


def ztwin(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    clean(err)
    return code, out, err


def one_error(err: str, command: str, path: Path) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"ztwin {command}: "), err
    assert str(path) in lines[0], err
    return lines[0]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_damaged_monwrite_file(case: Case, good: dict[str, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"{case.name}.monwrite"
    path.write_bytes(make_case(case.name, good))
    outdir = tmp_path / "out"
    outdir.mkdir()

    # dump --strict
    code, out, err = ztwin(capsys, "dump", "--strict", path)
    if case.fatal:
        assert code == 2 and out == ""
        assert case.fatal in one_error(err, "dump", path)
    elif case.warning:
        assert code == 1, err  # damage found
        assert case.warning in err
    else:
        assert code == 0, err
        assert "-- segment 2 at offset" in out  # joined files: the boundary is marked

    # report (stdout, -o FILE, --html DIR) and diagnose
    runs = [
        ("report", ["report", path, "-r", "SYSSUMLG", "-r", "DEVICE"]),
        # reports that read the file's records again (the I/O path's): still one line
        ("report", ["report", path, "-r", "DEVLOG", "-r", "MDCACHE", "-r", "CHANNEL"]),
        ("report", ["report", path, "-o", outdir / "r.txt"]),
        ("report", ["report", path, "--html", outdir / "html"]),
        ("diagnose", ["diagnose", path]),
    ]
    for command, args in runs:
        code, out, err = ztwin(capsys, *args)
        expect = case.fatal or case.report
        if expect:
            assert code == 2, (args, err)
            assert out == ""
            assert expect in one_error(err, command, path)
        else:
            assert code == 0, (args, err)
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"ztwin {command}: warning: {path}: "), err
            assert case.warning in lines[0] or "damaged span" in lines[0], err
    # refused or failed commands leave nothing; successful ones only their output
    left = sorted(p.name for p in outdir.iterdir())
    assert left == ([] if case.fatal or case.report else ["html", "r.txt"])


def test_flipped_data_bits_do_not_break_any_command(good: dict[str, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bits flipped inside record data: structurally sound, so no damage is
    reported (plausibility bounds wait on the columnar analysis engine); every
    command must still finish cleanly."""
    a = bytearray(good["TINY"])
    rng = random.Random(11)
    ctl = set(groups(bytes(a)))
    flipped = 0
    while flipped < 100:
        o = rng.randrange(BLOCK, len(a))
        if o - o % BLOCK in ctl or o % BLOCK < 20:
            continue
        a[o] ^= 1 << rng.randrange(8)
        flipped += 1
    path = tmp_path / "flipped.monwrite"
    path.write_bytes(bytes(a))
    for args in (["dump", path], ["dump", "--json", path], ["report", path], ["diagnose", path]):
        code, _, err = ztwin(capsys, *args)
        assert code in (0, 2), (args, err)
        if code == 2:
            one_error(err, str(args[0]), path)
