"""Where sweep results go: the output directory (a journal of finished runs,
``results.parquet``, kept MONWRITE files) and the history database (DuckDB).

All writing of the sweep package is here, so that moving to the project's
shared output helpers and history store is a change in one place:

- every file is written through :mod:`ztwin.safeout` (a temporary name in
  its target directory, renamed over the target, and only over a regular file;
  HTML directories are :class:`ztwin.safeout.OutputDir`);
- a sweep's output directory, written run by run and resumed, is ours only if
  it is new, empty, or carries the marker file :data:`MARKER` of the same sweep;
- the database is opened by :func:`open_db` alone, and each sweep's rows are
  written in one transaction.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ztwin import safeout

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

    from ztwin.sweep.spec import Sweep

MARKER = ".ztwin-sweep"
JOURNAL = "runs.jsonl"
RESULTS = "results.parquet"
DESCRIPTION = "sweep.json"
MONWRITE_DIR = "monwrite"
TMP_DIR = ".tmp"
#: The history database's default path (``ztwin ingest``'s).
DEFAULT_DB = "ztwin.duckdb"  # = ztwin.history.DEFAULT_DB (not imported: keeps `ztwin --help` light)


class StoreError(Exception):
    """An output that cannot be written; the message names the path and the reason."""


# --------------------------------------------------------------------------
# Files (through ztwin.safeout: temporary file in the target's directory,
# renamed only over a regular file)
# --------------------------------------------------------------------------


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path in ``path``'s directory, renamed to ``path`` when the
    block ends without an error and removed otherwise."""
    try:
        out = safeout.OutputFile(path)
    except safeout.OutputError as e:
        raise StoreError(str(e)) from None
    with out:
        yield out.temp
        try:
            out.commit()
        except safeout.OutputError as e:
            raise StoreError(str(e)) from None


