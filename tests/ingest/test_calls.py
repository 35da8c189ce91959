"""Call sites read off the syntax tree, in ASCII and other files alike."""

from __future__ import annotations

import pytest
from tree_sitter import QueryCursor

from sgkr.ingest.extract import extract_module
from sgkr.ingest.syntax import QUERY, parser


def test_the_query_captures_what_extraction_reads() -> None:
    source = ("import os\nfrom a import b\nclass C(B):\n    def m(self):\n"
              "        f(x['k'])\n        self.g()\n")
    root = parser().parse(source.encode()).root_node
    captures = QueryCursor(QUERY).captures(root)
    assert set(captures) == {"def", "def.name", "class", "class.name", "call.plain",
                             "call.attr", "import", "key", "use.args"}
    assert [n.text for n in captures["call.attr"]] == [b"self.g"]


@pytest.mark.parametrize("call", [
    "a.b()", "a.b.c()", "self.rows.append(x)", "None.f()", "True.f()", "a . b()", "a.\\\n  b()",
    "super().f()", "f().g()", "a.b().c()", "x[0].y()", "'s'.join(p)", "(a).b()", "a.b(c.d()).e()",
    "print.f()", "_1.__f__()",
])
def test_calls_read_off_dotted_text_are_what_the_tree_gives(call: str) -> None:
    source = f"def f():\n    return {call}\n"
    fast = extract_module("m.py", source)
    general = extract_module("m.py", source + "# \u00e9\n")  # not ASCII: read from the tree
    assert fast.definitions[0].calls == general.definitions[0].calls
    assert fast.definitions[0].calls


CALLS = [  # a call expression, and the call sites read: (kind, name, receiver)
    ("f()", [("plain", "f", None)]),
    ("a.b()", [("attribute", "b", "a")]),
    ("a.b.c()", [("attribute", "c", "a.b")]),
    ("a . b()", [("attribute", "b", "a")]),
    ("None.f()", [("attribute", "f", None)]),
    ("super().f()", [("plain", "super", None), ("super", "f", None)]),
    ("A().f()", [("plain", "A", None), ("attribute", "f", "A()")]),
    ("x[0].y()", [("attribute", "y", None)]),
    ("x[k]()", [("subscript", "x", None)]),
    ("make()()", [("plain", "make", None), ("result", "make", None)]),
    ("f(g(x))", [("plain", "f", None), ("plain", "g", None)]),
]


@pytest.mark.parametrize(("call", "expected"), CALLS, ids=[c for c, _ in CALLS])
def test_call_sites(call: str, expected: list[tuple[str, str, str | None]]) -> None:
    (f,) = extract_module("m.py", f"def f():\n    return {call}\n").definitions
    found = [(c.kind, c.name, None if c.receiver is None else str(c.receiver))
             for c in f.calls]
    assert found == expected


@pytest.mark.parametrize("body", [
    "a" + ".b()" * 40_000,  # issue 33's M5: 149 s when extraction was quadratic
    "f(" * 40_000 + ")" * 40_000,
    "x" + "[0]" * 40_000,
    "1" + " + 1" * 40_000,
])
@pytest.mark.slow
def test_long_chains_are_read_in_linear_time_and_their_depth_reported(body: str) -> None:
    m = extract_module("m.py", f"x = {body}\n")
    assert [p.kind for p in m.problems] == ["syntax"]
    assert "nested more than" in m.problems[0].reason
    calls = [c for d in m.definitions for c in d.calls]
    assert len(calls) in (0, 4_999, 5_000)  # the calls above the depth read
