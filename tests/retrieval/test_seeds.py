"""Any retriever as the first stage: its results mapped onto the graph's functions."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sgkr import Retriever, build_graph
from sgkr.errors import InvalidArgumentError
from sgkr.graph.model import KnowledgeGraph
from sgkr.retrieval.seeds import SeedHit, as_seed_retriever, seed_functions

MODELS = ("class Request:\n"
          "    def prepare_url(self, url, params):\n        return url + encode(params)\n"
          "    def prepare_body(self, data):\n        return encode(data)\n"
          "def encode(params):\n    return '&'.join(params)\n")


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return build_graph([("pkg/models.py", MODELS)])


def test_hits_name_functions_by_id_text_or_file_and_lines(graph: KnowledgeGraph) -> None:
    body = graph.function("fn:pkg.models.Request.prepare_body")
    hits = [
        SeedHit(node_id="fn:pkg.models.encode", score=2.0),                 # by id
        SeedHit(text=body.code, score=1.0),                                  # the text it defines
        SeedHit(file="/home/me/pkg/models.py", start_line=2, end_line=3, score=0.5),  # lines
    ]
    assert seed_functions(hits, graph) == [
        ("fn:pkg.models.encode", 1.0), ("fn:pkg.models.Request.prepare_body", 0.5),
        ("fn:pkg.models.Request.prepare_url", 0.25)]


def test_a_chunk_from_inside_a_function_names_it_by_its_file(graph: KnowledgeGraph) -> None:
    hit = SeedHit(text="return url + encode(params)", file="pkg\\models.py")
    assert seed_functions([hit], graph) == [("fn:pkg.models.Request.prepare_url", 1.0)]
    # Without a file, or with another file's, it names nothing.
    assert seed_functions([SeedHit(text="return url + encode(params)")], graph) == []
    assert seed_functions([SeedHit(text=hit.text, file="other.py")], graph) == []


def test_without_scores_the_rank_counts(graph: KnowledgeGraph) -> None:
    seeds = as_seed_retriever(lambda q: ["fn:pkg.models.encode", "fn:nope",
                                         "fn:pkg.models.Request.prepare_url"])
    assert seed_functions(seeds("q"), graph) == [
        ("fn:pkg.models.encode", 1.0), ("fn:pkg.models.Request.prepare_url", 0.333333)]


def test_langchain_and_llamaindex_results_are_read_duck_typed(graph: KnowledgeGraph) -> None:
    document = SimpleNamespace(page_content="", id=None,
                               metadata={"source": "pkg/models.py", "start_line": 6})
    langchain = SimpleNamespace(invoke=lambda q: [document])
    assert seed_functions(as_seed_retriever(langchain)("q"), graph) == [
        ("fn:pkg.models.encode", 1.0)]
    node = SimpleNamespace(node_id="fn:pkg.models.Request.prepare_body",
                           get_content=lambda: "", metadata={})
    llama = SimpleNamespace(retrieve=lambda q: [SimpleNamespace(node=node, score=0.7)])
    assert seed_functions(as_seed_retriever(llama)("q"), graph) == [
        ("fn:pkg.models.Request.prepare_body", 1.0)]
    with pytest.raises(InvalidArgumentError, match="seed_retriever must be"):
        as_seed_retriever(42)
    with pytest.raises(InvalidArgumentError, match="SeedHit or a node id"):
        as_seed_retriever(lambda q: [42])("q")


def test_a_seed_retriever_replaces_the_first_stage(graph: KnowledgeGraph) -> None:
    asked: list[str] = []

    def seeds(question: str) -> list[str]:
        asked.append(question)
        return ["fn:pkg.models.Request.prepare_body"]

    # The walk and the reuse prior off: the first stage alone ranks.
    seeded = Retriever(graph, seed_retriever=seeds, k=1, walk=0.0, reuse=0.0)
    assert [d.id for d in seeded.retrieve("how is a url with params made?").documents] == [
        "fn:pkg.models.Request.prepare_body"]
    assert asked == ["how is a url with params made?"]
    # with_options keeps it; the prefix of a longer answer is the shorter answer.
    longer = seeded.with_options(k=3).retrieve("how is a url with params made?")
    assert longer.documents[0].id == "fn:pkg.models.Request.prepare_body"
    plain = Retriever(graph, k=1, walk=0.0, reuse=0.0).retrieve("how is a url with params made?")
    assert plain.documents[0].id != "fn:pkg.models.Request.prepare_body"
