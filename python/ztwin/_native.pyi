"""Type stubs for ``ztwin._native``, the Rust extension behind :mod:`ztwin`.

Use the public API in :mod:`ztwin.monitor`; the dict shapes below are the
documented results of its functions.
"""

from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self, TypeAlias, TypedDict

__version__: str

StrPath: TypeAlias = str | PathLike[str]
#: A decoded field value: int for numbers (durations in raw TOD units), str for
#: character fields, TOD fields (ISO 8601 text) and bit strings (hex text), None
#: when the record is too short to hold the field.
FieldValue: TypeAlias = int | str | None

class Damage(TypedDict):
    """A damaged span ``[offset, end)`` of a file and why it was skipped."""

    offset: int
    end: int
    kind: str
    reason: str

class Stats(TypedDict):
    """What a reader has seen so far."""

    file_bytes: int
    groups: int
    records: int
    by_type: dict[str, int]
    unknown: int
    intervals: int
    damage: list[Damage]
    damage_count: int
    damaged_bytes: int
    truncated: bool
    release: str
    release_source: str
    longer: int
    longer_bytes: int
    longer_types: dict[str, LongerInfo]
    longer_warning: str | None
    frame_groups: int
    contiguous_groups: int
    segments: list[Segment]
    segment_count: int

class Segment(TypedDict):
    """One collection in a file (``ztwin_monitor::segment``)."""

    index: int
    offset: int
    end: int
    start: Literal["file-start", "monitor-start", "system-changed", "cpu-model-changed", "time-went-back"]
    reason: str
    system_id: str | None
    cpu_model: str | None
    first_tod: int | None
    last_tod: int | None
    intervals: int

class Record(TypedDict):
    """One decoded monitor record."""

    offset: int
    domain: int
    record: int
    name: str
    tod: str
    tod_raw: int
    length: int
    kind: Literal["sample", "event"]
    fields: dict[str, FieldValue | list[dict[str, FieldValue]]]

class LongerInfo(TypedDict):
    """Records of one type longer than their layout."""

    count: int
    first_offset: int
    first_length: int
    known: int

class FieldInfo(TypedDict):
    """One field of a record layout."""

    name: str
    offset: int
    type: str
    width: int
    confidence: str

class GroupInfo(TypedDict):
    """The repeating group of a record layout."""

    name: str
    offset_field: str
    len_field: str
    entry_size: int
    fields: list[FieldInfo]

class LayoutInfo(TypedDict):
    """A known record layout."""

    domain: int
    record: int
    name: str
    kind: str
    since: str
    releases: list[str]
    size: int
    confidence: str
    seen: list[str]
    source: str
    note: str
    release: str | None
    covered: bool | None
    fields: list[FieldInfo]
    group: GroupInfo | None

class LayoutPackError(ValueError):
    """A layout pack that cannot be read or fails its checks."""

class MonwriteError(Exception):
    """A MONWRITE file is damaged beyond reading."""

    offset: int
    reason: str

class Reader:
    """Iterator over the records of a MONWRITE file, each a :class:`Record`."""

    def __init__(
        self,
        path: StrPath,
        ranges: list[tuple[int, int]] | None = None,
        *,
        release: str | None = None,
        layouts: StrPath | None = None,
    ) -> None: ...
    def __iter__(self) -> Self: ...
    def __next__(self) -> Record: ...
    def stats(self) -> Stats: ...

def scan(path: StrPath) -> Stats:
    """Read a file to the end without decoding fields: its statistics."""

def appldata_records(
    path: StrPath,
    ranges: list[tuple[int, int]] | None = None,
    *,
    release: str | None = None,
    layouts: StrPath | None = None,
) -> tuple[list[dict[str, Any]], str | None, Stats]:
    """The Linux kernel's APPLDATA records (domain 10) of a file, decoded
    (``offset``, ``name``, ``tod_raw``, ``userid``, ``product``, ``module``,
    ``consistent``, ``fields``, ``cpus`` for OS data), a warning about data
    of the wrong length (or None), and the read's statistics."""

