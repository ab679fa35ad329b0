"""Partition and processor reports: LPARLOG (FCX202), PHYSLOG (FCX302),
PROCLOG (FCX144) and LSHARACT (FCX306).

LPARLOG, PHYSLOG and LSHARACT read only MRSYTCUG and the MRSYTCUP entries
of every partition (PR/SM's
dispatch time LCUCACTM and management time LCUCLPTM per logical processor,
the processor type as text): the data z/VM writes when the HMC lets a
partition see the others'. Without other partitions' data they list the own
partition only. PROCLOG reads z/VM's own processor records (SYTPRP, SYTSYP)
and its own partition's SYTCUP entries.

PHYSLOG's and LSHARACT's per-type capacity: the 5.x/6.x records give the number of physical
processors of all types together (SYTCUG_LCUTPCCT), not per type (MRSYTCUM,
from z/VM 6.3, does); so the per-type rows give engines used, and only the
"Total" row a percentage of the physical processors.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ztwin.reports import vmetrics
from ztwin.reports.common import MEAN, interval_column, new_report
from ztwin.reports.core import CPU_TYPES, Intervals
from ztwin.reports.metrics import pct, ratio
from ztwin.reports.model import ColumnRows, Labels, Report, RowChunk, Times
from ztwin.reports.text import NA, Column, Table
from ztwin.reports.vmetrics import Sums

LPARLOG_KEYS = [
    "interval_end", "partition", "number", "logical_cpus", "weight", "load_pct", "busy_pct",
    "ovhd_pct", "engines", "type", "interval_start", "seconds",
]  # fmt: skip

PHYSLOG_KEYS = [
    "interval_end", "type", "logical_cpus", "partitions", "engines", "mgmt_engines", "total_engines",
    "physical_cpus", "total_pct", "interval_start", "seconds",
]  # fmt: skip


def type_of(cfg: Any, pname: str, cpu: int) -> str:
    """A logical CPU's processor type as text (its SYTCUP entry's, else the
    partition's)."""
    info = cfg.lpars.get(pname, {})
    t = info.get("lcpus", {}).get(cpu, {}).get("cpu_type", info.get("cpu_type"))
    if isinstance(t, int):
        return str(CPU_TYPES.get(t, NA))
    return str(t) if t else NA


def _order(cfg: Any, names: set[str]) -> list[str]:
    return sorted(names, key=lambda p: (cfg.lpars.get(p, {}).get("number") or 0, p))


# --------------------------------------------------------------------------
# Periods as columns: the window (>>Mean>>), then the intervals a batch at a time
# --------------------------------------------------------------------------


@dataclass
class _Rows:
    """Per-key rows of a block of periods: the period each row belongs to
    (``pidx``), its partition (number into ``names``; -1 for CPU rows) and
    CPU, and its sums; in the order the rows were collected."""

    pidx: np.ndarray
    part: np.ndarray
    cpu: np.ndarray
    sums: Sums
    names: list[str]
    #: The names of the sums the rows can have.
    keys: list[str]

    @property
    def n(self) -> int:
        return len(self.pidx)

    def take(self, idx: np.ndarray) -> _Rows:
        src = self.sums
        return _Rows(self.pidx[idx], self.part[idx], self.cpu[idx], Sums(len(idx), lambda k: src[k][idx]), self.names,
                     self.keys)  # fmt: skip


@dataclass
class _Block:
    """``n`` consecutive periods: their end and start (:class:`Times`, or one
    value for all), elapsed seconds, and the per-CPU (SYTPRP/SYTSYP) and
    per-logical-CPU (SYTCUP) rows."""

    n: int
    end: Any
    start: Any
    seconds: np.ndarray
    cpus: _Rows
    lpar: _Rows

    def at(self, pidx: np.ndarray, col: Any) -> Any:
        """A period column (Times or a value) for rows of periods ``pidx``."""
        return Times(col.us[pidx]) if isinstance(col, Times) else col


def _dict_rows(items: Sequence[tuple[int, Any, Mapping[str, float]]], names: list[str]) -> _Rows:
    """Rows made of (period, key, raw) Python items; the key is a CPU or a
    (partition, CPU) pair."""
    n = len(items)
    pidx = np.fromiter((p for p, _, _ in items), dtype=np.int64, count=n)
    part = np.full(n, -1, dtype=np.int64)
    cpu = np.zeros(n, dtype=np.int64)
    codes: dict[str, int] = {nm: i for i, nm in enumerate(names)}
    for i, (_, key, _) in enumerate(items):
        if isinstance(key, tuple):
            part[i] = codes.setdefault(key[0], len(codes))
            cpu[i] = key[1]
        else:
            cpu[i] = key
    names[:] = list(codes)
    raws = [r for _, _, r in items]
    keys = list(dict.fromkeys(k for r in raws for k in r))
    return _Rows(pidx, part, cpu, Sums(n, lambda k: np.array([r.get(k, np.nan) for r in raws], dtype=np.float64)),
                 names, keys)  # fmt: skip


