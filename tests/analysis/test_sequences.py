"""Items of lists and tuples written out, picked by subscripts whose keys syntax tells."""

from __future__ import annotations

import pytest

from sgkr.analysis.resolve import resolve_calls
from sgkr.analysis.sequences import pick
from sgkr.ingest.extract import extract_module
from sgkr.records import Index, Selector, Slice


@pytest.mark.parametrize(("length", "selectors", "expected"), [
    (3, (Index(0),), 0),
    (3, (Index(-1),), 2),
    (3, (Index(3),), None),  # past the end
    (3, (Slice(1, 3),), range(1, 3)),
    (3, (Slice(1, 3), Index(0)), 1),
    (3, (Slice(None, None, -1), Index(0)), 2),
    (3, (Slice(None, None, 0),), None),  # a step of 0 raises
    (3, (Index(0), Index(0)), None),  # an item of an item
    (3, (Index("K"),), None),  # a name not replaced by its integer
])
def test_pick(length: int, selectors: tuple[Selector, ...], expected: object) -> None:
    assert pick(length, selectors) == expected


_FG = "def f():\n    pass\ndef g():\n    pass\nFS = [f, g]\n"


@pytest.mark.parametrize(("code", "expected"), [
    ("K = 1\ndef run():\n    FS[K]()\n", ["m.g"]),
    # A function's own K is not the module's: all items.
    ("K = 1\ndef run():\n    K = 0\n    FS[K]()\n", ["m.f", "m.g"]),
    ("K = 1\ndef bump():\n    global K\n    K = 0\ndef run():\n    FS[K]()\n", ["m.f", "m.g"]),
    ("K = 1\nK += 1\ndef run():\n    FS[K]()\n", ["m.f", "m.g"]),
    ("def run():\n    FS.reverse()\n    FS[0]()\n", ["m.f", "m.g"]),
    ("def run():\n    shuffle(FS)\n    FS[0]()\n", ["m.f", "m.g"]),
    ("def run():\n    gs = FS\n    FS[0]()\n", ["m.f", "m.g"]),
    ("def run():\n    FS[0 + 1]()\n", ["m.f", "m.g"]),
    ("def run(i):\n    FS[i]()\n", ["m.f", "m.g"]),
    ("def run():\n    x = FS[1]\n    x()\n", ["m.g"]),
])
def test_a_key_or_a_list_not_known_gives_all_items(code: str, expected: list[str]) -> None:
    edges = resolve_calls([extract_module("m.py", _FG + code)])
    assert sorted(b for a, b, _ in edges if a == "m.run") == expected
