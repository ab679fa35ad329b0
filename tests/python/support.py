"""Test support: MONWRITE files written through the Python writer, and a helper
that runs the ``ztwin`` command line in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ztwin.monitor import Writer

#: Interval ends of the sample file.
T1 = "2024-03-01T10:01:00.000000Z"
T2 = "2024-03-01T10:02:00.000000Z"
#: When the event record of the sample file was built.
T_EVENT = "2024-03-01T10:01:30.250000Z"
#: Bytes of one MONWRITE block.
BLOCK = 4096


@dataclass(frozen=True)
class Cli:
    """Outcome of one ``ztwin`` run."""

    returncode: int
    stdout: str
    stderr: str


def one_line(err: str, command: str) -> str:
    """The single stderr line of a failed ``ztwin COMMAND``, checked for
    shape (one line, ``ztwin COMMAND: ...``, no traceback, not an internal
    error)."""
    assert "Traceback" not in err and "Exception ignored" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"ztwin {command}: "), err
    assert "internal error" not in lines[0], err
    return lines[0]


def run_ztwin(*args: str | Path, env: dict[str, str] | None = None) -> Cli:
    """Run ``python -m ztwin ARGS`` and capture its output; ``env`` adds to
    the environment."""
    proc = subprocess.run(
        [sys.executable, "-m", "ztwin", *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )
    return Cli(proc.returncode, proc.stdout, proc.stderr)


def write_sample_file(path: Path) -> None:
    """A small file with configuration, two sample intervals and an event set.

    Records, in file order: MRMTRSYS, MRMTREND (config set); MRSYTRSG,
    MRSYTPRP x2, MRUSEACT, MRMTREND (interval 1); MRSYTRSG, MRSYTPRP x2,
    MRUSEACT, MRMTREND (interval 2); MRMTRECM (event set).
    """
    with Writer(path) as w:
        w.add(
            "MRMTRSYS",
            "2024-03-01T10:00:00Z",
            {
                "MTRSYS_HCPCPEID": "ZVMSYS01",
                "MTRSYS_SYSTODST": "2024-02-28T06:30:00.000001Z",
                "MTRSYS_LPARNAME": "LPAR07",
                "MTRSYS_CPUCOUNT": 2,
            },
        )
        w.write_sample_set("2024-03-01T10:00:00Z")
        for n, end in enumerate((T1, T2), start=1):
            w.add("MRSYTRSG", end, {"SYTRSG_RSAAVAIL": 5000 + n, "SYTRSG_CALFLAG1": "80", "SYTRSG_RSA2GAVL": 2**40 + n})
            for cpu in (0, 1):
                w.add(
                    "MRSYTPRP",
                    end,
                    {"SYTPRP_PFXCPUAD": cpu, "SYTPRP_PFXUTIME": 4096 * 1_000_000 * n, "SYTPRP_PFXCPUTY": 0},
                )
            w.add("MRUSEACT", end, {"USEACT_VMDUSER": "LINUX01", "USEACT_VMDCTPVR": 1000 * n})
            w.write_sample_set(end)
        w.add("MRMTRECM", T_EVENT, {"MTRECM_CALCMD": "MONITOR EVENT ENABLE USER ALL"})
        w.write_event_set()
