"""ztwin.safeout: output files and directories are checked first, written
atomically, never replace what is not a regular file or not ztwin's, and leave
nothing behind on error or on SIGTERM/SIGHUP."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ztwin.safeout import MARKER, OutputDir, OutputError, OutputFile, Terminated


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


# -- files -------------------------------------------------------------------


def test_new_file_appears_only_on_commit(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    out = OutputFile(target)
    with out:
        assert out.temp.parent == tmp_path
        assert out.temp.name.startswith(".out.txt.")
        with out.open("w", encoding="utf-8") as f:
            f.write("hello\n")
        assert not target.exists()
        out.commit()
    assert target.read_text() == "hello\n"
    assert leftovers(tmp_path) == []
    mode = stat.S_IMODE(target.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_replacing_a_regular_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    target.chmod(0o640)
    with OutputFile(target) as out:
        out.temp.write_text("new")
        out.commit()
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


@pytest.mark.parametrize("how", ["exception", "no-commit"])
def test_without_commit_nothing_changes_and_the_temp_goes(tmp_path: Path, how: str) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError) if how == "exception" else _nothing():  # noqa: SIM117
        with OutputFile(target) as out:
            out.temp.write_text("half")
            if how == "exception":
                raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert leftovers(tmp_path) == []


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: object) -> None:
        return None


def _bound_socket(p: Path) -> None:
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(p))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: os.mkfifo(p), r"is a FIFO \(named pipe\)"),
        (_bound_socket, "is a socket"),
    ],
    ids=["directory", "fifo", "socket"],
)
def test_refuses_what_is_not_a_regular_file(tmp_path: Path, make: object, message: str) -> None:
    target = tmp_path / "thing"
    make(target)  # type: ignore[operator]
    with pytest.raises(OutputError, match=message) as e:
        OutputFile(target)
    assert str(target) in str(e.value)
    assert leftovers(tmp_path) == []


def test_refuses_a_device_node() -> None:
    with pytest.raises(OutputError, match=r"^/dev/null is a character device; ztwin writes only regular files$"):
        OutputFile("/dev/null")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "no output file named"),
        ("newdir/", "names a directory"),
        (".", "names a directory"),
    ],
)
def test_refuses_paths_that_name_no_file(path: str, message: str) -> None:
    with pytest.raises(OutputError, match=message):
        OutputFile(path)


def test_refuses_a_missing_or_non_directory_parent(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match=r"directory .*missing does not exist"):
        OutputFile(tmp_path / "missing" / "out")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match=r"is not a directory"):
        OutputFile(tmp_path / "file" / "out")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_refuses_an_unwritable_directory(tmp_path: Path) -> None:
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="permission denied"):
            OutputFile(d / "out")
    finally:
        d.chmod(0o755)


def test_symbolic_link_needs_force_and_then_writes_through(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with pytest.raises(OutputError, match=r"link.txt is a symbolic link \(to .*real.txt\); use --force"):
        OutputFile(link)
    with OutputFile(link, force=True) as out:
        out.temp.write_text("new")
        out.commit()
    assert link.is_symlink()
    assert real.read_text() == "new"


def test_symbolic_link_to_a_device_is_refused_even_with_force(tmp_path: Path) -> None:
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    with pytest.raises(OutputError, match="is a character device"):
        OutputFile(link, force=True)


def test_refuses_the_input_file_by_any_name(tmp_path: Path) -> None:
    src = tmp_path / "scenario.toml"
    src.write_text("x")
    with pytest.raises(OutputError, match=r"scenario.toml is the input file; choose another output name"):
        OutputFile(src, inputs=[src])
    hard = tmp_path / "hard.toml"
    os.link(src, hard)
    with pytest.raises(OutputError, match=r"hard.toml is the input file .*scenario.toml"):
        OutputFile(hard, inputs=[src])
    soft = tmp_path / "soft.toml"
    soft.symlink_to(src)
    with pytest.raises(OutputError, match="is the input file"):
        OutputFile(soft, inputs=[src], force=True)
    assert src.read_text() == "x"


def test_commit_checks_again(tmp_path: Path) -> None:
    target = tmp_path / "out"
    with OutputFile(target) as out:
        out.temp.write_text("new")
        os.mkfifo(target)  # appeared while the command worked
        with pytest.raises(OutputError, match="is a FIFO"):
            out.commit()
    assert stat.S_ISFIFO(target.lstat().st_mode)
    assert leftovers(tmp_path) == []


_CHILD = textwrap.dedent(
    """
    import sys, time
    from ztwin.safeout import OutputFile, OutputDir, Terminated
    kind, target = sys.argv[1], sys.argv[2]
    out = OutputFile(target) if kind == "file" else OutputDir(target)
    try:
        with out:
            where = out.temp if kind == "file" else out.stage
            print(where, flush=True)
            time.sleep(60)
    except Terminated as e:
        sys.exit(128 + e.signum)
    """
)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("kind", ["file", "dir"])
def test_signals_remove_the_temporary_output(tmp_path: Path, sig: signal.Signals, kind: str) -> None:
    target = tmp_path / "out"
    with subprocess.Popen(
        [sys.executable, "-c", _CHILD, kind, str(target)], stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        temp = Path(proc.stdout.readline().strip())
        assert temp.exists()
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == 128 + sig
    assert not temp.exists()
    assert not target.exists()
    assert leftovers(tmp_path) == []


def test_handlers_are_restored_after_the_output_is_done(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGTERM)
    with OutputFile(tmp_path / "a") as out:
        assert signal.getsignal(signal.SIGTERM) is not before
        out.commit()
    assert signal.getsignal(signal.SIGTERM) is before


def test_terminated_names_the_signal() -> None:
    assert str(Terminated(signal.SIGTERM)) == "terminated by SIGTERM"


# -- directories -------------------------------------------------------------


def write_dir(target: Path, files: dict[str, str], **kw: object) -> Path:
    with OutputDir(target, **kw) as out:  # type: ignore[arg-type]
        for name, text in files.items():
            (out.stage / name).write_text(text)
        return out.commit()


def test_new_directory_gets_the_files_and_a_marker(tmp_path: Path) -> None:
    target = tmp_path / "html"
    write_dir(target, {"index.html": "i", "cpu.html": "c"}, owner="ztwin report")
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "cpu.html", "index.html"]
    marker = (target / MARKER).read_text().splitlines()
    assert marker[0].startswith("# written by ztwin")
    assert "# by ztwin report" in marker
    assert [ln for ln in marker if not ln.startswith("#")] == ["cpu.html", "index.html"]
    assert leftovers(tmp_path) == []


def test_empty_directory_is_used(tmp_path: Path) -> None:
    target = tmp_path / "html"
    target.mkdir()
    write_dir(target, {"index.html": "i"})
    assert (target / "index.html").read_text() == "i"
    assert leftovers(target) == [MARKER]


def test_foreign_directory_is_refused_before_any_work(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match=r"mine is not empty and was not written by ztwin \(no .ztwin-output marker\)"):
        OutputDir(target)
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="exists and is not a directory"):
        OutputDir(tmp_path / "file")


def test_rewrite_keeps_the_users_files_and_drops_stale_own_ones(tmp_path: Path) -> None:
    target = tmp_path / "html"
    write_dir(target, {"index.html": "i1", "cpu.html": "c1", "lpar.html": "l1"})
    (target / "notes.txt").write_text("mine")
    write_dir(target, {"index.html": "i2", "cpu.html": "c2"})
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "cpu.html", "index.html", "notes.txt"]
    assert (target / "cpu.html").read_text() == "c2"
    assert (target / "notes.txt").read_text() == "mine"


def test_a_users_file_with_one_of_our_names_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "html"
    write_dir(target, {"index.html": "i1"})
    (target / "cpu.html").write_text("the user's")
    with pytest.raises(OutputError, match=r"cpu.html exists and was not written by ztwin"):
        write_dir(target, {"index.html": "i2", "cpu.html": "c2"})
    assert (target / "cpu.html").read_text() == "the user's"
    assert (target / "index.html").read_text() == "i1"  # nothing moved
    assert leftovers(target) == [MARKER]


def test_legacy_marker_allows_rewrite_but_removes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "html"
    target.mkdir()
    (target / ".ztwin-report").write_text("written by ztwin report\n")
    (target / "index.html").write_text("old")
    (target / "old.html").write_text("old")
    write_dir(target, {"index.html": "new"})
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "index.html", "old.html"]


def test_directory_symlink_needs_force(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(OutputError, match="is a symbolic link"):
        OutputDir(link)
    write_dir(link, {"index.html": "i"}, force=True)
    assert link.is_symlink()
    assert (real / "index.html").read_text() == "i"


@pytest.mark.parametrize("existing", [False, True])
def test_directory_error_leaves_no_stage(tmp_path: Path, existing: bool) -> None:
    target = tmp_path / "html"
    if existing:
        write_dir(target, {"index.html": "i"})
    with pytest.raises(RuntimeError), OutputDir(target) as out:
        (out.stage / "index.html").write_text("half")
        raise RuntimeError("boom")
    assert leftovers(tmp_path) == []
    if existing:
        assert (target / "index.html").read_text() == "i"
        assert leftovers(target) == [MARKER]
    else:
        assert not target.exists()


def test_files_in_folders(tmp_path: Path) -> None:
    target = tmp_path / "keep"
    with OutputDir(target) as out:
        (out.stage / "s1").mkdir()
        (out.stage / "s1" / "a.monwrite").write_text("a")
        (out.stage / "s2").mkdir()
        (out.stage / "s2" / "b.monwrite").write_text("b")
        out.commit()
    marker = [ln for ln in (target / MARKER).read_text().splitlines() if not ln.startswith("#")]
    assert marker == ["s1/a.monwrite", "s2/b.monwrite"]
    (target / "s1" / "notes").write_text("mine")
    with OutputDir(target) as out:
        (out.stage / "s1").mkdir()
        (out.stage / "s1" / "a.monwrite").write_text("a2")
        out.commit()
    assert (target / "s1" / "a.monwrite").read_text() == "a2"
    assert (target / "s1" / "notes").read_text() == "mine"
    assert not (target / "s2").exists()  # only ztwin's file was in it
    assert leftovers(target) == [MARKER]


def test_a_marker_cannot_point_outside(tmp_path: Path) -> None:
    target = tmp_path / "html"
    write_dir(target, {"index.html": "i"})
    (tmp_path / "precious").write_text("keep")
    with (target / MARKER).open("a") as f:
        f.write("../precious\n/etc/passwd\n")
    write_dir(target, {"index.html": "i2"})
    assert (tmp_path / "precious").read_text() == "keep"
