"""Per-interval data kept as columns: Arrow record batches, spilled to disk.

The interval kernel (and the history database) hand over per-interval tables
as Arrow record batches. :class:`ColumnStore` keeps the batches of one table
as they are; beyond :data:`SPILL_BYTES` in memory, further batches go to an
anonymous temporary file (Arrow IPC messages) and are read back one at a time
when used, so the memory a long file's intervals take does not grow with the
file. On top of the stores:

* :class:`IntervalSeq` is ``Intervals.intervals``: a sequence of
  :class:`~ztwin.reports.core.SysInterval` made when read (the advisor, the
  studies and the sweeps read them one by one);
* :class:`SeriesMap` is ``Intervals.user_series`` (and the device and
  exposure series): ``key -> [(interval index, raw), ...]`` made when read;
* :func:`sys_chunks` and :func:`series_chunks` give the reports whole columns
  (:class:`~ztwin.reports.vmetrics.Sums`) a batch at a time, so that by-time
  reports are computed and written without a Python object per interval.
"""

from __future__ import annotations

import bisect
import os
import tempfile
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ztwin.reports.vmetrics import Sums

if TYPE_CHECKING:
    import pyarrow as pa

    from ztwin.reports.core import CompactRaw, Intervals, SysInterval

#: One row's sums as the series hand them out: read-only (a CompactRaw),
#: not the ``Raw`` dict a caller builds and fills.
RowSums = Mapping[str, float]

#: Bytes of record batches a store keeps in memory; later batches are spilled.
SPILL_BYTES = 4 << 20
#: Decoded batches (Python objects) kept per store for repeated access.
_DECODED = 2
#: Rows per stored batch (larger tables are sliced).
BATCH_ROWS = 2048


def f64(batch: pa.RecordBatch, name: str) -> np.ndarray | None:
    """A column as float64 (NaN for null), None when the batch has no such column."""
    i = batch.schema.get_field_index(name)
    if i < 0:
        return None
    return array_f64(batch.column(i))


_DTYPES = {"double": np.float64, "int64": np.int64, "uint64": np.uint64, "int32": np.int32}


def array_f64(arr: pa.Array) -> np.ndarray:
    """An Arrow float64/int64 array as float64 with NaN for nulls, read from
    its buffers (``to_numpy`` of an array with nulls would import pandas)."""
    n = len(arr)
    if n and arr.null_count == n:
        # all absent (a record the file does not have): no buffers to read
        # (a third of a report's sum columns; 20 us each through the bits)
        out = np.empty(n)
        out.fill(np.nan)
        return out
    dt = _DTYPES.get(str(arr.type))
    if dt is None:
        import pyarrow as pa

        return array_f64(arr.cast(pa.float64()))
    validity, data = arr.buffers()[:2]
    if data is None or n == 0:
        return np.full(n, np.nan)
    vals = np.frombuffer(data, dtype=dt, count=n, offset=arr.offset * np.dtype(dt).itemsize).astype(np.float64)
    if arr.null_count:
        bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        ok = bits[arr.offset:arr.offset + n].astype(bool)
        vals[~ok] = np.nan
    return vals


def i64(batch: pa.RecordBatch, name: str) -> np.ndarray:
    """An integer or timestamp column (64-bit, no nulls) as int64."""
    return array_i64(batch.column(batch.schema.get_field_index(name)))


def array_i64(arr: pa.Array) -> np.ndarray:
    """A 64-bit integer or timestamp array without nulls as int64 (from its
    buffers: ``to_numpy`` may import pandas)."""
    n = len(arr)
    data = arr.buffers()[1] if n else None
    if data is None or n == 0:
        return np.zeros(0, dtype=np.int64)
    return np.frombuffer(data, dtype=np.int64, count=n, offset=arr.offset * 8).copy()


