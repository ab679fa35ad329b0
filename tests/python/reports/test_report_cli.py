"""``ztwin report``: formats, errors (exit 2, a message, no output), HTML
written atomically."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from ztwin.cli import main
from ztwin.reports import REPORTS

REQUIRED_KEYS = {
    "SYSSUMLG": [
        "interval_end", "cpu_busy_pct", "tv_ratio", "capture_ratio", "ssch_rate", "dasd_resp_ms",
        "users_logged", "users_active", "users_in_elist", "page_rate", "xstor_rate",
    ],
    "USTAT": [
        "userid", "act_pct", "run_pct", "cpu_pct", "pgw_pct", "iow_pct", "sim_pct", "tiw_pct", "cfw_pct",
        "ti_pct", "el_pct", "dm_pct", "ioa_pct", "pga_pct", "lim_pct", "oth_pct",
    ],
    "UPAGE": [
        "userid", "page_reads", "page_writes", "steals", "x_to_ms", "ms_to_x", "x_to_ds", "wss",
        "resident", "locked", "xstor", "dasd",
    ],
    "DEVICE": [
        "addr", "type", "volser", "io_rate", "avoid_rate", "pend_ms", "disc_ms", "conn_ms", "serv_ms",
        "resp_ms", "queued", "busy_pct",
    ],
    "CPOWNED": [
        "addr", "volser", "area_type", "used_pct", "page_reads", "page_writes", "ssch_rate", "queue_len",
        "serv_ms", "resp_ms", "mload", "block_size",
    ],
    "STORAGE": ["avail_frames", "avail_low", "avail_high", "steals", "emergency_scans"],
    "AVAILLOG": ["interval_end", "avail_frames", "avail_low", "avail_high", "steals", "emergency_scans"],
}  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_lines_one_object_per_report_with_the_documented_keys(
    basic_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "report", basic_file, "--format", "json")
    assert code == 0, err
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["report"] for o in objs] == list(REPORTS)
    by = {o["report"]: o for o in objs}
    for o in objs:
        assert o["fcx"] == REPORTS[o["report"]].fcx
        assert o["from"] == "2024-03-01T10:01:00Z" and o["to"] == "2024-03-01T10:04:00Z"
    for name, keys in REQUIRED_KEYS.items():
        rows = by[name]["rows"]
        assert rows, name
        for k in keys:
            assert k in rows[0], (name, k)
    assert by["USTAT"]["rows"][0]["userid"] == ">System<"
    assert by["SYSSUMLG"]["rows"][1]["interval_end"] == "2024-03-01T10:02:00Z"
    assert by["SYSSUMLG"]["rows"][1]["cpu_busy_pct"] == 42.5
    assert by["CPOWNED"]["summary"]["page_slots"] == 100000


def test_csv_of_one_report(basic_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "report", basic_file, "-r", "fcx108", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["addr"] for r in rows] == [">>All DASD<<", "0300", "0200", "0201"]
    assert float(rows[2]["serv_ms"]) == pytest.approx(3.456)


def test_csv_of_several_reports_is_split_by_comment_lines(basic_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "report", basic_file, "-r", "CPU", "-r", "device cpowned", "--format", "csv")
    assert code == 0
    assert out.startswith("# FCX100 CPU\ncpu,type,busy_pct")
    assert "\n# FCX109 CPOWNED\naddr,devtype," in out


def test_text_interim_report(basic_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "report", basic_file, "-r", "DEVICE", "--from", "10:02:00", "--to", "10:04:00")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("FCX108  Run ") and "INTERIM DEVICE" in lines[0]
    assert lines[2].startswith("From 2024/03/01 10:02:00")
    assert lines[3].startswith("To   2024/03/01 10:04:00")
    assert lines[4].startswith("For    120 Secs 00:02:00")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-r", "NOSUCH"], "unknown report 'NOSUCH'"),
        (["-r", "ZTWIN"], "asked for by name only: TREND"),
        (["--from", "10:03:00", "--to", "10:02:00"], "--from 10:03:00 is not before --to 10:02:00"),
        (["--from", "9:99"], "'9:99' is not a time of day"),
        (["--from", "yesterday"], "'yesterday' is not a time"),
        (["--from", "11:00:00", "--to", "12:00:00"], "no complete sample interval between --from and --to"),
    ],
)
def test_bad_usage_exits_2_with_a_message_and_no_output(
    basic_file: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, "report", basic_file, *args)
    assert code == 2
    assert out == ""
    assert err.startswith("ztwin report: ") and message in err
    assert "Traceback" not in err


def test_missing_and_corrupt_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "report", tmp_path / "nope.monwrite")
    assert (code, out) == (2, "")
    assert "cannot open" in err and "No such file" in err
    bad = tmp_path / "bad.monwrite"
    bad.write_bytes(b"\x00" * 100)
    code, out, err = run(capsys, "report", bad)
    assert (code, out) == (2, "")
    assert f"{bad}: offset 0" in err
    code, out, err = run(capsys, "report", tmp_path)
    assert (code, out) == (2, "") and "Is a directory" in err


def test_a_file_without_intervals_still_gives_configuration_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from builders import MonFile, at, config_records

    f = MonFile(tmp_path / "config.monwrite")
    f.sample_set(at(0), config_records(2, ["U1"]))
    path = f.close()
    code, out, err = run(capsys, "report", path)
    assert code == 2 and "no complete sample interval" in err and out == ""
    code, out, err = run(capsys, "report", path, "-r", "SYSCONF", "-r", "UCONF")
    assert code == 0, err
    assert "System identifier .................... TESTSYS" in out
    assert "U1" in out


def test_html_directory_is_written_whole(basic_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "html"
    code, out, err = run(capsys, "report", basic_file, "--html", out_dir, "-u", "LINUX01")
    assert code == 0, err
    assert out.strip() == str(out_dir / "index.html")
    names = {p.name for p in out_dir.iterdir()}
    assert {"index.html", "plotly.min.js", "syssumlg.html", "cpowned.html", "ustatlog.html"} <= names
    assert len([n for n in names if n.endswith(".html")]) == len(REPORTS) + 1
    page = (out_dir / "syssumlg.html").read_text()
    assert '<script src="plotly.min.js"' in page and "Plotly.newPlot" in page
    assert "cdn" not in page.lower()  # nothing fetched from the network
    # a second run replaces its own earlier output and keeps what the user added
    (out_dir / "notes.html").write_text("mine")
    code, _, _ = run(capsys, "report", basic_file, "-r", "CPU", "--html", out_dir)
    assert code == 0
    assert {p.name for p in out_dir.iterdir()} == {"index.html", "plotly.min.js", "cpu.html", ".ztwin-output", "notes.html"}
    assert (out_dir / "notes.html").read_text() == "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["html"]  # no temporary directories left


def test_html_refuses_a_foreign_directory(basic_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    code, out, err = run(capsys, "report", basic_file, "--html", mine)
    assert code == 2 and out == ""
    assert f"ztwin report: {mine} is not empty and was not written by ztwin" in err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_html_failure_leaves_nothing_behind(
    basic_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import ztwin.reports.html as h

    calls = {"n": 0}
    real = h.report_page

    def failing(*a: object, **k: object) -> str:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(h, "report_page", failing)
    code, out, err = run(capsys, "report", basic_file, "--html", tmp_path / "out")
    assert code == 2 and out == "" and "No space left on device" in err
    assert list(tmp_path.iterdir()) == []


def test_report_is_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["report", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "SYSSUMLG  FCX225" in out and "--from HH:MM:SS" in out


def test_damage_is_warned_about_but_reported(basic_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(basic_file.read_bytes())
    cut = tmp_path / "cut.monwrite"
    cut.write_bytes(bytes(data[: len(data) - 4096]))  # the last interval's block is gone
    code, out, err = run(capsys, "report", cut, "-r", "SYSSUMLG")
    assert code == 0
    assert "warning" in err and "damaged span" in err
    assert "10:03:00" in out and "10:04:00" not in out


def test_source_date_epoch_fixes_the_run_time(basic_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.environ["SOURCE_DATE_EPOCH"] = "1700000000"
    try:
        code, out, _ = run(capsys, "report", basic_file, "-r", "CPU")
    finally:
        del os.environ["SOURCE_DATE_EPOCH"]
    assert code == 0 and out.startswith("FCX100  Run 2023/11/14 22:13:20")


def test_user_log_names_a_user_without_data_in_the_window(basic_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # LINUX03 logs on at 10:02:30; its first sample (10:03) is only a baseline
    code, out, _ = run(capsys, "report", basic_file, "-r", "USTATLOG", "-u", "linux01", "-u", "linux03", "--to", "10:03:00")
    assert code == 0
    assert "Wait State Data Log for User LINUX01" in out
    assert "No data for user LINUX03 in the selected period" in out


@pytest.mark.parametrize("report", ["USTATLOG", "UPAGELOG"])
def test_user_log_of_a_user_the_file_does_not_have(
    basic_file: Path, capsys: pytest.CaptureFixture[str], report: str
) -> None:
    code, out, err = run(capsys, "report", basic_file, "-r", report, "-u", "nosuch", "-u", "linux03")
    assert code == 2 and out == ""
    assert err == (
        f"ztwin report: -u NOSUCH: no user of that name in {basic_file} "
        "(3 user(s) seen: LINUX01, LINUX02, LINUX03)\n"
    )
