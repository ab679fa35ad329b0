"""The ``ztwin`` command line.

Exit codes: 0 success; 1 damage found with ``--strict``; 2 bad usage, a file
that cannot be opened, a file damaged beyond reading, or output that cannot be
written; 128 + N when stopped by signal N (SIGTERM, SIGHUP; 130 for Ctrl-C).

Every command's errors end as one line on stderr, ``ztwin COMMAND: ...``: the
commands report what they expect, and :func:`main` catches the rest at the top
(``OSError``, ``ValueError``, ztwin's own errors), so no input produces a
traceback. Standard output is guarded: a write that fails (a full disk,
``/dev/full``) is reported as an output problem, never blamed on the input
file; a reader that goes away (``ztwin dump F | head``) ends the command
quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

# The command line does no linear algebra: numpy's OpenBLAS threads would only
# spin beside the work (a few percent of a report's CPU time).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import importlib  # noqa: E402

from ztwin import __version__, history_cli  # noqa: E402
from ztwin.monitor import LayoutPackError, MonwriteError, dump, layouts, set_read_options  # noqa: E402
from ztwin.safeout import OutputError, OutputFile, Terminated  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from ztwin._native import FieldInfo, LayoutInfo

EXIT_OK = 0
EXIT_DAMAGED = 1
EXIT_FATAL = 2


def _int_range(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type accepting integers in ``lo..hi``."""

    def parse(text: str) -> int:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is outside {lo}..{hi}")
        return value

    return parse


def _error(command: str, message: str) -> int:
    print(f"ztwin {command}: {message}", file=sys.stderr)
    return EXIT_FATAL


class StdoutError(Exception):
    """Writing standard output failed (not a broken pipe): ``errno`` and
    ``strerror`` as the ``OSError`` had them."""

    def __init__(self, e: OSError) -> None:
        super().__init__(e.strerror or str(e))
        self.errno = e.errno
        self.strerror = e.strerror or str(e)


