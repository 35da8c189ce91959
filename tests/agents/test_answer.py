"""The answer texts: pages under the cap, explanations with names and edge resolutions."""

from __future__ import annotations

import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.agents.answer import MAX_ANSWER_CHARS, describe_page, explain_path
from sgkr.algorithms.paths import MAX_PATHS
from sgkr.errors import NodeNotFoundError
from sgkr.records import RetrievalResult, RetrievedFunction, SourceSpan


def _function(name: str, code_chars: int) -> RetrievedFunction:
    code = f"def {name}():\n" + "    x = 1\n" * (code_chars // 10)
    return RetrievedFunction(f"fn:m.{name}", name, (f"m.{name}",), f"What {name} does.", code,
                             (SourceSpan("m.py", 1, 9),), "function", 0.5)


def test_pages_fit_the_budget_and_follow_on() -> None:
    docs = tuple(_function(f"f{i}", 3_000) for i in range(50))
    result = RetrievalResult("Which?", docs)
    shown, start = [], 0
    while True:
        page = describe_page(result, start, budget=10_000)
        assert len(page.text) <= 10_000 and page.stop > page.start == start
        shown += list(range(page.start, page.stop))
        if page.next is None:
            break
        start = page.next
    assert shown == list(range(50))


def test_one_function_longer_than_a_page_is_cut_and_says_where_the_rest_is() -> None:
    result = RetrievalResult("Which?", (_function("huge", 200_000), _function("small", 100)))
    page = describe_page(result)
    assert len(page.text) <= MAX_ANSWER_CHARS and page.stop == 1 and page.next == 1
    assert "more characters; read the rest at m.py:1" in page.text
    assert describe_page(result, 1).text.count("## 2. small") == 1


def test_a_long_question_and_many_tags_stay_in_the_head() -> None:
    result = RetrievalResult("why " * 20_000, (_function("f", 100),))
    assert len(describe_page(result).text) < 2_000


def test_explain_walks_either_way_and_names_tags(payments_graph: KnowledgeGraph) -> None:
    callee_first = explain_path(payments_graph, "matches_field", "filter_fee_rules")
    assert callee_first.startswith("filter_fee_rules depends on matches_field")
    tag = next(t for t in payments_graph.tags() if payments_graph.consumers(t.id))
    consumer = payments_graph.function(payments_graph.consumers(tag.id)[0]).name
    text = explain_path(payments_graph, tag.label, consumer)
    assert f"tag {tag.label!r} -input of-> {consumer}" in text
    with pytest.raises(NodeNotFoundError, match="nowhere"):
        explain_path(payments_graph, "nowhere", consumer)


def test_explain_says_when_a_bare_name_stands_for_several() -> None:
    graph = build_graph([("a.py", "def run():\n    return step()\ndef step():\n    return 1\n"),
                         ("b.py", "def run():\n    return 2\n")], infer_tags=False)
    text = explain_path(graph, "run", "step")
    assert text.startswith("'run' names 2 nodes (a.run, b.run)")
    assert "1. a.run -calls[exact]-> step" in text


def test_explain_never_exceeds_the_cap() -> None:
    # A wide diamond: many paths of long names between two functions.
    width = 60
    code = "def top():\n" + "".join(f"    mid_{'x' * 200}_{i}()\n" for i in range(width))
    code += "".join(f"def mid_{'x' * 200}_{i}():\n    return bottom()\n" for i in range(width))
    code += "def bottom():\n    return 1\n"
    graph = build_graph([("m.py", code)], infer_tags=False)
    text = explain_path(graph, "top", "bottom", max_paths=MAX_PATHS)
    assert len(text) <= MAX_ANSWER_CHARS and "top -calls[exact]-> mid_" in text
