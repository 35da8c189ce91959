"""Parameters and their kinds, read off a signature's syntax tree."""

from __future__ import annotations

import pytest

from sgkr.ingest.extract import extract_module
from sgkr.records import ParameterKind

P, PO, K = ParameterKind.POSITIONAL, ParameterKind.POSITIONAL_ONLY, ParameterKind.KEYWORD_ONLY
STAR, STARS = ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD
# A signature, and its parameters: (name, kind, has a default).
PARAMETERS = [
    ("a, b", [("a", P, False), ("b", P, False)]),
    ("a, /, b", [("a", PO, False), ("b", P, False)]),
    ("a: int = 1, /, *, b", [("a", PO, True), ("b", K, False)]),
    ("*args: int, b=2, **kw: str", [("args", STAR, False), ("b", K, True), ("kw", STARS, False)]),
    ('sep="*,", end="*)"', [("sep", P, True), ("end", P, True)]),  # text that looks like kinds
    ("self, x: 'Tuple[int, *Ts]' = None", [("self", P, False), ("x", P, True)]),
    ("", []),
]


@pytest.mark.parametrize(("signature", "expected"), PARAMETERS, ids=[s for s, _ in PARAMETERS])
def test_parameter_kinds_come_from_the_syntax_tree(
        signature: str, expected: list[tuple[str, ParameterKind, bool]]) -> None:
    (f,) = extract_module("m.py", f"def f({signature}):\n    pass\n").definitions
    assert [(p.name, p.kind, p.default) for p in f.parameters] == expected
