"""``ztwin study``: replay the published studies and compare with the figures."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any

from ztwin.safeout import OutputDir, OutputError
from ztwin.studies import STUDIES, StudyResult, run_study
from ztwin.twin import ScenarioError, SimulationError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_FATAL = 2


def _print(res: StudyResult) -> None:
    print(f"{res.study}: {res.title}")
    w = max(len(c.metric) for c in res.checks) if res.checks else 10
    print(f"  {'check':<{w}}  {'model':>12}  {'published':>12}  {'tolerance':>10}  result")
    for c in res.checks:
        model = f"{c.model:.3f}" if isinstance(c.model, float) else str(c.model)
        print(f"  {c.metric:<{w}}  {model:>12}  {str(c.published):>12}  {c.tolerance:>10}  {'ok' if c.ok else 'FAIL'}")
    for k, v in res.info.items():
        print(f"  info: {k} = {v}")
    print(f"  {'PASS' if res.ok else 'FAIL'}: {sum(c.ok for c in res.checks)} of {len(res.checks)} checks")


def cmd_study_run(args: argparse.Namespace) -> int:
    names = list(STUDIES) if args.name == "all" else [args.name]
    for n in names:
        if n not in STUDIES:
            print(f"ztwin study: no study named {n!r} (known: {', '.join(STUDIES)})", file=sys.stderr)
            return EXIT_FATAL
    # --keep DIR is checked before any study runs; the MONWRITE files are
    # written into a staging directory and moved into DIR when all studies ran.
    keep: OutputDir | None = None
    if args.keep is not None:
        try:
            keep = OutputDir(args.keep, owner="ztwin study", force=args.force)
        except OutputError as e:
            print(f"ztwin study: --keep {e}", file=sys.stderr)
            return EXIT_FATAL
    results = []
    try:
        with keep if keep is not None else contextlib.nullcontext():
            for n in names:
                try:
                    results.append(run_study(n, quick=args.quick, workdir=keep.stage if keep is not None else None))
                except (ScenarioError, SimulationError, OutputError) as e:
                    print(f"ztwin study {n}: {e}", file=sys.stderr)
                    return EXIT_FATAL
                except OSError as e:
                    what = f"{e.filename}: " if e.filename else ""
                    print(f"ztwin study {n}: {what}{e.strerror or e}", file=sys.stderr)
                    return EXIT_FATAL
            if keep is not None:
                keep.commit()
    except OutputError as e:
        print(f"ztwin study: --keep {e}", file=sys.stderr)
        return EXIT_FATAL
    if args.json:
        out: Any = results[0].to_json() if len(results) == 1 else [r.to_json() for r in results]
        print(json.dumps(out, indent=2))
    else:
        for r in results:
            _print(r)
    return EXIT_OK if all(r.ok for r in results) else EXIT_FAILED


def cmd_study_list(args: argparse.Namespace) -> int:
    for s in STUDIES.values():
        print(f"{s.name:<24} {s.title}")
    return EXIT_OK


def register(sub: Any) -> None:
    """Add the ``study`` subcommand (``study run NAME``, ``study list``)."""
    p = sub.add_parser("study", help="replay a published study: model versus published figures")
    ss = p.add_subparsers(dest="study_command", required=True, metavar="ACTION")
    r = ss.add_parser("run", help="run a study and print model vs published, pass/fail per check")
    r.add_argument("name", metavar="NAME", help=f"study name ({', '.join(STUDIES)}) or 'all'")
    r.add_argument("--quick", action="store_true", help="the short form used by the test suite")
    r.add_argument("--json", action="store_true", help="print JSON")
    r.add_argument(
        "--keep", metavar="DIR", help="keep the MONWRITE files in DIR (new, empty, or written by ztwin before)"
    )
    r.add_argument("--force", action="store_true", help="if DIR is a symbolic link, write where it points")
    r.set_defaults(handler=cmd_study_run)
    lp = ss.add_parser("list", help="list the studies")
    lp.set_defaults(handler=cmd_study_list)