def write_text(path: str | os.PathLike[str], text: str) -> None:
    with atomic_file(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    with atomic_file(path) as tmp:
        tmp.write_bytes(data)


def write_parquet(path: str | os.PathLike[str], table: pa.Table) -> None:
    import pyarrow.parquet as pq

    with atomic_file(path) as tmp:
        pq.write_table(table, tmp)


def _check_target(path: Path) -> None:
    """Refuse to append to anything but a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(f"cannot write {path}: it exists and is not a regular file")


def prepare_out(out: str | os.PathLike[str], sweep: Sweep) -> Path:
    """Create or reopen a sweep's output directory. A directory that holds
    another sweep's results, or files not written by ``ztwin sweep``, is refused."""
    d = Path(out)
    ident = sweep.identity()
    if d.is_symlink() or (d.exists() and not d.is_dir()):
        raise StoreError(f"--out {d}: exists and is not a directory")
    if d.exists():
        marker = d / MARKER
        if marker.exists():
            try:
                doc = json.loads(marker.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise StoreError(f"--out {d}: unreadable {MARKER}: {e}") from None
            if not isinstance(doc, dict):
                raise StoreError(f"--out {d}: unreadable {MARKER}: not a JSON object")
            held = doc.get("identity")
            if held != ident:
                raise StoreError(
                    f"--out {d} holds the results of another sweep (base scenario, duration, window or metrics differ: "
                    f"{held} vs {ident}); choose another directory"
                )
        elif any(d.iterdir()):
            raise StoreError(f"--out {d} exists, is not empty and was not written by ztwin sweep; choose another directory")
    else:
        parent = d.parent if str(d.parent) else Path(".")
        if not parent.is_dir():
            raise StoreError(f"--out {d}: {parent} is not a directory")
        d.mkdir()
    if not (d / MARKER).exists():
        write_text(d / MARKER, json.dumps({"identity": ident, "written_by": "ztwin sweep"}) + "\n")
    write_text(d / DESCRIPTION, json.dumps(sweep.describe(), indent=2) + "\n")
    return d


class Journal:
    """``runs.jsonl``: one JSON line per finished run, appended and synced as
    each run finishes, so that an interrupted sweep resumes where it stopped.
    A last line cut short by a crash is ignored (and dropped on the next write)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / JOURNAL
        _check_target(self.path)
        self.done, good, size = self._read()
        if good != size:
            with open(self.path, "r+b") as f:
                f.truncate(good)
        self._f = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (closed in close())

    def _read(self) -> tuple[dict[str, dict[str, Any]], int, int]:
        """The runs in the file (the last line of a run wins), the bytes of
        whole lines, and the file's size."""
        done: dict[str, dict[str, Any]] = {}
        good = 0
        if not self.path.exists():
            return done, 0, 0
        data = self.path.read_bytes()
        for line in data.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break
            try:
                rec = json.loads(line)
            except ValueError:
                break
            # A line that is JSON but not a run record is damage too.
            if not isinstance(rec, dict) or not isinstance(rec.get("run_id"), str):
                break
            done[rec["run_id"]] = rec
            good += len(line)
        return done, good, len(data)

    def reread(self) -> dict[str, dict[str, Any]]:
        """The runs the file holds now: what a restart will find (an interrupt
        may land between writing a line and noting it in :attr:`done`)."""
        self.done = self._read()[0]
        return self.done

    def add(self, rec: dict[str, Any]) -> None:
        self._f.write(json.dumps(_jsonable(rec), sort_keys=True, allow_nan=False) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())
        self.done[rec["run_id"]] = rec

    def close(self) -> None:
        self._f.close()


def _jsonable(v: Any) -> Any:
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    return v


def monwrite_path(directory: Path, run_id: str) -> Path:
    return directory / MONWRITE_DIR / f"{run_id}.monwrite"


def tmp_dir(directory: Path) -> Path:
    t = directory / TMP_DIR
    t.mkdir(exist_ok=True)
    return t


# --------------------------------------------------------------------------
# The history database
# --------------------------------------------------------------------------

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS sweeps (
        sweep_id VARCHAR PRIMARY KEY,
        name VARCHAR,
        description VARCHAR,
        file VARCHAR,
        base VARCHAR,
        out_dir VARCHAR,
        params JSON,
        metrics JSON,
        seeds JSON,
        duration_s DOUBLE,
        window_from_s DOUBLE,
        window_to_s DOUBLE,
        runs INTEGER,
        spec JSON,
        updated TIMESTAMP
    )""",
    """CREATE TABLE IF NOT EXISTS sweep_runs (
        sweep_id VARCHAR,
        run_id VARCHAR,
        point INTEGER,
        seed BIGINT,
        params JSON,
        metrics JSON,
        wall_s DOUBLE,
        cpu_s DOUBLE,
        sim_wall_s DOUBLE,
        error VARCHAR,
        monwrite VARCHAR,
        PRIMARY KEY (sweep_id, run_id)
    )""",
]


def check_db(path: str | os.PathLike[str], open_it: bool = False) -> None:
    """Refuse a database path that cannot be one, before any run starts; with
    ``open_it``, an existing database is opened (and closed) to check it."""
    p = Path(path)
    if p.exists() and not p.is_file():
        raise StoreError(f"--db {p}: exists and is not a regular file")
    if not (p.parent if str(p.parent) else Path(".")).is_dir():
        raise StoreError(f"--db {p}: {p.parent} is not a directory")
    if open_it and p.exists():
        _connect(p).close()


def _connect(p: Path) -> duckdb.DuckDBPyConnection:
    """A connection to the history database through its documented way for
    other components (``ztwin.history.connect(path, create=True)``: created
    when missing, schema version checked)."""
    from ztwin import history

    try:
        return history.connect(p, create=True)
    except history.HistoryError as e:
        raise StoreError(f"--db {e}") from None


def open_db(path: str | os.PathLike[str]) -> duckdb.DuckDBPyConnection:
    """Open (or create) the history database with the sweep tables in it."""
    import duckdb

    p = Path(path)
    check_db(p)
    con = _connect(p)
    try:
        for stmt in _SCHEMA:
            con.execute(stmt)
    except duckdb.Error as e:
        con.close()
        raise StoreError(f"--db {p}: {str(e).splitlines()[0]}") from None
    return con


def store_db(path: str | os.PathLike[str], sweep: Sweep, out_dir: Path | None, records: Iterable[dict[str, Any]]) -> int:
    """Write the sweep and its finished runs into the database in one
    transaction (runs already there are replaced). Returns the rows written.
    A database this call created is removed again if the write fails."""
    import duckdb

    p = Path(path)
    created = not p.exists()
    ident = sweep.identity()
    desc = sweep.describe()
    rows = [
        (
            ident, r["run_id"], r["point"], r["seed"], json.dumps(_jsonable(r["params"])),
            json.dumps(_jsonable(r["metrics"])), r.get("wall_s"), r.get("cpu_s"), r.get("sim_wall_s"), r.get("error"), r.get("monwrite"),
        )
        for r in records
    ]  # fmt: skip
    try:
        con = open_db(p)
    except StoreError:
        if created:
            _remove_db(p)
        raise
    try:
        con.execute("BEGIN TRANSACTION")
        con.execute("DELETE FROM sweeps WHERE sweep_id = ?", [ident])
        con.execute(
            "INSERT INTO sweeps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now()::TIMESTAMP)",
            [
                ident, sweep.name, sweep.description, sweep.path, sweep.base_path,
                None if out_dir is None else str(out_dir.resolve()), json.dumps(desc["params"]),
                json.dumps(desc["metrics"]), json.dumps(sweep.seeds), sweep.duration_s, sweep.window.start_s,
                sweep.window.end_s, desc["runs"], json.dumps(desc),
            ],
        )  # fmt: skip
        if rows:
            con.execute("CREATE TEMP TABLE IF NOT EXISTS _new_runs AS SELECT * FROM sweep_runs LIMIT 0")
            con.execute("DELETE FROM _new_runs")
            con.executemany("INSERT INTO _new_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            con.execute(
                "DELETE FROM sweep_runs WHERE sweep_id = ? AND run_id IN (SELECT run_id FROM _new_runs)", [ident]
            )
            con.execute("INSERT INTO sweep_runs SELECT * FROM _new_runs")
        con.execute("COMMIT")
    except BaseException as e:
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")
        con.close()
        if created:
            _remove_db(p)
        if isinstance(e, duckdb.Error):
            raise StoreError(f"--db {p}: {str(e).splitlines()[0]}") from None
        raise
    con.close()
    return len(rows)


def _remove_db(p: Path) -> None:
    for f in (p, p.with_name(p.name + ".wal")):
        with contextlib.suppress(FileNotFoundError):
            f.unlink()


# --------------------------------------------------------------------------
# HTML directories
# --------------------------------------------------------------------------

PLOTLY_JS = "plotly.min.js"


def write_html_dir(target: str | os.PathLike[str], pages: dict[str, str], with_plotly: bool, owner: str) -> Path:
    """Write ``pages`` (file name -> HTML text) and, when asked, the plotly.js
    bundle into the directory ``target`` (:class:`ztwin.safeout.OutputDir`:
    a new, empty or ztwin-written directory; nothing half-written)."""
    try:
        out = safeout.OutputDir(target, owner=owner)
        with out:
            if with_plotly:
                import plotly.offline  # type: ignore[import-untyped]

                (out.stage / PLOTLY_JS).write_text(plotly.offline.get_plotlyjs(), encoding="utf-8")
            for name, text in pages.items():
                (out.stage / name).write_text(text, encoding="utf-8")
            return out.commit()
    except safeout.OutputError as e:
        raise StoreError(str(e)) from None
