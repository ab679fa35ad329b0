"""The advisor's minidisk cache checks on the twin's own files: mdc-off (S5
with MDC off: 2,200 re-read blocks a second go to DASD), mdc-starved (S5
with MDC on, its 64 MB maximum: a fifth of the reads hit), and silence when
the cache is off on a volume that is read little, or on and big enough."""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.advisor import diagnose
from ztwin.advisor.rules import load_rules
from ztwin.studies.base import studies_dir
from ztwin.twin import Scenario


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("adv-mdc")
    out = {k: d / f"{k}.monwrite" for k in ("off", "capped", "big", "pinned")}
    Scenario.load(studies_dir() / "pav-mdc-off.toml").run(out["off"], duration=180)
    Scenario.load(studies_dir() / "pav-mdc-fixed.toml").run(out["capped"], duration=180)
    # The same with SET MDC STORAGE 0M 1G: the cache grows to hold the data.
    big = (studies_dir() / "pav-mdc-fixed.toml").read_text(encoding="utf-8").replace('storage_max = "64M"', 'storage_max = "1G"')
    assert 'storage_max = "1G"' in big
    (d / "big.toml").write_text(big, encoding="utf-8")
    Scenario.load(d / "big.toml").run(out["big"], duration=240)
    Scenario.load(studies_dir() / "pinned-data.toml").run(out["pinned"], duration=540)
    return out


def test_mdc_off_where_the_reads_are_re_read(files: dict[str, Path]) -> None:
    d = diagnose(files["off"], "10:01:00")
    f = next(x for x in d.findings if x.id == "mdc-off")
    assert f.severity == "critical"
    dev, cu, mdc = f.evidence
    assert (dev.report, cu.report, mdc.report) == ("DEVICE", "CACHEXT", "MDCACHE")
    (row,) = dev.rows
    assert row["addr"] == "E700" and row["read_pct"] == 100 and row["cu_read_hit_pct"] > 95 and row["reads_per_s"] > 2000
    assert cu.rows == [{"addr": "E700", "volser": "LDB307", "read_pct": 100.0, "cu_read_hit_pct": row["cu_read_hit_pct"]}]
    assert mdc.rows[0]["read_rate"] == 0 and "SYSTEM OFF" in f.explanation
    assert "SET MDCACHE" in f.recommendation


def test_mdc_off_silent_with_the_cache_on_or_few_reads(files: dict[str, Path]) -> None:
    assert "mdc-off" not in diagnose(files["capped"], "10:01:00").ids()
    assert "mdc-off" not in diagnose(files["big"], "10:01:00").ids()
    # S7's December: 41 I/O/s of cached reads, MDC off: below the warning level.
    assert "mdc-off" not in diagnose(files["pinned"], "09:01:00", "09:09:00").ids()
    # ... which a lower level reaches.
    rules = load_rules(text="[mdc-off]\nwarning = 20.0\n")
    assert "mdc-off" in diagnose(files["pinned"], "09:01:00", "09:09:00", rules=rules).ids()


def test_mdc_starved_at_its_maximum(files: dict[str, Path]) -> None:
    f = next(x for x in diagnose(files["capped"], "10:01:00").findings if x.id == "mdc-starved")
    assert f.severity == "critical"
    (ev,) = f.evidence
    m = ev.rows[0]
    assert ev.report == "MDCACHE" and m["hit_pct"] < 25 and m["main_frames"] >= 0.95 * m["main_max"]
    assert "SET MDCACHE STORAGE maximum" in ev.summary and "SET MDCACHE STORAGE" in f.recommendation


def test_mdc_starved_silent_when_the_cache_holds_the_data_or_is_off(files: dict[str, Path]) -> None:
    assert "mdc-starved" not in diagnose(files["big"], "10:01:00").ids()
    assert "mdc-starved" not in diagnose(files["off"], "10:01:00").ids()


def _starved_with(monkeypatch: pytest.MonkeyPatch, path: Path, **figs: float | None) -> list[str]:
    """mdc-starved's verdict on the figures `figs` (the cache's records
    replaced): the causes it names, or [] when it stays silent."""
    from ztwin.advisor.checks import mdc

    base: dict[str, float | None] = {
        "read_rate": 500.0, "hit_rate": 100.0, "hit_pct": 20.0, "insert_rate": 400.0, "fair_share_denied_rate": 0.0,
        "main_frames": 5000, "main_frames_mean": 5000.0, "main_target": 6000, "main_min": 0, "main_max": 100000,
    }  # fmt: skip
    base.update(figs)
    monkeypatch.setattr(mdc, "mdc_figures", lambda ctx: base)
    f = next((x for x in diagnose(path, "10:01:00").findings if x.id == "mdc-starved"), None)
    return [] if f is None else [f.severity, f.evidence[0].summary]


def test_mdc_starved_names_each_cause(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    p = files["off"]
    # Nothing holds the cache small: a low hit ratio alone is data read once.
    assert _starved_with(monkeypatch, p) == []
    sev, text = _starved_with(monkeypatch, p, main_frames=99000)
    assert sev == "critical"  # hit 20% is at the critical level
    assert "maximum" in text
    _, text = _starved_with(monkeypatch, p, main_frames_mean=2000.0, main_frames=2000)
    assert "of the arbiter's target" in text
    _, text = _starved_with(monkeypatch, p, main_target=0, main_min=5000)
    assert "minimum" in text
    _, text = _starved_with(monkeypatch, p, fair_share_denied_rate=100.0)
    assert "fair-share" in text
    # Grades: at or below 50% a warning, at or below 20% critical; above 50% none.
    assert _starved_with(monkeypatch, p, main_frames=99000, hit_pct=40.0)[0] == "warning"
    assert _starved_with(monkeypatch, p, main_frames=99000, hit_pct=15.0)[0] == "critical"
    assert _starved_with(monkeypatch, p, main_frames=99000, hit_pct=60.0) == []
    assert _starved_with(monkeypatch, p, main_frames=99000, read_rate=5.0) == []
