"""``ztwin console SCENARIO``: run the twin with a CP command line.

The scenario runs as with ``ztwin run`` (its timeline included), but paused:
the operator steps simulated time and issues CP commands between the steps,
as at a system console, and sees CP's responses with their simulated times.
Lines that are not console commands go to CP as the operator's; ``as USERID
COMMAND`` issues one for a guest. Console commands:

  step [DURATION]   run on DURATION of simulated time (default: 1min)
  run [TIME]        run on to simulated TIME after the start (default: the end)
  time              where the run is
  as USERID CMD     issue CP command CMD as guest USERID
  help              this list and the CP commands ztwin models
  end               run to the scenario's end, close the MONWRITE file, leave

On a terminal the line has history (up/down) and tab completion of the
console's and CP's command words; from a pipe it reads commands one per line
(``ztwin console s.toml -o s.monwrite < script``) and echoes each, so the
output reads as a session log. End of input is ``end``. The MONWRITE file is
written only when the session ends (Ctrl-C or an error leaves none).
"""

from __future__ import annotations

import argparse
import cmd
import contextlib
import sys
from typing import IO, Any

from ztwin.safeout import OutputError, OutputFile
from ztwin.twin import Scenario, ScenarioError, SimulationError
from ztwin.units import format_duration, parse_duration

EXIT_OK = 0
EXIT_FATAL = 2

#: CP's command words ztwin models (completion; ``help``).
CP_WORDS = {
    "QUERY": ["NSS", "VDISK", "ALLOC", "MDCACHE", "SRM", "FRAMES"],
    "DEFINE": ["VFB-512"],
    "DETACH": [],
    "SET": ["VDISK", "MDCACHE", "SRM"],
    "DEFSEG": [],
    "SAVESEG": [],
    "PURGE": ["NSS"],
    "INDICATE": ["LOAD", "USER"],
    "LOCK": ["USERID"],
    "UNLOCK": ["USERID"],
}
CONSOLE_WORDS = ["step", "run", "time", "as", "help", "end"]
HELP = """  step [DURATION]   run on DURATION of simulated time (default: 1min)
  run [TIME]        run on to simulated TIME after the start (default: the end)
  time              where the run is
  as USERID CMD     issue CP command CMD as guest USERID
  help              this list
  end               run to the scenario's end, close the MONWRITE file, leave
Anything else is a CP command issued by the operator: """ + ", ".join(CP_WORDS) + """
(their operands: docs/scenario.md, [[timeline]])."""


def not_text(line: str) -> str | None:
    """Why a console line read with ``surrogateescape`` is not text (a byte
    that is not UTF-8), or None: CP commands are text."""
    for i, ch in enumerate(line):
        if "\udc80" <= ch <= "\udcff":
            return f"not UTF-8 text (byte X'{ord(ch) - 0xDC00:02X}' at column {i + 1}); the line is ignored"
    return None


#: Control characters (a NUL, an escape) in an echoed line, shown as ``\\xNN``.
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F] if c != 0x09}


def shown(line: str) -> str:
    """A console line as it can be printed: bytes that are not UTF-8 and
    control characters as ``\\xNN``."""
    return line.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace").translate(_CONTROLS)


def tolerant_stdin(stdin: IO[str]) -> None:
    """Read bytes that are not UTF-8 as surrogates (:func:`not_text` names
    them) rather than failing the whole session on them."""
    reconfigure = getattr(stdin, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors="surrogateescape")


