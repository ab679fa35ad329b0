"""MONWRITE files for report tests, written with ztwin.monitor.Writer.

Times are TOD values; counters are given as cumulative values exactly as CP
would store them, so each test states its deltas explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ztwin.monitor import Writer, iso_to_tod

#: TOD units per second and per microsecond.
S = 4096 * 1_000_000
US = 4096
START = iso_to_tod("2024-03-01T10:00:00Z")
PRBTM_START = 0x7FFF_FFFF_0000_0000

Rec = tuple[str, Mapping[str, Any]]


def at(seconds: float) -> int:
    """TOD of START + seconds."""
    return START + int(seconds * S)


class MonFile:
    """Sample sets and event sets, in file order."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.w = Writer(path)

    def sample_set(self, tod: int, records: Iterable[Rec]) -> None:
        for name, fields in records:
            self.w.add(name, tod, dict(fields))
        self.w.write_sample_set(tod)

    def event_set(self, tod: int, records: Iterable[Rec]) -> None:
        for name, fields in records:
            self.w.add(name, tod, dict(fields))
        self.w.write_event_set()

    def close(self) -> Path:
        self.w.close()
        return self.path


def config_records(
    cpus: int = 2, users: Iterable[str] = (), interval: int = 60, system_id: str = "TESTSYS"
) -> list[Rec]:
    recs: list[Rec] = [
        (
            "MRMTRSYS",
            {
                "MTRSYS_SYSTMID": system_id,
                "MTRSYS_HCPCPEID": "5.4.0",
                "MTRSYS_SYSMTYPE": "2094",
                "MTRSYS_SYSMMODL": "710",
                "MTRSYS_LPARNAME": "LPTEST",
                "MTRSYS_LPNUMBER": 3,
                "MTRSYS_CPUCOUNT": cpus,
            },
        )
    ]
    recs += [("MRMTRPRP", {"MTRPRP_PFXCPUAD": c, "MTRPRP_PFXCPUTY": 3}) for c in range(cpus)]
    recs.append(
        (
            "MRMTRSPR",
            {"MTRSPR_INTERVAL": interval, "MTRSPR_HFRATE": 200, "MTRSPR_SDOMAINS": "DE", "MTRSPR_HDOMAINS": "0E"},
        )
    )
    recs.append(("MRMTRMEM", {"MTRMEM_RSASTORE": 2**31, "MTRMEM_RSAGSTOR": 2**31}))
    for u in users:
        recs.append(
            ("MRMTRUSR", {"MTRUSR_VMDUSER": u, "MTRUSR_VMDCPUCT": 1, "MTRUSR_VMDRELSH": 100, "MTRUSR_VMDSSIZE": 131072})
        )
    return recs


def cpu_records(
    cpu: int,
    *,
    user_s: float = 0.0,
    sys_s: float = 0.0,
    wait_s: float = 0.0,
    emul_s: float = 0.0,
    ssch: int = 0,
    pages_read: int = 0,
    pages_written: int = 0,
    pgin: int = 0,
    pgout: int = 0,
    migr: int = 0,
    steals: int = 0,
    hf: int = 0,
) -> list[Rec]:
    """The per-CPU records with cumulative values (times in seconds); ``hf`` is
    the count of high-frequency samples taken (PRCPRP_HFCOUNT)."""
    return [
        (
            "MRSYTPRP",
            {
                "SYTPRP_PFXCPUAD": cpu,
                "SYTPRP_PFXUTIME": int(user_s * S),
                "SYTPRP_PFXTMSYS": int(sys_s * S),
                "SYTPRP_PFXTOTWT": int(wait_s * S),
                "SYTPRP_PFXPRBTM": PRBTM_START - int(emul_s * S),
                "SYTPRP_PFXCPUTY": 3,
            },
        ),
        (
            "MRSYTSYP",
            {
                "SYTSYP_PFXCPUAD": cpu,
                "SYTSYP_PLSCTSS": ssch,
                "SYTSYP_PLSPIOPR": pages_read,
                "SYTSYP_PLSPIOPW": pages_written,
            },
        ),
        ("MRSYTXSP", {"SYTXSP_PFXCPUAD": cpu, "SYTXSP_PLSPGIN": pgin, "SYTXSP_PLSPGOUT": pgout, "SYTXSP_PLSPGMRD": migr}),
        ("MRSYTRSP", {"SYTRSP_PFXCPUAD": cpu, "SYTRSP_PLSSTLFR": steals}),
        ("MRPRCPRP", {"PRCPRP_PFXCPUAD": cpu, "PRCPRP_HFCOUNT": hf}),
    ]


