"""The in-memory store answers the protocol's questions as the graph does."""

from __future__ import annotations

import pytest

from sgkr import KnowledgeGraph, Retriever
from sgkr.errors import InvalidArgumentError
from sgkr.records import Edge, FunctionNode, TagNode
from sgkr.stores import GraphReader, GraphStore, MemoryStore, NamesReader, TagInfo, as_store


def _graph() -> KnowledgeGraph:
    g = KnowledgeGraph()
    g.add_functions([FunctionNode("fn:f", "f", ("m.f",), "def f(): ...", "", (), "function"),
                     FunctionNode("fn:g", "g", ("m.g",), "def g(): ...", "", (), "method"),
                     FunctionNode("fn:m", "m", ("m",), "f()", "", (), "module")])
    g.add_tags([TagNode("tag:card scheme", "card scheme", ("scheme",)), TagNode("tag:fee", "fee"),
                TagNode("tag:rate", "rate", ("scheme",))])
    g.add_edges([Edge("fn:m", "fn:f", "calls", "exact"), Edge("fn:f", "fn:g", "calls", "name"),
                 Edge("tag:card scheme", "fn:g", "consumes"), Edge("fn:f", "tag:fee", "produces"),
                 Edge("fn:g", "tag:rate", "produces"), Edge("tag:rate", "fn:f", "consumes")])
    return g


def test_reader_protocol() -> None:
    store = MemoryStore(_graph())
    reader = store.reader()
    assert isinstance(store, GraphStore) and isinstance(reader, GraphReader)
    assert reader.longest_phrase() == 2
    assert reader.phrase_tags(["scheme", "card scheme", "nope"]) == {
        "scheme": [TagInfo("tag:card scheme", "card scheme", "input"),
                   TagInfo("tag:rate", "rate", "both")],
        "card scheme": [TagInfo("tag:card scheme", "card scheme", "input")]}
    assert reader.tags(["tag:fee", "fn:f", "x"]) == {"tag:fee": TagInfo("tag:fee", "fee",
                                                                          "output")}
    assert reader.kinds(["fn:f", "fn:g", "fn:m", "tag:fee", "x"]) == {
        "fn:f": "function", "fn:g": "method", "fn:m": "module", "tag:fee": "tag"}
    assert set(reader.functions(["fn:f", "tag:fee"])) == {"fn:f"}
    assert reader.neighbours(["fn:f", "fn:g", "x"], "calls", "in") == {
        "fn:f": ("fn:m",), "fn:g": ("fn:f",)}
    assert reader.neighbours(["fn:f"], "produces", "out") == {"fn:f": ("tag:fee",)}
    assert reader.find_paths(["tag:card scheme"], ["tag:fee"], max_depth=8, max_paths=4,
                             reverse_calls=True) == [("tag:card scheme", "fn:g", "fn:f",
                                                      "tag:fee")]


def test_as_store() -> None:
    g = _graph()
    store = MemoryStore(g)
    assert as_store(store) is store and as_store(g).reader().kinds(["fn:f"]) == {
        "fn:f": "function"}
    with pytest.raises(InvalidArgumentError, match="KnowledgeGraph or a GraphStore"):
        as_store("graph.json")  # type: ignore[arg-type]


def test_retriever_takes_exactly_one_graph_or_store() -> None:
    g = _graph()
    with pytest.raises(InvalidArgumentError, match="exactly one"):
        Retriever()
    with pytest.raises(InvalidArgumentError, match="exactly one"):
        Retriever(g, store=MemoryStore(g))
    with pytest.raises(InvalidArgumentError, match="store must be"):
        Retriever(store=3)  # type: ignore[arg-type]
    over_store = Retriever(store=MemoryStore(g))
    question = "Given the card scheme, what is the fee?"
    assert over_store.retrieve(question) == Retriever(g).retrieve(question)
    assert over_store.graph is g


def test_names_and_edge_kinds_for_agents() -> None:
    reader = MemoryStore(_graph()).reader()
    assert isinstance(reader, NamesReader)
    assert reader.function_names() == [("fn:f", "f", ("m.f",)), ("fn:g", "g", ("m.g",)),
                                       ("fn:m", "m", ("m",))]
    assert reader.edge_kinds([("fn:m", "fn:f"), ("fn:f", "fn:g"), ("fn:g", "fn:f"),
                              ("tag:rate", "fn:f"), ("x", "y")]) == {
        ("fn:m", "fn:f"): ("calls", "exact"), ("fn:f", "fn:g"): ("calls", "name"),
        ("tag:rate", "fn:f"): ("consumes", None)}
