"""The retrieval options: one declaration, checked, documented, in every interface."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest

from sgkr import InvalidArgumentError, RetrieverOptions
from sgkr.retrieval.options import OPTIONS, options_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "options.md"


def test_every_field_is_declared_as_an_option() -> None:
    assert list(OPTIONS) == [f.name for f in dataclasses.fields(RetrieverOptions)]
    for spec in OPTIONS.values():
        assert spec.help and spec.doc and "\n" not in spec.help
        spec.validate(spec.default)  # every default is valid
        assert getattr(RetrieverOptions(), spec.name) == spec.default


@pytest.mark.parametrize("name,bad,message", [
    ("k", 0, "k must be an integer of at least 1, got 0"),
    ("k", True, "k must be an integer of at least 1, got True"),
    ("k", 2.0, "k must be an integer"),
    ("max_paths", "3", "max_paths must be an integer"),
    ("callees", -1, "callees must be an integer from 0 to 64, got -1"),
    ("centrality", -0.5, "centrality must be a number from 0 to 100"),
    ("brevity", math.nan, "brevity must be a number"),
    ("brevity", math.inf, "brevity must be a number"),
    ("specificity", 1.5, "specificity must be a number from 0 to 1, got 1.5"),
    ("reverse_calls", 1, "reverse_calls must be True or False"),
    ("partial", "all", "partial must be one of ('connect', 'nearest', 'none')"),
    ("fill", None, "fill must be one of"),
    ("filter", "kind=function", "filter must be an object"),
    ("filter", {"path": "a.py"}, "filter: unknown field 'path'"),
])
def test_a_bad_value_is_an_error_naming_the_option(name: str, bad: Any, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message.replace("(", r"\(").replace(
            ")", r"\)")):
        RetrieverOptions(**{name: bad})


def test_numbers_take_integers_and_round_trip_through_json() -> None:
    options = RetrieverOptions(centrality=2, specificity=1, filter={"kind": "function"})
    assert RetrieverOptions.from_dict(json.loads(json.dumps(options.to_dict()))) == options


def test_a_misspelt_option_names_the_one_meant() -> None:
    with pytest.raises(InvalidArgumentError, match=r"\['max_dept'\] \(did you mean 'max_depth'"):
        RetrieverOptions.from_dict({"max_dept": 3})
    with pytest.raises(InvalidArgumentError, match=r"unknown retriever option\(s\): \['zzz'\]$"):
        RetrieverOptions.from_dict({"zzz": 3})


def test_json_schemas_say_what_validation_accepts() -> None:
    for spec in OPTIONS.values():
        schema = spec.json_schema()
        assert schema["default"] == spec.default and schema["description"] == spec.help
        if spec.kind in ("integer", "number"):
            assert schema["minimum"] == spec.minimum
            below = spec.minimum - (1 if spec.kind == "integer" else 0.5)  # type: ignore[operator]
            with pytest.raises(InvalidArgumentError):
                spec.validate(below)
        if spec.choices:
            assert schema["enum"] == list(spec.choices)
    assert OPTIONS["filter"].json_schema(default=False, description=False) == {
        "type": ["object", "null"]}
    assert OPTIONS["specificity"].json_schema()["maximum"] == 1


def test_the_docstring_and_the_docs_are_made_from_the_declarations() -> None:
    doc = RetrieverOptions.__doc__ or ""
    for spec in OPTIONS.values():
        assert f"\n{spec.name}\n    " in doc
    table = options_markdown()
    assert table in DOCS.read_text(encoding="utf-8"), (
        "docs/options.md is out of date: paste the table printed by "
        "python -c 'from sgkr.retrieval.options import options_markdown; "
        "print(options_markdown())'")
    assert len(table.splitlines()) == 2 + len(OPTIONS)
