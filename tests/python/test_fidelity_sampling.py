"""The monitor's high-frequency device sampling is unbiased (docs/fidelity.md, M6).

On the paging scenario of issue 17 (docs/fidelity-over30.toml) the paging volumes
show long queues while they are well below 100% busy. Whatever the cause, the
sampled figures must agree with the measured ones: the share of high-frequency
samples that find a volume busy equals the share of time its I/Os were in service
(I/O rate x service time, from the subchannel measurement), at any sampling rate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ztwin.studies import measures as m
from ztwin.twin import Scenario

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("hf_rate", ["2s", "370ms"])
def test_sampled_busy_matches_measured_service(tmp_path: Path, hf_rate: str) -> None:
    sc = Scenario.load(REPO / "docs" / "fidelity-over30.toml").set("monitor.hf_rate", hf_rate)
    out = tmp_path / "over30.monwrite"
    sc.run(out, duration=300)
    run = m.Run(out)
    vols = run.devices(120, 300, paging=True)
    assert len(vols) == 4
    for v in vols:
        in_service = v["io_rate"] * v["serv_ms"] / 10  # % of time with an I/O started
        assert v["io_rate"] > 50 and v["queued"] > 1, v  # a busy volume with a queue
        assert v["hf_busy_pct"] == pytest.approx(in_service, abs=6), v
