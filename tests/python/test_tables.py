"""One pandas DataFrame / Arrow table per record type."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from support import BLOCK, T1, T2

from ztwin.monitor import DamageWarning, MonwriteError, Writer, arrow_tables, layouts, tables


def test_one_frame_per_record_type(sample_file: Path) -> None:
    frames = tables(sample_file)
    assert set(frames) == {"MRMTRSYS", "MRMTREND", "MRSYTRSG", "MRSYTPRP", "MRUSEACT", "MRMTRECM"}
    known = {layout["name"]: layout for layout in layouts()}
    for name, frame in frames.items():
        assert list(frame.columns) == ["offset", "tod"] + [f["name"] for f in known[name]["fields"]]
    assert [len(frames[n]) for n in ("MRMTRSYS", "MRMTREND", "MRSYTRSG", "MRSYTPRP", "MRUSEACT", "MRMTRECM")] == [
        1, 3, 2, 4, 2, 1,
    ]  # fmt: skip


def test_frame_values_and_dtypes(sample_file: Path) -> None:
    rsg = tables(sample_file, ["MRSYTRSG"])["MRSYTRSG"]
    assert rsg["tod"].tolist() == [pd.Timestamp(T1), pd.Timestamp(T2)]
    assert str(rsg["tod"].dtype) == "datetime64[us, UTC]"
    assert rsg["SYTRSG_RSAAVAIL"].tolist() == [5001, 5002]
    assert rsg["SYTRSG_RSAAVAIL"].dtype == pd.UInt32Dtype()
    assert rsg["SYTRSG_RSA2GAVL"].tolist() == [2**40 + 1, 2**40 + 2]
    assert rsg["SYTRSG_RSA2GAVL"].dtype == pd.UInt64Dtype()
    assert rsg["SYTRSG_CALFLAG1"].tolist() == ["80", "80"]
    assert rsg["offset"].iloc[0] == 3 * BLOCK  # after the config group (2 blocks) and a control record

    sys_rec = tables(sample_file, ["MRMTRSYS"])["MRMTRSYS"].iloc[0]
    assert sys_rec["MTRSYS_HCPCPEID"] == "ZVMSYS01"
    assert sys_rec["MTRSYS_SYSTODST"] == pd.Timestamp(datetime(2024, 2, 28, 6, 30, 0, 1, tzinfo=UTC))

    prp = tables(sample_file, ["MRSYTPRP"])["MRSYTPRP"]
    assert prp["SYTPRP_PFXCPUAD"].tolist() == [0, 1, 0, 1]
    assert prp["SYTPRP_PFXUTIME"].tolist() == [4096 * 10**6, 4096 * 10**6, 2 * 4096 * 10**6, 2 * 4096 * 10**6]


def test_absent_fields_are_missing_not_zero(tmp_path: Path) -> None:
    path = tmp_path / "short.monwrite"
    with Writer(path) as w:
        w.add("MRSYTRSG", T1, {"SYTRSG_RSAAVAIL": 10, "SYTRSG_RSAFRQWT": 0, "SYTRSG_CALFLAG1": "01"})
        w.add("MRSYTRSG", T2, {"SYTRSG_RSAAVAIL": 20}, length=56)
        w.write_sample_set(T2)
    rsg = tables(path)["MRSYTRSG"]
    assert rsg["SYTRSG_RSAAVAIL"].tolist() == [10, 20]
    assert rsg["SYTRSG_RSAFRQWT"].iloc[0] == 0
    assert rsg["SYTRSG_RSAFRQWT"].isna().tolist() == [False, True]
    assert rsg["SYTRSG_CALFLAG1"].isna().tolist() == [False, True]
    assert rsg["SYTRSG_RSARESBC"].isna().tolist() == [False, True]

    table = arrow_tables(path)["MRSYTRSG"]
    assert table.column("SYTRSG_RSAFRQWT").to_pylist() == [0, None]


def test_arrow_types_follow_the_layout(sample_file: Path) -> None:
    act = arrow_tables(sample_file, ["MRUSEACT"])["MRUSEACT"]
    assert act.schema.field("offset").type == pa.uint64()
    assert act.schema.field("tod").type == pa.timestamp("us", tz="UTC")
    assert act.schema.field("USEACT_VMDUSER").type == pa.string()
    assert act.schema.field("USEACT_VMDCPUAD").type == pa.uint16()
    assert act.schema.field("USEACT_VMDTTIME").type == pa.uint64()
    assert act.column("USEACT_VMDUSER").to_pylist() == ["LINUX01", "LINUX01"]
    assert act.column("USEACT_VMDCTPVR").to_pylist() == [1000, 2000]


def test_repeating_group_column(tmp_path: Path) -> None:
    path = tmp_path / "cup.monwrite"
    with Writer(path) as w:
        w.add("MRSYTCUP", T1, {"SYTCUP_CPUDATA": [{"SYTCUP_LCUCPUID": 0}, {"SYTCUP_LCUCPUID": 1, "SYTCUP_LCUCWGHT": 9}]})
        w.write_sample_set(T1)
    cup = arrow_tables(path)["MRSYTCUP"]
    entries = cup.column("SYTCUP_CPUDATA").to_pylist()[0]
    assert [(e["SYTCUP_LCUCPUID"], e["SYTCUP_LCUCWGHT"]) for e in entries] == [(0, 0), (1, 9)]


def test_requested_types_are_present_even_when_empty(sample_file: Path) -> None:
    frames = tables(sample_file, ["MRSYTRSG", "MRIODDEV"])
    assert set(frames) == {"MRSYTRSG", "MRIODDEV"}
    assert frames["MRIODDEV"].empty
    assert "IODDEV_RDEVSID" in frames["MRIODDEV"].columns


def test_unknown_record_name_is_an_error(sample_file: Path) -> None:
    with pytest.raises(ValueError, match="unknown record name"):
        tables(sample_file, ["MRNOSUCH"])


def test_damage_is_reported_as_a_warning(long_group_file: Path) -> None:
    long_group_file.write_bytes(long_group_file.read_bytes()[: 3 * BLOCK])
    with pytest.warns(DamageWarning, match=f"offset {3 * BLOCK}") as caught:
        frames = tables(long_group_file)
    assert caught[0].filename == __file__  # attributed to the caller
    assert frames["MRSYTRSG"]["SYTRSG_RSAAVAIL"].tolist() == list(range(16))
    with pytest.warns(DamageWarning) as caught:
        arrow_tables(long_group_file)
    assert caught[0].filename == __file__


def test_unreadable_files_raise(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        tables(tmp_path / "missing.monwrite")
    empty = tmp_path / "empty.monwrite"
    empty.write_bytes(b"")
    with pytest.raises(MonwriteError, match="empty"):
        tables(empty)
