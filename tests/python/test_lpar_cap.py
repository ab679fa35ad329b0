"""lpar-cap on simulated data: z/VM's partition held at an absolute cap
while the CEC has idle processors triggers it; the same partition uncapped,
and the same cap in a CEC whose pool is full, do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.advisor import diagnose
from ztwin.twin import run

CEC = """
[scenario]
duration = "4min"
seed = 3
start = "2026-01-05T08:00:00Z"
[system]
processors = 4
processor_type = "IFL"
lpar_name = "ZVMLP"
central_storage = "2G"
xstor = "0"
[monitor]
sample_interval = "1min"
hf_rate = "1s"
[[paging]]
device_type = "3390-9"
count = 2
first_address = "0A00"
volser_prefix = "PAG"
[[guest]]
userid = "LNX"
count = 6
virtual_storage = "256M"
workload = {{ type = "cpu", utilization = 0.5, burst = "5ms" }}
[lpar]
physical = {{ ifl = 6 }}
weight = 100
{cap}
[[lpar.partition]]
name = "LNXPROD"
type = "IFL"
logical = 4
weight = 100
busy = {other}
"""


def _diagnose(tmp_path: Path, name: str, cap: str, other: float):  # noqa: ANN202
    sc = tmp_path / f"{name}.toml"
    sc.write_text(CEC.format(cap=cap, other=other))
    return diagnose(run(sc, tmp_path / f"{name}.monwrite").path)


@pytest.mark.parametrize(
    ("name", "cap", "other", "fires"),
    [
        # 6 guests ask for 3 engines; the cap allows 1.5; the other partition
        # uses 1 of the 6 IFLs: 3.5 engines idle. Capped: it fires.
        ("capped-idle", "absolute_cap = 1.5", 1.0, True),
        # No cap: PR/SM gives z/VM the idle capacity, no suspension.
        ("uncapped", "", 1.0, False),
        # The same cap, but the other partition fills the pool: contention,
        # not the cap, holds z/VM back (lpar-busy's business).
        ("capped-full", "absolute_cap = 1.5", 4.0, False),
    ],
)
def test_lpar_cap(tmp_path: Path, name: str, cap: str, other: float, fires: bool) -> None:
    d = _diagnose(tmp_path, name, cap, other)
    f = d.get("lpar-cap")
    assert (f is not None) == fires, [x.id for x in d.findings]
    if f is not None:
        assert f.severity in ("warning", "critical")
        s = f.evidence[0].summary
        assert "logical IFL processors suspended" in s and "engines of the IFL pool went unused" in s, s
        # Held at the cap: 1.5 engines at most.
        assert "to 1.5 engines" in s or "to 1.4 engines" in s, s
