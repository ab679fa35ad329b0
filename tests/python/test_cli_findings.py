"""Bad input found by trying every subcommand (branch robust, 2026-11-25):
each case failed before its fix. The standard: one line ``ztwin COMMAND:
...`` naming the place and the reason, exit status 2, and nothing left behind
(no output file, no empty database)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import one_line, write_sample_file

ROOT = Path(__file__).resolve().parents[2]
ZOS_SCENARIO = ROOT / "studies" / "zos" / "flash-morning-transition.toml"

SCENARIO = """
[scenario]
duration = "60s"
[system]
processors = 1
central_storage = "512M"
[monitor]
sample_interval = "30s"
[[guest]]
userid = "LINUX"
virtual_storage = "256M"
workload = { type = "cpu", utilization = 0.5 }
"""


def ztwin(*args: object, stdin: bytes | None = None, cwd: Path | None = None) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "ztwin", *map(str, args)],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=300,
        check=False,
        cwd=cwd,
    )
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("findings")
    sample = d / "sample.monwrite"
    write_sample_file(sample)
    scenario = d / "s.toml"
    scenario.write_text(SCENARIO)
    binary = d / "binary.bin"
    binary.write_bytes(bytes(range(256)) * 40)
    latin1 = d / "latin1.toml"
    latin1.write_bytes('[scenario]\nname = "caf\xe9"\n'.encode("latin-1"))
    png = d / "image.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    return {"sample": sample, "scenario": scenario, "binary": binary, "latin1": latin1, "png": png, "dir": d}


# -- ztwin zos -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expect"),
    [
        ("binary", "line 1: a binary file, not a TOML scenario (byte X'00' at offset 0)"),
        ("latin1", "line 2: not UTF-8 text (byte X'E9' at offset 22)"),
        ("png", "a binary file, not a TOML scenario"),
    ],
)
def test_zos_scenario_that_is_not_text_names_the_file_and_byte(files: dict[str, Path], name: str, expect: str) -> None:
    """Was: ``ztwin zos: 'utf-8' codec can't decode byte 0xe9 in position 23``."""
    code, _, err = ztwin("zos", files[name])
    assert code == 2, err
    line = one_line(err, "zos")
    assert line.startswith(f"ztwin zos: {files[name]}: "), line
    assert expect in line, line


@pytest.mark.parametrize(
    ("db", "expect"),
    [
        ("{dir}/missing/x.duckdb", "directory {dir}/missing does not exist"),
        ("/dev/full", "is a character device"),
        ("{dir}", "is a directory"),
    ],
)
def test_zos_db_is_checked_before_the_run(files: dict[str, Path], db: str, expect: str) -> None:
    """Was: the partition ran (seconds), then DuckDB's error on the path."""
    d = str(files["dir"])
    path = db.format(dir=d)
    code, _, err = ztwin("zos", ZOS_SCENARIO, "--db", path)
    assert code == 2, err
    line = one_line(err, "zos")
    assert line.startswith(f"ztwin zos: --db {path}"), line
    assert expect.format(dir=d) in line, line
    assert not (files["dir"] / "missing").exists()


def test_zos_db_that_is_the_scenario_is_refused(tmp_path: Path) -> None:
    scenario = tmp_path / "z.toml"
    scenario.write_bytes(ZOS_SCENARIO.read_bytes())
    code, _, err = ztwin("zos", scenario, "--db", scenario)
    assert code == 2, err
    assert "is the input file" in one_line(err, "zos")
    assert scenario.read_bytes() == ZOS_SCENARIO.read_bytes()


# -- ztwin ingest ----------------------------------------------------------------


@pytest.mark.parametrize("bad", ["binary", "missing"])
def test_ingest_that_adds_nothing_leaves_no_new_database(files: dict[str, Path], tmp_path: Path, bad: str) -> None:
    """Was: "(nothing added)" but an empty 800 KB database file was left."""
    db = tmp_path / "new.duckdb"
    path = files[bad] if bad in files else tmp_path / "missing.monwrite"
    code, _, err = ztwin("ingest", "--db", db, path)
    assert code == 2, err
    assert "(nothing added)" in one_line(err, "ingest")
    assert list(tmp_path.iterdir()) == []


