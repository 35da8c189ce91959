"""BuildOptions: one validated set of build options for build_graph, GraphBuilder and the CLI."""

from __future__ import annotations

from typing import Any

import pytest

from sgkr import BuildOptions, GraphBuilder, InvalidArgumentError, build_graph

SRC = [("m.py", "def f(x):\n    return g(x)\ndef g(x):\n    return x\n")]


def test_a_string_exclude_is_one_pattern() -> None:
    assert BuildOptions(exclude="tests").exclude == ("tests",)
    assert BuildOptions(exclude=["a", "b"]).exclude == ("a", "b")


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"merge": "fuzzy"}, "merge"),
    ({"infer_tags": "yes"}, "infer_tags"),
    ({"max_file_bytes": 0}, "max_file_bytes"),
    ({"jobs": 0}, "jobs"),
    ({"jobs": True}, "jobs"),
    ({"exclude": [1]}, "exclude"),
    ({"knowledge": 3}, "knowledge"),
    ({"examples": ["not an example"]}, "examples"),
    ({"root": 1.5}, "root"),
    ({"cache": 7}, "cache"),
])
def test_bad_values_are_refused_naming_the_option(kwargs: dict[str, Any], named: str) -> None:
    with pytest.raises(InvalidArgumentError, match=named):
        BuildOptions(**kwargs)


def test_unknown_names_are_refused_naming_them() -> None:
    with pytest.raises(InvalidArgumentError, match=r"\['infer'\].*infer_tags"):
        build_graph(SRC, infer=True)
    with pytest.raises(InvalidArgumentError, match="colour"):
        GraphBuilder(SRC, colour="red")


def test_options_and_keywords_build_the_same_graph() -> None:
    by_name = build_graph(SRC, merge="none", infer_tags=True, jobs=1)
    by_options = build_graph(SRC, BuildOptions(merge="none", infer_tags=True, jobs=1))
    assert by_name.to_dict()["nodes"] == by_options.to_dict()["nodes"]
    assert by_options.meta["merge"] == "none" and by_options.meta["infer_tags"] is True


def test_keywords_override_the_options() -> None:
    graph = build_graph(SRC, BuildOptions(infer_tags=True), infer_tags=False)
    assert graph.meta["infer_tags"] is False
    builder = GraphBuilder(SRC, BuildOptions(merge="name"), jobs=1)
    assert builder.options == BuildOptions(merge="name", jobs=1)
