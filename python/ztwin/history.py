"""The monitor history: interval tables of many MONWRITE files, from any
number of systems, in one DuckDB database (``docs/history.md``).

>>> from ztwin import history                                   # doctest: +SKIP
>>> history.ingest("ztwin.duckdb", ["day1.monwrite", "day2.monwrite"])
>>> h = history.open("ztwin.duckdb")
>>> h.relation("system", system="ZVMPROD").aggregate("max(cpu_busy)")
>>> h.arrow("user", start="2024-03-01 00:00:00").to_pandas()

Each entity table (``system_intervals``, ``cpu_intervals``, ``lpar_intervals``,
``user_intervals``, ``device_intervals``, ``exposure_intervals``) holds one row
per interval and key, keyed by ``system`` and ``end_tod`` (the interval's end,
raw TOD clock) with the additive sums of the interval kernel
(``crates/ztwin-analysis``); ``files`` lists what was ingested. Ingesting is
one transaction per file: the same file twice adds nothing, a file that has
grown adds only its new intervals, damaged spans are skipped and reported.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager, suppress
import sys
import tempfile
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

    from ztwin.reports.core import Intervals
    from ztwin.reports.store import ColumnStore

#: The schema version this code writes; see docs/history.md ("Versions").
SCHEMA_VERSION = 2
DEFAULT_DB = "ztwin.duckdb"
ENTITIES = ("system", "cpu", "lpar", "user", "device", "exposure")
#: Key columns per entity (besides system and end_tod).
KEYS = {"system": [], "cpu": ["cpu"], "lpar": ["partition", "cpu"], "user": ["userid"], "device": ["devno"],
        "exposure": ["devno"]}  # fmt: skip
#: Intervals read per step while ingesting.
CHUNK = 500
#: Steps the ingest's kernel thread may have ready beyond the one it works on.
STEPS_AHEAD = 1
#: DuckDB's memory limit while ingesting (beyond it, it spills to disk).
INGEST_MEMORY = "256MB"
#: Rows of a DuckDB row group (its ``ROW_GROUP_SIZE``): an insert keeps the
#: row group it fills in memory uncompressed, then writes it compressed to
#: the database file.
ROW_GROUP_ROWS = 122_880
#: DuckDB's cache of the blocks the live entity's insert wrote, on top of the
#: row group it fills (:func:`_live_memory`).
LIVE_CACHE_MB = 32
#: DuckDB's threads while ingesting: its inserts read one Arrow stream at a
#: time, and a second thread cost about 10% more CPU for no shorter run
#: (BENCHMARKS.md, issue 11).
INGEST_THREADS = 1
#: DuckDB's memory limit and threads while a window's rows are streamed
#: into the reports (DuckDB otherwise keeps every block it read cached, up
#: to 80% of the machine's memory: the database's size). One thread: the
#: reports read its results one stream at a time, and a second thread cost
#: CPU for no shorter run (30-day reports 0.82-0.84 s CPU against
#: 0.86-0.92, all reports of 32 days 2.76-2.88 against 3.03-3.34 s;
#: BENCHMARKS.md, issue 11).
READ_MEMORY = "32MB"
READ_THREADS = 1
#: Rows per Arrow batch when the floating-point columns of a window are
#: folded into its totals (fewer, larger batches: less work per row in
#: Python; a batch of the user table's folded columns is about 2 MB).
FOLD_ROWS = 16384
#: The entity whose new rows go into the database as the kernel reads the
#: file (the largest table; the others are spooled first).
LIVE = "user"


class HistoryError(Exception):
    """A history database that cannot be used, or a request it cannot answer:
    the message names the database or the request and the reason."""


def table_name(entity: str) -> str:
    return f"{entity}_intervals"


# --------------------------------------------------------------------------
# Opening, creating, versions
# --------------------------------------------------------------------------


def _connect(path: str | os.PathLike[str], read_only: bool = False) -> duckdb.DuckDBPyConnection:
    import duckdb

    p = Path(path)
    if not p.exists():
        raise HistoryError(f"{path}: no such history database")
    if p.is_dir():
        raise HistoryError(f"{path}: is a directory, not a history database")
    try:
        return duckdb.connect(str(p), read_only=read_only)
    except (duckdb.Error, OSError) as e:
        raise HistoryError(f"{path}: cannot open the history database: {error_line(e)}") from None


def error_line(e: BaseException) -> str:
    """DuckDB's (or the system's) reason in one line: its message's first."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _run(con: duckdb.DuckDBPyConnection, sql: str, args: Sequence[Any] | None = None) -> None:
    """Execute a statement that returns no rows (and finish its result)."""
    con.execute(sql, args or []).fetchall()


def _one(con: duckdb.DuckDBPyConnection, sql: str, args: Sequence[Any] | None = None) -> Any:
    """The first row of a query (None without rows), its result finished."""
    rows = con.execute(sql, args or []).fetchall()
    return rows[0] if rows else None


def _version(con: duckdb.DuckDBPyConnection) -> int | None:
    rows = _one(con, 
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'ztwin_meta'"
    )
    if not rows or rows[0] == 0:
        return None
    v = _one(con, "SELECT value FROM ztwin_meta WHERE key = 'schema_version'")
    return int(v[0]) if v else None


