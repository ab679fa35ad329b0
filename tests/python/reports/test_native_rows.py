"""Rows written natively (ztwin._native.format_rows) equal the rows Python
writes: JSON numbers as json.dumps(round(v, 6)), CSV cells, Perfkit text
cells (fmt_num), ISO and HH:MM:SS times, for any double."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ztwin._native import fold_by_keys, format_rows, format_rows_bytes
from ztwin.reports.core import Config, local_from_us, merged
from ztwin.reports.model import _json_value
from ztwin.reports.text import Column, fmt_time

FINITE = st.floats(allow_nan=False, allow_infinity=False)
# values a report shows: rates, percentages, counts, with short binary fractions
REPORTISH = st.one_of(
    FINITE,
    st.integers(-(2**60), 2**60).map(float),
    st.tuples(st.integers(-(2**53), 2**53), st.integers(0, 30)).map(lambda t: t[0] / 2.0 ** t[1]),
    st.tuples(st.integers(-(10**15), 10**15), st.integers(0, 9)).map(lambda t: t[0] / 10.0 ** t[1]),
)


@settings(max_examples=2000, deadline=None)
@given(values=st.lists(st.one_of(REPORTISH, st.just(math.nan)), min_size=1, max_size=20))
def test_json_and_csv_numbers(values: list[float]) -> None:
    a = np.array(values, dtype=np.float64)
    cfg = Config()
    got = format_rows("json", len(values), [("f", a, '"x": ', 0, 0, False)])
    want = ", ".join(json.dumps({"x": _json_value(None if math.isnan(v) else v, cfg)}) for v in values)
    assert got == want
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for v in values:
        w.writerow(["" if (x := _json_value(None if math.isnan(v) else v, cfg)) is None else x])
    assert format_rows("csv", len(values), [("f", a, "", 0, 0, False)]) == buf.getvalue()


@settings(max_examples=2000, deadline=None)
@given(v=st.one_of(REPORTISH, st.just(math.nan)), dec=st.integers(0, 4), width=st.integers(1, 12),
       left=st.booleans())  # fmt: skip
def test_text_cells(v: float, dec: int, width: int, left: bool) -> None:
    col = Column("x", ["X"], width, dec, left=left)
    want = col.cell(None if math.isnan(v) else v).rstrip() + "\n"
    got = format_rows("text", 1, [("f", np.array([v]), "", width, dec, left)])
    assert got == want


@settings(max_examples=500, deadline=None)
@given(us=st.integers(-2_208_988_800 * 10**6, 4_102_444_800 * 10**6), zone=st.integers(-50_400, 50_400))
def test_times(us: int, zone: int) -> None:
    cfg = Config(zone_s=zone)
    dt = local_from_us(us)
    z = cfg.iso(dt)[19:]
    assert format_rows("csv", 1, [("t", np.array([us], dtype=np.int64), "", 0, 0, False)], z) == cfg.iso(dt) + "\n"
    got = format_rows("text", 1, [("t", np.array([us], dtype=np.int64), "", 8, 0, True)])
    assert got == fmt_time(dt) + "\n"


def test_a_row_of_several_columns() -> None:
    cfg = Config(zone_s=3600)
    end = datetime(2026, 1, 5, 15, 10, 12, 500_000)
    us = (end - datetime(1970, 1, 1)) // timedelta(microseconds=1)
    a, b = np.array([1.25, math.nan]), np.array([1e-7, 12345678.0000005])
    times = np.array([us, us + 300_000_000], dtype=np.int64)
    cols = [("t", times, '"t": ', 0, 0, False), ("f", a, '"a": ', 0, 0, False), ("l", '">System<"', '"u": ', 0, 0, False),
            ("f", b, '"b": ', 0, 0, False)]  # fmt: skip
    got = format_rows("json", 2, cols, "+01:00")
    rows = [{"t": end, "a": 1.25, "u": ">System<", "b": 1e-7},
            {"t": end + timedelta(seconds=300), "a": None, "u": ">System<", "b": 12345678.0000005}]  # fmt: skip
    assert got == ", ".join(json.dumps({k: _json_value(v, cfg) for k, v in r.items()}) for r in rows)
    # the bytes the writers put into a byte stream: the same text as UTF-8
    labels = (np.array([0, 1], dtype=np.int64), ['"LPAR\u00e9"', '"Z\u00fcrich"'])
    cases: list[tuple[Literal["json", "csv", "text"], list[Any]]] = [
        ("json", [*cols, ("c", labels, '"p": ', 0, 0, False)]), ("csv", [*cols, ("c", labels, "", 0, 0, False)]),
        ("text", [("f", a, "", 9, 2, False), ("c", labels, "", 10, 0, True)])]  # fmt: skip
    for fmt, cs in cases:
        assert format_rows_bytes(fmt, 2, cs, "+01:00") == format_rows(fmt, 2, cs, "+01:00").encode()


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 3), st.one_of(REPORTISH, st.just(math.nan))), min_size=1, max_size=40),
       kind=st.sampled_from(["sum", "min", "max"]))  # fmt: skip
def test_folds_equal_merged(rows: list[tuple[int, float]], kind: str) -> None:
    name = {"sum": "x", "min": "min_x", "max": "max_x"}[kind]
    codes = np.array([k for k, _ in rows], dtype=np.int64)
    out = np.full(4, np.nan)
    fold_by_keys(codes, [np.array([v for _, v in rows])], [kind], [out])
    for key in range(4):
        want = merged({name: v} for k, v in rows if k == key and not math.isnan(v)).get(name)
        got = out[key]
        assert (want is None and math.isnan(got)) or (want == got and math.copysign(1, want) == math.copysign(1, got))


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.one_of(st.none(), st.integers(-5, 3000), st.text(max_size=6), st.just("")), min_size=1,
                       max_size=4),
       picks=st.lists(st.integers(0, 3), min_size=1, max_size=12),
       const=st.one_of(st.none(), st.just(""), st.just(">>Mean>>"), st.integers(0, 9)))  # fmt: skip
def test_label_columns_write_as_the_rows_do(labels: list[object], picks: list[int], const: object) -> None:
    """A chunk with a column of per-row labels ('c') and one value for all
    rows writes the JSON, CSV and text the same rows as dicts give."""
    from ztwin.reports.model import Labels, Report, RowChunk
    from ztwin.reports.text import Table

    codes = np.array([p % len(labels) for p in picks], dtype=np.int64)
    vals = np.array([1.5 * p for p in picks])
    chunk = RowChunk(len(picks), {"who": Labels(codes, labels), "c": const, "v": vals})
    keys = ["who", "c", "v"]
    table = Table([Column("who", ["Who"], 6, None, left=True), Column("c", ["C"], 8, None),
                   Column("v", ["V"], 6, 1)])  # fmt: skip
    cfg = Config()

    def report(rows: object) -> Report:
        return Report(name="T", fcx="X", title="t", config=cfg, start=None, end=None, rows=rows, keys=keys,
                      table=table)  # type: ignore[arg-type]  # fmt: skip

    from ztwin.reports.model import ColumnRows

    native = report(ColumnRows([], lambda: iter([chunk])))
    python = report(list(chunk.dicts()))
    assert native.to_json() == python.to_json()
    assert native.to_csv() == python.to_csv()
    when = datetime(2026, 1, 1)
    assert native.to_text(when) == python.to_text(when)


def test_reports_written_to_a_file_equal_their_text(basic_file: Path, tmp_path: Path) -> None:
    """Into a file (chunk rows as bytes into its byte stream) and into a
    StringIO (as text): the same report, in each format."""
    from ztwin.reports import build
    from ztwin.reports.model import chunk_writer

    reports = build(basic_file, ["SYSSUMLG", "PROCLOG", "LPARLOG", "DEVICE"])
    when = datetime(2026, 1, 1)
    for r in reports.values():
        for ext, write, text in (("json", r.write_json, r.to_json() + "\n"), ("csv", r.write_csv, r.to_csv()),
                                 ("txt", lambda f, r=r: r.write_text(f, when), r.to_text(when))):  # fmt: skip
            path = tmp_path / f"{r.name}.{ext}"
            with path.open("w", encoding="utf-8", newline="") as f:
                assert chunk_writer(f) is not None
                write(f)
            assert path.read_text(encoding="utf-8") == text
    with (tmp_path / "latin.txt").open("w", encoding="latin-1") as f:
        assert chunk_writer(f) is None
    assert chunk_writer(io.StringIO()) is None