def test_ingest_keeps_a_database_a_file_made_it_into(files: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    code, _, err = ztwin("ingest", "--db", db, files["sample"], files["binary"])
    assert code == 2, err
    assert db.is_file()
    # and a database that existed before is never removed, whatever fails
    code, _, err = ztwin("ingest", "--db", db, files["binary"])
    assert code == 2, err
    assert db.is_file()
    code, out, err = ztwin("report", "--db", db, "-r", "SYSSUMLG", "--format", "csv")
    assert code == 0, err
    assert out.count("\n") >= 2, out


# -- the consoles ------------------------------------------------------------------


def test_console_line_that_is_not_utf8_is_refused_and_the_session_goes_on(files: dict[str, Path], tmp_path: Path) -> None:
    """Was: ``ztwin console: 'utf-8' codec can't encode characters in position
    8-9: surrogates not allowed``, the session lost, exit status 2."""
    out = tmp_path / "c.monwrite"
    script = b"step 10s\nQUERY \xff\xfe\n\x00\x1b[2J\ntime\nend\n"
    code, text, err = ztwin("console", files["scenario"], "-o", out, stdin=script)
    assert code == 0, err
    assert "line 2: not UTF-8 text (byte X'FF' at column 7); the line is ignored" in text, text
    assert "ztwin> QUERY \\xff\\xfe" in text, text
    assert "ztwin> \\x00\\x1b[2J" in text, text  # control characters are shown, not sent to the terminal
    assert "simulated time 0:00:10 of 0:01:00" in text, text
    assert out.is_file()


def test_zos_console_line_that_is_not_utf8_is_refused_and_the_session_goes_on() -> None:
    script = b"D M=\xc3\nstep 1s\ntime\nend\n"
    code, text, err = ztwin("zos", ZOS_SCENARIO, "--console", stdin=script)
    assert code == 0, err
    assert "line 1: not UTF-8 text (byte X'C3' at column 5); the line is ignored" in text, text
    assert "ztwin> time" in text, text


# -- options -------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_compare_threshold_must_be_a_finite_percentage(files: dict[str, Path], value: str) -> None:
    """Was: --threshold nan and inf accepted (exit 0, nothing ever marked)."""
    code, out, err = ztwin("compare", files["sample"], files["sample"], f"--threshold={value}")
    assert code == 2, err
    assert one_line(err, "compare").startswith(f"ztwin compare: --threshold {value}: must be a percentage"), err
    assert out == ""


def test_study_run_with_a_name_and_all_is_a_usage_error() -> None:
    """Was: ``ztwin study run --all bogus`` ignored the name and ran every study."""
    code, out, err = ztwin("study", "run", "--all", "bogus")
    assert code == 2, err
    assert one_line(err, "study run") == "ztwin study run: give a study NAME or --all, not both (NAME 'bogus')"
    assert out == ""


# -- damaged input ---------------------------------------------------------------------


def test_export_of_a_file_without_an_interval_names_the_file(files: dict[str, Path], tmp_path: Path) -> None:
    """Was: ``ztwin export: /tmp/ztwin-export-jf7wwt5e/x.duckdb: nothing ingested
    yet``, the temporary database's name."""
    cut = tmp_path / "cut.monwrite"
    cut.write_bytes(files["sample"].read_bytes()[:4097])
    out = tmp_path / "out"
    code, _, err = ztwin("export", "--format", "csv", cut, out)
    assert code == 2, err
    line = one_line(err, "export")
    assert line.startswith(f"ztwin export: {cut}: no complete sample interval to export"), line
    assert "ztwin-export-" not in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.monwrite"]


def test_compare_warns_of_damage_as_report_does(files: dict[str, Path], tmp_path: Path) -> None:
    """Was: a file with 5000 bytes of junk after it compared silently."""
    junk = tmp_path / "junk.monwrite"
    junk.write_bytes(files["sample"].read_bytes() + bytes(range(256)) * 20)
    code, out, err = ztwin("compare", files["sample"], junk, "-r", "SYSSUMLG")
    assert code == 0, err
    line = one_line(err, "compare")
    assert line.startswith(f"ztwin compare: warning: {junk}: 2 damaged span(s) skipped (5120 bytes)"), line
    assert "SYSSUMLG" in out


# -- Ctrl-C -----------------------------------------------------------------------------


def test_ctrl_c_says_interrupted_and_leaves_nothing(tmp_path: Path) -> None:
    """Was: exit status 130 and nothing on stderr (SIGTERM and SIGHUP said why)."""
    import signal
    import time

    slow = tmp_path / "slow.toml"
    slow.write_text(SCENARIO.replace('duration = "60s"', 'duration = "2000h"'))
    out = tmp_path / "x.monwrite"
    with subprocess.Popen(
        [sys.executable, "-m", "ztwin", "run", str(slow), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        deadline = time.monotonic() + 60
        while not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert one_line(err.decode(), "run") == "ztwin run: interrupted (Ctrl-C)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.toml"]


# -- layout packs ------------------------------------------------------------------------


def test_layout_pack_that_cannot_be_used_says_why_in_words(files: dict[str, Path], tmp_path: Path) -> None:
    """Was: ``missing: cannot read: No such file or directory (os error 2)`` and,
    for a pack that is not UTF-8, ``cannot read: stream did not contain valid UTF-8``."""
    code, _, err = ztwin("layouts", "--layouts", tmp_path / "missing.toml")
    assert code == 2, err
    assert one_line(err, "layouts").endswith("missing.toml: cannot read: No such file or directory"), err
    latin1 = tmp_path / "pack.toml"
    latin1.write_bytes(b"# caf\xe9\n")
    code, _, err = ztwin("report", files["sample"], "--layouts", latin1)
    assert code == 2, err
    line = one_line(err, "report")
    assert line.startswith(f"ztwin report: {latin1}: not UTF-8 text (byte X'E9' at offset 5)"), line


def test_export_of_a_file_without_its_output_asks_for_the_output(files: dict[str, Path]) -> None:
    """Was: ``ztwin export --format csv FILE`` answered "give a MONWRITE FILE or
    --db PATH", though the file was given (it was taken for OUT)."""
    code, _, err = ztwin("export", "--format", "csv", files["sample"])
    assert code == 2, err
    assert one_line(err, "export").startswith(f"ztwin export: give the output after {files['sample']}: "), err


def test_zos_db_without_a_zos_run_says_so(files: dict[str, Path], tmp_path: Path) -> None:
    """Was: ``no z/OS run stored for any (stored: none)``."""
    db = tmp_path / "h.duckdb"
    code, _, err = ztwin("ingest", "--db", db, files["sample"])
    assert code == 0, err
    code, _, err = ztwin("zos", "--db", db)
    assert code == 2, err
    assert one_line(err, "zos") == f"ztwin zos: {db}: no z/OS run stored (ztwin zos SCENARIO --db {db} stores one)"


def test_sweep_whose_base_scenario_is_not_text_names_it(files: dict[str, Path], tmp_path: Path) -> None:
    """Was: ``ztwin sweep: 'utf-8' codec can't decode byte 0xe9 in position 22``."""
    spec = tmp_path / "sw.toml"
    spec.write_text(
        f'[sweep]\nname = "x"\nbase = "{files["latin1"]}"\nseeds = [1]\n'
        '[[param]]\nkey = "system.central_storage"\nvalues = ["512M"]\n[metrics]\ncpu = "SYSSUMLG.cpu_busy_pct"\n'
    )
    code, _, err = ztwin("sweep", spec, "--out", tmp_path / "out", "--no-db", "-q")
    assert code == 2, err
    line = one_line(err, "sweep")
    assert line.startswith(f"ztwin sweep: {spec}: line 3: base scenario: {files['latin1']}: line 2: not UTF-8 text"), line
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def swept(files: dict[str, Path]) -> Path:
    """A finished two-run sweep's --out directory."""
    spec = files["dir"] / "sweep.toml"
    spec.write_text(
        f'[sweep]\nname = "tiny"\nbase = "{files["scenario"]}"\nseeds = [1]\n'
        '[[param]]\nkey = "system.central_storage"\nvalues = ["512M", "1G"]\n[metrics]\ncpu = "SYSSUMLG.cpu_busy_pct"\n'
    )
    out = files["dir"] / "swept"
    code, _, err = ztwin("sweep", spec, "--out", out, "--no-db", "-q", "--workers", "1")
    assert code == 0, err
    return out


def test_sweep_out_with_a_marker_that_is_not_an_object(swept: Path, tmp_path: Path) -> None:
    """Was: ``ztwin sweep: internal error: AttributeError: 'list' object has no attribute 'get'``."""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(swept, out)
    (out / ".ztwin-sweep").write_text("[1]\n")
    code, _, err = ztwin("sweep", swept.parent / "sweep.toml", "--out", out, "--no-db", "-q")
    assert code == 2, err
    assert one_line(err, "sweep") == f"ztwin sweep: --out {out}: unreadable .ztwin-sweep: not a JSON object"


def test_sweep_journal_line_that_is_not_a_run_is_damage_and_the_sweep_resumes(swept: Path, tmp_path: Path) -> None:
    """Was: ``ztwin sweep: internal error: TypeError: list indices must be integers
    or slices, not str`` for a runs.jsonl line ``[1, 2]``."""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(swept, out)
    journal = out / "runs.jsonl"
    good = journal.read_bytes()
    journal.write_bytes(good + b"[1, 2]\n")
    code, _, err = ztwin("sweep", swept.parent / "sweep.toml", "--out", out, "--no-db", "-q")
    assert code == 0, err
    assert err == ""
    assert journal.read_bytes() == good  # the two runs reused, the damaged line dropped


@pytest.mark.parametrize("meta", [b"[1, 2]", b"{not json", b'{"params": 5, "metrics": {}}'])
def test_sweep_report_with_a_damaged_description(swept: Path, tmp_path: Path, meta: bytes) -> None:
    """Was: ``ztwin sweep: internal error: TypeError: list indices must be integers
    or slices, not str`` (or a JSONDecodeError's text) for results.parquet whose
    ztwin.sweep metadata is not the sweep's description."""
    import shutil

    import pyarrow.parquet as pq

    out = tmp_path / "out"
    shutil.copytree(swept, out)
    path = out / "results.parquet"
    t = pq.read_table(path)
    pq.write_table(t.replace_schema_metadata({**(t.schema.metadata or {}), b"ztwin.sweep": meta}), path)
    code, _, err = ztwin("sweep", "report", out)
    assert code == 2, err
    assert one_line(err, "sweep report") == f"ztwin sweep report: {path}: its sweep description (metadata ztwin.sweep) is damaged"


@pytest.mark.parametrize(
    ("seeds", "expect"),
    [
        ("1000000000000", "the sweep has 2000000000000 runs, more than max_runs = 10000 ([limits])"),
        ("[1, 18446744073709551616]", "line 4: seed 18446744073709551616 is above 18446744073709551615 (2**64 - 1)"),
    ],
)
def test_sweep_seeds_too_many_or_too_large(files: dict[str, Path], tmp_path: Path, seeds: str, expect: str) -> None:
    """Was: seeds = 1000000000000 -> ``internal error: MemoryError`` (the list of
    seeds was built before the run count was checked); a seed above 2**64 - 1
    failed every run of it only when it ran."""
    spec = tmp_path / "sw.toml"
    spec.write_text(
        f'[sweep]\nname = "x"\nbase = "{files["scenario"]}"\nseeds = {seeds}\n'
        '[[param]]\nkey = "system.central_storage"\nvalues = ["512M", "1G"]\n[metrics]\ncpu = "SYSSUMLG.cpu_busy_pct"\n'
    )
    code, _, err = ztwin("sweep", spec, "--out", tmp_path / "out", "--no-db", "-q")
    assert code == 2, err
    line = one_line(err, "sweep")
    assert line.startswith(f"ztwin sweep: {spec}: "), line
    assert expect in line, line
    assert not (tmp_path / "out").exists()


# -- a damaged history database ------------------------------------------------------------


@pytest.mark.parametrize("command", ["report", "diagnose", "export"])
def test_history_database_with_a_damaged_block(files: dict[str, Path], tmp_path: Path, command: str) -> None:
    """Was: ``ztwin report: internal error: Error: Corrupt database file: computed
    checksum ... in block at location 274432 (a bug: please report it; ...)``:
    DuckDB's error met mid-query, after the database opened."""
    db = tmp_path / "h.duckdb"
    code, _, err = ztwin("ingest", "--db", db, files["sample"])
    assert code == 0, err
    data = bytearray(db.read_bytes())
    data[500000:500008] = b"\xff" * 8  # inside the second 256 KB block (12 KB of headers first)
    db.write_bytes(bytes(data))
    args: list[object] = ["--db", db] + (["--format", "csv", tmp_path / "out"] if command == "export" else [])
    code, _, err = ztwin(command, *args)
    assert code == 2, err
    line = one_line(err, command)
    assert line.startswith(f"ztwin {command}: {db}: cannot read the history database: Corrupt database file"), line
    assert not (tmp_path / "out").exists()


# -- a JSON scenario -----------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "console", "zos"])
def test_a_json_scenario_file_is_named_as_json(tmp_path: Path, command: str) -> None:
    """Was: ``ztwin run: s.json: line 1: invalid key-value pair, expected key``
    (TOML's parser on a JSON document; ``ztwin console --help`` even said
    "scenario file (TOML or JSON)")."""
    scenario = tmp_path / "s.json"
    scenario.write_text('\n  {"scenario": {"duration": "60s"}, "system": {"processors": 1}}\n')
    args: list[object] = [scenario] + (["-o", tmp_path / "x.monwrite"] if command != "zos" else [])
    code, _, err = ztwin(command, *args)
    assert code == 2, err
    line = one_line(err, command)
    assert line == f"ztwin {command}: {scenario}: line 2: this is JSON, not TOML: scenario files are TOML (docs/scenario.md)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


# -- inputs that are not regular files ----------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["run", "{fifo}", "-o", "{dir}/x.monwrite"], "{fifo}"),
        (["run", "/dev/zero", "-o", "{dir}/x.monwrite"], "/dev/zero"),
        (["console", "/dev/zero", "-o", "{dir}/x.monwrite"], "/dev/zero"),
        (["zos", "{fifo}"], "{fifo}"),
        (["dump", "/dev/zero"], "/dev/zero"),
        (["report", "{fifo}"], "{fifo}"),
        (["report", "{sample}", "--layouts", "{fifo}"], "--layouts {fifo}"),
        (["report", "--db", "{fifo}"], "--db {fifo}"),
        (["diagnose", "{sample}", "--rules", "/dev/zero"], "--rules /dev/zero"),
        (["compare", "{sample}", "{fifo}"], "{fifo}"),
        (["ingest", "--db", "{dir}/h.duckdb", "/dev/zero"], "/dev/zero"),
        (["export", "--format", "csv", "{fifo}", "{dir}/out"], "{fifo}"),
        (["sweep", "{fifo}", "--out", "{dir}/out"], "{fifo}"),
    ],
)
def test_an_input_that_is_a_device_or_fifo_is_refused_at_once(
    files: dict[str, Path], tmp_path: Path, args: list[str], shown: str
) -> None:
    """Was: a FIFO no one writes to blocked the command for ever; /dev/zero was
    read without end (run, --rules: memory) or called "the file is empty"
    (dump, report); ``cat F | ztwin dump /dev/stdin`` said "cannot read: Illegal
    seek (os error 29)"."""
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    names = {"fifo": str(fifo), "dir": str(tmp_path), "sample": str(files["sample"])}
    code, _, err = ztwin(*(a.format(**names) for a in args))
    assert code == 2, err
    kind = "a FIFO (named pipe)" if "fifo" in shown else "a character device"
    assert one_line(err, args[0]) == f"ztwin {args[0]}: {shown.format(**names)} is {kind}, not a regular file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


