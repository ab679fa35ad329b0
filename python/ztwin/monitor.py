"""Reading and writing CP Monitor (MONWRITE) files.

Reading streams the file in constant memory and survives damage: damaged spans
are skipped and reported in the reader's statistics; only a file that cannot be
read at all raises :class:`MonwriteError`.

>>> for rec in read("day.monwrite"):                       # doctest: +SKIP
...     print(rec["offset"], rec["name"], rec["fields"].get("SYTRSG_RSAAVAIL"))
>>> frames = tables("day.monwrite", ["MRSYTRSG"])          # doctest: +SKIP
>>> frames["MRSYTRSG"][["tod", "SYTRSG_RSAAVAIL"]]          # doctest: +SKIP

Writing builds genuine-looking files for tests and demos, atomically:

>>> with Writer("demo.monwrite") as w:                     # doctest: +SKIP
...     w.add("MRSYTRSG", "2024-01-01T00:01:00Z", {"SYTRSG_RSAAVAIL": 5120})
...     w.write_sample_set("2024-01-01T00:01:00Z")
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from ztwin._native import (
    DumpChunks,
    LayoutPackError,
    MonwriteError,
    Reader,
    Writer,
    appldata_records,
    ebcdic_decode,
    ebcdic_encode,
    iso_to_tod,
    read_columns,
    scan,
    tod_to_iso,
)
from ztwin._native import layouts as _layouts

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd
    import pyarrow as pa

    from ztwin._native import LayoutInfo, Stats, StrPath

__all__ = [
    "AppldataWarning",
    "DamageWarning",
    "DumpChunks",
    "LayoutPackError",
    "MonwriteError",
    "Reader",
    "Writer",
    "appldata",
    "arrow_tables",
    "damage_text",
    "dump",
    "ebcdic_decode",
    "ebcdic_encode",
    "iso_to_tod",
    "layouts",
    "read",
    "read_options",
    "set_read_options",
    "scan",
    "tables",
    "tod_to_iso",
]

#: Release and layout pack every read uses unless told otherwise (the CLI's
#: ``--release`` and ``--layouts``); see :func:`set_read_options`.
_READ_OPTIONS: dict[str, str | None] = {"release": None, "layouts": None}


def set_read_options(release: str | None = None, layouts: StrPath | None = None) -> None:
    """Decode every file read from now on as ``release`` (e.g. ``"7.3"``; by
    default the release the file's MRMTRSYS record names) with the layout pack
    file ``layouts`` merged over the built-in layouts (``None``: built-in only).

    Checks both at once: a bad release raises ``ValueError``, a pack that
    cannot be read or fails its checks :class:`LayoutPackError` naming the
    record and field.
    """
    pack = None if layouts is None else str(layouts)
    _layouts(release=release, layouts=pack)  # validates both
    _READ_OPTIONS["release"] = release
    _READ_OPTIONS["layouts"] = pack


def read_options() -> dict[str, str | None]:
    """The release and layout pack reads use (see :func:`set_read_options`)."""
    return dict(_READ_OPTIONS)


def layouts(release: str | None = None, pack: StrPath | None = None) -> list[LayoutInfo]:
    """The record layouts: every version, or with ``release`` the one layout
    per record of that release (field confidences as they stand there);
    ``pack`` merges a layout pack file (default: the one set with
    :func:`set_read_options`)."""
    chosen = _READ_OPTIONS["layouts"] if pack is None else str(pack)
    return _layouts(release=release, layouts=chosen)


class DamageWarning(UserWarning):
    """Damaged spans of a file were skipped while building tables."""


class AppldataWarning(UserWarning):
    """APPLDATA records (domain 10) whose data does not fit the Linux
    kernel's struct were read as far as they go."""


def appldata(path: StrPath, ranges: Sequence[tuple[int, int]] | None = None) -> list[dict[str, Any]]:
    """The Linux guests' APPLDATA records (domain 10) of a MONWRITE file, in
    file order, each decoded as the kernel's struct (``appldata_mem``,
    ``appldata_os`` with its per-CPU entries, ``appldata_net_sum``; see
    ``docs/monitor-format.md``). Records whose data has the wrong length are
    decoded as far as they go, with one :class:`AppldataWarning` naming the
    first one's offset; damaged spans give a :class:`DamageWarning`.
    """
    recs, warning, stats = appldata_records(path, None if ranges is None else list(ranges), **_READ_OPTIONS)
    _warn_damage(path, stats)
    if warning is not None:
        warnings.warn(f"{path}: {warning}", AppldataWarning, stacklevel=2)
    return recs


def read(path: StrPath, ranges: Sequence[tuple[int, int]] | None = None) -> Reader:
    """Stream the records of a MONWRITE file.

    Returns an iterator of record dicts (``offset``, ``domain``, ``record``,
    ``name``, ``tod``, ``tod_raw``, ``length``, ``kind``, ``fields``); its
    ``stats()`` method reports record counts, damaged spans and the file's
    segments (collections joined in one file). ``ranges`` (``(start, end)``
    byte offsets, e.g. from :func:`ztwin.segments.choose`) keeps only the
    records that start inside them.

    Raises ``OSError`` if the file cannot be opened and :class:`MonwriteError`
    (possibly during iteration) if it is not a readable MONWRITE file.
    """
    return Reader(path, None if ranges is None else list(ranges), **_READ_OPTIONS)


def dump(
    path: StrPath,
    *,
    json: bool = False,
    domain: int | None = None,
    record: int | None = None,
    limit: int | None = None,
) -> DumpChunks:
    """``ztwin dump`` output for a file, as an iterator of large text chunks.

    Each chunk holds whole lines: one text line per record, or one JSON object
    per record with ``json=True``. ``domain`` and ``record`` filter; ``limit``
    stops after that many printed records. The iterator's ``summary()`` is the
    closing summary (records per type, unknown records, damaged spans).
    """
    opts = _READ_OPTIONS
    return DumpChunks(
        path, json=json, domain=domain, record=record, limit=limit, release=opts["release"], layouts=opts["layouts"]
    )


def damage_text(stats: Stats | None) -> str | None:
    """The damage a read skipped, in one clause ("N damaged span(s) skipped
    (B bytes), the first at offset X: reason"), or None if there was none."""
    if stats is None or not stats["damage_count"]:
        return None
    first = stats["damage"][0]
    return (
        f"{stats['damage_count']} damaged span(s) skipped ({stats['damaged_bytes']} bytes), "
        f"the first at offset {first['offset']}: {first['reason']}"
    )


def _warn_damage(path: StrPath, stats: Stats) -> None:
    text = damage_text(stats)
    if text is not None:
        warnings.warn(
            f"{path}: {text}",
            DamageWarning,
            stacklevel=3,  # the caller of tables() / arrow_tables()
        )


def _read_arrow(
    path: StrPath, names: Sequence[str] | None, fields: Sequence[str] | None = None
) -> tuple[dict[str, pa.Table], Stats]:
    # Imported on use: pyarrow and pandas are slow to import and the CLI's
    # dump and layouts commands do not need them.
    from ztwin import _tables

    columns, stats = read_columns(
        path, None if names is None else list(names), fields=None if fields is None else list(fields), **_READ_OPTIONS
    )
    return _tables.to_arrow(columns), stats


def arrow_tables(
    path: StrPath, names: Sequence[str] | None = None, fields: Sequence[str] | None = None
) -> dict[str, pa.Table]:
    """One Arrow table per record type in a MONWRITE file, keyed by IBM name.

    Columns: ``offset`` (byte offset of the record), ``tod`` (MRHDRTOD as a UTC
    timestamp), then one column per layout field named by its IBM field name,
    typed from the layout (unsigned/signed integers of the field's width, UTC
    timestamps for TOD fields, strings for character fields and for bit strings
    as hex text). A field a record is too short to hold is null, never zero.
    Layouts with a repeating group add a list-of-struct column under the group
    name. ``names`` selects record types (always present, possibly empty);
    ``fields`` (IBM field or group names) selects columns besides ``offset``
    and ``tod``: other fields are not decoded (much less memory and time).

    Damaged spans are skipped with a :class:`DamageWarning`; a file that cannot
    be read raises ``OSError`` or :class:`MonwriteError`.
    """
    arrow, stats = _read_arrow(path, names, fields)
    _warn_damage(path, stats)
    return arrow


def tables(
    path: StrPath, names: Sequence[str] | None = None, fields: Sequence[str] | None = None
) -> dict[str, pd.DataFrame]:
    """One pandas DataFrame per record type in a MONWRITE file, keyed by IBM name.

    The columns are those of :func:`arrow_tables`. Integer columns use pandas'
    nullable integer dtypes, so an absent field is ``<NA>`` rather than 0 (or a
    float NaN); TOD columns are ``datetime64[us, UTC]``; absent text is NaN.
    ``fields`` as for :func:`arrow_tables`.
    """
    from ztwin import _tables

    arrow, stats = _read_arrow(path, names, fields)
    _warn_damage(path, stats)
    return {name: _tables.to_pandas(t) for name, t in arrow.items()}
