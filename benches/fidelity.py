"""Fidelity scoreboard: run every study in full and record how many published
figures the model reproduces, so fidelity is tracked like speed.

    .venv/bin/python benches/fidelity.py            # full studies (make bench), about 4 minutes here
    .venv/bin/python benches/fidelity.py --quick    # the short forms make test runs
    .venv/bin/python benches/fidelity.py --no-write # print only

It runs ``ztwin study run --all --json`` (``--quick`` adds ``--quick``), prints
the scoreboard, replaces the scoreboard section of BENCHMARKS.md (between the
``fidelity-scoreboard`` markers) with the table, the commit, the command and
the machine, and merges ``fidelity_scoreboard`` into bench-results.json.
A study that fails (exit status 1) is still recorded; a run that cannot
complete (exit status 2) stops with its message.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))
from results import merge_into  # noqa: E402

START = "<!-- fidelity-scoreboard:start -->"
END = "<!-- fidelity-scoreboard:end -->"
CATS = ["calibrated", "input", "structural", "predicted"]


def commit() -> str:
    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    c = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "crates", "python", "studies")
    return c + (" (with uncommitted changes to crates/, python/ or studies/)" if dirty else "")


def table(rows: list[dict[str, Any]]) -> list[str]:
    head = "| study | figures | checked | within | calibrated | input | structural | predicted | not modelled | floor | result |"
    out = [head, "|" + "---|" * 11]
    for r in rows:
        cells = []
        for c in CATS:
            t = r[c]
            cell = f"{t['within']}/{t['checked']}"
            if c == "predicted" and t["checked"]:
                cell += f" ({100 * t['within'] / t['checked']:.0f}%)"
            cells.append(cell)
        out.append(
            f"| {r['study']} | {r['figures']} | {r['checked']} | {r['within']} | " + " | ".join(cells)
            + f" | {r['not-modelled']['published']} | {r['floor']:.2f} | {'pass' if r['ok'] else 'FAIL'} |"
        )
    tot = {k: sum(r[k] for r in rows) for k in ("figures", "checked", "within")}
    pred = [sum(r["predicted"][k] for r in rows) for k in ("within", "checked")]
    out.append(f"| all | {tot['figures']} | {tot['checked']} | {tot['within']} | "
               + " | ".join(f"{sum(r[c]['within'] for r in rows)}/{sum(r[c]['checked'] for r in rows)}" for c in CATS[:3])
               + f" | {pred[0]}/{pred[1]} ({100 * pred[0] / max(1, pred[1]):.0f}%) | "
               + f"{sum(r['not-modelled']['published'] for r in rows)} | | |")
    return out


def section(rows: list[dict[str, Any]], meta: dict[str, Any], gaps: dict[str, list[str]]) -> str:
    lines = [
        START,
        "## Fidelity scoreboard",
        "",
        f"`{meta['command']}` at {meta['commit']}, {meta['date']}, {meta['wall_s']:.0f} s wall on "
        f"{meta['cpus']} cores ({meta['cpu_model']}). Written by `benches/fidelity.py` (`make bench`);",
        "every published figure of the case studies is a check (docs/fidelity.md). Columns: published",
        "figures, checked (not-modelled excluded), within tolerance; by category within/checked.",
        "",
        *table(rows),
        "",
        "Known gaps (required checks the model cannot meet yet, see docs/fidelity.md): "
        + "; ".join(f"{s}: {', '.join(g) or 'none'}" for s, g in gaps.items()) + ".",
        END,
    ]
    return "\n".join(lines)


def write_benchmarks(text: str) -> None:
    path = ROOT / "BENCHMARKS.md"
    doc = path.read_text()
    if START in doc and END in doc:
        a, rest = doc.split(START, 1)
        _, b = rest.split(END, 1)
        doc = a + text + b
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(doc)
    tmp.replace(path)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the studies' short forms")
    ap.add_argument("--no-write", action="store_true", help="print the scoreboard, write nothing")
    ap.add_argument("--out", type=Path, default=ROOT / "bench-results.json", help="results file to merge into")
    a = ap.parse_args(argv)
    cmd = [sys.executable, "-m", "ztwin", "study", "run", "--all", "--json"] + (["--quick"] if a.quick else [])
    shown = "ztwin study run --all" + (" --quick" if a.quick else "")
    print(f"fidelity: {shown}", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"fidelity.py: {shown} failed (exit {p.returncode}): {p.stderr.strip()[-500:]}")
    try:
        data = json.loads(p.stdout)
        rows = data["scoreboard"]
    except (ValueError, KeyError) as e:
        sys.exit(f"fidelity.py: {shown} printed no scoreboard ({e})")
    meta = {
        "command": shown, "commit": commit(), "wall_s": wall, "cpus": os.cpu_count(), "cpu_model": cpu_model(),
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).strftime("%Y-%m-%d %H:%M UTC"),
    }  # fmt: skip
    gaps = {r["study"]: r["gaps"] for r in rows}
    text = section(rows, meta, gaps)
    print("\n".join(table(rows)))
    if not a.no_write:
        write_benchmarks(text)
        merge_into(a.out, ["fidelity_scoreboard"], {"fidelity_scoreboard": {**meta, "quick": a.quick, "studies": rows}})
        print(f"fidelity: BENCHMARKS.md scoreboard and {a.out.name} updated", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