def _create(con: duckdb.DuckDBPyConnection) -> None:
    """The tables of SCHEMA_VERSION (entity tables are created on the first
    ingest, from the kernel's Arrow schemas)."""
    _run(con, "CREATE TABLE ztwin_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    _run(con, "INSERT INTO ztwin_meta VALUES ('schema_version', ?), ('created_by', 'ztwin')", [str(SCHEMA_VERSION)])
    _run(
        con,
        "CREATE TABLE files (system VARCHAR, path VARCHAR, bytes BIGINT, head_sha256 VARCHAR, "
        "intervals_added BIGINT, first_end TIMESTAMP, last_end TIMESTAMP, damaged_spans BIGINT, "
        "damaged_bytes BIGINT, ingested_at TIMESTAMP, info JSON)"
    )
    _run(con, "CREATE TABLE damage (system VARCHAR, path VARCHAR, \"offset\" BIGINT, \"end\" BIGINT, "
                "kind VARCHAR, reason VARCHAR)")  # fmt: skip
    _migrate(con, 1)


def _migrate(con: duckdb.DuckDBPyConnection, v: int) -> None:
    """Bring a database of version ``v`` to SCHEMA_VERSION in place (one
    transaction): 1 -> 2 adds the z/OS tables (docs/history.md, "Versions")."""
    from ztwin import zos_tables

    _run(con, "BEGIN TRANSACTION")
    try:
        if v < 2:
            zos_tables.create_tables(con)
        _run(con, "UPDATE ztwin_meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION)])
        _run(con, "COMMIT")
    except BaseException:
        _run(con, "ROLLBACK")
        raise


#: The oldest version this code reads (a read-only open of an older one
#: does not migrate it: its tables are read as they are).
OLDEST_VERSION = 1


def _check_version(path: str | os.PathLike[str], v: int | None) -> None:
    if v is None:
        raise HistoryError(f"{path}: not a ztwin history database (no ztwin_meta table)")
    if v > SCHEMA_VERSION:
        raise HistoryError(
            f"{path}: written by a newer ztwin (history schema version {v}; this ztwin reads up to "
            f"{SCHEMA_VERSION}): upgrade ztwin"
        )
    if v < OLDEST_VERSION:  # pragma: no cover - no older version exists
        raise HistoryError(f"{path}: history schema version {v} is older than {OLDEST_VERSION} and cannot be migrated")


def connect(path: str | os.PathLike[str] = DEFAULT_DB, *, create: bool = False, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection to a history database, created when ``create`` and
    missing; raises :class:`HistoryError` for a database that cannot be opened,
    that is not a history database, or whose schema version is newer than this
    code's. Other components (sweeps) add their own tables through it:
    ``connect(path, create=True).execute("CREATE TABLE IF NOT EXISTS sweep_... (...)")``
    (docs/history.md, "Adding tables")."""
    fresh = create and not Path(path).exists()
    if fresh:
        import duckdb

        try:
            duckdb.connect(str(path)).close()
        except (duckdb.Error, OSError) as e:
            raise HistoryError(f"{path}: cannot create the history database: {error_line(e)}") from None
    con = _connect(path, read_only=read_only and not fresh)
    try:
        v = _version(con)
        if v is None and create and _is_empty(con):
            _create(con)
            v = SCHEMA_VERSION
        _check_version(path, v)
        if v is not None and v < SCHEMA_VERSION and not read_only:
            _migrate(con, v)
    except HistoryError:
        con.close()
        raise
    except Exception as e:  # duckdb.Error: a file that is not a database
        con.close()
        raise HistoryError(f"{path}: cannot read the history database: {error_line(e)}") from None
    return con


def _is_empty(con: duckdb.DuckDBPyConnection) -> bool:
    r = _one(con, "SELECT count(*) FROM information_schema.tables")
    return not r or r[0] == 0


# --------------------------------------------------------------------------
# Ingest
# --------------------------------------------------------------------------


@dataclass
class IngestResult:
    """What one file added."""

    path: str
    system: str
    intervals_added: int = 0
    intervals_skipped: int = 0
    rows_added: dict[str, int] = field(default_factory=dict)
    damage: list[dict[str, Any]] = field(default_factory=list)
    damage_count: int = 0

    def line(self) -> str:
        s = (f"{self.path}: system {self.system}: {self.intervals_added} interval(s) added, "
             f"{self.intervals_skipped} already stored")  # fmt: skip
        if self.damage_count:
            spans = ", ".join(f"{d['offset']}-{d['end']}" for d in self.damage[:5])
            more = f" (+{self.damage_count - 5} more)" if self.damage_count > 5 else ""
            s += f"; {self.damage_count} damaged byte range(s) skipped: {spans}{more}"
        return s


def _head_sha(path: str | Path) -> str:
    import hashlib

    import builtins

    with builtins.open(path, "rb") as f:
        return hashlib.sha256(f.read(1 << 16)).hexdigest()


def _system_of(info: Mapping[str, Any]) -> str | None:
    for rec in info.get("config", []):
        if rec["name"] == "MRMTRSYS":
            v = rec["fields"].get("MTRSYS_SYSTMID")
            if isinstance(v, str) and v.strip():
                return v.strip()
    return None


def _json_default(o: Any) -> Any:
    if isinstance(o, bytes):
        return o.hex()
    return str(o)


class _Progress:
    """A progress bar on stderr (bytes of the file read)."""

    def __init__(self, enabled: bool, total: int, label: str) -> None:
        self.enabled, self.total, self.label = enabled, max(total, 1), label
        self.last = -1

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        pct = min(100, int(100 * done / self.total))
        if pct != self.last:
            self.last = pct
            bar = "#" * (pct // 4)
            sys.stderr.write(f"\r{self.label[-40:]:<40} [{bar:<25}] {pct:3d}%")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def ingest_file(con: duckdb.DuckDBPyConnection, path: str | Path, *, system: str | None = None,
                progress: bool = False) -> IngestResult:
    """Ingest one file in one transaction (see :func:`ingest`); DuckDB's
    memory limit is :data:`INGEST_MEMORY` after it."""
    from ztwin._native import IntervalKernel

    k = IntervalKernel(str(path), None, None, "all", "all", "all")
    size = Path(path).stat().st_size
    bar = _Progress(progress, size, str(path))
    stored: set[int] | None = None
    sysid = system
    res = IngestResult(str(path), system or "?")
    failed: list[BaseException] = []  # what stopped the live rows' stream
    # The live entity's new rows go into the database while the kernel reads
    # (one INSERT streaming from its steps; DuckDB writes the row groups of
    # such a large insert to the database file before the commit, and its
    # memory stayed within INGEST_MEMORY on a 4 GB file); the other entities'
    # new rows are spooled to Arrow IPC stream files and moved in after it,
    # in the same transaction, one INSERT per table streaming its file.
    with tempfile.TemporaryDirectory(prefix="ztwin-ingest-") as spool:
        sink = _Spool(Path(spool))
        steps: Iterator[pa.Table | None] = iter(())
        try:
            # The first step here (its configuration names the system), the
            # others in a thread of its own (the kernel runs without the GIL),
            # which also cuts and spools each step's rows, while this one
            # inserts the live rows of the step before.
            more = k.step(CHUNK)
            tables, info, st = k.take(), k.info(), k.stats()
            if sysid is None:
                sysid = _system_of(info) or "UNKNOWN"
            res.system = sysid
            stored = _stored_ends(con, sysid)

            def step_rows(tables: dict[str, Any], st: Mapping[str, Any]) -> pa.Table | None:
                assert sysid is not None and stored is not None
                bar.update(min(size, st["groups"] * 4096 + st["records"] * 200))
                return _insert(sink, sysid, tables, stored, res)

            first = step_rows(tables, st)
            del tables  # (not kept alive through the inserts)
            if more:
                steps = _steps(k, step_rows)
            while first is None:  # up to the first step with new rows (a grown file's stored part)
                first = next(steps, _DONE)
            if first is _DONE:
                first = None

            def live(held: list[pa.Table]) -> Iterator[pa.RecordBatch]:
                try:
                    yield from held.pop().to_batches()  # (the first table not kept alive through the insert)
                    for t in steps:
                        if t is not None:
                            yield from t.to_batches()
                except BaseException as e:
                    failed.append(e)
                    raise

            assert sysid is not None
            lowered = False  # DuckDB's memory limit at the live insert's
            _run(con, "BEGIN TRANSACTION")
            try:
                if first is not None:
                    import pyarrow as pa

                    held, schema, first = [first], first.schema, None
                    lowered = True
                    # DuckDB's blocks from a pool it keeps instead of from its
                    # allocator, which returns freed memory to the system: the
                    # blocks the lower limit drops come back without page faults
                    # (4 GB: 1.79M minor faults and 4.4 s of system time without,
                    # 1.11M and 3.0 s with; BENCHMARKS.md)
                    _run(con, f"SET block_allocator_memory = '{INGEST_MEMORY}'")
                    _run(con, f"SET memory_limit = '{_live_memory(schema)}MiB'")
                    _store(con, table_name(LIVE), sysid, pa.RecordBatchReader.from_batches(schema, live(held)))
                    _run(con, f"SET memory_limit = '{INGEST_MEMORY}'")
                    lowered = False
                sink.close()
                for entity, f in sink.files.items():
                    _store(con, table_name(entity), sysid, _watched(_spooled_batches(f), failed))
                info = k.info()
                st = k.stats()
                res.damage = [dict(d) for d in st["damage"]]
                res.damage_count = st["damage_count"]
                for d in res.damage:
                    _run(con, "INSERT INTO damage VALUES (?, ?, ?, ?, ?, ?)",
                         [sysid, str(path), d["offset"], d["end"], d["kind"], d["reason"]])  # fmt: skip
                sys_rows = _one(con, "SELECT min(\"end\"), max(\"end\") FROM system_intervals WHERE system = ?",
                                [sysid]) if _has_table(con, "system_intervals") else (None, None)  # fmt: skip
                _run(
                    con,
                    "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, now()::TIMESTAMP, ?)",
                    [sysid, str(path), size, _head_sha(path), res.intervals_added, sys_rows[0] if sys_rows else None,
                     sys_rows[1] if sys_rows else None, st["damage_count"], st["damaged_bytes"],
                     json.dumps(_info_json(info), default=_json_default)],
                )  # fmt: skip
                _run(con, "COMMIT")
            except BaseException as e:
                _rollback(con)
                if lowered:  # (the connection may ingest another file)
                    with suppress(Exception):
                        _run(con, f"SET memory_limit = '{INGEST_MEMORY}'")
                with suppress(Exception):
                    con.unregister("ztwin_spool")
                if failed:  # the kernel's or the spool's error (or an interrupt), not DuckDB's report of it
                    raise failed[0] from None
                if isinstance(e, RuntimeError) and str(e) == "Query interrupted":
                    raise KeyboardInterrupt from None  # (DuckDB's report of a SIGINT during a statement)
                raise
        finally:
            if isinstance(steps, Generator):
                steps.close()
            sink.close()
            bar.update(size)
            bar.close()
    return res


def _live_memory(schema: pa.Schema) -> int:
    """DuckDB's memory limit (MB) while the live entity's rows stream in:
    the row group it fills (8 bytes a value, the system id's column
    included) and :data:`LIVE_CACHE_MB` for the blocks it wrote, which
    DuckDB otherwise keeps cached up to :data:`INGEST_MEMORY`, so that
    memory grew with the file (BASE_TABLE in ``duckdb_memory()``: 90 MB
    after 2 GB, 174 MB after 4 GB). Those blocks are in the database file
    already: dropping them writes nothing (BENCHMARKS.md, issue 11, branch
    ingest4)."""
    return ROW_GROUP_ROWS * 8 * (len(schema) + 1) // (1 << 20) + LIVE_CACHE_MB


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll the file's transaction back. When DuckDB's COMMIT fails (out of
    memory, disk full) DuckDB has rolled it back already and a ROLLBACK
    would fail with "no transaction is active", hiding the reason; after a
    write error DuckDB may have invalidated the database, and every
    statement, ROLLBACK included, fails with a FatalException. Either way
    the error being handled is the reason told: a ROLLBACK's own error is
    dropped (a transaction not committed adds nothing)."""
    import duckdb

    with suppress(duckdb.Error):
        _run(con, "ROLLBACK")


def storage_errors() -> tuple[type[BaseException], ...]:
    """DuckDB's errors that say the database could not take a file's rows
    (its memory limit, the disk, a failed commit, a database DuckDB
    invalidated after a write it could not finish): told as one line, not
    as a bug."""
    import duckdb

    return duckdb.OutOfMemoryException, duckdb.IOException, duckdb.TransactionException, duckdb.FatalException


def _store(con: duckdb.DuckDBPyConnection, name: str, sysid: str, reader: pa.RecordBatchReader) -> None:
    """Add the rows of ``reader`` to table ``name`` (created if missing), the
    system id as their first column."""
    con.register("ztwin_spool", reader)
    try:
        if _has_table(con, name):
            _add_new_columns(con, name, reader.schema)
            _run(con, f"INSERT INTO {name} BY NAME SELECT ?::VARCHAR AS system, * FROM ztwin_spool", [sysid])
        else:
            _run(con, f"CREATE TABLE {name} AS SELECT ?::VARCHAR AS system, * FROM ztwin_spool", [sysid])
    except BaseException:
        # (in the aborted transaction this fails too; the error that
        # aborted it is the one to tell, and the ROLLBACK drops the view)
        with suppress(Exception):
            con.unregister("ztwin_spool")
        raise
    con.unregister("ztwin_spool")


def _watched(reader: pa.RecordBatchReader, failed: list[BaseException]) -> pa.RecordBatchReader:
    """``reader``'s batches, an error in reading them kept in ``failed`` (DuckDB
    reports it as its own error: an interrupt would become an "internal
    error")."""
    import pyarrow as pa

    def batches() -> Iterator[pa.RecordBatch]:
        try:
            yield from reader
        except BaseException as e:
            failed.append(e)
            raise

    return pa.RecordBatchReader.from_batches(reader.schema, batches())


#: The end of :func:`_steps` (``next(steps, _DONE)``).
_DONE: Any = object()


def _steps(k: Any, work: Callable[[dict[str, Any], Mapping[str, Any]], Any]) -> Generator[Any, None, None]:
    """``work(tables, stats)`` of the kernel's next steps, each step read and
    worked on in a thread, one step ahead of the caller; the kernel's (and
    ``work``'s) errors are raised here."""
    import queue
    import threading

    q: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=STEPS_AHEAD)
    stop = threading.Event()

    def produce() -> None:
        try:
            more = True
            while more and not stop.is_set():
                more = k.step(CHUNK)
                q.put(("step", work(k.take(), k.stats())))
            q.put(("done", None))
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            q.put(("error", e))

    t = threading.Thread(target=produce, name="ztwin-ingest-kernel", daemon=True)
    t.start()
    try:
        while True:
            kind, item = q.get()
            if kind == "done":
                break
            if kind == "error":
                raise item
            yield item
    finally:
        stop.set()
        while t.is_alive():  # let the reader finish its step (it may wait to put one)
            try:
                q.get(timeout=0.1)
            except queue.Empty:
                pass
        t.join()


class _Spool:
    """Per-entity Arrow IPC stream files of the rows to add (uncompressed:
    writing them costs little beside the kernel)."""

    def __init__(self, d: Path) -> None:
        self.dir = d
        self.writers: dict[str, Any] = {}
        self.files: dict[str, Path] = {}

    def add(self, entity: str, t: pa.Table) -> None:
        import pyarrow as pa

        w = self.writers.get(entity)
        if w is None:
            f = self.dir / f"{entity}.arrows"
            w = self.writers[entity] = pa.ipc.new_stream(str(f), t.schema)
            self.files[entity] = f
        w.write_table(t)

    def close(self) -> None:
        for w in self.writers.values():
            w.close()
        self.writers.clear()


def _spooled_batches(f: Path) -> pa.RecordBatchReader:
    """The batches of a spool file, read in place through a read-only memory
    map (DuckDB's Arrow scan reads them without a copy), the map's pages
    before the batch handed out released as it goes (``MADV_DONTNEED``:
    resident memory stays about one batch, not the file; a page touched
    again is read again from the file, so a release never changes a value).
    512 MB ingested: about 4% less CPU than reading copies, 20-35 MB less
    peak RSS (BENCHMARKS.md, issue 11 at d7d2daa)."""
    import mmap

    import pyarrow as pa

    fd = os.open(str(f), os.O_RDONLY)
    try:
        m = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)
    src = pa.BufferReader(pa.py_buffer(m))
    stream = pa.ipc.open_stream(src)

    def batches() -> Iterator[pa.RecordBatch]:
        released = 0  # bytes of the map released so far
        end = 0  # where the batch handed out before ends
        for b in stream:
            start, end = end, src.tell()
            cut = start - start % mmap.PAGESIZE
            if cut > released and hasattr(m, "madvise"):  # (not on Windows)
                m.madvise(mmap.MADV_DONTNEED, released, cut - released)
                released = cut
            yield b

    return pa.RecordBatchReader.from_batches(stream.schema, batches())


def _info_json(info: Mapping[str, Any]) -> dict[str, Any]:
    """What the reports need besides the sums, as JSON (keys as text)."""
    out = dict(info)
    out["devices"] = {str(k): v for k, v in info["devices"].items()}
    out["exposures"] = {str(k): v for k, v in info["exposures"].items()}
    out["lpars"] = {
        name: {**lp, "lcpus": [[c, v] for c, v in lp["lcpus"].items()]} for name, lp in info["lpars"].items()
    }
    return out


def _info_from_json(d: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(d)
    out["devices"] = {int(k): v for k, v in d.get("devices", {}).items()}
    out["exposures"] = {int(k): v for k, v in d.get("exposures", {}).items()}
    out["lpars"] = {name: {**lp, "lcpus": {c: v for c, v in lp["lcpus"]}} for name, lp in d.get("lpars", {}).items()}
    out["cpu_types"] = [tuple(x) for x in d.get("cpu_types", [])]
    out["users"] = [tuple(x) for x in d.get("users", [])]
    return out


_DUCK_TYPES = {"double": "DOUBLE", "int64": "BIGINT", "int32": "INTEGER", "string": "VARCHAR", "bool": "BOOLEAN"}


def _add_new_columns(con: duckdb.DuckDBPyConnection, name: str, schema: pa.Schema) -> None:
    """Columns a newer ztwin's tables have (a sum the kernel learned to keep)
    added to a table an older one created: its earlier rows get NULL, the
    figure's value when a file has no data for it."""
    have = {r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [name]).fetchall()}  # fmt: skip
    for fld in schema:
        duck = _DUCK_TYPES.get(str(fld.type))
        if fld.name not in have and duck is not None:
            _run(con, f'ALTER TABLE {name} ADD COLUMN "{fld.name}" {duck}')


def _has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    r = _one(con, "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name])
    return bool(r and r[0])


def _stored_ends(con: duckdb.DuckDBPyConnection, system: str) -> set[int]:
    if not _has_table(con, "system_intervals"):
        return set()
    return {r[0] for r in con.execute("SELECT end_tod FROM system_intervals WHERE system = ?", [system]).fetchall()}


def _insert(sink: _Spool, system: str, tables: dict[str, Any], stored: set[int],
            res: IngestResult) -> pa.Table | None:
    """The rows of one step's intervals not stored yet (their end, ``end_tod``,
    not in ``stored``, which gains them), with each row's interval end and
    its order among the step's rows (``ord``: the kernel's first-seen order
    of keys within an interval), into ``sink`` (the system id is added when
    they move into the database); the :data:`LIVE` entity's returned
    instead (None: the step adds no interval). The rows are cut and shaped
    natively (``_native.ingest_rows``)."""
    from ztwin._native import ingest_rows
    from ztwin._tables import stream_table

    new, added, skipped = ingest_rows(tables, stored)
    res.intervals_added += added
    res.intervals_skipped += skipped
    if new is None:
        return None
    live = None
    for entity in ENTITIES:
        # every table gets its rows (a first ingest creates every table, empty or not)
        t = stream_table(new[entity])
        res.rows_added[entity] = res.rows_added.get(entity, 0) + t.num_rows
        if entity == LIVE:
            live = t
        else:
            sink.add(entity, t)
    return live


def ingest(db: str | Path, files: Iterable[str | Path], *, system: str | None = None, progress: bool = False,
           on_result: Callable[[IngestResult], None] | None = None) -> list[IngestResult]:
    """Add the interval tables of MONWRITE files to the history database
    ``db`` (created if missing). Each file is one transaction: a file that
    fails leaves the database as it was. Intervals of a system already stored
    (same end time) are skipped, so ingesting a file again adds nothing and a
    grown file adds its new intervals. ``system`` overrides the system id of
    the files (MTRSYS_SYSTMID). Raises :class:`HistoryError`, ``OSError`` or
    :class:`~ztwin.monitor.MonwriteError`."""
    con = connect(db, create=True)
    # DuckDB's own memory (the file's rows until the transaction commits)
    _run(con, f"SET memory_limit = '{INGEST_MEMORY}'")
    _run(con, f"SET threads = {INGEST_THREADS}")
    out = []
    try:
        for f in files:
            if Path(f).is_dir():
                raise IsADirectoryError(21, "Is a directory", str(f))
            try:
                r = ingest_file(con, f, system=system, progress=progress)
            except storage_errors() as e:
                raise HistoryError(f"{db}: cannot add {f}: {error_line(e)} (nothing added from it)") from None
            out.append(r)
            if on_result is not None:
                on_result(r)
    finally:
        con.close()
    return out


# --------------------------------------------------------------------------
# Reading: the Python API
# --------------------------------------------------------------------------


def _ts(v: str | datetime | None) -> datetime | None:
    if v is None or isinstance(v, datetime):
        return v
    from ztwin.reports.core import ReportError, TimeSpec

    try:
        t = TimeSpec.parse(v)
    except ReportError as e:
        raise HistoryError(str(e)) from None
    if t.when is None:
        raise HistoryError(f"{v!r}: give a date and time (YYYY-MM-DD HH:MM:SS) for a history database")
    return t.when


class History:
    """An open history database (:func:`open`)."""

    def __init__(self, path: str | os.PathLike[str], con: duckdb.DuckDBPyConnection) -> None:
        self.path = str(path)
        self.connection = con

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def systems(self) -> list[str]:
        if not _has_table(self.connection, "system_intervals"):
            return []
        return [r[0] for r in self.connection.execute(
            "SELECT DISTINCT system FROM system_intervals ORDER BY system").fetchall()]  # fmt: skip

    def files(self) -> pa.Table:
        return self.connection.sql("SELECT * EXCLUDE (info) FROM files ORDER BY ingested_at").arrow().read_all()

    def _where(self, system: str | None, start: str | datetime | None, end: str | datetime | None,
               alias: str = "") -> tuple[str, list[Any]]:  # fmt: skip
        a = f"{alias}." if alias else ""
        cond: list[str] = []
        args: list[Any] = []
        if system is not None:
            cond.append(f"{a}system = ?")
            args.append(system)
        s, e = _ts(start), _ts(end)
        if s is not None:
            cond.append(f"date_trunc('second', {a}start + INTERVAL 500 millisecond) >= ?")
            args.append(s)
        if e is not None:
            cond.append(f"date_trunc('second', {a}\"end\" + INTERVAL 500 millisecond) <= ?")
            args.append(e)
        return (" WHERE " + " AND ".join(cond) if cond else ""), args

    def relation(self, entity: str, system: str | None = None, start: str | datetime | None = None,
                 end: str | datetime | None = None) -> duckdb.DuckDBPyRelation:
        """The per-interval rows of ``entity`` (system, cpu, lpar, user,
        device, exposure) as a DuckDB relation, optionally for one system and
        the intervals between ``start`` and ``end`` (local times)."""
        if entity not in ENTITIES:
            raise HistoryError(f"unknown table {entity!r} (known: {', '.join(ENTITIES)})")
        name = table_name(entity)
        if not _has_table(self.connection, name):
            raise HistoryError(f"{self.path}: nothing ingested yet")
        if entity == "system":
            where, args = self._where(system, start, end)
            return self.connection.query(f"SELECT * FROM {name}{where} ORDER BY system, end_tod", params=args)
        where, args = self._where(system, start, end, "e")
        return self.connection.query(f"SELECT e.* FROM {name} e{where} ORDER BY e.system, e.end_tod, e.ord",
                                     params=args)  # fmt: skip

    def arrow(self, entity: str, system: str | None = None, start: str | datetime | None = None,
              end: str | datetime | None = None) -> pa.Table:
        """:meth:`relation` as an Arrow table."""
        return self.relation(entity, system, start, end).arrow().read_all()

    def info(self, system: str) -> dict[str, Any]:
        """The configuration the reports need (from the latest file of ``system``)."""
        r = _one(self.connection, 
            "SELECT info FROM files WHERE system = ? ORDER BY ingested_at DESC LIMIT 1", [system])  # fmt: skip
        if r is None:
            raise HistoryError(f"{self.path}: no system {system!r} (stored: {', '.join(self.systems()) or 'none'})")
        return _info_from_json(json.loads(r[0]))

    def resolve_system(self, system: str | None) -> str:
        systems = self.systems()
        if not systems:
            raise HistoryError(f"{self.path}: nothing ingested yet")
        if system is None:
            if len(systems) > 1:
                raise HistoryError(f"{self.path}: holds several systems ({', '.join(systems)}): choose one with --system")
            return systems[0]
        if system not in systems:
            raise HistoryError(f"{self.path}: no system {system!r} (stored: {', '.join(systems)})")
        return system

    def intervals(self, system: str | None = None, start: str | datetime | None = None,
                  end: str | datetime | None = None, *, detail: bool = False,
                  totals: Iterable[str] | None = None) -> Intervals:
        """The stored intervals of a window as the :class:`~ztwin.reports.core.Intervals`
        the reports and the advisor read (window totals summed in interval
        order, as from the file). ``totals``: the entities whose window totals
        are needed (default all; the reports that need none are faster).

        The rows come from DuckDB in batches of :data:`~ztwin.reports.store.BATCH_ROWS`
        straight into the reports' column stores (which spill beyond their
        budget), and the window totals are folded as they pass: memory does
        not grow with the window. Without ``detail`` only the system rows
        are read so; the other window totals are summed from DuckDB's rows
        (:meth:`_totals_sql`)."""
        sysid = self.resolve_system(system)
        where, args = self._where(sysid, start, end)
        ends = self.connection.query(f"SELECT end_tod FROM {table_name('system')}{where} ORDER BY end_tod",
                                     params=args).to_arrow_table().column(0).combine_chunks()  # fmt: skip
        if len(ends) == 0:
            raise HistoryError(f"{self.path}: no stored interval of system {sysid} between "
                               f"{start or 'the start'} and {end or 'the end'}")  # fmt: skip
        import duckdb

        try:
            with self._bounded():
                return self._intervals(sysid, start, end, ends, detail, totals)
        except (duckdb.OutOfMemoryException, OSError) as e:  # OSError: through Arrow's reader
            if "Out of Memory" not in str(e):
                raise
        # A table too wide for READ_MEMORY: read again without the bound.
        return self._intervals(sysid, start, end, ends, detail, totals)

    @contextmanager
    def _bounded(self) -> Iterator[None]:
        """:data:`READ_MEMORY` and at most :data:`READ_THREADS` for DuckDB
        (its settings as they were afterwards)."""
        con = self.connection
        threads = con.execute("SELECT current_setting('threads')").fetchall()[0][0]
        con.execute(f"SET memory_limit = '{READ_MEMORY}'")
        con.execute(f"SET threads = {min(int(threads), READ_THREADS)}")
        try:
            yield
        finally:
            con.execute("RESET memory_limit")
            con.execute("RESET threads")

    def _intervals(self, sysid: str, start: Any, end: Any, ends: pa.Array, detail: bool,
                   totals: Iterable[str] | None) -> Intervals:  # fmt: skip
        from ztwin.reports.core import Config, Intervals, Window, finish
        from ztwin.reports.store import IntervalSeq, SeriesMap

        info = self.info(sysid)
        win = Window.parse(_text(start), _text(end))
        iv = Intervals(f"{self.path} (system {sysid})", Config(), win)
        tot: dict[str, Any] = {}
        rw = self._rows_where(sysid, start, end, ends)
        rows, tot["system"], first, last = self._stream("system", sysid, start, end, ends, rw)
        assert first is not None and last is not None
        info["data_start_us"] = _us(first)
        info["data_end_us"] = _us(last)
        info["sets"] = rows.rows + 1
        info["stopped_early"] = False
        if detail:
            from ztwin.reports.core import SERIES

            cpu, tot["cpu"], _, _ = self._stream("cpu", sysid, start, end, ends, rw)
            lpar, tot["lpar"], _, _ = self._stream("lpar", sysid, start, end, ends, rw)
            iv.intervals = IntervalSeq(rows, cpu, lpar)
            for attr, ent, keys in SERIES:
                store, tot[ent], _, _ = self._stream(ent, sysid, start, end, ends, rw)
                setattr(iv, attr, SeriesMap(store, keys, ent))
        else:
            iv.intervals = IntervalSeq(rows)
            want = set(ENTITIES if totals is None else totals)
            for e in ENTITIES:
                if e != "system":
                    tot[e] = self._totals_sql(e, sysid, start, end, e in want, rw)
        finish(iv, tot, info)
        return iv

    def _rows_where(self, system: str, start: Any, end: Any, ends: pa.Array) -> tuple[str, list[Any]]:
        """The condition (alias ``e``) that picks the rows of the window's
        intervals (``ends``: their ``end_tod``, ascending) in any table. A
        row of any table carries its interval's start, end and ``end_tod``
        (the kernel's rows, :func:`_insert`), so when the window's intervals
        are all the system's intervals from its first ``end_tod`` to its
        last (no other interval ends between them: checked here), the
        window is that ``end_tod`` range, which DuckDB tests on the stored
        integer and prunes by its zone maps instead of computing two
        rounded times per row; else the times as :meth:`_where` gives them."""
        lo, hi = ends[0].as_py(), ends[-1].as_py()
        n = _one(self.connection, f"SELECT count(*) FROM {table_name('system')} "
                 "WHERE system = ? AND end_tod BETWEEN ? AND ?", [system, lo, hi])  # fmt: skip
        if n is not None and n[0] == len(ends):
            return " WHERE e.system = ? AND e.end_tod BETWEEN ? AND ?", [system, lo, hi]
        return self._where(system, start, end, "e")

    def _totals_sql(self, entity: str, system: str, start: Any, end: Any, wanted: bool = True,
                    rows_where: tuple[str, list[Any]] | None = None) -> pa.Table:  # fmt: skip
        """Window totals per key of ``entity``, as the kernel sums them (each
        sum a left fold over the intervals in time order, ``min_``/``max_``
        columns by minimum and maximum; keys in first-seen order).

        One ``GROUP BY`` the key gives the keys and the integer columns'
        totals: DuckDB sums integers exactly, which equals the kernel's fold
        in 64-bit floats whenever every partial sum is an integer below
        2**53; that holds when the column has no negative value in the
        window and its total is below 2**53 (checked per key; a column that
        fails is folded as below). The floating-point columns, whose sums
        depend on the order of the additions, are streamed from DuckDB as
        Arrow batches with each row's key as DuckDB's 64-bit hash of it (a
        number, read without converting texts; the keys' hashes checked to
        be distinct) and folded natively in row order
        (``ztwin._native.fold_by_keys``), which also gives the keys'
        first-seen order.

        The rows are read in the order they were stored, which is interval
        order unless files were ingested out of time order; the order is
        checked as the rows arrive, and if it is not (interval end, row
        order) the sums are made again from rows sorted by DuckDB."""
        import pyarrow as pa

        name = table_name(entity)
        keys = KEYS[entity]
        schema = self.connection.sql(f"SELECT * FROM {name} LIMIT 0").arrow().read_all().schema
        skip = {"system", "start", "end", "end_tod", "ord", "flags", *keys}
        vals = [f for f in schema if f.name not in skip]
        out_schema = pa.schema([schema.field(k) for k in keys] + vals)
        if not wanted:
            return pa.Table.from_batches([], schema=out_schema)
        where, args = rows_where or self._where(system, start, end, "e")
        g = self._grouped(name, keys, [f for f in vals if pa.types.is_integer(f.type)], where, args)
        folded = [f.name for f in vals if f.name not in g.exact]
        kinds = ["min" if v.startswith("min_") else "max" if v.startswith("max_") else "sum" for v in folded]
        if g.hashes is not None:
            cols = ", ".join([g.hash_sql, "e.end_tod", "e.ord", *(f'e."{c}"' for c in folded)])
            sql = f"SELECT {cols} FROM {name} e{where}"
            for ordered in (False, True):  # stored out of interval order: sorted by DuckDB
                fold = _HashFold(g.hashes, kinds)
                reader = self.connection.query(sql + (" ORDER BY e.end_tod, e.ord" if ordered else ""), params=args)
                if all(fold.add(b, check_order=not ordered) for b in reader.to_arrow_reader(FOLD_ROWS)):
                    break
            if fold.complete:
                return g.table(out_schema, fold.first_seen(), dict(zip(folded, fold.acc, strict=True)))
        # keys whose hashes collide (or rows whose key was not grouped): folded by the keys themselves
        cols = ", ".join(f'e."{c}"' for c in [*keys, "end_tod", "ord", *folded])
        sql = f"SELECT {cols} FROM {name} e{where}"
        for ordered in (False, True):
            kfold = _Fold(keys, folded)
            reader = self.connection.query(sql + (" ORDER BY e.end_tod, e.ord" if ordered else ""), params=args)
            if all(kfold.add(b, check_order=not ordered) for b in reader.to_arrow_reader(FOLD_ROWS)):
                break
        import numpy as np

        kfold._grow()
        rows = {k: r for r, k in enumerate(g.keys)}
        order = np.array([rows[k] for k in kfold.order], dtype=np.int64)
        by_row = {}
        for c, a in zip(folded, kfold.acc, strict=True):
            by_row[c] = np.full(len(g.keys), np.nan)
            by_row[c][order] = a
        return g.table(out_schema, order, by_row)

    def _grouped(self, name: str, keys: list[str], ints: list[pa.Field], where: str, args: list[Any]) -> _Grouped:
        """The keys of the window's rows (one ``GROUP BY``), their hashes,
        and the integer columns' totals that DuckDB sums exactly as the
        kernel's fold does (see :meth:`_totals_sql`)."""
        import numpy as np

        from ztwin.reports.store import array_f64, array_i64

        kcols = [f'e."{k}"' for k in keys]
        hash_sql = f"hash({', '.join(kcols)})" if keys else "0::UBIGINT"
        exprs = [*kcols, hash_sql]
        for f in ints:
            c = f'e."{f.name}"'
            if f.name.startswith(("min_", "max_")):
                exprs.append(f"{f.name[:3]}({c})::DOUBLE")
            else:
                exprs += [f"sum({c})::DOUBLE", f"min({c})"]
        group = " GROUP BY " + ", ".join(kcols) if keys else ""
        t = self.connection.query(f"SELECT {', '.join(exprs)} FROM {name} e{where}{group}",
                                  params=args).to_arrow_table()  # fmt: skip
        key_rows = zip(*(t.column(i).to_pylist() for i in range(len(keys))), strict=True) if keys else [()] * t.num_rows
        out = _Grouped(list(key_rows), hash_sql)
        hashes = array_i64(t.column(len(keys)).combine_chunks()).view(np.uint64)
        # (a set: np.unique loads numpy's lazily imported modules, 0.05 s)
        out.hashes = hashes if len(set(hashes.tolist())) == len(hashes) else None
        i = len(keys) + 1
        limit = float(2**53)
        for f in ints:
            v = array_f64(t.column(i).combine_chunks())
            ok = bool(np.all(np.isnan(v) | (np.abs(v) < limit)))
            if f.name.startswith(("min_", "max_")):
                i += 1
            else:
                low = array_f64(t.column(i + 1).combine_chunks())
                ok = ok and bool(np.all(np.isnan(low) | (low >= 0)))
                i += 2
            if ok:
                out.exact[f.name] = v
        return out

    def _stream(self, entity: str, system: str, start: Any, end: Any, ends: pa.Array,
                rows_where: tuple[str, list[Any]] | None = None,
                ) -> tuple[ColumnStore, pa.Table, datetime | None, datetime | None]:  # fmt: skip
        """The rows of ``entity`` in the window, in a column store in the
        kernel's per-interval layout (interval index, start, end, keys, flags,
        sums), batch by batch, and their window totals folded on the way;
        returns the store, the totals and the first and last row's end. The rows are
        read in the order they were stored and checked to be in (interval
        end, row) order; if they are not, they are read again sorted."""
        import numpy as np
        import pyarrow as pa

        from ztwin.reports.store import BATCH_ROWS, ColumnStore, to_arrow

        name = table_name(entity)
        if not _has_table(self.connection, name):
            raise HistoryError(f"{self.path}: table {name} is missing")
        where, args = rows_where or self._where(system, start, end, "e")
        sql = f"SELECT e.* FROM {name} e{where}"
        keys = KEYS[entity]

        stored = self.connection.query(f"SELECT * FROM {name} LIMIT 0").to_arrow_table().schema
        # the kernel's column order (built from the names: an empty batch
        # made from the schema would import pandas, 0.3 s)
        if entity == "system":
            head = ["start", "end", "start_tod", "end_tod", "flags"]
            order = [*head, *(c for c in stored.names if c not in head and c not in ("system", "ord"))]
        else:
            order = [c for c in stored.names if c not in ("system", "ord", "end_tod")]

        def layout(b: pa.RecordBatch, first: int) -> pa.RecordBatch:
            """The kernel's layout of one batch (``first``: its first row)."""
            if entity == "system":
                idx = to_arrow(np.arange(first, first + b.num_rows, dtype=np.uint64), pa.uint64())
            else:
                import pyarrow.compute as pc

                idx = pc.index_in(b.column("end_tod"), value_set=ends).cast(pa.uint64())
            b = b.select(order)
            return pa.RecordBatch.from_arrays([idx, *b.columns], names=["interval", *b.schema.names])

        vals = order[order.index("flags") + 1:]
        out_schema = pa.schema([stored.field(k) for k in [*keys, *vals]])
        for ordered in (False, True):
            got = ColumnStore()
            fold = _Fold(keys, vals)
            rows = 0
            first_end = last_end = None
            reader = self.connection.query(sql + (" ORDER BY e.end_tod, e.ord" if ordered else ""), params=args)
            for b in reader.to_arrow_reader(BATCH_ROWS):
                if b.num_rows == 0:
                    continue
                k = layout(b, rows)
                if not fold.add(b, check_order=not ordered, values=k):
                    break
                got.extend(k)
                rows += b.num_rows
                if first_end is None:
                    first_end = b.column("end")[0].as_py()
                last_end = b.column("end")[-1].as_py()
            else:
                return got, fold.table(out_schema), first_end, last_end
            got.close()
        raise AssertionError("unreachable: the sorted read is in order")


def _us(dt: datetime) -> int:
    return (dt - datetime(1970, 1, 1)) // timedelta(microseconds=1)


def _text(v: str | datetime | None) -> str | None:
    if v is None:
        return None
    if isinstance(v, datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S")
    return v


def open(path: str | os.PathLike[str] = DEFAULT_DB) -> History:  # noqa: A001 - the documented name
    """Open a history database for reading (and adding tables): raises
    :class:`HistoryError` when it is missing, unreadable or newer than this
    ztwin."""
    return History(path, connect(path))


# --------------------------------------------------------------------------
# Window totals from per-interval tables (sequential sums, as the kernel)
# --------------------------------------------------------------------------


def totals_from_intervals(tables: Mapping[str, pa.Table]) -> dict[str, pa.Table]:
    """Window totals per key from per-interval tables, summed in interval
    order exactly as the kernel sums them (``min_``/``max_`` columns by
    minimum/maximum; a native left fold); keys in first-seen order."""
    import numpy as np
    import pyarrow as pa

    from ztwin._native import fold_by_keys
    from ztwin.reports.store import array_f64, py_to_arrow

    out = {}
    for entity, t in tables.items():
        keys = KEYS[entity]
        vals = t.column_names[t.column_names.index("flags") + 1:]
        schema = pa.schema([t.schema.field(k) for k in [*keys, *vals]])
        if t.num_rows == 0:
            out[entity] = pa.Table.from_batches([], schema=schema)
            continue
        codes, uniq = _key_codes(t, keys)
        acc = [np.full(len(uniq), np.nan) for _ in vals]
        kinds = ["min" if v.startswith("min_") else "max" if v.startswith("max_") else "sum" for v in vals]
        fold_by_keys(codes, [array_f64(t.column(v).combine_chunks()) for v in vals], kinds, acc)
        arrays = [py_to_arrow([u[i] for u in uniq], t.schema.field(k).type) for i, k in enumerate(keys)]
        arrays += [_typed(a, t.schema.field(v).type) for v, a in zip(vals, acc, strict=True)]
        out[entity] = pa.Table.from_arrays(arrays, schema=schema)
    return out


@dataclass
class _Grouped:
    """The keys of a window's rows in one table (as DuckDB grouped them),
    their 64-bit hashes (None when two collide) and the integer columns'
    exact totals (float64 per key, NaN where a key has no value)."""

    keys: list[tuple[Any, ...]]
    hash_sql: str
    hashes: Any = None
    exact: dict[str, Any] = field(default_factory=dict)

    def table(self, schema: pa.Schema, order: Any, folded: Mapping[str, Any]) -> pa.Table:
        """The totals table: the keys in ``order`` (their rows here, in
        first-seen order), then every value column of ``schema`` from
        :attr:`exact` or ``folded`` (float64 per key row), in its type."""
        import pyarrow as pa

        from ztwin.reports.store import py_to_arrow

        nk = len(schema) - len(self.exact) - len(folded)
        arrays = [py_to_arrow([self.keys[r][i] for r in order], schema.field(i).type) for i in range(nk)]
        for f in list(schema)[nk:]:
            v = self.exact[f.name] if f.name in self.exact else folded[f.name]
            arrays.append(_typed(v[order], f.type))
        return pa.Table.from_arrays(arrays, schema=schema)


#: Slots of the table that finds a key's row from its hash (:func:`_slot_table`).
_SLOT_MASK = (1 << 16) - 1


def _slot_table(hashes: Any) -> tuple[Any, Any] | None:
    """(shift, table) such that ``table[(h >> shift) & _SLOT_MASK]`` is the
    row of hash ``h`` among ``hashes`` (16 bits of the hashes that differ
    for every key, a lookup several times faster than a binary search), or
    None when no such 16 bits are found (hundreds of keys or more)."""
    import numpy as np

    n = len(hashes)
    if n == 0 or n > 512:
        return None
    for shift in range(0, 49, 4):
        slots = (hashes >> np.uint64(shift)) & np.uint64(_SLOT_MASK)
        if len(set(slots.tolist())) == n:
            table = np.zeros(_SLOT_MASK + 1, dtype=np.int64)
            table[slots.astype(np.intp)] = np.arange(n, dtype=np.int64)
            return np.uint64(shift), table
    return None


class _HashFold:
    """Window totals of the floating-point columns folded from batches of
    (key hash, end_tod, ord, values...) rows as they come: sums a left fold
    in row order, ``min``/``max`` kinds by minimum and maximum (as
    :class:`_Fold`), per key row of :class:`_Grouped` (found by its hash);
    the key rows in first-seen order. ``complete`` is False when a row's
    hash is not a grouped key's (then nothing more is folded)."""

    def __init__(self, hashes: Any, kinds: list[str]) -> None:
        import numpy as np

        self.hashes = hashes
        self.sort = np.argsort(hashes, kind="stable")
        self.sorted = hashes[self.sort]
        self.lut = _slot_table(hashes)
        self.kinds = kinds
        self.acc = [np.full(len(hashes), np.nan) for _ in kinds]
        self.seen = np.zeros(len(hashes), dtype=bool)
        self.order: list[int] = []
        self.last: tuple[int, int] | None = None
        self.complete = True

    def add(self, batch: pa.RecordBatch, *, check_order: bool) -> bool:
        """Fold one batch; False, folding nothing, when ``check_order``
        finds its rows not in (end_tod, ord) order after the batches
        before."""
        import numpy as np

        from ztwin._native import fold_by_keys
        from ztwin.reports.store import array_f64, array_i64

        n = batch.num_rows
        if n == 0 or not self.complete:
            return True
        if check_order:
            end, ordc = array_i64(batch.column(1)), array_i64(batch.column(2))
            ok = (end[1:] > end[:-1]) | ((end[1:] == end[:-1]) & (ordc[1:] > ordc[:-1]))
            if not ok.all() or (self.last is not None and (int(end[0]), int(ordc[0])) <= self.last):
                return False
            self.last = (int(end[-1]), int(ordc[-1]))
        h = array_i64(batch.column(0)).view(np.uint64)
        if self.lut is not None:
            shift, table = self.lut
            codes = table[((h >> shift) & np.uint64(_SLOT_MASK)).astype(np.intp)]
        else:  # many keys: a binary search (about 45 ns a row)
            pos = np.minimum(np.searchsorted(self.sorted, h), max(len(self.sorted) - 1, 0))
            codes = self.sort[pos]
        if len(self.hashes) == 0 or not np.array_equal(self.hashes[codes], h):
            self.complete = False
            return True
        new = ~self.seen[codes]
        if new.any():
            for c in codes[new].tolist():
                if not self.seen[c]:
                    self.seen[c] = True
                    self.order.append(c)
        if self.kinds:
            fold_by_keys(codes, [array_f64(batch.column(3 + j)) for j in range(len(self.kinds))], self.kinds,
                         self.acc)  # fmt: skip
        return True

    def first_seen(self) -> Any:
        import numpy as np

        return np.array(self.order, dtype=np.int64)


class _Fold:
    """Window totals per key folded from batches of rows as they come (keys
    numbered in first-seen order; sums a left fold in row order,
    ``min_``/``max_`` columns by minimum and maximum: what
    :func:`totals_from_intervals` gives for the same rows at once)."""

    def __init__(self, keys: list[str], vals: list[str]) -> None:
        import numpy as np

        self.keys = keys
        self.vals = vals
        self.kinds = ["min" if v.startswith("min_") else "max" if v.startswith("max_") else "sum" for v in vals]
        self.seen: dict[Any, int] = {}
        self.order: list[tuple[Any, ...]] = []
        self.acc: list[Any] = [np.full(0, np.nan) for _ in vals]
        self.last: tuple[int, int] | None = None

    def add(self, batch: pa.RecordBatch, *, check_order: bool, values: pa.RecordBatch | None = None) -> bool:
        """Fold one batch (key and sum columns by name, from ``values`` when
        given, else from ``batch``); False, folding nothing, when
        ``check_order`` finds its rows not in (end_tod, ord) order after the
        batches before."""
        import numpy as np
        import pyarrow as pa

        from ztwin._native import fold_by_keys
        from ztwin.reports.store import array_f64, array_i64, i64, py_to_arrow

        n = batch.num_rows
        if n == 0:
            return True
        if check_order:
            end, ordc = i64(batch, "end_tod"), i64(batch, "ord")
            ok = (end[1:] > end[:-1]) | ((end[1:] == end[:-1]) & (ordc[1:] > ordc[:-1]))
            if not ok.all() or (self.last is not None and (int(end[0]), int(ordc[0])) <= self.last):
                return False
            self.last = (int(end[-1]), int(ordc[-1]))
        src = batch if values is None else values
        seen, order = self.seen, self.order
        if not self.keys:
            if not order:
                seen[()] = 0
                order.append(())
            codes = np.zeros(n, dtype=np.int64)
        elif len(self.keys) == 1:
            import pyarrow.compute as pc

            col = src.column(self.keys[0])
            for k in pc.unique(col).to_pylist():
                if k not in seen:
                    seen[k] = len(seen)
                    order.append((k,))
            known = py_to_arrow([o[0] for o in order], col.type)
            codes = array_i64(pc.index_in(col, value_set=known, skip_nulls=False).cast(pa.int64()))
        else:
            kt = list(zip(*(src.column(k).to_pylist() for k in self.keys), strict=True))
            for k in kt:
                if k not in seen:
                    seen[k] = len(seen)
                    order.append(k)
            codes = np.fromiter((seen[k] for k in kt), dtype=np.int64, count=n)
        self._grow()
        if self.vals:
            fold_by_keys(codes, [array_f64(src.column(v)) for v in self.vals], self.kinds, self.acc)
        return True

    def _grow(self) -> None:
        import numpy as np

        if self.acc and len(self.order) > len(self.acc[0]):
            self.acc = [np.concatenate([a, np.full(len(self.order) - len(a), np.nan)]) for a in self.acc]

    def table(self, schema: pa.Schema) -> pa.Table:
        """The totals: the key columns, then the sums (``schema``'s types)."""
        import pyarrow as pa

        from ztwin.reports.store import py_to_arrow

        self._grow()
        nk = len(self.keys)
        arrays = [py_to_arrow([r[i] for r in self.order], schema.field(i).type) for i in range(nk)]
        arrays += [_typed(a, schema.field(nk + j).type) for j, a in enumerate(self.acc)]
        return pa.Table.from_arrays(arrays, schema=schema)


def _key_codes(t: pa.Table, keys: list[str]) -> tuple[Any, list[tuple[Any, ...]]]:
    """Each row's key as a number 0.. in first-seen order, and the keys."""
    import numpy as np
    import pyarrow.compute as pc

    from ztwin.reports.store import array_i64

    n = t.num_rows
    if not keys:
        return np.zeros(n, dtype=np.int64), [()]
    if len(keys) == 1:
        col = t.column(keys[0]).combine_chunks()
        uniq = pc.unique(col)
        raw = array_i64(pc.index_in(col, value_set=uniq, skip_nulls=False).cast("int64"))
        # renumber in first-seen order (whatever order unique() gave)
        first = np.full(len(uniq), n, dtype=np.int64)
        np.minimum.at(first, raw, np.arange(n, dtype=np.int64))
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        values = uniq.to_pylist()
        return rank[raw], [(values[i],) for i in order]
    seen: dict[tuple[Any, ...], int] = {}
    cols = [t.column(k).to_pylist() for k in keys]
    codes = np.fromiter((seen.setdefault(kt, len(seen)) for kt in zip(*cols, strict=True)), dtype=np.int64, count=n)
    return codes, list(seen)


def _typed(a: Any, typ: pa.DataType) -> pa.Array:
    """Folded sums as an Arrow array of ``typ`` (integers stay integers), null where NaN."""
    import numpy as np
    import pyarrow as pa

    from ztwin.reports.store import to_arrow

    mask = np.isnan(a)
    # (built in the type when it is 64-bit: a cast imports pyarrow.compute, 0.1 s)
    if pa.types.is_integer(typ):
        ints = to_arrow(np.where(mask, 0, a).astype(np.int64), pa.int64(), mask)
        return ints if typ == pa.int64() else ints.cast(typ)
    floats = to_arrow(np.where(mask, 0.0, a), pa.float64(), mask)
    return floats if typ == pa.float64() else floats.cast(typ)


__all__ = [
    "DEFAULT_DB", "ENTITIES", "SCHEMA_VERSION", "History", "HistoryError", "IngestResult", "connect", "ingest",
    "open", "table_name", "totals_from_intervals",
]  # fmt: skip

