"""``sgkr map``: a map of a graph within a budget of tokens, central first, or focused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.cli import main
from sgkr.errors import InvalidArgumentError
from sgkr.retrieval.overview import call_rank, count_tokens, graph_map

BUDGETS = (20, 60, 200, 1000, 5000)
QUESTION = "What is the most expensive MCC for a transaction of 5 euros?"


@pytest.mark.parametrize("budget", BUDGETS)
def test_a_map_never_exceeds_its_budget(payments_graph: KnowledgeGraph, budget: int) -> None:
    found = graph_map(payments_graph, budget)
    assert found.tokens == count_tokens(found.text) <= budget
    assert found.entries and (found.tokens >= 0.75 * budget or len(found.entries) == 94)
    focused = Retriever(payments_graph).overview(budget, QUESTION)
    assert focused.tokens == count_tokens(focused.text) <= budget


def test_the_most_central_come_first_with_who_calls_them(payments_graph: KnowledgeGraph) -> None:
    found = graph_map(payments_graph, 1000)
    shown = [e.id for e in found.entries]
    # The helpers every solution reuses lead a map of solved tasks.
    assert {"fn:load_fees", "fn:matches_field", "fn:filter_fee_rules"} <= set(shown[:8])
    load_fees = next(e for e in found.entries if e.id == "fn:load_fees")
    assert load_fees.header == "()" and load_fees.knowledge.startswith("Load the fee rules")
    assert load_fees.called_by and load_fees.called_by[-1].endswith("more")
    average = next(e for e in found.entries if e.id == "fn:average_fee")
    assert "calculate_fee" in average.calls and "calls: calculate_fee" in found.text
    assert found.text.splitlines()[0] == (
        f"# {len(found.entries)} of 94 functions, the most central first "
        f"({len({e.file for e in found.entries})} files)")


def test_a_question_puts_what_it_needs_first(payments_graph: KnowledgeGraph) -> None:
    retriever = Retriever(payments_graph)
    found = retriever.overview(400, QUESTION)
    retrieved = [d.id for d in retriever.retrieve(QUESTION).documents]
    first = [e.id for e in found.entries][:3]
    assert first == [i for i in retrieved if i in first][:3]  # in the retriever's order
    assert retrieved[0] in first and found.text.splitlines()[0].endswith(
        f"those a question needs first ({len({e.file for e in found.entries})} files)")


def test_call_rank_gives_mass_to_what_is_used() -> None:
    rank = call_rank({"a": ["c"], "b": ["c"], "c": ["d"]}, "abcde")
    assert rank["d"] > rank["c"] > rank["a"] == rank["b"] == rank["e"]
    assert abs(sum(rank.values()) - 1) < 1e-9


@pytest.mark.parametrize("tokens", [19, 0, -5, 2.5, True, "100", 10**7])
def test_a_budget_out_of_range_is_refused(payments_graph: KnowledgeGraph, tokens: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="tokens must be an integer from 20"):
        graph_map(payments_graph, tokens)


def test_headers_come_from_the_syntax_tree() -> None:
    code = ("class Fees:\n    @staticmethod\n    async def fee(rule: dict,\n"
            "                  amount: float = 0,\n    ) -> float:\n        return 1.0\n"
            "def total(rules):\n    return Fees.fee(rules[0])\n")
    found = graph_map(build_graph([("fees.py", code)]), 100)
    fee = next(e for e in found.entries if e.shown == "Fees.fee")
    assert fee.header == "async (rule: dict, amount: float = 0) -> float"
    assert "  Fees.fee" in found.text and "called by: total" in found.text


def test_sgkr_map_prints_the_map_within_its_budget(
        payments_graph: KnowledgeGraph, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "graph.json"
    payments_graph.save(path)
    assert main(["map", str(path), "--tokens", "150"]) == 0
    printed = capsys.readouterr().out
    assert count_tokens(printed) <= 150 and "load_fees" in printed
    assert main(["map", str(path), "--tokens", "150", "--query", QUESTION, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    top = Retriever(payments_graph).retrieve(QUESTION).documents[0].id
    assert data["tokens"] <= 150 and data["entries"][0]["id"] == top
    with pytest.raises(SystemExit):
        main(["map", str(path), "--tokens", "3"])
    assert "from 20" in capsys.readouterr().err
    assert main(["map", "falkor://localhost:1/x"]) == 2
    assert "reads a graph file" in capsys.readouterr().err


def test_both_adapters_give_the_map(payments_graph: KnowledgeGraph) -> None:
    from langchain_sgkr import SGKRRetriever as LangChainRetriever
    from llama_index_sgkr import SGKRRetriever as LlamaIndexRetriever

    expected = Retriever(payments_graph).overview(120, QUESTION).text
    assert LangChainRetriever(graph=payments_graph).overview(120, QUESTION) == expected
    assert LlamaIndexRetriever.from_defaults(payments_graph).overview(120, QUESTION) == expected


@pytest.mark.slow
@pytest.mark.parametrize("budget", [500, 4000])
def test_the_stdlib_map_fits_its_budget(stdlib_graph: KnowledgeGraph, budget: int) -> None:
    found = graph_map(stdlib_graph, budget)
    assert found.tokens == count_tokens(found.text) <= budget
    assert found.tokens >= 0.9 * budget and len(found.entries) >= budget // 100
    focused = Retriever(stdlib_graph).overview(budget, "How does json decode a string?")
    assert focused.tokens <= budget and "json" in focused.text.splitlines()[1]


@pytest.fixture(scope="module")
def stdlib_graph() -> KnowledgeGraph:
    import sysconfig

    return build_graph([sysconfig.get_path("stdlib")], exclude=[
        "site-packages", "test", "tests", "idle_test"])
