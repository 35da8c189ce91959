"""Source text by node, dotted names, and how deep a tree is."""

from __future__ import annotations

import pytest

from sgkr.ingest.syntax import Source, deeper_than


def _value(code: str) -> Source:
    return Source("m.py", "m", f"x = {code}\n")


@pytest.mark.parametrize(("code", "dotted"), [
    ("a", "a"), ("a.b.c", "a.b.c"), ("a . b", "a.b"), ("None.x", None), ("a().b", None),
    ("a[0].b", None), ("'s'.join", None), ("(a).b", None),
    ("a" + ".b" * 300, "a" + ".b" * 300),  # long: told by its structure
    ("a" + ".b()" * 300 + ".c", None),
])
def test_dotted_names(code: str, dotted: str | None) -> None:
    source = _value(code)
    value = source.parse().named_children[0].named_children[0].named_children[1]
    assert source.dotted(value) == dotted


def test_deeper_than_walks_only_what_can_be_that_deep() -> None:
    root = _value("f(" * 50 + ")" * 50).parse()
    assert deeper_than(root, 50) and not deeper_than(root, 200)
