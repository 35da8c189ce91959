"""llama_index_sgkr.SGKRRetriever: construction, retrieval, persistence, async, events."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from llama_index.core.callbacks import CallbackManager, CBEventType, LlamaDebugHandler
from llama_index.core.callbacks.schema import EventPayload
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.events.retrieval import (
    RetrievalEndEvent,
    RetrievalStartEvent,
)
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from llama_index_sgkr import GRAPH_FILENAME, OPTIONS_FILENAME, SGKRRetriever
from sgkr import GraphFormatError, InvalidArgumentError, Retriever
from sgkr.export import render
from sgkr.text import without_docstring

PAYMENTS = Path(__file__).resolve().parents[2] / "examples" / "payments"


def ids(hits: list[NodeWithScore]) -> list[str]:
    return [h.node.node_id for h in hits]


def test_class() -> None:
    names_of_base_classes = [b.__name__ for b in SGKRRetriever.__mro__]
    assert BaseRetriever.__name__ in names_of_base_classes


def test_retrieve_converts_the_core_result(retriever, payments_graph, case_question) -> None:  # type: ignore[no-untyped-def]
    hits = retriever.retrieve(case_question)
    core = Retriever(payments_graph, k=6).retrieve(case_question)
    assert len(hits) == 6
    assert ids(hits) == [d.id for d in core.documents]
    assert [h.score for h in hits] == [d.score for d in core.documents]
    assert all(0.0 < (h.score or 0.0) <= 1.0 for h in hits)
    for hit, doc in zip(hits, core.documents, strict=True):
        assert isinstance(hit.node, TextNode)
        assert hit.node.text == doc.text
        assert hit.node.metadata["name"] == doc.name
        assert hit.node.metadata["matched_tags"] == list(doc.matched_tags)
        assert hit.node.metadata["file"] == doc.sources[0].file
    # the functions on the path carry the tags and the path that reached them
    top = hits[0].node.metadata
    assert top["matched_tags"] and top["path"][0].startswith("tag:")
    assert hits[0].node.node_id in top["path"]


def test_query_bundle_and_string_give_the_same(retriever, case_question) -> None:  # type: ignore[no-untyped-def]
    assert ids(retriever.retrieve(QueryBundle(case_question))) == ids(
        retriever.retrieve(case_question))


@pytest.mark.parametrize("k", [1, 3, 6])
def test_k_bounds_the_result(payments_graph, case_question, k: int) -> None:  # type: ignore[no-untyped-def]
    hits = SGKRRetriever.from_defaults(payments_graph, k=k).retrieve(case_question)
    assert len(hits) == k
    longer = SGKRRetriever.from_defaults(payments_graph, k=8).retrieve(case_question)
    assert ids(hits) == ids(longer)[:k]


def test_k_larger_than_the_result(payments_graph, case_question) -> None:  # type: ignore[no-untyped-def]
    everything = Retriever(payments_graph, k=10_000).retrieve(case_question).documents
    hits = SGKRRetriever.from_defaults(payments_graph, k=10_000).retrieve(case_question)
    assert 0 < len(hits) == len(everything) < payments_graph.stats()["functions"]
    assert len(set(ids(hits))) == len(hits)


def test_similarity_top_k_is_k(payments_graph, case_question) -> None:  # type: ignore[no-untyped-def]
    r = SGKRRetriever.from_defaults(payments_graph, similarity_top_k=2)
    assert r.similarity_top_k == r.options.k == 2
    assert len(r.retrieve(case_question)) == 2
    r.similarity_top_k = 4
    assert r.options.k == 4 and len(r.retrieve(case_question)) == 4
    with pytest.raises(InvalidArgumentError, match="k must be"):
        r.similarity_top_k = 0


def test_no_tags(retriever, paper, no_tag_question) -> None:  # type: ignore[no-untyped-def]
    # The graph's own answer (the earlier questions' votes off): the lexical match first.
    alone = retriever.sgkr_retriever.with_options(neighbours=0)
    assert alone.retrieve(no_tag_question).documents[0].name == "load_mcc_codes"
    # With them, weighed by how little the nearest earlier question covers this one.
    # (The loaders most earlier solutions use come first; the lexical match right after.)
    names = [n.node.metadata["name"] for n in retriever.retrieve(no_tag_question)]
    assert "load_mcc_codes" in names[:4]
    assert paper.retrieve(no_tag_question) == []
    assert paper.retrieve("What is the capital of France?") == []


@pytest.mark.parametrize("question", ["", "  ", "\n"])
async def test_an_empty_question_retrieves_nothing(retriever, question) -> None:  # type: ignore[no-untyped-def]
    assert retriever.retrieve(question) == []
    assert retriever.retrieve(QueryBundle(question)) == []
    assert await retriever.aretrieve(question) == []


def test_default_k_is_the_cores(payments_graph) -> None:  # type: ignore[no-untyped-def]
    assert SGKRRetriever.from_defaults(payments_graph).similarity_top_k == Retriever(
        payments_graph).k == 8


@pytest.mark.parametrize("clone", [lambda r: pickle.loads(pickle.dumps(r)), copy.deepcopy])
def test_pickles_and_deep_copies(payments_graph, case_question, clone) -> None:  # type: ignore[no-untyped-def]
    r = SGKRRetriever.from_defaults(payments_graph, k=5, callees=1)
    before = r.retrieve(case_question)
    back = clone(r)
    assert back.graph is not payments_graph and back.options == r.options
    after = back.retrieve(case_question)
    assert [(h.node.node_id, h.score, h.node.text, h.node.metadata) for h in after] == [
        (h.node.node_id, h.score, h.node.text, h.node.metadata) for h in before]
    assert len(after) == 5


def test_options_pass_through(payments_graph) -> None:  # type: ignore[no-untyped-def]
    r = SGKRRetriever.from_defaults(payments_graph, k=3, max_depth=4, callees=0,
                                    partial="nearest", reverse_calls=False,
                                    include_knowledge=False)
    given = {"k": 3, "max_depth": 4, "callees": 0, "partial": "nearest",
             "reverse_calls": False, "include_knowledge": False}
    assert {key: r.options.to_dict()[key] for key in given} == given
    assert r.options == Retriever(payments_graph, **given).options
    assert r.graph is payments_graph and r.sgkr_retriever.graph is payments_graph


def test_include_knowledge_false_gives_code_only(payments_graph, case_question) -> None:  # type: ignore[no-untyped-def]
    hits = SGKRRetriever.from_defaults(payments_graph, include_knowledge=False).retrieve(
        case_question)
    assert hits
    for hit in hits:
        node = payments_graph.function(hit.node.node_id)
        assert hit.node.text == without_docstring(node.code, node.knowledge)


@pytest.fixture(scope="module")
def built() -> SGKRRetriever:
    """A retriever built from the payments sources by from_defaults (a second build)."""
    return SGKRRetriever.from_defaults(
        sources=[PAYMENTS / "solutions"], knowledge=PAYMENTS / "knowledge.json",
        examples=PAYMENTS / "examples.jsonl", root=PAYMENTS, k=6)


def test_three_ways_to_build_agree(built, payments_graph, case_question, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "graph.json"
    payments_graph.save(path)
    loaded = SGKRRetriever.from_defaults(graph_path=path, k=6)
    given = SGKRRetriever.from_defaults(payments_graph, k=6)
    expected = [(h.node.node_id, h.score, h.node.text) for h in given.retrieve(case_question)]
    for r in (built, loaded):
        assert [(h.node.node_id, h.score, h.node.text)
                for h in r.retrieve(case_question)] == expected


def test_ids_are_stable_across_two_builds(built, payments_graph, case_question) -> None:  # type: ignore[no-untyped-def]
    first, second = built, SGKRRetriever.from_defaults(payments_graph, k=6)
    assert first.graph is not second.graph
    assert ids(first.retrieve(case_question)) == ids(second.retrieve(case_question))
    assert sorted(f.id for f in first.graph.functions()) == sorted(
        f.id for f in second.graph.functions())
    assert [h.node.hash for h in first.retrieve(case_question)] == [
        h.node.hash for h in second.retrieve(case_question)]


def test_examples_alone_build(tmp_path) -> None:  # type: ignore[no-untyped-def]
    examples = tmp_path / "examples.jsonl"
    examples.write_text(json.dumps({
        "id": "1", "question": "What is the average fee?",
        "code": "def average_fee(rules):\n    return sum(rules) / len(rules)\n",
        "inputs": [], "outputs": ["average fee"]}) + "\n", encoding="utf-8")
    r = SGKRRetriever.from_defaults(examples=examples)
    assert [h.node.metadata["name"] for h in r.retrieve("the average fee?")] == ["average_fee"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "exactly one of graph, graph_path, store or sources; got none"),
    ({"graph_path": "g.json", "sources": ["src"]}, "got graph_path and sources"),
    ({"graph": "G", "graph_path": "g.json"}, "got graph and graph_path"),
    ({"graph_path": "g.json", "knowledge": "k.json"},
     "knowledge: only with sources, not with graph_path"),
    ({"graph_path": "g.json", "examples": "e.jsonl", "merge": "name"},
     "examples, merge: only with sources, not with graph_path"),
    ({"graph": "graph.json"}, "graph must be a KnowledgeGraph, got str"),
    ({"graph": "G", "k": 3, "similarity_top_k": 3}, "k or similarity_top_k, not both"),
    ({"graph": "G", "top_k": 3}, r"unknown argument\(s\): \['top_k'\]: expected"),
    ({"sources": ["src"], "infer": True}, r"unknown argument\(s\): \['infer'\]"),
    ({"graph": "G", "max_dept": 3}, r"\['max_dept'\] \(did you mean 'max_depth'\?\)"),
    ({"graph": "G", "graph_pth": "g.json"}, r"\(did you mean 'graph_path'\?\)"),
    ({"graph": "G", "jobs": 1}, "jobs: only with sources, not with graph"),
    ({"graph_path": "g.json", "build_options": "B"},
     "build_options: only with sources, not with graph_path"),
    ({"graph": "G", "k": 0}, "k must be an integer of at least 1"),
    ({"graph": "G", "partial": "all"}, "partial must be one of"),
])
def test_bad_combinations_name_the_problem(payments_graph, kwargs, message) -> None:  # type: ignore[no-untyped-def]
    if kwargs.get("graph") == "G":
        kwargs = {**kwargs, "graph": payments_graph}
    if kwargs.get("build_options") == "B":
        from sgkr import BuildOptions

        kwargs = {**kwargs, "build_options": BuildOptions()}
    with pytest.raises(ValueError, match=message):
        SGKRRetriever.from_defaults(**kwargs)


def test_every_build_option_is_accepted(every_build_option) -> None:  # type: ignore[no-untyped-def]
    from sgkr import BuildOptions, build_graph

    src, options = every_build_option
    built = SGKRRetriever.from_defaults(sources=[src], **options).graph
    assert built.to_dict() == build_graph([src], BuildOptions(**options)).to_dict()
    assert sorted(f.id for f in built.functions()) == ["fn:a.f", "fn:b.f"]
    assert any(options["cache"].iterdir())
    given = SGKRRetriever.from_defaults(sources=[src], build_options=BuildOptions(**options),
                                        merge="auto")  # a keyword overrides build_options
    assert len(list(given.graph.functions())) == 1


def test_constructor_wants_an_sgkr_retriever(payments_graph) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidArgumentError, match="sgkr.Retriever, got KnowledgeGraph"):
        SGKRRetriever(payments_graph)
    r = SGKRRetriever(Retriever(payments_graph, k=2))
    assert r.similarity_top_k == 2


# -- persistence -------------------------------------------------------------------------


def test_persist_round_trip(payments_graph, case_question, tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = SGKRRetriever.from_defaults(payments_graph, k=5, callees=1, partial="nearest",
                                    max_paths=40)
    r.persist(tmp_path / "store")
    files = sorted(p.name for p in (tmp_path / "store").iterdir())
    assert files == sorted([GRAPH_FILENAME, "graph.lexical.npz", "graph.tasks.npz",
                            OPTIONS_FILENAME])
    for name in (GRAPH_FILENAME, OPTIONS_FILENAME):  # JSON, nothing pickled
        json.loads((tmp_path / "store" / name).read_text(encoding="utf-8"))
    np.load(tmp_path / "store" / "graph.lexical.npz", allow_pickle=False)  # arrays, no objects
    back = SGKRRetriever.from_persist_dir(tmp_path / "store")
    assert back.options == r.options
    assert back.graph.to_dict() == payments_graph.to_dict()
    before, after = r.retrieve(case_question), back.retrieve(case_question)
    assert [(h.node.node_id, h.score, h.node.text, h.node.metadata) for h in after] == [
        (h.node.node_id, h.score, h.node.text, h.node.metadata) for h in before]
    assert SGKRRetriever.from_persist_dir(str(tmp_path / "store"), k=2).options.k == 2
    top = SGKRRetriever.from_persist_dir(tmp_path / "store", similarity_top_k=3)
    assert top.similarity_top_k == 3 and len(top.retrieve(case_question)) == 3
    with pytest.raises(InvalidArgumentError, match="k or similarity_top_k, not both"):
        SGKRRetriever.from_persist_dir(tmp_path / "store", k=2, similarity_top_k=3)


def test_persist_into_an_existing_folder_overwrites(payments_graph, tmp_path) -> None:  # type: ignore[no-untyped-def]
    SGKRRetriever.from_defaults(payments_graph, k=5).persist(tmp_path)
    SGKRRetriever.from_defaults(payments_graph, k=7).persist(tmp_path)
    assert SGKRRetriever.from_persist_dir(tmp_path).options.k == 7


@pytest.mark.parametrize(("options_text", "message"), [
    (None, "sgkr_retriever.json: cannot read"),
    ("{not json", "not a valid JSON options file"),
    ('{"schema_version": 2, "options": {}}', "unsupported schema_version 2"),
    ('{"schema_version": 1}', "an 'options' object"),
    ('{"schema_version": 1, "options": {"top_k": 3}}', "unknown retriever option"),
    ('{"schema_version": 1, "options": {"k": -1}}', "k must be an integer"),
])
def test_bad_persist_dir_names_the_file(payments_graph, tmp_path, options_text,  # type: ignore[no-untyped-def]
                                        message) -> None:
    SGKRRetriever.from_defaults(payments_graph).persist(tmp_path)
    options = tmp_path / OPTIONS_FILENAME
    if options_text is None:
        options.unlink()
    else:
        options.write_text(options_text, encoding="utf-8")
    with pytest.raises(GraphFormatError, match=message) as info:
        SGKRRetriever.from_persist_dir(tmp_path)
    assert str(options) in str(info.value)


def test_missing_or_broken_graph_is_refused(payments_graph, tmp_path) -> None:  # type: ignore[no-untyped-def]
    SGKRRetriever.from_defaults(payments_graph).persist(tmp_path)
    graph = tmp_path / GRAPH_FILENAME
    graph.write_text(graph.read_text(encoding="utf-8")[:200], encoding="utf-8")
    with pytest.raises(GraphFormatError, match="graph.json"):
        SGKRRetriever.from_persist_dir(tmp_path)
    graph.unlink()
    with pytest.raises(GraphFormatError, match="graph.json"):
        SGKRRetriever.from_persist_dir(tmp_path)


def test_persist_wants_a_path(retriever) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidArgumentError, match="persist_dir"):
        retriever.persist(None)


# -- async, callbacks and instrumentation --------------------------------------------------


async def test_async_matches_sync(retriever, case_question, no_tag_question) -> None:  # type: ignore[no-untyped-def]
    sync = retriever.retrieve(case_question)
    first, second, empty = await asyncio.gather(
        retriever.aretrieve(case_question), retriever.aretrieve(QueryBundle(case_question)),
        retriever.aretrieve(no_tag_question))
    expected = [(h.node.node_id, h.score) for h in sync]
    assert [(h.node.node_id, h.score) for h in first] == expected
    assert [(h.node.node_id, h.score) for h in second] == expected
    assert [h.node.node_id for h in empty] == [
        h.node.node_id for h in retriever.retrieve(no_tag_question)]


def test_callback_events_fire(payments_graph, case_question) -> None:  # type: ignore[no-untyped-def]
    debug = LlamaDebugHandler()
    r = SGKRRetriever.from_defaults(payments_graph, k=4,
                                    callback_manager=CallbackManager([debug]))
    hits = r.retrieve(case_question)
    pairs = debug.get_event_pairs(CBEventType.RETRIEVE)
    assert len(pairs) == 1
    start, end = pairs[0]
    assert start.payload[EventPayload.QUERY_STR] == case_question
    assert ids(end.payload[EventPayload.NODES]) == ids(hits)


class _Recorder(BaseEventHandler):
    events: list[BaseEvent] = []

    @classmethod
    def class_name(cls) -> str:
        return "Recorder"

    def handle(self, event: BaseEvent, **kwargs: object) -> None:
        self.events.append(event)


@pytest.mark.parametrize("use_async", [False, True])
def test_instrumentation_events_fire(retriever, case_question, use_async: bool) -> None:  # type: ignore[no-untyped-def]
    recorder = _Recorder(events=[])
    root = get_dispatcher()
    root.add_event_handler(recorder)
    try:
        if use_async:
            hits = asyncio.run(retriever.aretrieve(case_question))
        else:
            hits = retriever.retrieve(case_question)
    finally:
        root.event_handlers.remove(recorder)
    kinds = [type(e) for e in recorder.events]
    assert RetrievalStartEvent in kinds and RetrievalEndEvent in kinds
    end = next(e for e in recorder.events if isinstance(e, RetrievalEndEvent))
    assert ids(end.nodes) == ids(hits)


def test_verbose_prints_the_tags(payments_graph, case_question, capsys) -> None:  # type: ignore[no-untyped-def]
    SGKRRetriever.from_defaults(payments_graph, k=2, verbose=True).retrieve(case_question)
    out = capsys.readouterr().out
    assert "SGKR: inputs [" in out and "2 functions (paths)" in out


def test_core_exports_a_questions_retrieval(payments_graph, case_question) -> None:  # type: ignore[no-untyped-def]
    retriever = SGKRRetriever.from_defaults(payments_graph, k=3)
    hits = retriever.retrieve(case_question)
    core = retriever.sgkr_retriever
    drawn = [line for line in render(core.graph, core.retrieve(case_question), "dot").splitlines()
             if 'role="retrieved"' in line and "->" not in line]
    assert sorted(line.split('"')[1] for line in drawn) == sorted(h.node.node_id for h in hits)
    assert not hasattr(retriever, "_last")  # stateless: nothing kept from a call


def test_metadata_filters_spend_the_budget_on_what_passes(payments_graph, case_question,  # type: ignore[no-untyped-def]
                                                          tmp_path) -> None:
    from llama_index.core.vector_stores import (
        FilterCondition,
        MetadataFilter,
        MetadataFilters,
    )

    filters = MetadataFilters(filters=[
        MetadataFilter(key="file", value="solutions/task_1273.py"),
        MetadataFilter(key="kind", value="module", operator="!=")])
    r = SGKRRetriever.from_defaults(payments_graph, similarity_top_k=3, filters=filters)
    expected = Retriever(payments_graph, k=3, filter={
        "file": "solutions/task_1273.py", "kind": {"$ne": "module"}}).retrieve(case_question)
    hits = r.retrieve(case_question)
    assert ids(hits) == [d.id for d in expected.documents] and len(hits) == 3
    assert all(h.node.metadata["file"] == "solutions/task_1273.py" for h in hits)
    r.persist(tmp_path)  # the filter is an option: persisted with the others
    assert ids(SGKRRetriever.from_persist_dir(tmp_path).retrieve(case_question)) == ids(hits)
    tagged = SGKRRetriever.from_persist_dir(tmp_path, filters=MetadataFilters(
        filters=[MetadataFilter(key="matched_tags", value="mcc", operator="contains")]))
    assert all("mcc" in h.node.metadata["matched_tags"] for h in tagged.retrieve(case_question))
    nothing_on_paths = MetadataFilters(filters=[
        MetadataFilter(key="name", value=["get_mcc_code", "average_fee"], operator="in")],
        condition=FilterCondition.NOT)
    names = [h.node.metadata["name"] for h in SGKRRetriever.from_defaults(
        payments_graph, filters=nothing_on_paths).retrieve(case_question)]
    assert names and not {"get_mcc_code", "average_fee"} & set(names)


@pytest.mark.parametrize(("filters", "message"), [
    ({"key": "score", "value": 0.5}, "unknown field 'score'"),
    ({"key": "name", "value": "f", "operator": "is_empty"},
     "operator 'is_empty' .on 'name'. is not one"),
    ({"key": "start_line", "value": "3", "operator": ">"}, r"\$gt takes a number, got '3'"),
    ({"key": "name", "value": 3}, r"\$eq takes a string, got 3"),
])
def test_bad_metadata_filters_name_the_problem(payments_graph, filters, message) -> None:  # type: ignore[no-untyped-def]
    from llama_index.core.vector_stores import MetadataFilter, MetadataFilters

    with pytest.raises(InvalidArgumentError, match=message):
        SGKRRetriever.from_defaults(payments_graph, filters=MetadataFilters(
            filters=[MetadataFilter(**filters)]))
    with pytest.raises(InvalidArgumentError, match="filter or filters, not both"):
        SGKRRetriever.from_defaults(payments_graph, filter={"kind": "function"},
                                    filters=MetadataFilters(filters=[MetadataFilter(
                                        key="kind", value="function")]))
    with pytest.raises(InvalidArgumentError, match="nested MetadataFilters holds no filter"):
        SGKRRetriever.from_defaults(payments_graph, filters=MetadataFilters(
            filters=[MetadataFilters(filters=[])]))
    unfiltered = SGKRRetriever.from_defaults(payments_graph, filters=MetadataFilters(filters=[]))
    assert unfiltered.options.filter is None  # no filter, as for a vector store


def test_plain_code_with_no_knowledge_answers_through_the_adapter(tmp_path: Path) -> None:
    from sgkr import BuildOptions

    plain = Path(__file__).parent.parent / "fixtures" / "plain"
    retriever = SGKRRetriever.from_defaults(sources=[plain], build_options=BuildOptions(jobs=1))
    hits = retriever.retrieve("What is the average temperature at a station?")
    assert hits[0].node.metadata["name"] == "average_temperature"
    retriever.persist(str(tmp_path))
    again = SGKRRetriever.from_persist_dir(str(tmp_path))
    assert again.graph.meta["curated_tags"] is False
    assert again.graph.to_dict() == retriever.graph.to_dict()


def test_from_defaults_with_solved_tasks_alone(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from llama_index_sgkr import SGKRRetriever

    folder = tmp_path / "solutions"
    folder.mkdir()
    (folder / "task_1.py").write_text("def fee(amount):\n    return amount * 0.1\n"
                                      "print(fee(10))\n")
    (tmp_path / "tasks.jsonl").write_text(json.dumps({"id": 1, "question": "The fee of 10?"}))
    r = SGKRRetriever.from_defaults(solutions=folder, tasks=tmp_path / "tasks.jsonl", k=2)
    (node,) = r.retrieve("What is the fee of an amount?")
    assert node.node.metadata["name"] == "fee"
    assert node.node.metadata["used_by"] == [{"task": "task:1", "question": "The fee of 10?"}]
