"""Definitions, kinds, qualnames, knowledge sources and syntax errors from one file."""

from __future__ import annotations

import pytest

from sgkr.errors import InvalidArgumentError
from sgkr.ingest.extract import extract_module
from sgkr.records import BindingKind, Definition, Parameter, ParameterKind

SOURCE = '''"""Module docstring."""
import os

# Knowledge above the function:
# fees are in euro cents.
@decorator
async def compute_fee(rule, amount: float = 1.0, *args, **kwargs) -> float:
    """fee = fixed_amount + rate * amount / 10000."""
    value = rule["fixed_amount"]
    def nested():
        return value
    return nested()


class Account:
    def balance(self):
        return 0


total = compute_fee({}, 2.0)
'''


@pytest.fixture(scope="module")
def module():  # type: ignore[no-untyped-def]
    return extract_module("pkg/fees.py", SOURCE)


def test_every_definition_is_found_with_its_kind(module) -> None:  # type: ignore[no-untyped-def]
    kinds = {d.qualname: d.kind for d in module.definitions}
    assert kinds == {
        "pkg.fees": "module",
        "pkg.fees.compute_fee": "function",
        "pkg.fees.compute_fee.nested": "function",
        "pkg.fees.Account.balance": "method",
    }


def test_knowledge_sources_and_parameters(module) -> None:  # type: ignore[no-untyped-def]
    fee = next(d for d in module.definitions if d.name == "compute_fee")
    assert fee.docstring == "fee = fixed_amount + rate * amount / 10000."
    assert fee.comment == "Knowledge above the function:\nfees are in euro cents."
    assert fee.params == ("rule", "amount", "args", "kwargs")
    assert fee.is_async
    assert fee.subscript_keys == ("fixed_amount",)
    assert fee.code.startswith("@decorator\nasync def compute_fee(")
    assert (fee.span.start_line, fee.span.end_line) == (6, 12)
    assert fee.parameters == (
        Parameter("rule"), Parameter("amount", default=True),
        Parameter("args", ParameterKind.VAR_POSITIONAL),
        Parameter("kwargs", ParameterKind.VAR_KEYWORD))


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


def test_module_body_is_its_own_node(module) -> None:  # type: ignore[no-untyped-def]
    body = module.definitions[0]
    assert body.kind == "module" and body.name == "fees"
    assert body.docstring == "Module docstring."
    assert "total = compute_fee({}, 2.0)" in body.code
    assert "def compute_fee" not in body.code
    # The module applies the decorator (a call of it) and calls compute_fee.
    assert [c.name for c in body.calls] == ["decorator", "compute_fee"]


def test_library_module_without_code_has_no_body_node() -> None:
    m = extract_module("lib.py", "import os\n\ndef f():\n    pass\n")
    assert [d.kind for d in m.definitions] == ["function"]


def test_method_code_is_dedented(module) -> None:  # type: ignore[no-untyped-def]
    method = next(d for d in module.definitions if d.name == "balance")
    assert method.code == "def balance(self):\n    return 0"
    assert method.enclosing_class == "pkg.fees.Account"


def test_syntax_error_is_reported_and_later_functions_survive() -> None:
    source = "def good():\n    pass\n\ndef broken(:\n    x = (\n\ndef after():\n    good()\n"
    m = extract_module("m.py", source)
    names = {d.name for d in m.definitions}
    assert {"good", "after"} <= names
    assert m.problems and m.problems[0].kind == "syntax"
    assert m.problems[0].line is not None and m.problems[0].line >= 4


def test_non_ascii_offsets_are_bytes() -> None:
    m = extract_module("m.py", "# é\ndef f():\n    \"\"\"Prix en €.\"\"\"\n    g()\n")
    f = m.definitions[0]
    assert f.docstring == "Prix en €." and f.calls[0].name == "g"


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="path"):
        extract_module("", "x = 1")
    with pytest.raises(InvalidArgumentError, match="m.py"):
        extract_module("m.py", b"x = 1")  # type: ignore[arg-type]


def test_dedent_is_textwrap_dedent() -> None:
    import random
    import textwrap

    from sgkr.ingest.extract import _dedent

    rng = random.Random(7)
    pieces = [" ", "\t", "\n", "x", "\r", "\x0c", "    ", "\n    ", "\n\t", "\n  y"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert _dedent(text) == textwrap.dedent(text), repr(text)


# What a function's names are given, as the resolver reads it: (source of the body of
# ``def f(p, q):``, the facts expected in f, in order: bindings as (target, value, kind),
# returns as "return", arguments as (slot, callee, value)).
A, H = "assigned", "holds"
BINDINGS = [
    ("a, *b = g, h, k\n    a(); b()", [("a", "g", H), ("b", "h", H), ("b", "k", H)]),
    ("a, b = make()\n    b()", [("b", "make()", A)]),  # a is never used
    ("a = b = g\n    b()", [("b", "g", H)]),
    ("d = {}\n    d[p] = g\n    d[q]()", [("d", "g", H)]),
    ("x = d[p]\n    x()", [("x", "d", H)]),
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
