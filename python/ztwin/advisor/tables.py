"""Per-interval figures of users, devices and paging exposures, in bounded memory.

The advisor reasons over every interval of a file, and a day of a large system
has thousands of users in hundreds of intervals: held as dicts, their figures
took gigabytes. Here each interval's figures of one kind (users, devices,
exposures) are one :class:`FigureTable`: a key index and a float matrix (one
column per figure name). ``ztwin diagnose`` writes the tables of a file to a
:class:`FigureStore` (a temporary file) while the kernel reads it, and an
:class:`~ztwin.advisor.facts.Interval` holds only a lazy handle that loads its
table when a check asks for it (a few recently used tables stay in memory).
Memory therefore does not grow with the number of intervals.

A :class:`FigureTable` is a read-only mapping ``key -> {figure: value}`` (what
the checks and hand-built tests use), and answers the questions the checks ask
of every interval without building those dicts: :meth:`FigureTable.share`,
:meth:`FigureTable.keys_with_share`, :meth:`FigureTable.total`,
:meth:`FigureTable.top`, and :func:`sum_over` across intervals.
"""

from __future__ import annotations

import os
import tempfile
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

Figures = Mapping[str, Any]


class Catalog:
    """The figure names of one kind of table, the keys met so far (interned
    to integers) and which figures were integers (they come back as ints)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(dict.fromkeys(names))
        self.col = {n: i for i, n in enumerate(self.names)}
        self.keys: list[Hashable] = []
        self.ids: dict[Hashable, int] = {}
        self.ints: set[int] = set()

    def intern(self, key: Hashable) -> int:
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.keys)
            self.keys.append(key)
        return i


class FigureTable(Mapping[Any, Figures]):
    """One interval's figures of one kind: ``ids`` (indexes into the
    catalog's keys) and ``vals`` (one row per key, NaN where a figure is
    absent)."""

    __slots__ = ("cat", "ids", "vals")

    def __init__(self, cat: Catalog, ids: np.ndarray, vals: np.ndarray) -> None:
        self.cat = cat
        self.ids = ids
        self.vals = vals

    @classmethod
    def build(cls, cat: Catalog, rows: Mapping[Any, Figures]) -> FigureTable:
        n, k = len(rows), len(cat.names)
        ids = np.fromiter((cat.intern(key) for key in rows), dtype=np.int64, count=n)
        nan = float("nan")
        names = cat.names
        typed = [[figs.get(name, nan) for name in names] for figs in rows.values()]
        vals = np.array(typed, dtype=np.float64).reshape(n, k) if n else np.empty((0, k))
        for j in range(k):
            if j not in cat.ints and any(type(row[j]) is int for row in typed):
                cat.ints.add(j)
        return cls(cat, ids, vals)

    # -- the mapping ---------------------------------------------------------

    def _row(self, r: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        row = self.vals[r]
        ints = self.cat.ints
        for j, name in enumerate(self.cat.names):
            v = float(row[j])
            if v != v:
                continue
            out[name] = int(v) if j in ints and v.is_integer() else v
        return out

    def _index(self) -> dict[int, int]:
        return {int(i): r for r, i in enumerate(self.ids)}

    def __getitem__(self, key: Hashable) -> Figures:
        i = self.cat.ids.get(key)
        if i is not None:
            hit = np.nonzero(self.ids == i)[0]
            if hit.size:
                return self._row(int(hit[0]))
        raise KeyError(key)

    def __iter__(self) -> Iterator[Hashable]:
        keys = self.cat.keys
        return (keys[int(i)] for i in self.ids)

    def __len__(self) -> int:
        return int(self.ids.size)

    def __contains__(self, key: object) -> bool:
        i = self.cat.ids.get(key)
        return i is not None and bool(np.any(self.ids == i))

    def items(self) -> Iterator[tuple[Hashable, Figures]]:  # type: ignore[override]
        keys = self.cat.keys
        return ((keys[int(i)], self._row(r)) for r, i in enumerate(self.ids))

    def values(self) -> Iterator[Figures]:  # type: ignore[override]
        return (self._row(r) for r in range(len(self.ids)))

    # -- vectorised questions ------------------------------------------------

    def col(self, name: str) -> np.ndarray:
        """One figure of every key (NaN where absent)."""
        j = self.cat.col.get(name)
        if j is None:
            return np.full(len(self.ids), np.nan)
        return self.vals[:, j]

    def _keep(self, exclude: Iterable[Hashable]) -> np.ndarray:
        skip = [self.cat.ids[k] for k in exclude if k in self.cat.ids]
        if not skip:
            return np.ones(len(self.ids), dtype=bool)
        return ~np.isin(self.ids, skip)

    def share(self, count: str, exclude: Iterable[Hashable] = ()) -> float | None:
        """100 x sum(count) / sum(hf_queue) over the keys with hf_queue (the
        active users' share of samples in a state), ``exclude`` left out."""
        keep = self._keep(exclude)
        q = np.nan_to_num(self.col("hf_queue"))
        act = keep & (q != 0)
        den = float(q[act].sum())
        if not den:
            return None
        return 100.0 * float(np.nan_to_num(self.col(count))[act].sum()) / den

    def keys_with_share(self, count: str, at_least: float, exclude: Iterable[Hashable] = ()) -> list[Hashable]:
        """Keys whose own share of active samples in ``count`` is at least
        ``at_least`` percent, in the table's order."""
        q = np.nan_to_num(self.col("hf_queue"))
        c = np.nan_to_num(self.col(count))
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.where(q != 0, 100.0 * c / np.where(q != 0, q, 1.0), -1.0)
        hit = (q != 0) & (s >= at_least) & self._keep(exclude)
        keys = self.cat.keys
        return [keys[int(i)] for i in self.ids[hit]]

    def total(self, name: str) -> float | None:
        """The sum of a figure over the keys that have it (None if none has)."""
        v = self.col(name)
        have = ~np.isnan(v)
        return float(v[have].sum()) if have.any() else None

    def top(self, name: str, n: int) -> list[tuple[Hashable, Figures]]:
        """The ``n`` keys with the largest non-zero ``name``, largest first."""
        v = np.nan_to_num(self.col(name))
        order = [r for r in np.argsort(-v, kind="stable") if v[r]][:n]
        keys = self.cat.keys
        return [(keys[int(self.ids[r])], self._row(int(r))) for r in order]


def as_table(figures: Mapping[Any, Figures], cat: Catalog | None = None) -> FigureTable:
    """A :class:`FigureTable` of any mapping of figures (hand-built periods)."""
    if isinstance(figures, FigureTable):
        return figures
    if isinstance(figures, LazyTable):
        return figures.table
    names = list(dict.fromkeys(k for m in figures.values() for k in m))
    return FigureTable.build(cat or Catalog(names), figures)


def sum_over(
    tables: Iterable[tuple[Mapping[Any, Figures], float]],
    names: Sequence[str],
    exclude: Iterable[Hashable] = (),
    rate_names: Sequence[str] = (),
) -> dict[Hashable, dict[str, float]]:
    """Per key, the sums of ``names`` over (table, interval seconds) pairs,
    plus ``seconds`` (the seconds of the intervals the key was in) and, for
    each of ``rate_names``, ``NAME_x_s``: the figure times the interval's
    seconds (to turn per-second rates back into amounts). Keys in
    ``exclude`` are left out; keys are in order of first appearance."""
    skip = set(exclude)
    cols = (*names, *(f"{n}_x_s" for n in rate_names), "seconds")
    acc: dict[Any, np.ndarray] = {}  # per catalog: [keys x cols]
    seen: dict[Any, np.ndarray] = {}  # per catalog: first-seen rank of each key (-1: never)
    cats: dict[Any, Catalog] = {}
    rank = 0
    for figures, seconds in tables:
        t = as_table(figures)
        cid = id(t.cat)
        cats[cid] = t.cat
        n = len(t.cat.keys)
        a = acc.get(cid)
        if a is None or a.shape[0] < n:
            grown = np.zeros((max(n, 16), len(cols)))
            order = np.full(max(n, 16), -1, dtype=np.int64)
            if a is not None:
                grown[: a.shape[0]] = a
                order[: a.shape[0]] = seen[cid]
            a, acc[cid], seen[cid] = grown, grown, order
        ids = t.ids
        new = ids[seen[cid][ids] < 0]
        seen[cid][new] = np.arange(rank, rank + len(new))
        rank += len(new)
        for j, name in enumerate(names):
            np.add.at(a[:, j], ids, np.nan_to_num(t.col(name)))
        for j, name in enumerate(rate_names):
            np.add.at(a[:, len(names) + j], ids, np.nan_to_num(t.col(name)) * seconds)
        np.add.at(a[:, -1], ids, seconds)
    # Tables of one store share a catalog; hand-built ones each have their
    # own, so the same key can be in several: merge by key.
    merged: dict[Hashable, tuple[int, np.ndarray]] = {}
    for cid, a in acc.items():
        keys = cats[cid].keys
        order = seen[cid]
        for i in np.nonzero(order >= 0)[0]:
            key = keys[int(i)]
            if key in skip:
                continue
            had = merged.get(key)
            merged[key] = (int(order[i]), a[i].copy()) if had is None else (min(had[0], int(order[i])), had[1] + a[i])
    out = sorted(merged.items(), key=lambda kv: kv[1][0])
    return {key: {c: float(v[j]) for j, c in enumerate(cols)} for key, (_, v) in out}


class FigureStore:
    """Per-interval figure tables of one file in a temporary file: written
    once while the file is read, read back on demand (see the module
    documentation). The temporary directory goes when the store does."""

    #: Tables kept in memory after a read (most recently used).
    CACHE = 12

    def __init__(self, kinds: Mapping[str, Sequence[str]]) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="ztwin-figures-")
        self.cats = {k: Catalog(names) for k, names in kinds.items()}
        self._path = os.path.join(self._dir.name, "figures.bin")
        self._f = open(self._path, "w+b")  # noqa: SIM115 - kept open for reads; closed by close()
        self._index: dict[tuple[str, int], tuple[int, int]] = {}
        self._cache: OrderedDict[tuple[str, int], FigureTable] = OrderedDict()
        self._end = 0
        self._closer = weakref.finalize(self, FigureStore._cleanup, self._f, self._dir)

    @staticmethod
    def _cleanup(f: Any, d: tempfile.TemporaryDirectory[str]) -> None:
        f.close()
        d.cleanup()

    def close(self) -> None:
        self._closer()

    def put(self, kind: str, interval: int, rows: Mapping[Any, Figures]) -> None:
        """Store the figures of interval ``interval`` (key -> figures)."""
        t = FigureTable.build(self.cats[kind], rows)
        self.put_table(kind, interval, t.ids, t.vals)

    def put_table(self, kind: str, interval: int, ids: np.ndarray, vals: np.ndarray) -> None:
        """Store one interval's table already made: ``ids`` (int64 indexes
        into the kind's catalog) and ``vals`` (float64, one row per id, one
        column per figure name, NaN where absent)."""
        data = ids.astype(np.int64, copy=False).tobytes() + np.ascontiguousarray(vals, dtype=np.float64).tobytes()
        os.pwrite(self._f.fileno(), data, self._end)
        self._index[(kind, interval)] = (self._end, len(ids))
        self._end += len(data)

    def has(self, kind: str, interval: int) -> bool:
        return (kind, interval) in self._index

    def table(self, kind: str, interval: int) -> FigureTable:
        """The table of one interval (empty if none was stored)."""
        key = (kind, interval)
        t = self._cache.get(key)
        if t is not None:
            self._cache.move_to_end(key)
            return t
        cat = self.cats[kind]
        where = self._index.get(key)
        if where is None:
            t = FigureTable(cat, np.empty(0, dtype=np.int64), np.empty((0, len(cat.names))))
        else:
            off, n = where
            k = len(cat.names)
            raw = os.pread(self._f.fileno(), n * 8 * (1 + k), off)
            ids = np.frombuffer(raw, dtype=np.int64, count=n)
            vals = np.frombuffer(raw, dtype=np.float64, offset=n * 8).reshape(n, k)
            t = FigureTable(cat, ids, vals)
        self._cache[key] = t
        if len(self._cache) > self.CACHE:
            self._cache.popitem(last=False)
        return t

    def lazy(self, kind: str, interval: int) -> LazyTable:
        return LazyTable(self, kind, interval)


class LazyTable(Mapping[Any, Figures]):
    """A handle on one interval's table in a :class:`FigureStore`, loaded
    when used (so an interval holds no figures of its own)."""

    __slots__ = ("interval", "kind", "store")

    def __init__(self, store: FigureStore, kind: str, interval: int) -> None:
        self.store, self.kind, self.interval = store, kind, interval

    @property
    def table(self) -> FigureTable:
        return self.store.table(self.kind, self.interval)

    def __getitem__(self, key: Hashable) -> Figures:
        return self.table[key]

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)

    def __contains__(self, key: object) -> bool:
        return key in self.table

    def __bool__(self) -> bool:
        return len(self.table) > 0

    def items(self) -> Iterator[tuple[Hashable, Figures]]:  # type: ignore[override]
        return self.table.items()

    def values(self) -> Iterator[Figures]:  # type: ignore[override]
        return self.table.values()
