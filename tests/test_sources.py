"""Finding and decoding files; bad files are skipped and reported, never fatal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sgkr.errors import SourceError
from sgkr.sources import module_name, read_sources


def _write(root: Path, rel: str, data: bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_folders_are_walked_and_bad_files_reported(tmp_path: Path) -> None:
    _write(tmp_path, "pkg/good.py", b"def f():\n    pass\n")
    _write(tmp_path, "pkg/empty.py", b"")
    _write(tmp_path, "pkg/binary.py", b"\x00\x01\x02def")
    _write(tmp_path, "pkg/bad_utf8.py", b"x = '\xff\xfe\xfa'\n")
    _write(tmp_path, "pkg/latin.py", b"# -*- coding: latin-1 -*-\nx = '\xe9'\n")
    _write(tmp_path, "pkg/utf16.py", "x = 'é'\n".encode("utf-16"))
    _write(tmp_path, "pkg/big.py", b"x = 1\n" * 100)
    _write(tmp_path, "pkg/notes.txt", b"not python")
    _write(tmp_path, ".hidden/h.py", b"x = 1\n")
    files, problems = read_sources([tmp_path], max_file_bytes=500)
    assert [f.path for f in files] == ["pkg/good.py", "pkg/latin.py", "pkg/utf16.py"]
    assert files[1].text.endswith("x = 'é'\n")
    reasons = {p.file: p.reason for p in problems}
    assert set(reasons) == {"pkg/empty.py", "pkg/binary.py", "pkg/bad_utf8.py", "pkg/big.py"}
    assert "empty" in reasons["pkg/empty.py"]
    assert "too large" in reasons["pkg/big.py"]
    assert all(p.kind == "skipped" for p in problems)


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_symlink_loops_and_escapes_are_skipped(tmp_path: Path) -> None:
    _write(tmp_path, "outside/o.py", b"x = 1\n")
    _write(tmp_path, "tree/a.py", b"x = 1\n")
    (tmp_path / "tree" / "loop").symlink_to(tmp_path / "tree")
    (tmp_path / "tree" / "up").symlink_to(tmp_path / "outside")
    files, problems = read_sources([tmp_path / "tree"])
    assert [f.path for f in files] == ["a.py"]
    assert {p.file for p in problems} == {"loop", "up"}


def test_exclude_patterns(tmp_path: Path) -> None:
    _write(tmp_path, "lib/a.py", b"x = 1\n")
    _write(tmp_path, "lib/tests/test_a.py", b"x = 1\n")
    _write(tmp_path, "lib/b_test.py", b"x = 1\n")
    files, _ = read_sources([tmp_path], exclude=["tests", "*_test.py"])
    assert [f.path for f in files] == ["lib/a.py"]


def test_missing_path_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="nowhere"):
        read_sources([tmp_path / "nowhere"])


def test_in_memory_sources() -> None:
    files, problems = read_sources([("a/b.py", "x = 1\n")])
    assert (files[0].path, files[0].module, problems) == ("a/b.py", "a.b", [])


@pytest.mark.parametrize("path,module", [
    ("pkg/__init__.py", "pkg"), ("pkg/mod.py", "pkg.mod"), ("script.py", "script"),
])
def test_module_name(path: str, module: str) -> None:
    assert module_name(path) == module
