"""Per-interval data of a MONWRITE file, as the reports and the advisor read it.

The aggregation itself runs in the Rust interval kernel
(``crates/ztwin-analysis``): one streaming pass over the records, buffered one
*sample set* at a time (the records between two ``MRMTREND`` markers); when a
set closes, every keyed counter (per CPU, user, virtual CPU, device, paging
exposure, logical CPU) is differenced against the same key's sample in the
previous set. The kernel hands over Arrow tables (one per entity, per interval,
and window totals); :func:`collect` turns them into an :class:`Intervals`:

* one :class:`SysInterval` per interval in the window (additive system sums),
* window totals per CPU, user, device, exposure and logical CPU (additive),
* optionally per-interval sums for chosen users, devices and exposures.

All sums are *additive*: counter deltas, seconds, and levels multiplied by the
seconds they were seen for. Figures are derived from any sum of them by
:mod:`ztwin.reports.metrics`, so an interval, a window and a ``>>Mean>>`` line
use one formula. The same tables come back from a history database
(:mod:`ztwin.history`), so reports over stored history use the same path.

Conventions (``shared/spec/monitor-records.md`` sections 5 and 9): T is the time
between a key's two samples (MRHDRTOD); the first sample of a key after the
monitor starts, after a logon or vary-on event, or after a key was missing from
the previous set, only sets a baseline; 16- and 32-bit counters wrap; a 64-bit
time that goes backwards means a reset and discards that key's interval;
``SYTPRP_PFXPRBTM`` counts down. :class:`Tracker` and :func:`counter_delta`
state these rules in Python (the reference the kernel is tested against,
``tests/python/reports/reference_intervals.py``).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ztwin.monitor import layouts, read_options
from ztwin.reports.metrics import system_metrics

if TYPE_CHECKING:
    from ztwin._native import Stats, StrPath

#: TOD clock units per second (bit 51 = 1 microsecond).
TOD_PER_S = 4096 * 1_000_000
#: 1900-01-01, the TOD epoch.
TOD_EPOCH = datetime(1900, 1, 1)
#: Microseconds from the TOD epoch to 1970-01-01 (Unix time = TOD / 4096 - this).
EPOCH_1900_US = 2_208_988_800_000_000

Raw = dict[str, float]
Fields = Mapping[str, Any]


class ReportError(Exception):
    """Bad input for a report: an empty window, an unreadable time, no data."""


# --------------------------------------------------------------------------
# Field widths (for counter wrap) from the layout tables
# --------------------------------------------------------------------------

_BITS = {"U1": 8, "U2": 16, "U4": 32, "S2": 16, "S4": 32, "U8": 64, "S8": 64}


def _field_types() -> dict[str, str]:
    types: dict[str, str] = {}
    for lay in layouts():
        for f in lay["fields"]:
            types[f["name"]] = f["type"]
        group = lay["group"]
        if group is not None:
            for f in group["fields"]:
                types[f["name"]] = f["type"]
    return types


_TYPES = _field_types()


def wrap_modulus(name: str) -> int | None:
    """2**bits for a 16/32-bit counter (it wraps); None for 64-bit times (a
    decrease is a reset, not a wrap)."""
    t = _TYPES.get(name)
    if t is None:
        raise KeyError(f"no layout field named {name}")
    bits = _BITS.get(t)
    return None if bits is None or bits == 64 else 1 << bits


def counter_delta(prev: int, cur: int, modulus: int | None, down: bool = False) -> int | None:
    """The increase of a cumulative counter between two samples.

    A 16/32-bit counter that went down has wrapped: ``modulus`` is added. A
    64-bit time that went back to less than half its value (or, counting down,
    rose by more than half of what it had counted) was reset: None. A smaller
    step back is a glitch in the data and counts as no increase.
    """
    d = prev - cur if down else cur - prev
    if d >= 0:
        return d
    if modulus is not None:
        return d % modulus
    if down:
        return None if cur - prev > (_DOWN_START - prev) / 2 else 0
    return None if cur < prev / 2 else 0


#: Where SYTPRP_PFXPRBTM starts counting down.
_DOWN_START = 0x7FFF_FFFF_0000_0000


#: The most a time counter in TOD units rises per second: 64 processors'
#: worth, with 5% for clock jitter (crates/ztwin-analysis, delta.rs).
MAX_TIME_PER_S = 64.0 * 1.05 * TOD_PER_S
#: The most another cumulative counter rises per second for one key.
MAX_COUNT_PER_S = 5.0e6
#: Service time per I/O (seconds) above which a device sample is implausible.
MAX_SERVICE_S = 30.0


def max_per_s(name: str) -> float:
    """The plausible ceiling of a counter field's rise per second."""
    return MAX_TIME_PER_S if _TYPES.get(name) in ("Dur", "Tod") else MAX_COUNT_PER_S


