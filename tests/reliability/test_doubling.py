"""No work that multiplies two input sizes (issue 41, class 3): doubling tests per input class.

Each test doubles one input and asserts the time at most :data:`LINEAR` times
as long (:func:`~tests.reliability.doubling.growth`: medians of interleaved
runs, in CPU seconds). docs/reliability.md lists the classes.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import pytest

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.errors import InvalidArgumentError
from sgkr.ingest.extract import extract_module
from sgkr.retrieval.filters import MAX_FILTER_NODES, MAX_FILTER_VALUES, compile_filter
from sgkr.retrieval.mentions import mentions
from sgkr.retrieval.question import MAX_QUESTION_CHARS
from sgkr.retrieval.seeds import MAX_SEEDS, SeedHit

from .doubling import assert_linear


def _lines(line: str) -> object:
    return lambda n: "".join(line.format(i=i) for i in range(n))


def _extract(text: str) -> None:
    extract_module("m.py", text)


@pytest.mark.slow
def test_m4_a_long_run_of_constant_assignments_is_read_in_linear_time() -> None:
    # Issue 41, M4: two query patterns over one assignment (a binding, waiting for its
    # right side, and a change) kept every earlier assignment open: 80k lines, 26 s.
    assert_linear(_lines("NAME_{i} = {i}\n"), _extract, 2000)


@pytest.mark.slow
@pytest.mark.parametrize("line", [
    "x{i}: int = {i}\n", "x{i} = f(a)\n", "self.y{i} = 'a'\n", "a{i}, b = 1, 2\n",
    "k[{i}] = 1\n", "x{i} += 1\n", "x{i} = y = {i}\n", "(x{i} := {i})\n"])
def test_long_runs_of_one_statement_are_read_in_linear_time(line: str) -> None:
    assert_linear(_lines(line), _extract, 500, attempts=5)  # a busy machine: more tries


# -- question tokens (M5) ------------------------------------------------------------------


def _named_graph() -> KnowledgeGraph:
    return build_graph([("m.py", "class A:\n    def a(self):\n        return 1\n"
                                 "def b(x):\n    return A().a()\n")])


def test_m5_a_long_dotted_chain_is_read_in_linear_time() -> None:
    # Issue 41, M5: each tail of a chain a.a.a... was tried: 8.7 s at 100,000 characters.
    graph = _named_graph()
    question = ("a." * (MAX_QUESTION_CHARS // 2))[:MAX_QUESTION_CHARS - 1]
    started = time.process_time()
    assert Retriever(graph).retrieve(question).documents[0].id == "fn:m.A.a"
    assert time.process_time() - started < 2.0
    assert_linear(lambda n: "A." * n + "a", lambda q: mentions(q, graph), 2000,
                  most=MAX_QUESTION_CHARS // 4)


# -- filter conditions and operands (M6) ---------------------------------------------------


def _files_graph(n: int) -> KnowledgeGraph:
    return build_graph([(f"f{i}.py", f"def fee{i}(amount):\n    return amount * {i}\n")
                        for i in range(n)], infer_tags=False)


def test_m6_a_filter_of_too_many_conditions_is_refused_in_one_line() -> None:
    # Issue 41, M6: a 389 KB $or filter took 8 s over MCP on a 300-function graph.
    graph = _files_graph(30)
    wide = {"$or": [{"file": f"f{i}.py"} for i in range(20_000)]}
    started = time.process_time()
    with pytest.raises(InvalidArgumentError, match=f"more than {MAX_FILTER_NODES} conditions"):
        Retriever(graph, filter=wide).retrieve("fee of an amount")
    assert time.process_time() - started < 2.0
    at_cap = {"$or": [{"file": f"f{i}.py"} for i in range(MAX_FILTER_NODES // 2 - 1)]}
    assert Retriever(graph, filter=at_cap, k=3).retrieve("fee of an amount").documents


@pytest.mark.slow
def test_m6_operands_are_checked_as_a_set() -> None:
    # $in, $nin and $all scanned every operand for every function: operands x functions.
    def make(n: int) -> tuple[Retriever, ...]:
        graph = _files_graph(n)
        files = [f"f{i}.py" for i in range(0, n, 2)]
        return tuple(Retriever(graph, k=n, filter={"file": {op: files}})
                     for op in ("$in", "$nin"))

    def ask(retrievers: tuple[Retriever, ...]) -> None:
        for retriever in retrievers:
            assert retriever.retrieve("fee of an amount").documents

    assert_linear(make, ask, 200)
    with pytest.raises(InvalidArgumentError, match="at most 100,000 values"):
        compile_filter({"file": {"$in": ["a"] * (MAX_FILTER_VALUES + 1)}})


# -- seed results (M7) ---------------------------------------------------------------------


def test_m7_an_endless_seed_retriever_is_read_up_to_the_cap() -> None:
    # Issue 41, M7: every result was materialised before the 200-result cap: an endless
    # generator hung, its memory growing.
    graph = _files_graph(5)
    drawn = itertools.count()

    def endless(question: str) -> Iterator[str]:
        while True:
            if next(drawn) > 10 * MAX_SEEDS:
                raise AssertionError("drew far past the cap")
            yield "fn:f1.fee1"

    assert Retriever(graph, seed_retriever=endless).retrieve("fee").documents[0].id \
        == "fn:f1.fee1"
    assert next(drawn) <= MAX_SEEDS + 1


@pytest.mark.parametrize("result", [
    SeedHit(score=10**400, node_id="fn:f1.fee1"), SeedHit(score=float("nan"), node_id="fn:f1.fee1"),
    SeedHit(text=5, node_id="fn:f1.fee1"),  # type: ignore[arg-type]
    SeedHit(node_id="fn:f1.fee1", start_line="1", file=3),  # type: ignore[arg-type]
])
def test_m7_wrong_shaped_seed_results_are_read_as_far_as_they_go(result: SeedHit) -> None:
    # Raw TypeError, AttributeError, OverflowError (a score of 10**400).
    graph = _files_graph(5)
    found = Retriever(graph, seed_retriever=lambda q: [result]).retrieve("fee")
    assert found.documents[0].id == "fn:f1.fee1"


class _Document:
    def __init__(self, content: object, metadata: object) -> None:
        self.page_content, self.metadata = content, metadata


class _Chain:
    def __init__(self, results: object) -> None:
        self.results = results

    def invoke(self, question: str) -> object:
        return self.results


def test_m7_results_of_the_wrong_shape_are_one_typed_error() -> None:
    graph = _files_graph(5)
    with pytest.raises(InvalidArgumentError, match="must be a list, got NoneType"):
        Retriever(graph, seed_retriever=_Chain(None)).retrieve("fee")
    documents = [_Document(None, ["not", "a", "mapping"]), _Document("def fee1(amount):", 7)]
    found = Retriever(graph, seed_retriever=_Chain(documents)).retrieve("fee")
    # Read as far as they go: neither names a function, so the question matched nothing.
    assert found.documents == () and not found.matched


@pytest.mark.slow
def test_m7_seed_results_cost_the_same_however_many_are_given() -> None:
    graph = _files_graph(20)

    def make(n: int) -> Retriever:
        hits = [f"fn:f{i % 20}.fee{i % 20}" for i in range(n)]
        return Retriever(graph, seed_retriever=lambda q: hits)

    assert_linear(make, lambda r: r.retrieve("fee"), 5_000, most=80_000)
