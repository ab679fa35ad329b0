"""The LPAR-family reports' block readers: partition names numbered from
Arrow buffers as row by row, and a store's rows found for any set of
intervals as by a membership test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from ztwin.reports import lpar
from ztwin.reports.store import BATCH_ROWS, ColumnStore

REPO = Path(__file__).resolve().parents[3]


def _row_by_row(names: list[str], codes: dict[str, int]) -> np.ndarray:
    for x in sorted(set(names)):
        codes.setdefault(x, len(codes))
    return np.array([codes[x] for x in names], dtype=np.int64)


@pytest.mark.parametrize(
    "names",
    [
        ["LP01", "LP01", "LP02", "A", "LP01", "ZZZZZZZZ", "A"],
        ["ONE"] * 50,
        ["LP01", "LP02", "LP01", "LP03", "LP02"],  # one length
        ["LONGNAME9", "LP01", "LP01"],  # over 8 bytes: row by row
        ["LP\x0001", "LP", "LP"],  # a NUL: row by row
        ["", "LP01"],  # empty: row by row
        ["\u00c4BC", "ABC", "\u00c4BC"],  # multi-byte UTF-8
    ],
)
def test_part_codes_equal_row_by_row(names: list[str]) -> None:
    arr = pa.array(names + ["TAIL1", "TAIL2"], type=pa.string())
    for a in (arr, arr.slice(1, len(names) - 1), arr.slice(2), pa.array(names, type=pa.string())):
        seen: dict[str, int] = {"EARLIER": 0}
        want_codes = dict(seen)
        got = lpar._part_codes(a, seen)
        want = _row_by_row(a.to_pylist(), want_codes)
        assert got.tolist() == want.tolist()
        assert seen == want_codes


def _store(rows_per_interval: list[int]) -> ColumnStore:
    st = ColumnStore(budget=1 << 12, coalesce=True)  # small budget: most batches spilled
    iv, cpu, part, disp = [], [], [], []
    for i, n in enumerate(rows_per_interval):
        for c in range(n):
            iv.append(i)
            cpu.append(float(c))
            part.append("LP0" + str(c % 3))
            disp.append(float(i * 10 + c))
    t = pa.table({"interval": pa.array(iv, pa.int64()), "cpu": pa.array(cpu, pa.float64()),
                  "partition": pa.array(part, pa.string()), "flags": pa.array([0] * len(iv), pa.int64()),
                  "dispatch": pa.array(disp, pa.float64())})  # fmt: skip
    st.extend(t)
    return st


@pytest.mark.parametrize("ids", [list(range(0, 40)), list(range(600, 1500)), [3, 5, 6, 700, 701, 1999], [0], [1999], list(range(2000))])
def test_store_rows_equal_a_membership_test(ids: list[int]) -> None:
    rng = np.random.default_rng(5)
    per = rng.integers(0, 7, 2000).tolist()
    st = _store(per)
    assert len(st) > 2 and st.rows > 2 * BATCH_ROWS and st.spilled_bytes
    want = set(ids)
    want_iv = [i for i, n in enumerate(per) for _ in range(n) if i in want]
    want_disp = [float(i * 10 + c) for i, n in enumerate(per) for c in range(n) if i in want]
    a = np.array(ids, dtype=np.int64)
    for last in (None, lpar._LastBatch()):
        got = lpar._store_rows(st, a, True, last)
        assert [ids[p] for p in got.pidx.tolist()] == want_iv
        assert got.sums["dispatch"].tolist() == want_disp
        assert [got.names[p] for p in got.part.tolist()] == ["LP0" + str(c % 3) for i, n in enumerate(per)
                                                            for c in range(n) if i in want]  # fmt: skip


def test_lpar_reports_do_not_depend_on_the_block_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """LPARLOG, PHYSLOG and PROCLOG of a CEC of 7 partitions (the twin's
    hipersockets-cpu study) are the same text whatever the intervals per
    block (LPARLOG and PHYSLOG take as many as hold LPAR_ROWS rows)."""
    from ztwin.reports import build
    from ztwin.twin import Scenario

    out = tmp_path / "hs.monwrite"
    Scenario.load(REPO / "studies" / "hipersockets-cpu.toml").run(out)
    names = ["LPARLOG", "PHYSLOG", "PROCLOG"]

    def written() -> list[str]:
        reps = build(out, names)
        return [reps[n].to_json() + reps[n].to_csv() for n in names]

    want = written()
    assert all(len(w) > 2000 for w in want)
    for block, rows in ((2, 1), (2, 10**9), (3, 50), (7, 0)):
        monkeypatch.setattr(lpar, "BLOCK", block)
        monkeypatch.setattr(lpar, "LPAR_ROWS", rows)
        assert written() == want, (block, rows)


def test_no_store_no_rows() -> None:
    """A file read without the per-CPU or logical-CPU rows (no store)."""
    for last in (None, lpar._LastBatch()):
        assert lpar._store_rows(None, np.array([3, 4], dtype=np.int64), True, last).n == 0
