"""The text work of extraction: fast paths that must give what the general rules give."""

from __future__ import annotations

import random

import pytest
from tree_sitter import QueryCursor

from sgkr.ingest.extract import (
    _QUERY,
    _dedent,
    _dedent_at,
    _indent_rest,
    _parser,
    extract_module,
)

PIECES = [" ", "  ", "    ", "\t", "\n", "\n    ", "\n        ", "\n  ", "\n\t", "x", "def f():",
          "\r", "\x0c", '"""', "# c", "\n\n"]


def _general(text: str, column: int) -> str:
    # What a node's code was before the fast path: the margin put back, then dedented.
    return (_dedent(" " * column + text) if "\n" in text else _dedent(text)).strip("\n")


def test_dedent_at_gives_what_the_general_dedent_gives() -> None:
    rng = random.Random(11)
    for _ in range(4000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        column = rng.choice([0, 0, 1, 2, 4, 4, 8])
        assert _dedent_at(text, column) == _general(text, column), (text, column)


def test_dedent_at_on_a_method_keeps_its_inner_margin() -> None:
    method = 'def f(self):\n        """Doc.\n\n        More."""\n        return 1'
    assert _dedent_at(method, 4) == 'def f(self):\n    """Doc.\n\n    More."""\n    return 1'
    ragged = "def g():\n    s = '''\nflush left'''\n    return s"
    assert _dedent_at(ragged, 4) == _general(ragged, 4)
    assert "\nflush left" in _dedent_at(ragged, 4)


def test_docstring_needs_no_second_dedent() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        once = _indent_rest(text)
        assert _dedent(once).strip() == once.strip(), repr(text)


def test_the_query_captures_what_extraction_reads() -> None:
    source = ("import os\nfrom a import b\nclass C(B):\n    def m(self):\n"
              "        f(x['k'])\n        self.g()\n")
    root = _parser().parse(source.encode()).root_node
    captures = QueryCursor(_QUERY).captures(root)
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


def test_ascii_and_non_ascii_files_extract_alike() -> None:
    source = ("class Fees:\n    def total(self, rows):\n        '''Sum.'''\n"
              "        return sum(r['amount'] for r in rows) + self.fixed()\n")
    plain = extract_module("m.py", source)
    accented = extract_module("m.py", source + "# prix en €\n")
    assert plain.definitions == accented.definitions
    surrogate = extract_module("m.py", source + "x = '\udcff'\n")
    assert surrogate.definitions[1:] == plain.definitions