def to_arrow(values: np.ndarray, typ: pa.DataType, mask: np.ndarray | None = None) -> pa.Array:
    """A numpy array of 8-byte numbers as an Arrow array of ``typ`` (int64,
    uint64, float64, timestamp), null where ``mask``. Built from buffers:
    ``pa.array`` would import pandas (half a second) to check the input."""
    import pyarrow as pa

    data = np.ascontiguousarray(values)
    nulls = 0 if mask is None else int(mask.sum())
    validity = pa.py_buffer(np.packbits(~mask, bitorder="little")) if nulls and mask is not None else None
    return pa.Array.from_buffers(typ, len(data), [validity, pa.py_buffer(data)], null_count=nulls)


def strings_to_arrow(values: Sequence[str | None]) -> pa.Array:
    """Python texts as an Arrow string array (None: null), from buffers."""
    import pyarrow as pa

    encoded = [b"" if v is None else v.encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    mask = np.array([v is None for v in values], dtype=bool)
    nulls = int(mask.sum())
    validity = pa.py_buffer(np.packbits(~mask, bitorder="little")) if nulls else None
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))],
                                 null_count=nulls)  # fmt: skip


def py_to_arrow(values: Sequence[Any], typ: pa.DataType) -> pa.Array:
    """Python values (ints, floats, texts, None) as an Arrow array of ``typ``."""
    import pyarrow as pa

    if pa.types.is_string(typ):
        return strings_to_arrow(values)
    mask = np.array([v is None for v in values], dtype=bool)
    dt = np.float64 if pa.types.is_floating(typ) else np.uint64 if pa.types.is_unsigned_integer(typ) else np.int64
    arr = np.array([0 if v is None else v for v in values], dtype=dt)
    return to_arrow(arr, typ, mask)


def _pool() -> pa.MemoryPool:
    """The memory pool of the stores' copies: the C library's allocator,
    which gives freed memory back (jemalloc and mimalloc, pyarrow's
    defaults, keep it: 13 MB more peak RSS on 2 GB)."""
    import pyarrow as pa

    return pa.system_memory_pool()


