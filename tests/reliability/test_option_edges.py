"""Options and filters are checked where they come in, with an error naming them (issue 33).

L1: ``brevity=100`` passed every check and then overflowed in the middle of a
retrieval. L2: a filter nested thousands deep raised RecursionError (given to
the API, to LangChain's ``invoke``, and read from a persisted LlamaIndex
retriever). The class: any value of any option, and any filter, is either
refused by an :class:`~sgkr.errors.InvalidArgumentError` naming it, or
retrieves without an error.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgkr import Retriever, build_graph
from sgkr.build.options import BuildOptions
from sgkr.cli import main
from sgkr.errors import GraphFormatError, InvalidArgumentError
from sgkr.graph import KnowledgeGraph
from sgkr.retrieval.filters import FILTER_FIELDS, MAX_FILTER_DEPTH, compile_filter
from sgkr.retrieval.options import OPTIONS, RetrieverOptions

CODE = ("def fee(amount):\n    '''The fee of an amount.'''\n    return amount * rate()\n"
        "def rate():\n" + "    x = 1\n" * 3000 + "    return 0.1\n")  # a long function


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return build_graph([("fees.py", CODE)], infer_tags=True)


def _deep(levels: int) -> dict[str, Any]:
    spec: dict[str, Any] = {"kind": "function"}
    for _ in range(levels):
        spec = {"$not": spec}
    return spec


# -- L1 and L2, as the review tried them ------------------------------------------------------


@pytest.mark.parametrize("options", [{"brevity": 100}, {"brevity": 1e308},
                                     {"centrality": 1e308}, {"callees": 10**5000}])
def test_l1_a_number_past_its_bound_is_refused_naming_the_option(
        graph: KnowledgeGraph, options: dict[str, Any]) -> None:
    (name,) = options
    with pytest.raises(InvalidArgumentError, match=f"^{name} must be") as info:
        Retriever(graph, **options).retrieve("fee of an amount")
    assert len(str(info.value)) < 200  # a 5,000-digit number is not printed


def test_l1_the_largest_brevity_retrieves(graph: KnowledgeGraph) -> None:
    most = OPTIONS["brevity"].maximum
    assert Retriever(graph, brevity=most, centrality=OPTIONS["centrality"].maximum).retrieve(
        "fee of an amount").documents


@pytest.mark.parametrize("levels", [MAX_FILTER_DEPTH, 5000, 100_000])
def test_l2_a_deep_filter_is_refused_naming_it(graph: KnowledgeGraph, levels: int) -> None:
    with pytest.raises(InvalidArgumentError, match="filter: nested more than 32 levels"):
        Retriever(graph, filter=_deep(levels)).retrieve("fee")
    assert compile_filter(_deep(MAX_FILTER_DEPTH - 1))


def test_l2_a_deep_filter_in_invoke_and_in_a_persist_dir(graph: KnowledgeGraph,
                                                         tmp_path: Path) -> None:
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    from langchain_sgkr import SGKRRetriever as LangChainRetriever
    from llama_index_sgkr import SGKRRetriever as LlamaIndexRetriever

    with pytest.raises(InvalidArgumentError, match="filter: nested"):
        LangChainRetriever(graph=graph).invoke("fee", filter=_deep(5000))
    LlamaIndexRetriever.from_defaults(graph).persist(tmp_path)
    stored = tmp_path / "sgkr_retriever.json"
    text = stored.read_text().replace(
        '"filter": null', '"filter": ' + '{"$not": ' * 900 + '{"kind": "function"}' + "}" * 900)
    stored.write_text(text)
    with pytest.raises(GraphFormatError, match="sgkr_retriever.json: filter: nested"):
        LlamaIndexRetriever.from_persist_dir(tmp_path)


def test_l1_the_cli_refuses_in_one_line(graph: KnowledgeGraph, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.json"
    graph.save(path)
    for argv in (["--brevity", "100"], ["--filter", json.dumps(_deep(400))],
                 ["--centrality", "1e999"], ["--k", "9" * 5000]):
        with pytest.raises(SystemExit) as info:
            main(["query", str(path), "fee", *argv])
        assert info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("sgkr: error: argument --") and len(err[-1]) < 300


# -- generated: any value of any option ---------------------------------------------------------

_NUMBERS = st.one_of(
    st.integers(), st.integers(min_value=10**300, max_value=10**4000),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([-1, 0, 1, 64, 65, 1000]))
_VALUES = st.one_of(
    _NUMBERS, st.booleans(), st.none(), st.text(max_size=20), st.sampled_from(
        ["connect", "none", "ppr", "seeds", "paths", "nearest", "x" * 100_000]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(),
                                                          max_size=3))


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(OPTIONS)), value=_VALUES)
def test_any_value_of_any_option_is_refused_by_name_or_retrieves(
        graph: KnowledgeGraph, name: str, value: Any) -> None:
    try:
        retriever = Retriever(graph, **{name: value})
    except InvalidArgumentError as exc:
        assert str(exc).startswith((f"{name} must", f"{name}:", "filter:")), str(exc)
        assert len(str(exc)) < 500
        return
    result = retriever.retrieve("What is the fee of an amount?")
    assert all(0 < d.score <= 1 and math.isfinite(d.score) for d in result.documents)


def _filters(depth: int) -> st.SearchStrategy[Any]:
    field = st.sampled_from([*FILTER_FIELDS, "path", "$and", "$or", "$not", "$in"])
    leaf = st.one_of(st.text(max_size=5), st.integers(-5, 10**6), st.floats(allow_nan=True),
                     st.none(), st.lists(st.text(max_size=3), max_size=3),
                     st.dictionaries(st.sampled_from(["$eq", "$in", "$gt", "$text_match", "$x"]),
                                     st.one_of(st.text(max_size=3), st.integers(0, 9),
                                               st.lists(st.text(max_size=3), max_size=2)),
                                     max_size=2))
    return st.recursive(leaf, lambda inner: st.one_of(
        st.dictionaries(field, inner, min_size=1, max_size=3), st.lists(inner, max_size=3)),
        max_leaves=depth)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=_filters(40), wrap=st.integers(0, 60))
def test_any_filter_is_refused_by_name_or_retrieves(graph: KnowledgeGraph, spec: Any,
                                                    wrap: int) -> None:
    for _ in range(wrap):
        spec = {"$and": [spec]} if wrap % 2 else {"$not": spec}
    try:
        retriever = Retriever(graph, filter=spec)
    except InvalidArgumentError as exc:
        assert str(exc).startswith("filter") and len(str(exc)) < 1000, str(exc)
        return
    retriever.retrieve("fee of an amount")


_BUILD_VALUES = st.one_of(_VALUES, st.sampled_from(["auto", "name", "qualname", "none", "tests",
                                                    ["a", 1]]))


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(["merge", "infer_tags", "max_file_bytes", "exclude", "jobs",
                             "gitignore", "root", "knowledge", "examples", "cache"]),
       value=_BUILD_VALUES)
def test_any_value_of_any_build_option_is_refused_by_name(name: str, value: Any) -> None:
    try:
        BuildOptions(**{name: value})
    except InvalidArgumentError as exc:
        assert name in str(exc).split(" ")[0] + str(exc)[:40], str(exc)
        assert len(str(exc)) < 500


def test_every_option_has_bounds_the_mcp_schema_can_declare() -> None:
    numbers = [o for o in OPTIONS.values() if o.kind in ("integer", "number")]
    unbounded = sorted(o.name for o in numbers if o.maximum is None)
    assert unbounded == ["k", "scripts"]  # how many functions: any count is safe
    assert RetrieverOptions(k=10**6, scripts=10**6).k == 10**6
