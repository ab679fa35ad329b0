#!/usr/bin/env python3
"""Twin benchmarks: ztwin against a SimPy peer on study S1, raw reference
throughput, the S2 day, and a large LPAR growing in guests, storage and time.

    .venv/bin/python benches/twin.py            # full run (make bench), ~7 min
    .venv/bin/python benches/twin.py --quick    # reduced run (make bench-quick), < 1 min

Needs the ztwin extension built into the virtual environment (`make build`) and
simpy (requirements-dev.txt). Every simulation runs in its own process (one
core each, one at a time), so peak memory is per run; the exact commands are
printed at the end. Results are merged into bench-results.json at the
repository root (read, update the twin keys, write), next to the decode keys of
benches/run.py.

Sections
  S1 vs peer   The S1 read phase (benches/scenarios/s1-peer.toml, window 5-60 s)
               against benches/peer_simpy/s1_peer.py for the same 55 simulated
               seconds: wall time, page references and events per wall second,
               and the outputs (paging SSCH/s, volume busy sum, page-wait share,
               pages per I/O) compared within statistical noise; then 4 and 30
               guests (the scaling curve), interval by interval.
  Raw speed    The whole S1 study scenario, and a CPU-bound guest touching a
               resident 3 GB area (random and serial) against the peer's
               resident mode.
  S2 day       The 14-hour S2 "before" day (extrapolated from 30 minutes with
               --quick).
  Large LPAR   500 guests, 256 GB, 1 hour (--quick: 2 minutes); wall time for
               1x/2x/4x guests, central storage and simulated time.
  Linux LPAR   100 Linux guests of 1 GB swapping to VDISK, appldata on
               (benches/scenarios/linux-lpar-100.toml), 1 hour (--quick: 2
               minutes, extrapolated to the hour), next to the S2 day.

Internal use: `benches/twin.py one SCENARIO -o OUT [--seed N] [--duration S]
[--set KEY=VALUE]...` runs one scenario and prints one JSON line (the run's
figures, peak RSS and the wall time at each sample interval).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
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
SCEN = "benches/scenarios"
PEER = "benches/peer_simpy/s1_peer.py"
S1_STUDY = "studies/paging-single-thread.toml"
S2_REAL = "studies/undersized-lpar-before.toml"
S2_STANDIN = f"{SCEN}/s2-like.toml"

# S1 read phase in benches/scenarios/s1-peer.toml and the peer's matching span.
S1_READ = 5.0
S1_WINDOW = 55.0
S1_INTERVAL = 5.0
IO_US = 15.0  # cp_costs.io_us (the default, as in s1-peer.toml)


def log(msg: str = "") -> None:
    print(msg, flush=True)


def rel(p: str | Path) -> str:
    s = str(p)
    r = str(ROOT) + os.sep
    return s[len(r):] if s.startswith(r) else s


def fmt_cmd(cmd: list[str]) -> str:
    return " ".join(shlex.quote(rel(c)) for c in cmd)


# --------------------------------------------------------------------- one run


def run_one(argv: list[str]) -> int:
    """`twin.py one ...`: run one scenario in this process, print one JSON line."""
    from ztwin.twin import Scenario, ScenarioError, SimulationError

    ap = argparse.ArgumentParser(prog="twin.py one")
    ap.add_argument("scenario")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--duration", type=float, help="simulated seconds")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a scenario value (VALUE parsed as JSON when it can be)")
    a = ap.parse_args(argv)
    try:
        sc = Scenario.load(a.scenario)
        for kv in a.set:
            k, _, v = kv.partition("=")
            try:
                val: Any = json.loads(v)
            except ValueError:
                val = v
            sc.set(k, val)
    except (OSError, ScenarioError) as e:
        print(f"twin.py one: {e}", file=sys.stderr)
        return 2
    marks: dict[str, float] = {}
    cpu_marks: dict[str, float] = {}
    t0 = time.perf_counter()
    c0 = time.process_time()

    def progress(sim_s: float, _end: float) -> bool:
        marks[f"{sim_s:g}"] = time.perf_counter() - t0
        cpu_marks[f"{sim_s:g}"] = time.process_time() - c0
        return True

    try:
        r = sc.run(a.out, seed=a.seed, duration=a.duration, progress=progress)
    except (OSError, ScenarioError, SimulationError) as e:
        print(f"twin.py one: {e}", file=sys.stderr)
        return 2
    cpu_s = time.process_time() - c0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    d = {k: (str(v) if isinstance(v, Path) else v) for k, v in r.__dict__.items()}
    d.update(cpu_s=cpu_s, peak_rss_mb=round(rss_mb, 1), marks=marks, cpu_marks=cpu_marks)
    print(json.dumps(d))
    return 0


# --------------------------------------------------------------------- harness


class Harness:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.commands: list[str] = []
        self.seen: set[str] = set()

    def _cmd(self, cmd: list[str]) -> None:
        s = fmt_cmd(cmd)
        if s not in self.seen:
            self.seen.add(s)
            self.commands.append(s)

    def twin(self, scenario: str, tag: str, seed: int | None = None, duration: float | None = None,
             sets: list[str] | None = None, allow_fail: bool = False) -> dict[str, Any]:
        out = self.work / f"{tag}.monwrite"
        cmd = [sys.executable, "benches/twin.py", "one", scenario, "-o", str(out)]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        if duration is not None:
            cmd += ["--duration", f"{duration:g}"]
        for s in sets or []:
            cmd += ["--set", s]
        self._cmd(cmd)
        res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if res.returncode != 0:
            if allow_fail:
                lines = res.stderr.strip().splitlines()
                return {"error": lines[-1] if lines else f"exit status {res.returncode}", "monwrite": str(out)}
            raise SystemExit(f"twin.py: {fmt_cmd(cmd)} failed ({res.returncode}):\n{res.stderr[-3000:]}")
        d: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
        d["monwrite"] = str(out)
        return d

    def peer(self, args: list[str]) -> dict[str, Any]:
        cmd = [sys.executable, PEER, *args, "--json"]
        self._cmd(cmd)
        res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if res.returncode != 0:
            raise SystemExit(f"twin.py: {fmt_cmd(cmd)} failed ({res.returncode}):\n{res.stderr[-3000:]}")
        d: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
        return d

    def drop(self, d: dict[str, Any]) -> None:
        """Delete a run's MONWRITE file once it has been measured."""
        Path(d["monwrite"]).unlink(missing_ok=True)


def window_wall(r: dict[str, Any], t0: float, t1: float, key: str = "marks") -> float:
    m: dict[str, float] = r[key]
    return m[f"{t1:g}"] - m[f"{t0:g}"]


