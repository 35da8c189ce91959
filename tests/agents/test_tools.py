"""Tool specs: compact schemas from the retriever's options, strict arguments."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from sgkr.agents.tools import EXPLAIN, RETRIEVE, TOOLS, check_arguments, schema_chars
from sgkr.errors import InvalidArgumentError
from sgkr.retrieval.options import OPTIONS
from sgkr.retrieval.retriever import RetrieverOptions


def test_every_retriever_option_with_its_type() -> None:
    properties = RETRIEVE.input_schema["properties"]
    # Every option of the one declaration, so that none added can be missing here.
    assert set(properties) == {"question", "cursor", *(f.name for f in fields(RetrieverOptions))}
    assert set(OPTIONS) >= {"evidence", "mentions", "walk", "reuse"}
    assert properties["walk"] == {"type": "number", "minimum": 0, "maximum": 100,
                                  "description": OPTIONS["walk"].help}
    assert properties["k"]["type"] == "integer" and properties["k"]["minimum"] == 1
    assert properties["partial"]["enum"] == ["connect", "nearest", "none"]
    assert properties["filter"]["type"] == ["object", "null"]
    assert properties["brevity"]["type"] == "number"


def test_schemas_are_compact_and_closed() -> None:
    # Every option on one line each: 21 arguments of retrieve_knowledge, 4 of explain,
    # 2 of map_graph.
    assert schema_chars() <= 3_400
    for tool in TOOLS:
        text = json.dumps(tool.input_schema)
        assert '"title"' not in text and tool.input_schema["additionalProperties"] is False
        assert tool.annotations["readOnlyHint"] and tool.title == tool.annotations["title"]


@pytest.mark.parametrize(("arguments", "message"), [
    ({"question": "q", "kk": 1}, "no argument 'kk' (did you mean 'k'?)"),
    ({"question": "q", "kk": 1, "zz": 2}, "no arguments 'kk', 'zz'"),
    ({}, "'question' is a required property"),
    ({"question": "q", "k": 0}, "k: 0 is less than the minimum of 1"),
    ({"question": "q", "k": True}, "k: True is not of type 'integer'"),
    ({"question": "q", "partial": "some"}, "partial: 'some' is not one of"),
    ({"question": "q", "filter": "kind"}, "filter: 'kind' is not of type 'object', 'null'"),
    ({"question": "q" * 20_000}, "question: 'qqqq"),
    (["q"], "takes a JSON object"),
])
def test_bad_arguments_are_one_clear_error(arguments: object, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match="^retrieve_knowledge") as caught:
        check_arguments(RETRIEVE, arguments)
    assert message in str(caught.value)


def test_good_arguments_pass_unchanged() -> None:
    arguments = {"question": "q", "k": 10**9, "centrality": 2, "filter": {"kind": "method"}}
    assert check_arguments(RETRIEVE, arguments) == arguments
    assert check_arguments(EXPLAIN, {"source": "a", "target": "b", "max_paths": 3})
