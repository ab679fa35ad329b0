"""The Era C advisor rules (agelist-small, agelist-large, earlywrite-lag) on
twin runs at CP level 7.3: each rule fires on a scenario made to trigger it,
none fires with storage to spare, and a 5.4 file (no aging list) gives none.
Every figure comes from the records (MRSTORSG's aging-list block, PAGELOG)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.advisor import diagnose
from ztwin.reports import build
from ztwin.twin import Scenario

from test_report_agelist import scenario  # the reports tests' directory is on the path (conftest)

RULES = {"agelist-small", "agelist-large", "earlywrite-lag"}

#: name -> (level, central storage, share of touches on the hot pages,
#: [agelist] table, rules expected). The four guests' hot pages (35% of
#: 900M each) nearly fill 1536M: CP steals; with 5G it does not. "large":
#: an aging list of 25% holds hot pages (touched 99% of the time), so most
#: frames leaving it are revalidated. "small": 0.1% of the DPA, frames stay
#: on it a fraction of a second (its early writes then lag too: the small
#: list explains that, and the finding subsumes earlywrite-lag).
CASES = {
    "spare": ("7.3", "5G", 0.9, "", set()),
    "default": ("7.3", "1536M", 0.9, "", set()),
    "ew-off": ("7.3", "1536M", 0.9, "[agelist]\nearlywrites = false", {"earlywrite-lag"}),
    "large": ("7.3", "1536M", 0.99, "[agelist]\nsize = 25.0", {"agelist-large"}),
    "small": ("7.3", "1536M", 0.9, "[agelist]\nsize = 0.1", {"agelist-small"}),
    "era-a": ("5.4", "1536M", 0.9, "", set()),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("agelist")
    out = {}
    for name, (level, storage, hot_share, agelist, _) in CASES.items():
        sc = d / f"{name}.toml"
        sc.write_text(scenario(level, storage, hot_share, agelist, duration="300s"))
        out[name] = d / f"{name}.monwrite"
        Scenario.load(sc).run(out[name])
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_each_rule_fires_on_its_scenario_and_only_there(runs: dict[str, Path], name: str) -> None:
    d = diagnose(runs[name])
    # A finding subsumed by another is not in d.findings.
    fired = {f.id for f in d.findings} & RULES
    rep = build(runs[name], ["AGELLOG"])["AGELLOG"]
    mean = rep.rows[0] if rep.rows else {}
    assert fired == CASES[name][4], (name, fired, mean)
    for f in d.findings:
        if f.id in RULES:
            assert f.evidence[0].report == "AGELLOG" and f.evidence[0].held, f.id


def test_the_findings_say_what_to_change(runs: dict[str, Path]) -> None:
    by = {f.id: f for f in diagnose(runs["ew-off"]).findings}
    assert "EARLYWRITES YES" in by["earlywrite-lag"].recommendation
    assert "early writes off" in by["earlywrite-lag"].evidence[0].summary
    by = {f.id: f for f in diagnose(runs["small"]).findings}
    assert "larger" in by["agelist-small"].recommendation
    by = {f.id: f for f in diagnose(runs["large"]).findings}
    assert "smaller" in by["agelist-large"].recommendation
