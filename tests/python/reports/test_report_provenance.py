"""Each report's note on the fields it reads that no page of the file's release
confirms (ztwin.reports.provenance), and the records it names being all it reads."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from ztwin.monitor import layouts, set_read_options
from ztwin.reports import EXTRA_REPORTS, REPORTS, build, build_from, spec
from ztwin.reports import core as report_core
from ztwin.reports.core import collect
from ztwin.reports.provenance import (
    CONFIG_FIELDS,
    HEADER_RECORDS,
    MEANING_INFERRED,
    fields_read,
    inferred_fields,
    kernel_records,
    layout_release,
    note_lines,
)

from builders import write_varied

WHEN = datetime(2024, 3, 2, 8, 30, 0)
ROOT = Path(__file__).resolve().parents[3]

#: Reports that read records whole from the file (``ReportSpec.direct``)
#: besides the kernel's tables: the kernel's ``ignore`` does not reach those.
KERNEL_REPORTS = [n for n in [*REPORTS, *EXTRA_REPORTS] if not spec(n).direct]


@pytest.fixture(scope="module")
def twin_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ten minutes of the healthy-system study: every kernel record family."""
    from ztwin.twin import run

    out = tmp_path_factory.mktemp("prov") / "s3.monwrite"
    run(ROOT / "studies" / "healthy-system.toml", out, duration=600)
    return out


@pytest.fixture(scope="module")
def varied_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_varied(tmp_path_factory.mktemp("prov") / "varied.monwrite", 6)


def _texts(path: Path, names: list[str], ignore: list[str] | None = None) -> dict[str, str]:
    iv = collect(path, detail=True, users="all", ignore=ignore or ())
    return {n: spec(n).builder(iv, users=None).to_text(WHEN) for n in names}


@pytest.mark.parametrize("which", ["basic", "varied", "twin"])
def test_a_report_reads_only_the_records_it_names(
    which: str, basic_file: Path, varied_file: Path, twin_file: Path
) -> None:
    """Built with every other record the kernel knows ignored, each report is
    the same report: its records (and MRMTRSYS) are all it reads."""
    path = {"basic": basic_file, "varied": varied_file, "twin": twin_file}[which]
    full = _texts(path, KERNEL_REPORTS)
    bad = []
    for name in KERNEL_REPORTS:
        keep = {*HEADER_RECORDS, *spec(name).records}
        ignore = sorted(kernel_records() - keep)
        if _texts(path, [name], ignore)[name] != full[name]:
            extra = [r for r in ignore if _texts(path, [name], [r])[name] != full[name]]
            bad.append(f"{name} reads records it does not name: {extra or 'a combination of ' + str(ignore)}")
    assert not bad, "\n".join(bad)


def test_ignoring_a_named_record_changes_the_report(twin_file: Path) -> None:
    """The check above can fail: USTAT without MRUSEINT is another report."""
    full = _texts(twin_file, ["USTAT", "DEVICE"])
    assert _texts(twin_file, ["USTAT"], ["MRUSEINT"])["USTAT"] != full["USTAT"]
    assert _texts(twin_file, ["DEVICE"], ["MRIODDEV"])["DEVICE"] != full["DEVICE"]


def test_records_named_are_known() -> None:
    known = {lay["name"] for lay in layouts()}
    for name in [*REPORTS, *EXTRA_REPORTS]:
        for rec in (*spec(name).records, *spec(name).direct):
            assert rec in known, f"{name}: {rec}"


def test_config_fields_are_those_apply_config_reads() -> None:
    """CONFIG_FIELDS lists every configuration field the reports' core reads
    (quoted names and the user_conf prefix forms), and nothing else."""
    src = Path(report_core.__file__).read_text(encoding="utf-8")
    quoted = set(re.findall(r'"(MTR[A-Z]{3}_[A-Z0-9]+)"', src))
    suffixes = set(re.findall(r'f"\{prefix\}_([A-Z0-9]+)"', src))
    assert suffixes, "user_conf's field forms not found"
    used = quoted | {f"MTRUSR_{s}" for s in suffixes} | {f"USELON_{s}" for s in suffixes}
    listed = {f for fs in CONFIG_FIELDS.values() for f in fs}
    assert used == listed


