"""SGKRRetriever: the same results as sgkr.Retriever, as Documents; strict arguments."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from pydantic import ValidationError

from langchain_sgkr import SGKRRetriever
from sgkr import (
    BuildOptions,
    GraphFormatError,
    InvalidArgumentError,
    Retriever,
    RetrieverOptions,
    build_graph,
)
from sgkr.export import render
from sgkr.retrieval.options import OPTIONS
from sgkr.text import without_docstring

ROOT = Path(__file__).resolve().parents[2]
PAYMENTS = ROOT / "examples" / "payments"
CASE_STUDY = "What is the most expensive MCC for a transaction of 5 euros, in general?"
NO_TAG = "How do I read a json file?"
METADATA_KEYS = {"name", "qualnames", "file", "start_line", "end_line", "matched_tags", "path",
                 "score"}


@pytest.fixture
def retriever(payments_graph: Any) -> SGKRRetriever:
    return SGKRRetriever(graph=payments_graph)


def test_documents_are_the_core_results_converted(payments_graph: Any) -> None:
    docs = SGKRRetriever(graph=payments_graph, k=6).invoke(CASE_STUDY)
    expected = Retriever(payments_graph, k=6).retrieve(CASE_STUDY).documents
    assert len(docs) == len(expected) == 6
    for doc, record in zip(docs, expected, strict=True):
        assert isinstance(doc, Document)
        assert doc.id == record.id
        assert doc.page_content == f"{record.knowledge}\n\n{record.code}"
        assert METADATA_KEYS <= set(doc.metadata)
        assert doc.metadata["name"] == record.name
        assert doc.metadata["qualnames"] == list(record.qualnames)
        assert doc.metadata["score"] == record.score
        assert doc.metadata["file"] == record.sources[0].file
        assert doc.metadata["start_line"] == record.sources[0].start_line
        assert doc.metadata["end_line"] == record.sources[0].end_line
        assert doc.metadata["matched_tags"] == list(record.matched_tags)
        assert doc.metadata["path"] == (list(record.paths[0]) if record.paths else [])
        json.dumps(doc.metadata)  # plain data, storable in any vector store


def test_page_content_is_knowledge_then_code(retriever: SGKRRetriever, payments_graph: Any) -> None:
    doc = retriever.invoke(CASE_STUDY)[0]
    node = payments_graph.function(doc.id)
    assert node.knowledge and doc.page_content.startswith(node.knowledge)
    assert doc.page_content == node.text


def test_k_defaults_to_the_cores_and_is_honoured_per_call(retriever: SGKRRetriever) -> None:
    assert retriever.k == RetrieverOptions().k == Retriever(retriever.graph).k == 8
    assert len(retriever.invoke(CASE_STUDY)) == 8
    two = retriever.invoke(CASE_STUDY, k=2)
    assert [d.id for d in two] == [d.id for d in retriever.invoke(CASE_STUDY)][:2]
    assert len(retriever.invoke(CASE_STUDY, k=6)) == 6
    assert retriever.k == 8  # a per-call k changes nothing for the next call


def test_options_are_passed_to_the_core(payments_graph: Any) -> None:
    options = {"max_depth": 4, "reverse_calls": False, "callees": 0, "partial": "nearest",
               "scripts": 0}
    docs = SGKRRetriever(graph=payments_graph, k=8, **options).invoke(CASE_STUDY)
    expected = Retriever(payments_graph, k=8, **options).retrieve(CASE_STUDY).documents
    assert [(d.id, d.metadata["score"]) for d in docs] == [(r.id, r.score) for r in expected]
    assert [d.id for d in docs] != [
        d.id for d in SGKRRetriever(graph=payments_graph, k=8).invoke(CASE_STUDY)]


def test_options_can_be_given_per_call(retriever: SGKRRetriever, payments_graph: Any) -> None:
    docs = retriever.invoke(CASE_STUDY, k=8, callees=0, reverse_calls=False)
    expected = Retriever(payments_graph, callees=0, reverse_calls=False).retrieve(CASE_STUDY, 8)
    assert [d.id for d in docs] == [r.id for r in expected.documents]


def test_without_knowledge_a_document_is_code_only(payments_graph: Any) -> None:
    for doc in SGKRRetriever(graph=payments_graph, include_knowledge=False).invoke(CASE_STUDY):
        node = payments_graph.function(doc.id)
        assert doc.page_content == without_docstring(node.code, node.knowledge)


def test_every_core_option_is_a_field() -> None:
    fields = SGKRRetriever.model_fields
    for option in dataclasses.fields(RetrieverOptions):
        assert option.name in fields, f"SGKRRetriever lacks the core option {option.name}"
        assert fields[option.name].default == option.default
        # made from the option's one declaration: its description and bounds too
        assert fields[option.name].description == OPTIONS[option.name].help


def test_a_question_without_tags(retriever: SGKRRetriever) -> None:
    # answered by the functions named like it, and what the walk from them reaches ...
    docs = retriever.invoke(NO_TAG)
    assert len(docs) == retriever.k and all(d.metadata["matched_tags"] == [] for d in docs)
    # ... and by nothing in the paper's mode
    assert SGKRRetriever(graph=retriever.graph, fill="none", lexical=False).invoke(NO_TAG) == []


@pytest.mark.parametrize(("bad", "meant"), [
    ({"kk": 3}, "'k'"), ({"max_dept": 3}, "'max_depth'"), ({"seed_retreiver": None},
                                                             "'seed_retriever'"),
    ({"top_k": 3}, None),  # another framework's name: no near field, the list of them
])
def test_a_misspelt_field_names_the_field_meant(payments_graph: Any, bad: dict[str, Any],
                                               meant: str | None) -> None:
    # docs/options.md: a misspelt name is an error that suggests the option meant.
    with pytest.raises(ValidationError) as info:
        SGKRRetriever(graph=payments_graph, **bad)
    message = str(info.value)
    assert f"unknown field(s): {list(bad)}" in message and "Extra inputs" not in message
    assert (f"did you mean {meant}?" in message) if meant else "did you mean" not in message
    assert "fields: " in message and "max_depth" in message


@pytest.mark.parametrize("bad", [
    {"k": 0}, {"k": "3"}, {"k": True}, {"k": 2.5},
    {"max_depth": 0}, {"callees": -1}, {"scripts": -1}, {"specificity": 1.5},
    {"centrality": -1.0}, {"inferred": "all"},
    {"partial": "all"}, {"reverse_calls": "yes"}, {"include_knowledge": 1},
    {"tag_extractor": "mcc"}, {"fallback": 3},
])
def test_a_bad_field_is_an_error_naming_it(payments_graph: Any, bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as info:
        SGKRRetriever(graph=payments_graph, **bad)
    # the field first (a union's member may follow it: ("tag_extractor", "callable"))
    assert info.value.errors()[0]["loc"][0] == next(iter(bad))


def test_graph_is_required_and_must_be_a_graph() -> None:
    with pytest.raises(ValidationError, match="graph"):
        SGKRRetriever()  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="KnowledgeGraph"):
        SGKRRetriever(graph={"nodes": []})


@pytest.mark.parametrize("kwargs, match", [
    ({"kk": 2}, r"\['kk'\]"),
    ({"k": 0}, "k must be an integer of at least 1, got 0"),
    ({"max_depth": 0}, "max_depth"),
    ({"partial": "all"}, "partial"),
])
def test_a_bad_call_argument_is_an_error(retriever: SGKRRetriever, kwargs: dict[str, Any],
                                        match: str) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        retriever.invoke(CASE_STUDY, **kwargs)


@pytest.mark.parametrize("question", ["", "  ", "\n"])
async def test_an_empty_question_retrieves_nothing(retriever: SGKRRetriever,
                                                   question: str) -> None:
    assert retriever.invoke(question) == []
    assert await retriever.ainvoke(question) == []
    first, empty = retriever.batch([CASE_STUDY, question])  # the batch does not fail
    assert len(first) == 8 and empty == []


def test_langchain_call_arguments_are_accepted(retriever: SGKRRetriever) -> None:
    assert len(retriever.invoke(CASE_STUDY, verbose=False, k=1)) == 1


def test_assigning_a_field_reconfigures_the_retriever(retriever: SGKRRetriever) -> None:
    retriever.k = 2
    assert len(retriever.invoke(CASE_STUDY)) == 2
    with pytest.raises(ValidationError):
        retriever.k = 0
    assert retriever.k == 2 and retriever.core.k == 2
    retriever.include_knowledge = False
    doc = retriever.invoke(CASE_STUDY)[0]
    node = retriever.graph.function(doc.id)
    assert doc.page_content == without_docstring(node.code, node.knowledge)


async def test_ainvoke_matches_invoke(retriever: SGKRRetriever) -> None:
    sync = retriever.invoke(CASE_STUDY, k=5)
    assert await retriever.ainvoke(CASE_STUDY, k=5) == sync
    assert len(sync) == 5
    with pytest.raises(InvalidArgumentError):
        await retriever.ainvoke(CASE_STUDY, kk=5)


def test_batch(retriever: SGKRRetriever) -> None:
    first, second = retriever.batch([CASE_STUDY, NO_TAG])
    assert [d.id for d in first] == [d.id for d in retriever.invoke(CASE_STUDY)]
    assert [d.id for d in second] == [d.id for d in retriever.invoke(NO_TAG)]


def test_tag_extractor_is_used(payments_graph: Any) -> None:
    asked: list[str] = []

    def extractor(question: str) -> list[str]:
        asked.append(question)
        return ["mcc", "transaction value"]  # labels, as an LLM extractor would answer

    docs = SGKRRetriever(graph=payments_graph, tag_extractor=extractor).invoke(NO_TAG)
    expected = Retriever(payments_graph, tag_extractor=extractor).retrieve(NO_TAG)
    assert asked[0] == NO_TAG
    assert docs and [d.id for d in docs] == [r.id for r in expected.documents]
    # the extractor's tags reach the answer (on this graph of solved tasks the nearest
    # earlier questions' loaders come first: the question asks how to read a json file)
    assert any({"mcc", "transaction value"} & set(d.metadata["matched_tags"]) for d in docs)


def test_fallback_answers_a_question_without_tags(payments_graph: Any) -> None:
    ids = sorted(f.id for f in payments_graph.functions())[:3]
    retriever = SGKRRetriever(graph=payments_graph, fallback=lambda q, k: ids[:k])
    assert [d.id for d in retriever.invoke(NO_TAG, k=2)] == ids[:2]


def test_from_graph_file(payments_graph: Any, tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    payments_graph.save(path)
    retriever = SGKRRetriever.from_graph_file(path, k=3, callees=0)
    assert (retriever.k, retriever.callees) == (3, 0)
    assert [d.id for d in retriever.invoke(CASE_STUDY)] == [
        r.id for r in Retriever(payments_graph, k=3, callees=0).retrieve(CASE_STUDY).documents]
    with pytest.raises(ValidationError, match="kk"):
        SGKRRetriever.from_graph_file(path, kk=3)


def test_from_graph_file_refuses_a_second_graph(payments_graph: Any, tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    payments_graph.save(path)
    with pytest.raises(InvalidArgumentError, match="graph"):
        SGKRRetriever.from_graph_file(path, graph=payments_graph)
    with pytest.raises(InvalidArgumentError, match="path"):
        SGKRRetriever.from_graph_file(None)  # type: ignore[arg-type]


def test_from_graph_file_refuses_a_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    path.write_text('{"schema_version": 999}', encoding="utf-8")
    with pytest.raises(GraphFormatError):
        SGKRRetriever.from_graph_file(path)


def test_from_sources_builds_the_graph(payments_graph: Any) -> None:
    retriever = SGKRRetriever.from_sources(
        [PAYMENTS / "solutions"], knowledge=PAYMENTS / "knowledge.json",
        examples=PAYMENTS / "examples.jsonl", root=PAYMENTS, k=5)
    assert retriever.graph.stats() == payments_graph.stats()
    assert [d.id for d in retriever.invoke(CASE_STUDY)] == [
        d.id for d in SGKRRetriever(graph=payments_graph, k=5).invoke(CASE_STUDY)]


def test_from_sources_passes_build_options() -> None:
    copies = [("a.py", "def f():\n    return 1\n"), ("b.py", "def f():\n    return 1\n")]
    merged = SGKRRetriever.from_sources(copies)
    apart = SGKRRetriever.from_sources(copies, merge="none")
    assert len(list(merged.graph.functions())) == 1
    assert len(list(apart.graph.functions())) == 2
    assert build_graph(copies, merge="none").stats() == apart.graph.stats()


def test_from_sources_accepts_every_build_option(
        every_build_option: tuple[Path, dict[str, Any]]) -> None:
    src, options = every_build_option
    built = SGKRRetriever.from_sources([src], **options, k=2)
    assert built.k == 2
    assert built.graph.to_dict() == build_graph([src], BuildOptions(**options)).to_dict()
    assert sorted(f.id for f in built.graph.functions()) == ["fn:a.f", "fn:b.f"]
    assert any(options["cache"].iterdir())
    given = SGKRRetriever.from_sources([src], BuildOptions(**options), merge="auto")
    assert len(list(given.graph.functions())) == 1  # a keyword overrides build_options


@pytest.mark.parametrize("kwargs, match", [
    ({"graph": None}, "graph"),
    ({"knowlege": "k.json"},
     r"unknown argument\(s\): \['knowlege'\] \(did you mean 'knowledge'\?\): expected"),
    ({"infer": True}, r"\['infer'\]"),
    ({"jobs": 0}, "jobs must be an integer from 1"),
])
def test_from_sources_refuses_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        SGKRRetriever.from_sources([("a.py", "def f():\n    return 1\n")], **kwargs)



def test_core_exports_a_questions_retrieval(payments_graph: Any) -> None:
    retriever = SGKRRetriever(graph=payments_graph, k=3)
    question = "What is the fee ID or IDs that apply to account_type = D and aci = F?"
    core = retriever.core
    drawn = [line for line in render(core.graph, core.retrieve(question), "dot").splitlines()
             if 'role="retrieved"' in line and "->" not in line]
    assert sorted(line.split('"')[1] for line in drawn) == sorted(
        d.id for d in retriever.invoke(question))
    assert not hasattr(retriever, "_last")  # stateless: nothing kept from a call


@pytest.mark.parametrize("clone", [lambda r: pickle.loads(pickle.dumps(r)), copy.deepcopy])
def test_pickles_and_deep_copies(payments_graph: Any, clone: Any) -> None:
    retriever = SGKRRetriever(graph=payments_graph, k=5, callees=1)
    before = retriever.invoke(CASE_STUDY)
    back = clone(retriever)
    assert back.graph is not payments_graph and (back.k, back.callees) == (5, 1)
    assert back.invoke(CASE_STUDY) == before and len(before) == 5
    assert back.invoke(CASE_STUDY, k=2) == before[:2]


def test_model_copy_retrieves_with_its_own_fields(retriever: SGKRRetriever,
                                                  payments_graph: Any) -> None:
    one = retriever.model_copy(update={"k": 1})
    assert [d.id for d in one.invoke(CASE_STUDY)] == [retriever.invoke(CASE_STUDY)[0].id]
    assert one.core.k == 1 and retriever.core.k == 8
    plain = retriever.model_copy(update={"include_knowledge": False}).invoke(CASE_STUDY)[0]
    node = payments_graph.function(plain.id)
    assert plain.page_content == without_docstring(node.code, node.knowledge)
    other = build_graph([("fees.py", "def total(fees):\n    return sum(fees)\n")])
    # the copy answers from its own graph (its only function: no tag, no path) ...
    copy = retriever.model_copy(update={"graph": other})
    assert [d.id for d in copy.invoke("What is the total of the fees?")] == ["fn:fees.total"]
    assert copy.invoke(CASE_STUDY) == []  # ... where nothing matches the case study
    assert len(retriever.invoke(CASE_STUDY)) == 8  # the original is unchanged
    with pytest.raises(InvalidArgumentError, match="k must be"):
        retriever.model_copy(update={"k": 0}).invoke(CASE_STUDY)


def test_model_dump_json_round_trips(payments_graph: Any) -> None:
    retriever = SGKRRetriever(graph=payments_graph, k=3, partial="nearest")
    data = json.loads(retriever.model_dump_json())
    assert data["graph"] == payments_graph.to_dict() and data["k"] == 3
    back = SGKRRetriever.model_validate_json(retriever.model_dump_json())
    assert (back.k, back.partial) == (3, "nearest")
    assert back.invoke(CASE_STUDY) == retriever.invoke(CASE_STUDY)
    assert retriever.model_dump()["graph"] is payments_graph  # python mode keeps the object
    with pytest.raises(ValidationError, match="schema_version"):
        SGKRRetriever.model_validate({"graph": {"nodes": []}})


def test_model_dump_json_names_callables(payments_graph: Any) -> None:
    def extractor(question: str) -> list[str]:
        return ["mcc"]

    data = json.loads(SGKRRetriever(graph=payments_graph, tag_extractor=extractor,
                                    fallback=None).model_dump_json())
    assert data["tag_extractor"].endswith("extractor") and data["fallback"] is None
    with pytest.raises(ValidationError, match="tag_extractor"):  # a name is not a callable
        SGKRRetriever.model_validate(data)


def test_filter_field_and_per_call(payments_graph: Any) -> None:
    spec = {"file": "solutions/task_1273.py"}
    expected = Retriever(payments_graph, k=3, filter=spec).retrieve(CASE_STUDY).documents
    retriever = SGKRRetriever(graph=payments_graph, k=3, filter=spec)
    docs = retriever.invoke(CASE_STUDY)
    assert [d.id for d in docs] == [r.id for r in expected] and len(docs) == 3
    assert all(d.metadata["file"] == "solutions/task_1273.py" for d in docs)
    per_call = SGKRRetriever(graph=payments_graph, k=3).invoke(CASE_STUDY, filter=spec)
    assert per_call == docs
    tagged = retriever.invoke(CASE_STUDY, filter={"matched_tags": {"$in": ["mcc"]}})
    assert tagged and all("mcc" in d.metadata["matched_tags"] for d in tagged)
    with pytest.raises(ValidationError, match="unknown field 'path'"):
        SGKRRetriever(graph=payments_graph, filter={"path": "x"})
    with pytest.raises(InvalidArgumentError, match="unknown operator"):
        retriever.invoke(CASE_STUDY, filter={"kind": {"$like": "a"}})


def test_plain_code_with_no_knowledge_answers_through_the_adapter(tmp_path: Path) -> None:
    from ..conftest import FIXTURES

    retriever = SGKRRetriever.from_sources([FIXTURES / "plain"], jobs=1, k=4)
    assert retriever.graph.meta["curated_tags"] is False
    docs = retriever.invoke("What was the revenue of each month?")
    assert docs[0].metadata["name"] == "monthly_revenue"
    retriever.graph.save(tmp_path / "g.json")
    again = SGKRRetriever.from_graph_file(tmp_path / "g.json", k=4)
    assert [d.metadata["name"] for d in again.invoke("Which customers spent the most?")][:1] \
        == ["top_customers"]


def test_built_in_tag_extractors_by_name_and_one_core(payments_graph: Any) -> None:
    default = SGKRRetriever(graph=payments_graph)
    default.invoke(CASE_STUDY)
    core = default._core
    default.invoke("Which helper reads the csv of category codes?")
    assert default._core is core  # made once, not for every call
    keyword = SGKRRetriever(graph=payments_graph, tag_extractor="keyword", k=8)
    expected = Retriever(payments_graph, tag_extractor="keyword", k=8).retrieve(CASE_STUDY)
    assert [d.id for d in keyword.invoke(CASE_STUDY)] == [d.id for d in expected.documents]
    assert json.loads(keyword.model_dump_json(exclude={"graph"}))["tag_extractor"] == "keyword"


def test_the_filter_takes_ranges_and_text_matches(retriever: SGKRRetriever) -> None:
    late = {"start_line": {"$gt": 10}, "name": {"$text_match_insensitive": "FEE"}}
    docs = retriever.invoke(CASE_STUDY, filter=late, k=3)
    assert docs and all("fee" in d.metadata["name"] and d.metadata["start_line"] > 10
                        for d in docs)
    with pytest.raises(InvalidArgumentError, match=r"\$gt takes a number"):
        retriever.invoke(CASE_STUDY, filter={"start_line": {"$gt": "10"}})


def test_from_sources_with_solved_tasks_alone() -> None:
    from sgkr.tags import Example

    examples = [Example("1", "The fee of 10?", "s/t1.py",
                        "def fee(amount):\n    return amount * 0.1\nprint(fee(10))\n", (), ())]
    r = SGKRRetriever.from_sources([], examples=examples, k=2)
    (doc,) = r.invoke("What is the fee of an amount?")
    assert doc.metadata["name"] == "fee" and doc.metadata["used_by"][0]["task"] == "task:1"
