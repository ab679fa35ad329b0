"""What-if sweeps: many variants of a scenario, several seeds each, run in
parallel on a local process pool or on a Ray cluster, with figures computed by
the toolkit from every run's MONWRITE file (docs/sweeps.md).

>>> import ztwin.sweep                                         # doctest: +SKIP
>>> df = ztwin.sweep.run("examples/sweep-s1-storage.toml", out="s1-storage", workers=2)
>>> df[["system.central_storage", "seed", "page_wait_pct"]]

:func:`run` returns a pandas DataFrame, one row per run: a column per varied
parameter (named by its dotted key), ``seed``, a column per metric, and the
run's wall time; ``out`` is resumable (runs already finished there are not
redone) and holds ``results.parquet``.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ztwin.sweep import store
from ztwin.sweep.metrics import NAMED, Metric, MetricError, parse_metric
from ztwin.sweep.runner import Progress, Task, default_workers, run_pool, run_ray
from ztwin.sweep.spec import Goal, Limits, Param, Run, Sweep, SweepError, Window, load, loads
from ztwin.sweep.store import DEFAULT_DB, StoreError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "DEFAULT_DB", "NAMED", "Goal", "Limits", "Metric", "MetricError", "Outcome", "Param", "Run", "StoreError",
    "Sweep", "SweepError", "Window", "execute", "load", "loads", "parse_metric", "results_table", "run",
]  # fmt: skip


@dataclass
class Outcome:
    """What :func:`execute` did."""

    sweep: Sweep
    table: pa.Table
    ran: int
    reused: int
    failed: int
    out_dir: Path | None
    db_rows: int | None
    wall_s: float
    backend: str
    interrupted: bool = False
    #: Seconds spent starting and stopping the backend (Ray's init and shutdown; 0 for the pool).
    backend_s: float = 0.0

    @property
    def first_error(self) -> str | None:
        errs = [e for e in self.table.column("error").to_pylist() if e]
        return errs[0] if errs else None


def _column_type(values: list[Any]) -> Any:
    import pyarrow as pa

    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.bool_()
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.int64()
    if present and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return pa.float64()
    return pa.string()


def _cell(v: Any, typ: Any) -> Any:
    import json

    import pyarrow as pa

    if v is None:
        return None
    if typ == pa.string() and not isinstance(v, str):
        return json.dumps(v)
    if typ == pa.float64():
        return float(v)
    return v


def results_table(sweep: Sweep, records: dict[str, dict[str, Any]]) -> pa.Table:
    """The results of the sweep's runs found in ``records`` (by run id), in
    run order: run_id, point, one column per parameter, seed, one per metric,
    wall_s (the run, metrics included), cpu_s (its processor time),
    sim_wall_s (the simulation alone),
    error, monwrite (the kept file, relative to the output directory)."""
    import pyarrow as pa

    rows = [records[r.run_id] for r in sweep.runs() if r.run_id in records]
    cols: dict[str, Any] = {"run_id": pa.array([r["run_id"] for r in rows], pa.string())}
    cols["point"] = pa.array([r["point"] for r in rows], pa.int32())
    for p in sweep.params:
        typ = _column_type([sets_value for pt in sweep.points for k, sets_value in pt if k == p.key])
        cols[p.key] = pa.array([_cell(r["params"].get(p.key), typ) for r in rows], typ)
    cols["seed"] = pa.array([r["seed"] for r in rows], pa.int64())
    for name, m in sweep.metrics.items():
        typ = pa.float64() if m.numeric else pa.string()
        cols[name] = pa.array([_cell(r["metrics"].get(name), typ) for r in rows], typ)
    cols["wall_s"] = pa.array([r.get("wall_s") for r in rows], pa.float64())
    cols["cpu_s"] = pa.array([r.get("cpu_s") for r in rows], pa.float64())
    cols["sim_wall_s"] = pa.array([r.get("sim_wall_s") for r in rows], pa.float64())
    cols["error"] = pa.array([r.get("error") for r in rows], pa.string())
    cols["monwrite"] = pa.array([r.get("monwrite") for r in rows], pa.string())
    meta = {b"ztwin.sweep": __import__("json").dumps(sweep.describe()).encode()}
    return pa.table(cols).replace_schema_metadata(meta)


def _as_sweep(spec: str | os.PathLike[str] | Sweep) -> Sweep:
    return spec if isinstance(spec, Sweep) else load(spec)


def execute(
    spec: str | os.PathLike[str] | Sweep,
    out: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    ray: bool | str | None = None,
    db: str | os.PathLike[str] | None = None,
    keep_monwrite: bool = False,
    progress: bool = False,
    on_start: Callable[[int, int, str], None] | None = None,
) -> Outcome:
    """Run a sweep and return what happened (see :func:`run`). A
    KeyboardInterrupt stops the runs in flight; the finished ones are written
    (results.parquet, the database) before it propagates."""
    sweep = _as_sweep(spec)
    if workers is not None and workers < 1:
        raise SweepError("workers must be at least 1")
    n_workers = workers or sweep.limits.workers or default_workers()
    if keep_monwrite and out is None:
        raise SweepError("keeping MONWRITE files needs an output directory")
    if db is not None:
        store.check_db(db, open_it=True)
    t0 = time.monotonic()
    tmp_root = None
    if out is None:
        import tempfile

        tmp_root = Path(tempfile.mkdtemp(prefix="ztwin-sweep-"))
        out_dir = store.prepare_out(tmp_root / "sweep", sweep)
    else:
        out_dir = store.prepare_out(out, sweep)
    journal = store.Journal(out_dir)
    runs = sweep.runs()

    def finished(rid: str) -> bool:
        rec = journal.done.get(rid)
        if rec is None or rec.get("error"):
            return False
        if keep_monwrite:
            m = rec.get("monwrite")
            return m is not None and (out_dir / m).is_file()
        return True

    todo = [r for r in runs if not finished(r.run_id)]
    reused = len(runs) - len(todo)
    use_ray = ray is not None and ray is not False
    backend = (f"Ray at {ray}" if isinstance(ray, str) and ray else "a local Ray") if use_ray else f"a pool of {min(n_workers, max(1, len(todo)))} worker{'s' if n_workers != 1 else ''}"
    if on_start is not None:
        on_start(len(todo), reused, backend)
    tmp = store.tmp_dir(out_dir)
    tasks = [
        Task(
            run_id=r.run_id, point=r.point, seed=r.seed, sets=r.sets, base_text=sweep.base_text,
            base_origin=sweep.base_path, duration_s=sweep.duration_s,
            window=(sweep.window.start_s, sweep.window.end_s), metrics=sweep.metrics,
            keep_path=str(store.monwrite_path(out_dir, r.run_id).resolve()) if keep_monwrite else None,
            tmp_dir=None if use_ray else str(tmp), timeout_s=sweep.limits.timeout_s, return_bytes=use_ray,
        )
        for r in todo
    ]  # fmt: skip
    bar = Progress(len(tasks), reused, progress, "ztwin sweep")
    failed = 0
    ran = 0

    def on_result(res: dict[str, Any]) -> None:
        nonlocal failed, ran
        data = res.pop("data", None)
        if data is not None and res.get("monwrite"):
            path = Path(res["monwrite"])
            path.parent.mkdir(parents=True, exist_ok=True)
            store.write_bytes(path, data)
        if res.get("monwrite"):
            res["monwrite"] = os.path.relpath(res["monwrite"], out_dir)
        journal.add(res)
        ran += 1
        failed += int(bool(res.get("error")))
        bar.update(bool(res.get("error")))

    interrupted = False
    backend_s = 0.0
    try:
        bar.draw(force=True)
        if use_ray:
            backend_s = run_ray(tasks, ray if isinstance(ray, str) and ray else None, n_workers, sweep.limits.memory_bytes, on_result)
        else:
            run_pool(tasks, n_workers, sweep.limits.memory_bytes, sweep.limits.timeout_s, on_result, str(tmp))
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        bar.close()
        journal.close()
        shutil.rmtree(tmp, ignore_errors=True)
        table = results_table(sweep, journal.reread())
        store.write_parquet(out_dir / store.RESULTS, table)
        db_rows = None
        if db is not None:
            current = {r.run_id for r in runs}
            db_rows = store.store_db(db, sweep, None if tmp_root else out_dir, (v for k, v in journal.done.items() if k in current))
        outcome = Outcome(sweep, table, ran, reused, failed, None if tmp_root else out_dir, db_rows, time.monotonic() - t0, backend, interrupted, backend_s)
        if tmp_root is not None:
            shutil.rmtree(tmp_root, ignore_errors=True)
    return outcome


def run(
    spec: str | os.PathLike[str] | Sweep,
    out: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    ray: bool | str | None = None,
    db: str | os.PathLike[str] | None = None,
    keep_monwrite: bool = False,
    progress: bool = False,
) -> pd.DataFrame:
    """Run a sweep (a sweep file's path, or a :class:`Sweep` from :func:`load`)
    and return its results as a pandas DataFrame, one row per run.

    ``out``: the output directory (results.parquet, the journal that makes a
    restart resume, kept MONWRITE files); a temporary one when None.
    ``workers``: processes of the local pool (default: ``[limits] workers`` or
    all cores). ``ray``: True for a local Ray instance started here, or the
    address of a Ray cluster. ``db``: also write the results into this DuckDB
    history database (tables ``sweeps`` and ``sweep_runs``).
    ``table.to_pandas()`` of :attr:`Outcome.table` is the same data as Arrow.
    """
    return execute(spec, out, workers=workers, ray=ray, db=db, keep_monwrite=keep_monwrite, progress=progress).table.to_pandas()