def mean_se(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    se = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return m, se


def compare_means(twin: list[float], peer: list[float]) -> dict[str, Any]:
    """Window means of per-interval values; agree when within 3 standard errors
    of the difference."""
    mt, st = mean_se(twin)
    mp, sp = mean_se(peer)
    se = math.hypot(st, sp)
    diff = mt - mp
    z = diff / se if se > 0 else (0.0 if diff == 0 else math.inf)
    return {
        "twin": round(mt, 3), "peer": round(mp, 3), "diff": round(diff, 3),
        "rel_diff_pct": round(100 * diff / mp, 3) if mp else None,
        "se_diff": round(se, 3), "z": round(z, 2), "tolerance": "|z| <= 3", "agree": abs(z) <= 3,
        "n_twin": len(twin), "n_peer": len(peer),
    }


def compare_props(kt: int, nt: int, kp: int, np_: int) -> dict[str, Any]:
    """Page-wait shares (binomial counts of HF samples): agree within 3 standard
    errors of the difference (pooled), plus half a sample of each for the
    granularity."""
    pt, pp = kt / nt, kp / np_
    p = (kt + kp) / (nt + np_)
    se = math.sqrt(max(p * (1 - p), 1e-12) * (1 / nt + 1 / np_))
    tol = 3 * se + 0.5 * (1 / nt + 1 / np_)
    return {
        "twin": round(100 * pt, 2), "peer": round(100 * pp, 2), "diff": round(100 * (pt - pp), 2),
        "tolerance_points": round(100 * tol, 2), "agree": abs(pt - pp) <= tol,
        "samples_twin": f"{kt}/{nt}", "samples_peer": f"{kp}/{np_}",
    }


# ----------------------------------------------------------- S1 measurements


def s1_twin_measure(path: str, users: list[str], t0: float, t1: float) -> dict[str, Any]:
    from ztwin.studies import measures as m

    d = m.Data.load(path)
    ivs = [(t, t + S1_INTERVAL) for t in frange(t0, t1, S1_INTERVAL)]
    ui = d.frames["MRUSEINT"]
    ui = ui[ui["USEINT_VMDUSER"].isin(users)]
    hf = m.deltas(ui, ["USEINT_VMDUSER", "USEINT_VMDCPUAD"], ["USEINT_HFWTPAG", "USEINT_HFQUCT"], d.at(t0), d.at(t1))
    st = d.frames["MRSTOASP"]
    wr = m.deltas(st, ["STOASP_RDEVDEV"], ["STOASP_EXPCTSWR"], d.at(t0), d.at(t1))
    dasd, xs = m.user_page_read_rate(d, users, t0, t1)
    ssch = m.paging_ssch_rate(d, t0, t1)
    return {
        "ssch_per_s": ssch,
        "write_ssch_per_s": float((wr["STOASP_EXPCTSWR"] / wr["T"]).sum()),
        "busy_sum_pct": m.paging_busy_sum(d, t0, t1),
        "service_ms": m.paging_service_ms(d, t0, t1),
        "page_wait_pct": m.user_state_pct(d, users, "USEINT_HFWTPAG", t0, t1, of="USEINT_HFQUCT"),
        "hf_page_wait": int(hf["USEINT_HFWTPAG"].sum()),
        "hf_samples": int(hf["USEINT_HFQUCT"].sum()),
        "pages_read_per_s": dasd,
        "xstor_pages_per_s": xs,
        "pages_per_io": dasd / ssch if ssch else 0.0,
        "iv_ssch": [m.paging_ssch_rate(d, a, b) for a, b in ivs],
        "iv_busy": [m.paging_busy_sum(d, a, b) for a, b in ivs],
    }


def frange(a: float, b: float, step: float) -> list[float]:
    n = int(round((b - a) / step))
    return [a + i * step for i in range(n)]


def peer_iv(r: dict[str, Any]) -> tuple[list[float], list[float]]:
    ivs = r["intervals"]
    return ([i["ssch"] / (i["t1"] - i["t0"]) for i in ivs],
            [100 * i["busy_cd_s"] / (i["t1"] - i["t0"]) for i in ivs])


def s1_variant(k: int) -> tuple[list[str], list[str]]:
    """Scenario overrides for k thrashers in s1-peer.toml, and their user IDs.
    With more than 4 the pages read in the window (3 GB for 30) need more than
    2 GB of central storage to stay resident, as they do in the peer."""
    if k == 1:
        return [], ["LIN102"]
    sets = ["guest[0].userid=LIN", f"guest[0].count={k}", "timeline[0].guest=LIN*", "timeline[1].guest=LIN*"]
    if k > 4:
        sets.append("system.central_storage=4G")
    w = len(str(k))
    return sets, [f"LIN{i:0{w}d}" for i in range(1, k + 1)]


def bench_s1(h: Harness, quick: bool) -> dict[str, Any]:
    n_twin = 3 if quick else 5
    n_peer = 3 if quick else 5
    t0, t1 = S1_READ, S1_READ + S1_WINDOW
    scen = f"{SCEN}/s1-peer.toml"
    log(f"S1 read phase: twin {scen} window {t0:g}-{t1:g} s, {n_twin} seeds; peer {PEER}, {n_peer} seeds")

    twin_runs = []
    for s in range(1, n_twin + 1):
        r = h.twin(scen, f"s1-k1-s{s}", seed=s)
        meas = s1_twin_measure(r["monwrite"], ["LIN102"], t0, t1)
        h.drop(r)
        twin_runs.append((r, meas))
        log(f"  twin seed {s}: window wall {1e3 * window_wall(r, t0, t1):.2f} ms, SSCH/s {meas['ssch_per_s']:.2f}, "
            f"busy {meas['busy_sum_pct']:.2f}%, page wait {meas['hf_page_wait']}/{meas['hf_samples']}")
    # References and events inside the window: the run to the window's start is a
    # prefix of the full run (same seed, deterministic).
    pre = h.twin(scen, "s1-k1-pre", seed=1, duration=t0)
    h.drop(pre)
    full1 = twin_runs[0][0]
    win_refs = full1["page_refs"] - pre["page_refs"]
    win_events = full1["events"] - pre["events"]
    twin_walls = [window_wall(r, t0, t1) for r, _ in twin_runs]
    # Times are the best of the seeds on each side: the run least disturbed by
    # other processes (the spans are milliseconds on the twin's side).
    twin_wall = min(twin_walls)
    twin_cpu = min(window_wall(r, t0, t1, "cpu_marks") for r, _ in twin_runs)

    # The peer charges CP time by the cp_costs' documented meanings; the second
    # set adds io_us / 2 at each page-read interrupt, as ztwin-engine does (a
    # diagnostic: if only it agrees, that charge is the whole difference).
    peers: dict[str, list[dict[str, Any]]] = {"documented": [], "interrupt": []}
    for acc, extra in (("documented", []), ("interrupt", ["--interrupt-us", f"{IO_US / 2:g}"])):
        for s in range(1, n_peer + 1):
            r = h.peer(["--seed", str(s), "--duration", f"{S1_WINDOW:g}", *extra])
            peers[acc].append(r)
            log(f"  peer{' +io/2 per interrupt' if extra else ''} seed {s}: wall {r['wall_s']:.3f} s, "
                f"SSCH/s {r['ssch_per_s']:.2f}, busy {r['busy_sum_pct']:.2f}%, "
                f"page wait {r['hf_page_wait']}/{r['hf_samples']}")
    batched = [h.peer(["--seed", str(s), "--duration", f"{S1_WINDOW:g}", "--batch"]) for s in range(1, (2 if quick else 3) + 1)]
    log(f"  peer, batched touches: wall {min(b['wall_s'] for b in batched):.3f} s")

    pd = peers["documented"]
    peer_wall = min(r["wall_s"] for r in pd)
    peer_cpu = min(r["cpu_s"] for r in pd)
    peer_refs = pd[0]["page_refs"]
    peer_events = pd[0]["events"]
    batched_wall = min(b["wall_s"] for b in batched)

    def agreement(prs: list[dict[str, Any]]) -> dict[str, Any]:
        t_ssch = [x for _, m in twin_runs for x in m["iv_ssch"]]
        t_busy = [x for _, m in twin_runs for x in m["iv_busy"]]
        p_ssch = [x for r in prs for x in peer_iv(r)[0]]
        p_busy = [x for r in prs for x in peer_iv(r)[1]]
        kt = sum(m["hf_page_wait"] for _, m in twin_runs)
        nt = sum(m["hf_samples"] for _, m in twin_runs)
        kp = sum(r["hf_page_wait"] for r in prs)
        np_ = sum(r["hf_samples"] for r in prs)
        ppio_t = statistics.fmean(m["pages_per_io"] for _, m in twin_runs)
        ppio_p = statistics.fmean(r["pages_per_io"] for r in prs)
        out: dict[str, Any] = {
            "paging_ssch_per_s": compare_means(t_ssch, p_ssch),
            "busy_sum_pct": compare_means(t_busy, p_busy),
            "page_wait_pct": compare_props(kt, nt, kp, np_),
            "pages_per_io": {"twin": round(ppio_t, 3), "peer": round(ppio_p, 3), "tolerance": "0.02",
                             "agree": abs(ppio_t - ppio_p) <= 0.02},
        }
        out["all_agree"] = all(v["agree"] for v in out.values())
        return out

    agree_doc = agreement(pd)
    agree_twin = agreement(peers["interrupt"])
    twin_refs_per_s = win_refs / twin_wall
    simpy_refs_per_s = peer_refs / peer_wall
    res = {
        "scenario": scen,
        "window_s": [t0, t1],
        "timing": "best of the seeds on each side",
        "twin_window_wall_s": round(twin_wall, 5),
        "twin_window_walls_s": [round(w, 5) for w in twin_walls],
        "twin_window_cpu_s": round(twin_cpu, 5),
        "twin_whole_run_wall_s": round(statistics.median(r["wall_s"] for r, _ in twin_runs), 4),
        "twin_window_refs": win_refs,
        "twin_window_events": win_events,
        "twin_refs_per_s": round(twin_refs_per_s),
        "twin_events_per_s": round(win_events / twin_wall),
        "twin_sim_per_wall": round(S1_WINDOW / twin_wall, 1),
        "peer_wall_s": round(peer_wall, 4),
        "peer_walls_s": [round(r["wall_s"], 4) for r in pd],
        "peer_cpu_s": round(peer_cpu, 4),
        "cpu_ratio_vs_simpy": round(peer_cpu / twin_cpu, 1) if twin_cpu > 0 else None,
        "peer_refs": peer_refs,
        "peer_events": peer_events,
        "simpy_refs_per_s": round(simpy_refs_per_s),
        "simpy_events_per_s": round(peer_events / peer_wall),
        "peer_sim_per_wall": round(S1_WINDOW / peer_wall, 1),
        "ratio_vs_simpy": round(twin_refs_per_s / simpy_refs_per_s, 1),
        "wall_ratio_vs_simpy": round(peer_wall / twin_wall, 1),
        "peer_batched_wall_s": round(batched_wall, 4),
        "simpy_batched_refs_per_s": round(batched[0]["page_refs"] / batched_wall),
        "ratio_vs_simpy_batched": round(twin_refs_per_s / (batched[0]["page_refs"] / batched_wall), 1),
        "twin": {
            "ssch_per_s": round(statistics.fmean(m["ssch_per_s"] for _, m in twin_runs), 2),
            "write_ssch_per_s": round(statistics.fmean(m["write_ssch_per_s"] for _, m in twin_runs), 2),
            "busy_sum_pct": round(statistics.fmean(m["busy_sum_pct"] for _, m in twin_runs), 2),
            "service_ms": round(statistics.fmean(m["service_ms"] for _, m in twin_runs), 4),
            "page_wait_pct": round(statistics.fmean(m["page_wait_pct"] for _, m in twin_runs), 2),
            "pages_read_per_s": round(statistics.fmean(m["pages_read_per_s"] for _, m in twin_runs), 1),
            "xstor_pages_per_s": round(statistics.fmean(m["xstor_pages_per_s"] for _, m in twin_runs), 1),
        },
        "peer": {
            "ssch_per_s": round(statistics.fmean(r["ssch_per_s"] for r in pd), 2),
            "busy_sum_pct": round(statistics.fmean(r["busy_sum_pct"] for r in pd), 2),
            "busy_held_sum_pct": round(statistics.fmean(r["busy_held_sum_pct"] for r in pd), 2),
            "page_wait_pct": round(statistics.fmean(r["page_wait_pct"] for r in pd), 2),
            "pages_read_per_s": round(statistics.fmean(r["pages_read_per_s"] for r in pd), 1),
        },
        "agreement": agree_doc,
        "agreement_peer_plus_io_half_per_interrupt": agree_twin,
    }
    return res


def bench_scaling(h: Harness, quick: bool, k1: dict[str, Any]) -> dict[str, Any]:
    """k serial thrashers. The twin places paged-out areas round-robin, one
    guest after another, as the peer's default placement does: the rates must
    agree within noise. The peer with random placement shows how much the
    placement matters."""
    t0, t1 = S1_READ, S1_READ + S1_WINDOW
    log("S1 scaling: k serial thrashers, twin (s1-peer.toml, guest[0].count=k) vs peer "
        "(round-robin placement as the twin's; random for comparison), one seed each")
    rows: dict[str, Any] = {"1": {
        "twin_ssch_per_s": k1["twin"]["ssch_per_s"], "peer_ssch_per_s": k1["peer"]["ssch_per_s"],
        "agreement": k1["agreement"]["paging_ssch_per_s"],
        "agreement_peer_plus_io_half_per_interrupt": k1["agreement_peer_plus_io_half_per_interrupt"]["paging_ssch_per_s"],
        "twin_window_wall_s": k1["twin_window_wall_s"], "peer_wall_s": k1["peer_wall_s"],
    }}
    rows["1"]["peer_random_ssch_per_s"] = round(h.peer(["--guests", "1", "--placement", "random"])["ssch_per_s"], 2)
    for k in (4, 30):
        sets, users = s1_variant(k)
        r = h.twin(f"{SCEN}/s1-peer.toml", f"s1-k{k}", seed=1, sets=sets)
        meas = s1_twin_measure(r["monwrite"], users, t0, t1)
        h.drop(r)
        prr = h.peer(["--guests", str(k)])
        prand = h.peer(["--guests", str(k), "--placement", "random"])
        pint = h.peer(["--guests", str(k), "--interrupt-us", f"{IO_US / 2:g}"])
        agree = compare_means(meas["iv_ssch"], peer_iv(prr)[0])
        agree_int = compare_means(meas["iv_ssch"], peer_iv(pint)[0])
        pgw = compare_props(meas["hf_page_wait"], meas["hf_samples"], prr["hf_page_wait"], prr["hf_samples"])
        tw = window_wall(r, t0, t1)
        rows[str(k)] = {
            "twin_ssch_per_s": round(meas["ssch_per_s"], 2),
            "twin_write_ssch_per_s": round(meas["write_ssch_per_s"], 2),
            "twin_pages_per_io": round(meas["pages_per_io"], 3),
            "twin_busy_sum_pct": round(meas["busy_sum_pct"], 2),
            "peer_ssch_per_s": round(prr["ssch_per_s"], 2),
            "peer_busy_sum_pct": round(prr["busy_sum_pct"], 2),
            "peer_random_ssch_per_s": round(prand["ssch_per_s"], 2),
            "agreement": agree,
            "agreement_peer_plus_io_half_per_interrupt": agree_int,
            "page_wait": pgw,
            "twin_window_wall_s": round(tw, 5),
            "twin_whole_run_wall_s": round(r["wall_s"], 4),
            "peer_wall_s": round(prr["wall_s"], 4),
            "wall_ratio_vs_simpy": round(prr["wall_s"] / tw, 1),
        }
        log(f"  k={k:<2}: twin {meas['ssch_per_s']:.1f} SSCH/s (writes {meas['write_ssch_per_s']:.1f}), peer "
            f"{prr['ssch_per_s']:.1f} (z={agree['z']:+.1f}; with +io/2 per interrupt {pint['ssch_per_s']:.1f}, "
            f"z={agree_int['z']:+.1f}), random placement {prand['ssch_per_s']:.1f}; "
            f"wall twin {1e3 * tw:.1f} ms, peer {prr['wall_s']:.2f} s")
    r1t, r1p = rows["1"]["twin_ssch_per_s"], rows["1"]["peer_ssch_per_s"]
    for row in rows.values():
        row["twin_rate_vs_one"] = round(row["twin_ssch_per_s"] / r1t, 2)
        row["peer_rate_vs_one"] = round(row["peer_ssch_per_s"] / r1p, 2)
        row["peer_random_rate_vs_one"] = round(row["peer_random_ssch_per_s"] / rows["1"]["peer_random_ssch_per_s"], 2)
    return {
        "rows": rows,
        "all_agree": all(r["agreement"]["agree"] for r in rows.values()),
        "all_agree_peer_plus_io_half_per_interrupt": all(
            r["agreement_peer_plus_io_half_per_interrupt"]["agree"] for r in rows.values()),
        "tolerance": "per-interval paging SSCH/s, |z| <= 3 (one seed each side, 11 intervals)",
        "published_guests_supported": round(1100 / 115, 1),
    }


# ----------------------------------------------------------- raw speed


def bench_raw(h: Harness, quick: bool) -> dict[str, Any]:
    n = 1 if quick else 3
    log(f"Raw speed: {S1_STUDY}, {SCEN}/resident-touch.toml (random, serial) and the peer's resident mode")
    s1 = [h.twin(S1_STUDY, f"s1-study-{i}") for i in range(n)]
    for r in s1:
        h.drop(r)
    s1m = sorted(s1, key=lambda r: r["wall_s"])[len(s1) // 2]
    dur = 20.0 if quick else 60.0
    res_r = [h.twin(f"{SCEN}/resident-touch.toml", f"resident-{i}", duration=dur) for i in range(n)]
    res_s = [h.twin(f"{SCEN}/resident-touch.toml", f"resident-serial-{i}", duration=dur,
                    sets=["guest[0].workload.pattern=serial"]) for i in range(n)]
    for r in res_r + res_s:
        h.drop(r)
    rr = sorted(res_r, key=lambda r: r["refs_per_s"])[len(res_r) // 2]
    rs = sorted(res_s, key=lambda r: r["refs_per_s"])[len(res_s) // 2]
    pdur = 0.3 if quick else 1.0
    p = h.peer(["--resident", "--area-mb", "3072", "--duration", f"{pdur:g}"])
    pb = h.peer(["--resident", "--area-mb", "3072", "--duration", f"{5 * pdur:g}", "--batch"])
    out = {
        "s1_study": {"scenario": S1_STUDY, "wall_s": round(s1m["wall_s"], 3), "sim_s": s1m["sim_s"],
                     "page_refs": s1m["page_refs"], "refs_per_s": round(s1m["refs_per_s"]),
                     "events_per_s": round(s1m["events_per_s"]), "sim_per_wall": round(s1m["sim_per_wall"], 1)},
        "resident_random": {"wall_s": round(rr["wall_s"], 3), "sim_s": rr["sim_s"], "page_refs": rr["page_refs"],
                            "refs_per_s": round(rr["refs_per_s"]), "peak_rss_mb": rr["peak_rss_mb"]},
        "resident_serial": {"wall_s": round(rs["wall_s"], 3), "sim_s": rs["sim_s"], "page_refs": rs["page_refs"],
                            "refs_per_s": round(rs["refs_per_s"]), "peak_rss_mb": rs["peak_rss_mb"]},
        "peer_resident": {"wall_s": round(p["wall_s"], 3), "sim_s": p["sim_s"], "page_refs": p["page_refs"],
                          "refs_per_s": round(p["refs_per_s"])},
        "peer_resident_batched": {"wall_s": round(pb["wall_s"], 3), "sim_s": pb["sim_s"],
                                  "page_refs": pb["page_refs"], "refs_per_s": round(pb["refs_per_s"])},
    }
    out["ratio_vs_simpy_resident"] = round(rr["refs_per_s"] / p["refs_per_s"], 1)
    out["ratio_vs_simpy_resident_batched"] = round(rr["refs_per_s"] / pb["refs_per_s"], 1)
    log(f"  S1 study: {s1m['refs_per_s'] / 1e6:.1f}M refs/s; resident random {rr['refs_per_s'] / 1e6:.1f}M/s, "
        f"serial {rs['refs_per_s'] / 1e6:.1f}M/s; peer {p['refs_per_s'] / 1e6:.2f}M/s "
        f"(batched {pb['refs_per_s'] / 1e6:.2f}M/s)")
    return out


# ----------------------------------------------------------- S2 day


def bench_s2(h: Harness, quick: bool) -> dict[str, Any]:
    real = (ROOT / S2_REAL).exists()
    scen = S2_REAL if real else S2_STANDIN
    day = 14 * 3600.0
    # The study's scenario runs 16 h (two warm-up hours before the published day);
    # the benchmark times the first 14.
    dur = 1800.0 if quick else day
    log(f"S2 day: {scen}{'' if real else ' (stand-in: ' + S2_REAL + ' not found)'}"
        f"{', 30 simulated minutes, extrapolated to 14 h' if quick else ', 14 simulated hours'}")
    r = h.twin(scen, "s2-day", duration=dur)
    h.drop(r)
    marks = {float(k): v for k, v in r["marks"].items()}
    # Extrapolate from the marginal cost between the first sample and 30 minutes.
    cmarks = {float(k): v for k, v in r["cpu_marks"].items()}
    a, b = min(marks), 1800.0
    extrap = extrap_cpu = None
    if b in marks and b > a:
        extrap = marks[b] + (marks[b] - marks[a]) / (b - a) * (day - b)
        extrap_cpu = cmarks[b] + (cmarks[b] - cmarks[a]) / (b - a) * (day - b)
    wall = extrap if quick else r["wall_s"]
    cpu = extrap_cpu if quick else r["cpu_s"]
    out = {
        "scenario": scen, "stand_in": not real, "sim_s": r["sim_s"], "run_wall_s": round(r["wall_s"], 2),
        "day_wall_s": round(wall, 1) if wall is not None else None, "extrapolated": quick,
        "day_cpu_s": round(cpu, 1) if cpu is not None else None,
        "note": ("extrapolated linearly from the cost between the first sample (10 min) and 30 min; the cost "
                 "per simulated minute changes over the day, so this is rough (within about a third of the "
                 "measured day so far)" if quick else "measured: one run of the whole day"),
        "extrapolated_from_30min_s": round(extrap, 1) if extrap is not None else None,
        "refs_per_s": round(r["refs_per_s"]), "events_per_s": round(r["events_per_s"]),
        "sim_per_wall": round(r["sim_per_wall"], 1), "peak_rss_mb": r["peak_rss_mb"],
        "marks": {f"{k:g}": round(v, 3) for k, v in sorted(marks.items())},
    }
    log(f"  {'extrapolated' if quick else 'measured'} day: {wall:.1f} s wall"
        + ("" if quick or extrap is None else f" (the 30-minute extrapolation would have said {extrap:.1f} s)"))
    return out


# ----------------------------------------------------------- Linux LPAR

LINUX_LPAR = f"{SCEN}/linux-lpar-100.toml"


def bench_linux(h: Harness, quick: bool) -> dict[str, Any]:
    """Issue 14's benchmark: a 100-guest Linux LPAR hour in wall time (each
    guest's memory through Linux's model, its swap on a VDISK, APPLDATA
    written), reported next to the S2 day. --quick runs 2 minutes and
    extrapolates linearly from the first sample to the end (rough)."""
    hour = 3600.0
    dur = 120.0 if quick else hour
    log(f"Linux LPAR: {LINUX_LPAR}, {dur:g} simulated s")
    r = h.twin(LINUX_LPAR, "linux-lpar", duration=dur)
    h.drop(r)
    marks = {float(k): v for k, v in r["marks"].items()}
    a, b = min(marks), max(marks)
    cmarks = {float(k): v for k, v in r["cpu_marks"].items()}
    extrap = extrap_cpu = None
    if b > a:
        extrap = marks[b] + (marks[b] - marks[a]) / (b - a) * (hour - b)
        extrap_cpu = cmarks[b] + (cmarks[b] - cmarks[a]) / (b - a) * (hour - b)
    wall = extrap if quick else r["wall_s"]
    cpu = extrap_cpu if quick else r["cpu_s"]
    out = {
        "scenario": LINUX_LPAR, "sim_s": r["sim_s"], "run_wall_s": round(r["wall_s"], 2),
        "cpu_s": round(r["cpu_s"], 2), "hour_wall_s": round(wall, 1) if wall is not None else None,
        "hour_cpu_s": round(cpu, 1) if cpu is not None else None,
        "extrapolated": quick,
        "refs_per_s": round(r["refs_per_s"]), "events_per_s": round(r["events_per_s"]),
        "peak_rss_mb": r["peak_rss_mb"],
    }
    log(f"  {out['run_wall_s']:.1f} s wall, {out['cpu_s']:.1f} s CPU for {dur:g} s simulated; hour "
        f"{'extrapolated' if quick else 'measured'}: {out['hour_wall_s']} s wall, {out['hour_cpu_s']} s CPU; "
        f"peak RSS {out['peak_rss_mb']} MB")
    return out


# ----------------------------------------------------------- I/O heavy

IO_HEAVY = f"{SCEN}/io-heavy.toml"


def bench_io(h: Harness, quick: bool) -> dict[str, Any]:
    """1,000 volumes on the path model, 200 guests doing minidisk I/O through
    the minidisk cache: wall time for the run and per simulated minute."""
    dur = 120.0 if quick else 600.0
    log(f"I/O heavy: {IO_HEAVY}, {dur:g} simulated s")
    r = h.twin(IO_HEAVY, "io-heavy", duration=dur)
    h.drop(r)
    out = {
        "scenario": IO_HEAVY, "sim_s": r["sim_s"], "wall_s": round(r["wall_s"], 2), "cpu_s": round(r["cpu_s"], 2),
        "wall_per_sim_min_s": round(r["wall_s"] / (r["sim_s"] / 60), 3) if r["sim_s"] else None,
        "events_per_s": round(r["events_per_s"]), "peak_rss_mb": r["peak_rss_mb"],
    }
    log(f"  {out['wall_s']:.1f} s wall, {out['cpu_s']:.1f} s CPU for {dur:g} s simulated; "
        f"{out['events_per_s']:,} events/s; peak RSS {out['peak_rss_mb']} MB")
    return out


# ----------------------------------------------------------- large LPAR


LARGE = f"{SCEN}/large-lpar.toml"


def large_sets(guests_x: int = 1, storage_x: int = 1) -> list[str]:
    sets = []
    if guests_x > 1:
        # k times the guests, each with 1/k of the area and virtual storage and
        # k times the processors: the same LPAR load split k ways finer.
        sets += [f"guest[0].count={500 * guests_x}", f"system.processors={16 * guests_x}",
                 f"guest[0].virtual_storage={1024 // guests_x}M", f"guest[0].workload.area={600 // guests_x}M"]
    if storage_x > 1:
        sets += [f"system.central_storage={256 * storage_x}G"]
    return sets


def bench_large(h: Harness, quick: bool) -> dict[str, Any]:
    base_T = 60.0 if quick else 300.0  # growth series: simulated seconds per run
    long_T = 120.0 if quick else 3600.0
    xs = (1, 2) if quick else (1, 2, 4)
    log(f"Large LPAR: {LARGE}, {long_T / 60:g} simulated minutes; growth runs of {base_T / 60:g} minutes")
    base = h.twin(LARGE, "large-1x", duration=long_T)
    from ztwin.studies import measures as m

    d = m.Data.load(base["monwrite"])
    half = (long_T / 2, long_T)
    paging = {"window_s": list(half), "paging_ssch_per_s": round(m.paging_ssch_rate(d, *half), 1),
              "pages_per_s": round(m.page_rate(d, *half), 1), "cpu_busy_pct": round(m.cpu_busy_pct(d, *half), 1),
              "max_avg_paging_queue": round(m.paging_queue(d, *half), 1)}
    del d
    h.drop(base)
    marks = {float(k): v for k, v in base["marks"].items()}
    cmarks = {float(k): v for k, v in base["cpu_marks"].items()}
    log(f"  1x: {base['wall_s']:.1f} s wall for {long_T:g} s, {base['refs_per_s'] / 1e6:.1f}M refs/s, "
        f"{base['events_per_s'] / 1e6:.2f}M events/s, peak RSS {base['peak_rss_mb']:.0f} MB; second half: "
        f"{paging['paging_ssch_per_s']:.0f} paging SSCH/s, {paging['pages_per_s']:.0f} pages/s")
    time_series = {}
    for x in xs:
        t = long_T * x / xs[-1]
        time_series[f"{x}x"] = {"sim_s": t, "wall_s": round(marks[t], 2), "cpu_s": round(cmarks[t], 2)}
    def point(r: dict[str, Any], **kw: Any) -> dict[str, Any]:
        if "error" in r:
            return {**kw, "error": r["error"]}
        return {**kw, "wall_s": round(r["wall_s"], 2), "cpu_s": round(r["cpu_s"], 2),
                "peak_rss_mb": r["peak_rss_mb"], "page_refs": r["page_refs"], "events": r["events"]}

    g1 = h.twin(LARGE, "large-g1", duration=base_T)
    h.drop(g1)
    guests = {"1x": point(g1, guests=500)}
    storage = {"1x": point(g1, central_gb=256)}
    for x in xs[1:]:
        g = h.twin(LARGE, f"large-g{x}", duration=base_T, sets=large_sets(guests_x=x))
        h.drop(g)
        guests[f"{x}x"] = point(g, guests=500 * x)
        st = h.twin(LARGE, f"large-s{x}", duration=base_T, sets=large_sets(storage_x=x), allow_fail=True)
        h.drop(st)
        storage[f"{x}x"] = point(st, central_gb=256 * x)
        sdesc = st["error"] if "error" in st else f"{st['wall_s']:.1f} s (RSS {st['peak_rss_mb']:.0f} MB)"
        log(f"  {x}x guests: {g['wall_s']:.1f} s (RSS {g['peak_rss_mb']:.0f} MB); {x}x storage: {sdesc}")

    def exponent(series: dict[str, Any], key: str = "wall_s") -> float | None:
        ok = [int(k[:-1]) for k, v in series.items() if key in v]
        top = max(ok)
        w1, wn = series["1x"][key], series[f"{top}x"][key]
        return round(math.log(wn / w1) / math.log(top), 2) if top > 1 and w1 > 0 and wn > 0 else None

    # Memory per frame: peak RSS against central storage, runs of the same length.
    frames_1 = 256 * 2**30 // 4096
    xb = max(int(k[:-1]) for k, v in storage.items() if "peak_rss_mb" in v)
    ra, rb = storage["1x"]["peak_rss_mb"], storage[f"{xb}x"]["peak_rss_mb"]
    xa = 1
    bytes_per_frame = (rb - ra) * 2**20 / (frames_1 * (xb - xa)) if xb > 1 else float("nan")
    return {
        "scenario": LARGE,
        "long_run": {"sim_s": long_T, "wall_s": round(base["wall_s"], 2), "cpu_s": round(base["cpu_s"], 2),
                     "refs_per_s": round(base["refs_per_s"]),
                     "events_per_s": round(base["events_per_s"]), "page_refs": base["page_refs"],
                     "events": base["events"], "sim_per_wall": round(base["sim_per_wall"], 2),
                     "peak_rss_mb": base["peak_rss_mb"]},
        "long_run_second_half": paging,
        "growth_sim_s": base_T,
        "time": time_series, "guests": guests, "storage": storage,
        "exponent_time": exponent(time_series), "exponent_guests": exponent(guests),
        "exponent_storage": exponent(storage),
        "exponent_cpu_time": exponent(time_series, "cpu_s"), "exponent_cpu_guests": exponent(guests, "cpu_s"),
        "exponent_cpu_storage": exponent(storage, "cpu_s"),
        "rss_bytes_per_frame": round(bytes_per_frame, 1),
        "rss_bytes_per_frame_between": [f"{256 * xa} GB", f"{256 * xb} GB"],
        "rss_1tb_central_est_gb": round((rb * 2**20 + bytes_per_frame * (2**40 // 4096 - frames_1 * xb)) / 2**30, 1)
        if xb > 1 else None,
    }


# ----------------------------------------------------------- report


def machine() -> dict[str, Any]:
    mem_kb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    except OSError:
        pass
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import simpy

        simpy_v = simpy.__version__
    except ImportError:
        simpy_v = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        # The extension is built from the working tree: say whether the engine had
        # uncommitted changes.
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "crates/"], cwd=ROOT, capture_output=True,
                                    text=True).stdout.strip())
        crates = subprocess.run(["git", "log", "-1", "--format=%h %cI", "--", "crates/"], cwd=ROOT,
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit, dirty, crates = "", False, ""
    # When the extension was built: if before the last engine commit, it is stale.
    try:
        import ztwin._native as native

        built = _dt.datetime.fromtimestamp(Path(native.__file__ or "").stat().st_mtime, _dt.timezone.utc)
        ext = {"path": rel(native.__file__ or ""), "built": built.replace(microsecond=0).isoformat()}
    except (ImportError, OSError):
        ext = {}
    return {"nproc": os.cpu_count(), "memory_gb": round(mem_kb / 2**20, 1), "cpu_model": cpu,
            "kernel": platform.release(), "python": platform.python_version(), "simpy": simpy_v,
            "commit": commit, "crates_last_commit": crates, "crates_uncommitted_changes": dirty,
            "extension": ext, "loadavg_at_start": list(os.getloadavg())}


def fmt_rate(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f}M/s"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k/s"
    return f"{x:.1f}/s"


def print_table(r: dict[str, Any]) -> None:
    s1, sc, raw, s2, lg = r.get("s1"), r.get("scaling"), r.get("raw"), r.get("s2"), r.get("large")
    rows: list[tuple[str, str, str, str]] = []
    if s1:
        rows += [
            ("S1 read phase (55 s simulated, best of the seeds)", "twin", "SimPy peer", "twin/peer"),
            ("  wall time", f"{1e3 * s1['twin_window_wall_s']:.2f} ms", f"{s1['peer_wall_s']:.3f} s",
             f"{s1['wall_ratio_vs_simpy']:.0f}x faster"),
            ("  CPU time", f"{1e3 * s1['twin_window_cpu_s']:.2f} ms", f"{s1['peer_cpu_s']:.3f} s",
             f"{s1['cpu_ratio_vs_simpy']:.0f}x"),
            ("  page references / wall s", fmt_rate(s1["twin_refs_per_s"]), fmt_rate(s1["simpy_refs_per_s"]),
             f"{s1['ratio_vs_simpy']:.0f}x  (goal 100x)"),
            ("  events / wall s", fmt_rate(s1["twin_events_per_s"]), fmt_rate(s1["simpy_events_per_s"]), ""),
            ("  peer with batched touches", "", f"{s1['peer_batched_wall_s']:.3f} s",
             f"{s1['ratio_vs_simpy_batched']:.0f}x"),
        ]
        a = s1["agreement"]
        for key, label in (("paging_ssch_per_s", "paging SSCH/s"), ("busy_sum_pct", "volume busy sum %"),
                           ("page_wait_pct", "page-wait share %"), ("pages_per_io", "pages per I/O")):
            v = a[key]
            tol = (f"z={v['z']:+.1f}" if "z" in v else
                   f"±{v['tolerance_points']:.1f} pts" if "tolerance_points" in v else f"±{v['tolerance']}")
            rows.append((f"  {label}", f"{v['twin']:.2f}", f"{v['peer']:.2f}",
                         f"{'agree' if v['agree'] else 'DIFFER'} ({tol})"))
        at = s1["agreement_peer_plus_io_half_per_interrupt"]
        rows.append(("  same, peer + io_us/2 CP per interrupt", "", "",
                     "all agree" if at["all_agree"] else
                     "differ: " + ", ".join(k for k, v in at.items() if k != "all_agree" and not v["agree"])))
    if sc:
        rows.append(("S1 scaling, paging SSCH/s with k guests", "twin", "peer (random)", "twin vs k=1, agreement"))
        for k, v in sc["rows"].items():
            a = v["agreement"]
            rows.append((f"  k={k}", f"{v['twin_ssch_per_s']:.1f}",
                         f"{v['peer_ssch_per_s']:.1f} ({v['peer_random_ssch_per_s']:.0f})",
                         f"{v['twin_rate_vs_one']:.2f}x (peer {v['peer_rate_vs_one']:.2f}x), "
                         f"{'agree' if a['agree'] else 'DIFFER'} (z={a['z']:+.1f}; +io/2: "
                         f"z={v['agreement_peer_plus_io_half_per_interrupt']['z']:+.1f})"))
    if raw:
        rows += [
            ("Raw reference speed (one core)", "twin", "SimPy peer", "twin/peer"),
            (f"  S1 study scenario ({raw['s1_study']['sim_s']:g} s)", fmt_rate(raw["s1_study"]["refs_per_s"]), "",
             f"{raw['s1_study']['sim_per_wall']:.0f}x real time"),
            ("  resident 3 GB, random", fmt_rate(raw["resident_random"]["refs_per_s"]),
             fmt_rate(raw["peer_resident"]["refs_per_s"]), f"{raw['ratio_vs_simpy_resident']:.0f}x  (goal >= 10M/s)"),
            ("  resident, peer batched", "", fmt_rate(raw["peer_resident_batched"]["refs_per_s"]),
             f"{raw['ratio_vs_simpy_resident_batched']:.0f}x"),
            ("  resident 3 GB, serial", fmt_rate(raw["resident_serial"]["refs_per_s"]), "", ""),
        ]
    if s2:
        rows += [("S2 day (14 h)", "wall", "", ""),
                 (f"  {s2['scenario']}", f"{s2['day_wall_s']:.1f} s",
                  "extrapolated" if s2["extrapolated"] else "measured",
                  f"CPU {s2['day_cpu_s']:.1f} s; goal < 60 s")]
    lx = r.get("linux")
    if lx:
        vs = (f"; {lx['hour_wall_s'] / s2['day_wall_s']:.2f}x the S2 day"
              if s2 and s2.get("day_wall_s") and lx.get("hour_wall_s") else "")
        rows += [("Linux LPAR hour (100 guests, VDISK swap, APPLDATA)", "wall", "", ""),
                 (f"  {lx['scenario']}", f"{lx['hour_wall_s']} s",
                  "extrapolated" if lx["extrapolated"] else "measured",
                  f"CPU {lx['hour_cpu_s']} s; RSS {lx['peak_rss_mb']:.0f} MB{vs}")]
    if lg:
        lr = lg["long_run"]
        rows += [("Large LPAR (500 guests, 256 GB)", "wall", "", ""),
                 (f"  {lr['sim_s'] / 60:g} min simulated", f"{lr['wall_s']:.1f} s",
                  f"RSS {lr['peak_rss_mb']:.0f} MB", f"{fmt_rate(lr['refs_per_s'])} refs")]
        for name in ("time", "guests", "storage"):
            ser = lg[name]
            walls = "  ".join(f"{k} {v['wall_s']:.1f}s" if "wall_s" in v else f"{k} n/a" for k, v in ser.items())
            rows.append((f"  growth in {name}", walls, "",
                         f"wall ~ x^{lg['exponent_' + name]} (CPU ~ x^{lg['exponent_cpu_' + name]})"))
    io = r.get("io")
    if io:
        rows.append(("I/O heavy (1,000 volumes, 200 guests)", f"{io['wall_s']:.1f} s wall", f"CPU {io['cpu_s']:.1f} s",
                     f"{io['sim_s']:g} s simulated; {io['events_per_s']:,} events/s; RSS {io['peak_rss_mb']:.0f} MB"))
    if not rows:
        return
    w0 = max(len(a) for a, *_ in rows) + 2
    for a, b, c, d in rows:
        if not a.startswith("  "):
            log("")
        log(f"{a:<{w0}}{b:>26}  {c:>16}  {d}")


# Keys of bench-results.json that this script writes (or wrote in earlier versions).
OWN_KEYS = (
    "twin_refs_per_s", "simpy_refs_per_s", "ratio_vs_simpy", "twin_simpy_outputs_agree",
    "twin_s1_study_refs_per_s", "twin_resident_refs_per_s", "twin_resident_serial_refs_per_s",
    "simpy_resident_refs_per_s", "ratio_vs_simpy_resident", "s2_day_wall_s", "s2_day_extrapolated",
    "large_lpar_wall_s", "large_lpar_sim_s", "large_lpar_growth_exponents", "twin_simpy_scaling_agree",
    "twin_scaling_within_bracket", "twin_bench", "io_heavy_wall_s", "linux_lpar_hour_wall_s",
)


def merge_results(path: Path, r: dict[str, Any]) -> None:
    s1, raw, s2, lg, sc = r.get("s1"), r.get("raw"), r.get("s2"), r.get("large"), r.get("scaling")
    top: dict[str, Any] = {}
    if s1:
        top.update(
            twin_refs_per_s=s1["twin_refs_per_s"],
            simpy_refs_per_s=s1["simpy_refs_per_s"],
            ratio_vs_simpy=s1["ratio_vs_simpy"],
            twin_simpy_outputs_agree=s1["agreement"]["all_agree"],
        )
    if raw:
        top.update(
            twin_s1_study_refs_per_s=raw["s1_study"]["refs_per_s"],
            twin_resident_refs_per_s=raw["resident_random"]["refs_per_s"],
            twin_resident_serial_refs_per_s=raw["resident_serial"]["refs_per_s"],
            simpy_resident_refs_per_s=raw["peer_resident"]["refs_per_s"],
            ratio_vs_simpy_resident=raw["ratio_vs_simpy_resident"],
        )
    if s2:
        top.update(s2_day_wall_s=s2["day_wall_s"], s2_day_extrapolated=s2["extrapolated"])
    if lg:
        top.update(
            large_lpar_wall_s=lg["long_run"]["wall_s"],
            large_lpar_sim_s=lg["long_run"]["sim_s"],
            large_lpar_growth_exponents={k: lg[f"exponent_{k}"] for k in ("time", "guests", "storage")},
        )
    if sc:
        top["twin_simpy_scaling_agree"] = sc["all_agree"]
    if r.get("io"):
        top["io_heavy_wall_s"] = r["io"]["wall_s"]
    if r.get("linux"):
        top["linux_lpar_hour_wall_s"] = r["linux"]["hour_wall_s"]
    merge_into(path, OWN_KEYS, {**top, "twin_bench": r})


def main(argv: list[str]) -> int:
    if argv[:1] == ["one"]:
        return run_one(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--quick", action="store_true", help="reduced run (< 1 minute)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench-results.json", help="results file to merge into")
    ap.add_argument("--only", default="s1,scaling,raw,s2,linux,large,io",
                    help="comma-separated sections (s1,scaling,raw,s2,linux,large,io; scaling needs s1); the "
                         "results file then holds the twin keys of these sections only")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args(argv)
    only = {s.strip() for s in a.only.split(",") if s.strip()}
    unknown = only - {"s1", "scaling", "raw", "s2", "linux", "large", "io"}
    if unknown:
        ap.error(f"--only: unknown section(s) {', '.join(sorted(unknown))}")
    if "scaling" in only:
        only.add("s1")
    try:
        import simpy  # noqa: F401
        import ztwin._native  # noqa: F401
    except ImportError as e:
        sys.exit(f"twin.py: {e}; run it with the project's virtual environment after `make build` "
                 "(.venv/bin/python benches/twin.py)")

    t_start = time.monotonic()
    mach = machine()
    log(f"twin benchmarks ({'quick' if a.quick else 'full'}) on {mach['nproc']} cores, {mach['memory_gb']} GB, "
        f"{mach['cpu_model']}; load average {mach['loadavg_at_start'][0]:.2f}")
    work = Path(tempfile.mkdtemp(prefix="ztwin-twin-bench-"))
    h = Harness(work)
    r: dict[str, Any] = {}
    try:
        if "s1" in only:
            r["s1"] = bench_s1(h, a.quick)
        if "scaling" in only:
            r["scaling"] = bench_scaling(h, a.quick, r["s1"])
        if "raw" in only:
            r["raw"] = bench_raw(h, a.quick)
        if "s2" in only:
            r["s2"] = bench_s2(h, a.quick)
        if "linux" in only:
            r["linux"] = bench_linux(h, a.quick)
        if "large" in only:
            r["large"] = bench_large(h, a.quick)
        if "io" in only:
            r["io"] = bench_io(h, a.quick)
    finally:
        if a.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    r.update(
        quick=a.quick,
        machine=mach,
        date=_dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        command=fmt_cmd([sys.executable, "benches/twin.py", *argv]),
        commands=h.commands,
        elapsed_s=round(time.monotonic() - t_start, 1),
    )
    r["machine"]["loadavg_at_end"] = list(os.getloadavg())
    print_table(r)
    log("")
    log("commands:")
    for c in h.commands:
        log(f"  {c}")
    merge_results(a.out, r)
    log(f"\nmerged into {rel(a.out)} ({r['elapsed_s']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
