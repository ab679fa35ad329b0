"""The HTML pages rendered by a real headless Chromium (Debian package
``chromium``): the plotly charts must exist in the rendered DOM with one SVG
trace per plotted figure and one point per interval.

Skipped, saying so, only when no chromium binary is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from ztwin.cli import main
from ztwin.reports import REPORTS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium); HTML not checked in a browser"
)


def render_dom(page: Path) -> str:
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [
                CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                "--virtual-time-budget=10000", "--dump-dom", page.as_uri(),
            ],  # fmt: skip
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def traces(dom: str) -> list[int]:
    """Points per rendered scatter trace, in document order."""
    chunks = re.split(r'<g class="trace scatter[^"]*"', dom)[1:]
    return [len(re.findall(r'<path class="point"', c)) for c in chunks]


@pytest.fixture(scope="module")
def html_dir(basic_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser") / "html"
    assert main(["report", str(basic_file), "--html", str(out), "-u", "LINUX01", "-u", "LINUX03"]) == 0
    return out


def test_syssumlg_charts_render_with_a_point_per_interval(html_dir: Path) -> None:
    dom = render_dom(html_dir / "syssumlg.html")
    assert len(re.findall(r'<div id="chart-\d+" class="plotly-graph-div js-plotly-plot"', dom)) == 6
    assert 'class="main-svg"' in dom
    # cpu busy; T/V, capture; SSCH; DASD response; logged, active, E-list; PGIN+PGOUT, Read+Write
    assert traces(dom) == [3] * 10
    assert "CPU busy (% per processor)" in dom
    assert "Interval end" in dom


def test_user_log_charts_have_a_trace_per_user_and_figure(html_dir: Path) -> None:
    dom = render_dom(html_dir / "ustatlog.html")
    # three charts of 3, 3 and 4 figures for LINUX01 (3 intervals) and LINUX03 (1 interval)
    assert traces(dom) == [3, 3, 3, 1, 1, 1, 3, 3, 3, 1, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1]
    assert "LINUX01 act_pct" in dom and "LINUX03 iow_pct" in dom


def test_report_without_time_charts_renders_its_text(html_dir: Path) -> None:
    dom = render_dom(html_dir / "device.html")
    assert "js-plotly-plot" not in dom
    assert "General I/O Device Load and Performance" in dom
    assert "PAG001 CP" in dom


def test_partition_logs_render_their_text(html_dir: Path) -> None:
    dom = render_dom(html_dir / "lparlog.html")
    assert "Logical Partition Activity Log" in dom
    assert "LPTEST" in dom and "OTHER" in dom
    dom = render_dom(html_dir / "physlog.html")
    assert "Real CPU Utilization Log" in dom
    assert "33.8" in dom  # the Total row's %Phys: 81 s of 4 CPUs x 60 s
    dom = render_dom(html_dir / "proclog.html")
    assert "Processor Activity, by Time" in dom
    assert "%LogLd" in dom and "Mean" in dom
    dom = render_dom(html_dir / "lsharact.html")
    assert "Logical Partition Share" in dom
    assert "2.50" in dom  # LPTEST's entitlement: weight 500 of 800 on 4 IFLs


def test_index_links_every_page(html_dir: Path) -> None:
    dom = render_dom(html_dir / "index.html")
    links = re.findall(r'<a href="([a-z]+\.html)">', dom)
    assert len(links) == len(REPORTS)
    for link in links:
        assert (html_dir / link).exists()
