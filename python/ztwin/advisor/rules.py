"""The advisor's rules: thresholds and persistence qualifiers.

The defaults live in ``rules.toml`` next to this module; a user's file is
merged over them (``load_rules(path)``). The defaults define what may be set:
an unknown rule id, an unknown key or a value of the wrong type is an
:class:`AdvisorError` naming the file, the rule and the key.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

#: Severities, least important first.
SEVERITIES = ("info", "warning", "critical")
LEVEL_KEYS = SEVERITIES
PERSIST_KEYS = ("intervals", "share")
DEFAULTS_FILE = "rules.toml"


class AdvisorError(Exception):
    """Bad input for the advisor: a rules file, a window, a file without data."""


@dataclass(frozen=True)
class Persist:
    """How long a condition must hold: in ``intervals`` consecutive intervals,
    or in ``share`` of the period's intervals (either suffices; 0 switches a
    criterion off; with both off one interval is enough)."""

    intervals: int = 0
    share: float = 0.0

    def satisfied(self, flags: Sequence[bool | None]) -> bool:
        if not flags:
            return False
        held = sum(1 for f in flags if f)
        if held == 0:
            return False
        if self.intervals <= 0 and self.share <= 0:
            return True
        if self.intervals > 0 and longest_run(flags) >= self.intervals:
            return True
        return self.share > 0 and held / len(flags) >= self.share - 1e-12

    def describe(self) -> str:
        parts = []
        if self.intervals > 0:
            parts.append(f"{self.intervals} consecutive interval{'s' if self.intervals != 1 else ''}")
        if self.share > 0:
            parts.append(f"{self.share * 100:g}% of the intervals")
        return " or ".join(parts) if parts else "any interval"


def longest_run(flags: Sequence[bool | None]) -> int:
    best = run = 0
    for f in flags:
        run = run + 1 if f else 0
        best = max(best, run)
    return best


@dataclass(frozen=True)
class Rule:
    """One rule: enabled, its levels (None = off), persistence and parameters."""

    id: str
    enabled: bool
    levels: Mapping[str, float | None]
    persist: Persist
    params: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.params[key]

    def level(self, severity: str) -> float | None:
        return self.levels.get(severity)

    def active_levels(self) -> list[tuple[str, float]]:
        """(severity, threshold) of the levels that are on, least severe first."""
        return [(s, v) for s in SEVERITIES if (v := self.levels.get(s)) is not None]


@dataclass(frozen=True)
class Rules:
    rules: Mapping[str, Rule]
    sources: tuple[str, ...]

    def __getitem__(self, rule_id: str) -> Rule:
        return self.rules[rule_id]

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def enabled(self, rule_id: str) -> bool:
        r = self.rules.get(rule_id)
        return r is not None and r.enabled


def defaults_text() -> str:
    return resources.files("ztwin.advisor").joinpath(DEFAULTS_FILE).read_text(encoding="utf-8")


def _parse(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise AdvisorError(f"{where}: not a valid TOML file: {e}") from None


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, dict):
        return "a table"
    return type(v).__name__


def _check_value(where: str, rule_id: str, key: str, default: Any, value: Any) -> Any:
    place = f"{where}: [{rule_id}] {key}"
    if key in LEVEL_KEYS:
        if value is False:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise AdvisorError(f"{place} must be a number or false, not {value!r}")
        if not math.isfinite(value) or value < 0:
            raise AdvisorError(f"{place} must be a finite number >= 0, not {value!r}")
        return float(value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise AdvisorError(f"{place} must be true or false, not {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise AdvisorError(f"{place} must be an integer, not {value!r}")
        if value < 0:
            raise AdvisorError(f"{place} must be >= 0, not {value}")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise AdvisorError(f"{place} must be a number, not {value!r}")
        if not math.isfinite(value) or value < 0:
            raise AdvisorError(f"{place} must be a finite number >= 0, not {value!r}")
        return float(value)
    if type(value) is not type(default):
        raise AdvisorError(f"{place} must be {_type_name(default)}, not {value!r}")
    return value


def _persist(where: str, rule_id: str, base: Mapping[str, Any], value: Any) -> dict[str, Any]:
    place = f"{where}: [{rule_id}] persist"
    if not isinstance(value, dict):
        raise AdvisorError(f"{place} must be a table such as {{ intervals = 2, share = 0.5 }}, not {value!r}")
    out = dict(base)
    for k, v in value.items():
        if k == "intervals":
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise AdvisorError(f"{place}.intervals must be an integer >= 0, not {v!r}")
        elif k == "share":
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1:
                raise AdvisorError(f"{place}.share must be a number from 0 to 1, not {v!r}")
        else:
            raise AdvisorError(f"{place}: unknown key {k!r} (known: intervals, share)")
        out[k] = v
    return out


def _merge(
    base: dict[str, dict[str, Any]], override: Mapping[str, Any], where: str, schema: Mapping[str, Mapping[str, Any]]
) -> None:
    """Merge ``override`` (a parsed rules file) into ``base`` in place,
    validating against ``schema`` (the parsed defaults)."""
    for rule_id, table in override.items():
        if rule_id not in schema:
            known = ", ".join(k for k in schema if k != "defaults")
            raise AdvisorError(f"{where}: unknown rule id [{rule_id}] (known: {known})")
        if not isinstance(table, dict):
            raise AdvisorError(f"{where}: [{rule_id}] must be a table, not {table!r}")
        allowed = schema[rule_id]
        target = base.setdefault(rule_id, {})
        for key, value in table.items():
            if key == "persist":
                target["persist"] = _persist(where, rule_id, target.get("persist", {}), value)
                continue
            if key not in allowed:
                known = ", ".join(allowed) or "none"
                raise AdvisorError(f"{where}: [{rule_id}] unknown key {key!r} (known: {known})")
            target[key] = _check_value(where, rule_id, key, allowed[key], value)


def _schema(defaults: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Keys each rule may set (persist for all, and `defaults` holds only persist)."""
    schema: dict[str, dict[str, Any]] = {}
    for rule_id, table in defaults.items():
        keys = {k: v for k, v in table.items() if k != "persist"}
        for lvl in LEVEL_KEYS:
            if lvl in keys and keys[lvl] is False:
                keys[lvl] = 0.0  # a level that ships switched off may be switched on
        schema[rule_id] = keys
    return schema


