"""The z/OS operator console of a z/OS partition run: D ASM, D ASM,SCM and
D M=SCM answered from the run's interval tables (docs/zos.md, "Console").

The run is complete before the first command (the displays read its
records, never the model): the console moves a clock over its intervals
(``step``, ``run``) and a display shows the partition as it was at the end
of the last interval at or before that time. Console commands:

  step [DURATION]   move on DURATION (default 10s)
  run [TIME]        move to TIME after the online work started (default: the end)
  time              where the console is
  help              this list and the displays modelled
  end               leave

Anything else is an operator command to z/OS: ``D ASM`` (IEE200I),
``D ASM,PLPA|COMMON|LOCAL|ALL``, ``D ASM,PAGE=dsname`` (IEE200I),
``D ASM,SCM`` (IEE207I), ``D M=SCM`` (IEE174I); ``DISPLAY`` may be written
out. A command z/OS does not know gets IEE305I ... COMMAND INVALID; a valid
display the twin does not model says so.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Iterator
from typing import IO, Any

from ztwin.units import format_duration, parse_duration
from ztwin.zos_tables import ZosTables

HELP = """  step [DURATION]   move on DURATION of the run (default 10s)
  run [TIME]        move to TIME after the online work started (default: the end)
  time              where the console is
  help              this list
  end               leave
z/OS displays: D ASM, D ASM,LOCAL, D ASM,PAGE=dsname, D ASM,SCM, D M=SCM"""

PAGE = 4096
GB = 1 << 30


def _clock(t: float) -> str:
    s = int(t)
    return f"{s // 3600 % 24:02d}.{s // 60 % 60:02d}.{s % 60:02d}"


def _pct(used: int, total: int) -> int:
    return used * 100 // total if total else 0


class ZosConsole:
    """Displays of one run's tables at a point of its online phase."""

    def __init__(self, t: ZosTables) -> None:
        self.t = t
        self.times: list[float] = [float(x) for x in t.paging.column("t_s").to_pylist()]
        if not self.times:
            raise ValueError("the run has no interval of its online phase")
        self.now = self.times[0]
        self.idr = 0
        pds = t.pds.to_pylist()
        self.pds: dict[float, list[dict[str, Any]]] = {}
        for r in pds:
            self.pds.setdefault(float(r["t_s"]), []).append(r)
        self.scm = {float(r["t_s"]): r for r in t.scm.to_pylist()}

    # -- time --------------------------------------------------------------

    def end(self) -> float:
        return self.times[-1]

    def at(self) -> float:
        """The interval the displays show: the last ending at or before now."""
        i = bisect.bisect_right(self.times, self.now + 1e-9) - 1
        return self.times[max(i, 0)]

    def move_to(self, t: float) -> None:
        self.now = min(max(t, self.times[0]), self.end())

    # -- commands ----------------------------------------------------------

    def command(self, line: str) -> list[str]:
        text = " ".join(line.strip().upper().split())
        if not text:
            return []
        verb, _, ops = text.partition(" ")
        if verb not in ("D", "DISPLAY"):
            return [f"IEE305I {verb} COMMAND INVALID"]
        ops = ops.replace(" ", "")
        if ops == "ASM" or ops.startswith("ASM,"):
            return self._asm(ops[4:])
        if ops == "M=SCM":
            return self._m_scm()
        if ops.startswith("M=") or ops in ("M",):
            return [f"ZTWIN: D {ops} is not modelled (D M=SCM is)"]
        if not ops:
            return ["IEE305I DISPLAY COMMAND INVALID"]
        return [f"ZTWIN: D {ops} is not modelled (D ASM, D ASM,SCM, D M=SCM are)"]

    def _head(self, msg: str, what: str) -> str:
        self.idr += 1
        return f"{msg} {_clock(self.at())} DISPLAY {what} {self.idr:03d}"

    def _asm(self, sel: str) -> list[str]:
        t = self.at()
        rows = self.pds.get(t, [])
        scm = self.scm.get(t)
        if sel == "SCM":
            head = self._head("IEE207I", "ASM")
            if scm is None:
                return [head, "SCM NOT USED FOR PAGING (PAGESCM=NONE OR NO SCM ONLINE)"]
            return [
                head,
                f"{'STATUS':<8} {'FULL':>5} {'SIZE':>14} {'USED':>12} {'IN-ERROR':>9}",
                f"{'IN-USE':<8} {_pct(scm['used'], scm['slots']):>4}% {scm['slots']:>14,} {scm['used']:>12,} {0:>9}",
            ]
        if sel in ("PLPA", "COMMON"):
            return [self._head("IEE200I", "ASM"), f"NO {sel} PAGE DATA SET (THE TWIN KEEPS PLPA'S COPY ON A LOCAL ONE)"]
        if sel.startswith("PAGE="):
            name = sel[5:]
            hit = [r for r in rows if r["dsname"] == name]
            if not hit:
                return [self._head("IEE200I", "ASM"), f"{name} IS NOT A PAGE DATA SET IN USE"]
            rows = hit
        elif sel not in ("", "ALL", "LOCAL"):
            return ["IEE305I DISPLAY COMMAND INVALID"]
        out = [self._head("IEE200I", "ASM"), f"{'TYPE':<8} {'FULL':>4} {'STAT':>4} {'DEV':>5}  DATASET NAME"]
        for r in rows:
            out.append(f"{'LOCAL':<8} {_pct(r['used'], r['slots']):>3}% {'OK':>4} {r['devno']:>5X}  {r['dsname']}")
        if scm is not None and sel in ("", "ALL"):
            out.append(f"{'SCM':<8} {_pct(scm['used'], scm['slots']):>3}% {'OK':>4} {'N/A':>5}  N/A")
        out.append("PAGEDEL COMMAND IS NOT ACTIVE")
        return out

    def _m_scm(self) -> list[str]:
        head = self._head("IEE174I", "M")
        scm = self.scm.get(self.at())
        if scm is None:
            return [head, "STORAGE-CLASS MEMORY STATUS", "NO STORAGE-CLASS MEMORY USED BY THIS PARTITION FOR PAGING"]
        on, mx, inc = int(scm["online_bytes"]), int(scm["max_bytes"]), int(scm["increment_bytes"])
        return [
            head,
            "STORAGE-CLASS MEMORY STATUS",
            f"{mx // GB}G DEFINED",
            "ONLINE",
            f"  0G-{on // GB}G",
            f"{(mx - on) // GB}G OFFLINE-AVAILABLE",
            f"{_pct(int(scm['used']) * PAGE, on)}% IN USE",
            f"SCM INCREMENT SIZE IS {inc // GB}G",
        ]


