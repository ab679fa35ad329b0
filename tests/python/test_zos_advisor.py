"""The z/OS advisor rules (issue 19 item 5): each triggered by a run that
shows it, silent on one that does not, with its evidence from the tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from zos_support import tables, text

from ztwin import zos_advisor


def ids(variant: str) -> dict[str, zos_advisor.ZosFinding]:
    return {f.id: f for f in zos_advisor.diagnose(tables(variant))}


def test_page_data_sets_only_paging_spike_and_large_pages_without_scm() -> None:
    f = ids("dasd")
    assert set(f) == {"zos-paging-spike", "zos-large-pages-not-pageable"}
    spike = f["zos-paging-spike"]
    assert spike.severity == "warning"
    rule = zos_advisor.RULES["zos-paging-spike"]
    assert spike.rows and all(r["pagein_dasd_per_s"] >= rule["pagein_min"] for r in spike.rows)
    assert all(r["ds_resp_us"] >= rule["resp_ratio"] * rule["scm_latency_us"] for r in spike.rows)
    assert "PAGESCM=ALL" in spike.recommendation and "increment(s) of 16 GB" in spike.recommendation
    # The rows are the tables' own figures.
    pg = {r["t_s"]: r for r in tables("dasd").paging.to_pylist()}
    top = spike.rows[0]
    assert top["pagein_dasd_per_s"] == pg[top["t_s"]]["pagein_dasd"] / pg[top["t_s"]]["seconds"]
    lp = f["zos-large-pages-not-pageable"]
    assert [r["jobname"] for r in lp.rows] == ["WASSR1", "WASSR2", "WASSR3"]
    assert all(r["large_mb"] == 2048 for r in lp.rows)


def test_flash_with_room_finds_nothing() -> None:
    assert ids("flash") == {}


def test_flash_full_spills_to_disk() -> None:
    f = ids("flash-small")
    assert "zos-scm-full" in f
    full = f["zos-scm-full"]
    rule = zos_advisor.RULES["zos-scm-full"]
    assert full.rows and all(r["scm_used_pct"] >= rule["used_pct"] and r["pageout_dasd"] >= 1 for r in full.rows)
    assert "more increment(s) online" in full.recommendation
    # Not the spike rule: the data sets see no page-ins.
    assert "zos-paging-spike" not in f


def test_thresholds_decide(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(zos_advisor.RULES, "zos-paging-spike", {**zos_advisor.RULES["zos-paging-spike"],
                                                                 "pagein_min": 10**9})  # fmt: skip
    assert "zos-paging-spike" not in ids("dasd")
    monkeypatch.setitem(zos_advisor.RULES, "zos-scm-full", {**zos_advisor.RULES["zos-scm-full"], "used_pct": 100.0})
    assert "zos-scm-full" not in ids("flash-small")


def test_cli_diagnose(tmp_path: Path) -> None:
    sc = tmp_path / "dasd.toml"
    sc.write_text(text("dasd"), encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "ztwin", "zos", str(sc), "--diagnose"], capture_output=True,
                       text=True, timeout=300)  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "2 findings" in p.stdout
    assert "1. WARNING  zos-paging-spike" in p.stdout and "2. INFO  zos-large-pages-not-pageable" in p.stdout
