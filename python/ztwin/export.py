"""``ztwin export``: the interval tables as Parquet (partitioned by system and
day, hive style), CSV, or OpenMetrics text with timestamps (for backfilling
Prometheus). Metric names and the layout: ``docs/history.md``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ztwin.history import ENTITIES, History, HistoryError, connect, error_line, ingest_file, storage_errors, table_name
from ztwin.reports.core import EPOCH_1900_US

if TYPE_CHECKING:
    from ztwin.reports.core import Intervals

#: System figures exported as ``ztwin_system_<name>{system="..."}``.
SYSTEM_METRICS = (
    "cpu_busy_pct", "cpus_online", "tv_ratio", "capture_ratio", "users_logged", "users_active",
    "users_in_elist", "ssch_rate", "dasd_io_rate", "dasd_resp_ms", "page_rate", "read_write_rate",
    "xstor_rate", "spool_rate", "steal_rate", "frame_wait_rate", "emergency_scan_rate", "avail_frames",
    "pageable_frames", "slots_used_pct", "xstor_used_pct",
)  # fmt: skip
#: Per user: ``ztwin_user_<name>{system="...",userid="..."}``.
USER_METRICS = ("cpu_total_pct", "act_pct", "pgw_pct", "page_reads", "wss", "resident")
#: Per device: ``ztwin_device_<name>{system="...",device="0200"}``.
DEVICE_METRICS = ("io_rate", "resp_ms", "busy_pct", "queued")
HELP = {
    "cpu_busy_pct": "mean processor busy percent (100 - wait)",
    "tv_ratio": "total / virtual CPU time of the users",
    "ssch_rate": "SSCH + RSCH issued by CP per second",
    "dasd_resp_ms": "I/O-weighted mean DASD response time in milliseconds",
    "page_rate": "PGIN + PGOUT per second",
    "read_write_rate": "DASD page reads + writes per second",
}


def metric_names() -> list[str]:
    """Every metric name an OpenMetrics export can contain."""
    return ([f"ztwin_system_{m}" for m in SYSTEM_METRICS] + [f"ztwin_user_{m}" for m in USER_METRICS]
            + [f"ztwin_device_{m}" for m in DEVICE_METRICS])  # fmt: skip


def _unix_s(end_tod: int) -> float:
    return (end_tod // 4096 - EPOCH_1900_US) / 1e6


def _fmt(v: float) -> str:
    return repr(float(v))


def _q(s: str) -> str:
    """Text inside single quotes in SQL."""
    return s.replace("'", "''")


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def openmetrics_lines(per_system: list[tuple[str, Intervals]]) -> Iterator[str]:
    """OpenMetrics text: one family per metric, samples in time order."""
    from ztwin.reports.metrics import device_metrics, user_metrics

    for m in SYSTEM_METRICS:
        name = f"ztwin_system_{m}"
        yield f"# TYPE {name} gauge\n"
        yield f"# HELP {name} {HELP.get(m, m.replace('_', ' '))} (ztwin, per monitor interval)\n"
        for sysid, iv in per_system:
            lab = f'{{system="{_esc(sysid)}"}}'
            for s in iv.intervals:
                v = s.metrics().get(m)
                if v is not None:
                    yield f"{name}{lab} {_fmt(v)} {_unix_s(s.end_tod):.3f}\n"
    for kind, names, series_of, derive, label in (
        ("user", USER_METRICS, "user_series", user_metrics, "userid"),
        ("device", DEVICE_METRICS, "device_series", device_metrics, "device"),
    ):
        for m in names:
            name = f"ztwin_{kind}_{m}"
            yield f"# TYPE {name} gauge\n"
            yield f"# HELP {name} {kind} {m.replace('_', ' ')} (ztwin, per monitor interval)\n"
            for sysid, iv in per_system:
                for key, series in getattr(iv, series_of).items():
                    k = f"{key:04X}" if isinstance(key, int) else str(key)
                    lab = f'{{system="{_esc(sysid)}",{label}="{_esc(k)}"}}'
                    for idx, raw in series:
                        v = derive(raw).get(m)
                        if v is not None:
                            yield f"{name}{lab} {_fmt(v)} {_unix_s(iv.intervals[idx].end_tod):.3f}\n"
    yield "# EOF\n"


def export_db(db: str | Path, fmt: str, out: str | Path, system: str | None = None) -> list[Path]:
    """Export a history database; returns what was written."""
    out = Path(out)
    with History(db, connect(db, read_only=True)) as h:
        systems = [h.resolve_system(system)] if system else h.systems()
        if not systems:
            raise HistoryError(f"{db}: nothing ingested yet")
        con = h.connection
        written: list[Path] = []
        if fmt == "openmetrics":
            per = [(s, h.intervals(s, detail=True)) for s in systems]
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_name(out.name + ".tmp")
            with tmp.open("w", encoding="utf-8") as f:
                for line in openmetrics_lines(per):
                    f.write(line)
            tmp.replace(out)
            return [out]
        out.mkdir(parents=True, exist_ok=True)
        where = "" if system is None else " WHERE system = ?"
        args: list[Any] = [] if system is None else [system]
        for e in ENTITIES:
            src = f"SELECT *, CAST(\"end\" AS DATE) AS day FROM {table_name(e)}{where}"
            dest = out / e
            if fmt == "parquet":
                con.execute(f"COPY ({src}) TO '{_q(str(dest))}' (FORMAT PARQUET, PARTITION_BY (system, day), "
                            "OVERWRITE_OR_IGNORE)", args).fetchall()  # fmt: skip
                written.append(dest)
            else:
                path = out / f"{e}.csv"
                # ord: the kernel's row order within an interval (without it, DuckDB's
                # parallel sort gave rows of equal end_tod in a different order each run)
                con.execute(f"COPY ({src} ORDER BY system, end_tod, ord) TO '{_q(str(path))}' (HEADER, DELIMITER ',')",
                            args).fetchall()  # fmt: skip
                written.append(path)
        return written


def export_file(path: str | Path, fmt: str, out: str | Path, system: str | None = None) -> list[Path]:
    """Export a MONWRITE file (through a temporary history database)."""
    with tempfile.TemporaryDirectory(prefix="ztwin-export-") as d:
        db = Path(d) / "x.duckdb"
        con = connect(db, create=True)
        try:
            r = ingest_file(con, path, system=system)
        except storage_errors() as e:
            # DuckDB could not take the rows (its memory limit, the disk): the
            # file, as ``ztwin ingest`` names it, not the temporary database.
            raise HistoryError(f"{path}: cannot export: {error_line(e)} (nothing written)") from None
        finally:
            con.close()
        if not r.intervals_added:
            # Not export_db's "nothing ingested yet", which names the temporary database.
            damage = f"; {r.damage_count} damaged byte range(s) skipped" if r.damage_count else ""
            raise HistoryError(f"{path}: no complete sample interval to export{damage}")
        return export_db(db, fmt, out)
