"""The monitor history (docs/history.md): ingest, reports and diagnosis from
the database, exports, the Python API and the Arrow hand-over."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).parent / "reports"))

from builders import write_synthetic, write_varied  # noqa: E402

from ztwin import history  # noqa: E402
from ztwin._native import IntervalKernel  # noqa: E402
from ztwin.cli import main  # noqa: E402
from ztwin.export import metric_names  # noqa: E402
from ztwin.reports import REPORTS, build_from, collect  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
USERS, DEVICES = 3, 4  # write_synthetic: exposures on the first half of the devices


def counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {e: con.execute(f"SELECT count(*) FROM {e}_intervals").fetchall()[0][0] for e in history.ENTITIES}
    finally:
        con.close()


def rows(n: int) -> dict[str, int]:
    """Rows of n intervals of write_synthetic(users=3, devices=4, cpus=2)."""
    return {"system": n, "cpu": 2 * n, "lpar": 0, "user": USERS * n, "device": DEVICES * n, "exposure": 2 * n}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("hist")
    short = write_synthetic(d / "short.monwrite", intervals=20, users=USERS, devices=DEVICES)
    grown = write_synthetic(d / "grown.monwrite", intervals=30, users=USERS, devices=DEVICES)
    return {"short": short, "grown": grown}


def test_ingest_is_idempotent(tmp_path: Path, files: dict[str, Path]) -> None:
    db = tmp_path / "h.duckdb"
    (r,) = history.ingest(db, [files["short"]])
    assert (r.system, r.intervals_added, r.intervals_skipped) == ("TESTSYS", 19, 0)
    assert counts(db) == rows(19)
    (r,) = history.ingest(db, [files["short"]])
    assert (r.intervals_added, r.intervals_skipped) == (0, 19)
    assert counts(db) == rows(19)


def test_a_grown_file_adds_only_its_new_intervals(tmp_path: Path, files: dict[str, Path]) -> None:
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    (r,) = history.ingest(db, [files["grown"]])
    assert (r.intervals_added, r.intervals_skipped) == (10, 19)
    assert counts(db) == rows(29)
    # the appended intervals equal those of reading the grown file whole
    with history.open(db) as h:
        a = {k: v.to_json() for k, v in build_from(h.intervals()).items()}
    b = {k: v.to_json() for k, v in build_from(collect(files["grown"])).items()}
    assert a == b


def test_two_systems_side_by_side(tmp_path: Path, files: dict[str, Path]) -> None:
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    history.ingest(db, [files["grown"]], system="ZVMB")
    assert counts(db) == {k: v + w for (k, v), w in zip(rows(19).items(), rows(29).values(), strict=True)}
    with history.open(db) as h:
        assert h.systems() == ["TESTSYS", "ZVMB"]
        assert h.arrow("system", system="ZVMB").num_rows == 29
        assert h.relation("user", system="TESTSYS").aggregate("count(*)").fetchall() == [(57,)]
        with pytest.raises(history.HistoryError, match="several systems"):
            h.intervals()


def test_a_damaged_file_ingests_its_readable_parts(tmp_path: Path, files: dict[str, Path]) -> None:
    bad = tmp_path / "bad.monwrite"
    data = bytearray(files["grown"].read_bytes())
    mid = (len(data) // 4096 // 2) * 4096
    data[mid : mid + 4096] = b"\xff" * 4096  # one block of garbage
    bad.write_bytes(bytes(data))
    db = tmp_path / "h.duckdb"
    (r,) = history.ingest(db, [bad])
    assert r.damage_count == 1
    d = r.damage[0]
    assert (d["offset"], d["end"]) == (mid, mid + 4096) or d["offset"] <= mid < d["end"]
    expected = len(collect(bad).intervals)
    assert r.intervals_added == expected == 28
    assert counts(db) == {**rows(28), "lpar": 0}
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute('SELECT "offset", "end" FROM damage').fetchall() == [(d["offset"], d["end"])]
    con.close()


def test_a_failing_ingest_leaves_the_database_as_it_was(tmp_path: Path, files: dict[str, Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    calls = []

    def boom(*a: Any, **k: Any) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        real(*a, **k)

    real = history._insert
    monkeypatch.setattr(history, "CHUNK", 5)
    monkeypatch.setattr(history, "_insert", boom)
    with pytest.raises(RuntimeError):
        history.ingest(db, [files["grown"]], system="OTHER")
    assert counts(db) == rows(19)
    with history.open(db) as h:
        assert h.systems() == ["TESTSYS"]
        assert h.files().num_rows == 1


def test_reports_from_the_database_equal_reports_from_the_file(tmp_path: Path, files: dict[str, Path],
                                                               capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["grown"]])
    for win in ((None, None), ("10:05:00", "10:17:00")):
        fargs = [str(files["grown"])] + (["--from", win[0], "--to", win[1]] if win[0] else [])
        dargs = ["--db", str(db)] + (["--from", f"2024-03-01 {win[0]}", "--to", f"2024-03-01 {win[1]}"] if win[0] else [])
        assert main(["report", *fargs, "--format", "json", "-u", "LNX00001"]) == 0
        from_file = capsys.readouterr().out
        assert main(["report", *dargs, "--format", "json", "-u", "LNX00001"]) == 0
        from_db = capsys.readouterr().out
        assert from_db == from_file and from_file.count("\n") == len(REPORTS)


def test_totals_from_rows_stored_out_of_interval_order(tmp_path: Path, files: dict[str, Path],
                                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Window totals are folded in interval order also when the rows were
    stored in another order (files ingested out of time order): the stored
    order is checked while reading and the rows are sorted when it is not."""
    f = write_varied(tmp_path / "v.monwrite", intervals=60, users=4, devices=5)
    db = tmp_path / "h.duckdb"
    history.ingest(db, [f])
    assert main(["report", "--db", str(db), "--format", "json", "-r", "USTAT", "-r", "DEVICE", "-r", "CPU"]) == 0
    stored = capsys.readouterr().out
    con = duckdb.connect(str(db))
    for e in ("user", "device", "cpu"):
        t = history.table_name(e)
        con.execute(f"CREATE TABLE x AS SELECT * FROM {t} ORDER BY end_tod DESC, ord DESC")
        con.execute(f"DROP TABLE {t}")
        con.execute(f"ALTER TABLE x RENAME TO {t}")
    con.close()
    assert main(["report", "--db", str(db), "--format", "json", "-r", "USTAT", "-r", "DEVICE", "-r", "CPU"]) == 0
    assert capsys.readouterr().out == stored
    assert main(["report", str(f), "--format", "json", "-r", "USTAT", "-r", "DEVICE", "-r", "CPU"]) == 0
    assert capsys.readouterr().out == stored
    # the window totals themselves, to the last bit
    ref = collect(f)
    with history.open(db) as h:
        got = h.intervals()
        detail = h.intervals(detail=True)  # every row streamed into the reports' stores
    for name in ("users", "devices", "cpus"):
        assert getattr(got, name) == getattr(ref, name), name
        assert list(getattr(got, name)) == list(getattr(ref, name)), name  # first-seen order
        assert getattr(detail, name) == getattr(ref, name), name
        assert list(getattr(detail, name)) == list(getattr(ref, name)), name
    full = collect(f, users="all", devices="all", exposures="all")
    for name in ("user_series", "device_series"):
        assert dict(getattr(detail, name)) == dict(getattr(full, name)), name
    assert [s.raw for s in detail.intervals] == [s.raw for s in full.intervals]
    # the sums do depend on the order: folded in reverse they differ
    with history.open(db) as h:
        rev = h.connection.execute("SELECT sum(ttime ORDER BY end_tod DESC) = sum(ttime ORDER BY end_tod) "
                                   "FROM user_intervals GROUP BY userid").fetchall()  # fmt: skip
    assert not all(r[0] for r in rev)


