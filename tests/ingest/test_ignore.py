"""What a walk leaves out: .gitignore rules as git applies them, default folders."""

from __future__ import annotations

import itertools

import pathspec
import pytest

from sgkr.ingest.ignore import IgnoreRules, left_out_folder

PATTERNS = [
    "__pycache__/", "*.py[cod]", "build/", "*.egg-info/", "/site", "docs/_build/", ".env",
    "**/generated", "a/**/b.py", "data/*.csv", "[Tt]emp*.py", r"\#notes.py", "logs", "trail.py  ",
    "nested/deep/", "*~", "x?.py",
]
PATHS = [
    "main.py", "pkg/mod.pyc", "build/", "src/build/", "lib.egg-info/", "site", "sub/site",
    "docs/_build/", "docs/_build/x.py", ".env", "p/.env", "generated", "q/generated/",
    "a/b.py", "a/x/y/b.py", "ab.py", "data/t.csv", "data/sub/t.csv", "Temp1.py", "temp.py",
    "#notes.py", "logs/", "logs", "z/logs/", "trail.py", "nested/deep/", "nested/", "f.py~",
    "x1.py", "x12.py",
]


@pytest.mark.parametrize("size", [1, 3, len(PATTERNS)])
def test_one_expression_decides_as_pathspec_does(size: int) -> None:
    for lines in itertools.islice(itertools.combinations(PATTERNS, size), 60):
        rules = IgnoreRules().with_gitignore("", lines)
        spec = pathspec.GitIgnoreSpec.from_lines(list(lines))
        for path in PATHS:
            is_dir = path.endswith("/")
            expected = bool(spec.check_file(path).include)
            assert rules.ignored(path.rstrip("/"), is_dir=is_dir) is expected, (lines, path)


def test_a_re_included_file_and_the_deeper_gitignore_decide() -> None:
    rules = IgnoreRules().with_gitignore("", ["*.py", "!keep.py"])
    assert rules.ignored("a.py", is_dir=False) and not rules.ignored("keep.py", is_dir=False)
    deeper = rules.with_gitignore("sub/", ["!a.py"])
    assert not deeper.ignored("sub/a.py", is_dir=False) and deeper.ignored("b.py", is_dir=False)
    assert IgnoreRules().with_gitignore("", ["# only a comment", ""]).specs == ()


@pytest.mark.parametrize("name,entries,reason", [
    ("venv", {"pyvenv.cfg"}, "virtual environment left out"),
    ("env", {"conda-meta", "lib"}, "virtual environment left out"),
    ("site-packages", set(), "site-packages left out"),
    ("node_modules", set(), "node_modules left out"),
    ("dist", {"pkg-1.0.tar.gz"}, "build folder left out"),
    ("build", {"__init__.py"}, None),
    ("src", {"__init__.py"}, None),
])
def test_default_folders(name: str, entries: set[str], reason: str | None) -> None:
    assert left_out_folder(name, entries) == reason
