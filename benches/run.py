#!/usr/bin/env python3
"""MONWRITE reader benchmark harness (standard library, plus the ztwin package for the report step).

    python3 benches/run.py            # full run: 2048 MB file (make bench)
    python3 benches/run.py --quick    # 256 MB file, well under 3 minutes (make bench-quick)

Builds `ztwin-monbench` in release mode, generates a synthetic MONWRITE file in a
temporary directory, warms the page cache with one raw pass, then runs the modes
raw / scan / decode / decode-field / decode-owned / json interleaved, several
times each, and takes the median MB/s of each (MB = 10^6 bytes). Every mode is
compared with `raw` (merely reading the file in 1 MiB chunks from the page
cache): `scan` is record decode (headers, layout identification, bounds and
damage checks), `decode` is full field decode (every field of every known record
through layout::RecordDecoder, the per-layout decode plan), `decode-field` the
same fields one by one through layout::decode_field_ref (the previous `decode`;
its checksum must equal `decode`'s), `decode-owned` the same fields as owned
values (layout::decode_field), `json` the JSON Lines rendering.

Flat memory is checked by running `decode` on a small file and on the big one and
comparing their peak RSS (VmHWM).

Full report generation: `ztwin report FILE --format json` (all 15 reports, output
discarded) runs once on the small file and once on the big one (only the small
one with --quick or --no-report-big), in the interpreter running this script
(which therefore needs the ztwin package: make bench uses .venv/bin/python),
with its MB/s, CPU time and peak RSS.

Prints a table and the exact commands, merges its figures into bench-results.json
at the repository root (or --out; other keys in the file are kept) and deletes the
generated files (unless --keep).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from results import merge_into

ROOT = Path(__file__).resolve().parent.parent
MODES = ("raw", "scan", "decode", "decode-field", "decode-owned", "json")
# What `ztwin report` produces when no -r is given (for the log line only).
REPORT_NAMES = ("SYSSUMLG", "CPU", "LPAR", "USTAT", "USTATLOG", "UPAGE", "UPAGELOG", "DEVICE", "CPOWNED",
                "STORAGE", "PAGELOG", "AVAILLOG", "MONSET", "SYSCONF", "UCONF")
NOTES = {
    "scan": "record decode: headers, layouts, bounds",
    "decode": "full field decode, RecordDecoder",
    "decode-field": "the same field by field, decode_field_ref",
    "decode-owned": "the same through decode_field (owned values)",
}
# Keys of bench-results.json written by this script (and by earlier versions of
# it): replaced on every run; other keys (benches/twin.py's) are kept.
OWN_KEYS = (
    "decode_mb_s", "raw_read_mb_s", "scan_mb_s", "json_mb_s", "decode_owned_mb_s",
    "decode_ratio_vs_raw", "scan_ratio_vs_raw", "json_ratio_vs_raw", "decode_owned_ratio_vs_raw",
    "decode_ref_mb_s", "decode_ref_ratio_vs_raw", "decode_ns_per_field", "field_ns_beyond_scan",
    "peak_rss_mb_decode", "peak_rss_mb_decode_small", "peak_rss_mb", "flat_memory",
    "goal_decode_ratio", "goal_met", "goal_met_scan", "file_bytes", "small_file_bytes", "records",
    "report_mb_s", "report_cpu_mb_s", "report_ratio_vs_raw", "report_seconds", "report_file_bytes",
    "peak_rss_mb_report", "report_runs",
    "kernel_mb_s", "kernel_cpu_mb_s", "ingest_mb_s", "ingest_cpu_mb_s", "ingest_seconds", "peak_rss_mb_ingest",
    "report_db_mb_s", "report_db_seconds", "peak_rss_mb_report_db", "history_days", "history_30d_report_s",
    "history_30d_trend_s", "history_runs",
    "fields_decoded", "runs", "quick", "all_runs", "units", "machine", "date", "command",
    "commands", "elapsed_s", "git_commit", "cpu_mb_s", "cpu_ratio_vs_raw", "user_s", "sys_s",
    "load_average", "machine_busy",
    "decode_field_mb_s", "decode_field_ratio_vs_raw", "decode_field_ns_per_field",
    "decode_speedup_vs_decode_field", "decode_checksums_agree",
)
BIN_NAME = "ztwin-monbench"


def log(msg: str) -> None:
    print(msg, flush=True)


def fmt_cmd(cmd: list[str]) -> str:
    return " ".join(shlex.quote(str(c)) for c in cmd)


def target_dir() -> Path:
    env = os.environ.get("CARGO_TARGET_DIR")
    if env:
        p = Path(env)
        return p if p.is_absolute() else ROOT / p
    return ROOT / "target"


def build(commands: list[str]) -> Path:
    cmd = ["cargo", "build", "--release", "-p", "ztwin-monitor", "--bin", BIN_NAME]
    commands.append(fmt_cmd(cmd))
    log(f"$ {fmt_cmd(cmd)}")
    subprocess.run(cmd, cwd=ROOT, check=True)
    exe = target_dir() / "release" / BIN_NAME
    if not exe.exists():
        sys.exit(f"run.py: built, but {exe} does not exist")
    return exe


def run_mode(exe: Path, args: list[str], commands: list[str] | None = None) -> dict[str, Any]:
    cmd = [str(exe), *args]
    if commands is not None:
        commands.append(fmt_cmd(cmd))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        sys.exit(f"run.py: {fmt_cmd(cmd)} failed ({res.returncode}):\n{res.stderr}")
    lines = [l for l in res.stdout.splitlines() if l.startswith("{")]
    if not lines:
        sys.exit(f"run.py: no JSON line from {fmt_cmd(cmd)}:\n{res.stdout}{res.stderr}")
    result: dict[str, Any] = json.loads(lines[-1])
    # CPU time of the run (user + system, the whole process): on a shared
    # machine, bytes per CPU second is steadier than bytes per wall second.
    result["user_s"] = round(r1.ru_utime - r0.ru_utime, 6)
    result["sys_s"] = round(r1.ru_stime - r0.ru_stime, 6)
    cpu = result["user_s"] + result["sys_s"]
    result["cpu_mb_s"] = round(result["bytes"] / 1e6 / cpu, 1) if cpu > 0 else 0.0
    return result


# Runs `ztwin report FILE --format json` (every report, output discarded) in
# the interpreter running this script, which must have the ztwin package (make
# bench uses .venv/bin/python), then prints the process's peak RSS (VmHWM).
_REPORT = r'''
import contextlib, io, os, sys
from ztwin.cli import main
with open(os.devnull, "w") as out, contextlib.redirect_stdout(out):
    rc = main(["report", sys.argv[1], "--format", "json"])
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print('{"rc": %d, "peak_rss_mb": %.1f}' % (rc or 0, int(hwm) * 1024 / 1e6))
'''


def run_report(path: Path, commands: list[str] | None = None) -> dict[str, Any]:
    """Full report generation (all reports, JSON) on `path`: wall and CPU
    seconds, MB/s and peak RSS of the process."""
    cmd = [sys.executable, "-c", _REPORT, str(path)]
    if commands is not None:
        commands.append(f"{fmt_cmd([sys.executable, '-m', 'ztwin', 'report', str(path), '--format', 'json'])}"
                        " > /dev/null")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [l for l in res.stdout.splitlines() if l.startswith("{")]
    if res.returncode != 0 or not lines or json.loads(lines[-1])["rc"] != 0:
        sys.exit(f"run.py: ztwin report on {path} failed ({res.returncode}):\n{res.stdout}{res.stderr}")
    size = path.stat().st_size
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return {
        "bytes": size,
        "seconds": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "mb_s": round(size / 1e6 / wall, 2),
        "cpu_mb_s": round(size / 1e6 / cpu, 2) if cpu > 0 else 0.0,
        "peak_rss_mb": json.loads(lines[-1])["peak_rss_mb"],
    }


# Runs a ztwin command line in the interpreter running this script (stdout
# discarded) and prints its exit code and peak RSS (VmHWM).
_ZTWIN = r'''
import contextlib, json, os, sys
from ztwin.cli import main
with open(os.devnull, "w") as out, contextlib.redirect_stdout(out):
    rc = main(json.loads(sys.argv[1]))
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print('{"rc": %d, "peak_rss_mb": %.1f}' % (rc or 0, int(hwm) * 1024 / 1e6))
'''


def run_ztwin(args: list[str], size: int, commands: list[str] | None = None) -> dict[str, Any]:
    """One ``ztwin`` command: wall and CPU seconds, MB/s of ``size`` bytes, peak RSS."""
    cmd = [sys.executable, "-c", _ZTWIN, json.dumps(args)]
    if commands is not None:
        commands.append(fmt_cmd([sys.executable, "-m", "ztwin", *args]) + " > /dev/null")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [l for l in res.stdout.splitlines() if l.startswith("{")]
    if res.returncode != 0 or not lines or json.loads(lines[-1])["rc"] != 0:
        sys.exit(f"run.py: ztwin {' '.join(args)} failed ({res.returncode}):\n{res.stdout}{res.stderr}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return {
        "bytes": size,
        "seconds": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "mb_s": round(size / 1e6 / wall, 2),
        "cpu_mb_s": round(size / 1e6 / cpu, 2) if cpu > 0 else 0.0,
        "peak_rss_mb": json.loads(lines[-1])["peak_rss_mb"],
    }


def run_kernel(path: Path, commands: list[str]) -> dict[str, Any]:
    """The interval kernel alone (Rust, no Python): examples/kernel_bench."""
    cmd = ["cargo", "build", "--release", "-p", "ztwin-analysis", "--example", "kernel_bench"]
    commands.append(fmt_cmd(cmd))
    subprocess.run(cmd, cwd=ROOT, check=True)
    exe = target_dir() / "release" / "examples" / "kernel_bench"
    return run_mode(exe, [str(path)], commands)


def history_bench(big: Path, work: Path, commands: list[str]) -> dict[str, Any]:
    """Ingest the big file into a fresh database, all reports from it, and a
    report over 30 days of stored history (the first 30 days, or all there is)."""
    import duckdb

    db = work / "bench.duckdb"
    size = big.stat().st_size
    ing = run_ztwin(["ingest", str(big), "--db", str(db)], size, commands)
    log(f"  ztwin ingest: {ing['mb_s']:.1f} MB/s, {ing['seconds']:.1f} s wall, {ing['cpu_s']:.1f} s CPU, "
        f"peak RSS {ing['peak_rss_mb']:.0f} MB")
    rep = run_ztwin(["report", "--db", str(db), "--format", "json"], size, commands)
    log(f"  ztwin report --db (all reports): {rep['mb_s']:.1f} MB/s of the file, {rep['seconds']:.1f} s, "
        f"peak RSS {rep['peak_rss_mb']:.0f} MB")
    con = duckdb.connect(str(db), read_only=True)
    first, last = con.execute('SELECT min(start), max("end") FROM system_intervals').fetchall()[0]
    con.close()
    days = (last - first).total_seconds() / 86400
    to = min(last, first + _dt.timedelta(days=30))
    win = ["--from", first.strftime("%Y-%m-%d %H:%M:%S"), "--to", to.strftime("%Y-%m-%d %H:%M:%S")]
    r30 = run_ztwin(["report", "--db", str(db), *win, "--format", "json", "-r", "SYSSUMLG", "-r", "PAGELOG",
                     "-r", "USTAT", "-r", "DEVICE"], size, commands)  # fmt: skip
    t30 = run_ztwin(["report", "--db", str(db), *win, "--by", "day", "--format", "json"], size, commands)
    log(f"  30 days of history ({(to - first).total_seconds() / 86400:.1f} days stored of {days:.1f}): "
        f"SYSSUMLG+PAGELOG+USTAT+DEVICE {r30['seconds']:.2f} s, TREND by day {t30['seconds']:.2f} s")
    return {"ingest": ing, "report_db": rep, "days": round(days, 1), "window_days": round((to - first).total_seconds() / 86400, 1),
            "report_30d": r30, "trend_30d": t30}  # fmt: skip


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "kernel": platform.release(),
        "python": platform.python_version(),
    }
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                kb = int(line.split()[1])
                info["memory_kb"] = kb
                info["memory_gb"] = round(kb * 1024 / 1e9, 1)
                break
    except OSError:
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info.setdefault("cpu_model", platform.processor() or "unknown")
    try:
        info["rustc"] = subprocess.run(
            ["rustc", "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        info["rustc"] = "unknown"
    return info


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="256 MB file (default size for --quick)")
    ap.add_argument("--mb", type=int, help="size of the big file in MB (default 2048, or 256 with --quick)")
    ap.add_argument("--small-mb", type=int, default=64, help="size of the small file for the flat-memory check (64)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each mode, interleaved; the median is kept (3)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench-results.json", help="results file")
    ap.add_argument("--tmpdir", type=Path, default=Path("/tmp"), help="where the generated files go (/tmp)")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--no-report-big", action="store_true",
                    help="run the report generation on the small file only (as --quick does)")
    args = ap.parse_args()
    big_mb = args.mb or (256 if args.quick else 2048)
    if big_mb <= 0 or args.small_mb <= 0 or args.runs <= 0:
        ap.error("sizes and --runs must be positive")

    t_start = time.monotonic()
    invocation = fmt_cmd(["python3", "benches/run.py", *sys.argv[1:]])
    commands: list[str] = []
    exe = build(commands)
    args.tmpdir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="ztwin-bench-", dir=args.tmpdir))
    try:
        big = work / f"bench-{big_mb}mb.mon"
        small = work / f"bench-{args.small_mb}mb.mon"
        log(f"generating {big} ({big_mb} MB) and {small} ({args.small_mb} MB)")
        gen_big = run_mode(exe, ["gen", str(big), "--mb", str(big_mb)], commands)
        gen_small = run_mode(exe, ["gen", str(small), "--mb", str(args.small_mb)], commands)
        log(f"  big: {gen_big['bytes']} bytes in {gen_big['seconds']:.1f} s; "
            f"small: {gen_small['bytes']} bytes")

        # Warm the page cache (not counted).
        run_mode(exe, ["raw", str(big)])
        run_mode(exe, ["raw", str(small)])

        runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
        for i in range(args.runs):
            for m in MODES:
                r = run_mode(exe, [m, str(big)], commands if i == 0 else None)
                runs[m].append(r)
                log(f"  run {i + 1}/{args.runs} {m:<12} {r['mb_s']:>9.1f} MB/s  {r['seconds']:7.3f} s  "
                    f"cpu {r['cpu_mb_s']:>9.1f} MB/s  rss {r['peak_rss_mb']:.1f} MB")
        for m in MODES[1:]:
            for r in runs[m]:
                if r.get("damage", 0) != 0 or r["records"] != runs["scan"][0]["records"]:
                    sys.exit(f"run.py: {m} saw damage or a different record count: {r}")
        # The plan decoder and the field-by-field decoder must see the same values.
        sums = {(r["checksum"], r["fields"]) for m in ("decode", "decode-field") for r in runs[m]}
        if len(sums) != 1:
            sys.exit(f"run.py: decode and decode-field disagree (checksum, fields): {sums}")

        small_runs = [run_mode(exe, ["decode", str(small)], commands if i == 0 else None) for i in range(args.runs)]

        # Full report generation (ztwin report, every report), once per file:
        # the small file, then the big one (--quick: the small one only).
        report_files = [small] if args.quick or args.no_report_big else [small, big]
        reports = []
        for f in report_files:
            log(f"  ztwin report (all reports) on {f.name} ...")
            reports.append(run_report(f, commands))
            r = reports[-1]
            log(f"    {r['mb_s']:.1f} MB/s, {r['seconds']:.1f} s wall, {r['cpu_s']:.1f} s CPU, "
                f"peak RSS {r['peak_rss_mb']:.1f} MB")

        log("  interval kernel alone (Rust) ...")
        kern = run_kernel(big, commands)
        log(f"    {kern['mb_s']:.1f} MB/s wall, {kern['cpu_mb_s']:.1f} MB/s per CPU second")
        hist = history_bench(big, work, commands)

        med = {m: statistics.median(r["mb_s"] for r in runs[m]) for m in MODES}
        med_s = {m: statistics.median(r["seconds"] for r in runs[m]) for m in MODES}
        med_cpu = {m: statistics.median(r["cpu_mb_s"] for r in runs[m]) for m in MODES}
        med_user = {m: statistics.median(r["user_s"] for r in runs[m]) for m in MODES}
        med_sys = {m: statistics.median(r["sys_s"] for r in runs[m]) for m in MODES}
        rss = {m: max(r["peak_rss_mb"] for r in runs[m]) for m in MODES}
        raw = med["raw"]
        rss_small = max(r["peak_rss_mb"] for r in small_runs)
        rss_big = rss["decode"]
        flat = abs(rss_big - rss_small) <= max(2.0, 0.1 * rss_small)
        fields = runs["decode"][0].get("fields") or 0
        ns_field = med_s["decode"] / fields * 1e9 if fields else 0.0
        ns_beyond = (med_s["decode"] - med_s["scan"]) / fields * 1e9 if fields else 0.0
        ns_field_old = med_s["decode-field"] / fields * 1e9 if fields else 0.0
        ns_beyond_old = (med_s["decode-field"] - med_s["scan"]) / fields * 1e9 if fields else 0.0

        log("")
        log(f"MONWRITE reader, {gen_big['bytes'] / 1e6:.0f} MB file, {runs['scan'][0]['records']} records, "
            f"{fields} fields, median of {args.runs} runs (MB = 10^6 bytes, file in page cache)")
        log(f"{'mode':<14}{'MB/s':>10}{'vs raw':>9}{'CPU MB/s':>10}{'vs raw':>9}{'user s':>8}{'sys s':>7}"
            f"{'peak RSS MB':>13}   runs (MB/s)")
        for m in MODES:
            all_runs = ", ".join(f"{r['mb_s']:.0f}" for r in runs[m])
            note = f"   ({NOTES[m]})" if m in NOTES else ""
            log(f"{m:<14}{med[m]:>10.1f}{med[m] / raw:>9.3f}{med_cpu[m]:>10.1f}{med_cpu[m] / med_cpu['raw']:>9.3f}"
                f"{med_user[m]:>8.3f}{med_sys[m]:>7.3f}{rss[m]:>13.1f}   {all_runs}{note}")
        log("(MB/s: file bytes per wall second; CPU MB/s: per CPU second of the process, user + system;"
            f" load average {os.getloadavg()[0]:.2f} at the end)")
        log("")
        log(f"flat memory: decode peak RSS {rss_small:.1f} MB on {gen_small['bytes'] / 1e6:.0f} MB, "
            f"{rss_big:.1f} MB on {gen_big['bytes'] / 1e6:.0f} MB -> {'flat' if flat else 'NOT FLAT'}")
        ratio = med["decode"] / raw
        scan_ratio = med["scan"] / raw
        cpu_ratio = med_cpu["decode"] / med_cpu["raw"]
        cpu_scan_ratio = med_cpu["scan"] / med_cpu["raw"]
        # Other work on the machine slows the short raw runs most, which inflates
        # the wall ratios: a goal counts as met only if both ratios reach it.
        busy = med["raw"] < 0.8 * med_cpu["raw"]
        if busy:
            log(f"WARNING: the machine was busy (raw {med['raw']:.0f} MB/s wall against {med_cpu['raw']:.0f} MB/s "
                "per CPU second): wall ratios are unreliable, trust the CPU ratios")
        scan_met = min(scan_ratio, cpu_scan_ratio) >= 0.5
        decode_met = min(ratio, cpu_ratio) >= 0.5
        log(f"goal >= 50% of raw (wall / CPU): record decode (scan) {scan_ratio:.1%} / {cpu_scan_ratio:.1%} -> "
            f"{'met' if scan_met else 'NOT met'}; full field decode {ratio:.1%} / {cpu_ratio:.1%} -> "
            f"{'met' if decode_met else 'NOT met'}")
        log(f"full field decode: {ns_field:.2f} ns per field in all, {ns_beyond:.2f} ns per field beyond scan "
            f"(field by field, decode-field: {ns_field_old:.2f} and {ns_beyond_old:.2f})")
        speedup = med["decode"] / med["decode-field"]
        speedup_cpu = med_cpu["decode"] / med_cpu["decode-field"]
        log(f"decode (RecordDecoder) / decode-field (decode_field_ref): {speedup:.2f}x wall, {speedup_cpu:.2f}x CPU; "
            "checksums agree")
        rep = reports[-1]
        log(f"full report generation (ztwin report, all {len(REPORT_NAMES)} reports, JSON, one process): "
            f"{rep['mb_s']:.1f} MB/s on {rep['bytes'] / 1e6:.0f} MB ({rep['mb_s'] / raw:.4f} of raw), "
            f"{rep['cpu_mb_s']:.1f} MB/s per CPU second, peak RSS "
            + ", ".join(f"{r['peak_rss_mb']:.0f} MB on {r['bytes'] / 1e6:.0f} MB" for r in reports))
        log("")
        log("commands:")
        for c in commands:
            log(f"  {c}")

        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                    text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            commit = "unknown"
        results = {
            "decode_mb_s": round(med["decode"], 1),
            "raw_read_mb_s": round(raw, 1),
            "scan_mb_s": round(med["scan"], 1),
            "decode_owned_mb_s": round(med["decode-owned"], 1),
            "json_mb_s": round(med["json"], 1),
            "decode_ratio_vs_raw": round(ratio, 4),
            "scan_ratio_vs_raw": round(scan_ratio, 4),
            "decode_owned_ratio_vs_raw": round(med["decode-owned"] / raw, 4),
            "json_ratio_vs_raw": round(med["json"] / raw, 4),
            "decode_ns_per_field": round(ns_field, 3),
            "decode_field_mb_s": round(med["decode-field"], 1),
            "decode_field_ratio_vs_raw": round(med["decode-field"] / raw, 4),
            "decode_field_ns_per_field": round(ns_field_old, 3),
            "decode_speedup_vs_decode_field": {"wall": round(speedup, 3), "cpu": round(speedup_cpu, 3)},
            "decode_checksums_agree": True,
            "field_ns_beyond_scan": round(ns_beyond, 3),
            "peak_rss_mb_decode": rss_big,
            "peak_rss_mb_decode_small": rss_small,
            "peak_rss_mb": rss,
            "flat_memory": flat,
            "goal_decode_ratio": 0.5,
            "goal_met": decode_met,
            "goal_met_scan": scan_met,
            "machine_busy": busy,
            "file_bytes": gen_big["bytes"],
            "small_file_bytes": gen_small["bytes"],
            "records": runs["scan"][0]["records"],
            "fields_decoded": fields,
            "report_mb_s": rep["mb_s"],
            "report_cpu_mb_s": rep["cpu_mb_s"],
            "report_ratio_vs_raw": round(rep["mb_s"] / raw, 5),
            "report_seconds": rep["seconds"],
            "report_file_bytes": rep["bytes"],
            "peak_rss_mb_report": rep["peak_rss_mb"],
            "report_runs": reports,
            "kernel_mb_s": kern["mb_s"],
            "kernel_cpu_mb_s": kern["cpu_mb_s"],
            "ingest_mb_s": hist["ingest"]["mb_s"],
            "ingest_cpu_mb_s": hist["ingest"]["cpu_mb_s"],
            "ingest_seconds": hist["ingest"]["seconds"],
            "peak_rss_mb_ingest": hist["ingest"]["peak_rss_mb"],
            "report_db_mb_s": hist["report_db"]["mb_s"],
            "report_db_seconds": hist["report_db"]["seconds"],
            "peak_rss_mb_report_db": hist["report_db"]["peak_rss_mb"],
            "history_days": hist["days"],
            "history_30d_report_s": hist["report_30d"]["seconds"],
            "history_30d_trend_s": hist["trend_30d"]["seconds"],
            "history_runs": hist,
            "runs": args.runs,
            "quick": args.quick,
            "all_runs": {m: [r["mb_s"] for r in runs[m]] for m in MODES},
            "cpu_mb_s": {m: med_cpu[m] for m in MODES},
            "cpu_ratio_vs_raw": {m: round(med_cpu[m] / med_cpu["raw"], 4) for m in MODES},
            "user_s": {m: med_user[m] for m in MODES},
            "sys_s": {m: med_sys[m] for m in MODES},
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "units": "MB = 10^6 bytes; peak RSS = VmHWM",
            "machine": machine(),
            "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
            "git_commit": commit,
            "command": invocation,
            "commands": commands,
            "elapsed_s": round(time.monotonic() - t_start, 1),
        }
        merge_into(args.out, OWN_KEYS, results)
        log(f"\nwrote {args.out} ({results['elapsed_s']} s)")
    finally:
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