def _folded(h: history.History, entity: str, where: str = "") -> pa.Table:
    """Window totals of ``entity`` folded natively over every value column,
    rows in interval order (the reference the SQL sums must equal)."""
    keys = history.KEYS[entity]
    t = h.connection.query(f"SELECT * FROM {history.table_name(entity)} e{where} ORDER BY end_tod, ord").to_arrow_table()
    vals = [c for c in t.column_names if c not in {"system", "start", "end", "end_tod", "ord", "flags", *keys}]
    fold = history._Fold(keys, vals)
    for b in t.to_batches():
        assert fold.add(b, check_order=True)
    return fold.table(pa.schema([t.schema.field(c) for c in [*keys, *vals]]))


def test_integer_totals_summed_by_duckdb_equal_the_fold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The integer columns' window totals come from DuckDB's SUM/MIN/MAX
    when the fold in 64-bit floats is exact (no negative value, totals below
    2**53); a column with a negative value or a total beyond 2**53 is folded
    natively: either way the totals equal the fold's to the last bit."""
    f = write_varied(tmp_path / "v.monwrite", intervals=40, users=4, devices=5)
    db = tmp_path / "h.duckdb"
    history.ingest(db, [f])
    taken: list[set[str]] = []
    orig = history.History._grouped

    def spy(self: history.History, *a: Any) -> Any:
        out = orig(self, *a)
        taken.append(set(out.exact))
        return out

    monkeypatch.setattr(history.History, "_grouped", spy)
    with history.open(db) as h:
        for e in ("user", "device", "exposure", "cpu"):
            got = h._totals_sql(e, "TESTSYS", None, None)
            assert got.equals(_folded(h, e)), e
        assert {"virtual_io", "page_reads"} <= taken[0] and "ssch" in taken[1], taken
    # a negative delta in one column, one value past 2**53 in another, nulls in a third
    con = duckdb.connect(str(db))
    con.execute("UPDATE user_intervals SET virtual_io = -7 WHERE userid = 'LNX00001' AND ord % 3 = 1").fetchall()
    con.execute("UPDATE user_intervals SET page_reads = 9007199254740993 + ord WHERE userid = 'LNX00002'").fetchall()
    con.execute("UPDATE user_intervals SET faults = NULL WHERE userid = 'LNX00003'").fetchall()
    con.close()
    taken.clear()
    with history.open(db) as h:
        got = h._totals_sql("user", "TESTSYS", None, None)
        assert got.equals(_folded(h, "user"))
        assert "virtual_io" not in taken[0] and "page_reads" not in taken[0] and "faults" in taken[0], taken
        t = got.to_pylist()
        assert t[3]["faults"] is None and t[1]["virtual_io"] < t[0]["virtual_io"]
    # keys whose hashes collide, or rows whose hash is no grouped key's: folded by the keys themselves
    monkeypatch.setattr(history.History, "_grouped", orig)
    with history.open(db) as h:
        want = _folded(h, "user")
        for hashes, hash_sql in ((None, None), (True, "hash(e.userid) + 1")):
            def broken(self: history.History, *a: Any, hashes: Any = hashes, hash_sql: Any = hash_sql) -> Any:
                out = orig(self, *a)
                out.hashes = out.hashes if hashes else None
                out.hash_sql = hash_sql or out.hash_sql
                return out

            monkeypatch.setattr(history.History, "_grouped", broken)
            assert h._totals_sql("user", "TESTSYS", None, None).equals(want), (hashes, hash_sql)
        # many keys: the rows found by a binary search over the hashes instead of the slot table
        monkeypatch.setattr(history.History, "_grouped", orig)
        monkeypatch.setattr(history, "_slot_table", lambda hashes: None)
        assert h._totals_sql("user", "TESTSYS", None, None).equals(want)
    monkeypatch.undo()
    assert history._slot_table(np.arange(600, dtype=np.uint64)) is None
    slots = history._slot_table(np.array([5, 5 + (1 << 16), 7 << 16], dtype=np.uint64))
    assert slots is not None
    shift, table = slots
    assert int(shift) == 4 and table[0] == 0 and table[(1 << 12)] == 1 and table[7 << 12] == 2


