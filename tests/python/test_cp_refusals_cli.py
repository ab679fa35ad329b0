"""Issue 13's bad input that is not a scenario error but CP's refusal, seen
through ``ztwin run`` as a user sees it: a directory VDISK over SYSLIM and
SAVESEG of a segment that is not defined get CP's message on the run's CP
console (exit 0, the run goes on, as on z/VM); a command CP does not know
in the timeline is a scenario error naming its line (exit 2, no output)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BASE = """[scenario]
duration = "2m"
[system]
processors = 1
central_storage = "512M"
[vdisk]
syslim = "{syslim}"
[[spool]]
device_type = "3390-9"
first_address = "0800"
volser_prefix = "SPL"
[[guest]]
userid = "LNX"
virtual_storage = "256M"
vdisk = [{{ vdev = "0300", size = "64M" }}]
[[timeline]]
at = "10s"
action = "cp"
guest = "LNX"
command = "{command}"
"""


def run(tmp_path: Path, syslim: str, command: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    sc = tmp_path / "cp.toml"
    sc.write_text(BASE.format(syslim=syslim, command=command), encoding="utf-8")
    out = tmp_path / "out" / "cp.monwrite"
    out.parent.mkdir()
    p = subprocess.run(
        [sys.executable, "-m", "ztwin", "run", str(sc), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr, p.stderr
    return p, out


def console(p: subprocess.CompletedProcess[str]) -> list[str]:
    text = p.stdout + p.stderr
    return [ln.strip() for ln in text.splitlines() if ln.strip()[:2].isdigit() and ln.strip()[2:3] == ":"]


def test_directory_vdisk_over_syslim_gets_cps_message(tmp_path: Path) -> None:
    p, out = run(tmp_path, "32M", "query vdisk syslim")
    assert p.returncode == 0, p.stderr
    lines = console(p)
    assert lines[0] == (
        "00:00:00.000 LNX      HCP1380E Virtual disk 0300 not defined; "
        "the system limit for virtual disks (SYSLIM) would be exceeded"
    ), lines
    assert "00:00:10.000 LNX      VDISK SYSTEM LIMIT IS 65536 BLK, 0 BLK IN USE" in lines, lines
    assert out.exists()
    # Within SYSLIM: defined, nothing refused.
    (tmp_path / "ok").mkdir()
    q, _ = run(tmp_path / "ok", "1G", "query vdisk syslim")
    assert q.returncode == 0, q.stderr
    assert not any("HCP1380E" in ln for ln in console(q)), console(q)
    assert "00:00:10.000 LNX      VDISK SYSTEM LIMIT IS 2097152 BLK, 131072 BLK IN USE" in console(q)


def test_saving_an_undefined_segment_gets_cps_message(tmp_path: Path) -> None:
    p, out = run(tmp_path, "1G", "saveseg nosuch")
    assert p.returncode == 0, p.stderr
    lines = console(p)
    assert "00:00:10.000 LNX      > saveseg nosuch" in lines, lines
    assert "00:00:10.000 LNX      HCP1364E Saved segment NOSUCH cannot be saved: it is not defined" in lines, lines
    assert out.exists()


def test_a_command_cp_does_not_know_is_a_scenario_error_naming_its_line(tmp_path: Path) -> None:
    p, out = run(tmp_path, "1G", "frobnicate now")
    assert p.returncode == 2
    err = p.stderr.strip()
    assert "\n" not in err, err
    assert err.endswith("line 20: timeline[0].command: HCP001E Unknown CP command: FROBNICATE"), err
    assert not out.exists() and list(out.parent.iterdir()) == []
