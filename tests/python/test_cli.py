"""The ``ztwin`` command line: ``dump`` and ``layouts``, run as subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import BLOCK, T1, T2, T_EVENT, run_ztwin

from ztwin.monitor import Writer, read

HEADER_KEYS = ["offset", "domain", "record", "name", "tod", "length", "kind", "fields"]


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_dump_json_keys_and_values(sample_file: Path) -> None:
    result = run_ztwin("dump", "--json", sample_file)
    assert result.returncode == 0, result.stderr
    objs = json_lines(result.stdout)
    assert len(objs) == 13
    assert all(list(o) == HEADER_KEYS for o in objs)

    first = objs[0]
    assert {k: first[k] for k in HEADER_KEYS[:-1]} == {
        "offset": BLOCK,
        "domain": 1,
        "record": 4,
        "name": "MRMTRSYS",
        "tod": "2024-03-01T10:00:00.000000Z",
        "length": 184,
        "kind": "sample",
    }
    assert first["fields"]["MTRSYS_HCPCPEID"] == "ZVMSYS01"
    assert first["fields"]["MTRSYS_SYSTODST"] == "2024-02-28T06:30:00.000001Z"

    rsg = [o for o in objs if o["name"] == "MRSYTRSG"]
    assert [o["tod"] for o in rsg] == [T1, T2]
    assert [o["fields"]["SYTRSG_RSAAVAIL"] for o in rsg] == [5001, 5002]
    assert rsg[0]["fields"]["SYTRSG_CALFLAG1"] == "80"

    event = objs[-1]
    assert (event["name"], event["kind"], event["tod"]) == ("MRMTRECM", "event", T_EVENT)
    assert event["fields"]["MTRECM_CALCMD"] == "MONITOR EVENT ENABLE USER ALL"


def test_dump_json_agrees_with_the_python_reader(sample_file: Path) -> None:
    objs = json_lines(run_ztwin("dump", "--json", sample_file).stdout)
    records = list(read(sample_file))
    assert [o["offset"] for o in objs] == [r["offset"] for r in records]
    assert [o["fields"] for o in objs] == [r["fields"] for r in records]


def test_dump_output_is_utf8_whatever_the_locale(tmp_path: Path) -> None:
    path = tmp_path / "latin1.monwrite"
    with Writer(path) as w:
        w.add("MRUSEACT", T1, {"USEACT_VMDUSER": "JOSÉ"})
        w.write_sample_set(T1)
    for args in (["--json"], []):
        result = run_ztwin("dump", *args, path, env={"PYTHONIOENCODING": "ascii"})
        assert result.returncode == 0, result.stderr
        assert "JOSÉ" in result.stdout
    assert json_lines(run_ztwin("dump", "--json", path).stdout)[0]["fields"]["USEACT_VMDUSER"] == "JOSÉ"


def test_dump_text_has_one_line_per_record(sample_file: Path) -> None:
    result = run_ztwin("dump", sample_file)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 13
    assert lines[0].split()[:5] == [str(BLOCK), "D1R4", "MRMTRSYS", "2024-03-01T10:00:00.000000Z", "184"]
    assert "HCPCPEID='ZVMSYS01'" in lines[0]
    assert "RSAAVAIL=5001" in lines[2]


def test_dump_summary_goes_to_stderr(sample_file: Path) -> None:
    result = run_ztwin("dump", "--json", sample_file)
    err = result.stderr
    assert f"{sample_file.stat().st_size} bytes, 4 control records, 13 records, 3 intervals" in err
    assert "MRSYTPRP           4" in err
    assert "unknown records: 0" in err
    assert "damaged spans: 0" in err
    assert "ztwin dump" not in result.stdout


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--domain", "0"], ["MRSYTRSG", "MRSYTPRP", "MRSYTPRP"] * 2),
        (["--domain", "1", "--record", "11"], ["MRMTREND"] * 3),
        (["--record", "2"], ["MRSYTPRP"] * 4 + ["MRMTRECM"]),
        (["--domain", "4", "--limit", "1"], ["MRUSEACT"]),
        (["--limit", "3"], ["MRMTRSYS", "MRMTREND", "MRSYTRSG"]),
        (["--limit", "0"], []),
        (["--domain", "6"], []),
    ],
)
def test_dump_filters_and_limit(sample_file: Path, args: list[str], names: list[str]) -> None:
    result = run_ztwin("dump", "--json", *args, sample_file)
    assert result.returncode == 0, result.stderr
    assert [o["name"] for o in json_lines(result.stdout)] == names


def test_limit_summary_covers_what_was_read(sample_file: Path) -> None:
    result = run_ztwin("dump", "--limit", "3", sample_file)
    assert "3 records" in result.stderr
    assert "MRMTRECM" not in result.stderr


@pytest.mark.parametrize("value", ["256", "-1", "x"])
def test_bad_filter_values_are_usage_errors(sample_file: Path, value: str) -> None:
    result = run_ztwin("dump", "--domain", value, sample_file)
    assert result.returncode == 2
    assert "argument --domain" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "offset 0 (X'0'): the file is empty"),
        (bytes(100), "offset 0 (X'0'): the file is 100 bytes, shorter than one 4096-byte"),
        (os.urandom(BLOCK), "offset 0 (X'0'): not a MONWRITE file"),
    ],
    ids=["empty", "100-bytes", "random-block"],
)
def test_fatal_damage_exits_2_with_offset_and_reason(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.monwrite"
    path.write_bytes(content)
    result = run_ztwin("dump", "--json", path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"ztwin dump: {path}: {message}" in result.stderr
    assert "Traceback" not in result.stderr


def test_nonexistent_file_exits_2(tmp_path: Path) -> None:
    result = run_ztwin("dump", tmp_path / "missing.monwrite")
    assert result.returncode == 2
    assert result.stderr == f"ztwin dump: cannot open {tmp_path / 'missing.monwrite'}: No such file or directory\n"


def test_directory_exits_2(tmp_path: Path) -> None:
    result = run_ztwin("dump", tmp_path)
    assert result.returncode == 2
    assert "Is a directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_truncated_group_is_listed_and_not_fatal(long_group_file: Path) -> None:
    data = long_group_file.read_bytes()
    long_group_file.write_bytes(data[: 6 * BLOCK + 100])
    result = run_ztwin("dump", "--json", long_group_file)
    assert result.returncode == 0
    objs = json_lines(result.stdout)
    assert [o["fields"]["SYTRSG_RSAAVAIL"] for o in objs] == list(range(40))
    assert all(o["offset"] < 6 * BLOCK for o in objs)
    assert f"truncated-group: offset {6 * BLOCK} (X'6000')" in result.stderr
    assert "Traceback" not in result.stderr

    strict = run_ztwin("dump", "--json", "--strict", long_group_file)
    assert strict.returncode == 1
    assert strict.stdout == result.stdout


def test_corrupt_record_header_is_listed(long_group_file: Path) -> None:
    data = bytearray(long_group_file.read_bytes())
    bad = 2 * BLOCK + 492  # the second record of the second data frame
    data[bad + 2] = 0xFF  # MRHDRZER must be zero
    long_group_file.write_bytes(bytes(data))
    result = run_ztwin("dump", "--json", "--domain", "0", long_group_file)
    assert result.returncode == 0
    values = [o["fields"]["SYTRSG_RSAAVAIL"] for o in json_lines(result.stdout)]
    assert values == list(range(9)) + list(range(16, 100))  # rest of that frame skipped
    assert f"bad-record-header: offset {bad} (X'{bad:X}')" in result.stderr
    assert run_ztwin("dump", "--strict", long_group_file).returncode == 1


def test_broken_pipe_is_quiet(tmp_path: Path) -> None:
    path = tmp_path / "big.monwrite"
    with Writer(path) as w:  # about 1 MB of JSON, far more than a pipe buffer holds
        for _ in range(20):
            for i in range(100):
                w.add("MRSYTRSG", T1, {"SYTRSG_RSAAVAIL": i})
            w.write_sample_set(T1)
    with subprocess.Popen(
        [sys.executable, "-m", "ztwin", "dump", "--json", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read().decode()
        returncode = proc.wait(timeout=60)
    assert json.loads(first)["name"] == "MRSYTRSG"
    assert err == ""
    assert returncode == 0


def test_console_script_and_module_entry_point(sample_file: Path) -> None:
    script = shutil.which("ztwin", path=str(Path(sys.executable).parent))
    assert script is not None
    via_script = subprocess.run([script, "dump", "--json", str(sample_file)], capture_output=True, text=True, check=False)
    via_module = run_ztwin("dump", "--json", sample_file)
    assert via_script.returncode == via_module.returncode == 0
    assert via_script.stdout == via_module.stdout


def test_layouts_lists_known_records() -> None:
    result = run_ztwin("layouts")
    assert result.returncode == 0
    rows = result.stdout.splitlines()
    assert rows[0].split()[:3] == ["RECORD", "NAME", "KIND"]
    assert any(row.split()[:5] == ["D0R3", "MRSYTRSG", "sample", "492", "Z53"] for row in rows)


def test_layouts_one_record_as_text_and_json() -> None:
    text = run_ztwin("layouts", "mrsytrsg")
    assert text.returncode == 0
    assert text.stdout.startswith("MRSYTRSG  D0R3  sample  492 bytes")
    assert any(line.split() == ["52", "34", "U4", "Z53", "SYTRSG_RSAAVAIL"] for line in text.stdout.splitlines())

    data = json.loads(run_ztwin("layouts", "--json", "--release", "6.2", "D0R16").stdout)
    assert (data["name"], data["confidence"], data["group"]["name"]) == ("MRSYTCUP", "Z53", "SYTCUP_CPUDATA")
    assert (data["size"], data["covered"], data["group"]["entry_size"]) == (64, True, 40)
    assert data["fields"][4] == {"name": "SYTCUP_CALCPUOF", "offset": 32, "type": "U2", "width": 2, "confidence": "Z53"}
    # In a release whose page was not seen the layout is carried over: inferred.
    later = json.loads(run_ztwin("layouts", "--json", "--release", "7.3", "D0R16").stdout)
    assert (later["covered"], later["fields"][4]["confidence"]) == (False, "INF")


def test_layouts_per_release_and_summary() -> None:
    text = run_ztwin("layouts", "--release", "5.4", "MRSYTPRP").stdout
    assert text.startswith("MRSYTPRP  D0R2  sample  124 bytes  Z53  z/VM 5.4")
    assert "size seen for z/VM 5.4; confirmed" in text
    summary = run_ztwin("layouts", "--summary").stdout.splitlines()
    assert summary[0].startswith("| record | 5.3 | 5.4 |")
    assert any(row.startswith("| D0R2 MRSYTPRP | 108 4/9/0 | 124 4/9/0 | 124* 0/0/13 |") for row in summary)
    bad = run_ztwin("layouts", "--release", "seven")
    assert bad.returncode == 2 and "is not a z/VM release" in bad.stderr


def test_format_doc_summary_matches_the_tables() -> None:
    # docs/monitor-format.md carries the --summary table between two markers.
    doc = (Path(__file__).resolve().parents[2] / "docs" / "monitor-format.md").read_text()
    start, end = "<!-- summary:start -->\n", "\n<!-- summary:end -->"
    table = doc[doc.index(start) + len(start) : doc.index(end)]
    assert table == run_ztwin("layouts", "--summary").stdout.rstrip("\n"), (
        "docs/monitor-format.md: replace the summary table with `ztwin layouts --summary`"
    )


def test_layouts_unknown_name() -> None:
    result = run_ztwin("layouts", "MRNOSUCH")
    assert result.returncode == 2
    assert "no known layout named 'MRNOSUCH'" in result.stderr


def test_no_subcommand_is_a_usage_error() -> None:
    result = run_ztwin()
    assert result.returncode == 2
    assert "usage: ztwin" in result.stderr


def test_dump_text_shows_device_numbers_in_hex(tmp_path: Path) -> None:
    path = tmp_path / "dev.monwrite"
    with Writer(path) as w:
        w.add("MRSTOASP", T1, {"STOASP_RDEVDEV": 0x0A00, "STOASP_EXPCTPRD": 17})
        w.add("MRMTRDEV", T1, {"MTRDEV_RDEVDEV": 0x9F01})
        w.write_sample_set(T1)
    result = run_ztwin("dump", path)
    assert result.returncode == 0, result.stderr
    asp, dev = result.stdout.splitlines()[:2]
    assert " RDEVDEV=0A00 " in asp and "EXPCTPRD=17" in asp
    assert " RDEVDEV=9F01 " in dev
    # JSON keeps numbers as numbers
    objs = json_lines(run_ztwin("dump", "--json", path).stdout)
    assert [o["fields"].get("STOASP_RDEVDEV", o["fields"].get("MTRDEV_RDEVDEV")) for o in objs[:2]] == [0x0A00, 0x9F01]


def test_release_detected_and_forced(tmp_path: Path) -> None:
    """The release comes from MTRSYS_HCPCPEID; --release overrides it; records
    longer than the layouts of the release read are decoded and warned about."""
    path = tmp_path / "r62.monwrite"
    with Writer(path, release="6.2") as w:
        w.add("MRMTRSYS", T1, {"MTRSYS_HCPCPEID": "6.2.0"})
        w.add("MRUSEACT", T1, {"USEACT_VMDUSER": "LINUX01", "USEACT_VMDCPUAD": 1})
        w.write_sample_set(T1)
    detected = run_ztwin("dump", "--json", path)
    assert detected.returncode == 0, detected.stderr
    assert "decoded as z/VM 6.2 (MTRSYS_HCPCPEID \"6.2.0\")" in detected.stderr
    assert "longer than" not in detected.stderr
    act = [o for o in json_lines(detected.stdout) if o["name"] == "MRUSEACT"][0]
    assert (act["length"], act["fields"]["USEACT_VMDCPUAD"]) == (508, 1)
    forced = run_ztwin("dump", "--release", "6.1", path)
    assert forced.returncode == 0, forced.stderr
    assert "decoded as z/VM 6.1 (given with --release)" in forced.stderr
    assert "1 record(s) of 1 type(s) are longer than ztwin's z/VM 6.1 layouts" in forced.stderr
    assert "first: MRUSEACT" in forced.stderr and "508 bytes, 440 known" in forced.stderr
    bad = run_ztwin("report", "--release", "v7", path)
    assert bad.returncode == 2 and "ztwin report: \"v7\" is not a z/VM release" in bad.stderr
    # The reports read through the interval kernel, with the same options.
    from ztwin.monitor import set_read_options
    from ztwin.reports import collect

    try:
        set_read_options("6.1")
        assert collect(path).stats["release"] == "6.1"
        assert collect(path).stats["longer"] == 1
    finally:
        set_read_options()
    assert collect(path).stats["release"] == "6.2"


def test_layout_pack_option(tmp_path: Path, sample_file: Path) -> None:
    pack = tmp_path / "pack.toml"
    pack.write_text(
        '[[record]]\nname = "MRMTRSYS"\n[[record.field]]\nname = "MTRSYS_MYFIELD"\noffset = 68\ntype = "U4"\n',
        encoding="utf-8",
    )
    out = run_ztwin("dump", "--json", "--layouts", pack, sample_file)
    assert out.returncode == 0, out.stderr
    sys_rec = json_lines(out.stdout)[0]
    assert sys_rec["fields"]["MTRSYS_MYFIELD"] == 0
    listing = json.loads(run_ztwin("layouts", "--json", "--layouts", pack, "--release", "5.4", "MRMTRSYS").stdout)
    assert any(f["name"] == "MTRSYS_MYFIELD" and f["confidence"] == "INF" for f in listing["fields"])
    pack.write_text(
        '[[record]]\nname = "MRMTRSYS"\n[[record.field]]\nname = "MTRSYS_MYFIELD"\noffset = 66\ntype = "U4"\n',
        encoding="utf-8",
    )
    for cmd in ("dump", "report", "diagnose"):
        bad = run_ztwin(cmd, "--layouts", pack, sample_file)
        assert bad.returncode == 2
        assert bad.stderr.startswith(f"ztwin {cmd}: {pack}: record MRMTRSYS: field MTRSYS_MYFIELD: overlaps")
        assert "Traceback" not in bad.stderr
    missing = run_ztwin("dump", "--layouts", tmp_path / "nope.toml", sample_file)
    assert missing.returncode == 2 and "nope.toml: cannot read" in missing.stderr


def test_the_command_line_starts_without_the_heavy_libraries() -> None:
    """Importing the CLI (what every command does first) imports neither
    pandas nor DuckDB: a module that needs pandas binds it with
    ztwin._lazy.lazy (pandas alone took 0.27 s and 70 MB at every start)."""
    code = "import sys, ztwin.cli; print(sorted(m for m in ('pandas', 'duckdb') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def _subparsers(parser: Any) -> dict[str, Any]:
    import argparse

    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_each_command_parser_is_the_whole_parsers() -> None:
    """`build_parser(COMMAND)` registers only the module adding COMMAND: the
    table of modules names every command the whole parser has, and each
    command's parser (arguments, help) is the one of the whole parser."""
    from ztwin import cli

    whole = _subparsers(cli.build_parser())
    listed = [c for _, cmds in cli.COMMAND_MODULES for c in cmds]
    assert sorted(whole) == sorted(["dump", "layouts", *listed])
    for _, cmds in cli.COMMAND_MODULES:
        for cmd in cmds:
            assert cli._command_of([cmd, "x"]) == cmd
            one = _subparsers(cli.build_parser(cmd))
            assert sorted(one) == sorted(["dump", "layouts", *cmds])
            for c in one:
                assert one[c].format_help() == whole[c].format_help()
    for argv in ([], ["-h"], ["--version"], ["dump", "f"], ["layouts"], ["reprot", "f"], ["f", "report"]):
        assert cli._command_of(argv) is None


def test_report_does_not_import_the_other_commands(sample_file: Path) -> None:
    """`ztwin report` imports neither the advisor, the sweeps, the twin's
    drivers nor the history database (start-up time)."""
    code = (
        "import sys, contextlib, io\n"
        "from ztwin.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['report', {str(sample_file)!r}, '--format', 'json', '-r', 'SYSSUMLG'])\n"
        "print(rc, sorted(m for m in sys.modules if m.split('.')[1:2] and m.split('.')[0] == 'ztwin'"
        " and m.split('.')[1] in ('advisor', 'sweep', 'twin', 'history', 'studies', 'console_cli', 'zos')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0 []"
