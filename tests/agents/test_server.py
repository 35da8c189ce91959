"""``sgkr mcp``: a real server process, driven by the mcp SDK's own stdio client."""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from sgkr import KnowledgeGraph, Retriever
from sgkr.agents.answer import explain_path, resolve_node
from sgkr.errors import NodeNotFoundError
from sgkr.retrieval.retriever import RetrieverOptions

from ..conftest import PAYMENTS, ROOT

mcp = pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


def _heldout(task: str) -> dict[str, object]:
    for line in (PAYMENTS / "heldout.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip() else {}
        if entry.get("id") == task:
            return dict(entry)
    raise AssertionError(f"task {task} is missing from heldout.jsonl")


@pytest.fixture(scope="module")
def graph_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sgkr import build_graph

    path = tmp_path_factory.mktemp("mcp") / "graph.json"
    build_graph([PAYMENTS / "solutions"], knowledge=PAYMENTS / "knowledge.json",
                examples=PAYMENTS / "examples.jsonl", root=PAYMENTS).save(path)
    return path


def _server(graph_path: Path, *options: str) -> StdioServerParameters:
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                          if p)}
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "sgkr", "mcp", str(graph_path), *options], env=env)


def _text(result: Any) -> str:
    content = result.content
    return "\n".join(getattr(part, "text", "") for part in content)


async def test_the_case_study_through_a_stdio_client_session(graph_path: Path) -> None:
    case = _heldout("1434")
    async with stdio_client(_server(graph_path, "--k", "6")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == {"retrieve_knowledge", "explain_dependency"}
            # Every retriever option, so that an option added to the retriever reaches agents.
            assert set(tools["retrieve_knowledge"].input_schema["properties"]) == {
                "question", *(f.name for f in fields(RetrieverOptions))}

            answer = await session.call_tool("retrieve_knowledge", {"question": case["question"]})
            assert not answer.is_error
            text = _text(answer)
            names = re.findall(r"^## \d+\. (\w+)", text, flags=re.M)
            # The server's --k, and what the retriever answers in this process.
            expected = Retriever(KnowledgeGraph.load(graph_path), k=6).retrieve(
                str(case["question"]))
            assert names == [d.name for d in expected.documents] and len(names) == 6
            assert len(set(names) & set(case["gold"])) >= 2  # type: ignore[call-overload]
            assert "def calculate_fee(" in text and "Matched tags:" in text
            fewer = await session.call_tool("retrieve_knowledge",
                                            {"question": case["question"], "k": 2})
            assert len(re.findall(r"^## \d+\. ", _text(fewer), flags=re.M)) == 2
            scripts_only = await session.call_tool(
                "retrieve_knowledge", {"question": case["question"],
                                       "filter": {"kind": {"$ne": "module"}}})
            assert "task_" not in " ".join(
                re.findall(r"^## \d+\. (\w+)", _text(scripts_only), flags=re.M))

            path = await session.call_tool("explain_dependency",
                                           {"source": "filter_fee_rules",
                                            "target": "matches_field"})
            assert not path.is_error
            assert "filter_fee_rules -calls-> fee_rule_matches -calls-> matches_field" in \
                _text(path)

            resources = (await session.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["sgkr://graph/stats"]
            stats = await session.read_resource("sgkr://graph/stats")
            data = json.loads(stats.contents[0].text)
            graph = KnowledgeGraph.load(graph_path)
            assert data["functions"] == graph.stats()["functions"]
            assert data["most_called"][0]["id"] == "fn:load_fees"


async def test_bad_calls_are_tool_errors_and_the_server_goes_on(graph_path: Path) -> None:
    async with stdio_client(_server(graph_path)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            empty = await session.call_tool("retrieve_knowledge", {"question": "  "})
            assert empty.is_error and "empty" in _text(empty)
            unknown = await session.call_tool("explain_dependency",
                                              {"source": "no_such_function", "target": "fee"})
            assert unknown.is_error and "no_such_function" in _text(unknown)
            bad_k = await session.call_tool("retrieve_knowledge", {"question": "fees", "k": 0})
            assert bad_k.is_error
            fine = await session.call_tool("retrieve_knowledge",
                                           {"question": "What is the fee of a transaction?"})
            assert not fine.is_error


def test_explain_path_walks_either_way_and_names_tags(payments_graph: KnowledgeGraph) -> None:
    callee_first = explain_path(payments_graph, "matches_field", "filter_fee_rules")
    assert callee_first.startswith("filter_fee_rules depends on matches_field")
    tag = next(t for t in payments_graph.tags() if payments_graph.consumers(t.id))
    consumer = payments_graph.function(payments_graph.consumers(tag.id)[0]).name
    text = explain_path(payments_graph, tag.label, consumer)
    assert f"tag {tag.label!r} -input of-> {consumer}" in text
    with pytest.raises(NodeNotFoundError, match="nowhere"):
        resolve_node(payments_graph, "nowhere")
    aliased = next(t for t in payments_graph.tags() if t.aliases)
    assert resolve_node(payments_graph, aliased.aliases[0].upper()) == [aliased.id]
    assert resolve_node(payments_graph, aliased.label.title()) == [aliased.id]


def test_a_missing_graph_file_fails_before_serving(tmp_path: Path) -> None:
    from sgkr.cli import main

    assert main(["mcp", str(tmp_path / "missing.json")]) == 5