class Tracker:
    """Previous samples of one record type's counters, per key.

    :meth:`delta` returns ``(T, deltas)`` when the key's previous sample is in
    the immediately preceding sample set and belongs to the same generation
    (logon, vary-on), otherwise stores the sample as a new baseline and returns
    None. A delta is None where either sample lacks the field (an older,
    shorter record). A sample whose counters rose by more than they can
    (:func:`max_per_s`) is implausible: None, and the key's next sample is a
    new baseline (the kernel's rule, docs/reports.md).
    """

    __slots__ = ("downs", "fields", "implausible", "maxes", "mods", "prev")

    def __init__(self, fields: Iterable[str], down: Iterable[str] = ()) -> None:
        self.fields = tuple(fields)
        downs = set(down)
        self.mods = tuple(wrap_modulus(n) for n in self.fields)
        self.downs = tuple(n in downs for n in self.fields)
        self.maxes = tuple(max_per_s(n) for n in self.fields)
        self.prev: dict[Any, tuple[int, int, Any, list[Any]]] = {}
        #: Whether the last delta() gave None because the sample was implausible.
        self.implausible = False

    def note(self, key: Any, seq: int, tod: int, f: Fields, gen: Any = None) -> None:
        """Store a sample without differencing (outside the report window)."""
        self.prev[key] = (seq, tod, gen, [f.get(n) for n in self.fields])

    def delta(self, key: Any, seq: int, tod: int, f: Fields, gen: Any = None) -> tuple[float, list[int | None]] | None:
        self.implausible = False
        cur = [f.get(n) for n in self.fields]
        prev = self.prev.get(key)
        self.prev[key] = (seq, tod, gen, cur)
        if prev is None or prev[0] != seq - 1 or prev[2] != gen:
            return None
        seconds = (tod - prev[1]) / TOD_PER_S
        if seconds <= 0:
            return None
        out: list[int | None] = []
        append = out.append
        for c, p, mod, down in zip(cur, prev[3], self.mods, self.downs):
            if c is None or p is None:
                append(None)
            elif not down and c >= p:
                append(c - p)
            else:
                d = counter_delta(p, c, mod, down)
                if d is None:  # a 64-bit time was reset: the whole sample is a new baseline
                    return None
                append(d)
        for d, mx in zip(out, self.maxes, strict=True):
            if d is not None and d > mx * seconds:
                del self.prev[key]  # implausible: the next sample is a new baseline
                self.implausible = True
                return None
        return seconds, out


def add(raw: Raw, key: str, value: float | None) -> None:
    """Add to an additive sum (None adds nothing)."""
    if value is not None:
        raw[key] = raw.get(key, 0) + value


_KIND: dict[str, int] = {}


def _kind(k: str) -> int:
    kind = _KIND.get(k)
    if kind is None:
        kind = _KIND[k] = 1 if k.startswith("min_") else 2 if k.startswith("max_") else 0
    return kind


def merge(into: Raw, other: Mapping[str, float]) -> Raw:
    """Merge additive sums: ``min_``/``max_`` keys by min/max, the rest by sum."""
    get = into.get
    for k, v in other.items():
        old = get(k)
        if old is None:
            into[k] = v
            continue
        kind = _KIND.get(k)
        if kind is None:
            kind = _kind(k)
        if kind == 0:
            into[k] = old + v
        elif kind == 1:
            into[k] = v if v < old else old
        else:
            into[k] = v if v > old else old
    return into


def merged(raws: Iterable[Mapping[str, float]]) -> Raw:
    out: Raw = {}
    for r in raws:
        merge(out, r)
    return out


class _Schema:
    """Positions of raw keys in :class:`CompactRaw` arrays (grows as keys appear)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.keys: list[str] = []

    def pos(self, key: str) -> int:
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.keys)
            self.keys.append(key)
        return i


_SCHEMA = _Schema()
#: Separate schemas keep each kind's arrays as short as its own keys.
SCHEMAS = {kind: _Schema() for kind in ("system", "cpu", "lpar", "user", "device", "exposure", "metrics")}
_NAN = float("nan")


class CompactRaw(Mapping[str, float]):
    """A read-only raw sum stored as one array of doubles (about 8 bytes a key
    instead of a dict entry): what per-interval data is kept as, so that a long
    file's intervals take little memory."""

    __slots__ = ("_a", "_s")

    def __init__(self, raw: Mapping[str, float], schema: str | None = None) -> None:
        sch = _SCHEMA if schema is None else SCHEMAS[schema]
        pos = [(sch.pos(k), v) for k, v in raw.items()]
        a = array("d", [_NAN]) * (max(i for i, _ in pos) + 1 if pos else 0)
        for i, v in pos:
            a[i] = v
        self._a = a
        self._s = sch

    @classmethod
    def wrap(cls, a: array, schema: str) -> CompactRaw:  # type: ignore[type-arg]
        """A CompactRaw over an array already laid out in ``SCHEMAS[schema]``
        positions (NaN = absent)."""
        self = cls.__new__(cls)
        self._a = a
        self._s = SCHEMAS[schema]
        return self

    def __getitem__(self, key: str) -> float:
        i = self._s.index.get(key)
        if i is None or i >= len(self._a):
            raise KeyError(key)
        v = self._a[i]
        if v != v:  # NaN: absent
            raise KeyError(key)
        return v

    def __iter__(self) -> Iterator[str]:
        keys = self._s.keys
        for i, v in enumerate(self._a):
            if v == v:
                yield keys[i]

    def __len__(self) -> int:
        return sum(1 for v in self._a if v == v)

    def get(self, key: str, default: Any = None) -> Any:
        i = self._s.index.get(key)
        if i is None or i >= len(self._a):
            return default
        v = self._a[i]
        return default if v != v else v

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # type: ignore[arg-type]

    def items(self) -> Iterator[tuple[str, float]]:  # type: ignore[override]
        keys = self._s.keys
        return ((keys[i], v) for i, v in enumerate(self._a) if v == v)

    def __repr__(self) -> str:
        return f"CompactRaw({dict(self.items())!r})"


def _add_level(raw: Raw, key: str, value: float | None, seconds: float) -> None:
    """A level (frames, slots, queue length) weighted by the seconds it stands for,
    plus its minimum and maximum."""
    if value is None:
        return
    raw[key] = raw.get(key, 0) + value * seconds
    mn, mx = "min_" + key, "max_" + key
    raw[mn] = min(raw.get(mn, value), value)
    raw[mx] = max(raw.get(mx, value), value)


