"""``ztwin study``: replay the published studies and check every published figure."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any

from ztwin.safeout import OutputDir, OutputError
from ztwin.studies import STUDIES, StudyResult, run_study
from ztwin.studies.base import CATEGORIES, fmt_value, id_order
from ztwin.twin import ScenarioError, SimulationError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_FATAL = 2

_TITLES = {
    "calibrated": "Calibrated (each set one scenario parameter)",
    "input": "Configuration inputs",
    "structural": "Structural claims (must hold exactly)",
    "predicted": "Predicted (come out of the model)",
    "not-modelled": "Not modelled",
}


def _result(c: Any) -> str:
    if c.ok is None:
        return "n/a"
    if c.gap:
        return "GAP"
    return "ok" if c.ok else ("off" if c.category == "predicted" else "FAIL")


def print_study(res: StudyResult, out: Any = None) -> None:
    """The checks of one study, grouped by category."""
    out = out or sys.stdout

    def w(line: str = "") -> None:
        print(line, file=out)

    w(f"{res.study}: {res.title}" + ("  (short form)" if res.quick else ""))
    tally = res.tally()
    for cat in CATEGORIES:
        checks = sorted((c for c in res.checks if c.category == cat), key=lambda c: id_order(c.id))
        if not checks:
            continue
        t = tally[cat]
        head = f"{t.published} figures" if cat == "not-modelled" else f"{t.within} of {t.checked} within tolerance"
        w(f"  {_TITLES[cat]}: {head}")
        mw = min(62, max(len(c.metric) for c in checks))
        for c in checks:
            metric = c.metric if len(c.metric) <= mw else c.metric[: mw - 1] + "~"
            if cat == "not-modelled":
                w(f"    {c.id:<7} {metric:<{mw}}  published {fmt_value(c.published)}  [{c.source}]")
                w(f"    {'':<7} {'':<{mw}}  why: {c.note}")
                continue
            w(
                f"    {c.id:<7} {metric:<{mw}}  {fmt_value(c.model):>16}  {fmt_value(c.published):>16}"
                f"  {c.tolerance:>12}  {_result(c):<4}  [{c.source}]"
            )
            if c.gap:
                w(f"    {'':<7} {'':<{mw}}  known gap: {c.gap}")
    for k, v in res.info.items():
        w(f"  info: {k} = {v}")
    frac = res.predicted_fraction
    verdict = "PASS" if res.ok else "FAIL"
    why = []
    if res.failed_required:
        why.append("required checks failed: " + ", ".join(c.id for c in res.failed_required))
    if frac + 1e-9 < res.floor:
        why.append(f"predicted within tolerance {frac:.0%} is below the floor {res.floor:.0%}")
    gaps = f"; {len(res.gaps)} known gaps" if res.gaps else ""
    w(
        f"  {verdict}: required checks {'hold' if not res.failed_required else 'fail'}{gaps}; predicted figures within "
        f"tolerance {tally['predicted'].within} of {tally['predicted'].checked} ({frac:.0%}, floor {res.floor:.0%})"
        + (" - " + "; ".join(why) if why else "")
    )
    if frac > res.floor + 0.05:
        w(f"  note: the floor can be raised to {int(frac * 100) / 100:.2f}")


def scoreboard_rows(results: list[StudyResult]) -> list[dict[str, Any]]:
    rows = []
    for r in results:
        t = r.tally()
        rows.append(
            {
                "study": r.study,
                "figures": sum(x.published for x in t.values()),
                "checked": sum(x.checked for x in t.values()),
                "within": sum(x.within for x in t.values()),
                **{cat: t[cat].to_json() for cat in CATEGORIES},
                "predicted_within": round(r.predicted_fraction, 4),
                "floor": r.floor,
                "gaps": [c.id for c in r.gaps],
                "ok": r.ok,
            }
        )
    return rows


def scoreboard_text(results: list[StudyResult]) -> list[str]:
    """Per study: figures published / checked / within tolerance, by category."""
    cats = ["calibrated", "input", "structural", "predicted"]
    lines = [
        f"{'study':<22} {'figures':>7} {'checked':>7} {'within':>6}  "
        + "  ".join(f"{c:>12}" for c in cats)
        + f"  {'not modelled':>12}  {'floor':>5}  result"
    ]
    for row in scoreboard_rows(results):
        cells = []
        for c in cats:
            t = row[c]
            cell = f"{t['within']}/{t['checked']}"
            if c == "predicted" and t["checked"]:
                cell += f" {100 * t['within'] / t['checked']:.0f}%"
            cells.append(f"{cell:>12}")
        lines.append(
            f"{row['study']:<22} {row['figures']:>7} {row['checked']:>7} {row['within']:>6}  "
            + "  ".join(cells)
            + f"  {row['not-modelled']['published']:>12}  {row['floor']:>5.2f}  {'PASS' if row['ok'] else 'FAIL'}"
        )
    return lines


def cmd_study_run(args: argparse.Namespace) -> int:
    if args.all and args.name not in (None, "all"):
        print(f"ztwin study run: give a study NAME or --all, not both (NAME {args.name!r})", file=sys.stderr)
        return EXIT_FATAL
    if args.all or args.name == "all":
        names = list(STUDIES)
    elif args.name:
        names = [args.name]
    else:
        print("ztwin study run: name a study or give --all", file=sys.stderr)
        return EXIT_FATAL
    for n in names:
        if n not in STUDIES:
            print(f"ztwin study: no study named {n!r} (known: {', '.join(STUDIES)})", file=sys.stderr)
            return EXIT_FATAL
    # --keep DIR is checked before any study runs; the MONWRITE files are
    # written into a staging directory (one folder per study when there are
    # several) and moved into DIR when all studies ran.
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
                workdir = None if keep is None else keep.stage / n if len(names) > 1 else keep.stage
                try:
                    results.append(run_study(n, quick=args.quick, workdir=workdir))
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
    many = len(results) > 1
    if args.json:
        out: Any = results[0].to_json() if not many else {
            "scoreboard": scoreboard_rows(results), "studies": [r.to_json() for r in results]}  # fmt: skip
        print(json.dumps(out, indent=2, default=str))
    else:
        for r in results:
            print_study(r)
            print()
        if many:
            print("Scoreboard: published figures, checked, within tolerance (by category: within/checked)")
            for line in scoreboard_text(results):
                print("  " + line)
    return EXIT_OK if all(r.ok for r in results) else EXIT_FAILED


def cmd_study_list(args: argparse.Namespace) -> int:
    for s in STUDIES.values():
        print(f"{s.name:<24} {s.title}")
    return EXIT_OK


def register(sub: Any) -> None:
    """Add the ``study`` subcommand (``study run NAME|--all``, ``study list``)."""
    p = sub.add_parser("study", help="replay a published study: every published figure against the model")
    ss = p.add_subparsers(dest="study_command", required=True, metavar="ACTION")
    r = ss.add_parser("run", help="run a study and print its checks by category; --all adds a scoreboard")
    r.add_argument("name", metavar="NAME", nargs="?", help=f"study name ({', '.join(STUDIES)}) or 'all'")
    r.add_argument("--all", action="store_true", help="run every study and print the scoreboard")
    r.add_argument("--quick", action="store_true", help="the short forms used by the test suite")
    r.add_argument("--json", action="store_true", help="print JSON (with --all: the scoreboard and every study)")
    r.add_argument(
        "--keep",
        metavar="DIR",
        help="keep the MONWRITE files in DIR (one folder per study with --all); DIR must be new, empty, "
        "or written by ztwin before",
    )
    r.add_argument("--force", action="store_true", help="if DIR is a symbolic link, write where it points")
    r.set_defaults(handler=cmd_study_run)
    lp = ss.add_parser("list", help="list the studies")
    lp.set_defaults(handler=cmd_study_list)
