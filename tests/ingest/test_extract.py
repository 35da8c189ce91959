"""Definitions, kinds, qualnames, knowledge sources and syntax errors from one file."""

from __future__ import annotations

import pytest

from sgkr.errors import InvalidArgumentError
from sgkr.ingest.extract import extract_module
from sgkr.records import Parameter, ParameterKind

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
    assert fee.keys_read == ("fixed_amount",)
    assert fee.code.startswith("@decorator\nasync def compute_fee(")
    assert (fee.span.start_line, fee.span.end_line) == (6, 12)
    assert fee.parameters == (
        Parameter("rule"), Parameter("amount", default=True, types=("float",)),
        Parameter("args", ParameterKind.VAR_POSITIONAL),
        Parameter("kwargs", ParameterKind.VAR_KEYWORD))


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


def test_ascii_and_non_ascii_files_extract_alike() -> None:
    source = ("class Fees:\n    def total(self, rows):\n        '''Sum.'''\n"
              "        return sum(r['amount'] for r in rows) + self.fixed()\n")
    plain = extract_module("m.py", source)
    accented = extract_module("m.py", source + "# prix en \u20ac\n")
    assert plain.definitions == accented.definitions
    surrogate = extract_module("m.py", source + "x = '\udcff'\n")
    assert surrogate.definitions[1:] == plain.definitions


def test_a_broken_file_keeps_its_lines_whatever_its_line_breaks() -> None:
    source = ("x = 1\r\rdef good():\r    pass\r\rdef broken(:\r    pass\r\r"
              "def after():\r    good()\r")
    m = extract_module("m.py", source)
    spans = {d.name: (d.span.start_line, d.span.end_line) for d in m.definitions}
    whole = extract_module("m.py", source.replace("def broken(:", "def broken():"))
    assert spans["after"] == next((d.span.start_line, d.span.end_line)
                                  for d in whole.definitions if d.name == "after")
    assert m.problems and m.problems[0].kind == "syntax"


def test_tag_facts_come_from_the_tree_not_from_comments() -> None:
    source = ("def shares(df, by, self_=None):\n"
              "    '''row['in_doc'] = 1, agg(kw=x)'''\n"
              "    # out['in_comment'] = df.ignored\n"
              "    out = df.groupby(by).agg(total=('eur_amount', 'sum'), ascending=False)\n"
              "    out['share'], out['rest'] = out.total / df.amount.sum(), 0\n"
              "    return out.get('key') or out['seen']\n")
    (d,) = extract_module("m.py", source).definitions
    assert d.keys_read == ("key", "seen")
    assert d.keys_written == ("share", "rest")
    assert d.keywords == ("total",)
    assert d.strings == ("eur_amount", "sum")
    assert d.attributes == (("df", "amount"),)
