"""Writing records through the Python writer and reading them back."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from support import BLOCK, T1, T2, T_EVENT, write_sample_file

from ztwin.monitor import MonwriteError, Writer, iso_to_tod, read


def test_round_trip_of_several_record_types(sample_file: Path) -> None:
    records = list(read(sample_file))
    assert [r["name"] for r in records] == [
        "MRMTRSYS", "MRMTREND",
        "MRSYTRSG", "MRSYTPRP", "MRSYTPRP", "MRUSEACT", "MRMTREND",
        "MRSYTRSG", "MRSYTPRP", "MRSYTPRP", "MRUSEACT", "MRMTREND",
        "MRMTRECM",
    ]  # fmt: skip

    sys_rec = records[0]
    assert (sys_rec["domain"], sys_rec["record"], sys_rec["kind"]) == (1, 4, "sample")
    assert sys_rec["offset"] == BLOCK  # first record right after the first control record
    assert sys_rec["length"] == 184
    assert sys_rec["tod"] == "2024-03-01T10:00:00.000000Z"
    assert sys_rec["tod_raw"] == iso_to_tod("2024-03-01T10:00:00Z")
    fields = sys_rec["fields"]
    assert fields["MTRSYS_HCPCPEID"] == "ZVMSYS01"
    assert fields["MTRSYS_LPARNAME"] == "LPAR07"
    assert fields["MTRSYS_CPUCOUNT"] == 2
    assert fields["MTRSYS_SYSTODST"] == "2024-02-28T06:30:00.000001Z"
    assert fields["MTRSYS_SYSDATE"] == ""  # not given: blank

    rsg = records[7]
    assert rsg["tod"] == T2
    assert rsg["fields"]["SYTRSG_RSAAVAIL"] == 5002
    assert rsg["fields"]["SYTRSG_CALFLAG1"] == "80"
    assert rsg["fields"]["SYTRSG_RSA2GAVL"] == 2**40 + 2
    assert rsg["fields"]["SYTRSG_RSACPLOK"] == 0  # not given: zero

    prp = records[9]
    assert prp["fields"]["SYTPRP_PFXCPUAD"] == 1
    assert prp["fields"]["SYTPRP_PFXUTIME"] == 2 * 4096 * 1_000_000  # raw TOD units

    act = records[5]
    assert act["fields"]["USEACT_VMDUSER"] == "LINUX01"
    assert act["fields"]["USEACT_VMDCTPVR"] == 1000
    assert records[6]["tod"] == T1

    event = records[-1]
    assert event["kind"] == "event"
    assert event["tod"] == T_EVENT
    assert event["fields"]["MTRECM_CALCMD"] == "MONITOR EVENT ENABLE USER ALL"
    assert event["fields"]["MTRECM_CALBYCT"] == len("MONITOR EVENT ENABLE USER ALL")
    assert event["length"] == 24 + len("MONITOR EVENT ENABLE USER ALL")


def test_reader_stats(sample_file: Path) -> None:
    reader = read(sample_file)
    for _ in reader:
        pass
    stats = reader.stats()
    assert stats["file_bytes"] == sample_file.stat().st_size
    assert stats["groups"] == 4
    assert stats["records"] == 13
    assert stats["intervals"] == 3
    assert stats["by_type"] == {
        "MRSYTRSG": 2, "MRSYTPRP": 4, "MRMTRECM": 1, "MRMTRSYS": 1, "MRMTREND": 3, "MRUSEACT": 2,
    }  # fmt: skip
    assert stats["unknown"] == 0
    assert stats["damage"] == []
    assert stats["damage_count"] == 0
    assert stats["truncated"] is False


def test_signed_bits_and_duration_values(tmp_path: Path) -> None:
    path = tmp_path / "values.monwrite"
    with Writer(path) as w:
        w.add(
            "MRUSEINT",
            T1,
            {"USEINT_HFDSVM": -5, "USEINT_VMDSVMID": "CMS1", "USEINT_VMDSTATE": b"\x81"},
        )
        w.add("MRMTRSYS", T1, {"MTRSYS_HCPCPEPP": "0102030405060708", "MTRSYS_SYSTERM": iso_to_tod(T2)})
        w.write_sample_set(T1)
    ints, sys_rec, _end = list(read(path))
    assert ints["fields"]["USEINT_HFDSVM"] == -5
    assert ints["fields"]["USEINT_VMDSVMID"] == "CMS1"
    assert ints["fields"]["USEINT_VMDSTATE"] == "81"
    assert sys_rec["fields"]["MTRSYS_HCPCPEPP"] == "0102030405060708"
    assert sys_rec["fields"]["MTRSYS_SYSTERM"] == T2


def test_repeating_group_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cup.monwrite"
    entries = [
        {"SYTCUP_LCUCPUID": 0, "SYTCUP_LCUCWGHT": 300, "SYTCUP_LCUCACTM": 4096 * 5},
        {"SYTCUP_LCUCPUID": 1, "SYTCUP_LCUCFLGS": "40"},
    ]
    with Writer(path) as w:
        w.add("MRSYTCUP", T1, {"SYTCUP_LCUPNAME": "LPAR07", "SYTCUP_CPUDATA": entries})
        w.write_sample_set(T1)
    cup = next(iter(read(path)))
    # The z/VM 5.4 fixed part (64 bytes) and 40-byte entries.
    assert cup["length"] == 64 + 2 * 40
    assert cup["fields"]["SYTCUP_CALCPUOF"] == 64
    assert cup["fields"]["SYTCUP_CALCPULN"] == 40
    got = cup["fields"]["SYTCUP_CPUDATA"]
    assert isinstance(got, list)
    assert [(e["SYTCUP_LCUCPUID"], e["SYTCUP_LCUCWGHT"], e["SYTCUP_LCUCFLGS"], e["SYTCUP_LCUCACTM"]) for e in got] == [
        (0, 300, "00", 4096 * 5),
        (1, 0, "40", 0),
    ]


def test_former_field_names(tmp_path: Path) -> None:
    """Former ztwin names are accepted for their IBM replacements; retired
    names are refused with the reason."""
    path = tmp_path / "old.monwrite"
    with Writer(path) as w:
        w.add("MRSYTCUP", T1, {"SYTCUP_LCXPNAME": "LPAR07", "SYTCUP_LCPU": [{"SYTCUP_LCCCPUAD": 3}]})
        w.add("MRMTRMEM", T1, {"MTRMEM_SYSGSTOR": 2**33})
        with pytest.raises(ValueError, match="MRIODDEV has no field .IODDEV_HFCOUNT. any more: .*PRCPRP_HFCOUNT"):
            w.add("MRIODDEV", T1, {"IODDEV_HFCOUNT": 1})
        w.write_sample_set(T1)
    cup, mem = list(read(path))[:2]
    assert cup["fields"]["SYTCUP_LCUPNAME"] == "LPAR07"
    assert cup["fields"]["SYTCUP_CPUDATA"][0]["SYTCUP_LCUCPUID"] == 3
    assert mem["fields"]["MTRMEM_RSAGSTOR"] == 2**33


def test_short_record_leaves_trailing_fields_absent(tmp_path: Path) -> None:
    path = tmp_path / "short.monwrite"
    with Writer(path) as w:
        w.add("MRSYTRSG", T1, {"SYTRSG_RSAAVAIL": 77}, length=56)
        w.write_sample_set(T1)
    rec = next(iter(read(path)))
    assert rec["length"] == 56
    assert rec["fields"]["SYTRSG_RSAAVAIL"] == 77
    assert rec["fields"]["SYTRSG_RSAFRQWT"] is None
    assert rec["fields"]["SYTRSG_RSARESBC"] is None


def test_unknown_record_from_raw_bytes(tmp_path: Path) -> None:
    path = tmp_path / "raw.monwrite"
    tod = iso_to_tod(T1)
    raw = (24).to_bytes(2, "big") + bytes(2) + bytes([9, 0]) + (99).to_bytes(2, "big") + tod.to_bytes(8, "big")
    raw += bytes(4) + b"\xde\xad\xbe\xef"
    with Writer(path) as w:
        w.add_raw(raw)
        w.write_event_set()
    reader = read(path)
    (rec,) = list(reader)
    assert (rec["name"], rec["domain"], rec["record"], rec["length"]) == ("D9R99", 9, 99, 24)
    assert rec["fields"] == {}
    assert reader.stats()["unknown"] == 1


@pytest.mark.parametrize(
    ("name", "fields", "error", "match"),
    [
        ("MRNOSUCH", {}, ValueError, "unknown record name"),
        ("MRSYTRSG", {"SYTRSG_NOSUCH": 1}, ValueError, "no field"),
        ("MRSYTRSG", {"SYTRSG_RSAAVAIL": 2**32}, ValueError, "out of range"),
        ("MRSYTRSG", {"SYTRSG_RSAAVAIL": -1}, ValueError, "out of range"),
        ("MRSYTRSG", {"SYTRSG_RSAAVAIL": "12"}, TypeError, "expected an int"),
        ("MRSYTRSG", {"SYTRSG_CALFLAG1": "8000"}, ValueError, "2 bytes given for a 1-byte field"),
        ("MRSYTRSG", {"SYTRSG_CALFLAG1": "zz"}, ValueError, "not hex"),
        ("MRUSEACT", {"USEACT_VMDUSER": "TOOLONGID"}, ValueError, "longer than"),
        ("MRUSEACT", {"USEACT_VMDUSER": "\u20ac"}, ValueError, "EBCDIC"),
        ("MRMTRSYS", {"MTRSYS_SYSTODST": "yesterday"}, ValueError, "MTRSYS_SYSTODST"),
        ("MRMTREND", {}, ValueError, "written by the writer"),
    ],
)
def test_bad_values_are_rejected_with_the_field_named(
    tmp_path: Path, name: str, fields: dict[str, object], error: type[Exception], match: str
) -> None:
    with Writer(tmp_path / "bad.monwrite") as w:
        with pytest.raises(error, match=match):
            w.add(name, T1, fields)
        assert w.pending == 0  # nothing half-added
        w.write_event_set()


def test_field_beyond_an_explicit_length_is_rejected(tmp_path: Path) -> None:
    with Writer(tmp_path / "bad.monwrite") as w:
        with pytest.raises(ValueError, match="does not fit"):
            w.add("MRSYTRSG", T1, {"SYTRSG_RSARESBC": 1}, length=56)
        w.write_event_set()


def test_writer_is_atomic_on_exception(tmp_path: Path) -> None:
    path = tmp_path / "aborted.monwrite"
    with pytest.raises(RuntimeError), Writer(path) as w:
        w.add("MRSYTRSG", T1, {"SYTRSG_RSAAVAIL": 1})
        w.write_sample_set(T1)
        raise RuntimeError("stop")
    assert list(tmp_path.iterdir()) == []


def test_writer_leaves_no_file_until_closed(tmp_path: Path) -> None:
    path = tmp_path / "pending.monwrite"
    w = Writer(path)
    w.add("MRSYTRSG", T1)
    w.write_sample_set(T1)
    assert not path.exists()
    w.close()
    assert path.stat().st_size == 2 * BLOCK
    assert [p.name for p in tmp_path.iterdir()] == ["pending.monwrite"]
    assert w.closed and w.path == path
    with pytest.raises(ValueError, match="closed"):
        w.add("MRSYTRSG", T1)


def test_abandoned_writer_removes_its_temporary_file(tmp_path: Path) -> None:
    w = Writer(tmp_path / "abandoned.monwrite")
    w.add("MRSYTRSG", T1)
    w.write_sample_set(T1)
    assert len(list(tmp_path.iterdir())) == 1  # the temporary file
    del w
    gc.collect()
    assert list(tmp_path.iterdir()) == []


def test_unwritten_records_fail_the_close_and_save_nothing(tmp_path: Path) -> None:
    path = tmp_path / "unwritten.monwrite"
    with pytest.raises(ValueError, match="1 records were added after the last"), Writer(path) as w:
        w.add("MRSYTRSG", T1)
    assert list(tmp_path.iterdir()) == []


def test_replacing_an_existing_file_is_all_or_nothing(tmp_path: Path) -> None:
    path = tmp_path / "sample.monwrite"
    write_sample_file(path)
    before = path.read_bytes()
    with pytest.raises(KeyError), Writer(path) as w:
        w.add("MRSYTRSG", T1)
        w.write_sample_set(T1)
        raise KeyError("abandon")
    assert path.read_bytes() == before


def test_writer_is_deterministic(tmp_path: Path) -> None:
    write_sample_file(tmp_path / "a")
    write_sample_file(tmp_path / "b")
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


def test_missing_file_raises_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        read(tmp_path / "nope.monwrite")
    assert info.value.filename == str(tmp_path / "nope.monwrite")


@pytest.mark.parametrize(
    ("content", "offset", "reason"),
    [
        (b"", 0, "the file is empty"),
        (bytes(100), 0, "100 bytes, shorter than one 4096-byte"),
    ],
)
def test_fatal_damage_at_open(tmp_path: Path, content: bytes, offset: int, reason: str) -> None:
    path = tmp_path / "bad.monwrite"
    path.write_bytes(content)
    with pytest.raises(MonwriteError, match=reason) as info:
        read(path)
    assert info.value.offset == offset
    assert reason in info.value.reason


def test_not_a_monwrite_file_raises_on_iteration(tmp_path: Path) -> None:
    path = tmp_path / "text.monwrite"
    path.write_bytes(b"hello world\n" * 400)
    reader = read(path)
    with pytest.raises(MonwriteError, match="not a MONWRITE file") as info:
        next(reader)
    assert info.value.offset == 0
    assert list(reader) == []


def test_truncated_group_delivers_records_before_the_cut(long_group_file: Path) -> None:
    data = long_group_file.read_bytes()
    assert len(data) == 14 * BLOCK
    cut = 6 * BLOCK + 100  # control record, 5 whole data blocks, part of the 6th
    long_group_file.write_bytes(data[:cut])
    reader = read(long_group_file)
    records = list(reader)
    assert [r["fields"]["SYTRSG_RSAAVAIL"] for r in records] == list(range(40))  # 8 per frame
    stats = reader.stats()
    assert stats["truncated"] is True
    assert stats["damage_count"] >= 1
    assert {d["kind"] for d in stats["damage"]} >= {"truncated-group"}
    assert all(d["offset"] == 6 * BLOCK for d in stats["damage"])


@pytest.mark.parametrize("target", ["/dev/null", "dir", "link"])
def test_writer_replaces_only_regular_files(tmp_path: Path, target: str) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "real").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    path = Path(target) if target.startswith("/") else tmp_path / target
    with pytest.raises(ValueError, match="the writer replaces only regular files"):
        Writer(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "link", "real"]
