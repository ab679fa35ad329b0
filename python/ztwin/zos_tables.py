"""A z/OS partition run's records as interval tables (Arrow), and their
place in the history database (docs/history.md, "z/OS tables").

``tables(run)`` turns the records of one run (:class:`ztwin.zos.ZosRun`)
into four Arrow tables, one row per interval (1 s of the online phase) and
key:

* ``zos_paging``: the partition (transactions, page-ins and page-outs by
  tier, free frames, slots in use, smoothed responses),
* ``zos_pds``: per local page data set (slots used, I/O, pages, busy,
  summed response),
* ``zos_scm``: storage-class memory (slots, slots used, pages read and
  written, EADM requests, smoothed response),
* ``zos_asid``: per address space (frames, slots on SCM and on page data
  sets, pages read in).

Every row carries ``system`` (the partition), ``run`` (an id of the run:
the first 16 hex digits of the SHA-256 of its records, so the same run
stored twice adds nothing) and ``t_s`` (the interval's end, seconds after
the online work started). ``store(db, run)`` adds them to a history
database; ``load(db, system, run)`` reads one run back as the same tables.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ztwin import zos

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

__all__ = ["TABLES", "ZosTables", "create_tables", "load", "runs", "store", "tables"]

#: The z/OS tables and their columns (name, DuckDB type), keys first.
TABLES: dict[str, list[tuple[str, str]]] = {
    "zos_paging": [
        ("system", "VARCHAR"), ("run", "VARCHAR"), ("t_s", "DOUBLE"), ("seconds", "DOUBLE"),
        ("tx", "BIGINT"), ("resp_s", "DOUBLE"),
        ("pagein_scm", "BIGINT"), ("pagein_scm_1m", "BIGINT"), ("pagein_dasd", "BIGINT"), ("pagein_spec", "BIGINT"),
        ("pageout_scm", "BIGINT"), ("pageout_scm_1m", "BIGINT"), ("pageout_dasd", "BIGINT"),
        ("pageout_vio_dasd", "BIGINT"), ("pageout_vio_scm", "BIGINT"), ("large_split", "BIGINT"),
        ("frames_free", "BIGINT"), ("scm_slots_used", "BIGINT"), ("ds_slots_used", "BIGINT"),
        ("system_nd_s", "DOUBLE"), ("scm_resp_us", "DOUBLE"), ("ds_resp_us", "DOUBLE"), ("lp_speed", "DOUBLE"),
    ],
    "zos_pds": [
        ("system", "VARCHAR"), ("run", "VARCHAR"), ("t_s", "DOUBLE"), ("dsname", "VARCHAR"), ("devno", "INTEGER"),
        ("lcu", "INTEGER"), ("slots", "BIGINT"), ("used", "BIGINT"), ("plpa", "BOOLEAN"), ("reads", "BIGINT"),
        ("writes", "BIGINT"), ("pages_read", "BIGINT"), ("pages_written", "BIGINT"), ("busy_s", "DOUBLE"),
        ("resp_s", "DOUBLE"),
    ],
    "zos_scm": [
        ("system", "VARCHAR"), ("run", "VARCHAR"), ("t_s", "DOUBLE"), ("slots", "BIGINT"), ("used", "BIGINT"),
        ("online_bytes", "BIGINT"), ("max_bytes", "BIGINT"), ("increment_bytes", "BIGINT"),
        ("pages_read", "BIGINT"), ("pages_written", "BIGINT"), ("reads", "BIGINT"), ("writes", "BIGINT"),
        ("resp_us", "DOUBLE"), ("latency_4k_us", "DOUBLE"),
    ],
    "zos_asid": [
        ("system", "VARCHAR"), ("run", "VARCHAR"), ("t_s", "DOUBLE"), ("asid", "INTEGER"), ("jobname", "VARCHAR"),
        ("kind", "VARCHAR"), ("pages", "BIGINT"), ("large_pages", "BIGINT"), ("frames", "BIGINT"),
        ("scm_slots", "BIGINT"), ("ds_slots", "BIGINT"), ("pageins", "BIGINT"),
    ],
}  # fmt: skip
KEYS = {"zos_paging": ["system", "run", "t_s"], "zos_pds": ["system", "run", "t_s", "dsname"],
        "zos_scm": ["system", "run", "t_s"], "zos_asid": ["system", "run", "t_s", "asid"]}  # fmt: skip


@dataclass
class ZosTables:
    """One run's tables (``paging``, ``pds``, ``scm``, ``asid``)."""

    system: str
    run: str
    paging: pa.Table
    pds: pa.Table
    scm: pa.Table
    asid: pa.Table

    def by_name(self) -> dict[str, pa.Table]:
        return {"zos_paging": self.paging, "zos_pds": self.pds, "zos_scm": self.scm, "zos_asid": self.asid}


