#!/usr/bin/env python3
"""A SimPy peer model of study S1's read phase ("Why doesn't my system page faster?").

Written the way a performance analyst would write it today, with SimPy 4 and
nothing from ztwin: processes, resources and timeouts. It is the independent
half of the twin-versus-peer benchmark (benches/twin.py runs both).

What it simulates (the read phase of studies/paging-single-thread.toml, set up
as benches/scenarios/s1-peer.toml leaves it):

* `guests` serial thrashers (LIN102 when there is one), one thread each, each
  with a private 300 MB area (76,800 pages of 4 KB) that was paged out before
  the start: every page is on DASD, in blocks of 4 consecutive pages, each
  block on one of 11 paging volumes: round-robin, the areas one after another
  (the default), or a random volume per block (`--placement random`).
  Optionally a share of the pages sits in XSTOR instead (`--xstor-fraction`).
* A thrasher touches its pages in order at 1 us of CPU per touch. Touching a
  page that is not resident is a page fault: CP spends `fault_us + io_us` on
  the thrasher's CPU, the thrasher releases the CPU and waits for the block
  read; when it completes the whole block (up to 4 pages) is resident, and CP
  spends `page_io_us` per page validated when the thrasher runs again.
  An XSTOR page is moved back synchronously for `xstor_move_us`.
* Processors: a simpy.Resource of capacity 4; a dispatch costs `dispatch_us`
  and a burst lasts at most the 5 ms minor time slice.
* Paging volumes: one simpy.Resource(capacity=1) each (one exposure, FIFO
  queue in front). Service time = pending + disconnect + connect, connect =
  2.7 ms per I/O + 0.05 ms per page (3.1 ms in all for a 4-page block), each
  component spread uniformly by +-`jitter` (0.15, as in S1; 0 = fixed).
* High-frequency state sampling every 2 s, as CP Monitor does (the first one
  1 s after the start, as in s1-peer.toml where the read starts between two
  samples; none at the end): a thrasher is running, waiting for a CPU, in page
  wait, or idle. Page-wait share = page-wait samples / samples that found the
  thrasher active (in queue).
* Counters per sample interval (5 s), so the benchmark can compare interval by
  interval: paging SSCHs, pages read, device busy (connect + disconnect time,
  the FCX108 %busy convention, and also the time each volume was held).

A second mode, `--resident`, keeps the whole area resident and touches it at
random (CPU bound, no paging): the raw reference throughput of the peer.

`--batch` is the same model written with an eye on speed: a run of touches to
resident pages is one timeout instead of one per touch (same results, fewer
events).

    python benches/peer_simpy/s1_peer.py                 # S1 read phase, 55 s
    python benches/peer_simpy/s1_peer.py --guests 30     # scaling curve point
    python benches/peer_simpy/s1_peer.py --resident --duration 2
    python benches/peer_simpy/s1_peer.py --json          # one JSON line

Output figures: wall seconds, simulated events (SimPy events processed) and
page references, both per wall second, paging SSCH/s, sum of volume %busy,
page-wait share.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Generator
from dataclasses import asdict, dataclass, field
from typing import Any

import simpy

PAGE = 4096
MB = 1 << 20

# Thrasher states, as high-frequency sampling sees them.
RUNNING, CPU_WAIT, PAGE_WAIT, IDLE = range(4)
# Where a page is.
RESIDENT, XSTOR, DASD = 0, 1, 2


@dataclass
class Config:
    guests: int = 1
    area_mb: float = 300.0
    block_pages: int = 4
    volumes: int = 11
    processors: int = 4
    # Paging volume service time (ms).
    pending_ms: float = 0.2
    disconnect_ms: float = 0.0
    connect_ms_per_io: float = 2.7
    connect_ms_per_page: float = 0.05
    jitter: float = 0.15
    # CPU (us).
    cpu_per_touch_us: float = 1.0
    fault_us: float = 8.0  # CP: handling a page fault that needs a DASD read
    io_us: float = 15.0  # CP: per real I/O started and its interrupt handled
    dispatch_us: float = 1.0  # CP: per dispatch of a virtual CPU
    xstor_move_us: float = 4.0  # CP: moving a page from XSTOR
    page_io_us: float = 6.0  # CP: per page validated after a block read
    # Extra CP time at each page-read interrupt, charged when the thrasher runs
    # again. 0 by the cp_costs' documented meanings (io_us covers the start and
    # the interrupt); a diagnostic knob for comparing charging conventions.
    interrupt_us: float = 0.0
    minor_slice_ms: float = 5.0
    # Monitoring.
    hf_s: float = 2.0
    hf_offset_s: float = 1.0  # first state sample, seconds after the start
    interval_s: float = 5.0
    duration_s: float = 55.0
    # Set-up.
    placement: str = "roundrobin"  # or "random"
    xstor_fraction: float = 0.0
    resident: bool = False  # whole area resident, random touches (CPU bound)
    batch: bool = False
    seed: int = 1

    @property
    def pages(self) -> int:
        return int(self.area_mb * MB) // PAGE


@dataclass
class Interval:
    """Counters of one sample interval (like a monitor sample)."""

    t0: float
    t1: float
    ssch: int = 0
    pages_read: int = 0
    busy_cd_s: float = 0.0  # connect + disconnect seconds, all volumes
    busy_held_s: float = 0.0  # pending + disconnect + connect seconds
    refs: int = 0


@dataclass
class Result:
    config: dict[str, Any]
    wall_s: float
    cpu_s: float  # process CPU time of the simulation (= wall on an idle core)
    setup_s: float  # building the model (not in wall_s)
    sim_s: float
    events: int
    page_refs: int
    refs_per_s: float  # simulated page references per wall second
    events_per_s: float  # SimPy events per wall second
    sim_per_wall: float
    ssch_per_s: float
    pages_read_per_s: float
    pages_per_io: float
    busy_sum_pct: float  # sum over volumes of (connect + disconnect) / T
    busy_held_sum_pct: float  # sum over volumes of time held / T
    per_volume_busy_pct: list[float]
    page_wait_pct: float
    hf_samples: int
    hf_page_wait: int
    refs_per_sim_s: float
    intervals: list[dict[str, Any]] = field(default_factory=list)


class Lpar:
    def __init__(self, env: simpy.Environment, cfg: Config) -> None:
        self.env = env
        self.cfg = cfg
        self.rng = random.Random(cfg.seed)
        place = random.Random(cfg.seed * 7919 + 1)
        self.cpus = simpy.Resource(env, capacity=cfg.processors)
        self.vols = [simpy.Resource(env, capacity=1) for _ in range(cfg.volumes)]
        self.vol_busy_cd = [0.0] * cfg.volumes
        n, b = cfg.pages, cfg.block_pages
        nblocks = (n + b - 1) // b
        self.where: list[bytearray] = []
        self.block_vol: list[list[int]] = []
        for g in range(cfg.guests):
            if cfg.resident:
                self.where.append(bytearray(n))  # all RESIDENT
                self.block_vol.append([])
                continue
            w = bytearray([DASD]) * n
            if cfg.xstor_fraction > 0:
                for p in range(n):
                    if place.random() < cfg.xstor_fraction:
                        w[p] = XSTOR
            self.where.append(w)
            if cfg.placement == "random":
                self.block_vol.append([place.randrange(cfg.volumes) for _ in range(nblocks)])
            elif cfg.placement == "roundrobin":
                # Areas written one after another, consecutive blocks on consecutive volumes.
                self.block_vol.append([(g * nblocks + k) % cfg.volumes for k in range(nblocks)])
            else:
                raise ValueError(f"placement: {cfg.placement!r} is not random or roundrobin")
        self.state = [IDLE] * cfg.guests
        self.refs = 0
        self.hf_samples = 0
        self.hf_page_wait = 0
        self.cur = Interval(0.0, cfg.interval_s)
        self.intervals: list[Interval] = []

    # -- devices -------------------------------------------------------------

    def service(self, pages: int) -> tuple[float, float, float]:
        """(pending, disconnect, connect) in seconds for a block of `pages`."""
        c, j = self.cfg, self.cfg.jitter

        def draw(ms: float) -> float:
            if ms <= 0:
                return 0.0
            return ms * (1.0 + j * (2.0 * self.rng.random() - 1.0)) / 1e3 if j else ms / 1e3

        return draw(c.pending_ms), draw(c.disconnect_ms), draw(c.connect_ms_per_io + c.connect_ms_per_page * pages)

    def block_read(self, g: int, blk: int) -> Generator[simpy.Event, Any, int]:
        """Read block `blk` of guest `g` from its paging volume; returns the
        number of pages read."""
        cfg, env = self.cfg, self.env
        vol = self.block_vol[g][blk]
        where = self.where[g]
        first = blk * cfg.block_pages
        pages = [p for p in range(first, min(first + cfg.block_pages, cfg.pages)) if where[p] == DASD]
        with self.vols[vol].request() as req:
            yield req
            pend, disc, conn = self.service(len(pages))
            yield env.timeout(pend + disc + conn)
        for p in pages:
            where[p] = RESIDENT
        iv = self.cur
        iv.ssch += 1
        iv.pages_read += len(pages)
        iv.busy_cd_s += disc + conn
        iv.busy_held_s += pend + disc + conn
        self.vol_busy_cd[vol] += disc + conn
        return len(pages)

    # -- workload ------------------------------------------------------------

    def thrasher(self, g: int) -> Generator[simpy.Event, Any, None]:
        """One serial thrasher: touch every page of the area once, in order."""
        cfg, env = self.cfg, self.env
        where = self.where[g]
        n = cfg.pages
        touch = cfg.cpu_per_touch_us / 1e6
        slice_s = cfg.minor_slice_ms / 1e3
        page = 0
        owed = 0.0  # CP time for the last page-in, charged when the thrasher runs again
        while page < n:
            self.state[g] = CPU_WAIT
            with self.cpus.request() as cpu:
                yield cpu
                self.state[g] = RUNNING
                start = env.now
                yield env.timeout((cfg.dispatch_us + owed) / 1e6)
                owed = 0.0
                fault = -1
                while page < n:
                    w = where[page]
                    if w == RESIDENT:
                        if env.now - start + touch > slice_s:
                            break  # minor time slice used up: back to the ready queue
                        if cfg.batch:
                            # Touch the run of resident pages that fits in the slice at once.
                            room = int((slice_s - (env.now - start)) / touch + 1e-9)
                            k = page
                            while k < n and k - page < room and where[k] == RESIDENT:
                                k += 1
                            yield env.timeout((k - page) * touch)
                            self.refs += k - page
                            self.cur.refs += k - page
                            page = k
                        else:
                            yield env.timeout(touch)
                            self.refs += 1
                            self.cur.refs += 1
                            page += 1
                    elif w == XSTOR:
                        yield env.timeout(cfg.xstor_move_us / 1e6)
                        where[page] = RESIDENT
                    else:
                        # Page fault on a DASD page: CP handles it and starts the block read.
                        yield env.timeout((cfg.fault_us + cfg.io_us) / 1e6)
                        fault = page // cfg.block_pages
                        break
            if fault >= 0:
                self.state[g] = PAGE_WAIT
                got = yield from self.block_read(g, fault)
                owed = got * cfg.page_io_us + cfg.interrupt_us
        self.state[g] = IDLE  # one pass done ("think 1h")

    def random_toucher(self, g: int) -> Generator[simpy.Event, Any, None]:
        """Resident mode: touch random pages of the (resident) area, CPU bound."""
        cfg, env = self.cfg, self.env
        n = cfg.pages
        touch = cfg.cpu_per_touch_us / 1e6
        slice_s = cfg.minor_slice_ms / 1e3
        rng = random.Random(cfg.seed * 31 + g)
        where = self.where[g]
        per_slice = int((slice_s - cfg.dispatch_us / 1e6) / touch + 1e-9)
        while True:
            self.state[g] = CPU_WAIT
            with self.cpus.request() as cpu:
                yield cpu
                self.state[g] = RUNNING
                yield env.timeout(cfg.dispatch_us / 1e6)
                if cfg.batch:
                    k = 0
                    for _ in range(per_slice):
                        if where[rng.randrange(n)] == RESIDENT:
                            k += 1
                    yield env.timeout(k * touch)
                    self.refs += k
                    self.cur.refs += k
                else:
                    for _ in range(per_slice):
                        if where[rng.randrange(n)] == RESIDENT:
                            yield env.timeout(touch)
                            self.refs += 1
                            self.cur.refs += 1

    # -- monitoring ----------------------------------------------------------

    def hf_sampler(self) -> Generator[simpy.Event, Any, None]:
        yield self.env.timeout(self.cfg.hf_offset_s)
        while self.env.now < self.cfg.duration_s:
            for s in self.state:
                if s != IDLE:
                    self.hf_samples += 1
                    if s == PAGE_WAIT:
                        self.hf_page_wait += 1
            yield self.env.timeout(self.cfg.hf_s)

    def interval_sampler(self) -> Generator[simpy.Event, Any, None]:
        while True:
            yield self.env.timeout(self.cfg.interval_s)
            self.intervals.append(self.cur)
            now = self.env.now
            self.cur = Interval(now, now + self.cfg.interval_s)


def simulate(cfg: Config) -> Result:
    s0 = time.perf_counter()
    env = simpy.Environment()
    lpar = Lpar(env, cfg)  # set-up: the paged-out areas and their placement
    for g in range(cfg.guests):
        env.process(lpar.random_toucher(g) if cfg.resident else lpar.thrasher(g))
    env.process(lpar.hf_sampler())
    env.process(lpar.interval_sampler())
    setup = time.perf_counter() - s0
    # The simulation proper is what is timed (the twin's figure is likewise its
    # wall time between two sample intervals, set-up excluded).
    w0 = time.perf_counter()
    c0 = time.process_time()
    # A hair past the end so the last interval (ending exactly there) closes.
    env.run(until=cfg.duration_s + 1e-9)
    wall = time.perf_counter() - w0
    cpu = time.process_time() - c0
    events = next(env._eid) - len(env._queue)  # events scheduled and processed
    ivs = lpar.intervals
    T = sum(i.t1 - i.t0 for i in ivs) or cfg.duration_s
    ssch = sum(i.ssch for i in ivs)
    pages = sum(i.pages_read for i in ivs)
    return Result(
        config=asdict(cfg),
        wall_s=wall,
        cpu_s=cpu,
        setup_s=setup,
        sim_s=env.now,
        events=events,
        page_refs=lpar.refs,
        refs_per_s=lpar.refs / wall,
        events_per_s=events / wall,
        sim_per_wall=env.now / wall,
        ssch_per_s=ssch / T,
        pages_read_per_s=pages / T,
        pages_per_io=pages / ssch if ssch else 0.0,
        busy_sum_pct=100 * sum(i.busy_cd_s for i in ivs) / T,
        busy_held_sum_pct=100 * sum(i.busy_held_s for i in ivs) / T,
        per_volume_busy_pct=[round(100 * b / env.now, 2) for b in lpar.vol_busy_cd],
        page_wait_pct=100 * lpar.hf_page_wait / lpar.hf_samples if lpar.hf_samples else 0.0,
        hf_samples=lpar.hf_samples,
        hf_page_wait=lpar.hf_page_wait,
        refs_per_sim_s=lpar.refs / env.now if env.now else 0.0,
        intervals=[asdict(i) for i in ivs],
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--guests", type=int, default=1, help="serial thrashers (default 1)")
    ap.add_argument("--duration", type=float, default=55.0, help="simulated seconds (default 55)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jitter", type=float, default=0.15, help="service-time spread, 0 = fixed (default 0.15)")
    ap.add_argument("--placement", choices=["roundrobin", "random"], default="roundrobin",
                    help="volume of each block: round-robin, areas one after another (default), or random")
    ap.add_argument("--xstor-fraction", type=float, default=0.0, help="share of pages in XSTOR at the start")
    ap.add_argument("--resident", action="store_true", help="CPU-bound mode: area resident, random touches")
    ap.add_argument("--area-mb", type=float, default=300.0)
    ap.add_argument("--batch", action="store_true", help="one timeout per run of resident touches")
    ap.add_argument("--interrupt-us", type=float, default=0.0,
                    help="extra CP time per page-read interrupt, us (default 0; see Config.interrupt_us)")
    ap.add_argument("--json", action="store_true", help="print one JSON line (with per-interval counters)")
    a = ap.parse_args(argv)
    if a.guests < 1 or a.duration <= 0:
        ap.error("--guests must be >= 1 and --duration > 0")
    cfg = Config(
        guests=a.guests,
        duration_s=a.duration,
        seed=a.seed,
        jitter=a.jitter,
        placement=a.placement,
        xstor_fraction=a.xstor_fraction,
        resident=a.resident,
        area_mb=a.area_mb,
        batch=a.batch,
        interrupt_us=a.interrupt_us,
    )
    r = simulate(cfg)
    if a.json:
        print(json.dumps(asdict(r)))
        return 0
    mode = "resident random touching" if cfg.resident else "S1 read phase"
    print(f"SimPy peer, {mode}: {cfg.guests} guest(s), {cfg.duration_s:g} s simulated{' (batched touches)' if cfg.batch else ''}")
    print(f"  wall {r.wall_s:.3f} s, CPU {r.cpu_s:.3f} s ({r.sim_per_wall:,.1f}x real time)")
    print(f"  {r.page_refs:,} page references ({r.refs_per_s / 1e6:.3f}M/s wall, {r.refs_per_sim_s:,.1f}/s simulated)")
    print(f"  {r.events:,} SimPy events ({r.events_per_s / 1e6:.3f}M/s)")
    if not cfg.resident:
        print(f"  paging SSCH/s {r.ssch_per_s:.1f}, pages read/s {r.pages_read_per_s:.1f} ({r.pages_per_io:.2f} per I/O)")
        print(f"  paging volumes' busy sum {r.busy_sum_pct:.1f}% (connect+disconnect), {r.busy_held_sum_pct:.1f}% held")
        print(f"  page wait {r.page_wait_pct:.1f}% of {r.hf_samples} active HF samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