def _compact(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A copy of ``batch`` in buffers of its own (a slice holds its parent's)."""
    import pyarrow as pa

    return pa.concat_batches([batch, batch.slice(0, 0)], memory_pool=_pool())


class ColumnStore:
    """Append-only record batches of one table, in memory up to a budget and
    then in an anonymous temporary file (removed when the store is, or at
    exit, whatever happens)."""

    def __init__(self, budget: int | None = None, *, coalesce: bool = False) -> None:
        self.budget = SPILL_BYTES if budget is None else budget
        self.schema: pa.Schema | None = None
        self._mem: list[pa.RecordBatch | None] = []
        self._spilled: list[tuple[int, int] | None] = []
        self._starts: list[int] = []
        self._bound_list: list[tuple[int, int]] = []
        #: Rows appended (those still gathered for a whole batch included).
        self.rows = 0
        self._stored = 0
        self.mem_bytes = 0
        self.spilled_bytes = 0
        self._file: Any = None
        self._cache: dict[tuple[int, str], Any] = {}
        #: ``extend`` gathers small batches into batches of :data:`BATCH_ROWS`
        #: rows (copied together, so that a batch kept in memory holds only
        #: its own rows and the readers get whole batches).
        self.coalesce = coalesce
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0

    def append(self, batch: pa.RecordBatch) -> None:
        self._flush()
        self.rows += batch.num_rows
        self._store(batch)

    def _store(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        if self.schema is None:
            self.schema = batch.schema
        self._starts.append(self._stored)
        self._stored += batch.num_rows
        if "interval" in batch.schema.names:
            iv = batch.column("interval")
            self._bound_list.append((int(iv[0].as_py()), int(iv[-1].as_py())))
        if self.mem_bytes + batch.nbytes <= self.budget or not self._mem:
            if self.coalesce:
                batch = _compact(batch)  # kept: its own rows only, not the buffers it is a slice of
            self._mem.append(batch)
            self._spilled.append(None)
            self.mem_bytes += batch.nbytes
            return
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="ztwin-intervals-")
        buf = batch.serialize(memory_pool=_pool())
        off = self._file.seek(0, os.SEEK_END)
        self._file.write(memoryview(buf))
        self._file.flush()
        self._mem.append(None)
        self._spilled.append((off, buf.size))
        self.spilled_bytes += buf.size

    def extend(self, table: pa.Table | pa.RecordBatch) -> None:
        """Append a table's batches (or one batch), in slices of at most
        :data:`BATCH_ROWS` rows (what is decoded or spilled at a time)."""
        import pyarrow as pa

        batches = [table] if isinstance(table, pa.RecordBatch) else table.to_batches()
        for b in batches:
            if self.coalesce:
                self._gather(b)
                continue
            for off in range(0, b.num_rows, BATCH_ROWS):
                self.append(b.slice(off, BATCH_ROWS) if b.num_rows > BATCH_ROWS else b)

    def _gather(self, b: pa.RecordBatch) -> None:
        """Keep ``b`` until :data:`BATCH_ROWS` rows are gathered, then store
        them as whole batches (the rest waits for the next)."""
        if b.num_rows == 0:
            return
        if self._pending and self._pending[0].schema != b.schema:
            self._flush()
        if self.schema is None:
            self.schema = b.schema
        self.rows += b.num_rows
        self._pending.append(b)
        self._pending_rows += b.num_rows
        if self._pending_rows < BATCH_ROWS:
            return
        whole = self._joined()
        full = whole.num_rows - whole.num_rows % BATCH_ROWS
        for off in range(0, full, BATCH_ROWS):
            self._store(whole.slice(off, BATCH_ROWS))
        rest = whole.num_rows - full
        # the rest copied: a slice would keep all of ``whole`` alive
        self._pending = [_compact(whole.slice(full, rest))] if rest else []
        self._pending_rows = rest

    def _joined(self) -> pa.RecordBatch:
        """The gathered batches as one (copied together when more than one)."""
        if len(self._pending) == 1:
            return self._pending[0]
        import pyarrow as pa

        return pa.concat_batches(self._pending, memory_pool=_pool())

    def _flush(self) -> None:
        """Store the rows gathered so far (before any read)."""
        if not self._pending:
            return
        whole = self._joined()
        self._pending = []
        self._pending_rows = 0
        self._store(whole)

    @property
    def _bounds(self) -> list[tuple[int, int]]:
        """(first, last) interval index per stored batch."""
        self._flush()
        return self._bound_list

    def __len__(self) -> int:
        self._flush()
        return len(self._mem)

    def batch(self, i: int) -> pa.RecordBatch:
        self._flush()
        b = self._mem[i]
        if b is not None:
            return b
        import pyarrow as pa

        spill = self._spilled[i]
        assert spill is not None and self.schema is not None
        off, size = spill
        data = os.pread(self._file.fileno(), size, off)
        return pa.ipc.read_record_batch(pa.py_buffer(data), self.schema)

    def batches(self) -> Iterator[tuple[int, pa.RecordBatch]]:
        """(first row, batch) in order."""
        self._flush()
        for i in range(len(self._mem)):
            yield self._starts[i], self.batch(i)

    def locate(self, row: int) -> tuple[int, int]:
        """(batch number, row in the batch) of a row."""
        self._flush()
        if not 0 <= row < self.rows:
            raise IndexError(row)
        b = bisect.bisect_right(self._starts, row) - 1
        return b, row - self._starts[b]

    def batches_with_interval(self, index: int) -> list[int]:
        """The batches that can hold rows of interval ``index``."""
        return [i for i, (lo, hi) in enumerate(self._bounds) if lo <= index <= hi]

    def decoded(self, i: int, kind: str, make: Callable[[pa.RecordBatch], Any]) -> Any:
        """``make(batch i)``, kept for the next calls (the last few batches)."""
        key = (i, kind)
        got = self._cache.get(key)
        if got is None:
            got = make(self.batch(i))
            if len(self._cache) >= _DECODED:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = got
        return got

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def value_names(batch: pa.RecordBatch | pa.Schema) -> list[str]:
    """The sum columns of a per-interval batch (after ``flags``)."""
    names = batch.names if hasattr(batch, "names") else batch.schema.names
    return list(names[names.index("flags") + 1:])


def compact_rows(batch: pa.RecordBatch, schema: str) -> list[CompactRaw]:
    """Each row's sums as a :class:`~ztwin.reports.core.CompactRaw`."""
    from ztwin.reports.core import SCHEMAS, CompactRaw

    names = value_names(batch)
    n = batch.num_rows
    if n == 0:
        return []
    sch = SCHEMAS[schema]
    pos = [sch.pos(k) for k in names]
    mat = np.full((n, max(pos) + 1), np.nan)
    for j, k in zip(pos, names, strict=True):
        col = f64(batch, k)
        assert col is not None
        mat[:, j] = col
    out = []
    for i in range(n):
        a = array("d")
        a.frombytes(mat[i].tobytes())
        out.append(CompactRaw.wrap(a, schema))
    return out


def series_of(table: pa.Table, key_cols: list[str], schema: str) -> dict[Any, list[tuple[int, RowSums]]]:
    """``key -> [(interval index, raw), ...]`` of one per-interval table (a
    step's rows, for the advisor's figure sink)."""
    out: dict[Any, list[tuple[int, RowSums]]] = {}
    for b in table.to_batches():
        idx = b.column("interval").to_pylist()
        for i, key, raw in zip(idx, _keys(b, key_cols), compact_rows(b, schema), strict=True):
            out.setdefault(key, []).append((i, raw))
    return out


def _keys(batch: pa.RecordBatch, key_cols: Sequence[str]) -> list[Any]:
    cols = [batch.column(k).to_pylist() for k in key_cols]
    return cols[0] if len(cols) == 1 else list(zip(*cols, strict=True))


# --------------------------------------------------------------------------
# Intervals.intervals
# --------------------------------------------------------------------------


class IntervalSeq(Sequence["SysInterval"]):
    """``Intervals.intervals`` over column stores: the system rows, and the
    per-CPU and per-logical-CPU rows when kept (``detail``)."""

    def __init__(self, system: ColumnStore, cpu: ColumnStore | None = None, lpar: ColumnStore | None = None) -> None:
        self.system = system
        self.cpu = cpu
        self.lpar = lpar

    def __len__(self) -> int:
        return self.system.rows

    def _decode(self, batch: pa.RecordBatch) -> list[SysInterval]:
        from ztwin.reports.core import SysInterval

        raws = compact_rows(batch, "system")
        cols = [batch.column(k).to_pylist() for k in ("interval", "start_tod", "end_tod", "start", "end", "seconds")]
        return [SysInterval(*row, raw) for *row, raw in zip(*cols, raws, strict=True)]  # type: ignore[call-arg]

    def _detail(self, s: SysInterval) -> SysInterval:
        for store, attr, keys, schema in ((self.cpu, "cpus", ["cpu"], "cpu"),
                                          (self.lpar, "lpar", ["partition", "cpu"], "lpar")):  # fmt: skip
            if store is None:
                continue
            into = getattr(s, attr)
            for b in store.batches_with_interval(s.index):
                by = store.decoded(b, "by_interval", partial(_by_interval, key_cols=keys, schema=schema))
                for key, raw in by.get(s.index, ()):
                    into[key] = raw
        return s

    @overload
    def __getitem__(self, i: int) -> SysInterval: ...
    @overload
    def __getitem__(self, i: slice) -> list[SysInterval]: ...
    def __getitem__(self, i: int | slice) -> SysInterval | list[SysInterval]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        b, r = self.system.locate(i)
        s = self.system.decoded(b, "rows", self._decode)[r]
        return self._detail(_copy(s))

    def __iter__(self) -> Iterator[SysInterval]:
        for b in range(len(self.system)):
            for s in self.system.decoded(b, "rows", self._decode):
                yield self._detail(_copy(s))

    def __bool__(self) -> bool:
        return self.system.rows > 0

    def time(self, row: int, column: str) -> Any:
        """The ``start`` or ``end`` of one interval, without making it."""
        if row < 0:
            row += len(self)
        b, r = self.system.locate(row)
        return self.system.batch(b).column(column)[r].as_py()


def _copy(s: SysInterval) -> SysInterval:
    """A SysInterval of its own (callers may fill its dicts or cache metrics)."""
    from ztwin.reports.core import SysInterval

    return SysInterval(s.index, s.start_tod, s.end_tod, s.start, s.end, s.seconds, s.raw)


def _by_interval(batch: pa.RecordBatch, key_cols: list[str], schema: str) -> dict[int, list[tuple[Any, RowSums]]]:
    out: dict[int, list[tuple[Any, RowSums]]] = {}
    idx = batch.column("interval").to_pylist()
    for i, key, raw in zip(idx, _keys(batch, key_cols), compact_rows(batch, schema), strict=True):
        out.setdefault(i, []).append((key, raw))
    return out


# --------------------------------------------------------------------------
# Intervals.user_series / device_series / exposure_series
# --------------------------------------------------------------------------


class SeriesMap(Mapping[Any, list[tuple[int, "RowSums"]]]):
    """``key -> [(interval index, raw), ...]`` over a column store of
    per-interval rows (keys in first-seen order)."""

    def __init__(self, store: ColumnStore, key_cols: list[str], schema: str) -> None:
        self.store = store
        self.key_cols = key_cols
        self.schema = schema
        self._order: dict[Any, None] | None = None

    def _keys(self) -> dict[Any, None]:
        if self._order is None:
            order: dict[Any, None] = {}
            for _, b in self.store.batches():
                order.update(dict.fromkeys(_keys(b, self.key_cols)))
            self._order = order
        return self._order

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._keys()))

    def __len__(self) -> int:
        return len(self._keys())

    def __contains__(self, key: object) -> bool:
        return key in self._keys()

    def __getitem__(self, key: Any) -> list[tuple[int, RowSums]]:
        if key not in self._keys():
            raise KeyError(key)
        out: list[tuple[int, RowSums]] = []
        for _, b in self.store.batches():
            sub = _rows_of(b, self.key_cols, key)
            if sub is not None:
                out.extend(zip(sub.column("interval").to_pylist(), compact_rows(sub, self.schema), strict=True))
        return out

    def items(self) -> Iterator[tuple[Any, list[tuple[int, RowSums]]]]:  # type: ignore[override]
        out: dict[Any, list[tuple[int, RowSums]]] = {k: [] for k in self._keys()}
        for _, b in self.store.batches():
            idx = b.column("interval").to_pylist()
            for i, key, raw in zip(idx, _keys(b, self.key_cols), compact_rows(b, self.schema), strict=True):
                out[key].append((i, raw))
        return iter(out.items())

    def values(self) -> Iterator[list[tuple[int, RowSums]]]:  # type: ignore[override]
        return (v for _, v in self.items())


