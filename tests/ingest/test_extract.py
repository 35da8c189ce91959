"""Definitions, kinds, qualnames, knowledge sources and syntax errors from one file."""

from __future__ import annotations

import pytest

from sgkr.errors import InvalidArgumentError
from sgkr.ingest.extract import extract_module

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


def test_knowledge_sources_and_signature(module) -> None:  # type: ignore[no-untyped-def]
    fee = next(d for d in module.definitions if d.name == "compute_fee")
    assert fee.docstring == "fee = fixed_amount + rate * amount / 10000."
    assert fee.comment == "Knowledge above the function:\nfees are in euro cents."
    assert fee.params == ("rule", "amount", "args", "kwargs")
    assert fee.is_async
    assert fee.subscript_keys == ("fixed_amount",)
    assert fee.code.startswith("@decorator\nasync def compute_fee(")
    assert (fee.span.start_line, fee.span.end_line) == (6, 12)
    assert fee.signature.startswith("async def compute_fee(rule")


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
# ``def f(p, q):``, the bindings expected in f, in order).
BINDINGS = [
    ("a, *b = g, h, k\n    a(); b()",
     [("a", "name", "g"), ("b", "name", "h"), ("b", "name", "k")]),
    ("a, b = make()\n    b()", [("b", "call", "make")]),  # a is never used
    ("a = b = g\n    b()", [("b", "name", "g")]),
    ("d = {}\n    d[p] = g\n    d[q]()", [("d", "name", "g")]),
    ("x = d[p]\n    x()", [("x", "name", "d")]),
    ("for fn in gen():\n        fn()", [("fn", "name", "gen()")]),
    ("with Ctx() as c:\n        c.go()", [("c", "name", "Ctx()")]),
    ("try:\n        pass\n    except (E, F) as e:\n        e.info()",
     [("e", "name", "E()"), ("e", "name", "F()")]),
    ("yield g", [("return", "name", "g")]),
    ("return g, h", [("return", "name", "g"), ("return", "name", "h")]),
    ("it = next(p)\n    it()", [("it", "name", "p")]),
    ("fs = []\n    fs.append(g)\n    fs[0]()", [("fs", "name", "g"), ("0:fs.append", "arg", "g")]),
    ("apply(g, key=h, *p)", [("0:apply", "arg", "g"), ("key:apply", "arg", "h")]),
    ("run([g, h], Parser())",
     [("0:run", "arg", "g"), ("0:run", "arg", "h"), ("1:run", "arg", "Parser()")]),
    ("A().call(g)", [("0:A().call", "arg", "g")]),
    ("print(g)\n    s.join(p)", []),  # builtins and their types' methods tell nothing
    ("x = 1\n    y = make()", []),  # neither called, passed nor returned
]


@pytest.mark.parametrize(("body", "expected"), BINDINGS, ids=[b for b, _ in BINDINGS])
def test_bindings_by_statement(body: str, expected: list[tuple[str, str, str]]) -> None:
    m = extract_module("m.py", f"def f(p, q):\n    {body}\n")
    (f,) = m.definitions
    assert [(b.target, b.kind, b.value) for b in f.bindings] == expected


def test_decorators_defaults_raise_and_calls_on_results() -> None:
    m = extract_module("m.py", "class A:\n    @dec\n    def m(self, fn=g):\n        fn()\n"
                               "@mod.dec\ndef f():\n    raise Bad\n    make()()\n")
    body, method, function = m.definitions
    # The decorator is called with the function, where it is written (the module here).
    assert [(b.target, b.kind, b.value) for b in body.bindings] == [
        ("0:dec", "arg", "A.m"), ("0:mod.dec", "arg", "f")]
    assert [(b.target, b.kind, b.value) for b in method.bindings] == [
        ("@", "name", "dec"), ("fn", "name", "g")]
    assert [(b.target, b.value) for b in function.bindings] == [("@", "mod.dec")]
    assert [(c.kind, c.name) for c in function.calls] == [
        ("plain", "Bad"), ("plain", "make"), ("result", "make")]
