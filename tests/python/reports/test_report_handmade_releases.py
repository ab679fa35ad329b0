"""Reports on hand-built files of every release give hand-computed figures.

The record bytes are placed here by hand at the offsets of IBM's monitor record
pages and of zpmd's z/VM 5.3 structs (the same offsets as
``crates/ztwin-monitor/tests/releases.rs``: MTRSYS_HCPCPEID 28, SYSTMID 88;
USEACT_VMDUSER 20, VMDCPUAD 28; IODDEV_RDEVSID 24, RDEVSER 36, SCGSSCH 192,
RDEVDEV 200; SYTCUP's fixed part with CALCPUOF/CALCPULN at 32/34 and 40-byte
entries: LCUCPUID +0, LCUCWGHT +2, LCUCACTM +6), at the record sizes IBM gives
per release, never through ztwin's layouts or writer encoding (the writer only
frames the bytes, ``Writer.add_raw``). The reader must find the release in
MTRSYS_HCPCPEID and the reports must give the figures computed by hand below.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from ztwin._native import ebcdic_encode
from ztwin.monitor import Writer, iso_to_tod
from ztwin.reports import build

RELEASES = ["5.3", "5.4", "6.1", "6.2", "6.3", "6.4", "7.1", "7.2", "7.3", "7.4"]
STEP_S = 60
TOD_PER_S = 4096 * 1_000_000
#: Seconds each logical CPU of LPAR07 is busy per interval.
BUSY_S = {0: 30, 1: 15, 2: 45}
#: Start-subchannel count added per interval on device 0A20.
SSCH_PER_STEP = 600


def _v(r: str) -> tuple[int, int]:
    a, b = r.split(".")
    return int(a), int(b)


def _rec(length: int, dm: int, rc: int, tod: int) -> bytearray:
    """MRRECHDR by hand: length, zeros, domain, reserved, record, TOD."""
    b = bytearray(length)
    struct.pack_into(">H", b, 0, length)
    b[4] = dm
    struct.pack_into(">H", b, 6, rc)
    struct.pack_into(">Q", b, 8, tod)
    return b


def _char(b: bytearray, off: int, text: str, width: int) -> None:
    b[off : off + width] = ebcdic_encode(text.ljust(width))


def _sizes(r: str) -> tuple[int, int, int]:
    """MTRSYS 184 up to 5.4 and 420 from 6.1; USEACT 440 to 6.1, 508 in 6.2,
    longer later (as a newer release writes it); IODDEV 260, longer from 6.3."""
    v = _v(r)
    mtrsys = 184 if v < (6, 1) else 420
    useact = 440 if v < (6, 2) else (508 if v == (6, 2) else 560)
    ioddev = 260 if v < (6, 3) else 300
    return mtrsys, useact, ioddev


def write_release(path: Path, r: str, intervals: int = 3) -> Path:
    sys_len, act_len, dev_len = _sizes(r)
    # SYTCUP's fixed part grew after 6.2; from 6.3 a partition spans records.
    fixed = 64 if _v(r) < (6, 3) else 96
    t0 = iso_to_tod("2024-03-01T10:00:00Z")
    with Writer(path) as w:
        for i in range(intervals):
            t = t0 + i * STEP_S * TOD_PER_S
            if i == 0:
                s = _rec(sys_len, 1, 4, t)
                _char(s, 28, f"{r}.0", 8)  # MTRSYS_HCPCPEID
                _char(s, 88, "ZVMHAND", 8)  # MTRSYS_SYSTMID
                w.add_raw(bytes(s))
            for vcpu in (0, 2):  # one MRUSEACT per virtual CPU of LINUX07
                a = _rec(act_len, 4, 3, t)
                _char(a, 20, "LINUX07", 8)  # USEACT_VMDUSER
                struct.pack_into(">H", a, 28, vcpu)  # USEACT_VMDCPUAD
                w.add_raw(bytes(a))
            d = _rec(dev_len, 6, 3, t)
            struct.pack_into(">I", d, 24, 0x0001_0042)  # IODDEV_RDEVSID
            _char(d, 36, "PAG001", 6)  # IODDEV_RDEVSER
            struct.pack_into(">I", d, 192, 70_000 + SSCH_PER_STEP * i)  # IODDEV_SCGSSCH
            struct.pack_into(">H", d, 200, 0x0A20)  # IODDEV_RDEVDEV
            w.add_raw(bytes(d))
            cpus = sorted(BUSY_S.items())
            for part in [cpus] if _v(r) < (6, 3) else [cpus[:2], cpus[2:]]:
                c = _rec(fixed + 40 * len(part), 0, 16, t)
                _char(c, 20, "LPAR07", 8)  # SYTCUP_LCUPNAME
                c[28] = 7  # SYTCUP_LCUPPNUM
                c[30] = len(cpus)  # SYTCUP_LCUPCPCT
                struct.pack_into(">HH", c, 32, fixed, 40)  # SYTCUP_CALCPUOF, CALCPULN
                for k, (cpu, busy) in enumerate(part):
                    e = fixed + 40 * k
                    struct.pack_into(">HH", c, e, cpu, 250)  # LCUCPUID, LCUCWGHT
                    struct.pack_into(">Q", c, e + 6, busy * i * TOD_PER_S)  # LCUCACTM
                w.add_raw(bytes(c))
            w.write_sample_set(t + 4096 * 1000)
    return path


@pytest.mark.parametrize("release", RELEASES)
def test_reports_on_a_hand_built_file(tmp_path: Path, release: str) -> None:
    path = write_release(tmp_path / f"zvm{release}.monwrite", release)
    reps = build(path, ["DEVICE", "LPAR", "LPARLOG", "UPAGE"])

    # The release is the file's (MTRSYS_HCPCPEID), and the heading says so.
    assert reps["DEVICE"].to_dict()["inferred_fields"]["release"] == release
    assert f"V.{release}.0" in reps["DEVICE"].to_text()
    assert "ZVMHAND" in reps["DEVICE"].to_text()

    # DEVICE: 600 SSCH per 60 s = 10.0/s on 0A20 (volser PAG001).
    rows = {r["addr"]: r for r in reps["DEVICE"].to_dict()["rows"]}
    assert rows["0A20"]["io_rate"] == pytest.approx(SSCH_PER_STEP / STEP_S)
    assert rows["0A20"]["volser"] == "PAG001"

    # LPAR: each logical CPU's busy = its LCUCACTM delta over the interval;
    # from 6.3 the three CPUs come in two records and still make one partition.
    lpar = [r for r in reps["LPAR"].to_dict()["rows"] if r.get("cpu") is not None]
    assert {r["cpu"]: r["busy_pct"] for r in lpar} == pytest.approx(
        {cpu: 100.0 * s / STEP_S for cpu, s in BUSY_S.items()}
    )
    assert {r["partition"] for r in lpar if r.get("partition")} == {"LPAR07"}
    assert all(r["weight"] == 250 for r in lpar)

    # LPARLOG: the partition uses 30 + 15 + 45 = 90 s per 60 s: 1.5 engines, 50%.
    mean = reps["LPARLOG"].to_dict()["rows"][0]
    assert mean["engines"] == pytest.approx(sum(BUSY_S.values()) / STEP_S)
    assert mean["busy_pct"] == pytest.approx(100.0 * sum(BUSY_S.values()) / STEP_S / len(BUSY_S))

    # UPAGE: the two per-virtual-CPU MRUSEACT records are one user.
    users = [r["userid"] for r in reps["UPAGE"].to_dict()["rows"] if not str(r["userid"]).startswith(">")]
    assert users == ["LINUX07"]
