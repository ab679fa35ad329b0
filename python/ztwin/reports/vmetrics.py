"""The figures of :mod:`ztwin.reports.metrics` over whole columns.

The formulas are written once, in :mod:`ztwin.reports.metrics`, in terms of
a few operations (``metrics.Scalar``: on one sum, None when absent).
:class:`Vector` gives the same operations over numpy float64 columns (one
element per interval or per key; NaN where a sum is absent, an absent name is
all-NaN), operation for operation and in the same order, so every element
equals the scalar figure of that row's sums to the last bit
(``tests/python/reports/test_vmetrics.py`` checks it on random sums). The
functions here take :class:`Sums` and return figures as arrays, NaN where
the scalar function gives None. Used by the by-time reports (SYSSUMLG,
PAGELOG, AVAILLOG, PROCLOG, the ``>System<`` lines of USTATLOG and UPAGELOG,
the user logs), TREND and the exports, so that no Python object is made per
interval and field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ztwin.reports import metrics

Arr = np.ndarray[Any, np.dtype[np.float64]]
Cols = Mapping[str, Arr]


class Sums(Mapping[str, Arr]):
    """Columns by name with a length: absent names read as all-NaN, and
    ``get(name, default)`` fills NaN elements with ``default`` (the scalar
    ``raw.get(k, default)``)."""

    def __init__(self, n: int, cols: Mapping[str, Arr] | Callable[[str], Arr | None]) -> None:
        self.n = n
        self._cols = cols
        self._cache: dict[str, Arr] = {}

    def __getitem__(self, key: str) -> Arr:
        a = self._cache.get(key)
        if a is None:
            src = self._cols
            got = src(key) if callable(src) else src.get(key)
            a = np.full(self.n, np.nan) if got is None else np.asarray(got, dtype=np.float64)
            self._cache[key] = a
        return a

    def __iter__(self):  # type: ignore[no-untyped-def]
        src = self._cols
        return iter(() if callable(src) else src)

    def __len__(self) -> int:
        src = self._cols
        return 0 if callable(src) else len(src)

    def has(self, key: str) -> Arr:
        """Where ``key`` is present (``key in raw``)."""
        return ~np.isnan(self[key])

    def or_(self, key: str, default: float) -> Arr:
        """``raw.get(key, default)``."""
        a = self[key]
        return np.where(np.isnan(a), default, a)


def _nan(a: Any) -> Any:
    return np.nan if a is None else a


class Vector:
    """``metrics.Scalar``'s operations over columns (NaN: absent)."""

    @staticmethod
    def ratio(a: Arr, b: Any) -> Arr:
        """a / b; NaN where either is absent or b is zero (a NaN operand
        gives NaN through the division itself: only b == 0 is masked)."""
        out = np.empty(np.broadcast(a, b).shape)
        out.fill(np.nan)
        np.divide(a, b, out=out, where=b != 0)
        return out

    @staticmethod
    def pct(a: Arr, b: Any) -> Arr:
        return 100.0 * Vector.ratio(a, b)

    @staticmethod
    def sum(*values: Arr) -> Arr:
        """NaN if any is absent, else 0 + v1 + v2 ... in order."""
        acc = 0.0 + values[0]
        for v in values[1:]:
            acc = acc + v
        return acc

    @staticmethod
    def get(raw: Sums, *keys: str) -> Arr:
        """The sum of the present keys (0 + ... in order), NaN where none is."""
        if len(keys) == 1:
            v = raw[keys[0]]
            return np.where(np.isnan(v), np.nan, 0.0 + v)
        acc = np.zeros(raw.n)
        any_ = np.zeros(raw.n, dtype=bool)
        for k in keys:
            v = raw[k]
            has = ~np.isnan(v)
            acc = np.where(has, acc + np.where(has, v, 0.0), acc)
            any_ |= has
        return np.where(any_, acc, np.nan)

    @staticmethod
    def col(raw: Sums, key: str) -> Arr:
        return raw[key]

    @staticmethod
    def col_or(raw: Sums, key: str, default: float) -> Arr:
        return raw.or_(key, default)

    @staticmethod
    def has(raw: Sums, key: str) -> Any:
        return raw.has(key)

    @staticmethod
    def present(a: Arr) -> Any:
        return ~np.isnan(a)

    @staticmethod
    def nonempty(raw: Sums | None) -> bool:
        """Columns given (a row without sums is all NaN, so its figures are)."""
        return raw is not None

    @staticmethod
    def truthy(a: Arr) -> Any:
        return ~np.isnan(a) & (a != 0)

    @staticmethod
    def is_zero(a: Arr) -> Any:
        return a == 0

    @staticmethod
    def any_truthy(values: list[Arr]) -> Any:
        out = np.zeros(np.shape(values[0]), dtype=bool)
        for v in values:
            out |= ~np.isnan(v) & (v != 0)
        return out

    @staticmethod
    def and_(a: Any, b: Any) -> Any:
        return a & b

    @staticmethod
    def or_(a: Any, b: Any) -> Any:
        return a | b

    @staticmethod
    def where(cond: Any, a: Any, b: Any) -> Arr:
        out: Arr = np.where(cond, _nan(a), _nan(b))
        return out

    @staticmethod
    def first(a: Arr, b: Arr) -> Arr:
        return np.where(np.isnan(a), b, a)

    @staticmethod
    def add(a: Arr, b: Arr) -> Arr:
        return a + b

    @staticmethod
    def sub(a: Arr, b: Arr) -> Arr:
        return a - b

    @staticmethod
    def mul(a: Arr, b: Any) -> Arr:
        out: Arr = a * b
        return out

    @staticmethod
    def div(a: Arr, c: float) -> Arr:
        return a / c

    @staticmethod
    def max0(a: Arr) -> Arr:
        """``max(0.0, a)``, NaN where a is absent."""
        return np.where(np.isnan(a), np.nan, np.where(a > 0.0, a, 0.0))

    @staticmethod
    def sums(like: Sums, cols: dict[str, Arr]) -> Sums:
        return Sums(like.n, cols)


