"""The graph summary: the tables retrieval reads, made once, read back equal, refused if bad."""

from __future__ import annotations

from typing import Any

import pytest

from sgkr import Retriever, build_graph
from sgkr.algorithms.summary import (
    PhraseWords,
    read_summary,
    summarize,
    summary_json,
    summary_of,
)
from sgkr.errors import GraphFormatError
from sgkr.graph import KnowledgeGraph
from sgkr.records import TagNode
from sgkr.stores import MemoryStore

CODE = ("def total_fee(amount, rate):\n    return fee(amount) + fee(rate)\n"
        "def fee(amount):\n    return amount * 2\n"
        "def refund(amount):\n    return fee(amount)\n")


@pytest.fixture
def graph() -> KnowledgeGraph:
    g = build_graph([("m.py", CODE)])
    g.add_tags([TagNode("tag:card scheme", "card scheme", ("Card Schemes",)),
                TagNode("tag:fee", "fee")])
    return g


def test_the_summary_holds_what_the_store_answered_before(graph: KnowledgeGraph) -> None:
    s = summarize(graph)
    assert s.callers["fn:m.fee"] == 2 and s.callers["fn:m.total_fee"] == 0
    assert s.calling == 2  # total_fee and refund call; fee calls nobody
    assert s.named["fee"] == ("fn:m.fee",)
    assert not any(i.startswith("fn:m") and i.count(".") == 0 for ids in s.named.values()
                   for i in ids)  # module bodies have no bare name entry
    # A label and an alias that fold alike are one phrase of the tag.
    assert s.phrases["card scheme"] == ("tag:card scheme",)
    assert s.words.phrases_of["scheme"] == ("card scheme",)
    assert s.longest == 2


def test_a_summary_reads_back_equal(graph: KnowledgeGraph) -> None:
    s = summarize(graph)
    assert read_summary(summary_json(s), "x.npz") == s


def _broken(change: str) -> Any:
    data = summary_json(summarize(build_graph([("m.py", CODE)])))
    data["phrases"] = {"fee": ["tag:fee"]}
    data["roles"] = {"tag:fee": "output"}
    data["words"] = {"fee": ["fee"]}
    if change == "missing key":
        del data["calling"]
    elif change == "bad role":
        data["roles"]["tag:fee"] = "sideways"
    elif change == "negative count":
        data["callers"]["fn:m.fee"] = -1
    elif change == "count not int":
        data["callers"]["fn:m.fee"] = 1.5
    elif change == "calling too large":
        data["calling"] = 99
    elif change == "phrase of unknown tag":
        data["phrases"]["fee"] = ["tag:nope"]
    elif change == "name of unknown function":
        data["named"]["fee"] = ["fn:nope"]
    elif change == "ids not strings":
        data["named"]["fee"] = [1]
    elif change == "word of unknown phrase":
        data["words"]["fee"] = ["card"]
    elif change == "not an object":
        data = ["phrases"]
    return data


@pytest.mark.parametrize(("change", "said"), [
    ("missing key", "must have phrases"),
    ("bad role", "input, output or both"),
    ("negative count", "must be a count"),
    ("count not int", "must be a count"),
    ("calling too large", "calling must count"),
    ("phrase of unknown tag", "unknown node"),
    ("name of unknown function", "unknown node"),
    ("ids not strings", "list of ids"),
    ("word of unknown phrase", "unknown phrase"),
    ("not an object", "must have phrases"),
])
def test_a_malformed_summary_is_refused_naming_where(change: str, said: str) -> None:
    assert read_summary(_broken("none"), "x.npz").calling >= 0
    with pytest.raises(GraphFormatError, match=said) as info:
        read_summary(_broken(change), "x.npz")
    assert str(info.value).startswith("x.npz: ")


@pytest.mark.parametrize(("change", "said"), [
    (lambda d: d["named"].update(fee=[]), "non-empty list of ids"),
    (lambda d: d["roles"].update({"tag:fee": ["output"]}), "input, output or both"),
    (lambda d: d["callers"].update({"fn:m.fee": True}), "must be a count"),
])
def test_values_of_a_wrong_type_are_refused(change: Any, said: str) -> None:
    data = _broken("none")
    change(data)
    with pytest.raises(GraphFormatError, match=said):
        read_summary(data, "x.npz")


def test_a_changed_graph_gets_a_new_summary(graph: KnowledgeGraph) -> None:
    first = summary_of(graph)
    assert summary_of(graph) is first
    graph.add_tag(TagNode("tag:refund rate", "refund rate"))
    assert "refund rate" in summary_of(graph).phrases
    # ... and a retriever made after the change sees the new tag.
    assert "refund rate" in MemoryStore(graph).phrase_tags(["refund rate"])
    result = Retriever(graph, k=3).retrieve("what is the refund rate")
    assert "refund rate" in {t.label for t in result.tags}


def test_phrase_words_weigh_rare_words_more() -> None:
    words = PhraseWords.of(["card scheme", "scheme", "scheme fee"])
    assert words.count == 3
    assert words.phrases_of["scheme"] == ("card scheme", "scheme", "scheme fee")
    assert words.idf("card") > words.idf("scheme")
