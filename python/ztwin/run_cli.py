"""``ztwin run``: simulate a scenario and write its MONWRITE file."""

from __future__ import annotations

import argparse
import re
import sys
import time
from typing import Any

from ztwin.safeout import OutputError, OutputFile
from ztwin.twin import SEED_MAX, Scenario, ScenarioError, SimulationError
from ztwin.units import format_duration, parse_duration

EXIT_OK = 0
EXIT_FATAL = 2
#: The simulated system abended; the MONWRITE data up to the abend was kept.
EXIT_ABEND = 3


class ProgressBar:
    """A one-line progress bar on stderr, drawn only on a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.t0 = time.monotonic()
        self.last = 0.0

    def __call__(self, sim_s: float, end_s: float) -> bool:
        now = time.monotonic()
        if self.enabled and (now - self.last > 0.1 or sim_s >= end_s):
            self.last = now
            frac = min(1.0, sim_s / end_s) if end_s > 0 else 1.0
            width = 30
            bar = "#" * int(frac * width) + "." * (width - int(frac * width))
            wall = now - self.t0
            sys.stderr.write(
                f"\r[{bar}] {frac * 100:5.1f}%  simulated {format_duration(sim_s)} of "
                f"{format_duration(end_s)}  wall {wall:6.1f} s"
            )
            sys.stderr.flush()
        return True

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def _error(message: str) -> int:
    print(f"ztwin run: {message}", file=sys.stderr)
    return EXIT_FATAL


def _seed(text: str) -> int:
    """An argparse type: a seed is an integer from 0 to 2**64 - 1."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"{value} is outside 0..{SEED_MAX} (2**64 - 1)")
    return value


def cmd_run(args: argparse.Namespace) -> int:
    try:
        duration = parse_duration(args.duration) if args.duration else None
    except ValueError as e:
        return _error(f"--duration: {e}")
    try:
        sc = Scenario.load(args.scenario)
    except OSError as e:
        return _error(f"cannot read {args.scenario}: {e.strerror or e}")
    except ScenarioError as e:
        return _error(str(e))
    # The output is checked before the simulation starts, not after it.
    try:
        out = OutputFile(args.output, inputs=[args.scenario], force=args.force)
    except OutputError as e:
        return _error(str(e))
    bar = ProgressBar(enabled=sys.stderr.isatty() and not args.quiet)
    try:
        result = sc.run(out, seed=args.seed, duration=duration, progress=bar)
    except SimulationError as e:
        bar.close()
        if getattr(e, "code", None) is None:
            # An output error (a full disk): the engine's text without Rust's "(os error N)".
            reason = re.sub(r" \(os error \d+\)$", "", str(e))
            return _error(f"cannot write {args.output}: {reason}")
        if getattr(e, "kept", False):
            _error(f"{args.scenario}: {e}; the MONWRITE data up to the abend is in {args.output}")
            return EXIT_ABEND
        return _error(f"{args.scenario}: {e}; no output was written")
    except (ScenarioError, OutputError, ValueError) as e:
        bar.close()
        return _error(str(e))
    bar.close()
    if not args.quiet:
        _summary(args.scenario, result.__dict__)
    return EXIT_OK


def _summary(scenario: str, r: dict[str, Any]) -> None:
    speed = r["sim_per_wall"]
    print(f"ztwin run: {scenario} -> {r['path']} (seed {r['seed']})", file=sys.stderr)
    print(
        f"  simulated {format_duration(r['sim_s'])} ({r['sim_s']:.0f} s) in {r['wall_s']:.2f} s wall "
        f"({speed:,.0f}x real time)",
        file=sys.stderr,
    )
    print(
        f"  {r['page_refs']:,} page references ({r['refs_per_s'] / 1e6:,.1f}M/s), "
        f"{r['events']:,} events ({r['events_per_s'] / 1e6:,.2f}M/s)",
        file=sys.stderr,
    )
    print(
        f"  {r['intervals']} sample intervals, {r['records']:,} records, {r['bytes'] / 2**20:,.1f} MiB",
        file=sys.stderr,
    )
    console = r.get("console") or ()
    if console:
        print("  CP console (the timeline's commands and their responses):", file=sys.stderr)
        for line in console:
            print(f"    {line}", file=sys.stderr)


def register(sub: Any) -> None:
    """Add the ``run`` subcommand."""
    p = sub.add_parser("run", help="simulate a scenario and write its MONWRITE file")
    p.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="MONWRITE file to write")
    p.add_argument("--seed", type=_seed, metavar="N", help="random seed, 0 to 2**64 - 1 (default: the scenario's)")
    p.add_argument("--duration", metavar="T", help="simulated time, e.g. 600s or 14h (default: the scenario's)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    p.add_argument(
        "--force", action="store_true", help="if OUT is a symbolic link, write the file it points to"
    )
    p.set_defaults(handler=cmd_run)
