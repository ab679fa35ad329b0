"""Configuration reports: MONSET (FCX149) and SYSCONF (FCX180)."""

from __future__ import annotations

from typing import Any

from ztwin.reports.common import new_report
from ztwin.reports.core import CPU_TYPES, DOMAIN_NAMES, Intervals
from ztwin.reports.model import Report
from ztwin.reports.storage import NO_XSTOR, no_xstor
from ztwin.reports.text import NA, kv_lines, section

MONSET_KEYS = [
    "sample_interval_s", "hf_rate_s", "sample_domains", "hf_domains", "event_domains", "commands",
]  # fmt: skip


def _domains(ds: list[int] | None) -> list[str] | None:
    if ds is None:
        return None
    return [DOMAIN_NAMES[d] if d < len(DOMAIN_NAMES) else f"DOMAIN{d}" for d in ds]


def _span(iv: Intervals) -> dict[str, Any]:
    return {"start": iv.start or iv.data_start, "end": iv.end or iv.data_end}


def monset(iv: Intervals, **_: Any) -> Report:
    c = iv.config
    row = {
        "sample_interval_s": c.sample_interval_s,
        "hf_rate_s": c.hf_rate_s,
        "sample_domains": _domains(c.sample_domains),
        "hf_domains": _domains(c.hf_domains),
        "event_domains": _domains(c.event_domains),
        "commands": [{"time": t, "command": cmd} for t, cmd in c.commands],
    }

    def names(v: list[str] | None) -> str:
        return NA if v is None else (" ".join(v) or "none")

    items = [
        section("Monitor sample settings:"),
        ("Sample interval (sec)", NA if c.sample_interval_s is None else str(c.sample_interval_s)),
        ("High-frequency sampling (sec)", NA if c.hf_rate_s is None else f"{c.hf_rate_s:g}"),
        ("Sample domains enabled", names(row["sample_domains"])),  # type: ignore[arg-type]
        ("High-frequency domains", names(row["hf_domains"])),  # type: ignore[arg-type]
        section("Monitor event settings:"),
        ("Event domains enabled", names(row["event_domains"])),  # type: ignore[arg-type]
    ]
    lines = kv_lines(items)
    if c.commands:
        lines += ["", "Monitor commands:"] + [f"  {t:%H:%M:%S}  {cmd}" for t, cmd in c.commands]
    return new_report(
        iv, "MONSET", "FCX149", "Monitor Settings", rows=[row], keys=MONSET_KEYS, pre_lines=lines, **_span(iv)
    )


SYSCONF_KEYS = [
    "system_id", "cp_level", "machine_type", "machine_model", "lpar_name", "lpar_number", "ipl",
    "zone_s", "cpu_count", "processors", "storage_mb", "xstor_mb", "paging_extents", "page_slots",
    "devices", "users_at_start",
]  # fmt: skip


def sysconf(iv: Intervals, **_: Any) -> Report:
    c = iv.config
    procs: list[dict[str, Any]] = [
        {"cpu": a, "type": CPU_TYPES.get(t, NA) if t is not None else NA} for a, t in sorted(c.cpus.items())
    ]
    page_slots = sum(p.slots or 0 for p in c.paging if p.area_type == "PAGE") if c.paging else None
    if not page_slots and iv.exposure_info:
        # MRMTRPAG without a size: the page slots of the exposures (MRSTOASP_CALPAGE).
        page_slots = sum(e.get("page_slots") or 0 for e in iv.exposure_info.values()) or page_slots
    row: dict[str, Any] = {
        "system_id": c.system_id,
        "cp_level": c.cp_level,
        "machine_type": c.machine_type,
        "machine_model": c.machine_model,
        "lpar_name": c.lpar_name,
        "lpar_number": c.lpar_number,
        "ipl": c.ipl,
        "zone_s": c.zone_s,
        "cpu_count": c.cpu_count if c.cpu_count is not None else (len(c.cpus) or None),
        "processors": procs,
        "storage_mb": None if c.storage_bytes is None else c.storage_bytes / 2**20,
        "xstor_mb": None if c.xstor_blocks is None else c.xstor_blocks * 4096 / 2**20,
        "paging_extents": len(c.paging),
        "page_slots": page_slots,
        "devices": len(c.devices),
        "users_at_start": sum(1 for u in c.users.values() if u.source == "MRMTRUSR"),
    }

    def v(x: Any, fmt: str = "{}") -> str:
        return NA if x is None else fmt.format(x)

    by_type: dict[str, int] = {}
    for proc in procs:
        by_type[str(proc["type"])] = by_type.get(str(proc["type"]), 0) + 1
    items = [
        section("System:"),
        ("System identifier", v(c.system_id)),
        ("z/VM level", v(c.cp_level)),
        ("Processor type and model", "-".join(x for x in (c.machine_type, c.machine_model) if x) or NA),
        ("Partition name / number", f"{v(c.lpar_name)} / {v(c.lpar_number)}"),
        ("IPL time", v(c.ipl, "{:%Y/%m/%d %H:%M:%S}")),
        ("Time zone offset (sec)", str(c.zone_s)),
        section("Processors:"),
        ("Processors", v(row["cpu_count"])),
        ("By type", " ".join(f"{n} {t}" for t, n in sorted(by_type.items())) or NA),
        section("Storage:"),
        ("Central storage (MB)", v(row["storage_mb"], "{:.0f}")),
        ("Expanded storage (MB)", NO_XSTOR if no_xstor(c) else v(row["xstor_mb"], "{:.0f}")),
        ("Paging and spool extents", str(len(c.paging))),
        ("Page slots", v(page_slots)),
        section("I/O and users:"),
        ("Devices described", str(len(c.devices))),
        ("Users logged on at monitor start", str(row["users_at_start"])),
    ]
    lines = kv_lines(items)
    if procs:
        lines += ["", "  CPU  Type"] + [f"  {proc['cpu']:>3}  {proc['type']}" for proc in procs]
    if c.paging:
        lines += ["", "  Volume  Addr  Type   Extent (cyl)        Slots"]
        for p in c.paging:
            ext = f"{p.start}-{p.end}" if p.start is not None and p.end is not None else NA
            addr = NA if p.devno is None else f"{p.devno:04X}"
            lines.append(f"  {p.volser:<6}  {addr:<4}  {p.area_type:<5}  {ext:<16}  {v(p.slots):>9}")
    return new_report(
        iv, "SYSCONF", "FCX180", "System Configuration", rows=[row], keys=SYSCONF_KEYS, pre_lines=lines, **_span(iv)
    )