def run_id(r: zos.ZosRun) -> str:
    """The run's id: SHA-256 of its records (canonical JSON), 16 hex digits."""
    return hashlib.sha256(json.dumps(r.doc, sort_keys=True).encode()).hexdigest()[:16]


def _schema(name: str) -> pa.Schema:
    import pyarrow as pa

    typ = {"VARCHAR": pa.string(), "DOUBLE": pa.float64(), "BIGINT": pa.int64(), "INTEGER": pa.int32(),
           "BOOLEAN": pa.bool_()}  # fmt: skip
    return pa.schema([(c, typ[t]) for c, t in TABLES[name]])


def _table(name: str, rows: list[dict[str, Any]]) -> pa.Table:
    import pyarrow as pa

    sch = _schema(name)
    return pa.table({f.name: pa.array([r[f.name] for r in rows], f.type) for f in sch}, schema=sch)


def tables(r: zos.ZosRun) -> ZosTables:
    """The run's records as the four interval tables."""
    d = r.doc
    system, rid = str(d["partition"]), run_id(r)
    key = {"system": system, "run": rid}
    ivs = r.intervals
    prev = 0.0
    paging, scm = [], []
    scm_slots = int(d["scm_bytes"]) // 4096
    for iv in ivs:
        row = {**key, **{c: iv[c] for c, _ in TABLES["zos_paging"] if c in iv}, "seconds": iv["t_s"] - prev}
        paging.append(row)
        if scm_slots:
            scm.append({
                **key, "t_s": iv["t_s"], "slots": scm_slots, "used": iv["scm_slots_used"],
                "online_bytes": d["scm_online_bytes"], "max_bytes": d["scm_max_bytes"],
                "increment_bytes": d["scm_increment_bytes"],
                "pages_read": iv["pagein_scm"] + 256 * iv["pagein_scm_1m"] + iv["pagein_spec"],
                "pages_written": iv["pageout_scm"] + 256 * iv["pageout_scm_1m"],
                "reads": iv["pagein_scm"] + iv["pagein_scm_1m"], "writes": iv["pageout_scm"] + iv["pageout_scm_1m"],
                "resp_us": iv["scm_resp_us"], "latency_4k_us": d["scm_latency_4k_us"],
            })  # fmt: skip
        prev = iv["t_s"]
    dss = r.data_sets
    plpa = d.get("plpa_ds")
    pds = [
        {
            **key, "t_s": x["t_s"], "dsname": dss[x["ds"]]["name"], "devno": dss[x["ds"]]["devno"],
            "lcu": dss[x["ds"]]["lcu"], "slots": dss[x["ds"]]["slots"], "used": x["used"], "plpa": x["ds"] == plpa,
            "reads": x["reads"], "writes": x["writes"], "pages_read": x["pages_read"],
            "pages_written": x["pages_written"], "busy_s": x["busy_s"], "resp_s": x["resp_s"],
        }
        for x in d["ds_intervals"]
    ]  # fmt: skip
    spaces = {a["asid"]: a for a in d["address_spaces"]}
    asid = [
        {
            **key, "t_s": x["t_s"], "asid": x["asid"], "jobname": spaces[x["asid"]]["name"],
            "kind": spaces[x["asid"]]["kind"], "pages": spaces[x["asid"]]["pages"],
            "large_pages": spaces[x["asid"]]["large_pages"], "frames": x["frames"], "scm_slots": x["scm_slots"],
            "ds_slots": x["ds_slots"], "pageins": x["pageins"],
        }
        for x in d["as_intervals"]
    ]  # fmt: skip
    return ZosTables(system, rid, _table("zos_paging", paging), _table("zos_pds", pds), _table("zos_scm", scm),
                     _table("zos_asid", asid))  # fmt: skip


