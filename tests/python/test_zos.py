"""The z/OS partition with Flash Express (issue 19): the study's short form,
its figures from the records, bad input named by file, line and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ztwin import zos
from ztwin.studies import run_study
from ztwin.studies.base import studies_dir
from ztwin.twin import ScenarioError

METRICS = {
    "steady_state_s", "transactions_first_45s", "avg_response_s_first_45s", "peak_pagein_per_s", "svc_dump_s",
    "max_as_nondispatchable_s", "system_nondispatchable_s", "sa_dump_s", "sa_dump_paging_wait_s", "sa_dump_read_mb_s",
}


def test_flash_morning_transition_study(tmp_path: Path) -> None:
    res = run_study("flash-morning-transition", quick=True, workdir=tmp_path)
    assert res.ok, [c.to_json() for c in res.failed_required]
    by = {c.id: c for c in res.checks}
    assert all(by[f"F1-S{i}"].ok for i in range(1, 8))
    doc = res.to_json()
    figs = doc["figures"]
    assert set(figs) == {"dasd", "flash"}
    for v in figs.values():
        assert set(v) == METRICS
        assert all(x is not None for x in v.values())
    d, f = figs["dasd"], figs["flash"]
    # Flash: faster recovery, shorter dumps, a faster stand-alone dump read.
    assert f["steady_state_s"] < d["steady_state_s"]
    assert f["svc_dump_s"] < d["svc_dump_s"] and f["sa_dump_s"] < d["sa_dump_s"]
    assert f["sa_dump_read_mb_s"] > d["sa_dump_read_mb_s"]
    assert f["system_nondispatchable_s"] < d["system_nondispatchable_s"]
    # Every metric is explained.
    assert set(res.info["derivation"]) == METRICS
    json.dumps(doc)


def test_zos_study_files_are_valid() -> None:
    from ztwin._native import run_zos

    # studies/*.toml are z/VM scenarios (test_twin); z/OS ones are in studies/zos/.
    files = sorted((studies_dir() / "zos").glob("*.toml"))
    assert files
    for f in files:
        text = f.read_text(encoding="utf-8").replace('duration = "240s"', 'duration = "5s"').replace('svc_at = "150s"', 'svc_at = "2s"')
        assert json.loads(run_zos(text, str(f)))["intervals"]


def test_figures_come_from_the_records_and_repeat() -> None:
    a = zos.run(studies_dir() / "zos" / "flash-morning-transition.toml", pagescm="ALL")
    b = zos.run(studies_dir() / "zos" / "flash-morning-transition.toml", pagescm="ALL")
    assert a.doc == b.doc
    f = zos.figures(a)
    ivs = a.intervals
    assert f["transactions_first_45s"] == sum(i["tx"] for i in ivs if i["t_s"] <= 45)
    assert f["peak_pagein_per_s"] == max(zos.pagein_pages(i) for i in ivs)
    sa = a.op("sa_dump")
    assert sa is not None and f["sa_dump_paging_wait_s"] == round(sa["aux_read_s"], 3)
    # The page data sets as the activity report would show them.
    assert len(a.data_sets) == 16 and {d["lcu"] for d in a.data_sets} == set(range(8))


def _bad(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    text = (studies_dir() / "zos" / "flash-morning-transition.toml").read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new)
    p = tmp_path / "bad.toml"
    p.write_text(text, encoding="utf-8")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(new.split("\n")[0]))
    return p, line


def test_pagescm_larger_than_allocation(tmp_path: Path) -> None:
    p, line = _bad(tmp_path, 'pagescm = "NONE"', 'pagescm = "96G"')
    with pytest.raises(ScenarioError) as e:
        zos.run(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}: line {line}: zos.pagescm: 96G: larger than"), msg
    assert "\n" not in msg


def test_flash_over_card_capacity_and_increments(tmp_path: Path) -> None:
    p, line = _bad(tmp_path, 'initial = "64G"', 'initial = "2048G"')
    with pytest.raises(ScenarioError) as e:
        zos.run(p)
    assert f"line {line}: flash.partition[0].initial" in str(e.value) and "over the usable capacity" in str(e.value)
    p, line = _bad(tmp_path, 'initial = "64G"', 'initial = "40G"')
    with pytest.raises(ScenarioError, match="increments of 16G"):
        zos.run(p)


def test_cli_prints_figures_and_page_data_set_activity(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from ztwin.cli import main

    assert main(["zos", str(studies_dir() / "zos" / "flash-morning-transition.toml"), "--pagescm", "ALL"]) == 0
    out = capsys.readouterr().out
    assert "PAGE DATA SET ACTIVITY" in out and "PAGE.ZOS1.LOCAL16" in out
    assert any(line.startswith("SCM ") and "16777216" in line for line in out.splitlines())
    assert all(m in out for m in METRICS)
    assert main(["zos", str(studies_dir() / "zos" / "flash-morning-transition.toml"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["scm_bytes"] == 0 and set(doc["figures"]) == METRICS
    p, _ = _bad(tmp_path, 'pagescm = "NONE"', 'pagescm = "96G"')
    assert main(["zos", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ztwin zos: ") and "zos.pagescm: 96G" in err and err.count("\n") == 1


def _page_trans(lines: list[str]) -> list[float]:
    """PAGE TRANS (busy seconds per page) of every LOCAL line of a Page Data
    Set Activity report."""
    out = []
    for line in lines:
        f = line.split()
        if f and f[0] in ("LOCAL", "LOCAL*") and f[8] != "-":
            out.append(float(f[8]))
    return out


def test_saturated_channel_shows_in_pdsact() -> None:
    """The page data sets behind control units take their times from model/io's
    path model: one 20 MB/s channel for the 16 data sets (the study's four of
    800 MB/s otherwise) shows in the Page Data Set Activity report's page
    transfer time and % in use, and in the data sets' mean response."""
    import zos_support

    from ztwin import zos_reports

    fast, slow = zos_support.run("dasd"), zos_support.run("dasd-slow-channel")
    tf = _page_trans(zos_reports.page_data_set_activity(zos_support.tables("dasd"), 40.0))
    ts = _page_trans(zos_reports.page_data_set_activity(zos_support.tables("dasd-slow-channel"), 40.0))
    assert len(tf) == len(ts) == 16
    assert sum(ts) / len(ts) > 3 * sum(tf) / len(tf), (ts, tf)

    def mean_resp(r: zos.ZosRun) -> float:
        ios = sum(d["reads"] + d["writes"] for d in r.data_sets)
        return sum(d["avg_resp_ms"] * (d["reads"] + d["writes"]) for d in r.data_sets) / ios

    assert mean_resp(slow) > 3 * mean_resp(fast)


def test_page_data_set_on_undefined_lcu(tmp_path: Path) -> None:
    p, line = _bad(tmp_path, 'control_units = ["LCU0", "LCU1"', 'control_units = ["LCU0", "LCU9"')
    with pytest.raises(ScenarioError) as e:
        zos.run(p)
    assert str(e.value) == f"{p}: line {line}: zos.page_data_sets.control_units[1]: 'LCU9' is not a [[control_unit]]"
