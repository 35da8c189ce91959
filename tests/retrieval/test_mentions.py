"""Names of code in a question, matched exactly against the graph's functions."""

from __future__ import annotations

import pytest

from sgkr import build_graph
from sgkr.errors import InvalidArgumentError
from sgkr.graph.model import KnowledgeGraph
from sgkr.retrieval.mentions import code_names, mentions

CODE = {
    "xr/core/dataset.py": "class Dataset:\n    def chunks(self):\n"
                          "        return get_chunksizes(self)\n"
                          "    def __init__(self):\n        pass\n",
    "xr/core/common.py": "def get_chunksizes(variables):\n    return {}\n",
    "xr/core/array.py": "class DataArray:\n    def chunks(self):\n        return 1\n"
                        "    def __init__(self):\n        pass\n",
}


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return build_graph(list(CODE.items()))


@pytest.mark.parametrize(("question", "names"), [
    ("calls `get` then my_dict", [("get",), ("my_dict",)]),
    ("see Dataset.chunks and run()", [("Dataset", "chunks"), ("run",)]),
    ("a CamelCase name and a camelCase one", [("CamelCase",), ("camelCase",)]),
    ("```\nx = load(path)\n```", [("x",), ("load",), ("path",)]),
    ("plain words only, Nothing Here", []),
    ('File "xr/core/common.py", line 3, in get_chunksizes', [("common", "py"),
                                                              ("get_chunksizes",)]),
])
def test_what_reads_as_code(question: str, names: list[tuple[str, ...]]) -> None:
    assert code_names(question) == names


def test_a_dotted_name_finds_its_method_and_shares_are_split(graph: KnowledgeGraph) -> None:
    found = mentions("Accessing `Dataset.chunks` is slow", graph)
    # Dataset.chunks by its dotted name (1), and chunks shared by two methods (1/2 each).
    assert found == {"fn:xr.core.dataset.Dataset.chunks": 1.5,
                     "fn:xr.core.array.DataArray.chunks": 0.5}
    # The longest tail that names something: xr.Dataset.chunks is Dataset.chunks.
    assert mentions("`xr.Dataset.chunks`", graph) == found


def test_each_name_counts_once(graph: KnowledgeGraph) -> None:
    once = mentions("get_chunksizes() is called", graph)
    assert once == {"fn:xr.core.common.get_chunksizes": 1.0}
    assert mentions("get_chunksizes() then get_chunksizes() again", graph) == once


def test_nothing_named(graph: KnowledgeGraph) -> None:
    assert mentions("why is it slow?", graph) == {}
    assert mentions("`unknown_function()`", graph) == {}
    with pytest.raises(InvalidArgumentError, match="question must be a string"):
        mentions(b"x", graph)  # type: ignore[arg-type]