# --------------------------------------------------------------------------
# The history database
# --------------------------------------------------------------------------


def create_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Create the z/OS tables (schema version 2) where missing."""
    for name, cols in TABLES.items():
        body = ", ".join(f'"{c}" {t}' for c, t in cols)
        con.execute(f"CREATE TABLE IF NOT EXISTS {name} ({body})").fetchall()


def store(db: str | os.PathLike[str], t: ZosTables) -> int:
    """Add one run's tables to the history database ``db`` (created when
    missing, migrated from version 1) in one transaction; returns the
    intervals added (0 when the run is already stored)."""
    from ztwin import history

    con = history.connect(db, create=True)
    try:
        have = con.execute("SELECT count(*) FROM zos_paging WHERE system = ? AND run = ?", [t.system, t.run]).fetchall()
        if have[0][0]:
            return 0
        con.execute("BEGIN TRANSACTION").fetchall()
        try:
            for name, tab in t.by_name().items():
                con.register("zos_new", tab)
                cols = ", ".join(f'"{c}"' for c, _ in TABLES[name])
                con.execute(f"INSERT INTO {name} ({cols}) SELECT {cols} FROM zos_new").fetchall()
                con.unregister("zos_new")
            con.execute("COMMIT").fetchall()
        except BaseException:
            con.execute("ROLLBACK").fetchall()
            raise
        return int(t.paging.num_rows)
    finally:
        con.close()


def runs(db: str | os.PathLike[str]) -> list[tuple[str, str, int]]:
    """The z/OS runs stored in ``db``: (system, run, intervals)."""
    from ztwin import history

    con = history.connect(db, read_only=True)
    try:
        if not _has_zos(con):
            return []
        rows = con.execute(
            "SELECT system, run, count(*) FROM zos_paging GROUP BY system, run ORDER BY system, run"
        ).fetchall()
        return [(str(a), str(b), int(c)) for a, b, c in rows]
    finally:
        con.close()


def _has_zos(con: duckdb.DuckDBPyConnection) -> bool:
    r = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'zos_paging'").fetchall()
    return bool(r[0][0])


def load(db: str | os.PathLike[str], system: str | None = None, run: str | None = None) -> ZosTables:
    """One stored run's tables; ``system`` and ``run`` may be omitted when
    the database holds one. Raises ``history.HistoryError`` naming the
    database and the reason."""
    from ztwin import history

    have = runs(db)
    pick = [x for x in have if (system is None or x[0].upper() == system.upper()) and (run is None or x[1] == run)]
    if not have:
        raise history.HistoryError(f"{db}: no z/OS run stored (ztwin zos SCENARIO --db {db} stores one)")
    if not pick:
        what = " ".join(f"{k} {v}" for k, v in (("system", system), ("run", run)) if v)
        raise history.HistoryError(f"{db}: no z/OS run stored for {what} (stored: "
                                   f"{', '.join(f'{a}/{b}' for a, b, _ in have)})")  # fmt: skip
    if len(pick) > 1:
        raise history.HistoryError(f"{db}: several z/OS runs match ({', '.join(f'{a}/{b}' for a, b, _ in pick)}): "
                                   "name one with --system and --run")  # fmt: skip
    sysid, rid, _ = pick[0]
    con = history.connect(db, read_only=True)
    try:
        out = {}
        for name in TABLES:
            order = ", ".join(KEYS[name][2:])
            rel = con.sql(f"SELECT * FROM {name} WHERE system = $1 AND run = $2 ORDER BY {order}", params=[sysid, rid])
            out[name] = rel.to_arrow_table().select([c for c, _ in TABLES[name]]).cast(_schema(name))
    finally:
        con.close()
    return ZosTables(sysid, rid, out["zos_paging"], out["zos_pds"], out["zos_scm"], out["zos_asid"])
