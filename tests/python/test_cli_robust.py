"""Every subcommand ends in one line on stderr, never a traceback: against a
full standard output, a bad seed, binary and non-UTF-8 inputs, and output
paths that must not be written (refused before any work)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import one_line, write_sample_file

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


def ztwin(*args: object, stdout: int | None = None, cwd: Path | None = None) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "ztwin", *map(str, args)],
        stdout=subprocess.PIPE if stdout is None else stdout,
        stderr=subprocess.PIPE,
        timeout=300,
        check=False,
        cwd=cwd,
    )
    out = proc.stdout.decode("utf-8", "replace") if proc.stdout is not None else ""
    return proc.returncode, out, proc.stderr.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("robust")
    sample = d / "sample.monwrite"
    write_sample_file(sample)
    scenario = d / "s.toml"
    scenario.write_text(SCENARIO)
    binary = d / "binary.bin"
    binary.write_bytes(bytes(range(256)) * 40)
    latin1 = d / "latin1.toml"
    latin1.write_bytes('[scenario]\nname = "caf\xe9"\n'.encode("latin-1"))
    return {"sample": sample, "scenario": scenario, "binary": binary, "latin1": latin1, "dir": d}


FULL_STDOUT = [
    ("dump", ["dump", "{sample}"]),
    ("dump", ["dump", "--json", "{sample}"]),
    ("layouts", ["layouts"]),
    ("layouts", ["layouts", "MRSYTRSG", "--json"]),
    ("report", ["report", "{sample}"]),
    ("report", ["report", "{sample}", "--format", "csv"]),
    ("diagnose", ["diagnose", "{sample}"]),
    ("diagnose", ["diagnose", "{sample}", "--json"]),
    ("study", ["study", "list"]),
    ("study", ["study", "run", "healthy-system", "--quick"]),
]


@pytest.mark.parametrize(("command", "args"), FULL_STDOUT, ids=[" ".join(a) for _, a in FULL_STDOUT])
def test_a_full_standard_output_is_an_output_error(files: dict[str, Path], command: str, args: list[str]) -> None:
    argv = [a.format(**files) for a in args]
    with open("/dev/full", "w") as full:
        code, _, err = ztwin(*argv, stdout=full.fileno())
    assert code == 2
    line = one_line(err, command)
    assert line == f"ztwin {command}: cannot write the output (standard output): No space left on device"
    assert str(files["sample"]) not in line  # not blamed on the input


def test_run_writes_nothing_to_stdout_so_a_full_one_does_not_matter(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "x.monwrite"
    with open("/dev/full", "w") as full:
        code, _, err = ztwin("run", files["scenario"], "-o", out, stdout=full.fileno())
    assert code == 0, err
    assert out.stat().st_size > 0


@pytest.mark.parametrize("seed", ["-1", "18446744073709551616", "99999999999999999999999", "1.5", "x"])
def test_bad_seed_is_a_usage_error(files: dict[str, Path], tmp_path: Path, seed: str) -> None:
    code, _, err = ztwin("run", files["scenario"], "--seed", seed, "-o", tmp_path / "x")
    assert code == 2
    assert "argument --seed" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_largest_seed_runs(files: dict[str, Path], tmp_path: Path) -> None:
    code, _, err = ztwin("run", files["scenario"], "--seed", str(2**64 - 1), "-q", "-o", tmp_path / "x")
    assert code == 0, err


def test_bad_seed_from_python_is_a_value_error(files: dict[str, Path], tmp_path: Path) -> None:
    from ztwin.twin import Scenario

    sc = Scenario.load(files["scenario"])
    for bad in (-1, 2**64, True):
        with pytest.raises(ValueError, match="must be an integer from 0 to"):
            sc.run(tmp_path / "x", seed=bad)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


BINARY_INPUT = [
    ("dump", ["dump", "{binary}"], "not a MONWRITE file"),
    ("report", ["report", "{binary}"], "not a MONWRITE file"),
    ("diagnose", ["diagnose", "{binary}"], "not a MONWRITE file"),
    ("run", ["run", "{binary}", "-o", "{dir}/o1"], "line 1: a binary file, not a TOML scenario (byte X'00' at offset 0)"),
    ("run", ["run", "{latin1}", "-o", "{dir}/o2"], "line 2: not UTF-8 text (byte X'E9' at offset 22)"),
    ("diagnose", ["diagnose", "{sample}", "--rules", "{binary}"], "{binary}"),
    ("diagnose", ["diagnose", "{sample}", "--rules", "{latin1}"], "{latin1}"),
]


@pytest.mark.parametrize(("command", "args", "message"), BINARY_INPUT, ids=[" ".join(a) for _, a, _ in BINARY_INPUT])
def test_binary_and_non_utf8_inputs(files: dict[str, Path], command: str, args: list[str], message: str) -> None:
    code, out, err = ztwin(*[a.format(**files) for a in args])
    assert code == 2 and out == ""
    assert message.format(**files) in one_line(err, command)
    assert not (files["dir"] / "o1").exists() and not (files["dir"] / "o2").exists()


# -- output safety through the commands ----------------------------------------


def refused_outputs(tmp: Path, scenario: Path) -> list[tuple[str, str]]:
    """(path, expected message end) pairs: each must be refused."""
    (tmp / "adir").mkdir(exist_ok=True)
    fifo = tmp / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    link = tmp / "link"
    if not link.is_symlink():
        (tmp / "real").write_text("x")
        link.symlink_to(tmp / "real")
    return [
        ("/dev/null", "/dev/null is a character device; ztwin writes only regular files"),
        (str(fifo), f"{fifo} is a FIFO (named pipe); ztwin writes only regular files"),
        (str(tmp / "adir"), f"{tmp / 'adir'} is a directory; give a file name"),
        (str(tmp / "newdir") + "/", f"{tmp / 'newdir'}/ names a directory; give a file name"),
        ("", "no output file named (the path is empty)"),
        (str(tmp / "missing" / "x"), f"{tmp / 'missing' / 'x'}: directory {tmp / 'missing'} does not exist"),
        (str(link), f"{link} is a symbolic link (to {tmp / 'real'}); use --force to write the file it points to"),
        (str(scenario), f"{scenario} is the input file; choose another output name"),
    ]


def test_run_refuses_bad_outputs_before_simulating(files: dict[str, Path], tmp_path: Path) -> None:
    # a scenario that would run for an hour of wall time: the refusal must come first
    slow = tmp_path / "slow.toml"
    slow.write_text(SCENARIO.replace('duration = "60s"', 'duration = "2000h"'))
    for path, message in refused_outputs(tmp_path, slow):
        code, _, err = ztwin("run", slow, "-o", path)
        assert code == 2, (path, err)
        assert one_line(err, "run") == f"ztwin run: {message}"
    assert (tmp_path / "real").read_text() == "x"
    assert slow.read_text().startswith("\n[scenario]")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "fifo", "link", "real", "slow.toml"]


@pytest.mark.parametrize("command", ["report", "dump"])
def test_report_and_dump_refuse_bad_outputs(files: dict[str, Path], tmp_path: Path, command: str) -> None:
    sample = tmp_path / "in.monwrite"
    sample.write_bytes(files["sample"].read_bytes())
    for path, message in refused_outputs(tmp_path, sample):
        message = message.replace("choose another output name", "choose another output name")
        code, out, err = ztwin(command, sample, "-o", path)
        assert code == 2 and out == "", (path, err)
        assert one_line(err, command) == f"ztwin {command}: {message}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "fifo", "in.monwrite", "link", "real"]


@pytest.mark.parametrize("command", ["report", "dump"])
def test_report_and_dump_write_a_file_atomically(files: dict[str, Path], tmp_path: Path, command: str) -> None:
    out = tmp_path / "out.txt"
    code, stdout, err = ztwin(command, files["sample"], "-o", out)
    assert code == 0, err
    assert stdout == ""
    direct = ztwin(command, files["sample"])[1]
    assert out.read_text(encoding="utf-8") == direct if command == "dump" else out.stat().st_size > 0
    link = tmp_path / "link"
    link.symlink_to(out)
    code, _, err = ztwin(command, files["sample"], "-o", link, "--force")
    assert code == 0, err
    assert link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "out.txt"]


def test_study_keep_refuses_a_file_and_a_foreign_directory(tmp_path: Path) -> None:
    f = tmp_path / "afile"
    f.write_text("x")
    code, _, err = ztwin("study", "run", "healthy-system", "--quick", "--keep", f)
    assert code == 2
    assert one_line(err, "study") == f"ztwin study: --keep {f} exists and is not a directory"
    d = tmp_path / "mine"
    d.mkdir()
    (d / "notes").write_text("x")
    code, _, err = ztwin("study", "run", "healthy-system", "--quick", "--keep", d)
    assert code == 2
    assert "is not empty and was not written by ztwin" in one_line(err, "study")
    assert [p.name for p in d.iterdir()] == ["notes"]


def test_study_keep_writes_a_new_directory_and_rewrites_it(tmp_path: Path) -> None:
    d = tmp_path / "keep"
    code, _, err = ztwin("study", "run", "healthy-system", "--quick", "--keep", d)
    assert code == 0, err
    assert sorted(p.name for p in d.iterdir()) == [".ztwin-output", "s3.monwrite"]
    (d / "notes").write_text("mine")
    code, _, err = ztwin("study", "run", "healthy-system", "--quick", "--keep", d)
    assert code == 0, err
    assert sorted(p.name for p in d.iterdir()) == [".ztwin-output", "notes", "s3.monwrite"]
    assert [p.name for p in tmp_path.iterdir()] == ["keep"]


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_run_stopped_by_a_signal_leaves_nothing(tmp_path: Path, sig: str) -> None:
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
        time.sleep(0.3)  # well into the simulation
        proc.send_signal(getattr(signal, sig))
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + getattr(signal, sig)
    assert one_line(err.decode(), "run") == f"ztwin run: terminated by {sig}; no output was written"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.toml"]


def test_scenario_api_errors_name_the_users_key(tmp_path: Path) -> None:
    from ztwin.twin import Scenario, ScenarioError

    p = tmp_path / "s.toml"
    p.write_text(SCENARIO)
    sc = Scenario.load(p)
    cases = [
        ("system.processors", "two", "system.processors", 'invalid type: string "two", expected u16'),
        ("system.bogus", 1, "system.bogus", "unknown field `bogus`"),
        ("system.central_storage", float("nan"), "system.central_storage", "nan is not a number"),
        ("system.central_storage", 4.5e9, "system.central_storage",
         'a size is a string such as "768M" or a whole number of bytes, not the float 4500000000.0'),
        ("scenario.duration", -3, "scenario.duration", "a duration is a non-negative number of seconds"),
        ("guest[0].virtual_storage", float("inf"), "guest[0].virtual_storage", "inf is not a number"),
    ]
    for key, value, place, reason in cases:
        with pytest.raises(ScenarioError) as e:
            sc.copy().set(key, value).run(tmp_path / "x")
        assert e.value.place == place
        assert reason in e.value.reason
        assert "line 1 column" not in str(e.value)
    with pytest.raises(KeyError, match="is a value, not a table"):
        sc.copy().set("system.processors.x", 1)
    assert sorted(q.name for q in tmp_path.iterdir()) == ["s.toml"]


def test_scenario_files_that_are_not_text(tmp_path: Path) -> None:
    from ztwin.twin import Scenario, ScenarioError

    p = tmp_path / "s.toml"
    p.write_bytes(b"[system]\nprocessors = 1\n\x00\x01")
    with pytest.raises(ScenarioError) as e:
        Scenario.load(p)
    assert (e.value.line, e.value.place, e.value.reason) == (3, "", "a binary file, not a TOML scenario (byte X'00' at offset 24)")
    p.write_bytes(b"[system]\n# caf\xe9\n")
    with pytest.raises(ScenarioError) as e:
        Scenario.load(p)
    assert (e.value.line, e.value.place) == (2, "")
    assert e.value.reason.startswith("not UTF-8 text (byte X'E9' at offset 14)")


def test_run_that_cannot_write_its_output_leaves_nothing(files: dict[str, Path], tmp_path: Path) -> None:
    """The disk fills while the twin writes (a file size limit stands in for
    it): one line naming the output, nothing left behind."""
    import resource
    import signal

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    long = tmp_path / "long.toml"
    long.write_text(SCENARIO.replace('duration = "60s"', 'duration = "1h"'))
    out = tmp_path / "x.monwrite"
    proc = subprocess.run(
        [sys.executable, "-m", "ztwin", "run", str(long), "-o", str(out), "-q"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=limit,
    )
    assert proc.returncode == 2
    line = one_line(proc.stderr, "run")
    assert line.startswith(f"ztwin run: cannot write {out}: ") and line.endswith("File too large"), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.toml"]


def test_export_and_ingest_outputs_are_checked_first(files: dict[str, Path], tmp_path: Path) -> None:
    sample = files["sample"]
    # openmetrics is a file: devices, FIFOs and the input are refused before reading
    for out, message in [
        ("/dev/null", "/dev/null is a character device"),
        (str(sample), f"{sample} is the input file"),
    ]:
        code, _, err = ztwin("export", sample, "--format", "openmetrics", out)
        assert code == 2
        assert message in one_line(err, "export")
    # parquet and csv go to a directory that must be new, empty or ztwin's
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes").write_text("x")
    code, _, err = ztwin("export", sample, "--format", "csv", mine)
    assert code == 2 and "is not empty and was not written by ztwin" in one_line(err, "export")
    out = tmp_path / "csv"
    code, stdout, err = ztwin("export", sample, "--format", "csv", out)
    assert code == 0, err
    assert all(Path(p).is_relative_to(out) and Path(p).exists() for p in stdout.split())
    (out / "notes").write_text("mine")
    code, _, err = ztwin("export", sample, "--format", "csv", out)
    assert code == 0, err
    assert (out / "notes").read_text() == "mine" and (out / ".ztwin-output").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["csv", "mine"]
    # ingest updates a database in place: what is not a regular file is refused
    for db, message in [(str(tmp_path), "is a directory"), (str(sample), "is the input file")]:
        code, _, err = ztwin("ingest", sample, "--db", db)
        assert code == 2
        assert message in one_line(err, "ingest")
