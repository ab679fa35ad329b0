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

    data = json.loads(run_ztwin("layouts", "--json", "D0R16").stdout)
    assert (data["name"], data["confidence"], data["group"]["name"]) == ("MRSYTCUP", "INF", "SYTCUP_LCPU")
    assert data["fields"][0] == {"name": "SYTCUP_CALCPUOF", "offset": 20, "type": "U2", "width": 2, "confidence": "INF"}


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
        w.add("MRIODDEV", T1, {"IODDEV_RDEVDEV": 0x9F01, "IODDEV_RDEVSSCH": 17})
        w.add("MRSTOASP", T1, {"STOASP_RDEVDEV": 0x0A00})
        w.write_sample_set(T1)
    result = run_ztwin("dump", path)
    assert result.returncode == 0, result.stderr
    dev, asp = result.stdout.splitlines()[:2]
    assert " RDEVDEV=9F01 " in dev and "RDEVSSCH=17" in dev
    assert " RDEVDEV=0A00" in asp
    # JSON keeps numbers as numbers
    objs = json_lines(run_ztwin("dump", "--json", path).stdout)
    assert objs[0]["fields"]["IODDEV_RDEVDEV"] == 0x9F01