class GuardedOut:
    """Standard output that turns a failed write or flush into
    :class:`StdoutError` (a broken pipe stays ``BrokenPipeError``)."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        try:
            return self._inner.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise StdoutError(e) from None

    def flush(self) -> None:
        try:
            self._inner.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise StdoutError(e) from None

    def write_bytes(self, data: bytes) -> None:
        """UTF-8 bytes after the text written so far, into the inner
        stream's byte stream (``ztwin.reports.model.chunk_writer`` checks
        that it takes them as they are)."""
        try:
            self._inner.flush()
            self._inner.buffer.write(data)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise StdoutError(e) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def cmd_dump(args: argparse.Namespace) -> int:
    """Print the records of a MONWRITE file (or write them to ``-o``), then a
    summary on stderr."""
    path: str = args.file
    out: OutputFile | None = None
    if args.output is not None:
        try:
            out = OutputFile(args.output, inputs=[path], force=args.force)
        except OutputError as e:
            return _error("dump", str(e))
    try:
        chunks = dump(path, json=args.json, domain=args.domain, record=args.record, limit=args.limit)
    except MonwriteError as e:
        return _error("dump", f"{path}: offset {e.offset} (X'{e.offset:X}'): {e.reason}")
    except OSError as e:
        return _error("dump", f"cannot open {path}: {e.strerror or e}")
    try:
        if out is None:
            _dump_to(chunks, sys.stdout)
        else:
            with out:
                with out.open("w", encoding="utf-8") as f:
                    _dump_to(chunks, f)
                out.commit()
    except MonwriteError as e:
        return _error("dump", f"{path}: offset {e.offset} (X'{e.offset:X}'): {e.reason}")
    except OutputError as e:
        return _error("dump", str(e))
    except OSError as e:
        if isinstance(e, BrokenPipeError) or out is None:
            raise
        # Reading errors arrive as MonwriteError: this is the output file.
        return _error("dump", f"cannot write {args.output}: {e.strerror or e}")
    sys.stderr.write(chunks.summary())
    if args.strict and chunks.stats()["damage_count"]:
        return EXIT_DAMAGED
    return EXIT_OK


def _dump_to(chunks: Iterable[str], f: TextIO) -> None:
    for chunk in chunks:
        f.write(chunk)
    f.flush()


def _type_label(f: FieldInfo) -> str:
    return f"{f['type']}({f['width']})" if f["type"] in ("Char", "Bits") else f["type"]


def _print_fields(fields: list[FieldInfo], indent: str) -> None:
    for f in fields:
        print(f"{indent}{f['offset']:>6} {f['offset']:>5X}  {_type_label(f):<9} {f['confidence']}  {f['name']}")


def _print_layout(layout: LayoutInfo) -> None:
    d, r = layout["domain"], layout["record"]
    rel = layout["release"]
    where = f"z/VM {rel}" if rel else f"z/VM {', '.join(layout['releases'])}"
    print(f"{layout['name']}  D{d}R{r}  {layout['kind']}  {layout['size']} bytes  {layout['confidence']}  {where}")
    seen = ", ".join(layout["seen"]) or "none"
    state = "" if layout["covered"] is None else ("; confirmed" if layout["covered"] else "; carried over, INFERRED")
    print(f"  size seen for z/VM {seen}{state}")
    print(f"  source: {layout['source']}")
    print(f"  {layout['note']}")
    print("  OFFSET   HEX  TYPE      SRC  FIELD")
    _print_fields(layout["fields"], "  ")
    group = layout["group"]
    if group is not None:
        print(
            f"  repeating group {group['name']} (offset in {group['offset_field']}, "
            f"entry length in {group['len_field']}, {group['entry_size']} bytes), offsets within an entry:"
        )
        _print_fields(group["fields"], "    ")


#: Releases of the summary table.
RELEASES = ("5.3", "5.4", "6.1", "6.2", "6.3", "6.4", "7.1", "7.2", "7.3", "7.4")


def _summary(pack: str | None) -> None:
    """Per record and release: size (``*`` when carried over, not seen) and
    fields confirmed from IBM / another public source / inferred."""
    per: dict[str, dict[str, LayoutInfo]] = {}
    for rel in RELEASES:
        for one in layouts(rel, pack):
            per.setdefault(one["name"], {})[rel] = one
    print("| record | " + " | ".join(RELEASES) + " |")
    print("|---|" + "---|" * len(RELEASES))
    for name in sorted(per, key=lambda n: (per[n][RELEASES[-1]]["domain"], per[n][RELEASES[-1]]["record"])):
        cells = []
        for rel in RELEASES:
            lay = per[name].get(rel)
            if lay is None:
                cells.append("-")
                continue
            fields = lay["fields"] + (lay["group"]["fields"] if lay["group"] else [])
            n = {c: sum(f["confidence"] == c for f in fields) for c in ("IBM", "LNX", "Z53", "INF")}
            star = "" if lay["covered"] else "*"
            cells.append(f"{lay['size']}{star} {n['IBM']}/{n['LNX'] + n['Z53']}/{n['INF']}")
        d, r = per[name][RELEASES[-1]]["domain"], per[name][RELEASES[-1]]["record"]
        print(f"| D{d}R{r} {name} | " + " | ".join(cells) + " |")


def cmd_layouts(args: argparse.Namespace) -> int:
    """List the known record layouts, or show one with its fields."""
    try:
        if args.summary:
            _summary(args.layouts)
            return EXIT_OK
        known = layouts(args.release, args.layouts)
    except (LayoutPackError, ValueError) as e:
        return _error("layouts", str(e))
    if args.name is not None:
        wanted = args.name.upper()
        chosen = [lay for lay in known if wanted in (lay["name"], f"D{lay['domain']}R{lay['record']}")]
        if not chosen:
            return _error("layouts", f"no known layout named {args.name!r} (try `ztwin layouts`)")
        if args.json:
            print(json.dumps(chosen if args.release is None else chosen[-1], indent=2))
        else:
            for i, lay in enumerate(chosen):
                if i:
                    print()
                _print_layout(lay)
        return EXIT_OK
    if args.json:
        print(json.dumps(known, indent=2))
        return EXIT_OK
    print("RECORD   NAME      KIND     SIZE  SRC  FIELDS  RELEASES  NOTE")
    for lay in known:
        rec = f"D{lay['domain']}R{lay['record']}"
        rels = lay["release"] or f"{lay['releases'][0]}-{lay['releases'][-1]}"
        print(
            f"{rec:<8} {lay['name']:<9} {lay['kind']:<7} {lay['size']:>5}  {lay['confidence']}  "
            f"{len(lay['fields']):>6}  {rels:<8}  {lay['note']}"
        )
    return EXIT_OK


def _read_option_args(p: argparse.ArgumentParser) -> None:
    """``--release`` and ``--layouts`` for a command that reads MONWRITE files."""
    p.add_argument(
        "--release", metavar="V.R", help="decode as this z/VM release (default: the one the file's MRMTRSYS names)"
    )
    p.add_argument("--layouts", metavar="FILE", help="a layout pack (TOML or JSON) merged over the built-in layouts")


#: The modules that add subcommands (``register``), in the order of the help,
#: with the subcommands each adds: a command names its module, so ``ztwin
#: report`` imports neither the advisor nor the sweeps nor the twin's
#: drivers (0.7 G instructions, a tenth of a 512 MB file's reports).
COMMAND_MODULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ztwin.run_cli", ("run",)),
    ("ztwin.console_cli", ("console",)),
    ("ztwin.study_cli", ("study",)),
    ("ztwin.reports.cli", ("report",)),
    ("ztwin.advisor.cli", ("diagnose",)),
    ("ztwin.history_cli", ("ingest", "export")),
    ("ztwin.sweep.cli", ("sweep", "compare")),
    ("ztwin.zos_cli", ("zos",)),
)


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first argument, when it is one of
    the modules' commands); None for anything else (options such as ``-h``,
    ``dump``, ``layouts``, a misspelt command: the whole parser is built)."""
    if argv and any(argv[0] in cmds for _, cmds in COMMAND_MODULES):
        return argv[0]
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; each subcommand sets ``handler``. With ``command``
    (one of :data:`COMMAND_MODULES`' commands) only the module adding it is
    imported and registered: the parser reads that command's arguments, its
    help and errors, as the whole parser does."""
    parser = argparse.ArgumentParser(
        prog="ztwin",
        description="A performance twin of IBM z/VM and a toolkit for CP Monitor (MONWRITE) data.",
        epilog="Exit codes: 0 success, 1 damage found with --strict, "
        "2 bad usage or a file that cannot be read.",
    )
    parser.add_argument("--version", action="version", version=f"ztwin {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("dump", help="print the records of a MONWRITE file, one line each")
    p.add_argument("file", metavar="FILE", help="MONWRITE file")
    p.add_argument("--json", action="store_true", help="JSON Lines: one object per record")
    p.add_argument("--domain", type=_int_range(0, 255), metavar="N", help="only records of domain N")
    p.add_argument("--record", type=_int_range(0, 65535), metavar="N", help="only records numbered N")
    p.add_argument("--limit", type=_int_range(0, 2**63 - 1), metavar="N", help="stop after N printed records")
    p.add_argument("--strict", action="store_true", help="exit 1 if any part of the file is damaged")
    p.add_argument("-o", "--output", metavar="OUT", help="write the records to OUT (atomically) instead of stdout")
    p.add_argument("--force", action="store_true", help="if OUT is a symbolic link, write the file it points to")
    p.set_defaults(handler=cmd_dump)

    p = sub.add_parser("layouts", help="list the known record layouts")
    p.add_argument("name", nargs="?", metavar="NAME", help="show one layout (IBM name, e.g. MRSYTRSG, or D0R3)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--release", metavar="V.R", help="the layouts of this z/VM release, confidence as it stands there")
    p.add_argument("--layouts", metavar="FILE", help="a layout pack (TOML or JSON) merged over the built-in layouts")
    p.add_argument(
        "--summary", action="store_true", help="per record and release: size and fields from IBM / other / inferred"
    )
    p.set_defaults(handler=cmd_layouts)

    for module, commands in COMMAND_MODULES:
        if command is None or command in commands:
            importlib.import_module(module).register(sub)
    for name in ("dump", "report", "diagnose"):
        if name in sub.choices:
            _read_option_args(sub.choices[name])
    return parser


def _stdout_to_devnull(stdout: TextIO) -> None:
    """Point stdout at /dev/null so the interpreter's exit flush cannot fail
    again (after a broken pipe or a full disk)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def _os_message(e: OSError) -> str:
    what = e.strerror or str(e)
    return f"{e.filename}: {what}" if e.filename else what


def _our_errors() -> tuple[type[BaseException], ...]:
    """ztwin's own error classes (imported here: the advisor and reports are
    heavy and only needed once something went wrong)."""
    from ztwin.advisor import AdvisorError
    from ztwin.reports import ReportError
    from ztwin.twin import ScenarioError, SimulationError

    return (AdvisorError, ReportError, ScenarioError, SimulationError)


#: The arguments that name a file a command reads, with how a message shows them.
_INPUT_ARGS = (("file", ""), ("files", ""), ("scenario", ""), ("a", ""), ("b", ""), ("spec", ""),
               ("paths", ""), ("rules", "--rules "), ("layouts", "--layouts "), ("db", "--db "))  # fmt: skip
#: Of them, the text files a command reads once, whole: a pipe the shell
#: opened (``cat s.toml | ztwin run /dev/stdin``, ``ztwin run <(...)``) is
#: read as a file is, as it was before inputs were checked. (Not
#: ``--layouts``: every file read reads the pack again.)
_READ_WHOLE = frozenset(("scenario", "rules", "spec"))


def _open_pipe(path: str) -> bool:
    """Whether ``path`` names a pipe open in this process (``/dev/stdin``,
    ``/dev/fd/N``: its link ends in ``pipe:[inode]``), not a named FIFO."""
    return os.path.basename(os.path.realpath(path)).startswith("pipe:[")


def _not_regular_input(args: argparse.Namespace) -> str | None:
    """Why an input named on the command line cannot be used, if it is a
    device, a FIFO or a socket: reading one would block (a FIFO no one
    writes), never end (/dev/zero) or fail with a seek error (a pipe). Missing
    files and directories are left to the commands' own messages."""
    import stat

    from ztwin.safeout import _kind

    for attr, flag in _INPUT_ARGS:
        value = getattr(args, attr, None)
        paths = value if isinstance(value, list) else [value]
        if attr == "paths":  # `ztwin export [FILE] OUT`: OUT is an output (safeout checks it)
            paths = paths[:-1]
        if attr == "spec" and value == "report":  # `ztwin sweep report DIR`
            continue
        for path in paths:
            if not isinstance(path, str) or not path:
                continue
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                continue
            if stat.S_ISDIR(st.st_mode):
                continue
            if attr in _READ_WHOLE and stat.S_ISFIFO(st.st_mode) and _open_pipe(path):
                continue
            kind = _kind(st.st_mode)
            if kind is not None:
                return f"{flag}{path} is {kind}, not a regular file"
    return None


def _is_duckdb_error(e: BaseException) -> bool:
    """A DuckDB error (without importing DuckDB: ``duckdb.Error`` and its kin)."""
    return any(c.__module__ in ("duckdb", "_duckdb") and c.__name__ == "Error" for c in type(e).__mro__)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ztwin`` command line; returns the exit code."""
    argv = history_cli.positionals_last(sys.argv[1:] if argv is None else list(argv))
    args = build_parser(_command_of(argv)).parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    command: str = args.command
    why = _not_regular_input(args)
    if why is not None:
        return _error(command, why)
    if args.command in ("dump", "report", "diagnose"):
        try:
            set_read_options(args.release, args.layouts)
        except (LayoutPackError, ValueError) as e:
            return _error(args.command, str(e))
    real = sys.stdout
    if isinstance(real, io.TextIOWrapper):
        # JSON Lines are UTF-8 by definition; text output follows suit, so decoded
        # EBCDIC text (Latin-1) prints whatever the locale says.
        with contextlib.suppress(io.UnsupportedOperation, ValueError):
            real.reconfigure(encoding="utf-8")
    sys.stdout = GuardedOut(real)
    try:
        code = handler(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader of our output went away (`ztwin dump FILE | head`): stop quietly.
        _stdout_to_devnull(real)
        return EXIT_OK
    except StdoutError as e:
        _stdout_to_devnull(real)
        return _error(command, f"cannot write the output (standard output): {e.strerror}")
    except KeyboardInterrupt:
        # Outputs are written whole or not at all (ztwin.safeout): say why the
        # command stopped, in one line.
        with contextlib.suppress(OSError, ValueError):
            _error(command, "interrupted (Ctrl-C)")
        return 128 + 2
    except Terminated as e:
        _error(command, f"{e}; no output was written")
        return 128 + e.signum
    except OutputError as e:
        return _error(command, str(e))
    except MonwriteError as e:
        return _error(command, f"offset {e.offset} (X'{e.offset:X}'): {e.reason}")
    except OSError as e:
        return _error(command, _os_message(e))
    except ValueError as e:
        return _error(command, str(e) or type(e).__name__)
    except Exception as e:
        if isinstance(e, _our_errors()):
            return _error(command, str(e))
        if _is_duckdb_error(e) and not os.environ.get("ZTWIN_DEBUG"):
            # A damaged database met mid-query (a block's checksum): the file
            # and DuckDB's reason, in one line.
            db = getattr(args, "db", None)
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0].removeprefix("Error: ")
            return _error(command, f"{db + ': ' if db else ''}cannot read the history database: {reason}")
        if os.environ.get("ZTWIN_DEBUG"):
            raise
        return _error(
            command,
            f"internal error: {type(e).__name__}: {e} (a bug: please report it; "
            "ZTWIN_DEBUG=1 shows the traceback)",
        )
    finally:
        sys.stdout = real


if __name__ == "__main__":
    sys.exit(main())
