"""The text of definitions: dedented code and docstrings; fast paths give what rules give."""

from __future__ import annotations

import random
import textwrap

from sgkr.ingest.codetext import dedent, dedent_at, indent_rest


def test_dedent_is_textwrap_dedent() -> None:
    rng = random.Random(7)
    pieces = [" ", "\t", "\n", "x", "\r", "\x0c", "    ", "\n    ", "\n\t", "\n  y"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert dedent(text) == textwrap.dedent(text), repr(text)


PIECES = [" ", "  ", "    ", "\t", "\n", "\n    ", "\n        ", "\n  ", "\n\t", "x", "def f():",
          "\r", "\x0c", '"""', "# c", "\n\n"]


def _general(text: str, column: int) -> str:
    # What a node's code was before the fast path: the margin put back, then dedented.
    return (dedent(" " * column + text) if "\n" in text else dedent(text)).strip("\n")


def testdedent_at_gives_what_the_general_dedent_gives() -> None:
    rng = random.Random(11)
    for _ in range(4000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        column = rng.choice([0, 0, 1, 2, 4, 4, 8])
        assert dedent_at(text, column) == _general(text, column), (text, column)


def testdedent_at_on_a_method_keeps_its_inner_margin() -> None:
    method = 'def f(self):\n        """Doc.\n\n        More."""\n        return 1'
    assert dedent_at(method, 4) == 'def f(self):\n    """Doc.\n\n    More."""\n    return 1'
    ragged = "def g():\n    s = '''\nflush left'''\n    return s"
    assert dedent_at(ragged, 4) == _general(ragged, 4)
    assert "\nflush left" in dedent_at(ragged, 4)


def test_docstring_needs_no_seconddedent() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        once = indent_rest(text)
        assert dedent(once).strip() == once.strip(), repr(text)
