"""Which calls a definition can take, by its parameters' kinds and defaults."""

from __future__ import annotations

import pytest

from sgkr.analysis.signatures import accepts, bound_arguments
from sgkr.ingest.extract import extract_module
from sgkr.records import Arity, Definition


def _definition(source: str, name: str) -> Definition:
    module = extract_module("mod.py", source)
    return next(d for d in module.definitions if d.name == name)


@pytest.mark.parametrize("signature, arity, bound, expected", [
    ("def f(a, b=1):", Arity(1), 0, True),
    ("def f(a, b=1):", Arity(2), 0, True),
    ("def f(a, b=1):", Arity(3), 0, False),  # one too many
    ("def f(a, b=1):", Arity(0), 0, False),  # a is missing
    ("def f(a, b=1):", Arity(0, ("a",)), 0, True),
    ("def f(a, b=1):", Arity(1, ("a",)), 0, False),  # a given twice
    ("def f(a, b=1):", Arity(1, ("c",)), 0, False),  # no parameter c
    ("def f(a, /, b):", Arity(0, ("a", "b")), 0, False),  # a by position only
    ("def f(*args):", Arity(5), 0, True),
    ("def f(**kw):", Arity(0, ("x", "y")), 0, True),
    ("def f(a, *, key):", Arity(1), 0, False),  # key is needed
    ("def f(a, *, key):", Arity(1, ("key",)), 0, True),
    ("def f(a):", Arity(0, (), unpacked=True), 0, True),  # f(*xs): not known
    ("def f(self, a):", Arity(1), 1, True),  # through an object: self first
    ("def f(self, a):", Arity(2), 1, False),
])
def test_a_call_is_taken_as_python_binds_its_arguments(
        signature: str, arity: Arity, bound: int, expected: bool) -> None:
    assert accepts(_definition(f"{signature}\n    pass\n", "f"), arity, bound) is expected


def test_a_method_is_given_its_object_first_but_a_static_method_is_not() -> None:
    source = ("class A:\n    def m(self):\n        pass\n    @staticmethod\n    def s():\n"
              "        pass\n    @classmethod\n    def c(cls):\n        pass\n"
              "def f():\n    pass\n")
    assert [bound_arguments(_definition(source, n)) for n in "mscf"] == [1, 0, 1, 0]
