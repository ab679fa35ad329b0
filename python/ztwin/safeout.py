"""Output safety: how every ztwin command writes a file or a directory.

A command that writes output follows three rules, and this module enforces
them so that each command does not have to:

1. **Check before working.** The output path is checked when the
   :class:`OutputFile` / :class:`OutputDir` is made, before the command reads
   or simulates anything; the temporary file (or staging directory) is created
   on entering the ``with`` block, which proves the directory is writable. A
   refusal is an :class:`OutputError` whose message names the user's path and
   the reason, never the temporary name.
2. **Replace only what is safe to replace.** A file is written to a temporary
   file in the target's own directory and renamed over the target only when the
   target is a regular file or does not exist. Device nodes, FIFOs, sockets and
   directories are always refused; a symbolic link is refused unless
   ``force=True``, which writes the file the link points to (the link stays).
   The command's input files (``inputs=``) are refused, whatever name they are
   reached by (hard links and symbolic links included). A directory is written
   only if it is new, empty, or carries ztwin's marker file (:data:`MARKER`);
   in it ztwin replaces or removes only the files the marker lists (its own),
   never a file the user added.
3. **Leave nothing half-written.** Nothing reaches the target until
   :meth:`OutputFile.commit` / :meth:`OutputDir.commit` is called. Leaving the
   ``with`` block without committing (an error, an early return, Ctrl-C)
   removes the temporary file or staging directory. While one exists, SIGTERM
   and SIGHUP remove it too and then raise :class:`Terminated` in the main
   thread (a command turns that into exit status 128 + the signal number).

Writing a file::

    from ztwin import safeout

    def cmd_convert(args):
        try:
            out = safeout.OutputFile(args.output, inputs=[args.file], force=args.force)
        except safeout.OutputError as e:
            return error(str(e))            # refused before any work
        with out:                           # creates the temporary file
            result = expensive_work(args.file)
            with out.open("w", encoding="utf-8") as f:
                f.write(result)
            out.commit()                    # renamed over the target here
        return 0

A file that is updated in place rather than replaced (a database: ``ztwin
ingest --db``) is checked with :func:`check_updatable` before any work: the
same refusals, and nothing is written by the check.

A producer that wants a path rather than a Python file object (a Rust writer)
writes to ``out.temp``, which exists (empty) inside the block. A producer that
has something worth keeping even when it fails (a simulation that abended)
calls ``out.commit()`` before raising.

Writing a directory::

    out = safeout.OutputDir(args.html, owner="ztwin report", inputs=[args.file])
    with out:
        (out.stage / "index.html").write_text(page)   # write into the stage
        out.commit()      # the files move into the target; stale own files go

The stage is a fresh directory on the target's file system. On commit its
files are renamed into the target one by one (each appears whole; folders in
the stage are made in the target as needed), files that ztwin wrote there
before and did not write this time are removed (and a folder they leave empty),
and the marker is rewritten to list the new files by their paths relative to
the directory. Only regular files and folders may be in the stage.

Every check is made again just before the rename, so a path that changed while
the command worked is still refused.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any, BinaryIO, Literal, TextIO, overload

__all__ = ["MARKER", "OutputDir", "OutputError", "OutputFile", "Terminated", "check_updatable"]

StrPath = str | os.PathLike[str]

#: The marker file of a directory ztwin wrote: its first line names ztwin, the
#: others (not starting with ``#``) are the files ztwin wrote there.
MARKER = ".ztwin-output"
#: Markers written by earlier versions (no file list): the directory is
#: ztwin's, but which files are its own is not known, so none is removed.
LEGACY_MARKERS = (".ztwin-report",)
_MARKER_HEAD = "# written by ztwin; ztwin replaces or removes only the files listed below\n"


class OutputError(Exception):
    """An output path ztwin refuses to write, or could not write. The message
    names the path the user gave and the reason, in one line."""


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived while an output was being written; the
    temporary output has been removed. ``signum`` is the signal number."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum


# --------------------------------------------------------------------------
# Temporary outputs alive now, removed on SIGTERM/SIGHUP
# --------------------------------------------------------------------------

_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)
_live: dict[int, Path] = {}
_saved: dict[int, Any] = {}
_lock = threading.Lock()
_next_key = iter(range(1, 2**63))


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError:
        pass


def _on_signal(signum: int, frame: FrameType | None) -> None:
    for p in list(_live.values()):
        _remove(p)
    _live.clear()
    _restore_handlers()
    raise Terminated(signum)


def _install_handlers() -> None:
    if _saved or threading.current_thread() is not threading.main_thread():
        return
    for s in _SIGNALS:
        try:
            old = signal.getsignal(s)
        except (OSError, ValueError):
            continue
        # Respect a caller's own handler and an ignored signal (nohup).
        if old is signal.SIG_DFL:
            signal.signal(s, _on_signal)
            _saved[s] = old


def _restore_handlers() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for s, old in list(_saved.items()):
        with contextlib.suppress(OSError, ValueError):
            if signal.getsignal(s) is _on_signal:
                signal.signal(s, old)
    _saved.clear()


def _register(path: Path) -> int:
    with _lock:
        key = next(_next_key)
        _live[key] = path
        _install_handlers()
        return key


def _unregister(key: int) -> None:
    with _lock:
        _live.pop(key, None)
        if not _live:
            _restore_handlers()


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------


def _kind(mode: int) -> str | None:
    """What a non-regular, non-directory file is, in words (None if regular)."""
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISREG(mode):
        return None
    return "not a regular file"


def _same_as_input(target: Path, inputs: Iterable[StrPath]) -> str | None:
    """The input that ``target`` is (by device and inode), if any."""
    try:
        t = target.stat()
    except OSError:
        return None
    for i in inputs:
        try:
            s = os.stat(i)
        except (OSError, ValueError):
            continue
        if (s.st_dev, s.st_ino) == (t.st_dev, t.st_ino):
            return os.fspath(i)
    return None


def _check_parent(shown: str, parent: Path) -> None:
    try:
        st = parent.stat()
    except FileNotFoundError:
        raise OutputError(f"{shown}: directory {parent} does not exist") from None
    except OSError as e:
        raise OutputError(f"{shown}: cannot use directory {parent}: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{shown}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{shown}: cannot write in directory {parent}: permission denied")


def _resolve_link(shown: str, path: Path, force: bool) -> Path:
    """``path`` itself, or with ``force`` the file a symbolic link points to."""
    if not path.is_symlink():
        return path
    dest = os.readlink(path)
    if not force:
        raise OutputError(f"{shown} is a symbolic link (to {dest}); use --force to write the file it points to")
    return Path(os.path.realpath(path))


def _parent_of(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class _Staged:
    """What an output file and an output directory share: the temporary
    output (``_temp``) that exists inside the ``with`` block, is removed on
    signals while it lives, and is discarded unless committed."""

    shown: str
    _temp: Path | None = None
    _key: int | None = None
    committed = False

    def _hold(self, temp: Path) -> None:
        self._temp = temp
        self._key = _register(temp)

    def _held(self, what: str) -> Path:
        if self._temp is None:
            raise RuntimeError(f"{type(self).__name__}.{what} is only there inside its with block")
        return self._temp

    def _done(self) -> None:
        self.committed = True
        self._forget()

    def discard(self) -> None:
        """Remove the temporary output (nothing reaches the target)."""
        if self._temp is not None and not self.committed:
            _remove(self._temp)
        self._forget()

    def _forget(self) -> None:
        if self._key is not None:
            _unregister(self._key)
            self._key = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.discard()


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------


class OutputFile(_Staged):
    """One output file, written atomically (see the module documentation).

    ``path`` is the user's path; ``inputs`` the files the command reads (never
    overwritten); ``force`` follows a symbolic link. Checks run here and raise
    :class:`OutputError`.
    """

    def __init__(self, path: StrPath, *, inputs: Iterable[StrPath] = (), force: bool = False) -> None:
        text = os.fspath(path)
        self.shown = text
        self.inputs = [i for i in inputs if i is not None]
        self.force = force
        if text == "":
            raise OutputError("no output file named (the path is empty)")
        if text.endswith(("/", os.sep)) or text in (".", ".."):
            raise OutputError(f"{text} names a directory; give a file name")
        self.path = Path(text)
        self.target = self._check()

    def _check(self) -> Path:
        shown = self.shown
        _check_parent(shown, _parent_of(self.path))
        target = _resolve_link(shown, self.path, self.force)
        try:
            st: os.stat_result | None = target.lstat()
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise OutputError(f"cannot write {shown}: {e.strerror or e}") from None
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                raise OutputError(f"{shown} is a directory; give a file name")
            kind = _kind(st.st_mode)
            if kind is not None:
                raise OutputError(f"{shown} is {kind}; ztwin writes only regular files")
            same = _same_as_input(target, self.inputs)
            if same is not None:
                what = "the input file" if same == shown else f"the input file {same}"
                raise OutputError(f"{shown} is {what}; choose another output name")
        _check_parent(shown, _parent_of(target))
        return target

    @property
    def temp(self) -> Path:
        """The temporary file (inside the ``with`` block)."""
        return self._held("temp")

    def __enter__(self) -> OutputFile:
        target = self.target
        try:
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=_parent_of(target))
        except OSError as e:
            raise OutputError(f"cannot write {self.shown}: {e.strerror or e}") from None
        os.close(fd)
        self._hold(Path(name))
        return self

    @overload
    def open(self, mode: Literal["w"] = "w", **kw: Any) -> TextIO: ...
    @overload
    def open(self, mode: Literal["wb"], **kw: Any) -> BinaryIO: ...

    def open(self, mode: str = "w", **kw: Any) -> IO[Any]:
        """The temporary file opened for writing (``"w"`` or ``"wb"``)."""
        if mode not in ("w", "wb"):
            raise ValueError(f"OutputFile.open: mode {mode!r} (w or wb)")
        return open(self.temp, mode, **kw)  # noqa: SIM115 - the caller closes it

    def commit(self) -> Path:
        """Rename the temporary file over the target (checked again first)."""
        temp = self.temp
        self.target = self._check()
        try:
            mode = self.target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        try:
            os.chmod(temp, mode)
            os.replace(temp, self.target)
        except OSError as e:
            raise OutputError(f"cannot write {self.shown}: {e.strerror or e}") from None
        self._done()
        return self.target


# --------------------------------------------------------------------------
# Directories
# --------------------------------------------------------------------------


def _plain_relative(name: str) -> bool:
    """A marker line that names a file below the directory (no absolute path,
    no '..'): anything else in a marker is ignored."""
    parts = name.split("/")
    return not name.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def _staged_files(stage: Path, shown: str) -> list[str]:
    """The files in a stage, as paths relative to it ('a/b.monwrite');
    anything but regular files and folders is refused."""
    out = []
    for p in sorted(stage.rglob("*")):
        rel = p.relative_to(stage).as_posix()
        if p.is_symlink() or not (p.is_file() or p.is_dir()):
            raise OutputError(f"cannot write {shown}: {rel} in the stage is not a plain file")
        if rel == MARKER:
            raise OutputError(f"cannot write {shown}: {MARKER} is ztwin's own marker name")
        if p.is_file():
            out.append(rel)
    return out


def _marker_files(directory: Path) -> tuple[bool, set[str] | None]:
    """(ztwin's directory?, the files its marker lists or None if unknown)."""
    m = directory / MARKER
    if m.is_file() and not m.is_symlink():
        try:
            lines = m.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return True, set()
        return True, {ln for ln in lines[1:] if ln and not ln.startswith("#") and _plain_relative(ln)}
    for legacy in LEGACY_MARKERS:
        lm = directory / legacy
        if lm.is_file() and not lm.is_symlink():
            return True, None
    return False, None


class OutputDir(_Staged):
    """One output directory (see the module documentation).

    ``owner`` names the command in the marker ("ztwin report"). Checks run
    here and raise :class:`OutputError`.
    """

    def __init__(
        self,
        path: StrPath,
        *,
        owner: str = "ztwin",
        inputs: Iterable[StrPath] = (),
        force: bool = False,
    ) -> None:
        text = os.fspath(path)
        self.shown = text
        self.owner = owner
        self.inputs = [i for i in inputs if i is not None]
        self.force = force
        if text == "":
            raise OutputError("no output directory named (the path is empty)")
        self.path = Path(text)
        self.target, self.new, self.own = self._check()

    def _check(self) -> tuple[Path, bool, set[str] | None]:
        """(target, is it new, files of ztwin's there (None: unknown, legacy))."""
        shown = self.shown
        target = _resolve_link(shown, self.path, self.force)
        try:
            st: os.stat_result | None = target.stat()
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise OutputError(f"cannot write {shown}: {e.strerror or e}") from None
        if st is None:
            _check_parent(shown, _parent_of(target.absolute()))
            return target, True, set()
        if not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{shown} exists and is not a directory")
        if not os.access(target, os.W_OK | os.X_OK):
            raise OutputError(f"cannot write in directory {shown}: permission denied")
        ours, own = _marker_files(target)
        if not ours:
            visible = [p for p in target.iterdir() if not p.name.startswith(".ztwin-stage.")]
            if visible:
                raise OutputError(
                    f"{shown} is not empty and was not written by ztwin (no {MARKER} marker); "
                    "choose a new or empty directory"
                )
        return target, False, own

    @property
    def stage(self) -> Path:
        """The staging directory to write into (inside the ``with`` block)."""
        return self._held("stage")

    def __enter__(self) -> OutputDir:
        try:
            if self.new:
                stage = tempfile.mkdtemp(prefix=f".{self.target.name}.", dir=_parent_of(self.target.absolute()))
            else:
                stage = tempfile.mkdtemp(prefix=".ztwin-stage.", dir=self.target)
        except OSError as e:
            raise OutputError(f"cannot write {self.shown}: {e.strerror or e}") from None
        self._hold(Path(stage))
        return self

    def _write_marker(self, directory: Path, names: Iterable[str]) -> None:
        body = _MARKER_HEAD + f"# by {self.owner}\n" + "".join(f"{n}\n" for n in sorted(names))
        fd, tmp = tempfile.mkstemp(prefix=f"{MARKER}.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(body)
            os.chmod(tmp, 0o644)
            os.replace(tmp, directory / MARKER)
        except BaseException:
            _remove(Path(tmp))
            raise

    def commit(self) -> Path:
        """Move the staged files into the target (checked again first)."""
        stage = self.stage
        names = _staged_files(stage, self.shown)
        try:
            self.target, new, own = self._check()
            if new:
                self._write_marker(stage, names)
                os.chmod(stage, 0o777 & ~_umask())
                os.rename(stage, self.target)
            else:
                self._commit_into(stage, names, own)
        except OSError as e:
            raise OutputError(f"cannot write {self.shown}: {e.strerror or e}") from None
        self._done()
        return self.target

    def _commit_into(self, stage: Path, names: list[str], own: set[str] | None) -> None:
        target = self.target
        allowed = set(names) if own is None else own  # legacy marker: same names only
        # Refuse before moving anything.
        for n in names:
            dest = target / n
            for parent in list(Path(n).parents)[:-1]:
                d = target / parent
                if os.path.lexists(d) and (d.is_symlink() or not d.is_dir()):
                    raise OutputError(f"{self.shown}: {parent.as_posix()} exists and is not a folder ztwin can write in")
            if not os.path.lexists(dest):
                continue
            if dest.is_symlink() or not dest.is_file():
                raise OutputError(f"{self.shown}: {n} exists and is not a regular file; ztwin will not replace it")
            if n not in allowed:
                raise OutputError(f"{self.shown}: {n} exists and was not written by ztwin; ztwin will not replace it")
            same = _same_as_input(dest, self.inputs)
            if same is not None:
                raise OutputError(f"{self.shown}: {n} is the input file {same}; choose another directory")
        mode = 0o666 & ~_umask()
        # Pages first, the index last: a reader never finds an index whose links are missing.
        order = sorted(names, key=lambda n: (n == "index.html", n))
        for n in order:
            os.chmod(stage / n, mode)
            (target / n).parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / n, target / n)
        for n in sorted((own or set()) - set(names)):
            old = target / n
            if old.is_file() and not old.is_symlink() and _same_as_input(old, self.inputs) is None:
                with contextlib.suppress(FileNotFoundError):
                    old.unlink()
                # a folder only ztwin's files were in goes with them
                for parent in list(Path(n).parents)[:-1]:
                    with contextlib.suppress(OSError):
                        (target / parent).rmdir()
        self._write_marker(target, names)
        for legacy in LEGACY_MARKERS:
            lm = target / legacy
            if lm.is_file() and not lm.is_symlink():
                lm.unlink()
        _remove(stage)


def check_updatable(path: StrPath, *, inputs: Iterable[StrPath] = (), force: bool = False) -> Path:
    """Check a file that a command updates in place (a database): it must be
    a regular file or not exist yet, in an existing writable directory, not a
    symbolic link unless ``force`` (then the file it points to is returned),
    and not one of the command's ``inputs``. Returns the path to open; raises
    :class:`OutputError`."""
    text = os.fspath(path)
    if text == "":
        raise OutputError("no file named (the path is empty)")
    if text.endswith(("/", os.sep)):
        raise OutputError(f"{text} names a directory; give a file name")
    p = Path(text)
    _check_parent(text, _parent_of(p))
    target = _resolve_link(text, p, force)
    try:
        st = target.lstat()
    except FileNotFoundError:
        return target
    except OSError as e:
        raise OutputError(f"cannot use {text}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{text} is a directory; give a file name")
    kind = _kind(st.st_mode)
    if kind is not None:
        raise OutputError(f"{text} is {kind}; ztwin writes only regular files")
    same = _same_as_input(target, [i for i in inputs if i is not None])
    if same is not None:
        raise OutputError(f"{text} is the input file {same}; choose another name")
    return target