def test_a_window_of_overlapping_intervals_is_read_by_time(tmp_path: Path, files: dict[str, Path],
                                                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A window is read as the range of its intervals' end_tod when no other
    interval of the system ends inside that range; else (an interval that
    starts before the window and ends in it) by the times, as before."""
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["grown"]])
    win = ["--from", "2024-03-01 10:05:00", "--to", "2024-03-01 10:17:00"]
    with history.open(db) as h:
        ends = h.connection.query("SELECT end_tod FROM system_intervals WHERE date_trunc('second', start + "
                                  "INTERVAL 500 millisecond) >= TIMESTAMP '2024-03-01 10:05:00' AND date_trunc("
                                  "'second', \"end\" + INTERVAL 500 millisecond) <= TIMESTAMP '2024-03-01 10:17:00' "
                                  "ORDER BY end_tod").to_arrow_table().column(0).combine_chunks()  # fmt: skip
        assert "end_tod BETWEEN" in h._rows_where("TESTSYS", win[1], win[3], ends)[0]
    assert main(["report", "--db", str(db), *win, "--format", "json", "-r", "USTAT", "-r", "DEVICE"]) == 0
    before = capsys.readouterr().out
    # an interval from before the window that ends inside it (with one user row)
    con = duckdb.connect(str(db))
    mid = ends[3].as_py() + 1
    con.execute("INSERT INTO system_intervals BY NAME SELECT * REPLACE (start - INTERVAL 20 MINUTE AS start, "
                f"{mid}::UBIGINT AS end_tod) FROM system_intervals WHERE end_tod = {ends[3].as_py()}").fetchall()  # fmt: skip
    con.execute(f"INSERT INTO user_intervals BY NAME SELECT * REPLACE (start - INTERVAL 20 MINUTE AS start, "
                f"{mid}::UBIGINT AS end_tod) FROM user_intervals WHERE end_tod = {ends[3].as_py()}").fetchall()  # fmt: skip
    con.close()
    with history.open(db) as h:
        assert "end_tod BETWEEN" not in h._rows_where("TESTSYS", win[1], win[3], ends)[0]
    assert main(["report", "--db", str(db), *win, "--format", "json", "-r", "USTAT", "-r", "DEVICE"]) == 0
    assert capsys.readouterr().out == before


def test_reports_when_the_read_bound_is_too_small(tmp_path: Path, files: dict[str, Path],
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """A window is streamed under READ_MEMORY; a table DuckDB cannot scan
    within it is read again without the bound: the same reports."""
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["grown"]])
    assert main(["report", "--db", str(db), "--format", "json"]) == 0
    bounded = capsys.readouterr().out
    monkeypatch.setattr(history, "READ_MEMORY", "1MB")
    with history.open(db) as h:
        with pytest.raises(Exception, match="Out of Memory"), h._bounded():
            h._intervals(h.resolve_system(None), None, None,
                         h.connection.query("SELECT end_tod FROM system_intervals ORDER BY end_tod")
                         .to_arrow_table().column(0).combine_chunks(), True, None)  # fmt: skip
        # DuckDB's own settings again
        assert h.connection.execute("SELECT current_setting('memory_limit') NOT LIKE '1.0 %'").fetchall() == [(True,)]
    assert main(["report", "--db", str(db), "--format", "json"]) == 0
    assert capsys.readouterr().out == bounded


def test_diagnose_from_the_database(tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["grown"]])
    assert main(["diagnose", "--db", str(db), "--json", "--from", "2024-03-01 10:10:00"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(["diagnose", str(files["grown"]), "--json", "--from", "10:10:00"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["findings"] == b["findings"] and a["intervals"] == b["intervals"] == 20


def test_trend_by_day_with_peak_hours_and_weekdays(tmp_path: Path) -> None:
    # 2024-03-01 is a Friday: 40 hours of 60 s intervals reach Saturday 02:00.
    f = write_synthetic(tmp_path / "long.monwrite", intervals=2400, users=1, devices=1, cpus=1)
    db = tmp_path / "h.duckdb"
    history.ingest(db, [f])
    with history.open(db) as h:
        iv = h.intervals()
    t = build_from(iv, ["TREND"], by="day")["TREND"]
    assert [(r["period"], r["intervals"]) for r in t.rows] == [(">>Mean>>", 2399), ("2024-03-01", 839), ("2024-03-02", 1440), ("2024-03-03", 120)]
    t = build_from(iv, ["TREND"], by="hour", hours=(9, 17), weekdays=True)["TREND"]
    periods = [r["period"] for r in t.rows]
    assert periods[0] == ">>Mean>>" and periods[1:] == [f"2024-03-01 {h:02d}:00" for h in range(10, 17)]
    # a day's row is the figure of a report over that day's window
    with history.open(db) as h:
        day = h.intervals(start="2024-03-02 00:00:00", end="2024-03-03 00:00:00")
    t = build_from(iv, ["TREND"], by="day")["TREND"]
    assert t.rows[2]["cpu_busy_pct"] == day.total_metrics()["cpu_busy_pct"]
    # every row equals the sums of its intervals merged one by one (the
    # scalar rule), from the database and from the file
    from_file = collect(f)
    for opts in ({"by": "day"}, {"by": "hour"}, {"by": "hour", "hours": (9, 17), "weekdays": True},
                 {"by": "day", "weekdays": True}):  # fmt: skip
        want = trend_reference(from_file, **opts)
        for source in (iv, from_file):
            got = [{k: r[k] for k in want[0]} for r in build_from(source, ["TREND"], **opts)["TREND"].rows]
            assert got == want, opts


def trend_reference(iv: Any, by: str, hours: tuple[int, int] | None = None, weekdays: bool = False) -> list[dict[str, Any]]:
    """TREND rows by the scalar rule: intervals grouped by the hour or day in
    which they end, their sums merged in interval order."""
    from datetime import timedelta

    from ztwin.reports.core import merged
    from ztwin.reports.metrics import system_metrics
    from ztwin.reports.trend import TREND_FIGURES

    groups: dict[Any, list[Any]] = {}
    for s in iv.intervals:
        t = s.end - timedelta(microseconds=1)
        if (weekdays and t.weekday() >= 5) or (hours is not None and not hours[0] <= t.hour < hours[1]):
            continue
        key = t.replace(minute=0, second=0, microsecond=0) if by == "hour" else t.replace(hour=0, minute=0, second=0, microsecond=0)
        groups.setdefault(key, []).append(s)
    fmt = "%Y-%m-%d %H:00" if by == "hour" else "%Y-%m-%d"
    parts = [(">>Mean>>", [s for g in groups.values() for s in g])] + [(k.strftime(fmt), g) for k, g in groups.items()]
    out = []
    for period, ss in parts:
        m = system_metrics(merged(s.raw for s in ss))
        out.append({"period": period, **{k: m.get(k) for k in TREND_FIGURES}, "intervals": len(ss), "seconds": m.get("seconds")})
    return out


def test_exports(tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    history.ingest(db, [files["grown"]], system="ZVMB")
    assert main(["export", "--db", str(db), "--format", "parquet", str(tmp_path / "pq")]) == 0
    assert (tmp_path / "pq/user/system=ZVMB/day=2024-03-01").is_dir()
    con = duckdb.connect()
    got = con.execute(
        f"SELECT system, count(*) FROM read_parquet('{tmp_path}/pq/user/*/*/*.parquet', hive_partitioning = true) "
        "GROUP BY system ORDER BY system"
    ).fetchall()
    assert got == [("TESTSYS", 57), ("ZVMB", 87)]
    assert main(["export", str(files["short"]), "--format", "csv", str(tmp_path / "csv")]) == 0
    assert len((tmp_path / "csv/device.csv").read_text().splitlines()) == 1 + 4 * 19
    out = tmp_path / "m.txt"
    assert main(["export", "--db", str(db), "--format", "openmetrics", str(out)]) == 0
    text = out.read_text()
    assert text.endswith("# EOF\n")
    names = set(re.findall(r"^# TYPE (\S+) gauge$", text, re.M))
    assert names == set(metric_names())
    sample = re.search(r'^ztwin_system_cpu_busy_pct\{system="ZVMB"\} (\S+) (\S+)$', text, re.M)
    assert sample is not None and float(sample.group(2)) == pytest.approx(1709287320.0)
    capsys.readouterr()


def test_the_grafana_dashboard_names_only_exported_metrics() -> None:
    dash = json.loads((ROOT / "grafana/ztwin-system.json").read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    exprs += [v["query"] for v in dash["templating"]["list"] if v["type"] == "query"]
    used = {m for e in exprs for m in re.findall(r"\bztwin_[a-z0-9_]+", e)}
    assert len(dash["panels"]) >= 8 and used
    assert used <= set(metric_names()), used - set(metric_names())


def test_python_api_and_the_arrow_hand_over(tmp_path: Path, files: dict[str, Path]) -> None:
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    with history.open(db) as h:
        rel = h.relation("device", start="2024-03-01 10:05:00", end="2024-03-01 10:10:00")
        assert isinstance(rel, duckdb.DuckDBPyRelation)
        assert rel.aggregate("count(*)").fetchall() == [(5 * DEVICES,)]
        t = h.arrow("system")
        assert isinstance(t, pa.Table) and t.num_rows == 19
    k = IntervalKernel(str(files["short"]), None, None, "all", None, None)
    k.step()
    tables = k.take()
    users = pa.table(tables["user"])  # through __arrow_c_stream__
    assert users.num_rows == USERS * 19 and users.schema.field("ttime").type == pa.float64()
    assert duckdb.sql("SELECT count(DISTINCT userid) FROM users").fetchall() == [(USERS,)]
    assert pa.table(k.totals()["device"]).num_rows == DEVICES


def one_line(args: list[str]) -> tuple[int, str]:
    p = subprocess.run([sys.executable, "-m", "ztwin", *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, files: dict[str, Path]) -> None:
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    junk = tmp_path / "junk.duckdb"
    junk.write_bytes(b"not a database" * 100)
    newer = tmp_path / "newer.duckdb"
    history.ingest(newer, [files["short"]])
    con = duckdb.connect(str(newer))
    con.execute("UPDATE ztwin_meta SET value = '99' WHERE key = 'schema_version'").fetchall()
    con.close()
    cases = [
        (["report", "--db", str(db), "--system", "NOSUCH"], "no system 'NOSUCH'"),
        (["report", "--db", str(db), "--from", "2031-01-01 00:00:00"], "no stored interval"),
        (["report", "--db", str(junk)], "cannot open the history database"),
        (["report", "--db", str(tmp_path / "none.duckdb")], "no such history database"),
        (["report", "--db", str(newer)], "newer ztwin (history schema version 99"),
        (["diagnose", "--db", str(newer)], "newer ztwin"),
        (["ingest", "--db", str(newer), str(files["short"])], "newer ztwin"),
        (["export", "--db", str(db), "--system", "NOSUCH", "--format", "csv", str(tmp_path / "o")], "no system"),
        (["ingest", "--db", str(db), str(tmp_path / "missing.monwrite")], "cannot open"),
    ]
    for args, msg in cases:
        rc, err = one_line(args)
        assert rc == 2, (args, err)
        assert err.count("\n") == 1 and msg in err and "Traceback" not in err, (args, err)
    assert not (tmp_path / "none.duckdb").exists()


def test_ingest_does_not_import_the_reports(tmp_path: Path, files: dict[str, Path]) -> None:
    """``ztwin ingest`` runs without importing the reports (about 120 M
    instructions a run): the rows are cut and stored without them."""
    code = ("import sys; from ztwin.cli import main; rc = main(sys.argv[1:]); "
            "print(rc, sorted(m for m in sys.modules if m.startswith(('ztwin.reports', 'pandas'))))")
    out = subprocess.run([sys.executable, "-c", code, "ingest", str(files["grown"]), "--db", str(tmp_path / "h.duckdb")],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert out.splitlines()[-1] == "0 []", out
    assert counts(tmp_path / "h.duckdb") == rows(29)


def test_spooled_batches_read_in_place_equal_the_written_ones(tmp_path: Path) -> None:
    """The spool's batches read through the memory map (the pages before
    each batch released as it goes) are the written ones, batch for batch."""
    f = tmp_path / "user.arrows"
    rng = np.random.default_rng(11)
    tables = [pa.table({"a": rng.standard_normal(n), "b": np.arange(n, dtype=np.int64) * k,
                        "c": pa.array([f"U{i % 7}" for i in range(n)])})
              for k, n in enumerate((70000, 1, 0, 33333, 65536), 1)]  # fmt: skip
    with pa.ipc.new_stream(str(f), tables[0].schema) as w:
        for t in tables:
            w.write_table(t)
    got = list(history._spooled_batches(f))
    want = [b for t in tables for b in t.to_batches()]
    assert len(got) == len(want) and all(g.equals(w) for g, w in zip(got, want, strict=True))
    # and DuckDB reads the same rows from it
    con = duckdb.connect()
    con.register("s", history._spooled_batches(f))
    n, total = con.execute("SELECT count(*), sum(b) FROM s").fetchall()[0]
    assert (n, total) == (sum(t.num_rows for t in tables), sum(int(t["b"].to_numpy().sum()) for t in tables))


def _rows_reference(tables: dict[str, pa.Table], stored: set[int]) -> tuple[dict[str, pa.Table] | None, int, int]:
    """The stored form of one step's rows as ingest made it in Python before
    ``_native.ingest_rows`` (numpy masks, ``take``, appended columns)."""
    st = tables["system"]
    if st.num_rows == 0:
        return None, 0, 0
    ends = st.column("end_tod").to_numpy().astype(np.uint64)
    idx = st.column("interval").to_numpy().astype(np.int64)
    new = np.array([int(e) not in stored for e in ends.tolist()], dtype=bool)
    added, skipped = int(new.sum()), int((~new).sum())
    if not new.any():
        return None, added, skipped
    base = int(idx[0])
    out = {}
    for entity in history.ENTITIES:
        t = tables[entity]
        iv = t.column("interval").to_numpy().astype(np.int64)
        rows = np.flatnonzero(new[iv - base])
        t, iv = t.take(pa.array(rows, pa.int64())), iv[rows]
        if entity != "system":
            t = t.append_column("end_tod", pa.array(ends[iv - base], pa.uint64()))
        t = t.append_column("ord", pa.array(np.arange(t.num_rows, dtype=np.int64), pa.int64()))
        out[entity] = t.drop_columns(["interval"])
    stored.update(int(e) for e in ends[new].tolist())
    return out, added, skipped


def test_ingest_rows_equal_the_python_reference(files: dict[str, Path]) -> None:
    """The native cut and shape of a step's rows (``_native.ingest_rows``)
    equal the numpy reference on steps with every, no, and some intervals
    stored (not consecutive ones), and the stored ends grow alike."""
    from ztwin._native import ingest_rows
    from ztwin.reports.core import _table

    k = IntervalKernel(str(files["grown"]), None, None, "all", "all", "all")
    steps = []
    more = True
    while more:
        more = k.step(7)
        steps.append(k.take())
    ends = [int(e) for s in steps for e in _table(s["system"]).column("end_tod").to_pylist()]
    assert len(ends) == 29 and len(steps) >= 4
    # stored before: every end of the first step, none of the second, every third one after
    first = {int(e) for e in _table(steps[0]["system"]).column("end_tod").to_pylist()}
    stored = first | set(ends[len(first) + 7::3])
    mine, ref = set(stored), set(stored)
    kinds = set()
    for s in steps:
        tables = {e: _table(t) for e, t in s.items()}
        got, a, sk = ingest_rows(s, mine)
        want, wa, wsk = _rows_reference(tables, ref)
        assert (a, sk) == (wa, wsk) and mine == ref
        kinds.add((a > 0, sk > 0))
        assert (got is None) == (want is None)
        if got is None or want is None:
            continue
        for entity in history.ENTITIES:
            g, w = _table(got[entity]), want[entity]
            assert g.schema.names == w.schema.names and g.schema.types == w.schema.types, entity
            assert g.num_rows == w.num_rows and g.equals(w.cast(g.schema)), entity
    assert {(False, True), (True, False), (True, True)} <= kinds
    assert mine == set(ends)


def test_an_interrupt_while_inserting_leaves_the_database_as_it_was(tmp_path: Path, files: dict[str, Path],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Ctrl-C while DuckDB reads a spooled table (or the streamed one) is
    a KeyboardInterrupt, not DuckDB's report of it, and nothing is added."""
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    real_spool, real_insert = history._spooled_batches, history._insert

    def spool_interrupted(f: Path) -> pa.RecordBatchReader:
        r = real_spool(f)

        def batches() -> Any:
            yield from list(r)[:1]
            raise KeyboardInterrupt

        return pa.RecordBatchReader.from_batches(r.schema, batches())

    calls = []

    def insert_interrupted(*a: Any, **k: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_insert(*a, **k)

    monkeypatch.setattr(history, "CHUNK", 5)
    for name, fake in (("_spooled_batches", spool_interrupted), ("_insert", insert_interrupted)):
        with monkeypatch.context() as m:
            m.setattr(history, name, fake)
            with pytest.raises(KeyboardInterrupt):
                history.ingest(db, [files["grown"]], system="OTHER")
        assert counts(db) == rows(19), name
        with history.open(db) as h:
            assert h.systems() == ["TESTSYS"] and h.files().num_rows == 1, name


def test_a_failed_commit_is_one_line_and_leaves_the_database_as_it_was(
        tmp_path: Path, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """DuckDB ends the transaction itself when its COMMIT fails (out of
    memory on a large file, disk full): the reason is told in one line (it
    was hidden by the ROLLBACK's "no transaction is active"), exit 2, and
    nothing of the file is added; so is an out-of-memory error while
    inserting (a real one: a 1 MB memory limit)."""
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    real = history._run

    def commit_fails(con: Any, sql: str, args: Any = None) -> None:
        if sql == "COMMIT":
            real(con, "ROLLBACK")  # (what DuckDB does when its commit fails)
            raise duckdb.TransactionException("TransactionContext Error: Failed to commit: could not allocate "
                                              "block of size 256.0 KiB (60.8 MiB/61.0 MiB used)\n\nPossible ...")
        real(con, sql, args)

    with monkeypatch.context() as m:
        m.setattr(history, "_run", commit_fails)
        with pytest.raises(history.HistoryError, match=r"cannot add .*grown.monwrite: TransactionContext Error: "
                                                       r"Failed to commit: could not allocate block .*\(nothing added"):
            history.ingest(db, [files["grown"]], system="OTHER")
        capsys.readouterr()
        assert main(["ingest", str(files["grown"]), "--db", str(db), "--system", "OTHER"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("ztwin ingest: ") and "Failed to commit" in err, err
    monkeypatch.setattr(history, "INGEST_MEMORY", "1MB")
    with pytest.raises(history.HistoryError, match=r"cannot add .*grown.monwrite: Out of Memory Error: .*"
                                                   r"\(nothing added"):
        history.ingest(db, [files["grown"]], system="OTHER")
    assert counts(db) == rows(19)
    with history.open(db) as h:
        assert h.systems() == ["TESTSYS"] and h.files().num_rows == 1


def test_a_failing_rollback_does_not_hide_the_reason(tmp_path: Path, files: dict[str, Path],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """When the insert fails (the disk) and DuckDB then refuses the ROLLBACK
    too (a database it invalidated after the write error: every statement is
    a FatalException), the insert's reason is told, not the ROLLBACK's, and
    the connection's memory limit is put back; nothing is added."""
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    real_run, real_store = history._run, history._store

    def run(con: Any, sql: str, args: Any = None) -> None:
        if sql == "ROLLBACK":
            real_run(con, sql, args)
            raise duckdb.FatalException("FATAL Error: database has been invalidated because of a previous fatal error")
        real_run(con, sql, args)

    def store(con: Any, name: str, sysid: str, reader: Any) -> None:
        raise duckdb.IOException("IO Error: Could not write file: No space left on device")

    monkeypatch.setattr(history, "_run", run)
    monkeypatch.setattr(history, "_store", store)
    with pytest.raises(history.HistoryError, match=r"cannot add .*grown.monwrite: IO Error: Could not write file: "
                                                   r"No space left on device \(nothing added"):
        history.ingest(db, [files["grown"]], system="OTHER")
    con = history.connect(db)
    try:
        con.execute("SET memory_limit = '300MB'")
        with pytest.raises(duckdb.IOException, match="No space left"):
            history.ingest_file(con, files["grown"], system="OTHER")
        assert str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]) == "244.1 MiB"
    finally:
        con.close()
    monkeypatch.undo()
    assert counts(db) == rows(19)


def test_an_invalidated_database_is_one_line_naming_the_file(
        tmp_path: Path, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """DuckDB's FatalException while a file's rows go in (it invalidates the
    database after a write it could not finish) is ingest's "cannot add FILE"
    line, not main's "cannot read the history database"."""
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])

    def store(con: Any, name: str, sysid: str, reader: Any) -> None:
        raise duckdb.FatalException("FATAL Error: Failed: database has been invalidated because of a previous fatal error")

    monkeypatch.setattr(history, "_store", store)
    assert main(["ingest", str(files["grown"]), "--db", str(db), "--system", "OTHER"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"ztwin ingest: {db}: cannot add {files['grown']}: FATAL Error: "), err
    assert err.rstrip().endswith("(nothing added from it)"), err


def test_export_of_a_file_duckdb_cannot_take_names_the_file(
        tmp_path: Path, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """``ztwin export FILE OUT`` goes through a temporary database: when
    DuckDB cannot take the file's rows (its memory limit: a real one, 1 MB)
    the one line names the file, as ``ztwin ingest`` does, not a "history
    database" the user never named; nothing is written."""
    monkeypatch.setattr(history, "INGEST_MEMORY", "1MB")
    out = tmp_path / "csv"
    assert main(["export", str(files["grown"]), "--format", "csv", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"ztwin export: {files['grown']}: cannot export: Out of Memory Error: "), err
    assert err.rstrip().endswith("(nothing written)"), err
    assert "history database" not in err, err
    assert not out.exists()


def test_duckdb_caches_little_while_the_live_rows_stream(tmp_path: Path, files: dict[str, Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The live entity's insert runs under DuckDB's lower limit (the row
    group it fills and a small cache of the blocks it wrote: memory flat in
    file size), the other tables and the commit under INGEST_MEMORY, which
    is the connection's limit after a failing file too."""
    limits: dict[str, str] = {}
    real_store, real_insert = history._store, history._insert

    def setting(con: Any) -> str:
        return str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])

    def store(con: Any, name: str, sysid: str, reader: Any) -> None:
        limits[name] = setting(con)
        real_store(con, name, sysid, reader)

    monkeypatch.setattr(history, "_store", store)
    db = tmp_path / "h.duckdb"
    history.ingest(db, [files["short"]])
    assert history._live_memory(pa.schema([pa.field(f"c{i}", pa.int64()) for i in range(50)])) == 79
    with history.open(db) as h:
        schema = h.connection.sql("SELECT * EXCLUDE (system) FROM user_intervals LIMIT 0").to_arrow_table().schema
    assert limits.pop("user_intervals") == f"{history._live_memory(schema)}.0 MiB", limits
    assert len(limits) == 5 and set(limits.values()) == {"244.1 MiB"}, limits  # (INGEST_MEMORY, 256 MB)

    def failing(*a: Any, **k: Any) -> Any:
        if len(limits) == 1:
            raise RuntimeError("disk full")
        return real_insert(*a, **k)

    limits.clear()
    monkeypatch.setattr(history, "CHUNK", 5)
    monkeypatch.setattr(history, "_insert", failing)
    con = history.connect(db)
    try:
        con.execute("SET memory_limit = '300MB'")
        with pytest.raises(RuntimeError, match="disk full"):
            history.ingest_file(con, files["grown"], system="OTHER")
        assert list(limits) == ["user_intervals"] and setting(con) == "244.1 MiB"
    finally:
        con.close()
    assert counts(db) == rows(19)
