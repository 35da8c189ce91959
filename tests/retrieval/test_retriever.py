"""The retriever: budget, ranking, options, fallback, custom extractors, async."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle

import pytest

from sgkr import KnowledgeGraph, Retriever, RetrieverOptions
from sgkr.errors import InvalidArgumentError
from sgkr.export import render
from sgkr.records import Edge, FunctionNode, SourceSpan
from sgkr.retrieval.filters import compile_filter, filter_values

from ..algorithms.test_paths import make
from ..conftest import PAYMENTS


@pytest.fixture()
def graph() -> KnowledgeGraph:
    # amount -> fee <- avg_fee -> average fee; avg_fee -> load; a script calls avg_fee.
    g = make([("avg_fee", "fee"), ("avg_fee", "load"), ("load", "read"), ("other", "fee")],
             consumes=[("amount", "fee"), ("scheme", "other")],
             produces=[("avg_fee", "average fee"), ("other", "scheme count")])
    return g


def test_paths_then_callees(graph: KnowledgeGraph) -> None:
    r = Retriever(graph, callees=0, fill="none")
    result = r.retrieve("the average fee for an amount")
    assert [d.name for d in result.documents] == ["fee", "avg_fee"]
    assert result.inputs == ("amount",) and result.outputs == ("average fee",)
    assert result.paths == (("tag:amount", "fn:fee", "fn:avg_fee", "tag:average fee"),)
    assert all(0 < d.score <= 1 for d in result.documents)
    deeper = r.with_options(callees=2).retrieve("the average fee for an amount")
    assert [d.name for d in deeper.documents] == ["fee", "avg_fee", "load", "read"]
    assert deeper.documents[2].score < deeper.documents[1].score


def test_k_limits_and_per_call(graph: KnowledgeGraph) -> None:
    r = Retriever(graph, k=1)
    assert len(r.retrieve("the average fee for an amount").documents) == 1
    assert len(r.retrieve("the average fee for an amount", k=3).documents) == 3
    with pytest.raises(InvalidArgumentError, match="k must be"):
        r.retrieve("average fee", k=0)


def test_documents_carry_metadata(graph: KnowledgeGraph) -> None:
    doc = Retriever(graph).retrieve("the average fee for an amount").documents[0]
    meta = doc.metadata()
    assert meta["id"] == "fn:fee" and meta["matched_tags"] == ["amount", "average fee"]
    assert meta["path"] == ["tag:amount", "fn:fee", "fn:avg_fee", "tag:average fee"]


def test_no_tags_and_no_fill_means_nothing_unless_a_fallback(graph: KnowledgeGraph) -> None:
    bare = Retriever(graph, fill="none", lexical=False)
    assert bare.retrieve("unrelated words").documents == ()
    calls: list[tuple[str, int]] = []

    def fallback(question: str, k: int) -> list[str]:
        calls.append((question, k))
        return ["fn:read", "fn:missing", "fn:load"]

    result = Retriever(graph, fallback=fallback, k=5).retrieve("unrelated words")
    assert result.fallback_used and [d.name for d in result.documents] == ["read", "load"]
    assert calls == [("unrelated words", 5)]


def test_partial_matches(graph: KnowledgeGraph) -> None:
    # only an input matched: its consumers (nearest) ...
    paper = Retriever(graph, fill="none", lexical=False)
    near = paper.with_options(partial="nearest", callees=0).retrieve("the amount")
    assert [d.name for d in near.documents] == ["fee"]
    # ... or nothing
    assert paper.with_options(partial="none").retrieve("the amount").documents == ()
    # two inputs with no input->output path are connected through shared functions
    joined = paper.with_options(partial="connect", callees=0).retrieve("amount per scheme")
    assert joined.paths == (("tag:amount", "fn:fee", "fn:other", "tag:scheme"),)


def test_custom_tag_extractor(graph: KnowledgeGraph) -> None:
    r = Retriever(graph, tag_extractor=lambda q: ["amount", "average fee"], callees=0,
                  fill="none")
    assert [d.name for d in r.retrieve("anything at all").documents] == ["fee", "avg_fee"]


def test_fill_completes_the_budget_after_the_paths(graph: KnowledgeGraph) -> None:
    r = Retriever(graph, callees=0, k=4)
    names = [d.name for d in r.retrieve("the average fee for an amount").documents]
    # the paper's path first, then what the walk from the tags and the path reaches
    assert names[:2] == ["fee", "avg_fee"] and len(names) == 4 and len(set(names)) == 4
    scores = [d.score for d in r.retrieve("the average fee for an amount").documents]
    assert scores == sorted(scores, reverse=True)


def test_no_tag_is_answered_by_name(graph: KnowledgeGraph) -> None:
    result = Retriever(graph, k=2).retrieve("how is a file read?")
    assert result.tags == () and result.fallback_used
    assert result.documents[0].name == "read"


def test_a_question_that_matches_nothing_is_flagged_and_answered_by_nothing(
        graph: KnowledgeGraph) -> None:
    # no tag and no word of any function: nothing, flagged, so that a caller can abstain
    for question in ("zzz qqq", "asdfgh qwerty", "", "   "):
        result = Retriever(graph, k=2).retrieve(question)
        assert result.documents == () and not result.matched
        assert result.to_dict()["matched"] is False
    assert Retriever(graph, k=2).retrieve("how is a file read?").matched
    # lexical answers alone when the walk is off
    assert [d.name for d in Retriever(graph, fill="none").retrieve("read").documents] == [
        "read"]


def test_options_validation(graph: KnowledgeGraph) -> None:
    with pytest.raises(InvalidArgumentError, match="unknown retriever option"):
        Retriever(graph, kk=3)
    with pytest.raises(InvalidArgumentError, match="partial"):
        Retriever(graph, partial="guess")
    with pytest.raises(InvalidArgumentError, match="fill"):
        Retriever(graph, fill="bfs")
    with pytest.raises(InvalidArgumentError, match="centrality"):
        Retriever(graph, centrality=-1)
    with pytest.raises(InvalidArgumentError, match="question must be a string, got NoneType"):
        Retriever(graph).retrieve(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="KnowledgeGraph"):
        Retriever({})  # type: ignore[arg-type]
    opts = RetrieverOptions(k=3, callees=1)
    assert RetrieverOptions.from_dict(opts.to_dict()) == opts


def test_without_knowledge(graph: KnowledgeGraph) -> None:
    docs = Retriever(graph, include_knowledge=False).retrieve("average fee for an amount")
    assert all(d.knowledge == "" for d in docs.documents)


def test_deterministic_and_read_only(graph: KnowledgeGraph) -> None:
    before = graph.to_dict()
    r = Retriever(graph)
    results = {r.retrieve("the average fee for an amount") for _ in range(3)}
    assert len({tuple(d.id for d in x.documents) for x in results}) == 1
    assert graph.to_dict() == before


def test_aretrieve(graph: KnowledgeGraph) -> None:
    r = Retriever(graph)
    result = asyncio.run(r.aretrieve("the average fee for an amount"))
    assert result == r.retrieve("the average fee for an amount")


def test_scores_fall_with_rank(payments_graph: KnowledgeGraph) -> None:
    r = Retriever(payments_graph, k=12, callees=3)
    for line in (PAYMENTS / "heldout.jsonl").read_text(encoding="utf-8").splitlines():
        scores = [d.score for d in r.retrieve(json.loads(line)["question"]).documents]
        assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_an_empty_question_retrieves_nothing(graph: KnowledgeGraph, question: str) -> None:
    # As a vector retriever does, and without asking the fallback.
    asked: list[str] = []
    r = Retriever(graph, fallback=lambda q, k: asked.append(q) or ["fn:fee"])
    result = r.retrieve(question)
    assert result.documents == () and result.question == question and not asked
    with pytest.raises(InvalidArgumentError, match="k must be"):
        r.retrieve(question, k=0)


@pytest.mark.parametrize("clone", [lambda r: pickle.loads(pickle.dumps(r)), copy.deepcopy])
def test_pickles_and_deep_copies(payments_graph: KnowledgeGraph, clone: object) -> None:
    question = "What is the most expensive MCC for a transaction of 5 euros, in general?"
    r = Retriever(payments_graph, k=5, callees=1)
    before = r.retrieve(question)  # the search tables are built and then held
    back = clone(r)  # type: ignore[operator]
    assert back.options == r.options and back.graph is not r.graph
    assert back.graph.to_dict() == payments_graph.to_dict()
    assert back.retrieve(question) == before and len(before.documents) == 5


def test_export_draws_a_questions_retrieval(payments_graph: KnowledgeGraph) -> None:
    r = Retriever(payments_graph, k=3)
    assert 'role="retrieved"' not in render(r.graph, None, "dot")
    question = "What is the fee ID or IDs that apply to account_type = D and aci = F?"
    drawn = [line for line in render(r.graph, r.retrieve(question), "dot").splitlines()
             if 'role="retrieved"' in line and "->" not in line]
    assert sorted(line.split('"')[1] for line in drawn) == sorted(
        d.id for d in r.retrieve(question).documents)


class _Wrapped:
    """A graph store that is not the in-memory one: it reads through the protocol only."""

    url = "wrapped:"

    def __init__(self, graph: KnowledgeGraph) -> None:
        from sgkr.stores import MemoryStore

        self._inner = MemoryStore(graph)

    def reader(self):  # type: ignore[no-untyped-def]
        return self._inner


def test_the_fill_reads_a_store_through_the_protocol(payments_graph: KnowledgeGraph) -> None:
    # A store without a lexical index: the walk from the tags and paths, read in batches,
    # ranks as it does in memory.
    memory = Retriever(payments_graph, lexical=False, k=12)
    stored = Retriever(store=_Wrapped(payments_graph), lexical=False, k=12)  # type: ignore[arg-type]
    for line in (PAYMENTS / "heldout.jsonl").read_text(encoding="utf-8").splitlines():
        question = json.loads(line)["question"]
        expected = memory.retrieve(question)
        assert len(expected.documents) == 12
        assert stored.retrieve(question) == expected


CASE_STUDY = "What is the most expensive MCC for a transaction of 5 euros, in general?"


@pytest.mark.parametrize("spec", [
    {"file": "solutions/task_1273.py"},
    {"kind": {"$ne": "module"}},
    {"matched_tags": "mcc"},
    {"name": "load_mcc_codes"},  # a callee of a function the filter leaves out
    {"$or": [{"name": "fee_rule_matches"}, {"name": "get_mcc_code"}]},
])
def test_filter_spends_the_budget_on_what_passes(payments_graph: KnowledgeGraph,
                                                 spec: dict[str, object]) -> None:
    rule = compile_filter(spec)
    everything = Retriever(payments_graph, k=1000, scripts=1).retrieve(CASE_STUDY).documents
    passing = [d for d in everything
               if rule(filter_values(payments_graph.function(d.id), d.matched_tags))]
    assert 0 < len(passing) < len(everything)
    for k in (1, 3):
        docs = Retriever(payments_graph, k=k, scripts=1, filter=spec).retrieve(
            CASE_STUDY).documents
        # The first k that pass, as ranked without a filter, with the same scores.
        assert [(d.id, d.score, d.matched_tags) for d in docs] == [
            (d.id, d.score, d.matched_tags) for d in passing[:k]]


def test_filtered_out_module_takes_no_script_slot() -> None:
    # Two scripts consume the amount; with scripts=1 only the first is returned, unless
    # the filter leaves that one out.
    g = make([], consumes=[("amount", "fee")], produces=[("fee", "total")])
    for name in ("a", "b"):
        g.add_function(FunctionNode(f"mod:{name}", name, (name,), "x = 1", "", (
            SourceSpan(f"{name}.py", 1, 1),), "module"))
        g.add_edge(Edge("tag:amount", f"mod:{name}", "consumes"))
    question = "the amount"
    assert [d.id for d in Retriever(g, partial="nearest", scripts=1).retrieve(question)
            .documents] == ["fn:fee", "mod:a"]
    only_b = Retriever(g, partial="nearest", scripts=1, filter={"file": "b.py"}).retrieve(
        question)
    assert [d.id for d in only_b.documents] == ["mod:b"]


def test_filter_applies_to_the_fallback(payments_graph: KnowledgeGraph) -> None:
    ids = sorted(f.id for f in payments_graph.functions())
    r = Retriever(payments_graph, fallback=lambda q, k: ids,
                  filter={"file": "solutions/task_1273.py"})
    docs = r.retrieve("How do I read a json file?").documents
    assert docs and all(d.sources[0].file == "solutions/task_1273.py" for d in docs)
    assert [d.id for d in docs] == [i for i in ids if i in {d.id for d in docs}]


def test_filter_is_an_option(payments_graph: KnowledgeGraph) -> None:
    spec = {"kind": "function"}
    options = RetrieverOptions(filter=spec)
    assert RetrieverOptions.from_dict(json.loads(json.dumps(options.to_dict()))) == options
    r = Retriever(payments_graph).with_options(filter=spec)
    assert all(d.kind == "function" for d in r.retrieve(CASE_STUDY).documents)
    with pytest.raises(InvalidArgumentError, match="filter: unknown field 'path'"):
        Retriever(payments_graph, filter={"path": "a.py"})


def test_inferred_tags_seed_the_walk_instead_of_paths() -> None:
    from sgkr import build_graph

    code = ("def load_rows(path):\n    return open(path).read().split()\n"
            "def average_fee(rows):\n    return sum(float(r) for r in rows) / len(rows)\n"
            "def report(path):\n    return average_fee(load_rows(path))\n")
    g = build_graph([("fees.py", code)], infer_tags=True)
    g.meta["curated_tags"] = False
    question = "What is the average fee of the rows in a file?"
    seeded = Retriever(g, k=2).retrieve(question)
    assert seeded.paths == () and seeded.documents[0].name == "average_fee"
    assert Retriever(g, k=2, inferred="paths").retrieve(question).paths != ()


def test_specificity_drops_tags_every_function_shares(graph: KnowledgeGraph) -> None:
    # "amount" is consumed by one function of five: specific enough at 0.5, not at 0.9
    kept = Retriever(graph, specificity=0.5, fill="none", lexical=False).retrieve("the amount")
    assert kept.tags and kept.documents
    dropped = Retriever(graph, specificity=0.9, fill="none", lexical=False).retrieve("the amount")
    assert dropped.tags == () and dropped.documents == ()


def test_built_in_tag_extractors(graph: KnowledgeGraph) -> None:
    question = "which count?"  # names no tag; "scheme count" in part
    weighted = Retriever(graph, fill="none").retrieve(question)
    assert [(m.label, m.score < 0.9) for m in weighted.tags] == [("scheme count", True)]
    assert weighted.paths == ()  # a tag named in part seeds the walk, it anchors no path
    assert Retriever(graph, tag_extractor="keyword").match(question) == []
    walked = Retriever(graph, k=2, lexical=False, reuse=0.0).retrieve(question)
    assert [d.name for d in walked.documents][:1] == ["other"]  # the tag's producer
    with pytest.raises(InvalidArgumentError, match="tag_extractor must be one of"):
        Retriever(graph, tag_extractor="fuzzy")  # type: ignore[arg-type]


def test_a_path_counts_as_much_as_its_tags_are_sure(graph: KnowledgeGraph) -> None:
    from sgkr.records import TagMatch

    def order(fee: float, count: float) -> list[str]:
        def extractor(question: str) -> list[TagMatch]:
            return [TagMatch("tag:amount", "amount", "amount", 0, 6, "input"),
                    TagMatch("tag:average fee", "average fee", "a", 7, 8, "output", fee),
                    TagMatch("tag:scheme count", "scheme count", "b", 9, 10, "output", count)]

        r = Retriever(graph, tag_extractor=extractor, callees=0, fill="none")
        return [d.name for d in r.retrieve("amount a b").documents]

    assert order(1.0, 0.9) == ["fee", "avg_fee", "other"]
    assert order(0.9, 1.0) == ["fee", "other", "avg_fee"]


@pytest.mark.parametrize(("weights", "first"), [((1.0, 0.1), "reads_rate"),
                                                ((0.1, 1.0), "reads_fee")])
def test_specific_tags_seed_the_walk_more(weights: tuple[float, float], first: str) -> None:
    from sgkr.records import TagNode

    g = KnowledgeGraph()
    for name in ("reads_rate", "reads_fee"):
        g.add_function(FunctionNode(f"fn:{name}", name, (name,), "", "", (), "function"))
    g.add_tag(TagNode("tag:rate", "rate", weight=weights[0]))
    g.add_tag(TagNode("tag:fee", "fee", weight=weights[1]))
    g.add_edge(Edge("tag:rate", "fn:reads_rate", "consumes"))
    g.add_edge(Edge("tag:fee", "fn:reads_fee", "consumes"))
    g.meta["curated_tags"] = False  # inferred tags seed the walk, no path between them
    r = Retriever(g, k=1, lexical=False)
    assert [d.name for d in r.retrieve("the rate and the fee").documents] == [first]


def test_prepare_makes_every_table_the_first_question_reads(
        payments_graph: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    # What prepare() makes is not made again: the first question costs no more than the next.
    import sgkr.algorithms.lexical

    retriever = Retriever(payments_graph)
    retriever.prepare()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a table was made while answering")

    monkeypatch.setattr(sgkr.algorithms.lexical.LexicalIndex, "length_of", refuse)
    monkeypatch.setattr(sgkr.algorithms.lexical, "LexicalIndex", refuse)
    assert retriever.retrieve("Which helper reads the csv of category codes?").documents


def test_tests_are_left_out_of_answers_unless_asked() -> None:
    """Issue 40: a repository built with its tests answers with the code under test; the
    tests come back with ``tests=True`` or the filter ``{"test": true}``."""
    from sgkr import build_graph

    graph = build_graph([
        ("src/shop/cart.py", "def cart_total(items):\n    return sum(i.price for i in items)\n"),
        ("tests/test_cart.py", "from shop.cart import cart_total\n"
                               "def test_cart_total_of_items():\n"
                               "    assert cart_total([]) == 0  # cart total of no items\n"),
        ("src/shop/conftest.py", "def cart_total_fixture():\n    return []\n")])
    assert graph.report.test_functions == 2
    question = "how is the cart total of the items computed?"
    default = [d.id for d in Retriever(graph, k=5).retrieve(question).documents]
    assert default == ["fn:shop.cart.cart_total"]
    everything = {d.id for d in Retriever(graph, k=5, tests=True).retrieve(question).documents}
    assert everything == {"fn:shop.cart.cart_total", "fn:tests.test_cart.test_cart_total_of_items",
                          "fn:shop.conftest.cart_total_fixture"}
    for options in ({"filter": {"test": True}}, {"filter": {"test": True}, "tests": True}):
        only = Retriever(graph, k=5, **options).retrieve(question)  # type: ignore[arg-type]
        assert {d.id for d in only.documents} == everything - {"fn:shop.cart.cart_total"}
    with pytest.raises(InvalidArgumentError, match="takes a boolean"):
        Retriever(graph, filter={"test": "yes"})