@pytest.mark.parametrize(
    ("cp_level", "override", "want"),
    [
        ("5.4.0", None, "5.4"),
        ("V6R2", None, "6.2"),
        ("0730", None, "7.3"),
        ("5.2.0", None, "5.3"),
        ("7.5", None, "7.4"),
        ("6.3", None, "6.3"),
        (None, None, "5.4"),
        ("garbage", None, "5.4"),
        ("5.4", "7.3", "7.3"),
    ],
)
def test_layout_release(cp_level: str | None, override: str | None, want: str) -> None:
    assert layout_release(cp_level, override) == want


def test_useint_is_inferred_and_named() -> None:
    """MRUSEINT has no public offsets: every field USTAT reads from it is in
    the note, by name, in every release."""
    for rel in ("5.3", "5.4", "6.2", "7.3"):
        read = fields_read(["MRUSEINT"], rel)["MRUSEINT"]
        assert "USEINT_HFSTCT" in read and len(read) >= 20
        inf, carried = inferred_fields(["MRUSEINT"], rel)
        assert inf["MRUSEINT"] == read, rel
        assert "MRUSEINT" not in carried
    lines = note_lines(*inferred_fields(["MRUSEINT"], "5.4"), fields_read(["MRUSEINT"], "5.4"), "5.4")
    text = " ".join(" ".join(lines).split())
    assert f"MRUSEINT {len(read)} of {len(read)} (VMDUSER VMDCPUAD HFSTCT" in text


def test_confirmed_fields_give_no_note() -> None:
    """MRSYTPRP's 5.4 layout was seen on IBM's 5.4 page: no field of it is in
    the note for 5.4."""
    inf, carried = inferred_fields(["MRSYTPRP"], "5.4")
    assert "MRSYTPRP" not in inf and "MRSYTPRP" not in carried
    assert fields_read(["MRSYTPRP"], "5.4")["MRSYTPRP"]


def test_carried_over_layouts_name_where_they_were_seen() -> None:
    """MRIODDEV in 5.4: the layout is zpmd's 5.3 one; its counters are
    carried, the fields whose meaning ztwin inferred are inferred."""
    inf, carried = inferred_fields(["MRIODDEV"], "5.4")
    assert set(inf["MRIODDEV"]) == {n for n in MEANING_INFERRED if n.startswith("IODDEV_")}
    assert carried["MRIODDEV"]["seen"] == ["5.3"]
    assert "IODDEV_SCMSSCH" in carried["MRIODDEV"]["fields"]
    assert not set(carried["MRIODDEV"]["fields"]) & set(MEANING_INFERRED)


def test_direct_records_read_every_field() -> None:
    lay = {x["name"]: x for x in layouts("5.4")}["MRIODCAD"]
    names = [f["name"] for f in lay["fields"]]
    assert fields_read([], "5.4", direct=["MRIODCAD"])["MRIODCAD"] == names


def test_notes_in_text_json_and_for_every_report(basic_file: Path) -> None:
    reps = build(basic_file, [*REPORTS, *EXTRA_REPORTS])
    for name, rep in reps.items():
        info = rep.to_dict()["inferred_fields"]
        assert info["release"] == "5.4"
        text = rep.to_text(WHEN)
        # every report reads MRMTRSYS, whose 5.4 layout is carried over from 5.3
        assert "MRMTRSYS (5.1, 5.3)" in text, name
        flat = " ".join(text.split())  # the note wraps: a record's name and its count may be on two lines
        for rec, fields in info["inferred"].items():
            assert f"{rec} {len(fields)} of" in flat, (name, rec)
        json.dumps(rep.to_dict())
    assert reps["USTAT"].to_dict()["inferred_fields"]["inferred"]["MRUSEINT"][:2] == [
        "USEINT_VMDUSER",
        "USEINT_VMDCPUAD",
    ]


def test_release_option_changes_the_note(basic_file: Path) -> None:
    """Decoding as 6.2 (``--release``), the note is about 6.2's pages."""
    try:
        set_read_options(release="6.2")
        rep = build_from(collect(basic_file), ["USTAT"])["USTAT"]
    finally:
        set_read_options()
    assert rep.to_dict()["inferred_fields"]["release"] == "6.2"
    assert "no z/VM 6.2 record page confirms" in rep.to_text(WHEN)
