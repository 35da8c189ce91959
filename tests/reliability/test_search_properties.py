"""Property tests of retrieval on random graphs: every document is justified by a
found path (or is an added callee), results are deterministic, the search bounded.

The exact property (see :mod:`sgkr.retrieval.retriever`): the paths of a result come from
the first of three searches that finds any --

1. ``find_paths``: from a matched input tag to a matched output tag, moving along
   consumes, produces and calls edges (and calls backwards when ``reverse_calls``);
2. ``connect_paths`` (``partial="connect"``, two or more tags matched): between two
   matched tags, moving along any edge either way;
3. nearest (``partial`` not ``none``): ``(input tag, consumer)`` or ``(producer,
   output tag)`` pairs.

Each path has at most ``max_depth`` edges and no repeated node; there are at most
``max_paths``. Every document is a function on a path, or one reachable from a
path function by at most ``callees`` call edges; at most ``k`` documents and at
most ``scripts`` of kind module. With ``fill`` (the default) those documents come
first, and the walk's follow, up to ``k``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgkr.graph import KnowledgeGraph
from sgkr.retrieval.retriever import Retriever

from .graphs import WORDS, hub_scc_graph, random_graph

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

graphs = st.builds(random_graph, seed=st.integers(0, 10**6), functions=st.integers(1, 25),
                   calls=st.integers(0, 60), links=st.integers(0, 20))
options = st.fixed_dictionaries({
    "k": st.integers(1, 12), "max_depth": st.integers(1, 6), "max_paths": st.integers(1, 12),
    "reverse_calls": st.booleans(), "callees": st.integers(0, 3),
    "partial": st.sampled_from(["connect", "nearest", "none"]), "scripts": st.integers(0, 2),
})
questions = st.lists(st.sampled_from([*WORDS, "which", "what is the", "for", "per", "zzz"]),
                     min_size=1, max_size=6).map(" ".join)


def _step_ok(g: KnowledgeGraph, a: str, b: str, reverse_calls: bool, any_way: bool) -> bool:
    nx = g.nx
    if nx.has_edge(a, b):
        return True
    if nx.has_edge(b, a):
        return any_way or (reverse_calls and nx.edges[b, a]["type"] == "calls")
    return False


def _within_callees(g: KnowledgeGraph, start: set[str], node: str, depth: int) -> bool:
    frontier, seen = set(start), set(start)
    for _ in range(depth):
        frontier = {c for f in frontier for c in g.callees(f)} - seen
        seen |= frontier
        if node in frontier:
            return True
    return False


@FAST
@given(graphs, options, questions)
def test_every_document_lies_on_a_found_path_or_is_an_added_callee(
        graph: KnowledgeGraph, opts: dict[str, object], question: str) -> None:
    r = Retriever(graph, **opts, fill="none", lexical=False)  # the paper's retrieval
    result = r.retrieve(question)
    o = r.options
    matched = {m.tag_id for m in result.tags}
    inputs = {m.tag_id for m in result.tags if m.label in result.inputs}
    outputs = {m.tag_id for m in result.tags if m.label in result.outputs}
    assert len(result.paths) <= max(o.max_paths, 2 * len(graph))
    kinds = set()
    for path in result.paths:
        assert len(set(path)) == len(path), path
        head, tail = path[0], path[-1]
        steps = list(zip(path, path[1:], strict=False))
        if head in inputs and tail in outputs and len(path) - 1 <= o.max_depth and all(
                _step_ok(graph, a, b, o.reverse_calls, False) for a, b in steps):
            kinds.add("find")
        elif (o.partial == "connect" and head in matched and tail in matched
              and len(path) - 1 <= o.max_depth
              and all(_step_ok(graph, a, b, False, True) for a, b in steps)):
            kinds.add("connect")
        elif o.partial != "none" and len(path) == 2 and (
                (head in inputs and graph.nx.has_edge(head, tail))
                or (tail in outputs and graph.nx.has_edge(head, tail))):
            kinds.add("nearest")
        else:
            raise AssertionError(f"unjustified path {path} for {question!r}")
    if "find" in kinds or "connect" in kinds:
        assert len(result.paths) <= o.max_paths
    on_paths = {n for p in result.paths for n in p if graph.node_type(n) == "function"}
    docs = [d.id for d in result.documents]
    assert len(docs) == len(set(docs)) <= o.k
    assert sum(d.kind == "module" for d in result.documents) <= o.scripts
    for d in result.documents:
        assert 0 < d.score <= 1
        if d.id not in on_paths:
            assert o.callees > 0 and _within_callees(graph, on_paths, d.id, o.callees), d.id
    if not matched:
        assert not result.documents and not result.paths


@FAST
@given(graphs, options, questions, st.sampled_from(["ppr", "none"]), st.booleans())
def test_the_fill_keeps_the_paths_documents_first(
        graph: KnowledgeGraph, opts: dict[str, object], question: str, fill: str,
        lexical: bool) -> None:
    paper = Retriever(graph, **opts, fill="none", lexical=False).retrieve(question)
    r = Retriever(graph, **opts, fill=fill, lexical=lexical)
    result = r.retrieve(question)
    docs = [d.id for d in result.documents]
    assert docs[: len(paper.documents)] == [d.id for d in paper.documents]
    assert len(docs) == len(set(docs)) <= r.options.k
    assert sum(d.kind == "module" for d in result.documents) <= r.options.scripts
    scores = [d.score for d in result.documents]
    assert scores == sorted(scores, reverse=True) and all(0 < x <= 1 for x in scores)
    if not result.matched:  # nothing of the question in the graph: nothing, flagged
        assert not docs and not result.tags and not result.paths
    elif fill == "ppr":  # else never empty: as many as k and the scripts cap allow
        kinds = [f.kind for f in graph.functions()]
        allowed = sum(k != "module" for k in kinds) + min(r.options.scripts, kinds.count("module"))
        assert len(docs) == min(r.options.k, allowed)


@pytest.mark.slow
@FAST
@given(st.integers(0, 10**6), options, questions, st.integers(0, 10**6))
def test_results_do_not_depend_on_insertion_order_or_repetition(
        seed: int, opts: dict[str, object], question: str, order: int) -> None:
    a = random_graph(seed, 20, 50, 15)
    b = random_graph(seed, 20, 50, 15, order_seed=order)
    assert a.to_dict() == b.to_dict()
    first = Retriever(a, **opts).retrieve(question)
    assert Retriever(a, **opts).retrieve(question) == first
    assert Retriever(b, **opts).retrieve(question) == first
    assert Retriever(KnowledgeGraph.from_dict(a.to_dict()), **opts).retrieve(question) == first


def test_bounds_hold_on_a_big_scc_with_a_hub() -> None:
    graph = hub_scc_graph(functions=600, scc=300, hub_callers=400)
    before = graph.to_dict()
    for opts in ({}, {"max_depth": 12, "max_paths": 64, "callees": 3},
                 {"reverse_calls": False, "partial": "connect"}):
        r = Retriever(graph, **opts)
        for question in ("fee per amount", "which merchant has the highest fee",
                         "amount and merchant"):
            result = r.retrieve(question)
            assert len(result.paths) <= r.options.max_paths
            assert all(len(p) - 1 <= r.options.max_depth for p in result.paths)
            assert len(result.documents) <= r.options.k
    assert graph.to_dict() == before
