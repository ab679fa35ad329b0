"""Running sweeps: examples/sweep-s1-storage.toml (shortened to 60 simulated
seconds) gives the same results on the process pool, on a local Ray cluster
and as single `ztwin run` calls; an interrupted sweep resumes with only the
missing runs; results land in results.parquet and the DuckDB database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from support import run_ztwin

import ztwin.sweep
from ztwin.sweep import metrics as sweep_metrics

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "sweep-s1-storage.toml"
#: The test's window and duration (the example measures 330-380 s of 540 s).
DURATION, W_FROM, W_TO = "60s", 20.0, 60.0
WALL = ["wall_s", "cpu_s", "sim_wall_s"]


def short_sweep(tmp: Path, seeds: str = "[1, 2]", extra: str = "") -> Path:
    """The example with an absolute base, a 60 s duration and a window inside it."""
    text = EXAMPLE.read_text(encoding="utf-8")
    text = text.replace('base = "../studies/', f'base = "{ROOT}/studies/')
    text = text.replace("seeds = [1, 2]", f'seeds = {seeds}\nduration = "{DURATION}"')
    text = text.replace('from = "330s"', f'from = "{W_FROM:g}s"').replace('to = "380s"', f'to = "{W_TO:g}s"')
    assert text.count(f'duration = "{DURATION}"') == 1 and f'from = "{W_FROM:g}s"' in text and f'to = "{W_TO:g}s"' in text
    path = tmp / "sweep.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path


def sweep_cli(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ztwin", "sweep", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def pool_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("pool")
    spec = short_sweep(tmp)
    out = tmp / "out"
    r = sweep_cli(spec, "--out", out, "--workers", "2", "--db", tmp / "h.duckdb", "--keep-monwrite")
    assert r.returncode == 0, r.stderr
    assert "6 ran, 0 reused, 0 failed" in r.stderr
    return spec, out


def test_results_parquet_has_a_row_per_run_and_a_column_per_parameter_seed_and_metric(pool_run: tuple[Path, Path]) -> None:
    _spec, out = pool_run
    t = pq.read_table(out / "results.parquet")
    assert t.num_rows == 6
    names = t.column_names
    assert names[:4] == ["run_id", "point", "system.central_storage", "seed"]
    metric_names = list(ztwin.sweep.load(EXAMPLE).metrics)
    assert names[4 : 4 + len(metric_names)] == metric_names
    assert names[-5:] == ["wall_s", "cpu_s", "sim_wall_s", "error", "monwrite"]
    df = t.to_pandas()
    assert list(df["system.central_storage"]) == ["1G", "1G", "2G", "2G", "4G", "4G"]
    assert list(df["seed"]) == [1, 2, 1, 2, 1, 2]
    assert df["error"].isna().all()
    assert (df["wall_s"] > 0).all()
    # the window 20-60 s: the memory hog pages the system out with 1 and 2 GB, not with 4 GB
    assert (df.loc[df["system.central_storage"] != "4G", "paging_rate"] > 1000).all()
    assert (df.loc[df["system.central_storage"] == "4G", "paging_rate"] == 0).all()
    assert df["findings"].str.len().gt(0).all()


def test_same_results_as_single_ztwin_run_calls(pool_run: tuple[Path, Path], tmp_path: Path) -> None:
    """Each run's MONWRITE file is byte-identical to `ztwin run` of the variant
    with that seed, and its figures are those the reports give for the window."""
    _spec, out = pool_run
    df = pq.read_table(out / "results.parquet").to_pandas()
    base = (ROOT / "studies" / "paging-single-thread.toml").read_text(encoding="utf-8")
    sw = ztwin.sweep.load(EXAMPLE)
    for _, row in df.iterrows():
        variant = tmp_path / f"v-{row['system.central_storage']}.toml"
        text = base.replace('central_storage = "2G"', f'central_storage = "{row["system.central_storage"]}"')
        assert text != base or row["system.central_storage"] == "2G"
        variant.write_text(text, encoding="utf-8")
        single = tmp_path / f"{row['run_id']}.monwrite"
        r = run_ztwin("run", variant, "-o", single, "--seed", str(row["seed"]), "--duration", DURATION, "-q")
        assert r.returncode == 0, r.stderr
        assert single.read_bytes() == (out / row["monwrite"]).read_bytes()
        figures = sweep_metrics.compute(single, W_FROM, W_TO, sw.metrics)
        for name, value in figures.items():
            assert row[name] == value or (value is None and row[name] != row[name]), name
    # and one figure straight from `ztwin report` over the same window: the
    # scenario's start (monitoring starts with the run) plus 20 s and 60 s
    t0 = datetime.fromisoformat(tomllib.loads(base)["scenario"]["start"].replace("Z", "+00:00"))
    frm, to = ((t0 + timedelta(seconds=s)).strftime("%H:%M:%S") for s in (W_FROM, W_TO))
    first = df.iloc[0]
    r = run_ztwin("report", out / first["monwrite"], "-r", "SYSSUMLG", "--from", frm, "--to", to, "--format", "json")
    assert r.returncode == 0, r.stderr
    mean = json.loads(r.stdout)["rows"][0]
    assert mean["interval_end"] == ">>Mean>>"
    assert mean["read_write_rate"] == pytest.approx(first["paging_rate"], rel=1e-9, abs=1e-6)


def test_same_results_on_a_local_ray_cluster(pool_run: tuple[Path, Path], tmp_path: Path) -> None:
    spec, out = pool_run
    ray_out = tmp_path / "ray"
    r = sweep_cli(spec, "--out", ray_out, "--ray", "--workers", "2", "--no-db", "--keep-monwrite")
    assert r.returncode == 0, r.stderr
    assert "on a local Ray" in r.stderr and "6 ran" in r.stderr
    a = pq.read_table(out / "results.parquet").drop(WALL)
    b = pq.read_table(ray_out / "results.parquet").drop(WALL)
    assert a.equals(b)
    for m in a.column("monwrite").to_pylist():
        assert (out / m).read_bytes() == (ray_out / m).read_bytes()


def test_same_results_on_a_ray_cluster_given_by_address(pool_run: tuple[Path, Path], tmp_path: Path) -> None:
    """--ray ADDRESS joins a running cluster (ray.init(address)): here one
    started by a helper process on the loopback interface."""
    spec, out = pool_run
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token"}
    code = (
        "import sys, ray\nray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)\n"
        "print(ray.get_runtime_context().gcs_address, flush=True)\nsys.stdin.read()\nray.shutdown()\n"
    )
    head = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)  # fmt: skip
    try:
        assert head.stdout is not None
        address = head.stdout.readline().strip()
        assert address.startswith("127.0.0.1:"), address
        r = subprocess.run(
            [sys.executable, "-m", "ztwin", "sweep", str(spec), "--out", str(tmp_path / "o"), "--ray", address, "--no-db"],
            capture_output=True, text=True, timeout=300, check=False, env=env,
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        assert f"on Ray at {address}" in r.stderr and "6 ran" in r.stderr
    finally:
        assert head.stdin is not None and head.stdout is not None
        head.stdin.close()
        head.wait(timeout=120)
        head.stdout.close()
    a = pq.read_table(out / "results.parquet").drop([*WALL, "monwrite"])
    b = pq.read_table(tmp_path / "o" / "results.parquet").drop([*WALL, "monwrite"])
    assert a.equals(b)


def test_figures_do_not_depend_on_the_hash_seed(pool_run: tuple[Path, Path]) -> None:
    """Report sums must not follow set order (PYTHONHASHSEED differs between
    processes: pool workers, Ray workers, the command line)."""
    _spec, out = pool_run
    f = out / pq.read_table(out / "results.parquet").column("monwrite").to_pylist()[0]
    code = (
        "import sys, ztwin.sweep as s; from ztwin.sweep import metrics as m; "
        f"sw = s.load({str(EXAMPLE)!r}); "
        f"print(repr(m.compute({str(f)!r}, {W_FROM}, {W_TO}, sw.metrics)))"
    )
    outs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2", "3")
    }  # fmt: skip
    assert len(outs) == 1


def test_results_are_in_the_database_once(pool_run: tuple[Path, Path]) -> None:
    spec, out = pool_run
    db = out.parent / "h.duckdb"
    # a second start finds everything done: no run, the same rows
    r = sweep_cli(spec, "--out", out, "--workers", "2", "--db", db, "--keep-monwrite")
    assert r.returncode == 0, r.stderr
    assert "0 ran, 6 reused" in r.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        (n,) = con.execute("SELECT count(*) FROM sweep_runs").fetchone()  # type: ignore[misc]
        assert n == 6
        name, runs, params = con.execute("SELECT name, runs, params FROM sweeps").fetchone()  # type: ignore[misc]
        assert (name, runs) == ("s1-storage", 6)
        assert json.loads(params)[0]["values"] == ["1G", "2G", "4G"]
        rows = con.execute(
            "SELECT params->>'$.\"system.central_storage\"', seed, CAST(metrics->>'paging_rate' AS DOUBLE) "
            "FROM sweep_runs ORDER BY point, seed"
        ).fetchall()
    finally:
        con.close()
    df = pq.read_table(out / "results.parquet").to_pandas()
    assert rows == list(zip(df["system.central_storage"], df["seed"], df["paging_rate"], strict=True))


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_interrupted_sweep_resumes_with_only_the_missing_runs(tmp_path: Path) -> None:
    spec = short_sweep(tmp_path, seeds="[1, 2, 3, 4]")
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ztwin", "sweep", str(spec), "--out", str(out), "--workers", "1", "--no-db"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A command started in the background by a shell without job control
        # (make test > log &) inherits SIGINT ignored, and Python keeps it
        # ignored: give the sweep the default action, as a terminal's Ctrl-C has.
        preexec_fn=_sigint_default,
    )  # fmt: skip
    journal = out / "runs.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if journal.exists() and len(journal.read_text(encoding="utf-8").splitlines()) >= 3:
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    first = pq.read_table(out / "results.parquet").to_pandas()
    done = len(first)
    assert 3 <= done < 12
    done_ids = set(first["run_id"])

    r = sweep_cli(spec, "--out", out, "--workers", "2", "--no-db")
    assert r.returncode == 0, r.stderr
    assert f"{12 - done} run(s) to do ({done} finished earlier)" in r.stderr
    assert f"{12 - done} ran, {done} reused, 0 failed" in r.stderr
    lines = [json.loads(x) for x in journal.read_text(encoding="utf-8").splitlines()]
    ids = [x["run_id"] for x in lines]
    assert len(ids) == len(set(ids)) == 12, "a run was done twice"
    assert set(ids[:done]) == done_ids
    final = pq.read_table(out / "results.parquet").to_pandas()
    assert len(final) == 12 and final["error"].isna().all()
    # the runs of the first start keep their figures (and wall times) unchanged
    kept = final[final["run_id"].isin(done_ids)].set_index("run_id").sort_index()
    assert kept.equals(first.set_index("run_id").sort_index())


def test_killed_sweep_resumes_after_a_torn_journal_line(tmp_path: Path) -> None:
    """A sweep killed outright (SIGKILL) may leave half a journal line; the
    restart drops it and runs what is missing."""
    spec = short_sweep(tmp_path, seeds="[1]")
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ztwin", "sweep", str(spec), "--out", str(out), "--workers", "1", "--no-db"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    journal = out / "runs.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not (journal.exists() and journal.read_text(encoding="utf-8").count("\n") >= 1):
        assert proc.poll() is None
        time.sleep(0.05)
    proc.kill()
    proc.wait(timeout=60)
    n = journal.read_text(encoding="utf-8").count("\n")
    with open(journal, "a", encoding="utf-8") as f:
        f.write('{"run_id": "torn')
    r = sweep_cli(spec, "--out", out, "--workers", "2", "--no-db")
    assert r.returncode == 0, r.stderr
    assert f"{3 - n} ran, {n} reused" in r.stderr
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and all(json.loads(x)["error"] is None for x in lines)


def test_python_api_returns_a_dataframe(tmp_path: Path) -> None:
    sw = ztwin.sweep.load(short_sweep(tmp_path, seeds="[3]"))
    sw.points = sw.points[:1]  # 1 GB only
    df = ztwin.sweep.run(sw, workers=1)
    assert list(df["system.central_storage"]) == ["1G"] and list(df["seed"]) == [3]
    assert df["paging_rate"].iloc[0] > 1000
    assert df["error"].isna().all()


def test_a_run_over_its_time_limit_fails_alone(tmp_path: Path) -> None:
    spec = short_sweep(tmp_path, seeds="[1]")
    text = spec.read_text(encoding="utf-8").replace('timeout = "10min"', 'timeout = "0.001s"')
    spec.write_text(text, encoding="utf-8")
    r = sweep_cli(spec, "--out", tmp_path / "out", "--workers", "2", "--no-db")
    assert r.returncode == 1, r.stderr
    assert "0 ran" not in r.stderr and "3 failed" in r.stderr
    assert "timed out after 0.001 s ([limits] timeout)" in r.stderr
    df = pq.read_table(tmp_path / "out" / "results.parquet").to_pandas()
    assert len(df) == 3 and df["paging_rate"].isna().all()


def test_output_directory_safety(pool_run: tuple[Path, Path], tmp_path: Path) -> None:
    spec, out = pool_run
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")
    r = sweep_cli(spec, "--out", foreign, "--no-db")
    assert r.returncode == 2 and "was not written by ztwin sweep" in r.stderr
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]
    other = tmp_path / "other.toml"
    other.write_text(spec.read_text(encoding="utf-8").replace('duration = "60s"', 'duration = "50s"'), encoding="utf-8")
    r = sweep_cli(other, "--out", out, "--no-db")
    assert r.returncode == 2 and "holds the results of another sweep" in r.stderr
    r = sweep_cli(spec, "--out", out, "--db", tmp_path)
    assert r.returncode == 2 and "is not a regular file" in r.stderr


def test_a_run_over_its_memory_limit_fails_alone_with_the_reason(tmp_path: Path) -> None:
    """A guest of 1 TB needs a 2 GB page table: under a 512 MB address space the
    worker dies (Rust aborts); its run fails with the worker's last words, the
    other run succeeds and the pool goes on with a new worker. (Central storage
    no longer serves: its frame table grows only with the frames in use.)"""
    spec = tmp_path / "mem.toml"
    spec.write_text(
        f"""[sweep]
name = "mem"
base = "{ROOT}/studies/paging-single-thread.toml"
duration = "20s"
[[param]]
key = "guest[0].virtual_storage"
values = ["1T", "768M"]
[metrics]
cpu = "cpu_busy_pct"
[limits]
memory = "512M"
""",
        encoding="utf-8",
    )
    r = sweep_cli(spec, "--out", tmp_path / "out", "--workers", "1", "--no-db")
    assert r.returncode == 1, r.stderr
    assert "2 ran, 0 reused, 1 failed" in r.stderr
    df = pq.read_table(tmp_path / "out" / "results.parquet").to_pandas()
    err = df["error"].iloc[0]
    assert err.startswith("worker process died (signal 6, over [limits] memory?): memory allocation of "), err
    assert err.endswith(" bytes failed"), err
    assert df["error"].isna().iloc[1] and df["cpu"].iloc[1] > 0
    assert "stack backtrace" not in r.stderr
