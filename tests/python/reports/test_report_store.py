"""ColumnStore(coalesce=True): the steps' small batches gathered into whole
batches, the same rows in the same order, and batches kept in memory
holding only their own rows."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ztwin.reports.store import BATCH_ROWS, ColumnStore, to_arrow


def _batch(first: int, n: int) -> pa.RecordBatch:
    idx = np.arange(first, first + n, dtype=np.int64)
    return pa.RecordBatch.from_arrays(
        [to_arrow(idx, pa.int64()), to_arrow(idx * 0.5, pa.float64())], names=["interval", "v"]
    )


def _rows(s: ColumnStore) -> list[int]:
    return [x for _, b in s.batches() for x in b.column("interval").to_pylist()]


def test_gathered_batches_hold_the_same_rows() -> None:
    plain, gathered = ColumnStore(budget=64 * 1024), ColumnStore(budget=64 * 1024, coalesce=True)
    first = 0
    for n in (500, 500, 3000, 7, 0, 1200, 5000, 33):
        for s in (plain, gathered):
            s.extend(_batch(first, n))
        first += n
        assert gathered.rows == plain.rows == first  # rows waiting count too
    assert _rows(gathered) == _rows(plain) == list(range(first))
    sizes = [b.num_rows for _, b in gathered.batches()]
    assert sizes[:-1] == [BATCH_ROWS] * (len(sizes) - 1) and 0 < sizes[-1] <= BATCH_ROWS
    assert gathered.spilled_bytes > 0
    assert gathered.locate(first - 1) == (len(sizes) - 1, sizes[-1] - 1)
    assert gathered.batches_with_interval(BATCH_ROWS) == [1]
    assert gathered._bounds[0] == (0, BATCH_ROWS - 1)


def test_a_kept_batch_does_not_hold_the_step_it_came_from() -> None:
    s = ColumnStore(coalesce=True)
    big = _batch(0, 10 * BATCH_ROWS + 5)
    s.extend(big)
    kept = s.batch(0)
    assert kept.num_rows == BATCH_ROWS
    assert kept.column("v").buffers()[1].size == BATCH_ROWS * 8
    # the 5 rows left wait in a copy of their own, and are read back
    assert s.batch(len(s) - 1).column("interval").to_pylist() == list(range(10 * BATCH_ROWS, 10 * BATCH_ROWS + 5))
