"""What names are given, returned and passed: the facts the resolver reads."""

from __future__ import annotations

import pytest

from sgkr.ingest.extract import extract_module
from sgkr.records import BindingKind, Definition, Index, NameChange, Position, Slice

# What a function's names are given, as the resolver reads it: (source of the body of
# ``def f(p, q):``, the facts expected in f, in order: bindings as (target, value, kind),
# returns as "return", arguments as (slot, callee, value)).
A, H = "assigned", "holds"
BINDINGS = [
    ("a, *b = g, h, k\n    a(); b()", [("a", "g", H), ("b", "h", H), ("b", "k", H)]),
    ("a, b = make()\n    b()", [("b", "make()", A)]),  # a is never used
    ("a = b = g\n    b()", [("b", "g", H)]),
    ("d = {}\n    d[p] = g\n    d[q]()", [("d", "g", H)]),
    ("x = d[p]\n    x()", [("x", "d[p]", H)]),  # p: known when it is a constant
    ("x = d[p + 1]\n    x()", [("x", "d", H)]),  # a key syntax does not tell
    ("x = fs[1:][-1]\n    x()", [("x", "fs[1:][-1]", H)]),
    ("for fn in gen():\n        fn()", [("fn", "gen()", H)]),
    ("with Ctx() as c:\n        c.go()", [("c", "Ctx()", H)]),
    ("try:\n        pass\n    except (E, F) as e:\n        e.info()",
     [("e", "E()", A), ("e", "F()", A)]),
    ("yield g", ["return g"]),
    ("return g, h", ["return g", "return h"]),
    ("return make()", ["return make()"]),
    ("it = next(p)\n    it()", [("it", "p", H)]),
    ("fs = []\n    fs.append(g)\n    fs[0]()", [("fs", "g", H), (0, "fs.append", "g")]),
    ("apply(g, key=h, *p)", [(0, "apply", "g"), ("key", "apply", "h")]),
    ("run([g, h], Parser())", [(0, "run", "g"), (0, "run", "h"), (1, "run", "Parser()")]),
    ("A().call(g)", [(0, "A().call", "g")]),
    ("print(g)\n    s.join(p)", []),  # builtins and their types' methods tell nothing
    ("x = 1\n    y = make()", []),  # neither called, passed nor returned
]


def _facts(d: Definition) -> list[object]:
    return [*((b.target, str(b.value), b.kind.value) for b in d.bindings),
            *(f"return {r}" for r in d.returns),
            *((a.slot, a.call.callee, str(a.value)) for a in d.arguments)]


@pytest.mark.parametrize(("body", "expected"), BINDINGS, ids=[b for b, _ in BINDINGS])
def test_bindings_by_statement(body: str, expected: list[object]) -> None:
    m = extract_module("m.py", f"def f(p, q):\n    {body}\n")
    (f,) = m.definitions
    assert _facts(f) == expected


def test_decorators_defaults_raise_and_calls_on_results() -> None:
    m = extract_module("m.py", "class A:\n    @dec\n    def m(self, fn=g):\n        fn()\n"
                               "@mod.dec\ndef f():\n    raise Bad\n    make()()\n")
    body, method, function = m.definitions
    # The decorator is called with the function, where it is written (the module here).
    assert _facts(body) == [(0, "dec", "A.m"), (0, "mod.dec", "f")]
    assert method.decorators == ("dec",) and _facts(method) == [("fn", "g", H)]
    assert function.decorators == ("mod.dec",) and _facts(function) == []
    assert [(c.kind, c.name) for c in function.calls] == [
        ("plain", "Bad"), ("plain", "make"), ("result", "make")]
    assert BindingKind.ASSIGNED.value == A


def test_lists_and_tuples_written_out_keep_positions() -> None:
    m = extract_module("m.py", "fs = [f, 1, g]\nts = (f, *gs)\nfs[0]()\nfs[K:][0]()\n"
                               "fs[0][1]()\nd['k']()\n")
    (body,) = m.definitions
    assert [(b.target, str(b.value), b.position) for b in body.bindings] == [
        ("fs", "f", Position(0, 3)), ("fs", "g", Position(2, 3)),
        ("ts", "f", None)]  # by a starred item: positions not known
    # An item of an item is not read; a string key is no position.
    assert [(c.name, c.index) for c in body.calls] == [
        ("fs", (Index(0),)), ("fs", (Slice("K"), Index(0))), ("d", ())]


def test_names_changed_without_a_binding() -> None:
    m = extract_module("m.py", "K = 2\nN = -1\nS = 'a'\nfs = [f]\nfs[0] = g\nfs += [h]\n"
                               "del fs[0], x\ndef run():\n    global K\n    for i in r:\n"
                               "        pass\n")
    body, run = m.definitions
    assert body.changes == (NameChange("K", 2), NameChange("N", -1), NameChange("S"),
                            NameChange("fs"), NameChange("x"))
    assert run.changes == (NameChange("K"), NameChange("i"))
