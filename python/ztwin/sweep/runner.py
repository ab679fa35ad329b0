"""Running a sweep: each run on a local process pool or as a Ray task, the
results collected as they finish (journal, progress), then the results table.

A run is the base scenario with the variant's keys set (:meth:`Scenario.set`),
simulated with its seed into a MONWRITE file, and the metrics computed from
that file (:mod:`ztwin.sweep.metrics`). The same run gives the same figures
wherever it runs: on the pool, on Ray, or as ``ztwin run`` with that seed.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from ztwin.sweep import store
from ztwin.sweep.metrics import Metric, MetricError, compute

#: Seconds a run may overrun its timeout (metrics, a slow interval) before its worker is killed.
KILL_GRACE_S = 30.0


@dataclass(frozen=True)
class Task:
    """Everything a worker needs for one run (picklable, no open files)."""

    run_id: str
    point: int
    seed: int
    sets: tuple[tuple[str, Any], ...]
    base_text: str
    base_origin: str
    duration_s: float | None
    window: tuple[float | None, float | None]
    metrics: dict[str, Metric]
    #: Where to keep the MONWRITE file (None: a temporary file, removed after the metrics).
    keep_path: str | None
    #: Directory for the temporary file (None: the system's).
    tmp_dir: str | None
    timeout_s: float | None
    #: Return the MONWRITE file's bytes (Ray: the worker may be on another machine).
    return_bytes: bool = False


def execute(task: Task) -> dict[str, Any]:
    """Run one task; never raises for a problem of the run itself (the error
    is in the result's ``error``)."""
    from ztwin.twin import Scenario, ScenarioError, SimulationError

    t0 = time.perf_counter()
    c0 = time.process_time()
    res: dict[str, Any] = {
        "run_id": task.run_id,
        "point": task.point,
        "seed": task.seed,
        "params": dict(task.sets),
        "metrics": dict.fromkeys(task.metrics),
        "wall_s": None,
        "cpu_s": None,
        "sim_wall_s": None,
        "error": None,
        "monwrite": None,
    }
    tmp_holder = None
    if task.keep_path and not task.return_bytes:
        out = Path(task.keep_path)
        out.parent.mkdir(parents=True, exist_ok=True)
    else:
        tmp_holder = tempfile.mkdtemp(prefix=f"ztwin-{task.run_id}-", dir=task.tmp_dir)
        out = Path(tmp_holder) / f"{task.run_id}.monwrite"
    timed_out = False

    def progress(_sim: float, _end: float) -> bool:
        nonlocal timed_out
        if task.timeout_s is not None and time.perf_counter() - t0 > task.timeout_s:
            timed_out = True
            return False
        return True

    try:
        sc = Scenario(tomllib.loads(task.base_text), task.base_origin, task.base_text)
        for k, v in task.sets:
            sc.set(k, v)
        try:
            r = sc.run(out, seed=task.seed, duration=task.duration_s, progress=progress)
        except KeyboardInterrupt:
            if not timed_out:
                raise
            res["error"] = f"timed out after {task.timeout_s:g} s ([limits] timeout)"
            return res
        except (ScenarioError, SimulationError, ValueError, KeyError) as e:
            res["error"] = f"run: {e}"
            return res
        except MemoryError:
            res["error"] = "run: out of memory ([limits] memory)"
            return res
        res["sim_wall_s"] = r.wall_s
        try:
            res["metrics"] = compute(out, task.window[0], task.window[1], task.metrics)
        except MetricError as e:
            res["error"] = f"metrics: {e}"
        if task.keep_path:
            if task.return_bytes:
                res["data"] = out.read_bytes()
            res["monwrite"] = task.keep_path
        return res
    finally:
        res["wall_s"] = time.perf_counter() - t0
        res["cpu_s"] = time.process_time() - c0
        if tmp_holder is not None:
            shutil.rmtree(tmp_holder, ignore_errors=True)


# --------------------------------------------------------------------------
# The local process pool
# --------------------------------------------------------------------------


def _worker_main(conn: Connection, memory_bytes: int | None, log: str | None) -> None:
    """A pool worker: run tasks from the pipe until it closes. Ctrl-C is the
    parent's to handle; the memory limit caps the worker's address space;
    what the worker writes to stderr (a crash's last words) goes to ``log``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if log is not None:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 2)
        os.close(fd)
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            res = execute(task)
        except Exception as e:  # a bug, not a run's problem: report it as the run's error
            res = {"run_id": task.run_id, "error": f"internal error: {type(e).__name__}: {e}"}
        try:
            conn.send(res)
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, ctx: Any, memory_bytes: int | None, log: str | None) -> None:
        self.log = log
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, memory_bytes, log), daemon=True)
        self.proc.start()
        child.close()
        self.task: Task | None = None
        self.started = 0.0

    def stop(self, force: bool = False) -> None:
        if not force and self.proc.is_alive():
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def _failed(task: Task, message: str, started: float) -> dict[str, Any]:
    return {
        "run_id": task.run_id, "point": task.point, "seed": task.seed, "params": dict(task.sets),
        "metrics": dict.fromkeys(task.metrics), "wall_s": time.monotonic() - started, "cpu_s": None, "sim_wall_s": None,
        "error": message, "monwrite": None,
    }  # fmt: skip


def _last_words(log: str | None) -> str:
    """The last message a dead worker wrote to stderr (e.g. Rust's "memory
    allocation of N bytes failed"), without the backtrace that may follow it."""
    if log is None:
        return ""
    try:
        size = os.path.getsize(log)
        with open(log, "rb") as f:
            f.seek(max(0, size - 65536))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    if size > 65536:
        lines = lines[1:]  # a partial first line
    if "stack backtrace:" in lines:
        lines = lines[: len(lines) - 1 - lines[::-1].index("stack backtrace:")]
    lines = [x.strip() for x in lines if x.strip()]
    return lines[-1][:300] if lines else ""


def run_pool(
    tasks: Sequence[Task],
    workers: int,
    memory_bytes: int | None,
    timeout_s: float | None,
    on_result: Callable[[dict[str, Any]], None],
    log_dir: str | None = None,
) -> None:
    """Run tasks on ``workers`` processes, one task each at a time. A worker
    that dies (a crash, the memory limit) or overruns the timeout by
    :data:`KILL_GRACE_S` fails its run and is replaced. Workers' stderr goes
    to files in ``log_dir`` (the last words of a dead one are in its run's error)."""
    if not tasks:
        return
    ctx = mp.get_context("spawn")
    pending = list(reversed(tasks))
    serial = iter(range(1, 2**31))

    def start() -> _Worker:
        log = None if log_dir is None else os.path.join(log_dir, f"worker-{next(serial)}.log")
        return _Worker(ctx, memory_bytes, log)

    pool = [start() for _ in range(min(workers, len(tasks)))]
    try:
        busy = 0
        while pending or busy:
            for w in pool:
                if w.task is None and pending:
                    w.task = pending.pop()
                    w.started = time.monotonic()
                    w.conn.send(w.task)
                    busy += 1
            ready = wait([w.conn for w in pool if w.task] + [w.proc.sentinel for w in pool if w.task], timeout=0.5)
            now = time.monotonic()
            for i, w in enumerate(pool):
                if w.task is None:
                    continue
                res = None
                if w.conn in ready:
                    try:
                        res = w.conn.recv()
                    except (EOFError, OSError):
                        res = None
                if res is not None:
                    w.task = None
                    busy -= 1
                    on_result(res)
                    continue
                dead = w.proc.sentinel in ready or w.conn in ready or not w.proc.is_alive()
                overdue = timeout_s is not None and now - w.started > timeout_s + KILL_GRACE_S
                if dead or overdue:
                    task = w.task
                    w.stop(force=True)
                    code = w.proc.exitcode
                    if overdue and not dead:
                        msg = f"timed out after {timeout_s:g} s ([limits] timeout); worker killed"
                    elif code is not None and code < 0:
                        msg = f"worker process died (signal {-code}{', over [limits] memory?' if memory_bytes else ''})"
                    else:
                        msg = f"worker process died (exit status {code})"
                    words = _last_words(w.log)
                    if words and not (overdue and not dead):
                        msg += f": {words}"
                    pool[i] = start()
                    busy -= 1
                    on_result(_failed(task, msg, w.started))
    finally:
        force = bool(pending) or any(w.task for w in pool)
        for w in pool:
            w.stop(force=force)


# --------------------------------------------------------------------------
# Ray
# --------------------------------------------------------------------------


def run_ray(
    tasks: Sequence[Task],
    address: str | None,
    workers: int,
    memory_bytes: int | None,
    on_result: Callable[[dict[str, Any]], None],
) -> float:
    """Run tasks as Ray tasks: on the cluster at ``address`` (``ray.init(address)``),
    or on a local Ray instance with ``workers`` CPUs started here and shut down
    at the end. Each task asks for one CPU (and ``memory_bytes`` of memory).
    Returns the seconds spent starting and stopping Ray."""
    if not address and "ray" not in sys.modules:
        # A local instance stays on the loopback interface (Ray otherwise listens
        # on the machine's network address): the setting Ray reads at import.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError:
        raise RuntimeError("--ray needs Ray: pip install ray") from None
    started = False
    t0 = time.perf_counter()
    if not ray.is_initialized():
        if address:
            try:
                ray.init(address=address, log_to_driver=False)
            except ConnectionError as e:
                raise RuntimeError(
                    f"cannot connect to the Ray cluster at {address}: {str(e).splitlines()[0]} "
                    "(a cluster with token authentication also needs RAY_AUTH_MODE=token and its token)"
                ) from None
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            started = True
    startup = time.perf_counter() - t0
    try:
        opts: dict[str, Any] = {"num_cpus": 1, "max_retries": 0}
        if memory_bytes:
            # A task no node can hold would wait for ever: refuse it here.
            nodes = ray.nodes()  # type: ignore[no-untyped-call]
            biggest = max((n.get("Resources", {}).get("memory", 0) for n in nodes if n.get("Alive")), default=0)
            if biggest and memory_bytes > biggest:
                raise RuntimeError(
                    f"[limits] memory ({memory_bytes / 2**30:.1f} GiB per run) is more than any Ray node offers "
                    f"({biggest / 2**30:.1f} GiB); lower it"
                )
            opts["memory"] = memory_bytes
        remote = ray.remote(execute).options(**opts)
        refs = {remote.remote(t): t for t in tasks}
        t_sent = time.monotonic()
        try:
            while refs:
                done, _ = ray.wait(list(refs), num_returns=1, timeout=0.5)
                for ref in done:
                    task = refs.pop(ref)
                    try:
                        res = ray.get(ref)
                    except ray.exceptions.RayError as e:
                        res = _failed(task, f"Ray task failed: {str(e).splitlines()[0]}", t_sent)
                    on_result(res)
        except BaseException:
            for ref in refs:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
    finally:
        t1 = time.perf_counter()
        if started:
            ray.shutdown()
        startup += time.perf_counter() - t1
    return startup


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# --------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------


class Progress:
    """A one-line progress bar on stderr (drawn only when enabled)."""

    def __init__(self, total: int, earlier: int, enabled: bool, label: str) -> None:
        self.total = total
        self.earlier = earlier
        self.enabled = enabled
        self.label = label
        self.done = 0
        self.failed = 0
        self.t0 = time.monotonic()
        self.last = 0.0

    def update(self, failed: bool) -> None:
        self.done += 1
        self.failed += int(failed)
        self.draw()

    def draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not self.enabled or (not force and now - self.last < 0.1 and self.done < self.total):
            return
        self.last = now
        n = self.earlier + self.done
        all_runs = self.earlier + self.total
        frac = n / all_runs if all_runs else 1.0
        width = 30
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        wall = now - self.t0
        eta = wall / self.done * (self.total - self.done) if self.done else float("nan")
        eta_s = f"ETA {eta:5.0f} s" if self.done and self.done < self.total else ""
        failed = f"  {self.failed} failed" if self.failed else ""
        sys.stderr.write(f"\r{self.label} [{bar}] {n}/{all_runs} runs{failed}  wall {wall:6.1f} s  {eta_s}   ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            self.draw(force=True)
            sys.stderr.write("\n")
            sys.stderr.flush()