def _rows_of(batch: pa.RecordBatch, key_cols: list[str], key: Any) -> pa.RecordBatch | None:
    """The rows of one key, None when there are none."""
    import pyarrow as pa

    parts = (key,) if len(key_cols) == 1 else tuple(key)
    mask = np.ones(batch.num_rows, dtype=bool)
    for col, v in zip(key_cols, parts, strict=True):
        vals = batch.column(col).to_pylist()
        mask &= np.fromiter((x == v if v is not None else x is None for x in vals), dtype=bool, count=len(vals))
    if not mask.any():
        return None
    return batch.take(to_arrow(np.flatnonzero(mask).astype(np.int64), pa.int64()))


# --------------------------------------------------------------------------
# Columns for the reports
# --------------------------------------------------------------------------


@dataclass
class Chunk:
    """Consecutive rows as columns: the sums, and the rows' local start and
    end times (microseconds since 1970)."""

    n: int
    sums: Sums
    start_us: np.ndarray
    end_us: np.ndarray
    #: The names of the sums the rows can have.
    names: list[str]


#: Rows per chunk made from Python objects.
CHUNK = 2000


def _batch_chunk(b: pa.RecordBatch) -> Chunk:
    return Chunk(b.num_rows, Sums(b.num_rows, partial(f64, b)), i64(b, "start"), i64(b, "end"),
                 value_names(b))  # fmt: skip


