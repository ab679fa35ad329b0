"""`ztwin sweep report` (means and confidence intervals over seeds, the best
variant, plotly charts rendered in headless Chromium) and `ztwin compare`
(text and HTML), on results with known numbers and on two short S1 runs."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from support import run_ztwin

from ztwin.sweep import loads, results_table
from ztwin.sweep.store import write_parquet

ROOT = Path(__file__).resolve().parents[3]
S1 = ROOT / "studies" / "paging-single-thread.toml"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium); HTML not checked in a browser"
)

SPEC = f"""[sweep]
name = "known"
base = "{S1}"
seeds = [1, 2, 3]

[[param]]
key = "system.central_storage"
values = ["1G", "2G", "4G"]

[[param]]
key = "srm.block_max"
values = [2, 4]

[metrics]
rate = "SYSSUMLG.read_write_rate"
wait = "USTAT[LIN102].pgw_pct"
findings = "advisor"

[goal]
minimize = "wait"
"""


def rate_of(cs: str, bm: int, seed: int) -> float:
    return {"1G": 100.0, "2G": 50.0, "4G": 10.0}[cs] * bm + seed


def wait_of(cs: str, bm: int, seed: int) -> float:
    return {"1G": 90.0, "2G": 40.0, "4G": 5.0}[cs] + bm * seed


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """results.parquet of a 3 x 2 sweep with 3 seeds and made-up figures (one run failed)."""
    sw = loads(SPEC, "known.toml")
    records: dict[str, dict[str, Any]] = {}
    for r in sw.runs():
        p = r.params
        cs, bm = p["system.central_storage"], p["srm.block_max"]
        failed = cs == "4G" and bm == 4 and r.seed == 3
        records[r.run_id] = {
            "run_id": r.run_id, "point": r.point, "seed": r.seed, "params": p,
            "metrics": {"rate": None, "wait": None, "findings": None} if failed else
            {"rate": rate_of(cs, bm, r.seed), "wait": wait_of(cs, bm, r.seed), "findings": "storage-constrained:critical" if cs == "1G" else "no-constraint:info"},
            "wall_s": 1.0, "sim_wall_s": 0.5, "error": "run: made up" if failed else None, "monwrite": None,
        }  # fmt: skip
    d = tmp_path_factory.mktemp("known")
    write_parquet(d / "results.parquet", results_table(sw, records))
    return d


def test_text_report_means_confidence_intervals_and_best(results_dir: Path) -> None:
    r = run_ztwin("sweep", "report", results_dir)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "ztwin sweep report: known (18 runs of 18, 6 variants, seeds 1, 2, 3)" in out
    # 1G, block_max 2: rate = 200 + seed -> mean 202, s = 1, half width t(2) * 1 / sqrt(3)
    half = 4.303 / math.sqrt(3)
    assert re.search(rf"1G\s+2\s+3\s+202\.0\s+{202 - half:.1f} \.\. {202 + half:.1f}", out), out
    # 4G, block_max 4 has two runs (one failed): wait = 5 + 4 * seed over seeds 1, 2 -> 11, s = 2.828
    half2 = 12.706 * math.sqrt(8) / math.sqrt(2)
    assert re.search(rf"4G\s+4\s+2\s+11\.000\s+{11 - half2:.3f} \.\. {11 + half2:.3f}", out), out
    assert "Best for minimize wait: system.central_storage = 4G, srm.block_max = 2" in out
    assert "  wait = 9.000 (95% CI" in out
    assert "1 run(s) failed:" in out and "run: made up" in out
    assert re.search(r"1G\s+2\s+storage-constrained:critical", out)


def test_goal_from_the_command_line_and_json(results_dir: Path) -> None:
    r = run_ztwin("sweep", "report", results_dir, "--goal", "max:rate", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["best"]["params"] == {"system.central_storage": "1G", "srm.block_max": 4}
    p0 = doc["points"][0]
    assert p0["params"] == {"system.central_storage": "1G", "srm.block_max": 2}
    assert p0["metrics"]["rate"]["mean"] == 202.0 and p0["metrics"]["rate"]["std"] == 1.0
    assert p0["metrics"]["findings"] == "storage-constrained:critical"
    r = run_ztwin("sweep", "report", results_dir, "--goal", "max:findings")
    assert r.returncode == 2 and "is not a number" in r.stderr
    r = run_ztwin("sweep", "report", results_dir, "--goal", "fastest")
    assert r.returncode == 2 and "write min:METRIC or max:METRIC" in r.stderr
    r = run_ztwin("sweep", "report", results_dir.parent)
    assert r.returncode == 2 and "no results.parquet" in r.stderr


def render_dom(page: Path) -> str:
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [
                CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                "--virtual-time-budget=10000", "--dump-dom", page.as_uri(),
            ],  # fmt: skip
            capture_output=True, text=True, timeout=180, check=False,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def traces(dom: str) -> list[int]:
    chunks = re.split(r'<g class="trace scatter[^"]*"', dom)[1:]
    return [len(re.findall(r'<path class="point"', c)) for c in chunks]


@needs_chromium
def test_html_report_renders_a_chart_per_metric_and_parameter(results_dir: Path, tmp_path: Path) -> None:
    r = run_ztwin("sweep", "report", results_dir, "--html", tmp_path / "html")
    assert r.returncode == 0, r.stderr
    dom = render_dom(tmp_path / "html" / "index.html")
    charts = re.findall(r'<div id="chart-\d+" class="plotly-graph-div js-plotly-plot"', dom)
    assert len(charts) == 4  # (rate, wait) x (central_storage, block_max)
    # against central storage: a trace per block_max value, 3 points each; against block_max: 3 traces of 2
    assert traces(dom) == [3, 3, 2, 2, 2, 3, 3, 2, 2, 2]
    assert "rate against system.central_storage" in dom and "wait against srm.block_max" in dom
    assert '<tr class="best">' in dom
    assert "storage-constrained:critical" in dom


# --------------------------------------------------------------------------
# ztwin compare
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("cmp")
    base = S1.read_text(encoding="utf-8")
    out = []
    for cs in ("1G", "4G"):
        sc = d / f"s1-{cs}.toml"
        sc.write_text(base.replace('central_storage = "2G"', f'central_storage = "{cs}"'), encoding="utf-8")
        f = d / f"s1-{cs}.monwrite"
        r = run_ztwin("run", sc, "-o", f, "--duration", "40s", "-q")
        assert r.returncode == 0, r.stderr
        out.append(f)
    return out[0], out[1]


def test_compare_text_marks_the_differences(two_runs: tuple[Path, Path]) -> None:
    a, b = two_runs
    r = run_ztwin("compare", a, b, "-r", "SYSCONF", "-r", "SYSSUMLG", "-r", "CPOWNED")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    storage = next(x for x in lines if " storage_mb " in x)
    assert storage.startswith("* VSPSYS") and "1,024" in storage.replace("1024.0", "1,024") and "+300.0%" in storage
    same = next(x for x in lines if " cpu_count " in x)
    assert same.startswith("  VSPSYS") and "+0.0%" in same
    assert any(x.startswith("* >>Mean>>  read_write_rate") for x in lines)
    r2 = run_ztwin("compare", a, b, "-r", "SYSCONF", "--changed")
    assert r2.returncode == 0
    assert [x for x in r2.stdout.splitlines() if x.startswith("* ")] == [x for x in r2.stdout.splitlines() if "storage_mb" in x]
    r3 = run_ztwin("compare", a, a, "-r", "SYSSUMLG", "--changed")
    assert "(0 marked)" in r3.stdout and "(no differences)" in r3.stdout
    r4 = run_ztwin("compare", a, b.parent / "missing.monwrite")
    assert r4.returncode == 2 and r4.stderr.startswith("ztwin compare: cannot open")


@needs_chromium
def test_compare_html_renders_both_runs(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = two_runs
    r = run_ztwin("compare", a, b, "-r", "SYSCONF", "-r", "SYSSUMLG", "--html", tmp_path / "cmp")
    assert r.returncode == 0, r.stderr
    dom = render_dom(tmp_path / "cmp" / "index.html")
    n_charts = len(re.findall(r'<div id="chart-\d+" class="plotly-graph-div js-plotly-plot"', dom))
    assert n_charts == 10  # one per SYSSUMLG chart figure
    # A and B, one point per interval (40 s at 10 s: 3 complete intervals; a figure
    # the data cannot give, such as DASD response without I/O, has no point)
    pts = traces(dom)
    assert len(pts) == 2 * n_charts and pts[:2] == [3, 3] and max(pts) == 3
    assert '<tr class="diff"><td class="mark">*</td><td>VSPSYS</td><td>storage_mb</td>' in dom
