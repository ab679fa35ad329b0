"""``ztwin console``: a CP command line on a running twin, scripted through
stdin (examples/vdisk-basics.toml): steps of simulated time, the operator's
and a guest's commands, CP's responses and messages for bad ones, the
MONWRITE file written at the end (the same script twice: the same bytes)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

from ztwin.console_cli import Console
from ztwin.monitor import read

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "examples" / "vdisk-basics.toml"
SCRIPT = """time
q vdisk syslim
step 30s
as cmsuser define vfb-512 as 0201 blk 8000
frobnicate now
as nobody q nss
step bogus
run 4min
as cmsuser detach 0201
end
"""


def _console(
    out: Path, script: str, *extra: str, scenario: Path = SCENARIO
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ztwin", "console", str(scenario), "-o", str(out), *extra],
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_scripted_session(tmp_path: Path) -> None:
    out = tmp_path / "c.monwrite"
    p = _console(out, SCRIPT)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    text = p.stdout
    # Each command echoed after the prompt, its response after it.
    assert lines[1:3] == ["ztwin> time", "simulated time 0:00:00 of 0:05:00"]
    assert "00:00:00.000 OPERATOR VDISK SYSTEM LIMIT IS 614400 BLK, 524288 BLK IN USE" in text
    # The step runs the timeline's refused DEFINE at 30 s.
    assert "00:00:30.000 CMSUSER  HCP1380E Virtual disk 0200 not defined" in text
    assert "00:00:30.000 CMSUSER  DASD 0201 DEFINED" in text
    assert "00:00:30.000 OPERATOR HCP001E Unknown CP command: FROBNICATE" in text
    assert "HCP045E NOBODY not logged on" in text
    assert "step: 'bogus' is not a duration" in text
    assert "simulated time 0:04:00" in text
    assert "00:04:00.000 CMSUSER  DASD 0201 DETACHED" in text
    assert f"{out} written" in p.stderr
    names = {r["name"] for r in read(out)}
    assert "MRSTOASI" in names
    # The same script, the same file byte for byte.
    again = tmp_path / "d.monwrite"
    assert _console(again, SCRIPT).returncode == 0
    assert again.read_bytes() == out.read_bytes()


def test_end_of_input_ends_the_session(tmp_path: Path) -> None:
    out = tmp_path / "e.monwrite"
    p = _console(out, "step 10s\n")
    assert p.returncode == 0, p.stderr
    assert out.exists() and out.stat().st_size > 0


def test_a_bad_scenario_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[system]\nprocessors = 0\n", encoding="utf-8")
    p = subprocess.run(
        [sys.executable, "-m", "ztwin", "console", str(bad), "-o", str(tmp_path / "x.monwrite")],
        input="end\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "bad.toml" in p.stderr, p.stderr
    assert not (tmp_path / "x.monwrite").exists()


def test_tab_completion() -> None:
    c = Console(session=None, stdin=io.StringIO(), stdout=io.StringIO(), echo=False)
    assert c.completenames("st") == ["step"]
    assert "QUERY" in c.completenames("q")
    assert c.completedefault("FR", "query FR", 6, 8) == ["FRAMES"]
    assert c.completedefault("VD", "query VD", 6, 8) == ["VDISK"]
    assert c.completedefault("", "define ", 7, 7) == ["VFB-512"]
    assert c.completedefault("MD", "set MD", 4, 6) == ["MDCACHE"]
    assert c.completedefault("", "indicate ", 9, 9) == ["LOAD", "USER"]
    assert c.completedefault("x", "detach 3 x", 9, 10) == []
    assert c.completenames("unl") == ["UNLOCK"]
    assert c.completedefault("", "lock ", 5, 5) == ["USERID"]


def test_indicate_load_in_the_console(tmp_path: Path) -> None:
    """INDICATE LOAD typed at the console after a step: the full response in
    CP's layout (two CPUs; the scenario has XSTOR), its figures over the
    minute run; again at once, the rates over an empty window are 0."""
    out = tmp_path / "i.monwrite"
    p = _console(out, "step 1min\nind\nindicate load\nind user cmsuser\nind queues\nq mdc\nq srm\nend\n")
    assert p.returncode == 0, p.stderr
    resp = [ln[13:] for ln in p.stdout.splitlines() if ln.startswith("00:01:00.000 OPERATOR ")]
    first = resp[resp.index("OPERATOR > ind") + 1 : resp.index("OPERATOR > indicate load")]
    second = resp[resp.index("OPERATOR > indicate load") + 1 : resp.index("OPERATOR > ind user cmsuser")]
    text = [ln[9:] for ln in first]
    assert len(text) == 9, text
    assert re.fullmatch(r"AVGPROC-\d{3}% 02", text[0]), text
    assert re.fullmatch(r"XSTORE-\d{6}/SEC MIGRATE-\d{4}/SEC", text[1]), text
    assert re.fullmatch(r"MDC READS-\d{6}/SEC WRITES-\d{6}/SEC HIT RATIO-\d{3}%", text[2]), text
    assert re.fullmatch(r"PAGING-\d+/SEC", text[3]), text
    assert int(text[3][7:-4]) > 0, "the scenario pages in its first minute"
    assert re.fullmatch(r"Q0-\d{5}\(\d{5}\) {27}DORMANT-\d{5}", text[4]), text
    for c in (1, 2, 3):
        assert re.fullmatch(rf"Q{c}-\d{{5}}\(\d{{5}}\) {{11}}E{c}-\d{{5}}\(\d{{5}}\)", text[4 + c]), text
    assert re.fullmatch(r"PROC 0000-\d{3}% CP {6}PROC 0001-\d{3}% CP", text[8]), text
    again = [ln[9:] for ln in second]
    assert again[0] == "AVGPROC-000% 02" and again[3] == "PAGING-0/SEC", again
    assert again[1] == "XSTORE-000000/SEC MIGRATE-0000/SEC", again
    assert again[4:8] == text[4:8], again
    assert again[8] == "PROC 0000-000% CP      PROC 0001-000% CP", again
    user = resp[resp.index("OPERATOR > ind user cmsuser") + 1 : resp.index("OPERATOR > ind queues")]
    assert user[0] == "OPERATOR USERID=CMSUSER  MACH=ESA STOR=32M VIRT=V XSTORE=NONE", user
    assert re.fullmatch(r"OPERATOR PAGES: RES=\d+  WS=\d+  LOCKEDREAL=0  INSTAN=\d+  XSTOR=\d+  DASD=\d+", user[1]), user
    assert re.fullmatch(r"OPERATOR CPU 00: CTIME=00:01 VTIME=\d{3}:\d\d TTIME=\d{3}:\d\d IO=\d{6}", user[3]), user
    assert "OPERATOR HCP003E Invalid option - queues (ztwin models INDICATE LOAD and USER)" in p.stdout
    # No [mdc] section in this scenario: the cache is off.
    assert "00:01:00.000 OPERATOR Minidisk cache OFF for system" in p.stdout
    assert re.search(r"00:01:00.000 OPERATOR STORBUF: Q1=\d+% Q2=\d+% Q3=\d+%", p.stdout), p.stdout


def test_query_frames_and_set_mdc_in_the_console(tmp_path: Path) -> None:
    """QUERY FRAMES and SET MDCACHE STORAGE/BIAS typed at the console on S5's
    MDC run (4 GB, the cache up to 64 MB): the frames below and above 2 GB
    adding up to central storage, the cache's frames in them; SET MDC's
    bounds and bias shown by QUERY MDC, the cache shrunk to its new maximum;
    refusals with CP's messages (on vdisk-basics, which has no [mdc])."""
    s5 = REPO / "studies" / "pav-mdc-fixed.toml"
    out = tmp_path / "f.monwrite"
    script = "step 6s\nq frames\nset mdc storage 0M 1M\nset mdc storage bias 2.5\nq mdc\nq frames\nend\n"
    p = _console(out, script, scenario=s5)
    assert p.returncode == 0, p.stderr
    resp = [ln[22:] for ln in p.stdout.splitlines() if ln.startswith("00:00:06.000 OPERATOR ")]
    cmds = [k for k, ln in enumerate(resp) if ln.startswith("> ")]
    assert [resp[k] for k in cmds] == [
        "> q frames",
        "> set mdc storage 0M 1M",
        "> set mdc storage bias 2.5",
        "> q mdc",
        "> q frames",
    ], resp
    first = resp[cmds[0] + 1 : cmds[1]]
    assert first[:3] == [
        "All Frames:",
        " Configured=1048576  Real=1048576  Usable=1048576  Offline=0",
        " Pageable=1032192  CPFixed=16384",
    ], first
    assert first[3] == "Frames < 2G:" and first[6] == "Frames > 2G:", first
    kv = [dict(re.findall(r"(\w+)=(\d+)", " ".join(first[4 + 3 * k : 6 + 3 * k]))) for k in (0, 1)]
    for part in kv:
        assert set(part) == {"Available", "GuestPages", "LockedIO", "LockedCmd", "SavedSegments", "MinidiskCache", "CPFixed"}
        assert part["LockedCmd"] == "0", part
        assert sum(int(v) for v in part.values()) == 524288, part
    cache = int(kv[0]["MinidiskCache"]) + int(kv[1]["MinidiskCache"])
    assert cache > 256, f"the cache grew past 1 MB in 6 s: {cache} frames"
    # SET answers nothing; QUERY MDC shows the new bounds and bias.
    assert cmds[2] == cmds[1] + 1 and cmds[3] == cmds[2] + 1, resp
    mdc = resp[cmds[3] + 1 : cmds[4]]
    assert mdc[0] == "Minidisk cache ON for system", mdc
    assert re.fullmatch(r"Storage MDC min=0M max=1M, usage=\d+%, bias=2.50", mdc[1]), mdc
    # The cache gave its frames back at once: at most 256 left.
    after = dict(re.findall(r"(\w+)=(\d+)", " ".join(resp[cmds[4] + 1 :])))
    assert int(after["MinidiskCache"]) <= 256, after
    # Refusals: no [mdc] section, bad operands.
    p = _console(
        tmp_path / "g.monwrite",
        "set mdc storage 0M 8M\nset mdc storage 64M 8M\nset mdc xstore bias 2\nq frames all\nend\n",
    )
    assert p.returncode == 0, p.stderr
    assert "OPERATOR HCP002E Invalid operand - MDCACHE (ztwin: the scenario has no [mdc] section)" in p.stdout
    assert "OPERATOR HCP002E Invalid operand - 8M (the maximum is below the minimum)" in p.stdout
    assert "OPERATOR HCP003E Invalid option - bias (ztwin's arbiter has one bias" in p.stdout
    assert "OPERATOR HCP003E Invalid option - all" in p.stdout