def _mean_block(iv: Intervals) -> _Block:
    sec = iv.total().get("seconds")
    return _Block(1, MEAN, None, np.array([np.nan if sec is None else sec], dtype=np.float64),
                  _dict_rows([(0, c, r) for c, r in iv.cpus.items()], []),
                  _dict_rows([(0, k, r) for k, r in iv.lpar.items()], []))  # fmt: skip


class _LastBatch:
    """The last batch a block read from each store: the next block starts in
    it (a block's rows seldom end at a batch's end), and a spilled batch is
    then not read back from the file again. One batch per store, dropped with
    the blocks."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[int, Any]] = {}

    def batch(self, store: Any, i: int) -> Any:
        got = self._kept.get(id(store))
        if got is not None and got[0] == i:
            return got[1]
        b = store.batch(i)
        self._kept[id(store)] = (i, b)
        return b


def _part_codes(arr: Any, codes: dict[str, int]) -> np.ndarray:
    """Each row's partition as a number (``codes``: name -> number; a
    batch's new names numbered in sorted order). Names of 1 to 8 bytes
    without NUL (LPAR names are 1 to 8 characters) are told apart as one
    integer each (their bytes), so only the distinct names become Python
    texts; other columns go row by row (not ``dictionary_encode``: it
    imports pyarrow.compute, a third of a second)."""
    n = len(arr)
    if n and arr.null_count == 0 and str(arr.type) == "string":
        _, obuf, dbuf = arr.buffers()[:3]
        off = np.frombuffer(obuf, dtype=np.int32, count=n + 1, offset=arr.offset * 4).astype(np.int64)
        lens = off[1:] - off[:-1]
        data = np.frombuffer(dbuf, dtype=np.uint8) if dbuf is not None else np.zeros(0, dtype=np.uint8)
        short, long_ = int(lens.min()), int(lens.max())
        if short >= 1 and long_ <= 8 and not (data[off[0]:off[-1]] == 0).any():
            mat = np.zeros((n, 8), dtype=np.uint8)
            if short == long_:  # names of one length (the usual case): the bytes as a matrix
                mat[:, :short] = data[off[0]:off[-1]].reshape(n, short)
            else:
                j = np.arange(8)
                take = j[None, :] < lens[:, None]
                mat[take] = data[(off[:-1, None] + j[None, :])[take]]
            key = mat.view(np.dtype("<u8")).reshape(n)  # little-endian on any machine, as to_bytes below
            u = _distinct(key)
            # a name's bytes are its key's without the NUL padding
            names = [int(k).to_bytes(8, "little").rstrip(b"\0").decode() for k in u.tolist()]
            return _numbered(names, codes)[np.searchsorted(u, key)]
    return _numbered(arr.to_pylist(), codes)


def _numbered(names: list[Any], codes: dict[str, int]) -> np.ndarray:
    """Each name's number in ``codes``, the names not in it yet numbered
    first, in sorted order (a batch's new names)."""
    for x in sorted(set(names)):
        codes.setdefault(x, len(codes))
    return np.array([codes[x] for x in names], dtype=np.int64)


def _store_rows(store: Any, ids: np.ndarray, key_part: bool, last: _LastBatch | None = None) -> _Rows:
    """The rows of a column store whose interval is one of ``ids`` (sorted),
    with ``pidx`` its position in ``ids``. When ``ids`` are consecutive and
    a batch's rows are in interval order (the kernel's), the rows wanted are
    found by two binary searches."""
    from ztwin.reports.store import array_i64, f64, value_names

    lo, hi = int(ids[0]), int(ids[-1])
    consecutive = hi - lo + 1 == len(ids)
    def read(i: int) -> Any:
        return store.batch(i) if last is None else last.batch(store, i)

    # (batch, rows, interval of each row): rows None when the batch (sliced
    # to them) is all rows wanted
    parts: list[tuple[Any, np.ndarray | None, np.ndarray]] = []
    if store is not None:
        for bi, (blo, bhi) in enumerate(store._bounds):
            if bhi < lo or blo > hi:
                continue
            b = read(bi)
            rows_iv = array_i64(b.column("interval"))
            if consecutive and bool((rows_iv[1:] >= rows_iv[:-1]).all()):
                a, z = (int(x) for x in np.searchsorted(rows_iv, [lo, hi + 1]))
                if a < z:
                    parts.append((b if z - a == b.num_rows else b.slice(a, z - a), None, rows_iv[a:z]))
                continue
            pos = np.searchsorted(ids, rows_iv)
            ok = (pos < len(ids)) & (ids[np.minimum(pos, len(ids) - 1)] == rows_iv)
            idx = np.flatnonzero(ok)
            if not len(idx):
                continue
            if idx[-1] - idx[0] + 1 == len(idx):
                # a run of rows (the usual case: rows are in interval order):
                # a slice, so the columns below are read for these rows only
                sl = b if len(idx) == b.num_rows else b.slice(int(idx[0]), len(idx))
                parts.append((sl, None, rows_iv[int(idx[0]):int(idx[0]) + len(idx)]))
            else:
                parts.append((b, idx, rows_iv[idx]))
    if not parts:
        return _no_rows()
    names: list[str] = []
    pidx, part, cpu = [], [], []
    codes: dict[str, int] = {}
    sizes = [b.num_rows if rows is None else len(rows) for b, rows, _ in parts]
    for (b, rows, iv_b), m in zip(parts, sizes, strict=True):
        pidx.append(iv_b - lo if consecutive else np.searchsorted(ids, iv_b))
        c = f64(b, "cpu")
        cpu.append(np.zeros(m, dtype=np.int64) if c is None else (c if rows is None else c[rows]).astype(np.int64))
        if key_part and rows is None:
            part.append(_part_codes(b.column("partition"), codes))
        elif key_part:
            assert rows is not None
            names_b = b.column("partition").to_pylist()
            part.append(_numbered([names_b[i] for i in rows.tolist()], codes))
        else:
            part.append(np.full(m, -1, dtype=np.int64))
    names.extend(codes)

    def col(k: str) -> np.ndarray | None:
        got = [f64(b, k) for b, _, _ in parts]
        if all(g is None for g in got):
            return None
        return np.concatenate([np.full(m, np.nan) if g is None else g if rows is None else g[rows]
                               for g, (_, rows, _), m in zip(got, parts, sizes, strict=True)])  # fmt: skip

    return _Rows(np.concatenate(pidx), np.concatenate(part), np.concatenate(cpu), Sums(sum(sizes), col), names,
                 value_names(parts[0][0]))  # fmt: skip


#: Intervals per block (a block's rows are computed and written together:
#: PROCLOG writes about ten rows per interval).
BLOCK = 256
#: Logical CPUs' rows per block of LPARLOG and PHYSLOG (they read those
#: rows only, two sums each, and write a few rows per interval): as many
#: intervals as hold about this many rows, from :data:`BLOCK` to 2,048 (a
#: stored batch of intervals); 2,048 intervals of a CEC of 8 logical CPUs.
LPAR_ROWS = 16384


def _no_rows() -> _Rows:
    e = np.zeros(0, dtype=np.int64)
    return _Rows(e, e, e, Sums(0, {}), [], [])


def _blocks(iv: Intervals, cpus: bool = True) -> Iterator[_Block]:
    """The window (``>>Mean>>``), then the intervals a batch at a time;
    without ``cpus`` the intervals' per-CPU rows are left empty (LPARLOG
    and PHYSLOG read the logical CPUs only: the per-CPU store is not read
    back for them)."""
    from ztwin.reports.store import IntervalSeq, array_f64, array_i64

    if not iv.intervals:
        return
    yield _mean_block(iv)
    seq = iv.intervals
    size = BLOCK
    if not cpus and len(seq):
        lpar_rows = seq.lpar.rows if isinstance(seq, IntervalSeq) and seq.lpar is not None else 0
        size = max(BLOCK, min(2048, LPAR_ROWS * len(seq) // max(1, lpar_rows)))
    if isinstance(seq, IntervalSeq):
        last = _LastBatch()
        for _, whole in seq.system.batches():
            for off in range(0, whole.num_rows, size):
                b = whole.slice(off, size)
                ids = array_i64(b.column("interval"))
                yield _Block(b.num_rows, Times(array_i64(b.column("end"))), Times(array_i64(b.column("start"))),
                             array_f64(b.column("seconds")),
                             _store_rows(seq.cpu, ids, False, last) if cpus else _no_rows(),
                             _store_rows(seq.lpar, ids, True, last))  # fmt: skip
        return
    from ztwin.reports.store import _us

    for a in range(0, len(seq), size):
        part = seq[a:a + size]
        yield _Block(len(part), Times(np.array([_us(s.end) for s in part], dtype=np.int64)),
                     Times(np.array([_us(s.start) for s in part], dtype=np.int64)),
                     np.array([s.seconds for s in part], dtype=np.float64),
                     _dict_rows([(i, c, r) for i, s in enumerate(part) for c, r in s.cpus.items()], []),
                     _dict_rows([(i, k, r) for i, s in enumerate(part) for k, r in s.lpar.items()], []))  # fmt: skip


def _fold_sums(codes: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    """Per group, ``0 + v1 + v2 + ...`` over its rows in row order (absent
    values count as 0.0), as Python's ``sum`` of ``raw.get(k) or 0.0``."""
    from ztwin._native import fold_by_keys

    out = np.zeros(groups)
    if len(codes):
        acc = np.full(groups, np.nan)
        # 0.0 + v: the sum starts at 0, so a first -0.0 counts as 0.0
        v = 0.0 + np.where(np.isnan(values), 0.0, values)
        fold_by_keys(np.ascontiguousarray(codes, dtype=np.int64), [np.ascontiguousarray(v)], ["sum"], [acc])
        out = np.where(np.isnan(acc), 0.0, acc)
    return out


def _merge_by(codes: np.ndarray, sums: Sums, names: Sequence[str], groups: int) -> Sums:
    """``core.merged`` of the rows of each group (row order), as columns;
    a column is folded when it is first read (PROCLOG reads 12 of the
    per-CPU store's 28), each on its own (a fold is per column)."""
    from ztwin._native import fold_by_keys

    have = set(names)
    keys = np.ascontiguousarray(codes, dtype=np.int64)

    def merged(k: str) -> np.ndarray | None:
        if k not in have:
            return None
        acc = np.full(groups, np.nan)
        if len(keys):
            kind = "min" if k.startswith("min_") else "max" if k.startswith("max_") else "sum"
            fold_by_keys(keys, [np.ascontiguousarray(sums[k])], [kind], [acc])
        return acc

    return Sums(groups, merged)


def _labels(codes: np.ndarray, values: Sequence[Any]) -> Labels:
    """Per row ``values[codes[i]]``."""
    return Labels(np.ascontiguousarray(codes, dtype=np.int64), list(values))


def _int_labels(values: np.ndarray) -> Labels:
    """Per row an integer (a count) as a Python int."""
    u, inv = np.unique(values, return_inverse=True)
    return _labels(inv.reshape(-1), u.tolist())


def lparlog(iv: Intervals, **_: Any) -> Report:
    cfg = iv.config
    phys = cfg.physical_cpus
    table = Table(
        [
            interval_column(),
            Column("partition", ["", "Partition"], 9, None, left=True),
            Column("number", ["", "Nr."], 4, 0),
            Column("logical_cpus", ["", "#Proc"], 5, 0),
            Column("weight", ["", "Weight"], 6, 0, fmt=lambda v: "DED" if v == "DED" else ("" if v is None else str(v))),
            Column("load_pct", ["", "%Load"], 6, 1),
            Column("busy_pct", ["", "%Busy"], 6, 1),
            Column("ovhd_pct", ["", "%Ovhd"], 6, 1),
            Column("engines", ["", "Engines"], 7, 2),
            Column("type", ["", "Type"], 4, None),
        ]
    )
    rows = ColumnRows([], lambda: (c for blk in _blocks(iv, cpus=False)
                                   if (c := _lparlog_chunk(iv, blk)) is not None))  # fmt: skip
    return new_report(
        iv,
        "LPARLOG",
        "FCX202",
        "Logical Partition Activity Log",
        rows=rows,
        keys=LPARLOG_KEYS,
        table=table,
        pre_lines=[
            f"Partitions of the CEC, by interval (z/VM's own: {cfg.lpar_name or NA}); "
            f"{phys if phys is not None else NA} physical processors",
            "",
        ],
    )


def physlog(iv: Intervals, **_: Any) -> Report:
    cfg = iv.config
    phys = cfg.physical_cpus
    table = Table(
        [
            interval_column(),
            Column("type", ["", "Type"], 5, None, left=True),
            Column("partitions", ["", "Parts"], 5, 0),
            Column("logical_cpus", ["Logical", "Procs"], 7, 0),
            Column("engines", ["Dispatch", "Engines"], 8, 2),
            Column("mgmt_engines", ["LPAR Mgmt", "Engines"], 9, 2),
            Column("total_engines", ["Total", "Engines"], 8, 2),
            Column("physical_cpus", ["Phys", "Procs"], 5, 0),
            Column("total_pct", ["Total", "%Phys"], 6, 1),
        ]
    )
    rows = ColumnRows([], lambda: (c for blk in _blocks(iv, cpus=False)
                                   if (c := _physlog_chunk(iv, blk)) is not None))  # fmt: skip
    return new_report(
        iv,
        "PHYSLOG",
        "FCX302",
        "Real CPU Utilization Log",
        rows=rows,
        keys=PHYSLOG_KEYS,
        table=table,
        post_lines=[
            "",
            "Engines: processor time per second of elapsed time (1.00 = one physical processor kept busy).",
            "The records before z/VM 6.3 give the physical processors of all types together: %Phys only",
            "for the total.",
        ],
    )


def _unique_rows(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[list[tuple[int, int, int]], np.ndarray]:
    """``np.unique(np.stack([a, b, c], axis=1), axis=0, return_inverse=True)``
    as (the distinct rows as tuples, each row's number among them): the
    three columns packed into one integer (21 bits each, same order) when
    they fit, instead of the sort of a structured view (a fifth of
    LPARLOG's time)."""
    lim = 1 << 21
    if len(a) and min(a.min(), b.min(), c.min()) >= 0 and max(a.max(), b.max(), c.max()) < lim:
        key = (a << 42) | (b << 21) | c
        s = np.sort(key)
        u = s[np.r_[True, s[1:] != s[:-1]]]
        inv = np.searchsorted(u, key)
        return [(k >> 42, (k >> 21) & (lim - 1), k & (lim - 1)) for k in u.tolist()], inv
    rows, inv = np.unique(np.stack([a, b, c], axis=1), axis=0, return_inverse=True)
    return [tuple(r) for r in rows.tolist()], inv.reshape(-1)


def _distinct(a: np.ndarray) -> np.ndarray:
    """The distinct values of ``a``, sorted: ``np.unique(a)`` without its
    first-call import of ``numpy.ma`` (20 ms, for its masked-array check)."""
    s = np.sort(a)
    return s[np.r_[True, s[1:] != s[:-1]]] if len(s) else s


def _group_ids(keys: list[np.ndarray]) -> tuple[np.ndarray, int]:
    """(group of each row, groups) of rows sorted by ``keys``: runs of equal keys."""
    n = len(keys[0])
    new = np.ones(n, dtype=bool)
    if n:
        same = np.ones(n - 1, dtype=bool)
        for k in keys:
            same &= k[1:] == k[:-1]
        new[1:] = ~same
    return np.cumsum(new) - 1, int(new.sum())


def _period_cols(blk: _Block, pidx: np.ndarray) -> dict[str, Any]:
    return {"interval_end": blk.at(pidx, blk.end), "interval_start": blk.at(pidx, blk.start),
            "seconds": blk.seconds[pidx]}  # fmt: skip


def _lparlog_chunk(iv: Intervals, blk: _Block) -> RowChunk | None:
    """LPARLOG's rows of a block: per period, each partition (by number,
    then name) with its logical CPUs' dispatch and overhead time summed in
    CPU order."""
    cfg = iv.config
    phys = cfg.physical_cpus
    L = blk.lpar
    if L.n == 0:
        return None
    rank_of = {nm: i for i, nm in enumerate(sorted(L.names, key=lambda p: (cfg.lpars.get(p, {}).get("number") or 0, p)))}
    rank = np.array([rank_of[nm] for nm in L.names], dtype=np.int64)[L.part]
    order = np.lexsort((L.cpu, rank, L.pidx))  # rows by period, partition rank, CPU
    gid, groups = _group_ids([L.pidx[order], rank[order]])
    first = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
    disp = _fold_sums(gid, L.sums["dispatch"][order], groups)
    ovhd = _fold_sums(gid, L.sums["overhead"][order], groups)
    n = np.bincount(gid, minlength=groups).astype(np.float64)
    gpidx = L.pidx[order][first]
    gpart = L.part[order][first]
    gcpu0 = L.cpu[order][first]
    seconds = blk.seconds[gpidx]
    # the configuration columns of each (partition, first CPU, CPUs)
    ukeys, ginv = _unique_rows(gpart, gcpu0, n.astype(np.int64))
    info_rows = []
    for p, c0, k in ukeys:
        pname = L.names[p]
        info = cfg.lpars.get(pname, {})
        w = info.get("lcpus", {}).get(c0, {}).get("weight") or info.get("weight")
        info_rows.append((pname, info.get("number"), info.get("logical_cpus", k), "DED" if info.get("dedicated") else w,
                          type_of(cfg, pname, c0)))  # fmt: skip
    V = vmetrics.V
    with np.errstate(all="ignore"):
        has_s = V.truthy(seconds)
        cols: dict[str, Any] = {
            "partition": _labels(ginv, [r[0] for r in info_rows]),
            "number": _labels(ginv, [r[1] for r in info_rows]),
            "logical_cpus": _labels(ginv, [r[2] for r in info_rows]),
            "weight": _labels(ginv, [r[3] for r in info_rows]),
            "load_pct": (np.where(has_s, V.pct(disp, seconds * phys), np.nan) if phys
                         else np.full(groups, np.nan)),  # fmt: skip
            "busy_pct": np.where(has_s, V.pct(disp, seconds * n), np.nan),
            "ovhd_pct": np.where(has_s, V.pct(ovhd, seconds * n), np.nan),
            "engines": V.ratio(disp, seconds),
            "type": _labels(ginv, [r[4] for r in info_rows]),
        }
    cols.update(_period_cols(blk, gpidx))
    return RowChunk(groups, {k: cols[k] for k in LPARLOG_KEYS})


def _physlog_chunk(iv: Intervals, blk: _Block) -> RowChunk | None:
    """PHYSLOG's rows of a block: per period, each processor type (sorted)
    with its logical CPUs' dispatch and management time summed in row order,
    then the ``Total`` line (the types' sums added in type order)."""
    cfg = iv.config
    phys = cfg.physical_cpus
    L = blk.lpar
    if L.n == 0:
        return None
    # each row's processor type, as a number into the sorted type names
    pair = L.part * (1 << 32) + L.cpu
    upair, inv = np.unique(pair, return_inverse=True)
    tnames_of = [type_of(cfg, L.names[int(u >> 32)], int(u - ((u >> 32) << 32))) for u in upair.tolist()]
    types = sorted(set(tnames_of))
    tcode = np.array([types.index(t) for t in tnames_of], dtype=np.int64)[inv.reshape(-1)]
    T = len(types)
    key = L.pidx * T + tcode  # groups numbered by (period, type): sorted order
    ukey, g = np.unique(key, return_inverse=True)
    g = g.reshape(-1)
    G = len(ukey)
    d = _fold_sums(g, L.sums["dispatch"], G)
    m = _fold_sums(g, L.sums["overhead"], G)
    nt = np.bincount(g, minlength=G)
    gp = _distinct(g * (len(L.names) + 1) + L.part) // (len(L.names) + 1)
    parts_t = np.bincount(gp, minlength=G)
    gpidx, gtype = ukey // T, ukey % T
    # the Total line of each period: the types' sums in type order
    upidx, pg = np.unique(gpidx, return_inverse=True)
    pg = pg.reshape(-1)
    P = len(upidx)
    dt = _fold_sums(pg, d, P)
    mt = _fold_sums(pg, m, P)
    ntot = np.bincount(pg, weights=nt, minlength=P).astype(np.int64)
    pp = _distinct(L.pidx * (len(L.names) + 1) + L.part) // (len(L.names) + 1)
    parts_tot = np.bincount(np.searchsorted(upidx, pp), minlength=P)
    V = vmetrics.V
    allp = np.concatenate([gpidx, upidx])
    sec = blk.seconds[allp]
    with np.errstate(all="ignore"):
        de = V.ratio(np.concatenate([d, dt]), sec)
        me = V.ratio(np.concatenate([m, mt]), sec)
        tot = de + me
        total_pct = np.concatenate([np.full(G, np.nan), V.pct(tot[G:], np.float64(phys)) if phys else np.full(P, np.nan)])
    order = np.lexsort((np.concatenate([gtype, np.full(P, T)]), allp))
    tcodes = np.concatenate([gtype, np.full(P, T)])[order]
    cols: dict[str, Any] = {
        "type": _labels(tcodes, [*types, "Total"]),
        "logical_cpus": _int_labels(np.concatenate([nt, ntot])[order]),
        "partitions": _int_labels(np.concatenate([parts_t, parts_tot])[order]),
        "engines": de[order],
        "mgmt_engines": me[order],
        "total_engines": tot[order],
        "physical_cpus": _labels(tcodes == T, [None, phys]),
        "total_pct": total_pct[order],
    }
    cols.update(_period_cols(blk, allp[order]))
    return RowChunk(len(order), {k: cols[k] for k in PHYSLOG_KEYS})


# --------------------------------------------------------------------------
# PROCLOG (FCX144): processor activity by time
# --------------------------------------------------------------------------

PROCLOG_KEYS = [
    "interval_end", "cpu", "type", "busy_pct", "cp_pct", "emul_pct", "wait_pct", "sys_pct", "user_pct",
    "spin_pct", "susp_pct", "logld_pct", "ssch_rate", "page_rate", "interval_start", "seconds",
]  # fmt: skip


def _proclog_chunk(iv: Intervals, blk: _Block) -> RowChunk | None:
    """PROCLOG's rows of a block: per period with processor rows, the
    ``Mean`` line (the processors' sums merged in row order; %Susp and %LogLd
    when every processor has its own partition's SYTCUP entry) and each
    processor by address."""
    cfg = iv.config
    own = cfg.lpar_name
    C, L = blk.cpus, blk.lpar
    if C.n == 0:
        return None
    n = blk.n
    # each processor row's own-partition SYTCUP row (-1: none)
    lidx = np.full(C.n, -1, dtype=np.int64)
    if own is not None and own in L.names and L.n:
        mine = np.flatnonzero(L.part == L.names.index(own))
        lkey = L.pidx[mine] * (1 << 32) + L.cpu[mine]
        srt = np.argsort(lkey, kind="stable")
        ckey = C.pidx * (1 << 32) + C.cpu
        # the last of equal keys wins, as a dict keeps the last
        pos = np.searchsorted(lkey[srt], ckey, side="right") - 1
        hit = (pos >= 0) & (lkey[srt][np.maximum(pos, 0)] == ckey)
        lidx[hit] = mine[srt[pos[hit]]]
    has_l = lidx >= 0
    lsrc = L.sums
    lal = Sums(C.n, lambda k: np.where(has_l, lsrc[k][np.maximum(lidx, 0)] if L.n else np.nan, np.nan))
    V = vmetrics
    per_cpu = V.cpu_metrics(C.sums)
    susp, logld = V.zvm_view_of_lcpu(lal, C.sums)
    per_cpu["susp_pct"] = np.where(has_l, susp, np.nan)
    per_cpu["logld_pct"] = np.where(has_l, logld, np.nan)
    rows_per = np.bincount(C.pidx, minlength=n)
    mean_c = _merge_by(C.pidx, C.sums, C.keys, n)
    mean_l = _merge_by(C.pidx[has_l], Sums(int(has_l.sum()), lambda k: lal[k][has_l]), L.keys, n)
    all_l = (np.bincount(C.pidx[has_l], minlength=n) == rows_per) & (rows_per > 0)
    per_mean = V.cpu_metrics(mean_c)
    msusp, mlogld = V.zvm_view_of_lcpu(mean_l, mean_c)
    per_mean["susp_pct"] = np.where(all_l, msusp, np.nan)
    per_mean["logld_pct"] = np.where(all_l, mlogld, np.nan)
    present = np.flatnonzero(rows_per > 0)
    pidx = np.concatenate([present, C.pidx])
    sub = np.concatenate([np.full(len(present), -1, dtype=np.int64), C.cpu])
    order = np.lexsort((sub, pidx))
    src = np.concatenate([present, len(per_mean["busy_pct"]) + np.arange(C.n)])[order]
    # label 0 the Mean line, 1 + j the j-th processor address
    ucpu, cinv = np.unique(C.cpu, return_inverse=True)
    codes = np.concatenate([np.zeros(len(present), dtype=np.int64), 1 + cinv.reshape(-1)])[order]
    addrs = ucpu.tolist()
    types = [CPU_TYPES.get(t, NA) if (t := cfg.cpus.get(c)) is not None else NA for c in addrs]
    cols: dict[str, Any] = {"cpu": _labels(codes, ["Mean", *addrs]), "type": _labels(codes, ["", *types])}
    for k in PROCLOG_KEYS:
        if k in per_cpu:
            cols[k] = np.concatenate([per_mean[k], per_cpu[k]])[src]
    end = _period_cols(blk, pidx[order])
    cols["interval_end"], cols["interval_start"] = end["interval_end"], end["interval_start"]
    return RowChunk(len(order), {k: cols[k] for k in PROCLOG_KEYS})


def proclog(iv: Intervals, **_: Any) -> Report:
    """Each of z/VM's processors by interval (the window's ``>>Mean>>`` first),
    a ``Mean`` line over the processors before them: z/VM's busy, CP and
    emulation time, wait and spin (SYTPRP/SYTSYP) and, when the file has the
    own partition's SYTCUP entries, the time PR/SM did not dispatch the
    logical processor although z/VM had work for it (%Susp) and z/VM's busy
    over the time it was dispatched (%LogLd)."""
    cfg = iv.config
    table = Table(
        [
            interval_column(),
            Column("cpu", ["", "CPU"], 4, None, fmt=lambda v: "" if v is None else str(v)),
            Column("type", ["", "Type"], 4, None),
            Column("busy_pct", ["", "%CPU"], 5, 1),
            Column("cp_pct", ["", "%CP"], 5, 1),
            Column("emul_pct", ["", "%EMU"], 5, 1),
            Column("wait_pct", ["", "%WT"], 5, 1),
            Column("sys_pct", ["", "%SYS"], 5, 1),
            Column("user_pct", ["", "%USR"], 5, 1),
            Column("spin_pct", ["", "%SP"], 5, 1),
            Column("susp_pct", ["", "%Susp"], 5, 1),
            Column("logld_pct", ["", "%LogLd"], 6, 1),
            Column("ssch_rate", ["SSCH", "/s"], 6, 1),
            Column("page_rate", ["Pages", "/s"], 6, 1),
        ]
    )
    rows = ColumnRows([], lambda: (c for blk in _blocks(iv) if (c := _proclog_chunk(iv, blk)) is not None))
    return new_report(
        iv,
        "PROCLOG",
        "FCX144",
        "Processor Activity, by Time",
        rows=rows,
        keys=PROCLOG_KEYS,
        table=table,
        post_lines=[
            "",
            "%Susp: elapsed time PR/SM did not dispatch the logical processor while z/VM did not wait",
            "(from the own partition's SYTCUP entries); %LogLd: z/VM busy over the time not suspended.",
        ],
    )


# --------------------------------------------------------------------------
# LSHARACT (FCX306): logical partition share
# --------------------------------------------------------------------------

LSHARACT_KEYS = [
    "type", "partition", "number", "logical_cpus", "weight", "weight_share_pct", "entitlement",
    "engines", "busy_pct", "used_share_pct", "excess", "lpu_per_entitled", "pool", "seconds",
]  # fmt: skip


def _dedicated(cfg: Any, pname: str, cpu: int) -> bool:
    """A logical processor with weight 0 is dedicated: the weight of a shared
    one is 1 to 999 (SYTCUP_LCUCWGHT; the flag byte LCUCFLGS is not decoded)."""
    info = cfg.lpars.get(pname, {})
    if info.get("dedicated"):
        return True
    w = info.get("lcpus", {}).get(cpu, {}).get("weight", info.get("weight"))
    return bool(w == 0)


def lsharact(iv: Intervals, **_: Any) -> Report:
    """Each partition's share of its processor type over the window: its
    weight's share of the type's shared weights, what that entitles it to
    (engines) when the type's physical pool is known, the engines it used and
    its share of what the type's shared partitions used. The 5.x/6.x records
    give the physical processors of all types together (SYTCUG_LCUTPCCT): the
    pool of a type, and with it the entitlement, is known only when every
    logical processor of the CEC is of one type (pool = physical processors
    minus dedicated ones)."""
    cfg = iv.config
    phys = cfg.physical_cpus
    seconds = iv.total().get("seconds") if iv.intervals else None
    # (type, partition) -> [dispatch s, lpus, dedicated lpus, weight]
    acc: dict[tuple[str, str], list[Any]] = {}
    for (pname, cpu), raw in iv.lpar.items():
        t = type_of(cfg, pname, cpu)
        a = acc.setdefault((t, pname), [0.0, 0, 0, None])
        a[0] += raw.get("dispatch") or 0.0
        a[1] += 1
        if _dedicated(cfg, pname, cpu):
            a[2] += 1
        else:
            w = cfg.lpars.get(pname, {}).get("lcpus", {}).get(cpu, {}).get("weight")
            a[3] = w if w is not None else cfg.lpars.get(pname, {}).get("weight")
    types = sorted({t for t, _ in acc})
    single = len(types) == 1
    rows: list[dict[str, Any]] = []
    for t in types:
        parts = [p for tt, p in acc if tt == t]
        parts = _order(cfg, set(parts))
        shared = [p for p in parts if acc[(t, p)][2] == 0]
        wsum = sum(acc[(t, p)][3] or 0 for p in shared)
        used_shared = sum(acc[(t, p)][0] for p in shared)
        ded = sum(acc[(t, p)][2] for p in parts)
        pool = phys - ded if single and phys is not None else None
        total_used = 0.0
        for p in parts:
            disp, n, nded, w = acc[(t, p)]
            total_used += disp
            is_ded = nded == n
            wshare = None if is_ded or not wsum or w is None else 100.0 * w / wsum
            if is_ded:
                ent: float | None = float(n)
            else:
                ent = pool * wshare / 100.0 if pool is not None and wshare is not None else None
            eng = ratio(disp, seconds)
            rows.append(
                {
                    "type": t,
                    "partition": p,
                    "number": cfg.lpars.get(p, {}).get("number"),
                    "logical_cpus": n,
                    "weight": "DED" if is_ded else w,
                    "weight_share_pct": wshare,
                    "entitlement": ent,
                    "engines": eng,
                    "busy_pct": pct(disp, (seconds or 0) * n) if seconds else None,
                    "used_share_pct": None if is_ded else pct(disp, used_shared),
                    "excess": None if ent is None or eng is None else max(0.0, eng - ent),
                    "lpu_per_entitled": ratio(n, ent) if ent else None,
                    "pool": None,
                    "seconds": seconds,
                }
            )
        rows.append(
            {
                "type": t,
                "partition": "Total",
                "number": None,
                "logical_cpus": sum(acc[(t, p)][1] for p in parts),
                "weight": wsum or None,
                "weight_share_pct": 100.0 if wsum else None,
                "entitlement": None if pool is None else float(pool + ded),
                "engines": ratio(total_used, seconds),
                "busy_pct": None,
                "used_share_pct": 100.0 if used_shared else None,
                "excess": None,
                "lpu_per_entitled": None,
                "pool": pool,
                "seconds": seconds,
            }
        )
    table = Table(
        [
            Column("type", ["", "Type"], 4, None, left=True),
            Column("partition", ["", "Partition"], 9, None, left=True),
            Column("number", ["", "Nr."], 4, 0, fmt=lambda v: "" if v is None else str(v)),
            Column("logical_cpus", ["", "#LPU"], 4, 0),
            Column("weight", ["", "Weight"], 6, 0, fmt=lambda v: "DED" if v == "DED" else ("" if v is None else str(v))),
            Column("weight_share_pct", ["Weight", "%Share"], 6, 1),
            Column("entitlement", ["Entitl", "Engines"], 7, 2),
            Column("engines", ["Used", "Engines"], 7, 2),
            Column("busy_pct", ["LPU", "%Busy"], 5, 1),
            Column("used_share_pct", ["Used", "%Share"], 6, 1),
            Column("excess", ["Excess", "Engines"], 7, 2),
            Column("lpu_per_entitled", ["LPU per", "Entitl"], 7, 2),
        ]
    )
    pool_note = (
        f"Physical processors of the CEC: {phys if phys is not None else NA} (all types together); "
        + ("one processor type: entitlements computed" if single else "several types: per-type pools not in the records")
    )
    return new_report(
        iv,
        "LSHARACT",
        "FCX306",
        "Logical Partition Share",
        rows=rows,
        keys=LSHARACT_KEYS,
        table=table,
        pre_lines=[pool_note, ""],
        post_lines=[
            "",
            "Weight %Share: the partition's weight over the weights of the type's shared partitions.",
            "Used %Share: its dispatch time over the type's shared partitions' dispatch time; above its",
            "weight share it runs on capacity other partitions left unused. Excess: engines used above the",
            "entitlement. LPU per Entitl: logical processors per entitled engine (above 1: LPUs that can",
            "only run on capacity others do not use).",
        ],
        extra={"summary": {"physical_cpus": phys, "types": types, "entitlement_known": single and phys is not None}},
    )