V = Vector
ratio = V.ratio
pct = V.pct


def _quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Float overflow and invalid operations give inf and NaN silently, as
    Python's float arithmetic does (no numpy warnings)."""

    def wrapped(*args: Any, **kw: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args, **kw)

    wrapped.__doc__ = fn.__doc__
    wrapped.__name__ = fn.__name__
    return wrapped


@_quiet
def hf_percentages(raw: Sums, prefix: str = "hf_") -> dict[str, Arr]:
    """``metrics.hf_percentages`` over columns."""
    return metrics.hf_percentages(raw, prefix, V)


@_quiet
def upage_figures(raw: Sums, prefix: str = "") -> dict[str, Arr]:
    """``metrics.upage_figures`` over columns."""
    return metrics.upage_figures(raw, prefix, V)


@_quiet
def user_metrics(raw: Sums) -> dict[str, Arr]:
    """``metrics.user_metrics`` over columns."""
    return metrics.user_metrics(raw, V)


@_quiet
def device_metrics(raw: Sums) -> dict[str, Arr]:
    """``metrics.device_metrics`` over columns."""
    return metrics.device_metrics(raw, V)


@_quiet
def exposure_metrics(raw: Sums, device: Sums | None = None) -> dict[str, Any]:
    """``metrics.exposure_metrics`` over columns; ``device``: the same
    devices' sums row for row (all NaN where there is none)."""
    return metrics.exposure_metrics(raw, Sums(raw.n, {}) if device is None else device, V)


@_quiet
def cpu_metrics(raw: Sums) -> dict[str, Arr]:
    """``metrics.cpu_metrics`` over columns."""
    return metrics.cpu_metrics(raw, V)


@_quiet
def lpar_metrics(raw: Sums) -> dict[str, Arr]:
    """``metrics.lpar_metrics`` over columns."""
    return metrics.lpar_metrics(raw, V)


@_quiet
def zvm_view_of_lcpu(lraw: Sums, craw: Sums) -> tuple[Arr, Arr]:
    """``metrics.zvm_view_of_lcpu`` over columns."""
    susp, logld = metrics.zvm_view_of_lcpu(lraw, craw, V)
    return susp, logld


class _SystemFigures(metrics.SystemFigures):
    """Figures computed when read, quietly (as :func:`_quiet`)."""

    def __getitem__(self, key: str) -> Any:
        done = self._done
        if key in done:
            return done[key]
        with np.errstate(all="ignore"):
            return super().__getitem__(key)


def system_metrics(raw: Sums) -> metrics.SystemFigures:
    """``metrics.system_metrics`` over columns (the same keys), each figure
    computed when first read (:class:`ztwin.reports.metrics.SystemFigures`:
    a by-time report reads a few); ``update`` adds to it."""
    return _SystemFigures(raw, V)


__all__ = ["Sums", "Vector", "cpu_metrics", "device_metrics", "exposure_metrics", "hf_percentages", "lpar_metrics", "pct", "ratio",
           "system_metrics", "upage_figures", "user_metrics", "zvm_view_of_lcpu"]  # fmt: skip
