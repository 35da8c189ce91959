"""Finding and decoding files; bad files are skipped and reported, never fatal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sgkr.errors import SourceError
from sgkr.ingest.sources import decoded, is_test_file, module_name, read_sources


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
    # the src layout: the module is named as it is imported, without "src."
    ("src/flask/app.py", "flask.app"), ("src/flask/__init__.py", "flask"),
    ("src/single.py", "single"), ("src/__init__.py", "src"), ("lib/src/mod.py", "lib.src.mod"),
])
def test_module_name(path: str, module: str) -> None:
    assert module_name(path) == module


@pytest.mark.parametrize("path,test", [
    ("tests/test_app.py", True), ("tests/helpers.py", True), ("pkg/tests/util.py", True),
    ("test/app.py", True), ("testing/fixtures.py", True), ("pkg/test_app.py", True),
    ("pkg/app_test.py", True), ("conftest.py", True), ("pkg/conftest.py", True),
    ("pkg/tests.py", True), ("nb/test_explore.ipynb", True),
    ("pkg/app.py", False), ("pkg/testing.py", False), ("pkg/latest.py", False),
    ("pkg/contest.py", False), ("pkg/attest/app.py", False), ("src/flask/testing.py", False),
])
def test_test_files_follow_pytest_and_unittest_conventions(path: str, test: bool) -> None:
    assert is_test_file(path) is test


def test_a_src_layout_resolves_its_own_imports(tmp_path: Path) -> None:
    """Issue 40: ``src/pkg`` code imports ``pkg``; its calls resolve and its ids say ``pkg``."""
    from sgkr import build_graph

    _write(tmp_path, "src/pkg/__init__.py", b"")
    _write(tmp_path, "src/pkg/core.py", b"from pkg.util import helper\n"
                                        b"def run():\n    return helper()\n")
    _write(tmp_path, "src/pkg/util.py", b"def helper():\n    return 1\n")
    graph = build_graph([tmp_path])
    assert graph.callees("fn:pkg.core.run") == ["fn:pkg.util.helper"]


def test_gitignore_and_default_folders_are_left_out_and_reported(tmp_path: Path) -> None:
    _write(tmp_path, "app/main.py", b"x = 1\n")
    _write(tmp_path, ".gitignore", b"generated/\n*_local.py\n!keep_local.py\n")
    _write(tmp_path, "generated/gen.py", b"x = 1\n")
    _write(tmp_path, "app/conf_local.py", b"x = 1\n")
    _write(tmp_path, "app/keep_local.py", b"x = 1\n")
    _write(tmp_path, "app/.gitignore", b"!conf_local.py\nscratch.py\n")  # the deeper file decides
    _write(tmp_path, "app/scratch.py", b"x = 1\n")
    _write(tmp_path, "venv/pyvenv.cfg", b"home = /usr/bin\n")
    _write(tmp_path, "venv/lib/python3.12/site-packages/dep/mod.py", b"x = 1\n")
    _write(tmp_path, "lib/site-packages/dep.py", b"x = 1\n")
    _write(tmp_path, "web/node_modules/pkg/x.py", b"x = 1\n")
    _write(tmp_path, "build/lib/app/main.py", b"x = 1\n")
    _write(tmp_path, "dist/x.py", b"x = 1\n")
    _write(tmp_path, "app.egg-info/x.py", b"x = 1\n")
    _write(tmp_path, "steps/build/__init__.py", b"x = 1\n")  # a package named build is read
    _write(tmp_path, "__pycache__/m.py", b"x = 1\n")
    _write(tmp_path, ".git/hooks/h.py", b"x = 1\n")
    files, problems = read_sources([tmp_path])
    assert [f.path for f in files] == [
        "app/conf_local.py", "app/keep_local.py", "app/main.py", "steps/build/__init__.py"]
    assert {p.file: p.reason for p in problems} == {
        "generated": "ignored by .gitignore",
        "app/scratch.py": "ignored by .gitignore",
        "venv": "virtual environment left out",
        "lib/site-packages": "site-packages left out",
        "web/node_modules": "node_modules left out",
        "build": "build folder left out",
        "dist": "build folder left out",
        "app.egg-info": "build folder left out",
    }


def test_left_out_folders_are_read_when_named(tmp_path: Path) -> None:
    _write(tmp_path, ".gitignore", b"generated/\n")
    _write(tmp_path, "generated/gen.py", b"x = 1\n")
    _write(tmp_path, "venv/pyvenv.cfg", b"home = /usr/bin\n")
    _write(tmp_path, "venv/tool.py", b"x = 1\n")
    _write(tmp_path, "main.py", b"x = 1\n")
    files, problems = read_sources([tmp_path, tmp_path / "generated", tmp_path / "venv"])
    assert [f.path for f in files] == ["generated/gen.py", "main.py", "venv/tool.py"]
    assert problems == []
    files, _ = read_sources([tmp_path / "venv"])
    assert [f.path for f in files] == ["tool.py"]


def test_gitignore_can_be_switched_off(tmp_path: Path) -> None:
    _write(tmp_path, ".gitignore", b"*.py\n")
    _write(tmp_path, "a.py", b"x = 1\n")
    assert read_sources([tmp_path])[0] == []
    assert [f.path for f in read_sources([tmp_path], gitignore=False)[0]] == ["a.py"]


def test_a_bad_gitignore_is_reported_not_fatal(tmp_path: Path) -> None:
    _write(tmp_path, ".gitignore", b"x" * 1_000_001)
    _write(tmp_path, "a.py", b"x = 1\n")
    files, problems = read_sources([tmp_path])
    assert [f.path for f in files] == ["a.py"]
    assert [(p.file, "not applied" in p.reason) for p in problems] == [(".gitignore", True)]


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_symlinked_gitignore_is_not_followed(tmp_path: Path) -> None:
    _write(tmp_path, "outside/rules", b"*.py\n")
    _write(tmp_path, "tree/a.py", b"x = 1\n")
    (tmp_path / "tree" / ".gitignore").symlink_to(tmp_path / "outside" / "rules")
    assert [f.path for f in read_sources([tmp_path / "tree"])[0]] == ["a.py"]


def test_an_unreadable_named_folder_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sgkr.ingest.sources

    _write(tmp_path, "locked/a.py", b"x = 1\n")
    real_scandir = os.scandir

    def scandir(path: Path) -> object:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(sgkr.ingest.sources.os, "scandir", scandir)
    _, problems = read_sources([tmp_path / "locked"])
    assert [p.reason for p in problems] == ["folder not readable: Permission denied"]


@pytest.mark.parametrize(("coding", "read"), [
    ("latin-1", True), ("utf-8-unix", True), ("latin-1-dos", True), ("euc-jp", True),
    ("cp1252", True), ("punycode", False), ("idna", False), ("utf-7", False),
    ("unicode_escape", False), ("rot13", False), ("zlib", False), ("nonesuch", False),
])
def test_only_coding_lines_of_linear_text_encodings_are_read(coding: str, read: bool) -> None:
    text, problem = decoded(f"# coding: {coding}\nx = 1\n".encode("ascii"), "m.py")
    assert (text is not None) is read
    if not read:
        assert problem is not None and coding in problem.reason


@pytest.mark.slow
def test_m4_a_large_punycode_file_is_refused_at_once(tmp_path: Path) -> None:
    # Issue 33, M4: decoding punycode is quadratic (a 4 MB file: minutes).
    body = "# coding: punycode\n" + "x = '\u00e9'\n" * 500_000
    (tmp_path / "p.py").write_bytes(body.encode("punycode"))
    files, problems = read_sources([tmp_path])
    assert files == [] and "punycode" in problems[0].reason
