"""z/OS partition runs as interval tables, in the history database, the
RMF-style reports from them and the operator console (issue 19 item 4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from zos_support import STUDY, run, tables, text

from ztwin import history, zos_reports, zos_tables
from ztwin.zos_console import ZosConsole

SNAP = Path(__file__).parent / "zos_snapshots"


def snapshot(name: str, got: str) -> None:
    path = SNAP / name
    if os.environ.get("ZTWIN_UPDATE_SNAPSHOTS") == "1":
        path.write_text(got, encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with ZTWIN_UPDATE_SNAPSHOTS=1 and review it"
    assert got == path.read_text(encoding="utf-8")


# ---------------------------------------------------------------- tables


def test_tables_come_from_the_records_and_add_up() -> None:
    r, t = run("flash"), tables("flash")
    n = len(r.intervals)
    assert t.paging.num_rows == n and t.scm.num_rows == n
    assert t.pds.num_rows == n * r.doc["ds_count"]
    assert t.asid.num_rows == n * len(r.doc["address_spaces"])
    for name, tab in t.by_name().items():
        assert tab.column_names == [c for c, _ in zos_tables.TABLES[name]]
        assert set(tab.column("run").to_pylist()) == {t.run}
    # Per interval: the data sets' slots are the partition's; frames of the
    # address spaces plus the free ones are real storage.
    pg = {row["t_s"]: row for row in t.paging.to_pylist()}
    used: dict[float, int] = {}
    for row in t.pds.to_pylist():
        used[row["t_s"]] = used.get(row["t_s"], 0) + row["used"]
    assert all(used[k] == pg[k]["ds_slots_used"] for k in pg)
    frames: dict[float, int] = {}
    for row in t.asid.to_pylist():
        frames[row["t_s"]] = frames.get(row["t_s"], 0) + row["frames"]
    assert all(frames[k] + pg[k]["frames_free"] == r.doc["real_bytes"] // 4096 for k in pg)
    scm = t.scm.to_pylist()
    assert all(s["used"] == pg[s["t_s"]]["scm_slots_used"] for s in scm)
    # Without SCM there is no SCM row; the run id follows the records.
    d = tables("dasd")
    assert d.scm.num_rows == 0 and d.run != t.run
    assert zos_tables.tables(run("flash")).run == t.run


def test_history_store_is_idempotent_and_loads_the_same_tables(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    t = tables("flash")
    assert zos_tables.store(db, t) == t.paging.num_rows
    assert zos_tables.store(db, t) == 0
    zos_tables.store(db, tables("dasd"))
    assert {x[1] for x in zos_tables.runs(db)} == {t.run, tables("dasd").run}
    back = zos_tables.load(db, run=t.run)
    for name, tab in t.by_name().items():
        assert back.by_name()[name].equals(tab), name
    with pytest.raises(history.HistoryError, match="several z/OS runs match"):
        zos_tables.load(db)
    with pytest.raises(history.HistoryError, match="no z/OS run stored for system NOPE"):
        zos_tables.load(db, system="NOPE")


def test_a_version_1_database_is_migrated_by_the_store_and_read_as_it_is(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    con = history.connect(db, create=True)
    for name in zos_tables.TABLES:
        con.execute(f"DROP TABLE {name}").fetchall()
    con.execute("UPDATE ztwin_meta SET value = '1' WHERE key = 'schema_version'").fetchall()
    con.close()
    # Read-only: accepted, not changed, no z/OS run.
    assert zos_tables.runs(db) == []
    con = history.connect(db, read_only=True)
    assert con.execute("SELECT value FROM ztwin_meta WHERE key = 'schema_version'").fetchall() == [("1",)]
    con.close()
    # Writing migrates it to version 2.
    assert zos_tables.store(db, tables("dasd")) > 0
    con = history.connect(db, read_only=True)
    assert con.execute("SELECT value FROM ztwin_meta WHERE key = 'schema_version'").fetchall() == [("2",)]
    con.close()
    assert history.SCHEMA_VERSION == 2


# ---------------------------------------------------------------- reports


def _local(line: str) -> bool:
    return line.startswith(("LOCAL ", "LOCAL* "))


def test_page_data_set_activity_snapshot() -> None:
    t = tables("flash")
    lines = zos_reports.page_data_set_activity(t, 20.0)
    snapshot("pdsact-flash.txt", "\n".join(lines) + "\n")
    # The SCM line and the 16 local data sets in each of the two report intervals.
    assert sum(1 for ln in lines if ln.startswith("SCM ")) == 2
    assert sum(1 for ln in lines if _local(ln)) == 32
    dasd = zos_reports.page_data_set_activity(tables("dasd"), 20.0)
    assert sum(1 for ln in dasd if ln.startswith("SCM    not in use")) == 2


def test_page_data_set_activity_counts_every_io_once() -> None:
    t = tables("dasd")
    lines = zos_reports.page_data_set_activity(t, 1000.0)
    ios = sum(int(ln.split()[9]) for ln in lines if _local(ln))
    rows = t.pds.to_pylist()
    assert ios == sum(r["reads"] + r["writes"] for r in rows) > 0


def test_storage_frames_snapshot() -> None:
    t = tables("flash")
    lines = zos_reports.storage_frames(t, 20.0)
    snapshot("storf-flash.txt", "\n".join(lines) + "\n")
    assert any(ln.startswith("DB2DBM1 ") for ln in lines)


def test_report_interval_must_be_positive() -> None:
    with pytest.raises(ValueError, match="must be positive"):
        list(zos_reports.windows(tables("flash"), 0))


# ---------------------------------------------------------------- console


def test_console_displays() -> None:
    con = ZosConsole(tables("flash"))
    asm = con.command("D ASM")
    assert asm[0].startswith("IEE200I 00.00.01 DISPLAY ASM 001")
    assert asm[1].split() == ["TYPE", "FULL", "STAT", "DEV", "DATASET", "NAME"]
    assert sum(1 for ln in asm if ln.startswith("LOCAL")) == 16
    assert asm[-2].startswith("SCM ") and asm[-1] == "PAGEDEL COMMAND IS NOT ACTIVE"
    con.move_to(30)
    scm = con.command("display asm,scm")
    assert scm[0].startswith("IEE207I 00.00.30 DISPLAY ASM 002")
    size, used = (int(x.replace(",", "")) for x in scm[2].split()[2:4])
    row = next(r for r in tables("flash").scm.to_pylist() if r["t_s"] == 30.0)
    assert (size, used) == (row["slots"], row["used"])
    m = con.command("D M=SCM")
    assert m[0].startswith("IEE174I 00.00.30 DISPLAY M 003")
    assert m[2:5] == ["128G DEFINED", "ONLINE", "  0G-64G"] and m[-1] == "SCM INCREMENT SIZE IS 16G"
    one = con.command("D ASM,PAGE=PAGE.ZOS1.LOCAL03")
    assert [ln.split()[-1] for ln in one if ln.startswith("LOCAL")] == ["PAGE.ZOS1.LOCAL03"]
    assert con.command("D ASM,PAGE=NO.SUCH")[-1] == "NO.SUCH IS NOT A PAGE DATA SET IN USE"
    assert con.command("FOO BAR") == ["IEE305I FOO COMMAND INVALID"]
    assert con.command("D ASM,XYZ") == ["IEE305I DISPLAY COMMAND INVALID"]
    assert con.command("D XYZ")[0].startswith("ZTWIN: D XYZ is not modelled")
    # Without SCM: no SCM line, D ASM,SCM and D M=SCM say so.
    d = ZosConsole(tables("dasd"))
    assert not any(ln.startswith("SCM ") for ln in d.command("D ASM"))
    assert d.command("D ASM,SCM")[1].startswith("SCM NOT USED FOR PAGING")
    assert d.command("D M=SCM")[2].startswith("NO STORAGE-CLASS MEMORY")


def test_console_time_moves_over_the_intervals() -> None:
    con = ZosConsole(tables("flash"))
    assert con.now == 1.0
    con.move_to(12.5)
    assert con.at() == 12.0
    con.move_to(10_000)
    assert con.now == con.end()


def _zos(args: list[str], stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ztwin", "zos", *args], input=stdin, capture_output=True,
                          text=True, timeout=300, cwd=cwd)  # fmt: skip


def test_console_script_through_stdin_snapshot(tmp_path: Path) -> None:
    sc = tmp_path / "flash.toml"
    sc.write_text(text("flash"), encoding="utf-8")
    script = "D ASM\nstep 29s\nD ASM,SCM\nD M=SCM\ntime\nstep x\nFOO\nhelp\nend\nD ASM\n"
    p = _zos([str(sc), "--console"], script)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    out = p.stdout.replace(str(sc), "SCENARIO")
    snapshot("console-flash.txt", out)
    assert "ztwin> step x\nstep: " in out
    assert out.rstrip().endswith("ztwin> end")


def test_cli_db_store_then_reports_and_console_from_it(tmp_path: Path) -> None:
    sc = tmp_path / "dasd.toml"
    sc.write_text(text("dasd"), encoding="utf-8")
    db = tmp_path / "h.duckdb"
    p = _zos([str(sc), "--db", str(db), "-r", "PDSACT", "--interval", "20s"])
    assert p.returncode == 0, p.stderr
    assert "interval(s) added" in p.stderr
    q = _zos(["--db", str(db), "-r", "PDSACT", "--interval", "20s"])
    assert q.returncode == 0, q.stderr
    assert q.stdout == p.stdout
    c = _zos(["--db", str(db), "--console"], "D ASM\nend\n")
    assert c.returncode == 0 and "IEE200I" in c.stdout


@pytest.mark.parametrize(("args", "msg"), [
    (["--db", "MISSING"], "MISSING: no such history database"),
    ([], "give a SCENARIO, or --db PATH"),
    (["--interval", "0s", str(STUDY)], "--interval"),
    ([str(STUDY), "--run", "abc"], "--system and --run choose a stored run"),
])  # fmt: skip
def test_cli_errors_are_one_line(tmp_path: Path, args: list[str], msg: str) -> None:
    p = _zos(args, cwd=tmp_path)
    assert p.returncode == 2
    assert p.stdout == ""
    assert msg in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_ztwin_console_on_a_zos_scenario_is_the_zos_console(tmp_path: Path) -> None:
    sc = tmp_path / "flash.toml"
    sc.write_text(text("flash"), encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "ztwin", "console", str(sc)], input="D M=SCM\nD U\nend\n",
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "IEE174I 00.00.01 DISPLAY M 001" in p.stdout
    assert "ZTWIN: D U is not modelled" in p.stdout
