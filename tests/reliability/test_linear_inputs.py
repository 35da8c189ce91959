"""Work grows linearly with each input, or the input is refused above a limit (issue 33).

Each reproduction of the review runs at the size that showed it (or larger), so
a regression shows as minutes in the test run, not as a slow assertion; and
hypothesis makes more inputs of each shape. Other shapes of the class are in
the modules' own tests: ``.gitignore`` globs (tests/ingest/test_wildmatch.py,
M3), coding lines (tests/ingest/test_sources.py, M4), notebooks of many cells
(tests/ingest/test_notebook.py, M6).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgkr import Retriever, build_graph
from sgkr.agents.answer import explain_path
from sgkr.algorithms.paths import MAX_PATH_ENDS, MAX_PATHS
from sgkr.cli import main
from sgkr.errors import InvalidArgumentError
from sgkr.graph import KnowledgeGraph
from sgkr.records import Edge, FunctionNode, TagNode
from sgkr.retrieval.question import MAX_QUESTION_CHARS
from sgkr.tags import FunctionKnowledge, Sidecar

pytestmark = pytest.mark.slow


def _shared_alias_graph(tags: int) -> KnowledgeGraph:
    """``tags`` input tags all aliased ``amount`` and as many output tags aliased ``fee``."""
    code = "".join(f"def f{i}(x):\n    return x\n" for i in range(tags))
    side = Sidecar(
        {f"f{i}": FunctionKnowledge(inputs=(f"in {i}",), outputs=(f"out {i}",))
         for i in range(tags)},
        {**{f"in {i}": ("amount",) for i in range(tags)},
         **{f"out {i}": ("fee",) for i in range(tags)}})
    return build_graph([("m.py", code)], knowledge=side, jobs=1)


def test_m7_thousands_of_tags_sharing_an_alias_cost_one_search_each_way() -> None:
    # Issue 33, M7: 8,000 tags sharing an alias, 64 M pairs searched: 124 s and 5.4 GB
    # per question; explain_dependency 24 s.
    graph = _shared_alias_graph(8000)
    result = Retriever(graph).retrieve("What is the fee of an amount?")
    assert len(result.tags) == 16_000
    assert 0 < len(result.paths) <= MAX_PATH_ENDS  # one per searched pair that meets
    assert result.documents
    text = explain_path(graph, "amount", "fee")
    assert "names 8000 nodes" in text and "depends on" in text


def _diamonds(levels: int, ends: int) -> KnowledgeGraph:
    """A chain of diamonds (2^levels shortest paths) between ``ends`` x ``ends`` tags."""
    g = KnowledgeGraph()
    g.add_functions(FunctionNode(f"fn:{s}{i}", f"{s}{i}", (f"m.{s}{i}",), "x", "", (),
                                 "function") for i in range(levels) for s in "ab")
    g.add_tags([TagNode(f"tag:in {i}", f"in {i}", ("amount",)) for i in range(ends)]
               + [TagNode(f"tag:out {i}", f"out {i}", ("fee",)) for i in range(ends)])
    edges = [Edge(f"tag:in {i}", f"fn:{s}0", "consumes") for i in range(ends) for s in "ab"]
    edges += [Edge(f"fn:{s}{i}", f"fn:{t}{i + 1}", "calls", "exact")
              for i in range(levels - 1) for s in "ab" for t in "ab"]
    edges += [Edge(f"fn:{s}{levels - 1}", f"tag:out {i}", "produces")
              for i in range(ends) for s in "ab"]
    g.add_edges(edges)
    return g


def test_l7_the_largest_search_over_the_most_pairs_reads_max_paths_paths() -> None:
    # Issue 33, L7 with M7: 1,024 pairs joined by the same 2^60 paths, at the largest
    # bounds: each pair enumerated max_paths paths (a million in all, 29 s).
    graph = _diamonds(60, MAX_PATH_ENDS)
    result = Retriever(graph, max_depth=64, max_paths=MAX_PATHS, reverse_calls=False,
                       fill="none").retrieve("fee of an amount")
    assert len(result.paths) == MAX_PATHS and {len(p) for p in result.paths} == {62}
    assert result.paths == tuple(sorted(result.paths, key=lambda p: (len(p), p)))
    assert "1000 paths" in explain_path(graph, "amount", "fee", max_depth=64,
                                        max_paths=MAX_PATHS)


def test_m8_a_sidecar_of_thousands_of_entries_is_matched_in_one_pass(tmp_path: Path) -> None:
    # Issue 33, M8: one scan of every function per sidecar entry (4,000 entries: 62 s).
    n = 8000
    (tmp_path / "m.py").write_text("".join(f"def f{i}(x):\n    return x\n" for i in range(n)))
    (tmp_path / "k.json").write_text(json.dumps({"functions": {
        **{f"m.f{i}": {"inputs": [f"in {i}"], "outputs": ["out"]} for i in range(n)},
        **{f"missing{i}": {"knowledge": "k"} for i in range(100)}}}))
    graph = build_graph([tmp_path / "m.py"], knowledge=tmp_path / "k.json", jobs=1)
    assert graph.report is not None
    assert len([p for p in graph.report.problems if "no function named" in p.reason]) == 100
    assert all(graph.consumers(f"tag:in {i}") == [f"fn:m.f{i}"] for i in range(0, n, 997))


def test_l8_a_question_is_read_in_linear_time_up_to_the_cap() -> None:
    # Issue 33, L8: a 32,000-word question took 16 s. A question at the cap naming a tag in
    # every word is read at once; a longer one is refused, naming the limit.
    graph = _shared_alias_graph(500)
    words = " ".join(f"which out {i % 500} from in {i % 500} amount" for i in range(4000))
    question = words[:MAX_QUESTION_CHARS]
    result = Retriever(graph).retrieve(question)
    assert result.documents and len(result.tags) == 1000
    with pytest.raises(InvalidArgumentError, match="at most 100,000"):
        Retriever(graph).retrieve(question + "x" * MAX_QUESTION_CHARS)


def test_l8_a_long_alias_does_not_make_questions_quadratic() -> None:
    # An alias of 300 words: every word of a question was tried as the start of a phrase
    # of up to 300 words, each joined afresh (4,000 words: 25 s).
    long_alias = " ".join(f"w{i}" for i in range(300))
    side = Sidecar({"fee": FunctionKnowledge(inputs=("amount",), outputs=("fee",))},
                   {"fee": (long_alias,)})
    graph = build_graph([("m.py", "def fee(amount):\n    return amount\n")], knowledge=side)
    question = " ".join(f"w{i % 300}" for i in range(16_000))
    assert Retriever(graph).retrieve(question).documents


def test_l8_the_cli_refuses_a_long_question_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.json"
    build_graph([("m.py", "def fee(amount):\n    return amount\n")]).save(path)
    assert main(["query", str(path), "fee " * 30_000]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at most 100,000" in err


# -- generated: hostile vocabularies and questions ----------------------------------------

_WORDS = st.sampled_from(["amount", "fee", "merchant", "card", "rate", "x", "which"])


@settings(max_examples=25, deadline=None)
@given(tags=st.integers(1, 3000), alias_words=st.integers(1, 40),
       question=st.lists(_WORDS, min_size=1, max_size=3000))
def test_any_vocabulary_and_question_give_bounded_answers(
        tags: int, alias_words: int, question: list[str]) -> None:
    alias = " ".join(["amount"] * alias_words)
    g = KnowledgeGraph()
    g.add_function(FunctionNode("fn:f", "f", ("m.f",), "def f(): ...", "", (), "function"))
    g.add_tags([TagNode(f"tag:t{i}", f"t{i}", (alias, "fee")) for i in range(tags)])
    g.add_edges([Edge(f"tag:t{i}", "fn:f", "consumes") for i in range(0, tags, 2)]
                + [Edge("fn:f", f"tag:t{i}", "produces") for i in range(1, tags, 2)])
    result = Retriever(g, max_paths=MAX_PATHS).retrieve(" ".join(question))
    assert len(result.paths) <= MAX_PATHS and len(result.documents) <= 1
