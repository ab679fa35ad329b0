"""The rules file: defaults, partial overrides, errors that name the place,
and the persistence qualifiers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ztwin.advisor import CHECKS, AdvisorError, Persist, load_rules
from ztwin.advisor.rules import defaults_text


def test_every_check_has_a_rule_and_every_rule_a_check() -> None:
    rules = load_rules()
    ids = [rid for rid, _, _ in CHECKS]
    assert sorted(ids) == sorted(rules.rules)
    assert len(ids) == len(set(ids))
    assert all(r.enabled for r in rules.rules.values())


def test_defaults_carry_the_documented_thresholds() -> None:
    r = load_rules()
    assert r["paging-space-full"].level("warning") == 75.0
    assert r["paging-device-busy"].level("warning") == 20.0
    assert r["paging-device-queue"].level("warning") == 2.0
    assert r["capture-ratio"].level("critical") is None  # shipped off
    assert r["tv-ratio"].persist == Persist(intervals=2, share=0.5)  # [defaults]
    assert r["free-frames-empty"].persist == Persist(intervals=2, share=0.25)  # its own
    assert r["storage-constrained"]["steal_ratio"] == 0.5


def test_partial_override_merges_over_the_defaults(rules_file: Any) -> None:
    path = rules_file(
        """
        [defaults]
        persist.share = 0.75

        [tv-ratio]
        warning = 1.3

        [paging-serialized]
        enabled = false

        [free-frames-empty]
        persist = { intervals = 4 }

        [capture-ratio]
        critical = 0.7
        info = false
        """
    )
    r = load_rules(path)
    assert r["tv-ratio"].level("warning") == 1.3
    assert r["tv-ratio"].level("critical") == 3.0  # untouched
    assert r["tv-ratio"].persist == Persist(intervals=2, share=0.75)
    assert not r["paging-serialized"].enabled
    assert r["free-frames-empty"].persist == Persist(intervals=4, share=0.25)
    assert r["capture-ratio"].level("critical") == 0.7 and r["capture-ratio"].level("info") is None
    assert r.sources == ("defaults", str(path))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[tv-ratios]\nwarning = 1.3\n", "unknown rule id [tv-ratios]"),
        ("[tv-ratio]\nwarnng = 1.3\n", "[tv-ratio] unknown key 'warnng'"),
        ("[tv-ratio]\nwarning = 'high'\n", "[tv-ratio] warning must be a number or false"),
        ("[tv-ratio]\nwarning = -1\n", "[tv-ratio] warning must be a finite number >= 0"),
        ("[tv-ratio]\nenabled = 1\n", "[tv-ratio] enabled must be true or false"),
        ("[storage-constrained]\nmin_users = 2.5\n", "[storage-constrained] min_users must be an integer"),
        ("[tv-ratio]\npersist = { share = 2 }\n", "[tv-ratio] persist.share must be a number from 0 to 1"),
        ("[tv-ratio]\npersist = { hours = 2 }\n", "[tv-ratio] persist: unknown key 'hours'"),
        ("[tv-ratio]\npersist = 3\n", "[tv-ratio] persist must be a table"),
        ("tv-ratio = 3\n", "[tv-ratio] must be a table"),
        ("[defaults]\nwarning = 3\n", "[defaults] unknown key 'warning'"),
        ("[tv-ratio\nwarning = 1\n", "not a valid TOML file"),
    ],
)
def test_bad_rules_name_the_file_rule_and_key(rules_file: Any, text: str, needle: str) -> None:
    path = rules_file(text)
    with pytest.raises(AdvisorError) as e:
        load_rules(path)
    assert str(path) in str(e.value)
    assert needle in str(e.value)


def test_toml_syntax_error_names_the_line(rules_file: Any) -> None:
    path = rules_file("[tv-ratio]\nwarning = 1.5\ncritical = = 3\n")
    with pytest.raises(AdvisorError, match=r"line 3"):
        load_rules(path)


def test_missing_or_unreadable_rules_file(tmp_path: Path) -> None:
    with pytest.raises(AdvisorError, match="cannot open rules file .*nope.toml: No such file"):
        load_rules(tmp_path / "nope.toml")
    with pytest.raises(AdvisorError, match="Is a directory"):
        load_rules(tmp_path)
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"# caf\xe9\n")
    with pytest.raises(AdvisorError, match="not a UTF-8 text file"):
        load_rules(bad)


def test_the_shipped_file_is_valid_toml_with_every_rule_documented() -> None:
    text = defaults_text()
    for rid, _, _ in CHECKS:
        head = f"[{rid}]"
        assert head in text
        # a comment block right above each rule says what it measures
        before = text[: text.index(head)].rstrip().splitlines()[-1]
        assert before.startswith("#"), rid


# -- persistence ------------------------------------------------------------


@pytest.mark.parametrize(
    ("persist", "flags", "ok"),
    [
        (Persist(2, 0.0), [True, False, True, False], False),  # never two in a row
        (Persist(2, 0.0), [False, True, True, False], True),
        (Persist(0, 0.5), [True, False, True, False], True),  # half of them, scattered
        (Persist(0, 0.5), [True, False, False, False], False),
        (Persist(3, 0.5), [True, True, False, False], True),  # the share suffices
        (Persist(3, 0.9), [True, True, False, False], False),
        (Persist(0, 0.0), [False, False, True], True),  # both off: any interval
        (Persist(2, 0.0), [True, None, True], False),  # an interval without data breaks a run
        (Persist(0, 0.5), [True, None, None, None], False),  # ... and counts in the period
        (Persist(2, 0.5), [], False),
        (Persist(1, 0.0), [False, False], False),
    ],
)
def test_persistence_qualifiers(persist: Persist, flags: list[bool | None], ok: bool) -> None:
    assert persist.satisfied(flags) is ok


def test_persistence_description() -> None:
    assert Persist(2, 0.5).describe() == "2 consecutive intervals or 50% of the intervals"
    assert Persist(0, 0.0).describe() == "any interval"