# --------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------

CPU_TYPES = {0: "CP", 2: "ZAAP", 3: "IFL", 4: "ICF", 5: "ZIIP"}
DOMAIN_NAMES = ("SYSTEM", "MONITOR", "SCHEDULER", "STORAGE", "USER", "PROCESSOR", "I/O", "SEEKS")
AREA_TYPES = {0x80: "PAGE", 0x40: "SPOOL", 0x20: "DUMP", 0x10: "TDISK"}


def domains_from_bits(hex_text: str | None) -> list[int] | None:
    """Domain numbers from a domain bit mask (X'80' = domain 0)."""
    if not hex_text:
        return None
    try:
        mask = int(hex_text, 16)
    except ValueError:
        return None
    width = 4 * len(hex_text)
    return [i for i in range(width) if mask & (1 << (width - 1 - i))]


@dataclass
class DeviceConf:
    devno: int
    volser: str = ""
    dvid: str | None = None  # device type number, e.g. "3390"
    model: int | None = None
    type_code: int | None = None
    dev_class: int | None = None
    cylinders: int | None = None
    sid: int | None = None
    base: int | None = None  # PAV base device number
    cp_owned: bool = False
    # The I/O path (MRMTRDEV), kept as decoded and read when asked for: the
    # CHPIDs of the subchannel's paths (RDEVCHPS, hex) with the logical path
    # mask (RDEVLPM, hex: a bit per CHPID slot), PAV flags (RDEVPVFG, hex),
    # HyperPAV pool number (RDEVHPPL, 0 = none) and EDEV type (EDEVTYPE).
    path_fields: Mapping[str, Any] | None = None  # the last MRMTRDEV's decoded fields
    _path: tuple[tuple[tuple[int, bool], ...], int, int] | None = None  # parsed from path_fields when first asked

    def _parsed(self) -> tuple[tuple[tuple[int, bool], ...], int, int]:
        p = self._path
        if p is None:
            f = self.path_fields or {}
            h, v, pool = f.get("MTRDEV_RDEVCHPS"), f.get("MTRDEV_RDEVPVFG"), f.get("MTRDEV_RDEVHPPL")
            lpm = f.get("MTRDEV_RDEVLPM")
            try:  # hex text as the layouts decode bit strings; anything else (a layout pack's own map) is ignored
                ids = bytes.fromhex(h) if isinstance(h, str) and len(h) == 16 else b""
                flags = int(v, 16) if isinstance(v, str) and v else 0
            except ValueError:
                ids, flags = b"", 0
            try:
                mask = int(lpm, 16) if isinstance(lpm, str) and lpm else None
            except ValueError:
                mask = None
            # Each CHPID slot with its mask bit (no mask: a named CHPID is online); empty slots left out.
            slots = tuple(
                (c, bool(mask & (0x80 >> k)) if mask is not None else True) for k, c in enumerate(ids) if c
            )
            p = self._path = (slots, flags, pool if isinstance(pool, int) else 0)
        return p

    @property
    def chpids(self) -> tuple[int, ...]:
        return tuple(c for c, _ in self._parsed()[0])

    @property
    def path_slots(self) -> tuple[tuple[int, bool], ...]:
        """(CHPID, online in the logical path mask) per channel path."""
        return self._parsed()[0]

    @property
    def pav_flags(self) -> int:
        return self._parsed()[1]

    @property
    def hpp_pool(self) -> int:
        return self._parsed()[2]

    @property
    def edev(self) -> bool:
        t = (self.path_fields or {}).get("MTRDEV_EDEVTYPE")
        return isinstance(t, int) and t != 0


@dataclass
class PagingExtent:
    volser: str
    devno: int | None
    area_type: str
    start: int | None
    end: int | None
    slots: int | None


@dataclass
class UserConf:
    userid: str
    vcpus: int | None = None
    quickdsp: bool | None = None
    relshare: int | None = None
    absshare: int | None = None
    maxshare: int | None = None
    storage_pages: int | None = None
    reserved_pages: int | None = None
    account: str | None = None
    logon: datetime | None = None
    logoff: datetime | None = None
    source: str = ""