@pytest.mark.parametrize("command", ["run", "zos", "diagnose", "sweep"])
def test_a_text_input_piped_through_dev_stdin_is_read(files: dict[str, Path], tmp_path: Path, command: str) -> None:
    """A scenario, ``--rules`` and a sweep file are read once, whole: ``cat
    s.toml | ztwin run /dev/stdin`` ran before inputs were checked and runs
    still (a named FIFO, a device: refused, above)."""
    if command == "run":
        code, _, err = ztwin("run", "/dev/stdin", "-o", tmp_path / "x.monwrite", stdin=SCENARIO.encode())
        assert code == 0, err
        assert (tmp_path / "x.monwrite").stat().st_size > 0
    elif command == "zos":
        code, text, err = ztwin("zos", "/dev/stdin", stdin=ZOS_SCENARIO.read_bytes())
        assert code == 0, err
        assert text.strip(), err
    elif command == "diagnose":
        # a rules file read: its error names what it read
        code, _, err = ztwin("diagnose", files["sample"], "--rules", "/dev/stdin", stdin=b"[no_such_rule]\n")
        assert code == 2, err
        line = one_line(err, "diagnose")
        assert "no_such_rule" in line and "not a regular file" not in line, line
    else:
        code, _, err = ztwin("sweep", "/dev/stdin", "--out", tmp_path / "out", stdin=b"[sweep]\nseeds = 1\n")
        assert code == 2, err
        assert one_line(err, "sweep") == 'ztwin sweep: /dev/stdin: line 1: [sweep] needs base = "path/to/scenario.toml"'
