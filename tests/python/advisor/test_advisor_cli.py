"""``ztwin diagnose`` end to end on hand-built MONWRITE files: text and JSON,
the window and its history, PAV aliases from the device configuration, and
bad input (exit 2, a message naming the place, nothing on stdout)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import (  # type: ignore[import-not-found, unused-ignore]
    MonFile,
    Rec,
    at,
    config_records,
    cpu_records,
    device_record,
    user_records,
)

from ztwin.advisor import diagnose
from ztwin.cli import main

BASE, ALIASES = 0xE700, (0xE7FC, 0xE7FD, 0xE7FE)
UNITS_PER_MS = 1 / 0.128


def _dev_conf(devno: int, base: int | None = None) -> Rec:
    f: dict[str, Any] = {"MTRDEV_RDEVDEV": devno, "MTRDEV_RDEVSER": "LDB307", "MTRDEV_RDEVCLAS": 4, "MTRDEV_RDEVTYPE": 4}
    if base is not None:
        f["MTRDEV_CALRDEVDEV"] = base
    return ("MRMTRDEV", f)


def _io(devno: int, k: int, rate: float, pend: float, disc: float, conn: float, queue: float, mdc: float = 0.0) -> Rec:
    """Cumulative IODDEV counters after k intervals of 60 s."""
    n = int(rate * 60 * k)
    return device_record(
        devno, "LDB307", SCGSSCH=n, SCGCOUNT=n, SCMFPTIM=int(n * pend * UNITS_PER_MS),
        SCMDDTIM=int(n * disc * UNITS_PER_MS), SCMCNTIM=int(n * conn * UNITS_PER_MS),
        HFQUEUE=int(30 * k * queue), RDEVMDCH=int(mdc * 60 * k),
    )  # fmt: skip


def write_s5(path: Path, intervals: int = 4, busy_from: int = 0) -> Path:
    """Two CPUs 95% busy (from interval ``busy_from`` on, 40% before); volume
    E700 with three PAV aliases that the MDC defect leaves idle (S5): 564 I/O/s
    on the base, queue 2.9, aliases 0.5/0.3/0.3 I/O/s."""
    f = MonFile(path)
    conf = config_records(2, ["LINUX01", "LINUX02"])
    conf += [_dev_conf(BASE)] + [_dev_conf(a, BASE) for a in ALIASES]
    f.sample_set(at(0), conf)
    user_s = wait_s = 0.0
    for i in range(1, intervals + 2):
        k = i - 1
        recs: list[Rec] = []
        if k:
            hot = k - 1 >= busy_from
            user_s += 55.0 if hot else 22.0
            wait_s += 3.0 if hot else 36.0
        for c in range(2):
            recs += cpu_records(c, user_s=user_s, sys_s=2.0 * k, wait_s=wait_s, emul_s=user_s * 0.98, hf=30 * k)
        # the users are charged 99% of the processor time (capture ratio .99), T/V 1.02
        for u in ("LINUX01", "LINUX02"):
            ttime = 0.99 * (user_s + 2.0 * k)
            recs += user_records(u, ttime_s=ttime, vtime_s=ttime / 1.02,
                                 hf={"HFSTCT": 30 * k, "HFQUCT": 30 * k, "HFCPURN": 20 * k, "HFIOWT": 10 * k})  # fmt: skip
        recs.append(_io(BASE, k, 564.0, 0.3, 0.1, 1.3, 2.9, mdc=90.6))
        for a, r in zip(ALIASES, (0.5, 0.3, 0.3), strict=True):
            recs.append(_io(a, k, r, 0.3, 0.3, 1.5, 0.0))
        f.sample_set(at(60 * i), recs)
    out: Path = f.close()
    return out


@pytest.fixture
def s5_file(tmp_path: Path) -> Path:
    return write_s5(tmp_path / "s5.monwrite")


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_names_findings_most_important_first(s5_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "diagnose", s5_file)
    assert code == 0, err
    assert "Period 2024/03/01 10:01:00 - 2024/03/01 10:05:00: 4 intervals of 60 s" in out
    assert "2 findings: 1 critical, 1 warning" in out
    first = out.index("1. CRITICAL  pav-base-queue")
    assert first < out.index("2. WARNING  cpu-busy")
    flat = " ".join(out.split())  # text is wrapped at 100 columns
    assert "E700: queue 2.9 at 564 I/O/s, its 3 aliases 1.1 I/O/s together" in flat
    assert "VM64199" in flat and "Recommendation:" in flat
    assert max(len(line) for line in out.splitlines()[1:] if not line.startswith("       ")) <= 100


def test_json_has_the_documented_shape(s5_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "diagnose", s5_file, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert {"file", "system", "from", "to", "intervals", "rules", "findings"} <= set(doc)
    assert doc["from"] == "2024-03-01T10:01:00Z" and doc["intervals"] == 4
    assert [f["id"] for f in doc["findings"]] == ["pav-base-queue", "cpu-busy"]
    for f in doc["findings"]:
        assert list(f) == ["id", "severity", "title", "evidence", "explanation", "recommendation"]
        for e in f["evidence"]:
            assert {"report", "fcx", "summary", "rows"} <= set(e)
    pav = doc["findings"][0]
    ev = pav["evidence"][0]
    assert ev["report"] == "DEVICE" and ev["fcx"] == "FCX108"
    assert ev["intervals"]["held"] == 4 and ev["intervals"]["of"] == 4
    assert ev["intervals"]["ends"][0] == "2024-03-01T10:02:00Z"
    base = ev["rows"][0]
    assert base["addr"] == "E700" and base["type"] == "base"
    assert base["io_rate"] == pytest.approx(564.0) and base["queued"] == pytest.approx(2.9, abs=0.02)
    assert base["avoid_rate"] == pytest.approx(90.6, abs=0.02)
    assert [r["type"] for r in ev["rows"][1:]] == ["->E700"] * 3
    busy = doc["findings"][1]["evidence"][0]["rows"]
    assert busy[0]["cpu_busy_pct"] == pytest.approx(95.0)


def test_window_judges_its_intervals_and_counts_the_rest_as_history(tmp_path: Path) -> None:
    path = write_s5(tmp_path / "w.monwrite", intervals=6, busy_from=3)
    whole = diagnose(path)
    assert whole.get("cpu-busy") is not None  # 3 of 6 intervals: half the period
    early = diagnose(path, "10:00:00", "10:03:00")
    assert early.get("cpu-busy") is None and len(early.period.intervals) == 2
    late = diagnose(path, "10:04:00", "10:07:00")
    assert late.get("cpu-busy") is not None
    assert [i.end.strftime("%H:%M") for i in late.period.history] == ["10:02", "10:03", "10:04"]
    assert "3 intervals of 60 s; 3 earlier as history" in late.to_text()


def test_rules_file_changes_the_verdict(s5_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "site.toml"
    rules.write_text("[cpu-busy]\nwarning = 96.0\ncritical = false\n\n[pav-base-queue]\ncritical = 5.0\n")
    code, out, err = run(capsys, "diagnose", s5_file, "--rules", rules, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [(f["id"], f["severity"]) for f in doc["findings"]] == [("pav-base-queue", "warning")]
    assert doc["rules"] == ["defaults", str(rules)]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--from", "10:03", "--to", "10:02"], "--from 10:03 is not before --to 10:02"),
        (["--from", "25:00"], "'25:00' is not a time of day"),
        (["--from", "2024-03-01 10:03:00", "--to", "10:02:00"], "--from 2024-03-01 10:03:00 is not before --to 10:02:00"),
        (["--from", "11:00", "--to", "12:00"], "no complete sample interval between --from and --to (the file has samples from 2024/03/01 10:01:00 to 2024/03/01 10:05:00)"),
        (["--from", "08:00", "--to", "09:00"], "no complete sample interval between --from and --to (the file's samples start at 2024/03/01 10:01:00)"),
    ],
)  # fmt: skip
def test_bad_windows(s5_file: Path, capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    code, out, err = run(capsys, "diagnose", s5_file, *args)
    assert code == 2 and out == ""
    assert err.startswith("ztwin diagnose: ") and needle in err
    assert "Traceback" not in err


def test_bad_rules_file_names_the_place(s5_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "r.toml"
    rules.write_text("[paging-queue]\nwarning = 2\n")
    code, out, err = run(capsys, "diagnose", s5_file, "--rules", rules)
    assert code == 2 and out == ""
    assert f"ztwin diagnose: {rules}: unknown rule id [paging-queue]" in err
    rules.write_text("[pav-base-queue]\nalias_shares = 5\n")
    code, out, err = run(capsys, "diagnose", s5_file, "--rules", rules)
    assert code == 2 and "[pav-base-queue] unknown key 'alias_shares'" in err
    code, out, err = run(capsys, "diagnose", s5_file, "--rules", tmp_path / "missing.toml")
    assert code == 2 and "cannot open rules file" in err and "missing.toml" in err


def test_bad_monwrite_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "diagnose", tmp_path / "nope.monwrite")
    assert code == 2 and out == "" and "cannot open" in err and "nope.monwrite" in err
    code, out, err = run(capsys, "diagnose", tmp_path)
    assert code == 2 and "Is a directory" in err
    junk = tmp_path / "junk.monwrite"
    junk.write_bytes(bytes(range(256)) * 40)
    code, out, err = run(capsys, "diagnose", junk)
    assert code == 2 and out == "" and str(junk) in err and "Traceback" not in err
    empty = tmp_path / "empty.monwrite"
    empty.write_bytes(b"")
    code, out, err = run(capsys, "diagnose", empty)
    assert code == 2 and out == "" and str(empty) in err


def test_one_sample_set_is_not_enough(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = MonFile(tmp_path / "one.monwrite")
    f.sample_set(at(0), config_records(1))
    f.sample_set(at(60), cpu_records(0, user_s=1.0))
    path: Path = f.close()
    code, out, err = run(capsys, "diagnose", path)
    assert code == 2 and "no complete sample interval" in err
