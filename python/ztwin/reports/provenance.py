"""Where a report's figures come from, and which of those fields are inferred.

A report is only as good as the record layouts it reads. Many fields of the
layouts ztwin knows are confirmed from IBM's monitor record pages for one
release and carried over to others, or were inferred (``docs/monitor-format.md``,
``ztwin layouts --release V.R NAME``). Every report names the records it reads
(:attr:`ztwin.reports.ReportSpec.records`); this module turns that into the
fields read and, for the release the file is decoded as, the fields among them
whose layout is inferred. :func:`ztwin.reports.build_from` adds them to each
report: lines after the table in text and HTML, ``inferred_fields`` in JSON.

Fields read, per record:

- a record the interval kernel aggregates (``crates/ztwin-analysis``): the
  fields the kernel reads from it, by IBM name (``ztwin._native.kernel_reads``);
- a configuration record (domain 1): the fields :func:`ztwin.reports.core.apply_config`
  reads from it (:data:`CONFIG_FIELDS`);
- a record the report reads whole from the file (``ReportSpec.direct``: the
  I/O path and NSS reports): every field of its layout (the report's code
  takes what it needs).

That the records named are all a report reads is tested: the report built with
every other record ignored by the kernel is the same report
(``tests/python/reports/test_report_provenance.py``).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

#: Releases of the built-in layouts (``ztwin layouts --summary``).
KNOWN_RELEASES = ("5.3", "5.4", "6.1", "6.2", "6.3", "6.4", "7.1", "7.2", "7.3", "7.4")

#: What :func:`ztwin.reports.core.user_conf` reads of a user (its fields' suffix).
_USER_CONF = ("VMDUSER", "CALSTAT", "CALTODON", "VMDCPUCT", "VMDRELSH", "VMDABSSH", "VMDMXSHR", "VMDSSIZE",
              "VMDRSRVD", "VMDACTNO")  # fmt: skip

#: The configuration fields :func:`ztwin.reports.core.apply_config` and
#: :func:`~ztwin.reports.core.user_conf` read, per record.
CONFIG_FIELDS: dict[str, tuple[str, ...]] = {
    "MRMTRSYS": (
        "MTRSYS_SYSZONE",
        "MTRSYS_SYSTMID",
        "MTRSYS_HCPCPEID",
        "MTRSYS_SYSMTYPE",
        "MTRSYS_SYSMMODL",
        "MTRSYS_LPARNAME",
        "MTRSYS_LPNUMBER",
        "MTRSYS_CPUCOUNT",
        "MTRSYS_SYSTODST",
    ),
    "MRMTRPRP": ("MTRPRP_PFXCPUAD", "MTRPRP_PFXCPUTY"),
    "MRMTRDEV": (
        "MTRDEV_RDEVDEV",
        "MTRDEV_RDEVTYPE",
        "MTRDEV_RDEVCLAS",
        "MTRDEV_RDEVSER",
        "MTRDEV_RDEVSID",
        "MTRDEV_RDEVDVID",
        "MTRDEV_CALMODLN",
        "MTRDEV_CALRDEVDEV",
        "MTRDEV_RDEVCHPS",
        "MTRDEV_RDEVPVFG",
        "MTRDEV_RDEVHPPL",
        "MTRDEV_RDEVLPM",
        "MTRDEV_EDEVTYPE",
    ),
    "MRMTRMEM": ("MTRMEM_RSASTORE", "MTRMEM_RSAGSTOR"),
    "MRMTRPAG": (
        "MTRPAG_RDEVDEV",
        "MTRPAG_CPVOLSER",
        "MTRPAG_CALTYPE",
        "MTRPAG_CALSTART",
        "MTRPAG_CALCYLNO",
        "MTRPAG_RDCPCYL",
    ),
    "MRMTRSPR": ("MTRSPR_INTERVAL", "MTRSPR_HFRATE", "MTRSPR_SDOMAINS", "MTRSPR_HDOMAINS"),
    "MRMTREPR": ("MTREPR_EDOMAINS",),
    "MRMTRXSG": ("MTRXSG_XSTOTALB",),
    "MRMTRSCM": ("MTRSCM_CALCMD",),
    "MRMTRECM": ("MTRECM_CALCMD",),
    # user_conf, with prefix MTRUSR (MRMTRUSR) or USELON (the logon event)
    **{f"MR{prefix}": tuple(f"{prefix}_{n}" for n in _USER_CONF) for prefix in ("MTRUSR", "USELON")},
}

#: Fields whose offsets a public source gives but whose meaning ztwin inferred
#: from the name (``docs/monitor-format.md``): listed in the note too.
MEANING_INFERRED = (
    "IODDEV_HFRDEVCT", "IODDEV_HFCTIO", "IODDEV_RDEVMCIA", "IODDEV_PAVUSES", "IODDEV_PAVINELG",
    "MTRDEV_RDEVPVFG",  # its bits (base, alias, HyperPAV) are the twin's reading
)  # fmt: skip

#: Read for every report: its heading (system, CP level, time zone).
HEADER_RECORDS = ("MRMTRSYS",)

#: Width of a note line in the text reports.
NOTE_WIDTH = 100

_CP_LEVEL = re.compile(r"(\d)\.(\d)|V(\d)R(\d)|^0?(\d)(\d)\d$", re.IGNORECASE)


def layout_release(cp_level: str | None, override: str | None = None) -> str:
    """The release whose layouts apply to a file: ``override`` (``--release``)
    when given, else the file's CP level (MTRSYS_HCPCPEID) clamped to the
    releases ztwin has layouts for (5.2 reads as 5.3, 7.5 as 7.4); 5.4 when
    the file does not say (the twin's default)."""
    text = override or cp_level or ""
    m = _CP_LEVEL.search(text.strip())
    if m is None:
        return "5.4"
    g = [x for x in m.groups() if x is not None]
    ver = (int(g[0]), int(g[1]))
    known = [tuple(int(p) for p in r.split(".")) for r in KNOWN_RELEASES]
    if ver <= known[0]:
        return KNOWN_RELEASES[0]
    best = max(k for k in known if k <= ver)
    return f"{best[0]}.{best[1]}"


@cache
def _kernel_reads() -> tuple[tuple[str, ...], frozenset[str]]:
    from ztwin._native import kernel_reads

    fields, records = kernel_reads()
    return tuple(fields), frozenset(records)


def record_of(field: str) -> str:
    """The record a field belongs to: ``MR`` + its prefix (``USEACT_VMDTTIME``
    is in MRUSEACT)."""
    return "MR" + field.split("_", 1)[0]


@cache
def _kernel_fields_by_record() -> dict[str, tuple[str, ...]]:
    """The kernel's fields by record (each in the kernel's order)."""
    by: dict[str, list[str]] = {}
    for f in _kernel_reads()[0]:
        by.setdefault(record_of(f), []).append(f)
    return {rec: tuple(fs) for rec, fs in by.items()}


def kernel_records() -> frozenset[str]:
    """The records the interval kernel reads (configuration records included)."""
    return _kernel_reads()[1]


@cache
def _layouts(release: str, pack: str | None) -> dict[str, Mapping[str, Any]]:
    from ztwin.monitor import layouts

    return {lay["name"]: lay for lay in layouts(release, pack)}


def _layout_fields(lay: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(lay["fields"]) + (list(lay["group"]["fields"]) if lay["group"] else [])


def fields_read(
    records: Iterable[str], release: str, pack: str | None = None, direct: Iterable[str] = ()
) -> dict[str, list[str]]:
    """Per record (in the order given, each once): the fields a report naming
    ``records`` (through the kernel) and ``direct`` (read whole from the
    file) reads, as explained in the module documentation. Records without a
    layout in ``release`` give no fields."""
    krecords = _kernel_reads()[1]
    kfields = _kernel_fields_by_record()
    lays = _layouts(release, pack)
    whole = set(direct)
    out: dict[str, list[str]] = {}
    for rec in dict.fromkeys([*records, *direct]):
        if rec in whole:
            names = [f["name"] for f in _layout_fields(lays[rec])] if rec in lays else []
        elif rec in CONFIG_FIELDS:
            names = list(CONFIG_FIELDS[rec])
        elif rec in krecords:
            names = list(kfields.get(rec, ()))
        elif rec in lays:
            names = [f["name"] for f in _layout_fields(lays[rec])]
        else:
            names = []
        out[rec] = names
    return out


@cache
def _own(release: str, pack: str | None) -> dict[str, Mapping[str, Any]]:
    """Per record, the layout version that applies to ``release`` with each
    field's confidence in its own version (not downgraded to INF where the
    version is carried over to a release it was not seen for)."""
    from ztwin.monitor import layouts

    return {lay["name"]: lay for lay in layouts(None, pack) if release in lay["releases"]}


def inferred_fields(
    records: Iterable[str], release: str, pack: str | None = None, direct: Iterable[str] = ()
) -> tuple[dict[str, list[str]], dict[str, dict[str, Any]]]:
    """Of the fields read (:func:`fields_read`), those not confirmed for
    ``release``: ``(inferred, carried)``. ``inferred``: per record, fields
    ztwin inferred (confidence ``INF`` in the layout's own version: no IBM
    page or other public source gives them; or a meaning inferred from the
    name, :data:`MEANING_INFERRED`). ``carried``: per record whose
    layout for ``release`` was not seen on a page of that release (carried
    over from the releases in ``seen``), ``{"seen": [...], "fields": [...]}``
    with the fields read that a source gives for those releases. Records with
    none are left out; a field the layout does not have is not listed (it is
    not read)."""
    lays = _layouts(release, pack)
    own = _own(release, pack)
    inferred: dict[str, list[str]] = {}
    carried: dict[str, dict[str, Any]] = {}
    for rec, names in fields_read(records, release, pack, direct).items():
        lay = lays.get(rec)
        if lay is None:
            continue
        here = {f["name"]: f["confidence"] for f in _layout_fields(lay)}
        base = own.get(rec)
        there = {f["name"]: f["confidence"] for f in _layout_fields(base)} if base is not None else here
        inf = [n for n in names if n in here and (there.get(n, "INF") == "INF" or n in MEANING_INFERRED)]
        over = [n for n in names if n not in inf and here.get(n) == "INF"]
        if inf:
            inferred[rec] = inf
        if over:
            carried[rec] = {"seen": list(lay["seen"]), "fields": over}
    return inferred, carried


def note_lines(
    inferred: Mapping[str, Sequence[str]],
    carried: Mapping[str, Mapping[str, Any]],
    read: Mapping[str, Sequence[str]],
    release: str,
) -> list[str]:
    """The text lines of the note, wrapped at :data:`NOTE_WIDTH`: the
    inferred fields by name (without their prefix), the carried-over layouts
    by record with the releases they were seen for."""
    if not inferred and not carried:
        return []
    out = [f"Note: fields read that no z/VM {release} record page confirms (`ztwin layouts --release {release}`):"]
    if inferred:
        parts = []
        for rec, names in inferred.items():
            short = " ".join(n.split("_", 1)[1] for n in names)
            parts.append(f"{rec} {len(names)} of {len(read.get(rec, ()))} ({short})")
        out += textwrap.wrap(
            "Inferred by ztwin (offset or meaning from no public source): " + "; ".join(parts) + ".",
            NOTE_WIDTH,
            initial_indent="  ",
            subsequent_indent="    ",
            break_on_hyphens=False,
        )
    if carried:
        parts = [f"{rec} ({', '.join(c['seen']) or 'none'})" for rec, c in carried.items()]
        out += textwrap.wrap(
            f"Layout carried over from the releases in brackets (not seen for {release}): " + ", ".join(parts) + ".",
            NOTE_WIDTH,
            initial_indent="  ",
            subsequent_indent="    ",
            break_on_hyphens=False,
        )
    return out


def annotate(report: Any, records: Sequence[str], cp_level: str | None, direct: Sequence[str] = ()) -> None:
    """Add the note on fields not confirmed to ``report`` (a
    :class:`~ztwin.reports.Report`): its ``post_lines`` and
    ``extra["inferred_fields"]`` (``{"release": V.R, "inferred": {RECORD:
    [FIELD, ...]}, "carried_over": {RECORD: {"seen": [V.R, ...], "fields":
    [FIELD, ...]}}}``, empty when every field read is confirmed)."""
    from ztwin.monitor import read_options

    ro = read_options()
    release = layout_release(cp_level, ro["release"])
    recs = [*HEADER_RECORDS, *records]
    read = fields_read(recs, release, ro["layouts"], direct)
    inf, carried = inferred_fields(recs, release, ro["layouts"], direct)
    report.extra["inferred_fields"] = {"release": release, "inferred": inf, "carried_over": carried}
    lines = note_lines(inf, carried, read, release)
    if lines:
        if report.post_lines:
            report.post_lines.append("")
        report.post_lines.extend(lines)
