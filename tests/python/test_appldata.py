"""APPLDATA (domain 10): the Linux kernel's records read back from files.

Records are hand-built here from the kernel's struct declarations (member
order and C widths, packed big-endian), independently of the Rust tables.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from ztwin.monitor import AppldataWarning, Writer, appldata, ebcdic_encode, iso_to_tod

T = "2024-03-01T10:01:00Z"

#: struct appldata_mem_data, members in order with their C types.
MEM = [("timestamp", "Q"), ("sync_count_1", "I"), ("sync_count_2", "I")] + [
    (n, "Q")
    for n in (
        "pgpgin pgpgout pswpin pswpout sharedram totalram freeram totalhigh freehigh bufferram cached "
        "totalswap freeswap pgalloc pgfault pgmajfault"
    ).split()
]
OS = [(n, "Q" if n == "timestamp" else "I") for n in (
    "timestamp sync_count_1 sync_count_2 nr_cpus per_cpu_size cpu_offset nr_running nr_threads "
    "avenrun_0 avenrun_1 avenrun_2 nr_iowait"
).split()]  # fmt: skip
CPU = [(n, "I") for n in (
    "per_cpu_user per_cpu_nice per_cpu_system per_cpu_idle per_cpu_irq per_cpu_softirq per_cpu_iowait "
    "per_cpu_steal cpu_id"
).split()]  # fmt: skip


def product(record_nr: int, mod_lvl: str) -> bytes:
    return ebcdic_encode("LINUXKRNL") + bytes([record_nr]) + ebcdic_encode("2601" + mod_lvl)


def pack(members: list[tuple[str, str]], values: dict[str, int]) -> bytes:
    return b"".join(struct.pack(">" + t, values.get(n, 0)) for n, t in members)


def record(userid: str, prod: bytes, data: bytes, *, caldatof: int = 52) -> bytes:
    """A whole MRAPLSDT: header, fixed part (user ID at 20, CALDATOF at 28,
    product ID at 32), data."""
    n = 52 + len(data)
    head = struct.pack(">HHBBHQI", n, 0, 10, 0, 2, iso_to_tod(T), 0)
    fixed = ebcdic_encode(userid.ljust(8)) + struct.pack(">HHI", caldatof, 0, 0)[:4] + prod + bytes(4)
    rec = head + fixed[:32] + data
    assert len(rec) == n and rec[32:48] == prod
    return rec


def write(path: Path, recs: list[bytes]) -> None:
    with Writer(path) as w:
        for r in recs:
            w.add_raw(r)
        w.write_sample_set(T)


def test_each_struct_reads_back_field_by_field(tmp_path: Path) -> None:
    mem = {n: 1000 + i for i, (n, _) in enumerate(MEM)}
    os_ = {n: 10 + i for i, (n, _) in enumerate(OS)} | {"nr_cpus": 2, "per_cpu_size": 36, "cpu_offset": 52}
    cpus = [{n: 100 * c + i for i, (n, _) in enumerate(CPU)} for c in range(2)]
    path = tmp_path / "lx.monwrite"
    write(
        path,
        [
            record("LINUX01", product(1, "00"), pack(MEM, mem)),
            record("LINUX01", product(2, "01"), pack(OS, os_) + b"".join(pack(CPU, c) for c in cpus)),
        ],
    )
    got = appldata(path)
    assert [(r["userid"], r["module"], r["product"]) for r in got] == [
        ("LINUX01", "mem", "LINUXKRNL 01 2601 00"),
        ("LINUX01", "os", "LINUXKRNL 02 2601 01"),
    ]
    assert got[0]["fields"] == mem
    assert got[1]["fields"] == os_
    assert got[1]["cpus"] == cpus
    assert all(r["consistent"] is False for r in got)  # sync counts differ in these values


def test_wrong_lengths_warn_with_the_offset(tmp_path: Path) -> None:
    path = tmp_path / "bad.monwrite"
    short = pack(MEM, {"totalram": 4})[:100]
    write(path, [record("LINUX01", product(1, "00"), short), record("LINUX01", product(3, "00"), bytes(96))])
    with pytest.warns(AppldataWarning, match=r"1 APPLDATA record\(s\).* offset 4096 \(X'1000'\).*100 bytes.*144"):
        got = appldata(path)
    mem = got[0]["fields"]
    assert mem["totalram"] == 4
    assert mem["cached"] is None and mem["pgmajfault"] is None  # beyond the data: absent, not 0
    assert got[1]["module"] == "net_sum"


def test_other_products_are_skipped_and_bad_offsets_warn(tmp_path: Path) -> None:
    path = tmp_path / "other.monwrite"
    write(
        path,
        [
            record("APPL", ebcdic_encode("OTHERPRODUCT0000"), bytes(8)),
            record("LINUX01", product(1, "00"), pack(MEM, {}), caldatof=4000),
        ],
    )
    with pytest.warns(AppldataWarning, match="CALDATOF 4000 points outside"):
        assert appldata(path) == []


def test_dump_json_shows_the_kernel_fields_and_the_summary_warns(tmp_path: Path) -> None:
    path = tmp_path / "d.monwrite"
    write(path, [record("LINUX01", product(1, "00"), pack(MEM, {"freeram": 77})[:120])])
    out = subprocess.run(
        [sys.executable, "-m", "ztwin", "dump", "--json", str(path)], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    rec = next(json.loads(x) for x in out.stdout.splitlines() if '"domain":10' in x)
    assert rec["appldata"]["module"] == "mem"
    assert rec["appldata"]["fields"]["freeram"] == 77
    assert "144" in rec["appldata"]["problem"]
    assert "APPLDATA record(s) (domain 10) have data of the wrong length; the first at offset 4096" in out.stderr


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            'vdev = "0300", priority = 10',
            'vdev = "0301", priority = 10',
            "line 31: guest[0] (LNXBIG).linux.swap[0].vdev: the guest has no VDISK 0301",
        ),
        (
            'kernel = "32M"',
            'kernel = "120M"',
            "line 40: guest[2] (LNXIDLE).linux.kernel: the guest's 128 MB of storage is smaller than the kernel needs",
        ),
        (
            '{ device = "dasd", volume = "6000", size = "512M", priority = 1 }',
            '{ device = "dcss", segment = "NOSUCH" }',
            "guest[0] (LNXBIG).linux.swap[1].segment: no saved segment NOSUCH is defined",
        ),
    ],
)
def test_bad_linux_tables_are_one_line_errors(tmp_path: Path, old: str, new: str, message: str) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "linux-appldata.toml"
    scen = tmp_path / "bad.toml"
    scen.write_text(example.read_text().replace(old, new, 1))
    out = tmp_path / "bad.monwrite"
    r = subprocess.run(
        [sys.executable, "-m", "ztwin", "run", str(scen), "-o", str(out)], capture_output=True, text=True, check=False
    )
    assert r.returncode == 2
    assert message in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr and not out.exists()
