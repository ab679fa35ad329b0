"""Fixtures for the report tests: a hand-built MONWRITE file with known deltas.

``basic_file``: configuration at 10:00:00, sample sets at 10:01 (baselines
only), 10:02, 10:03 and 10:04 (T = 60 s each). What each interval holds is
spelled out in ``write_basic``; the tests state the expected figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from builders import (  # noqa: E402
    MonFile,
    Rec,
    at,
    config_records,
    cpu_records,
    device_record,
    exposure_record,
    user_records,
)

W32 = 2**32


def write_basic(path: Path) -> Path:
    f = MonFile(path)
    f.sample_set(at(0), config_records(2, ["LINUX01", "LINUX02"]))
    f.event_set(at(0), [("MRMTREPR", {"MTREPR_EDOMAINS": "08"})])
    for i in (1, 2, 3, 4):
        if i == 3:  # LINUX03 logs on between 10:02 and 10:03
            f.event_set(at(150), [("MRUSELON", {"USELON_VMDUSER": "LINUX03"})])
        if i == 4:  # LINUX02 logs off between 10:03 and 10:04
            f.event_set(at(200), [("MRUSELOF", {"USELOF_VMDUSER": "LINUX02"})])
        k = i - 1  # completed intervals since the baseline
        recs: list[Rec] = []
        # CPU 0: per interval user 30 s, system 6 s, wait 24 s (busy 60 %), emulation 24 s.
        # CPU 1: user 12 s, system 3 s, wait 45 s (busy 25 %), emulation 9 s.
        # SSCH: CPU 0 +1200 then +600 (wrapping 2**32 at 10:03), CPU 1 +600.
        ssch0 = [W32 - 1300, W32 - 100, 500, 1100][k]
        recs += cpu_records(
            0, user_s=10 + 30 * k, sys_s=2 + 6 * k, wait_s=48 + 24 * k, emul_s=8 + 24 * k, ssch=ssch0,
            pages_read=1200 * k, pages_written=600 * k, pgin=600 * k, pgout=900 * k, migr=60 * k, steals=120 * k,
            hf=30 * k,
        )  # fmt: skip
        recs += cpu_records(
            1, user_s=5 + 12 * k, sys_s=1 + 3 * k, wait_s=54 + 45 * k, emul_s=4 + 9 * k, ssch=600 * k, pgin=300 * k,
            hf=30 * k,
        )  # fmt: skip
        recs.append(("MRSYTRSG", {"SYTRSG_RSAAVAIL": [5000, 4000, 2000, 3000][k], "SYTRSG_RSAPGABL": 500_000}))
        recs.append(
            (
                "MRSTORSG",
                {
                    "STORSG_RSAAVLLT": 1000,
                    "STORSG_RSAAVLHT": 3000,
                    "STORSG_RSAEMERG": [0, 0, 3, 5][k],
                    "STORSG_RSAEMPTY": [0, 0, 1, 1][k],
                    "STORSG_RSAFRQWT": [0, 6, 12, 12][k],
                    "STORSG_RSASTLWT": 10 * k,
                },
            )
        )
        recs.append(("MRSYTASG", {"SYTASG_CALSLTA1": 100_000, "SYTASG_CALSLTI1": 10_000}))
        recs.append(("MRSYTUWT", {"SYTUWT_SRMCELIG": [0, 1, 2, 0][k]}))
        recs.append(("MRSYTCUG", {"SYTCUG_LCUTNPAR": 2, "SYTCUG_LCUTPCCT": 4, "SYTCUG_LPARNAME": "LPTEST"}))
        recs.append(
            (
                "MRSYTCUP",
                {
                    "SYTCUP_LCUPPNUM": 3,
                    "SYTCUP_LCUPCPCT": 2,
                    "SYTCUP_LCUPNAME": "LPTEST",
                    "SYTCUP_LCPTYPE": "IFL",
                    "SYTCUP_CPUDATA": [
                        {"SYTCUP_LCUCPUID": 0, "SYTCUP_LCUCWGHT": 500, "SYTCUP_LCUCACTM": int((12 + 36 * k) * 4096e6),
                         "SYTCUP_LCXCPTYP": "IFL"},
                        {"SYTCUP_LCUCPUID": 1, "SYTCUP_LCUCWGHT": 500, "SYTCUP_LCUCACTM": int((6 + 15 * k) * 4096e6),
                         "SYTCUP_LCXCPTYP": "IFL"},
                    ],  # fmt: skip
                },
            )
        )
        recs.append(
            (
                "MRSYTCUP",
                {
                    "SYTCUP_LCUPPNUM": 5,
                    "SYTCUP_LCUPCPCT": 1,
                    "SYTCUP_LCUPNAME": "OTHER",
                    "SYTCUP_LCPTYPE": "IFL",
                    "SYTCUP_CPUDATA": [
                        {"SYTCUP_LCUCPUID": 0, "SYTCUP_LCUCWGHT": 300, "SYTCUP_LCUCACTM": int(30 * k * 4096e6),
                         "SYTCUP_LCXCPTYP": "IFL"},
                    ],  # fmt: skip
                },
            )
        )
        # LINUX01: CPU 20 s total / 16 s virtual per interval; wait-state samples
        # per interval (of 30): run 6,3,3  page wait 15,0,0  test idle 9,12,12
        # dormant 0,15,15; in queue 30,15,15. Pages read 600 per interval.
        recs += user_records(
            "LINUX01",
            ttime_s=1 + 20 * k,
            vtime_s=0.5 + 16 * k,
            hf={
                "HFSTCT": 30 + 30 * k,
                "HFQUCT": [15, 45, 60, 75][k],
                "HFCPURN": [3, 9, 12, 15][k],
                "HFWTPAG": [0, 15, 15, 15][k],
                "HFTIDL": [0, 9, 21, 33][k],
                "HFDORM": [27, 27, 42, 57][k],
            },
            store={
                "CALCPPGR": 600 * k,
                "CALCPPGW": [0, 300, 300, 300][k],
                "VMDWSSPR": [0, 1000, 2000, 3000][k],
                "VMDCTPVR": [700, 800, 900, 1000][k],
                "CALTODON": at(-3600),
            },
        )
        if i <= 3:  # LINUX02: dormant; gone after its logoff
            recs += user_records(
                "LINUX02", ttime_s=16 * k, vtime_s=12 * k, hf={"HFSTCT": 30 * i, "HFDORM": 30 * i},
                store={"CALTODON": at(-3600)},
            )  # fmt: skip
        if i >= 3:  # LINUX03: first sample at 10:03 is its baseline
            j = i - 3
            recs += user_records(
                "LINUX03", ttime_s=100 + 10 * j, vtime_s=50 + 5 * j,
                hf={"HFSTCT": 30 * j, "HFQUCT": 30 * j, "HFIOWT": 30 * j}, store={"CALTODON": at(150)},
            )  # fmt: skip
        # 0200: 32-bit SCG counts (SCM garbage), +3000 SSCH per interval: pend 2,
        # disc 5, conn 20 units (128 us) per I/O; connect time wraps 2**32; HF queue 0.5.
        recs.append(
            device_record(
                0x0200, "PAG001", SCGSSCH=1000 + 3000 * k, SCGCOUNT=1000 + 3000 * k, SCMSSCH=7,
                SCMCOUNT=7, SCMCNTIM=(W32 - 30000 + 60000 * k) % W32, SCMFPTIM=6000 * k, SCMDDTIM=15000 * k,
                HFQUEUE=15 * k,
            )  # fmt: skip
        )
        # 0201: 16-bit SCM only, wrapping at 10:02; +600 SSCH, conn 25, pend 1 units per I/O; no queue.
        recs.append(
            device_record(
                0x0201, "USR001", SCMSSCH=(65000 + 600 * k) % 65536, SCMCOUNT=(65000 + 600 * k) % 65536,
                SCMCNTIM=15000 * k, SCMFPTIM=600 * k,
            )  # fmt: skip
        )
        if i >= 3:  # 0300 comes online: baseline at 10:03; +600 SSCH, conn 10 units, queue 1.0
            j = i - 3
            recs.append(
                device_record(0x0300, "NEW001", SCGSSCH=600 * j, SCGCOUNT=600 * j, SCMCNTIM=6000 * j,
                              HFQUEUE=30 * j)  # fmt: skip
            )
        recs.append(
            exposure_record(
                0x0200, "PAG001", CALPAGE=10_000, CPVALOCD=[2000, 2500, 3000, 3500][k], EXPCTSRD=100 * k,
                EXPCTSWR=50 * k, EXPCTPRD=400 * k, EXPCTPWR=600 * k, SCGSSCH=150 * k, EXPMLOAD=3100, EXPCURQC=2,
            )  # fmt: skip
        )
        f.sample_set(at(60 * i), recs)
    return f.close()


@pytest.fixture(scope="session")
def basic_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_basic(tmp_path_factory.mktemp("reports") / "basic.monwrite")
