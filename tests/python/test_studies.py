"""The study harness: checks by category, the pass rule, the scoreboard, the CLI."""

from __future__ import annotations

import subprocess
import sys

from ztwin.studies.base import Check, StudyResult, fmt_value, id_order
from ztwin.study_cli import scoreboard_rows, scoreboard_text


def _study() -> StudyResult:
    r = StudyResult("demo", "a demo study", floor=0.5)
    r.rel("D-C1", "service ms", "calibrated", "FCX108 Serv", 3.08, 3.1, tol=0.10)
    r.equal("D-I1", "volumes", "input", "FCX108", 11, 11)
    r.in_range("D-P1", "per volume", "predicted", "FCX108 I/O", (26.0, 37.1), 25.0, 48.5)
    r.in_range("D-P2", "per interval", "predicted", "FCX163 Reads", (1206.0, 1223.0), 313, 534)
    r.rel("D-P3", "near zero", "predicted", "FCX225", 0.3, 0.2, tol=0.15, abs_tol=0.5)
    r.holds("D-S1", "a claim", True, "claim", "text")
    r.not_modelled("D-N1", "channels", "FCX161", 6, "no channel model")
    return r


def test_checks_carry_their_verdicts() -> None:
    r = _study()
    by = {c.id: c for c in r.checks}
    assert by["D-C1"].ok and by["D-I1"].ok and by["D-P1"].ok and by["D-P3"].ok
    assert not by["D-P2"].ok and by["D-P2"].model == (1206.0, 1223.0) and by["D-P2"].tolerance == "range"
    assert by["D-N1"].ok is None and by["D-N1"].note == "no channel model"
    t = r.tally()
    assert (t["predicted"].checked, t["predicted"].within) == (3, 2)
    assert (t["not-modelled"].published, t["not-modelled"].checked) == (1, 0)
    assert r.predicted_fraction == 2 / 3 and r.ok


def test_pass_rule_floor_and_known_gaps() -> None:
    r = _study()
    r.floor = 0.7
    assert not r.ok  # 2 of 3 predicted is below the floor
    r.floor = 0.6
    c = r.holds("D-S2", "a claim the model cannot meet yet", False, "claim", "text", gap="part 2: M1")
    assert r.ok and r.gaps == [c] and not r.failed_required
    r.holds("D-S3", "a claim that fails", False, "claim", "text")
    assert not r.ok and [x.id for x in r.failed_required] == ["D-S3"]
    # A gap only marks a check that does not hold.
    held = r.holds("D-S4", "holds", True, "claim", "text", gap="part 2")
    assert held.gap == ""


def test_ids_are_unique_and_categories_known() -> None:
    r = _study()
    for bad in (Check("D-C1", "again", "input", "s", 1, 1, "exact", True), Check("D-X", "?", "guessed", "s", 1, 1, "", True)):
        try:
            r.add(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad.id} accepted")
    assert sorted(["S1-P10", "S1-P2", "S1-S3a", "S1-S3"], key=id_order) == ["S1-P2", "S1-P10", "S1-S3", "S1-S3a"]


def test_json_and_scoreboard() -> None:
    r = _study()
    j = r.to_json()
    assert j["tally"]["predicted"] == {"published": 3, "checked": 3, "within": 2}
    assert {"id", "category", "source", "published", "model", "tolerance", "ok"} <= set(j["checks"][0])
    row = scoreboard_rows([r])[0]
    assert (row["figures"], row["checked"], row["within"]) == (7, 6, 5)
    text = scoreboard_text([r])
    assert "demo" in text[1] and "2/3 67%" in text[1] and "PASS" in text[1]
    assert fmt_value((25.0, 48.5)) == "25.0-48.5" and fmt_value([1, 100]) == "1 / 100" and fmt_value(None) == "-"


def test_cli_study_errors_are_one_line() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ztwin", "study", "run", *args], capture_output=True, text=True)

    p = run()
    assert p.returncode == 2 and "name a study or give --all" in p.stderr and "Traceback" not in p.stderr
    p = run("nosuch")
    assert p.returncode == 2 and "no study named 'nosuch'" in p.stderr