@dataclass
class Config:
    """What the configuration records (domain 1) and LPAR records say."""

    system_id: str | None = None
    cp_level: str | None = None
    machine_type: str | None = None
    machine_model: str | None = None
    lpar_name: str | None = None
    lpar_number: int | None = None
    ipl: datetime | None = None
    zone_s: int = 0
    cpu_count: int | None = None
    cpus: dict[int, int | None] = field(default_factory=dict)
    storage_bytes: int | None = None
    xstor_blocks: int | None = None
    devices: dict[int, DeviceConf] = field(default_factory=dict)
    paging: list[PagingExtent] = field(default_factory=list)
    sample_interval_s: int | None = None
    hf_rate_s: float | None = None
    sample_domains: list[int] | None = None
    hf_domains: list[int] | None = None
    event_domains: list[int] | None = None
    users: dict[str, UserConf] = field(default_factory=dict)
    commands: list[tuple[datetime, str]] = field(default_factory=list)
    partitions: int | None = None
    physical_cpus: int | None = None
    time_slice_ms: int | None = None
    #: Per partition name: number, weight, flags, cpu type of its logical CPUs.
    lpars: dict[str, dict[str, Any]] = field(default_factory=dict)

    def local(self, tod: int) -> datetime:
        """Local time (UTC plus the system's time-zone offset) of a TOD value."""
        return TOD_EPOCH + timedelta(microseconds=tod // 4096, seconds=self.zone_s)

    def iso(self, dt: datetime) -> str:
        """ISO 8601 text of a local time, with the system's UTC offset."""
        z = self.zone_s
        if z == 0:
            return dt.strftime("%Y-%m-%dT%H:%M:%S") + "Z"
        sign = "+" if z > 0 else "-"
        z = abs(z)
        return dt.strftime("%Y-%m-%dT%H:%M:%S") + f"{sign}{z // 3600:02d}:{z % 3600 // 60:02d}"


def _text(v: Any) -> str | None:
    if v is None:
        return None
    s = str(v).strip()
    return s or None


# --------------------------------------------------------------------------
# The window (--from / --to)
# --------------------------------------------------------------------------

_TIME = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")
_DATETIME = re.compile(r"^(\d{4})[-/](\d{2})[-/](\d{2})[T ](\d{1,2}):(\d{2})(?::(\d{2}))?Z?$")


@dataclass(frozen=True)
class TimeSpec:
    """A --from/--to value: a time of day (on the date of the first sample) or
    a full local date and time."""

    text: str
    hms: tuple[int, int, int] | None = None
    when: datetime | None = None

    @classmethod
    def parse(cls, text: str) -> TimeSpec:
        t = text.strip()
        m = _TIME.match(t)
        if m:
            h, mi, s = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
            if h > 23 or mi > 59 or s > 59:
                raise ReportError(f"{text!r} is not a time of day (HH:MM:SS)")
            return cls(text, hms=(h, mi, s))
        m = _DATETIME.match(t)
        if m:
            try:
                y, mo, d, h, mi, sec = (int(g or 0) for g in m.groups())
                when = datetime(y, mo, d, h, mi, sec)
            except ValueError as e:
                raise ReportError(f"{text!r} is not a valid date and time: {e}") from None
            return cls(text, when=when)
        raise ReportError(f"{text!r} is not a time (HH:MM:SS or YYYY-MM-DD HH:MM:SS)")

    def resolve(self, day: datetime) -> datetime:
        if self.when is not None:
            return self.when
        assert self.hms is not None
        h, m, s = self.hms
        return day.replace(hour=h, minute=m, second=s, microsecond=0)


@dataclass(frozen=True)
class Window:
    """Which intervals count: those that start at or after ``start`` and end at
    or before ``end`` (times rounded to the second)."""

    start: TimeSpec | None = None
    end: TimeSpec | None = None

    @classmethod
    def parse(cls, start: str | None, end: str | None) -> Window:
        w = cls(TimeSpec.parse(start) if start else None, TimeSpec.parse(end) if end else None)
        if w.start is not None and w.end is not None:
            day = datetime(2000, 1, 1)
            a, b = w.start.resolve(day), w.end.resolve(day)
            both_times = w.start.hms is not None and w.end.hms is not None
            both_dates = w.start.when is not None and w.end.when is not None
            if (both_times or both_dates) and a >= b:
                raise ReportError(f"--from {w.start.text} is not before --to {w.end.text}")
        return w

    @property
    def interim(self) -> bool:
        return self.start is not None or self.end is not None


def _round_s(dt: datetime) -> datetime:
    return (dt + timedelta(microseconds=500_000)).replace(microsecond=0)


# --------------------------------------------------------------------------
# Per-interval data
# --------------------------------------------------------------------------


@dataclass(slots=True)
class SysInterval:
    """One sample interval: additive system sums (``raw``) and per-CPU and
    per-logical-CPU sums. ``metrics.system_metrics(raw)`` derives the figures."""

    index: int
    start_tod: int
    end_tod: int
    start: datetime
    end: datetime
    seconds: float
    raw: Raw = field(default_factory=dict)
    cpus: dict[int, Raw] = field(default_factory=dict)
    lpar: dict[tuple[str, int], Raw] = field(default_factory=dict)
    _metrics: CompactRaw | None = None

    def metrics(self) -> dict[str, Any]:
        """``metrics.system_metrics(raw)`` of this interval, without the figures
        that are None (computed once, kept compact; a new dict each call)."""
        if self._metrics is None:
            m = system_metrics(self.raw)
            self._metrics = CompactRaw({k: v for k, v in m.items() if v is not None}, "metrics")
        return dict(self._metrics.items())


#: Which per-key series to keep: None (none), "all", or a set of keys.
Selection = None | str | set[Any]


def _wanted(sel: Selection, key: Any) -> bool:
    if sel is None:
        return False
    if sel == "all":
        return True
    return isinstance(sel, set) and key in sel


@dataclass
class Intervals:
    """Everything one pass over a file keeps; see the module documentation.

    ``users``, ``devices``, ``exposures``, ``cpus`` and ``lpar`` hold window
    totals (additive raw sums) per key; ``*_series`` hold ``(interval index,
    raw)`` per interval for the keys selected when collecting.
    """

    path: str
    config: Config
    window: Window
    #: A list, or (from the kernel or a database) an IntervalSeq over Arrow batches.
    intervals: Any = field(default_factory=list)
    cpus: dict[int, Raw] = field(default_factory=dict)
    users: dict[str, Raw] = field(default_factory=dict)
    devices: dict[int, Raw] = field(default_factory=dict)
    exposures: dict[int, Raw] = field(default_factory=dict)
    lpar: dict[tuple[str, int], Raw] = field(default_factory=dict)
    #: dicts, or (from the kernel or a database) SeriesMaps over Arrow batches.
    user_series: Mapping[str, list[tuple[int, Raw]]] = field(default_factory=dict)
    device_series: Mapping[int, list[tuple[int, Raw]]] = field(default_factory=dict)
    exposure_series: Mapping[int, list[tuple[int, Raw]]] = field(default_factory=dict)
    #: Last seen attributes per device / exposure (volser, flags, type).
    device_info: dict[int, dict[str, Any]] = field(default_factory=dict)
    exposure_info: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: Local times of the first and last sample sets with data in the file (read so far).
    data_start: datetime | None = None
    data_end: datetime | None = None
    sets: int = 0
    #: User IDs with activity records in what was read (the window and before).
    seen_users: set[str] = field(default_factory=set)
    #: Samples left out of every figure because they cannot be (a counter that
    #: rose by more than it can, a device busy beyond 100%, ...): dicts with
    #: ``offset``, ``record``, ``key``, ``reason`` (the first 1000), and the count.
    implausible: list[dict[str, Any]] = field(default_factory=list)
    implausible_count: int = 0
    stats: Stats | None = None
    stopped_early: bool = False
    #: NSS's records reduced on the kernel's read of the whole file
    #: (``collect_file(nss=True)``, ``IntervalKernel.nss_summary``), or None.
    nss: dict[str, Any] | None = None
    _total: tuple[int, Raw] | None = field(default=None, repr=False)

    @property
    def start(self) -> datetime | None:
        from ztwin.reports.store import IntervalSeq

        if isinstance(self.intervals, IntervalSeq):
            return self.intervals.time(0, "start") if self.intervals else None
        return self.intervals[0].start if self.intervals else None

    @property
    def end(self) -> datetime | None:
        from ztwin.reports.store import IntervalSeq

        if isinstance(self.intervals, IntervalSeq):
            return self.intervals.time(-1, "end") if self.intervals else None
        return self.intervals[-1].end if self.intervals else None

    def total(self) -> Raw:
        """System sums over the window (computed once; do not modify)."""
        n = len(self.intervals)
        if self._total is None or self._total[0] != n:
            from ztwin.reports.store import IntervalSeq, fold, value_names

            seq = self.intervals
            if isinstance(seq, IntervalSeq) and seq.system.schema is not None:
                names = value_names(seq.system.schema)
                self._total = (n, fold((b for _, b in _sums_of(seq)), names))
            else:
                self._total = (n, merged(iv.raw for iv in seq))
        return self._total[1]

    def total_metrics(self) -> dict[str, Any]:
        """``metrics.system_metrics`` of the window (a new dict each call)."""
        return system_metrics(self.total()) if self.intervals else {}

def _sums_of(seq: Any) -> Iterator[tuple[int, Any]]:
    from functools import partial

    from ztwin.reports.store import f64
    from ztwin.reports.vmetrics import Sums

    for off, b in seq.system.batches():
        yield off, Sums(b.num_rows, partial(f64, b))


#: Device classes that are DASD (RDEVCLAS X'04').
DASD_CLASS = 0x04


# --------------------------------------------------------------------------
# Configuration records (applied in file order)
# --------------------------------------------------------------------------


def _iso_local(text: str, zone_s: int) -> datetime | None:
    """A decoded TOD field (ISO text, UTC) as local time."""
    try:
        dt = datetime.strptime(text[:26], "%Y-%m-%dT%H:%M:%S.%f")
    except ValueError:
        return None
    return dt + timedelta(seconds=zone_s)


def apply_config(c: Config, name: str, tod: int, f: Fields) -> None:
    """What one configuration record (domain 1) says, into ``c``."""
    if name == "MRMTRSYS":
        zone = f.get("MTRSYS_SYSZONE")
        if isinstance(zone, int) and abs(zone) <= 86_400:
            c.zone_s = zone
        c.system_id = _text(f.get("MTRSYS_SYSTMID"))
        c.cp_level = _text(f.get("MTRSYS_HCPCPEID"))
        c.machine_type = _text(f.get("MTRSYS_SYSMTYPE"))
        c.machine_model = _text(f.get("MTRSYS_SYSMMODL"))
        c.lpar_name = _text(f.get("MTRSYS_LPARNAME"))
        c.lpar_number = f.get("MTRSYS_LPNUMBER")
        c.cpu_count = f.get("MTRSYS_CPUCOUNT")
        ipl = f.get("MTRSYS_SYSTODST")
        if isinstance(ipl, str) and not ipl.startswith("1900-01-01"):
            c.ipl = _iso_local(ipl, c.zone_s)
    elif name == "MRMTRPRP":
        cpu = f.get("MTRPRP_PFXCPUAD")
        if cpu is not None:
            c.cpus[cpu] = f.get("MTRPRP_PFXCPUTY")
    elif name == "MRMTRDEV":
        devno = f.get("MTRDEV_RDEVDEV")
        if devno is not None:
            d = c.devices.setdefault(devno, DeviceConf(devno))
            d.volser = _text(f.get("MTRDEV_RDEVSER")) or d.volser
            dvid = _text(f.get("MTRDEV_RDEVDVID"))
            d.dvid = dvid if dvid and dvid != "0000" else d.dvid
            d.model = f.get("MTRDEV_CALMODLN") or d.model
            d.type_code = f.get("MTRDEV_RDEVTYPE")
            d.dev_class = f.get("MTRDEV_RDEVCLAS")
            d.sid = f.get("MTRDEV_RDEVSID")
            base = f.get("MTRDEV_CALRDEVDEV")
            d.base = base if base and base != devno else None
            d.path_fields, d._path = f, None
    elif name == "MRMTRMEM":
        g = f.get("MTRMEM_RSAGSTOR")
        c.storage_bytes = g if g else f.get("MTRMEM_RSASTORE")
    elif name == "MRMTRPAG":
        # MTRPAG_CALTYPE: 'PAGE' or 'SPOL'; the extent is CALCYLNO cylinders from CALSTART.
        kind = {"PAGE": "PAGE", "SPOL": "SPOOL"}.get(_text(f.get("MTRPAG_CALTYPE")) or "", "?????")
        start, count = f.get("MTRPAG_CALSTART"), f.get("MTRPAG_CALCYLNO")
        end = start + count - 1 if isinstance(start, int) and isinstance(count, int) and count else None
        # Slots: cylinders times pages per cylinder (MTRPAG_RDCPCYL), when both are given.
        ppc = f.get("MTRPAG_RDCPCYL")
        slots = count * ppc if isinstance(count, int) and isinstance(ppc, int) and count and ppc else None
        c.paging.append(
            PagingExtent(_text(f.get("MTRPAG_CPVOLSER")) or "", f.get("MTRPAG_RDEVDEV"), kind, start, end, slots)
        )
    elif name == "MRMTRSPR":
        c.sample_interval_s = f.get("MTRSPR_INTERVAL")
        hf = f.get("MTRSPR_HFRATE")
        c.hf_rate_s = hf / 100 if isinstance(hf, int) else None
        c.sample_domains = domains_from_bits(f.get("MTRSPR_SDOMAINS"))
        c.hf_domains = domains_from_bits(f.get("MTRSPR_HDOMAINS"))
    elif name == "MRMTREPR":
        c.event_domains = domains_from_bits(f.get("MTREPR_EDOMAINS"))
    elif name == "MRMTRUSR":
        user_conf(c, "MTRUSR", f, "MRMTRUSR")
    elif name == "MRMTRXSG":
        c.xstor_blocks = f.get("MTRXSG_XSTOTALB")
    elif name in ("MRMTRSCM", "MRMTRECM"):
        text = _text(f.get("MTRSCM_CALCMD") if name == "MRMTRSCM" else f.get("MTRECM_CALCMD"))
        if text:
            c.commands.append((c.local(tod), text))


def user_conf(c: Config, prefix: str, f: Fields, source: str) -> UserConf | None:
    """A user's configuration from MRMTRUSR (``prefix`` MTRUSR) or a logon
    event MRUSELON (USELON) into ``c.users``."""
    userid = _text(f.get(f"{prefix}_VMDUSER"))
    if userid is None:
        return None
    # CALSTAT X'40' is VMDQDSPU (QUICKDSP) on IBM's MRUSELON page.
    flags = f.get(f"{prefix}_CALSTAT")
    logon = f.get(f"{prefix}_CALTODON")
    u = UserConf(
        userid,
        vcpus=f.get(f"{prefix}_VMDCPUCT"),
        quickdsp=bool(int(flags, 16) & 0x40) if isinstance(flags, str) and flags else None,
        relshare=f.get(f"{prefix}_VMDRELSH"),
        absshare=f.get(f"{prefix}_VMDABSSH"),
        maxshare=f.get(f"{prefix}_VMDMXSHR"),
        storage_pages=f.get(f"{prefix}_VMDSSIZE"),
        reserved_pages=f.get(f"{prefix}_VMDRSRVD"),
        account=_text(f.get(f"{prefix}_VMDACTNO")),
        logon=_iso_local(logon, c.zone_s) if isinstance(logon, str) else None,
        source=source,
    )
    c.users[userid] = u
    return u


# --------------------------------------------------------------------------
# The kernel's tables as Intervals
# --------------------------------------------------------------------------

#: Unix epoch: the kernel's timestamps are local microseconds since 1970.
EPOCH_1970 = datetime(1970, 1, 1)


def local_from_us(us: int) -> datetime:
    return EPOCH_1970 + timedelta(microseconds=us)


def _spec(t: TimeSpec | None) -> tuple[str, int] | None:
    """A --from/--to value for the kernel."""
    if t is None:
        return None
    if t.hms is not None:
        h, m, s = t.hms
        return ("day", h * 3600 + m * 60 + s)
    assert t.when is not None
    return ("at", (t.when - TOD_EPOCH) // timedelta(seconds=1))


def _table(obj: Any) -> Any:
    """An Arrow table from a table or a kernel's table (:func:`ztwin._tables.stream_table`)."""
    from ztwin._tables import stream_table

    return stream_table(obj)


def _totals(t: Any, keys: int) -> list[tuple[Any, Raw]]:
    """(key, sums without the absent ones) per row; ints stay ints."""
    cols = t.column_names
    out = []
    for row in t.to_pylist():
        vals = list(row.values())
        key = vals[0] if keys == 1 else tuple(vals[:keys])
        out.append((key, {k: v for k, v in zip(cols[keys:], vals[keys:], strict=True) if v is not None}))
    return out


def from_tables(iv: Intervals, tables: Mapping[str, Any], totals: Mapping[str, Any] | None, info: Mapping[str, Any],
                *, detail: bool = True, series: bool = True) -> Intervals:
    """Fill ``iv`` from the kernel's (or the history database's) tables.

    ``tables`` are the per-interval tables by entity (Arrow tables or objects
    with ``__arrow_c_stream__``), ``totals`` the window totals (computed from
    ``tables`` when None), ``info`` what the kernel learnt besides the sums.
    ``detail`` also keeps each interval's per-CPU and per-logical-CPU sums,
    ``series`` the per-interval sums of the users, devices and exposures in
    ``tables`` (the window totals are always filled).
    """
    t = {k: _table(v) for k, v in tables.items()}
    add_intervals(iv, t, detail=detail, series=series)
    if totals is None:
        from ztwin.history import totals_from_intervals

        totals = totals_from_intervals(t)
    finish(iv, totals, info)
    return iv


#: Per-key series: (Intervals attribute, entity, key columns).
SERIES = (("user_series", "user", ["userid"]), ("device_series", "device", ["devno"]),
          ("exposure_series", "exposure", ["devno"]))  # fmt: skip


def add_intervals(iv: Intervals, tables: Mapping[str, Any], *, detail: bool, series: bool) -> None:
    """Append the intervals of one step of per-interval tables to ``iv``.

    The rows stay Arrow record batches (:mod:`ztwin.reports.store`; spilled
    to a temporary file beyond a memory budget): ``iv.intervals`` and the
    series make Python objects only when they are read."""
    from ztwin.reports.store import ColumnStore, IntervalSeq, SeriesMap

    seq = iv.intervals
    if not isinstance(seq, IntervalSeq):
        if len(seq):
            raise ValueError("cannot add kernel tables to Intervals built from objects")
        seq = iv.intervals = IntervalSeq(ColumnStore(coalesce=True), ColumnStore(coalesce=True) if detail else None,
                                         ColumnStore(coalesce=True) if detail else None)  # fmt: skip
        if series:
            for attr, ent, keys in SERIES:
                setattr(iv, attr, SeriesMap(ColumnStore(coalesce=True), keys, ent))
    sys_t = _table(tables["system"])
    if sys_t.num_rows:
        first = sys_t.column("interval")[0].as_py()
        assert first == len(seq), "intervals out of order"
    seq.system.extend(sys_t)
    if detail and seq.cpu is not None and seq.lpar is not None:
        seq.cpu.extend(_table(tables["cpu"]))
        seq.lpar.extend(_table(tables["lpar"]))
    if series:
        for attr, ent, _keys in SERIES:
            m = getattr(iv, attr)
            if isinstance(m, SeriesMap):
                m.store.extend(_table(tables[ent]))
                m._order = None


def finish(iv: Intervals, totals: Mapping[str, Any], info: Mapping[str, Any]) -> None:
    """The window totals and the configuration into ``iv``."""
    c = iv.config
    for rec in info.get("config", []):
        apply_config(c, rec["name"], rec["tod_raw"], rec["fields"])
    for _userid, rec, logoff in info.get("users", []):
        u = user_conf(c, rec["name"][2:], rec["fields"], rec["name"])
        if u is not None and logoff is not None:
            u.logoff = c.local(logoff)
    cug = info.get("cug")
    if cug:
        c.partitions = cug["partitions"]
        c.physical_cpus = cug["physical_cpus"]
        c.time_slice_ms = cug["time_slice_ms"]
        if c.lpar_name is None:
            c.lpar_name = cug["lpar_name"]
    for name, lp in info.get("lpars", {}).items():
        c.lpars[name] = dict(lp)
    for cpu, ty in info.get("cpu_types", []):
        c.cpus.setdefault(cpu, ty)
    iv.device_info = {k: dict(v) for k, v in info.get("devices", {}).items()}
    iv.exposure_info = {k: dict(v) for k, v in info.get("exposures", {}).items()}
    ds, de = info.get("data_start_us"), info.get("data_end_us")
    iv.data_start = None if ds is None else local_from_us(ds)
    iv.data_end = None if de is None else local_from_us(de)
    iv.sets = info.get("sets", 0)
    iv.stopped_early = bool(info.get("stopped_early"))
    iv.seen_users = set(info.get("users_seen", ()))
    iv.implausible = list(info.get("implausible", ()))
    iv.implausible_count = int(info.get("implausible_count", 0))
    tt = {k: _table(v) for k, v in totals.items()}
    iv.cpus = dict(_totals(tt["cpu"], 1))
    iv.lpar = dict(_totals(tt["lpar"], 2))
    iv.users = dict(_totals(tt["user"], 1))
    iv.devices = dict(_totals(tt["device"], 1))
    iv.exposures = dict(_totals(tt["exposure"], 1))
    sys_tot = tt["system"].to_pylist()
    if iv.intervals and sys_tot:
        iv._total = (len(iv.intervals), {k: v for k, v in sys_tot[0].items() if v is not None})
    # A logon record (MRUSELON) has no virtual CPU count (IBM): count the user's
    # virtual CPUs from its activity records, one per virtual CPU per interval.
    for userid, u in c.users.items():
        t = iv.users.get(userid)
        if u.vcpus is None and t and t.get("seconds") and t.get("vcpu_seconds"):
            u.vcpus = round(t["vcpu_seconds"] / t["seconds"])


def collect_file(
    path: StrPath,
    start: str | None = None,
    end: str | None = None,
    *,
    system: str | None = None,
    segment: int | None = None,
    users: Selection = None,
    devices: Selection = None,
    exposures: Selection = None,
    note: Callable[[str], None] | None = None,
    detail: bool = False,
    nss: bool = False,
) -> Intervals:
    """:func:`collect` over the collections :func:`ztwin.segments.choose`
    picks for ``system``/``segment``; ``note`` is called with each of the
    plan's notes before the collections are read; ``detail`` as for
    :func:`collect`. ``nss``: the kernel's read reduces NSS's records as it
    goes (``Intervals.nss``) when it reads the whole file (one collection,
    no ``system``/``segment``); otherwise ``Intervals.nss`` is None.

    Without ``system`` and ``segment`` most files hold one collection, which
    ``choose`` would read whole: then the file is read once, the kernel's own
    reader telling its segments (the part after the window is read without
    aggregating), instead of a separate scan first. A file of several
    collections is then read again as ``choose`` plans it, so the result,
    the errors and the notes are the same either way. Raises as ``choose``
    and ``collect`` do."""
    from ztwin.segments import choose

    if system is None and segment is None:
        iv = _collect(path, start, end, users=users, devices=devices, exposures=exposures, one_collection=True,
                      detail=detail, nss=nss)  # fmt: skip
        if iv is not None:
            return iv
    plan = choose(path, system=system, segment=segment)
    if note is not None:
        for n in plan.notes:
            note(n)
    return collect(path, start, end, users=users, devices=devices, exposures=exposures, segments=plan.ranges,
                   detail=detail)  # fmt: skip


def collect(
    path: StrPath,
    start: str | None = None,
    end: str | None = None,
    *,
    users: Selection = None,
    devices: Selection = None,
    exposures: Selection = None,
    segments: list[tuple[int, int]] | None = None,
    sink: Callable[[Mapping[str, Any]], None] | None = None,
    step: int | None = None,
    detail: bool = False,
    ignore: Sequence[str] = (),
) -> Intervals:
    """Read a MONWRITE file once and aggregate it per sample interval.

    ``start``/``end`` (``HH:MM:SS`` on the first sample's date, or
    ``YYYY-MM-DD HH:MM:SS``, local time of the monitored system) limit the
    intervals; ``users``/``devices``/``exposures`` select keys whose
    per-interval sums are kept (``"all"`` or a set; window totals are always
    kept). ``segments``: byte ranges of the collections to read (the ranges of
    :func:`ztwin.segments.choose`; None reads the whole file); at each later
    range every counter starts a new baseline. ``sink``: instead of keeping
    the selected keys' per-interval sums in the :class:`Intervals`, hand each
    step's per-interval tables (Arrow, by entity) to ``sink``, ``step``
    intervals at a time (bounded memory: ``ztwin diagnose``). ``detail``
    keeps each interval's per-CPU and per-logical-CPU sums even without a
    selection (LPARLOG, PHYSLOG). ``ignore``: records (IBM names) read as if
    the file did not have them (what a figure depends on). Raises
    ``OSError``, :class:`~ztwin.monitor.MonwriteError` or
    :class:`ReportError`.

    The aggregation runs in the Rust interval kernel (``crates/ztwin-analysis``),
    which hands its tables over as Arrow data; this builds the
    :class:`Intervals` the reports and the advisor read.
    """
    iv = _collect(path, start, end, users=users, devices=devices, exposures=exposures, segments=segments, sink=sink,
                  step=step, detail=detail, ignore=ignore)  # fmt: skip
    assert iv is not None
    return iv


def _collect(
    path: StrPath,
    start: str | None,
    end: str | None,
    *,
    users: Selection,
    devices: Selection,
    exposures: Selection,
    segments: list[tuple[int, int]] | None = None,
    sink: Callable[[Mapping[str, Any]], None] | None = None,
    step: int | None = None,
    one_collection: bool = False,
    detail: bool = False,
    ignore: Sequence[str] = (),
    nss: bool = False,
) -> Intervals | None:
    """:func:`collect`; with ``one_collection`` (and no ``segments``) None
    when the whole file turns out to hold other than one collection."""
    from ztwin._native import IntervalKernel

    window = Window.parse(start, end)
    sel_users = {u.upper() for u in users} if isinstance(users, set) else users
    ro = read_options()
    k = IntervalKernel(
        str(path),
        _spec(window.start),
        _spec(window.end),
        sel_users,
        devices,
        exposures,
        ro["release"],
        ro["layouts"],
        segments,
        list(ignore) or None,
        nss=nss and one_collection,
    )
    iv = Intervals(str(path), Config(), window)
    detail = detail or any(s is not None for s in (users, devices, exposures))
    more = True
    while more:
        # a step at a time: the Arrow tables of one step are converted and dropped
        more = k.step(step or COLLECT_STEP)
        tables = k.take()
        add_intervals(iv, tables, detail=detail, series=sink is None)
        if sink is not None:
            sink(tables)
    stats = k.stats()
    if one_collection:
        whole = k.scan_rest()
        if whole["segment_count"] != 1 or len(whole["segments"]) != 1:
            return None
        # the whole file was read: NSS's records are all of the file's
        iv.nss = k.nss_summary()
    info = k.info()
    if info["window_error"]:
        assert window.start is not None and window.end is not None
        raise ReportError(f"--from {window.start.text} is not before --to {window.end.text}")
    finish(iv, k.totals(), info)
    iv.stats = stats
    return iv


#: Intervals converted per kernel step in :func:`collect`: the kernel's rows
#: and their Arrow tables of one step are what the read holds besides the
#: column stores (2000 gave 20-25 MB more peak RSS on a 2 GB bench file;
#: the stores gather the steps' rows into whole batches, so the reports
#: read batches of the same size either way).
COLLECT_STEP = 500


def implausible_text(iv: Intervals) -> str | None:
    """The samples left out as implausible, in one clause ("N implausible
    sample(s) left out of the figures, the first at offset X: RECORD KEY:
    reason"), or None if there were none."""
    if not iv.implausible_count:
        return None
    head = f"{iv.implausible_count} implausible sample(s) left out of the figures"
    if not iv.implausible:
        return head
    x = iv.implausible[0]
    return f"{head}, the first at offset {x['offset']} (X'{x['offset']:X}'): {x['record']} {x['key']}: {x['reason']}"


def iter_series(series: list[tuple[int, Raw]], intervals: list[SysInterval]) -> Iterator[tuple[SysInterval, Raw]]:
    for idx, raw in series:
        yield intervals[idx], raw


Derive = Callable[[Raw], dict[str, Any]]
