"""The advisor's storage-path checks on the twin's own files: cache-off
(S7's pinned data), channel-busy and dasd-queue-no-pav (one FICON CHPID
carrying sixteen busy volumes), and silence where the records say nothing is
wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.advisor import diagnose
from ztwin.studies.base import studies_dir
from ztwin.twin import Scenario


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("adv-iopath")
    out = {"pinned": d / "pinned.monwrite", "chpid": d / "chpid.monwrite", "pav": d / "pav.monwrite"}
    Scenario.load(studies_dir() / "pinned-data.toml").run(out["pinned"], duration=900)
    Scenario.load(studies_dir() / "ess-limits-single-chpid.toml").run(out["chpid"])
    Scenario.load(studies_dir() / "pav-mdc-off.toml").run(out["pav"], duration=180)
    return out


def test_cache_off_with_evidence_only_once_caching_stops(files: dict[str, Path]) -> None:
    d = diagnose(files["pinned"], "09:11:00", "09:15:00")
    f = next(x for x in d.findings if x.id == "cache-off")
    assert f.severity == "critical"
    (ev,) = f.evidence
    assert ev.report == "CACHEXT" and ev.rows[0]["addr"] == "1742"
    assert ev.rows[0]["no_data_pct"] == 100 and ev.rows[0]["cached_before"] is True and ev.rows[0]["disc_ms"] > 15
    assert "QUERY PINNED" in f.recommendation
    assert "cache-off" not in diagnose(files["pinned"], "09:01:00", "09:09:00").ids()


def test_channel_busy_and_queue_without_aliases(files: dict[str, Path]) -> None:
    d = diagnose(files["chpid"])
    by = {f.id: f for f in d.findings}
    ch = by["channel-busy"]
    assert ch.severity == "critical"
    rows = ch.evidence[0].rows
    assert [r["chpid"] for r in rows] == ["40"] and rows[0]["type"] == "FICON" and rows[0]["busy_pct"] > 80
    q = by["dasd-queue-no-pav"]
    assert q.evidence[0].report == "DEVICE" and all(r["queued"] >= 1.0 for r in q.evidence[0].rows)
    assert "PAV" in q.recommendation


def test_no_storage_path_findings_when_all_is_well(files: dict[str, Path]) -> None:
    # December 8 in S7: three ESCON paths at 41 I/O/s, the cache working.
    ids = diagnose(files["pinned"], "09:01:00", "09:09:00").ids()
    assert not {"cache-off", "channel-busy", "dasd-queue-no-pav", "pav-base-queue"} & set(ids)
    # S5 with MDC off: aliases spread the I/O (no queue anywhere), but four
    # FICON paths carry 2,200 I/O/s at 1.45 ms each: about 80% busy, which the
    # advisor says, while pending time stays at 0.3 ms.
    d = diagnose(files["pav"], "10:01:00")
    assert not {"cache-off", "dasd-queue-no-pav", "pav-base-queue", "dasd-pending"} & set(d.ids())
    ch = next(f for f in d.findings if f.id == "channel-busy")
    rows = ch.evidence[0].rows
    assert len(rows) == 4 and all(70 < r["busy_pct"] < 90 for r in rows)


def test_files_without_the_records_give_nothing(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "s1.monwrite"
    Scenario.load(studies_dir() / "paging-single-thread.toml").run(out, duration=120)
    assert not {"cache-off", "channel-busy"} & set(diagnose(out).ids())
