"""Tag matching: folding, longest phrase first, no overlaps, roles, custom extractors."""

from __future__ import annotations

import pytest

from sgkr import KnowledgeGraph
from sgkr.errors import InvalidArgumentError
from sgkr.records import Edge, FunctionNode, TagMatch, TagNode
from sgkr.retrieval.tags import VocabularyMatcher, resolve_labels, split_roles, tag_role


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    g = KnowledgeGraph()
    for name in ("f", "g"):
        g.add_function(FunctionNode(f"fn:{name}", name, (name,), "", "", (), "function"))
    tags = {"tag:fee": ("fee", ()), "tag:fee id": ("fee ids", ("applicable fee ids",)),
            "tag:card scheme": ("card scheme", ("scheme",)),
            "tag:monthly fraud level": ("monthly fraud level", ()),
            "tag:merchant": ("merchant", ())}
    for node_id, (label, aliases) in tags.items():
        g.add_tag(TagNode(node_id, label, aliases))
    g.add_edge(Edge("tag:card scheme", "fn:f", "consumes"))
    g.add_edge(Edge("fn:g", "tag:card scheme", "produces"))
    g.add_edge(Edge("fn:f", "tag:fee", "produces"))
    g.add_edge(Edge("tag:merchant", "fn:f", "consumes"))
    return g


@pytest.mark.parametrize("question,expected", [
    ("What are the Fee IDs?", [("fee ids", "Fee IDs")]),
    ("what are the applicable_fee_ids", [("fee ids", "applicable_fee_ids")]),
    ("The monthly-fraud LEVELS", [("monthly fraud level", "monthly-fraud LEVELS")]),
    ("monthlyFraudLevel of the merchant's fee",
     [("monthly fraud level", "monthlyFraudLevel"), ("merchant", "merchant's"), ("fee", "fee")]),
    ("Card Schemes and their fees", [("card scheme", "Card Schemes"), ("fee", "fees")]),
    ("nothing to see here", []),
])
def test_folding_and_longest_match(graph: KnowledgeGraph, question: str,
                                   expected: list[tuple[str, str]]) -> None:
    found = VocabularyMatcher(graph)(question)
    assert [(m.label, m.text) for m in found] == expected
    for m in found:
        assert question[m.start:m.end] == m.text


def test_overlaps_are_not_matched_twice(graph: KnowledgeGraph) -> None:
    # "fee ids" wins over "fee"; the tag named twice is one match.
    found = VocabularyMatcher(graph)("fee ids, and fee ids again")
    assert [m.label for m in found] == ["fee ids"]


def test_function_words_are_not_tags_by_themselves() -> None:
    # A large code base has tags named like the wording of questions (``and_``, a
    # parameter ``what``): matched, every question would bring them along.
    g = KnowledgeGraph()
    for label in ("what", "and", "given", "fee", "what if rate"):
        g.add_tag(TagNode(f"tag:{label}", label))
    matcher = VocabularyMatcher(g)
    found = matcher("Given the fee and the rate, what is the what-if rate?")
    assert [(m.label, m.text) for m in found] == [("fee", "fee"), ("what if rate", "what-if rate")]
    # Named on purpose (by a custom extractor), such a tag is still found.
    assert matcher.lookup("what") == ["tag:what"]
    assert [m.tag_id for m in resolve_labels(matcher, g, "q", ["and"])] == ["tag:and"]


def test_roles(graph: KnowledgeGraph) -> None:
    assert tag_role(graph, "tag:card scheme") == "both"
    assert tag_role(graph, "tag:fee") == "output"
    assert tag_role(graph, "tag:merchant") == "input"


@pytest.mark.parametrize("question,inputs,outputs", [
    ("Which card scheme gives the merchant the lowest fee?",
     ["tag:merchant"], ["tag:card scheme", "tag:fee"]),
    ("For card scheme X, what fee does the merchant pay?",
     ["tag:card scheme", "tag:merchant"], ["tag:fee"]),
    ("For the merchant, the card scheme?", ["tag:merchant", "tag:card scheme"],
     ["tag:card scheme"]),
])
def test_split_roles(graph: KnowledgeGraph, question: str, inputs: list[str],
                     outputs: list[str]) -> None:
    matches = VocabularyMatcher(graph)(question)
    assert split_roles(question, matches) == (inputs, outputs)


def test_custom_extractor_results(graph: KnowledgeGraph) -> None:
    matcher = VocabularyMatcher(graph)
    found = resolve_labels(matcher, graph, "q about schemes",
                           ["Scheme", "tag:fee", "unknown label"])
    assert [(m.tag_id, m.role) for m in found] == [("tag:card scheme", "both"),
                                                   ("tag:fee", "output")]
    match = TagMatch("tag:merchant", "merchant", "shop", 0, 4, "input")
    assert resolve_labels(matcher, graph, "shop", [match]) == [match]
    with pytest.raises(InvalidArgumentError, match="tag extractor returned 3"):
        resolve_labels(matcher, graph, "q", [3])  # type: ignore[list-item]