class Console(cmd.Cmd):
    """The command line; ``session`` is a ``ztwin._native.ConsoleSession``."""

    prompt = "ztwin> "

    def __init__(self, session: Any, stdin: IO[str], stdout: IO[str], echo: bool) -> None:
        super().__init__(stdin=stdin, stdout=stdout)
        self.session = session
        self.echo = echo
        self.use_rawinput = stdin is sys.stdin and stdin.isatty()
        if not self.use_rawinput:
            # From a pipe cmd writes the prompt without the line; the echo
            # (with the prompt) stands for both.
            self.prompt = ""
        self.finished = False
        self.lineno = 0

    # -- output -----------------------------------------------------------

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")

    def show(self, lines: list[str]) -> None:
        for ln in lines:
            self.say(ln)

    def clock(self) -> str:
        return format_duration(self.session.now())

    # -- the loop ---------------------------------------------------------

    def precmd(self, line: str) -> str:
        if line != "EOF":
            self.lineno += 1
        if self.echo and line != "EOF":
            self.say(f"ztwin> {shown(line)}".rstrip())
        why = not_text(line)
        if why is not None:
            self.say(f"line {self.lineno}: {why}")
            return ""
        return line

    def emptyline(self) -> bool:
        return False

    def default(self, line: str) -> None:
        self.show(self.session.command(line.strip()))

    def do_as(self, arg: str) -> bool:
        words = arg.split(None, 1)
        if len(words) < 2:
            self.say("usage: as USERID COMMAND")
            return False
        self.show(self.session.command(words[1], words[0]))
        return False

    def do_step(self, arg: str) -> bool:
        try:
            d = parse_duration(arg.strip() or "1min")
        except ValueError as e:
            self.say(f"step: {e}")
            return False
        return self._run_to(self.session.now() + d)

    def do_run(self, arg: str) -> bool:
        if arg.strip():
            try:
                t = parse_duration(arg.strip())
            except ValueError as e:
                self.say(f"run: {e}")
                return False
        else:
            t = self.session.end()
        return self._run_to(t)

    def _run_to(self, t: float) -> bool:
        if t > self.session.end():
            self.say(f"(the scenario ends at {format_duration(self.session.end())})")
        self.show(self.session.run_to(t))
        self.say(f"simulated time {self.clock()}")
        return False

    def do_time(self, arg: str) -> bool:
        self.say(f"simulated time {self.clock()} of {format_duration(self.session.end())}")
        return False

    def do_end(self, arg: str) -> bool:
        self.show(self.session.finish())
        self.finished = True
        return True

    do_EOF = do_end

    def do_help(self, arg: str) -> bool:
        self.say(HELP)
        return False

    # -- completion -------------------------------------------------------

    def completenames(self, text: str, *ignored: Any) -> list[str]:
        t = text.upper()
        return [w.lower() for w in CONSOLE_WORDS if w.upper().startswith(t)] + [
            w for w in CP_WORDS if w.startswith(t)
        ]

    def completedefault(self, text: str, line: str, begidx: int, endidx: int) -> list[str]:
        words = line[:begidx].split()
        if len(words) == 1:
            return [w for w in CP_WORDS.get(words[0].upper(), []) if w.startswith(text.upper())]
        return []


def _is_zos(path: str) -> bool:
    """A z/OS partition scenario (a ``[zos]`` table): its console is z/OS's."""
    import tomllib

    try:
        with open(path, "rb") as f:
            return "zos" in tomllib.load(f)
    except (OSError, ValueError):
        return False


def cmd_console(args: argparse.Namespace) -> int:
    from ztwin._native import ConsoleSession

    if _is_zos(args.scenario):
        from ztwin import zos_cli

        return zos_cli.console(args.scenario)
    try:
        sc = Scenario.load(args.scenario)
    except OSError as e:
        print(f"ztwin console: cannot read {args.scenario}: {e.strerror or e}", file=sys.stderr)
        return EXIT_FATAL
    except ScenarioError as e:
        print(f"ztwin console: {e}", file=sys.stderr)
        return EXIT_FATAL
    try:
        out = OutputFile(args.output, inputs=[args.scenario], force=args.force)
    except OutputError as e:
        print(f"ztwin console: {e}", file=sys.stderr)
        return EXIT_FATAL
    text, fmt = sc._source()
    tolerant_stdin(sys.stdin)
    with out:
        session = ConsoleSession(text, sc.origin, fmt, str(out.temp), args.seed)
        con = Console(session, sys.stdin, sys.stdout, echo=not sys.stdin.isatty())
        con.say(
            f"ztwin console: {args.scenario}, simulated time {con.clock()} of "
            f"{format_duration(session.end())}; 'help' lists the commands"
        )
        try:
            con.cmdloop()
        except SimulationError as e:
            print(f"ztwin console: {args.scenario}: {e}; no output was written", file=sys.stderr)
            return EXIT_FATAL
        if not con.finished:
            return EXIT_FATAL
        out.commit()
    print(f"ztwin console: {args.output} written", file=sys.stderr)
    return EXIT_OK


def register(sub: Any) -> None:
    from ztwin.run_cli import _seed

    p = sub.add_parser("console", help="run a scenario with a CP command line (step, commands, responses)")
    p.add_argument("scenario", help="scenario file (TOML)")
    p.add_argument("-o", "--output", default="console.monwrite", help="MONWRITE file written when the session ends")
    p.add_argument("--seed", type=_seed, default=None, help="random seed (default: the scenario's)")
    p.add_argument("-f", "--force", action="store_true", help="replace an existing output file")
    p.set_defaults(handler=cmd_console)
