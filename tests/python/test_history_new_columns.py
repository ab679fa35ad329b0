"""A history database an older ztwin created keeps taking files after the
interval kernel learned a new sum (here the devices' PAV counters): the
table gets the column, its earlier rows NULL."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ztwin import history
from ztwin.reports import build_from
from ztwin.studies.base import studies_dir
from ztwin.twin import Scenario


def test_ingest_adds_columns_an_older_database_lacks(tmp_path: Path) -> None:
    a, b = tmp_path / "a.monwrite", tmp_path / "b.monwrite"
    Scenario.load(studies_dir() / "pinned-data.toml").run(a, duration=180)
    Scenario.load(studies_dir() / "pav-mdc-defect.toml").run(b, duration=180)
    db = tmp_path / "h.db"
    history.ingest(db, [a])
    con = duckdb.connect(str(db))  # as an older ztwin made it: no PAV sums
    con.execute("ALTER TABLE device_intervals DROP COLUMN pav_uses")
    con.execute("ALTER TABLE device_intervals DROP COLUMN pav_inelig")
    con.close()
    (res,) = history.ingest(db, [b])
    assert res.intervals_added > 0
    con = duckdb.connect(str(db), read_only=True)
    cols = {r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'device_intervals'").fetchall()}
    nulls = con.execute("SELECT count(*) FROM device_intervals WHERE pav_uses IS NULL").fetchone()
    con.close()
    assert {"pav_uses", "pav_inelig"} <= cols and nulls is not None and nulls[0] > 0
    h = history.open(db)
    rows = build_from(h.intervals("GDLSPRF3"), ["DEVICE"])["DEVICE"].rows
    h.close()
    base = next(r for r in rows if r["addr"] == "E700")
    assert base["pav"] == "BASE" and base["base_only_rate"] > 0
