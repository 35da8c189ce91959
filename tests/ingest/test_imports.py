"""Names bound by imports, relative imports made absolute."""

from __future__ import annotations

from sgkr.ingest.extract import extract_module


def test_relative_imports_are_made_absolute_and_those_above_the_top_dropped() -> None:
    m = extract_module("pkg/sub/mod.py", "from . import a\nfrom ..b import c as d\n"
                                         "from .... import e\nimport x.y\nfrom z import *\n")
    assert [(b.alias, b.target) for b in m.imports] == [
        ("a", "pkg.sub.a"), ("d", "pkg.b.c"), ("x", "x"), ("x.y", "x.y"), ("*", "z")]


def test_imports_in_a_function_are_its_own() -> None:
    m = extract_module("m.py", "def f():\n    import os\n    os.getcwd()\n")
    assert [(b.scope, b.alias) for b in m.imports] == [("m.f", "os")]
