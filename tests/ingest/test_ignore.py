"""What a walk leaves out: .gitignore rules as git applies them, default folders."""

from __future__ import annotations

import pytest

from sgkr.ingest.ignore import IgnoreRules, left_out_folder


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