def user_records(
    user: str,
    *,
    ttime_s: float = 0.0,
    vtime_s: float = 0.0,
    cpuad: int = 0,
    hf: Mapping[str, int] | None = None,
    store: Mapping[str, int] | None = None,
) -> list[Rec]:
    """MRUSEACT and MRUSEINT of one virtual CPU; ``hf`` keys are USEINT field
    suffixes (HFSTCT, HFCPURN, ...), ``store`` keys USEACT suffixes."""
    act = {
        "USEACT_VMDUSER": user,
        "USEACT_VMDCPUAD": cpuad,
        "USEACT_VMDTTIME": int(ttime_s * S),
        "USEACT_VMDVTIME": int(vtime_s * S),
    }
    act.update({f"USEACT_{k}": v for k, v in (store or {}).items()})
    hfr: dict[str, Any] = {"USEINT_VMDUSER": user, "USEINT_VMDCPUAD": cpuad}
    hfr.update({f"USEINT_{k}": v for k, v in (hf or {}).items()})
    return [("MRUSEACT", act), ("MRUSEINT", hfr)]


def device_record(devno: int, volser: str = "", **fields: int | str) -> Rec:
    f: dict[str, Any] = {"IODDEV_RDEVDEV": devno, "IODDEV_RDEVSER": volser}
    f.update({f"IODDEV_{k}": v for k, v in fields.items()})
    return ("MRIODDEV", f)


def exposure_record(devno: int, volser: str, **fields: int | str) -> Rec:
    f: dict[str, Any] = {"STOASP_RDEVDEV": devno, "STOASP_CALVSER": volser, "STOASP_CALFLAG1": "80"}
    f.update({f"STOASP_{k}": v for k, v in fields.items()})
    return ("MRSTOASP", f)


