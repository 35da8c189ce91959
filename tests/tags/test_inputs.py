"""Sidecar and examples formats: parsed when right, refused with the place when wrong."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from sgkr.analysis.knowledge import describe
from sgkr.errors import KnowledgeFormatError
from sgkr.records import Definition, Parameter, SourceSpan
from sgkr.tags import load_examples, load_sidecar, parse_sidecar
from sgkr.tags.infer import infer_tags


def test_sidecar_shapes() -> None:
    side = parse_sidecar({
        "functions": {"fee": {"knowledge": "k", "inputs": ["amount"], "outputs": ["fee"]},
                      "short": "just text"},
        "tags": {"card scheme": {"aliases": ["scheme"]}, "mcc": ["merchant category code"]},
    })
    assert side.functions["fee"].inputs == ("amount",)
    assert side.functions["short"].knowledge == "just text"
    assert side.tags == {"card scheme": ("scheme",), "mcc": ("merchant category code",)}


@pytest.mark.parametrize("data,message", [
    ([], "top level must be an object"),
    ({"function": {}}, "unknown top-level key"),
    ({"functions": {"f": {"knowlege": "typo"}}}, r"functions.f: unknown key"),
    ({"functions": {"f": {"inputs": "amount"}}}, r"functions.f.inputs must be a list"),
    ({"tags": {"x": {"aliases": [1]}}}, r"tags.x.aliases must be a list of strings"),
    ({"tags": {"???": []}}, "needs at least one word"),
])
def test_sidecar_errors_name_the_place(data: object, message: str) -> None:
    with pytest.raises(KnowledgeFormatError, match=message):
        parse_sidecar(data, where="k.json")


def test_sidecar_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "k.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(KnowledgeFormatError, match=r"k.json: invalid JSON"):
        load_sidecar(bad)
    with pytest.raises(KnowledgeFormatError, match="missing.json"):
        load_sidecar(tmp_path / "missing.json")


def test_yaml_sidecar(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    path = tmp_path / "k.yaml"
    path.write_text("tags:\n  mcc:\n    aliases: [merchant category code]\n", encoding="utf-8")
    assert load_sidecar(path).tags == {"mcc": ("merchant category code",)}


def _examples(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "examples.jsonl"
    path.write_text("\n".join(json.dumps(x) if not isinstance(x, str) else x for x in lines),
                    encoding="utf-8")
    return path


def test_examples_file_and_inline_code(tmp_path: Path) -> None:
    (tmp_path / "sol.py").write_text("def f():\n    pass\n", encoding="utf-8")
    path = _examples(tmp_path,
                     {"id": "a", "question": "q?", "file": "sol.py", "inputs": ["x"],
                      "outputs": [{"tag": "y", "functions": ["f"]}], "answer": 3},
                     {"question": "r?", "code": "def g():\n    pass\n"})
    first, second = load_examples(path)
    assert first.code.startswith("def f") and first.answer == "3"
    assert first.outputs[0].functions == ("f",)
    assert second.id == "2" and second.path == "examples/example_2.py"


@pytest.mark.parametrize("line,message", [
    ("{oops", r"examples.jsonl:1: invalid JSON"),
    ({"question": "", "code": ""}, "'question' must be a non-empty string"),
    ({"question": "q", "code": "", "file": "x.py"}, "give one of 'code' and 'file', not both"),
    ({"question": "q", "file": "missing.py"}, "solution file 'missing.py'"),
    ({"question": "q", "code": "", "inputs": [3]}, "each tag is a label"),
    ({"question": "q", "code": "", "extra": 1}, "unknown key"),
])
def test_examples_errors_name_file_and_line(tmp_path: Path, line: object, message: str) -> None:
    with pytest.raises(KnowledgeFormatError, match=message):
        load_examples(_examples(tmp_path, line))


def test_duplicate_example_ids(tmp_path: Path) -> None:
    path = _examples(tmp_path, {"id": "1", "question": "q", "code": ""},
                     {"id": "1", "question": "r", "code": ""})
    with pytest.raises(KnowledgeFormatError, match=r":2: duplicate example id '1'"):
        load_examples(path)


def _definition(name: str, params: tuple[str, ...] = (), **kw: object) -> Definition:
    return Definition(f"m.{name}", name, "function", "", SourceSpan("m.py", 1, 2),  # type: ignore[arg-type]
                      parameters=tuple(Parameter(p) for p in params), **kw)


def test_describe_and_infer() -> None:
    d = _definition("compute_monthly_fraud_rate", params=("self", "payments", "month"),
                    keys_read=("has_fraudulent_dispute",))
    assert describe(d) == ("compute_monthly_fraud_rate(self, payments, month): "
                           "compute monthly fraud rate from payments, month.")
    # Folded, as tag labels are: "payments" and "payment" are one tag.
    assert infer_tags(d) == (("payment", "month", "has fraudulent dispute"),
                             ("monthly fraud rate",))
    assert infer_tags(_definition("_private", params=("rows", "y"))) == (("row",), ())
    assert infer_tags(_definition("list_fees", params=("rows", "row"),
                                  keys_read=("Rows",))) == (("row",), ("fee",))


def test_annotate_derives_what_knowledge_of_and_infer_tags_compute() -> None:
    from sgkr.analysis.knowledge import knowledge_of
    from sgkr.ingest.extract import extract_module
    from sgkr.tags.infer import annotate

    source = ("# In cents.\ndef average_fee(rows, merchant):\n    '''fee = sum / n'''\n"
              "    return sum(r['eur_amount'] for r in rows)\n"
              "def plain(x):\n    return x\n\nprint(plain(1))\n")
    bare = extract_module("m.py", source)
    annotated = annotate(bare)
    for d, b in zip(annotated.definitions, bare.definitions, strict=True):
        assert d.knowledge == knowledge_of(b)
        assert (d.inferred_inputs, d.inferred_outputs) == infer_tags(b)
        # Every extracted fact is kept as it was.
        assert d == replace(b, knowledge=d.knowledge, inferred_inputs=d.inferred_inputs,
                            inferred_outputs=d.inferred_outputs)
    fee = annotated.definitions[1]
    assert fee.knowledge == "In cents.\n\nfee = sum / n"
    assert fee.inferred_inputs == ("row", "merchant", "eur amount")
    # Sidecar text still comes first; without it the derived knowledge is used as it is.
    assert knowledge_of(fee, "From the manual.").startswith("From the manual.\n\nIn cents.")
    assert knowledge_of(_definition("f", knowledge="given")) == "given"
    assert infer_tags(_definition("f", params=("a",), inferred_inputs=("b",),
                                  inferred_outputs=())) == (("b",), ())


def test_tags_come_from_code_not_from_comments_or_docstrings() -> None:
    from sgkr.ingest.extract import extract_module

    source = ("def compute_average_fee(rows):\n"
              "    '''Example: row['in_docstring'] = agg(kw=x)\n    return secret'''\n"
              "    # row['in_comment'] = df.groupby('in_comment_too')\n"
              "    # return commented\n"
              "    return sum(r['amount'] for r in rows)\n")
    inputs, outputs = infer_tags(extract_module("m.py", source).definitions[0])
    assert inputs == ("row", "amount") and outputs == ("average fee",)