def _us(dt: Any) -> int:
    from datetime import datetime, timedelta

    return int((dt - datetime(1970, 1, 1)) // timedelta(microseconds=1))


def _raw_chunk(raws: Sequence[Mapping[str, float]], starts: Sequence[Any], ends: Sequence[Any]) -> Chunk:
    n = len(raws)

    def col(k: str) -> np.ndarray:
        return np.array([r.get(k, np.nan) for r in raws], dtype=np.float64)

    names = list(dict.fromkeys(k for r in raws for k in r))
    return Chunk(n, Sums(n, col), np.array([_us(s) for s in starts], dtype=np.int64),
                 np.array([_us(e) for e in ends], dtype=np.int64), names)  # fmt: skip


def sys_chunks(iv: Intervals) -> Iterator[Chunk]:
    """The window's intervals as column chunks (system sums, start, end)."""
    seq = iv.intervals
    if isinstance(seq, IntervalSeq):
        for _, b in seq.system.batches():
            yield _batch_chunk(b)
        return
    for a in range(0, len(seq), CHUNK):
        part = seq[a:a + CHUNK]
        yield _raw_chunk([s.raw for s in part], [s.start for s in part], [s.end for s in part])


def series_chunks(iv: Intervals, attr: str, key: Any) -> Iterator[Chunk]:
    """One key's per-interval rows (``attr``: ``user_series``, ...) as column chunks."""
    series = getattr(iv, attr)
    if isinstance(series, SeriesMap):
        if key not in series:
            return
        for _, b in series.store.batches():
            sub = _rows_of(b, series.key_cols, key)
            if sub is not None:
                yield _batch_chunk(sub)
        return
    items = series.get(key, [])
    for a in range(0, len(items), CHUNK):
        part = items[a:a + CHUNK]
        ivs = [iv.intervals[i] for i, _ in part]
        yield _raw_chunk([r for _, r in part], [s.start for s in ivs], [s.end for s in ivs])


def fold(chunks: Iterator[Sums], names: Sequence[str]) -> dict[str, float]:
    """The columns of all chunks merged as one raw sum (``core.merged``:
    sums as a left fold in row order, ``min_``/``max_`` by extremes), absent
    ones left out."""
    from ztwin._native import fold_by_keys

    acc = {k: np.full(1, np.nan) for k in names}
    kinds = ["min" if k.startswith("min_") else "max" if k.startswith("max_") else "sum" for k in names]
    for s in chunks:
        codes = np.zeros(s.n, dtype=np.int64)
        fold_by_keys(codes, [s[k] for k in names], kinds, [acc[k] for k in names])
    return {k: float(a[0]) for k, a in acc.items() if not np.isnan(a[0])}


__all__ = ["SPILL_BYTES", "Chunk", "ColumnStore", "IntervalSeq", "SeriesMap", "compact_rows", "f64", "fold",
           "series_chunks", "sys_chunks"]  # fmt: skip