def write_synthetic(path: Path, intervals: int, users: int = 40, devices: int = 16, cpus: int = 2) -> Path:
    """A long, regular file (every record type the twin writes) for memory and
    speed checks: every counter grows by a fixed step per interval."""
    names = [f"LNX{i:05d}" for i in range(users)]
    f = MonFile(path)
    f.sample_set(START, config_records(cpus, names, interval=60))
    for i in range(1, intervals + 1):
        tod = at(60 * i)
        recs: list[Rec] = []
        for c in range(cpus):
            recs += cpu_records(
                c, user_s=20.0 * i, sys_s=2.0 * i, wait_s=38.0 * i, emul_s=18.0 * i, ssch=600 * i,
                pages_read=300 * i, pages_written=120 * i, pgin=60 * i, pgout=60 * i, steals=30 * i, hf=30 * i,
            )  # fmt: skip
        recs.append(("MRSYTRSG", {"SYTRSG_RSAAVAIL": 5000 + i % 7, "SYTRSG_RSAPGABL": 500_000}))
        recs.append(("MRSTORSG", {"STORSG_RSAAVLLT": 1000, "STORSG_RSAAVLHT": 3000, "STORSG_RSAEMERG": i // 10}))
        recs.append(("MRSYTASG", {"SYTASG_CALSLTA1": 1_000_000, "SYTASG_CALSLTI1": 100_000 + i}))
        recs.append(("MRSYTUWT", {"SYTUWT_SRMCELIG": 0, "SYTUWT_CALCPURN": 10 * i}))
        for u in names:
            recs += user_records(
                u, ttime_s=0.9 * i, vtime_s=0.8 * i,
                hf={"HFSTCT": 30 * i, "HFQUCT": 20 * i, "HFCPURN": 5 * i, "HFTIDL": 15 * i, "HFDORM": 10 * i},
                store={"CALCPPGR": 7 * i, "CALCPPGW": 3 * i, "VMDWSSPR": 20_000, "VMDCTPVR": 18_000},
            )  # fmt: skip
        for d in range(devices):
            devno = 0x0200 + d
            recs.append(
                device_record(
                    devno, f"VOL{d:03d}", SCGSSCH=1000 * i, SCGCOUNT=1000 * i, SCMSSCH=(1000 * i) % 65536,
                    SCMCOUNT=(1000 * i) % 65536, SCMCNTIM=(20_000 * i) % 2**32, SCMFPTIM=2000 * i,
                    SCMDDTIM=1000 * i, HFQUEUE=3 * i,
                )  # fmt: skip
            )
            if d < devices // 2:
                recs.append(
                    exposure_record(
                        devno, f"VOL{d:03d}", CALPAGE=600_000, CPVALOCD=60_000, EXPCTSRD=250 * i, EXPCTSWR=50 * i,
                        EXPCTPRD=750 * i, EXPCTPWR=400 * i, SCGSSCH=300 * i, EXPMLOAD=3100,
                    )  # fmt: skip
                )
        f.sample_set(tod, recs)
    return f.close()


def write_varied(path: Path, intervals: int, users: int = 5, devices: int = 6, cpus: int = 2, seed: int = 1) -> Path:
    """Like :func:`write_synthetic`, but every counter grows by a pseudo-random
    step (seeded): sums of many intervals then depend on the order they are
    added in, as real data does."""
    import random

    rnd = random.Random(seed)
    names = [f"LNX{i:05d}" for i in range(users)]
    f = MonFile(path)
    f.sample_set(START, config_records(cpus, names, interval=60))
    acc: dict[str, float] = {}

    def grow(key: str, step: float) -> float:
        acc[key] = acc.get(key, 0.0) + step * (0.5 + rnd.random())
        return acc[key]

    def igrow(key: str, step: int) -> int:
        return int(grow(key, step))

    for i in range(1, intervals + 1):
        recs: list[Rec] = []
        for c in range(cpus):
            recs += cpu_records(
                c, user_s=grow(f"u{c}", 20.0), sys_s=grow(f"s{c}", 2.0), wait_s=grow(f"w{c}", 30.0),
                emul_s=grow(f"e{c}", 15.0), ssch=igrow(f"io{c}", 600), pages_read=igrow(f"pr{c}", 300),
                pages_written=igrow(f"pw{c}", 120), pgin=igrow(f"pi{c}", 60), pgout=igrow(f"po{c}", 60),
                steals=igrow(f"st{c}", 30), hf=30 * i,
            )  # fmt: skip
        recs.append(("MRSYTRSG", {"SYTRSG_RSAAVAIL": rnd.randrange(2000, 9000), "SYTRSG_RSAPGABL": 500_000}))
        recs.append(("MRSYTASG", {"SYTASG_CALSLTA1": 1_000_000, "SYTASG_CALSLTI1": rnd.randrange(90_000, 200_000)}))
        for u in names:
            recs += user_records(
                u, ttime_s=grow(u + "t", 0.9), vtime_s=grow(u + "v", 0.8),
                hf={"HFSTCT": igrow(u + "h", 30), "HFQUCT": igrow(u + "q", 20), "HFCPURN": igrow(u + "r", 5)},
                store={"CALCPPGR": igrow(u + "g", 7), "CALCPPGW": igrow(u + "w", 3),
                       "VMDWSSPR": rnd.randrange(10_000, 30_000), "VMDCTPVR": rnd.randrange(10_000, 30_000)},
            )  # fmt: skip
        for d in range(devices):
            devno = 0x0200 + d
            n = igrow(f"d{d}", 1000)
            recs.append(device_record(devno, f"VOL{d:03d}", SCGSSCH=n, SCGCOUNT=n, SCMCNTIM=igrow(f"c{d}", 20_000),
                                      SCMFPTIM=igrow(f"p{d}", 2000), SCMDDTIM=igrow(f"q{d}", 1000),
                                      HFQUEUE=igrow(f"h{d}", 3)))  # fmt: skip
        f.sample_set(at(60 * i), recs)
    return f.close()
