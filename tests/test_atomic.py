"""Output files are written atomically and never through a symlink."""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

import pytest

from sgkr.atomic import remove_orphans, write_atomic
from sgkr.errors import InvalidArgumentError


def test_text_and_bytes_are_written_whole_with_the_usual_mode(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    os.umask(mask)
    assert write_atomic(tmp_path / "a" / "b.txt", "héllo") == tmp_path / "a" / "b.txt"
    assert (tmp_path / "a" / "b.txt").read_text(encoding="utf-8") == "héllo"
    assert os.stat(tmp_path / "a" / "b.txt").st_mode & 0o777 == 0o666 & ~mask
    write_atomic(tmp_path / "key", b"\x00\x01", mode=0o600)
    assert (tmp_path / "key").read_bytes() == b"\x00\x01"
    assert os.stat(tmp_path / "key").st_mode & 0o777 == 0o600


@pytest.mark.parametrize("target", ["file", "folder", "dangling"])
def test_a_symlink_at_the_path_is_replaced_never_followed(tmp_path: Path, target: str) -> None:
    victim = tmp_path / "victim"
    if target == "file":
        victim.write_text("precious")
    elif target == "folder":
        victim.mkdir()
    (tmp_path / "out").symlink_to(victim)
    write_atomic(tmp_path / "out", "new")
    assert not (tmp_path / "out").is_symlink() and (tmp_path / "out").read_text() == "new"
    if target == "file":
        assert victim.read_text() == "precious"
    elif target == "folder":
        assert list(victim.iterdir()) == []
    else:
        assert not victim.exists()


def test_a_folder_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    with pytest.raises(IsADirectoryError, match="out"):
        write_atomic(tmp_path / "out", "x")


def test_a_failed_write_keeps_the_old_file_and_names_the_target(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "out").write_text("old")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space") as info:
        write_atomic(tmp_path / "out", "new")
    assert info.value.filename == str(tmp_path / "out")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert (tmp_path / "out").read_text() == "old"


@pytest.mark.parametrize(("path", "data"), [(None, "x"), ("", "x"), ("out", 3)])
def test_bad_arguments_are_named(tmp_path: Path, path: object, data: object) -> None:
    with pytest.raises(InvalidArgumentError):
        write_atomic(path if path is None or path == "" else tmp_path / str(path),  # type: ignore[arg-type]
                     data)  # type: ignore[arg-type]


def test_orphans_of_dead_writers_go_and_live_ones_stay(tmp_path: Path) -> None:
    (tmp_path / f".out.{os.getpid()}.live.tmp").write_text("x")
    (tmp_path / ".out.999999999.dead.tmp").write_text("x")
    (tmp_path / ".other.999999999.dead.tmp").write_text("x")
    assert remove_orphans(tmp_path, "out") == [".out.999999999.dead.tmp"]
    write_atomic(tmp_path / "out", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([
        f".out.{os.getpid()}.live.tmp", ".other.999999999.dead.tmp", "out"])


def test_a_writer_writes_into_the_file_and_a_failing_one_keeps_the_old(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("old")

    def write(handle: BinaryIO) -> None:
        handle.write(b"new ")
        handle.seek(0)  # a writer may go back (a zip archive rewrites its headers)
        handle.write(b"NEW")

    write_atomic(tmp_path / "out", write)
    assert (tmp_path / "out").read_bytes() == b"NEW "

    def fail(handle: BinaryIO) -> None:
        handle.write(b"half")
        raise ValueError("stopped")

    with pytest.raises(ValueError, match="stopped"):
        write_atomic(tmp_path / "out", fail)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert (tmp_path / "out").read_bytes() == b"NEW "
