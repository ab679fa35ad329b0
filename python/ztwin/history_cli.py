"""``ztwin ingest`` and ``ztwin export``: the monitor history (docs/history.md).

Exit codes: 0 success; 2 a file or database that cannot be read or written,
or a request the database cannot answer (one line on stderr, nothing half
written: each file is ingested in one transaction).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any

from ztwin.monitor import MonwriteError
from ztwin.safeout import OutputDir, OutputError, OutputFile, check_updatable

EXIT_OK = 0
EXIT_FATAL = 2


def _error(command: str, message: str) -> int:
    print(f"ztwin {command}: {message}", file=sys.stderr)
    return EXIT_FATAL


def cmd_ingest(args: argparse.Namespace) -> int:
    from ztwin.history import HistoryError, ingest

    try:
        check_updatable(args.db, inputs=args.files)
    except OutputError as e:
        return _error("ingest", f"--db {e}")
    progress = args.progress or sys.stderr.isatty()
    current = [""]

    def said(r: Any) -> None:
        print(r.line(), file=sys.stderr)

    # A database this command creates is removed again if no file made it in
    # (the first file unreadable, Ctrl-C): "nothing added" leaves nothing.
    created = not os.path.lexists(args.db)
    stored = False
    try:
        for f in args.files:
            current[0] = f
            ingest(args.db, [f], system=args.system, progress=progress, on_result=said)
            stored = True
    except HistoryError as e:
        return _error("ingest", str(e))
    except MonwriteError as e:
        return _error("ingest", f"{current[0]}: offset {e.offset} (X'{e.offset:X}'): {e.reason} (nothing added)")
    except OSError as e:
        return _error("ingest", f"cannot open {current[0]}: {e.strerror or e} (nothing added)")
    finally:
        if created and not stored:
            _remove_new_db(args.db)
    return EXIT_OK


def _remove_new_db(db: str) -> None:
    """Remove a database file (and DuckDB's write-ahead log) that this
    command created and put nothing in."""
    for p in (db, f"{db}.wal"):
        with contextlib.suppress(OSError):
            if os.path.isfile(p) and not os.path.islink(p):
                os.unlink(p)


def cmd_export(args: argparse.Namespace) -> int:
    from ztwin.export import export_db, export_file
    from ztwin.history import HistoryError

    paths = list(args.paths)
    args.out = paths.pop() if paths else None
    args.file = paths.pop() if paths else None
    if paths:
        return _error("export", "give at most one FILE and one OUT")
    if args.file is None and args.db is None and args.out is not None:
        # One path and no --db: the file without its output, not a missing file.
        return _error("export", f"give the output after {args.out}: ztwin export FILE OUT (a directory, "
                      "or a file for openmetrics)")  # fmt: skip
    if (args.file is None) == (args.db is None):
        return _error("export", "give a MONWRITE FILE or --db PATH (one of them)")
    if args.out is None:
        return _error("export", "give the output (a directory, or a file for openmetrics)")
    source = args.db if args.db is not None else args.file
    # The output is checked before anything is read, and written whole: a file
    # (openmetrics) through a temporary file, a directory through a stage.
    target: OutputFile | OutputDir
    try:
        if args.format == "openmetrics":
            target = OutputFile(args.out, inputs=[source], force=args.force)
        else:
            target = OutputDir(args.out, owner="ztwin export", inputs=[source], force=args.force)
    except OutputError as e:
        return _error("export", str(e))
    try:
        with target:
            staged = target.temp if isinstance(target, OutputFile) else target.stage
            if args.db is not None:
                written = export_db(args.db, args.format, staged, args.system)
            else:
                written = export_file(args.file, args.format, staged, args.system)
            final = target.commit()
        out = [final / p.relative_to(staged) if p != staged else final for p in written]
    except OutputError as e:
        return _error("export", str(e))
    except HistoryError as e:
        return _error("export", str(e))
    except MonwriteError as e:
        return _error("export", f"{args.file}: offset {e.offset} (X'{e.offset:X}'): {e.reason}")
    except OSError as e:
        return _error("export", f"{e.filename or args.out}: {e.strerror or e}")
    for p in out:
        print(p)
    return EXIT_OK


#: Options of ``ztwin export`` that take a value.
_EXPORT_VALUED = {"--db", "--system", "--format"}


def positionals_last(argv: list[str]) -> list[str]:
    """``ztwin export FILE --format F OUT``: argparse cannot take positionals on
    both sides of an option, so export's positionals are moved to the end."""
    if not argv or argv[0] != "export":
        return argv
    opts, pos = [], []
    it = iter(argv[1:])
    for a in it:
        if a in _EXPORT_VALUED:
            opts += [a, next(it, "")]
        elif a.startswith("-"):
            opts.append(a)
        else:
            pos.append(a)
    return ["export", *opts, *pos]


def register(sub: Any) -> None:
    from ztwin.history import DEFAULT_DB

    p = sub.add_parser(
        "ingest",
        help="store the interval tables of MONWRITE files in a history database (DuckDB)",
        description="Add the per-interval tables of MONWRITE files (system, CPU, logical CPU, user, device, "
        "paging exposure) to a DuckDB history database, keyed by system id and interval end. Intervals "
        "already stored are skipped: the same file twice adds nothing, a grown file adds its new intervals. "
        "Each file is one transaction; damaged byte ranges are skipped and reported.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="MONWRITE files")
    p.add_argument("--db", default=DEFAULT_DB, metavar="PATH", help=f"the database (default ./{DEFAULT_DB})")
    p.add_argument("--system", metavar="ID", help="store under this system id (default: MTRSYS_SYSTMID of the file)")
    p.add_argument("--progress", action="store_true", help="show a progress bar on stderr (default: only on a terminal)")
    p.set_defaults(handler=cmd_ingest)

    p = sub.add_parser(
        "export",
        help="export interval tables as Parquet (by system and day), CSV or OpenMetrics text",
        description="Write the interval tables of a MONWRITE file or a history database as Parquet "
        "(hive-partitioned OUT/<table>/system=<id>/day=<date>/), CSV (OUT/<table>.csv) or OpenMetrics text "
        "with timestamps (OUT is a file; metric names in docs/history.md).",
    )
    p.add_argument("--db", metavar="PATH", help="export a history database instead")
    p.add_argument("--system", metavar="ID", help="only this system")
    p.add_argument("--format", required=True, choices=("parquet", "csv", "openmetrics"))
    p.add_argument("--force", action="store_true", help="if OUT is a symbolic link, write where it points")
    p.add_argument("paths", nargs="+", metavar="[FILE] OUT",
                   help="the MONWRITE file (unless --db), then the output: a directory (parquet, csv) or a file (openmetrics)")
    p.set_defaults(handler=cmd_export)