class DumpChunks:
    """Iterator over ``ztwin dump`` output in large ``str`` chunks."""

    def __init__(
        self,
        path: StrPath,
        *,
        json: bool = False,
        domain: int | None = None,
        record: int | None = None,
        limit: int | None = None,
        chunk_size: int = 262144,
        release: str | None = None,
        layouts: StrPath | None = None,
    ) -> None: ...
    def __iter__(self) -> Self: ...
    def __next__(self) -> str: ...
    def stats(self) -> Stats: ...
    def summary(self) -> str: ...

class Writer:
    """Writes a MONWRITE file atomically (temporary file renamed on close)."""

    def __init__(self, path: StrPath, *, release: str | None = None, data_layout: str = "frames") -> None: ...
    def add(
        self,
        name: str,
        tod: int | str,
        fields: Mapping[str, object] | None = None,
        *,
        length: int | None = None,
    ) -> None: ...
    def add_raw(self, data: bytes) -> None: ...
    def write_sample_set(self, end_tod: int | str) -> None: ...
    def write_event_set(self) -> None: ...
    @property
    def pending(self) -> int: ...
    @property
    def path(self) -> Path: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def discard(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...

def tod_to_iso(tod: int) -> str: ...
def iso_to_tod(text: str) -> int: ...
def ebcdic_decode(data: bytes) -> str: ...
def ebcdic_encode(text: str) -> bytes: ...
def layouts(release: str | None = None, layouts: StrPath | None = None) -> list[LayoutInfo]: ...
def read_columns(
    path: StrPath,
    names: list[str] | None = None,
    *,
    release: str | None = None,
    layouts: StrPath | None = None,
    fields: list[str] | None = None,
) -> tuple[dict[str, dict[str, list[Any]]], Stats]: ...
def kernel_reads() -> tuple[list[str], list[str]]: ...

# ---------------------------------------------------------------- the twin

class ScenarioError(Exception):
    """A scenario is invalid: ``origin`` (file or 'api'), ``line`` (of a TOML
    file, else None), ``place`` (the key path; empty for a syntax error) and
    ``reason``."""

    origin: str
    line: int | None
    place: str
    reason: str

class SimulationError(Exception):
    """The simulated system could not continue, or output could not be written."""

    code: str | None
    at_s: float | None
    kept: bool
    #: Where the data up to the abend was kept (set by ``ztwin.twin``).
    path: Path

class RunSummaryDict(TypedDict):
    sim_s: float
    wall_s: float
    events: int
    page_refs: int
    refs_per_s: float
    events_per_s: float
    sim_per_wall: float
    intervals: int
    records: int
    bytes: int
    #: The CP console lines of the timeline's commands and their responses.
    console: list[str]
    seed: int
    out: Path

def validate_scenario(text: str, origin: str, format: Literal["toml", "json"]) -> None: ...
def run_scenario(
    text: str,
    origin: str,
    format: Literal["toml", "json"],
    out: StrPath,
    seed: int | None = None,
    duration_s: float | None = None,
    progress: Any = None,
) -> RunSummaryDict: ...

def run_zos(text: str, origin: str, pagescm: str | None = None) -> str:
    """Run a z/OS partition scenario; its records as JSON text."""


class ConsoleSession:
    """An interactive run of a scenario (``ztwin console``) writing ``out``."""

    def __init__(
        self, text: str, origin: str, format: Literal["toml", "json"], out: StrPath, seed: int | None = None
    ) -> None: ...
    def now(self) -> float: ...
    def end(self) -> float: ...
    def run_to(self, t: float) -> list[str]: ...
    def command(self, line: str, issuer: str | None = None) -> list[str]: ...
    def finish(self) -> list[str]: ...


class ArrowTable:
    """Record batches of one schema; ``pa.table(t)`` (or polars, DuckDB) takes
    them without a copy through the Arrow PyCapsule interface."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...
    @property
    def num_rows(self) -> int: ...
    def __len__(self) -> int: ...

class IntervalKernel:
    """The interval kernel (crates/ztwin-analysis) over a file, in steps.
    ``start``/``end``: None, ("day", seconds after midnight on the first
    interval's date) or ("at", local seconds since 1900-01-01); selections:
    None, "all" or a set of keys whose per-interval rows are kept;
    ``release``/``layouts``: as for :class:`Reader`."""

    def __init__(
        self,
        path: StrPath,
        start: tuple[str, int] | None = None,
        end: tuple[str, int] | None = None,
        users: str | set[str] | None = None,
        devices: str | set[int] | None = None,
        exposures: str | set[int] | None = None,
        release: str | None = None,
        layouts: StrPath | None = None,
        ranges: list[tuple[int, int]] | None = None,
        ignore: list[str] | None = None,
        nss: bool = False,
    ) -> None: ...
    def step(self, max_intervals: int = 0) -> bool: ...
    def nss_summary(self) -> dict[str, Any] | None:
        """NSS's records reduced as they were read (``nss=True``; None
        without): ``lo``/``hi`` the window it used (the first interval's
        start, the last one's end, microseconds since 1970), ``exact``
        whether its assumptions held; ``spool`` (device, volser, counters of
        the last record at or before ``lo`` or None, of the last in the
        window or None) in device order, counters as CALSPOOL, CPVALOCD,
        EXPCTPWR, EXPCTPRD, SCGSSCH; ``shs`` (samples, sum of SYSTADCS, sum
        of RSASHARE, maximum RSASHARE) or None; ``segments`` (name, last
        offset, its spool ID, users shared, users exclusive, resident pages'
        sum, maximum, samples) per name as decoded; ``events`` (offset, tod,
        record name, SDFFN, SDFIDNUM) in the window."""
    def take(self) -> dict[str, ArrowTable]: ...
    def totals(self) -> dict[str, ArrowTable]: ...
    def stats(self) -> Stats: ...
    def scan_rest(self) -> Stats:
        """After step() returned False: read the rest of the file without
        aggregating; the statistics of the whole file (its segments)."""
    def info(self) -> dict[str, Any]: ...

def format_rows(
    fmt: Literal["json", "csv", "text"],
    n: int,
    columns: list[tuple[str, Any, str, int, int, bool]],
    zone: str = "Z",
    gap: int = 1,
) -> str:
    """The text of ``n`` report rows from columns ``(tag, data, json_key,
    width, dec, left)``: tag "f" (float64 buffer, NaN = absent), "t" (int64
    local microseconds since 1970), "l" (the literal text of every row) or
    "c" (a tuple (int64 codes, texts): row i shows texts[codes[i]]).
    JSON objects separated by ", ", CSV lines, or fixed-width text lines;
    numbers as ``repr(round(v, 6))`` and Perfkit cells exactly as
    ``ztwin.reports.model`` / ``ztwin.reports.text`` write them."""

def format_rows_bytes(
    fmt: Literal["json", "csv", "text"],
    n: int,
    columns: list[tuple[str, Any, str, int, int, bool]],
    zone: str = "Z",
    gap: int = 1,
) -> bytes:
    """:func:`format_rows` as UTF-8 bytes (written straight into a byte stream)."""

def fold_by_keys(codes: Any, columns: list[Any], kinds: list[str], outs: list[Any]) -> None:
    """Fold float64 ``columns`` into the writable float64 buffers ``outs`` by
    the int64 key numbers ``codes``, in row order (NaN skipped; "sum" a left
    fold, "min", "max"); repeated calls continue the folds."""

def ingest_rows(tables: dict[str, ArrowTable], stored: set[int]) -> tuple[dict[str, ArrowTable] | None, int, int]:
    """``ztwin ingest``'s rows of one ``IntervalKernel.take()``: every table
    cut to the intervals whose end (the system row's ``end_tod``) is not in
    ``stored``, ``interval`` dropped, ``end_tod`` (not on the system table)
    and ``ord`` (0, 1, ... over the kept rows) appended; with the counts of
    intervals added and skipped. ``stored`` gains the added ends. None
    instead of the tables when no interval is new."""