def session(con: ZosConsole, stdin: IO[str], stdout: IO[str], echo: bool) -> int:
    """Read commands from ``stdin`` until ``end`` or the end of input."""
    w = stdout.write
    w(f"ztwin zos console: partition {con.t.system}, run {con.t.run}, at {format_duration(con.now)} of "
      f"{format_duration(con.end())}; 'help' lists the commands\n")  # fmt: skip
    from ztwin.console_cli import not_text, shown, tolerant_stdin

    tolerant_stdin(stdin)
    for lineno, line in enumerate(_lines(stdin), 1):
        if echo:
            w(f"ztwin> {shown(line)}".rstrip() + "\n")
        why = not_text(line)
        if why is not None:
            w(f"line {lineno}: {why}\n")
            continue
        word, _, arg = line.strip().partition(" ")
        low = word.lower()
        try:
            if low == "end":
                break
            if low == "help":
                w(HELP + "\n")
            elif low == "time":
                w(f"at {format_duration(con.now)} of {format_duration(con.end())} "
                  f"(displays show the interval ending {format_duration(con.at())})\n")  # fmt: skip
            elif low == "step":
                con.move_to(con.now + parse_duration(arg.strip() or "10s"))
                w(f"at {format_duration(con.now)}\n")
            elif low == "run":
                con.move_to(parse_duration(arg.strip()) if arg.strip() else con.end())
                w(f"at {format_duration(con.now)}\n")
            else:
                for ln in con.command(line):
                    w(ln + "\n")
        except ValueError as e:
            w(f"{low}: {e}\n")
    return 0


def _lines(stdin: IO[str]) -> Iterator[str]:
    interactive = stdin is sys.stdin and stdin.isatty()
    while True:
        if interactive:
            try:
                line = input("ztwin> ")
            except EOFError:
                return
        else:
            line = stdin.readline()
            if not line:
                return
        yield line.rstrip("\n")
