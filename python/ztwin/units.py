"""Durations and sizes as scenario files and the command line write them.

The grammar matches the Rust scenario parser: a number with an optional unit;
durations in ns, us, ms, s, min or h (a bare number is seconds), sizes in K, M,
G or T (binary; a bare number is bytes).
"""

from __future__ import annotations

import re

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ns|us|µs|ms|s|sec|m|min|h)?\s*$")
_FACTOR = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds in a duration such as ``90s``, ``14h`` or ``3.1ms``."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a duration such as 90s, 10min or 14h")
    return float(m.group(1)) * _FACTOR[m.group(2) or "s"]


def format_duration(seconds: float) -> str:
    """``1:02:03`` style text for a number of seconds."""
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([KMGT])?\s*$", re.IGNORECASE)
_SIZE_FACTOR = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(text: str | int) -> int:
    """Bytes in a size such as ``768M``, ``19.5G`` or ``4096`` (binary units)."""
    if isinstance(text, int):
        return text
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a size such as 768M, 2G or 4096")
    return int(round(float(m.group(1)) * _SIZE_FACTOR.get((m.group(2) or "").upper(), 1)))


def format_size(n: int) -> str:
    """A size as scenario files write it: the largest unit that divides it exactly."""
    for unit in ("T", "G", "M", "K"):
        f = _SIZE_FACTOR[unit]
        if n and n % f == 0:
            return f"{n // f}{unit}"
    return str(n)