def _build(merged: Mapping[str, Mapping[str, Any]], sources: tuple[str, ...]) -> Rules:
    base_persist = dict(merged.get("defaults", {}).get("persist", {}))
    rules: dict[str, Rule] = {}
    for rule_id, table in merged.items():
        if rule_id == "defaults":
            continue
        p = dict(base_persist)
        p.update(table.get("persist", {}))
        levels = {s: table[s] for s in LEVEL_KEYS if s in table}
        params = {k: v for k, v in table.items() if k not in (*LEVEL_KEYS, "persist", "enabled")}
        rules[rule_id] = Rule(
            id=rule_id,
            enabled=bool(table.get("enabled", True)),
            levels=levels,
            persist=Persist(int(p.get("intervals", 0)), float(p.get("share", 0.0))),
            params=params,
        )
    return Rules(rules, sources)


def load_rules(path: str | Path | None = None, text: str | None = None) -> Rules:
    """The default rules, with a user's rules file (``path``, or TOML ``text``)
    merged over them. Raises :class:`AdvisorError` naming the place."""
    defaults = _parse(defaults_text(), f"ztwin/advisor/{DEFAULTS_FILE}")
    schema = _schema(defaults)
    merged: dict[str, dict[str, Any]] = {}
    sources = ["defaults"]
    _merge(merged, defaults, f"ztwin/advisor/{DEFAULTS_FILE}", schema)
    if path is not None:
        p = Path(path)
        try:
            user_text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise AdvisorError(f"cannot open rules file {p}: No such file or directory") from None
        except IsADirectoryError:
            raise AdvisorError(f"cannot open rules file {p}: Is a directory") from None
        except UnicodeDecodeError as e:
            raise AdvisorError(f"{p}: not a UTF-8 text file ({e.reason} at byte {e.start})") from None
        except OSError as e:
            raise AdvisorError(f"cannot open rules file {p}: {e.strerror or e}") from None
        _merge(merged, _parse(user_text, str(p)), str(p), schema)
        sources.append(str(p))
    elif text is not None:
        _merge(merged, _parse(text, "<rules>"), "<rules>", schema)
        sources.append("<rules>")
    return _build(merged, tuple(sources))
