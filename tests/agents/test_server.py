"""``sgkr mcp``: a real server process, driven by the mcp SDK's own stdio client."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

import anyio
import pytest

import sgkr
from sgkr import KnowledgeGraph, Retriever
from sgkr.agents.answer import MAX_ANSWER_CHARS
from sgkr.agents.server import STATS_URI
from sgkr.algorithms.paths import MAX_DEPTH, MAX_PATHS
from sgkr.retrieval.retriever import RetrieverOptions

from ..conftest import PAYMENTS, ROOT
from ..falkordb_server import Server

REQUESTS = ROOT / "examples" / "requests"

mcp = pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

pytestmark = pytest.mark.server


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


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}


def _server(graph_path: Path | str, *options: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "sgkr", "mcp", str(graph_path), *options],
                                 env=_env())


@pytest.fixture(scope="module")
def requests_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled requests example (no knowledge file: tags inferred from the code)."""
    from sgkr import build_graph

    path = tmp_path_factory.mktemp("mcp") / "requests.json"
    build_graph([REQUESTS / "src"], root=REQUESTS / "src").save(path)
    return path


@asynccontextmanager
async def _session(target: Path | str, *options: str) -> AsyncIterator[ClientSession]:
    async with stdio_client(_server(target, *options)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def _text(result: Any) -> str:
    content = result.content
    return "\n".join(getattr(part, "text", "") for part in content)


async def test_the_case_study_through_a_stdio_client_session(graph_path: Path) -> None:
    case = _heldout("1434")
    async with stdio_client(_server(graph_path, "--k", "6")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == {"retrieve_knowledge", "explain_dependency", "map_graph"}
            # Every retriever option, so that one added reaches agents.
            assert set(tools["retrieve_knowledge"].input_schema["properties"]) == {
                "question", "cursor", *(f.name for f in fields(RetrieverOptions))}

            answer = await session.call_tool("retrieve_knowledge", {"question": case["question"]})
            assert not answer.is_error
            text = _text(answer)
            names = re.findall(r"^## \d+\. (\w+)", text, flags=re.M)
            # The server's --k, and what the retriever answers in this process.
            expected = Retriever(KnowledgeGraph.load(graph_path), k=6).retrieve(
                str(case["question"]))
            assert names == [d.name for d in expected.documents] and len(names) == 6
            assert len(set(names) & set(case["gold"])) >= 2  # type: ignore[call-overload]
            assert "def calculate_fee(" in text and "Tags matched: '" in text
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
            assert "filter_fee_rules -calls[exact]-> fee_rule_matches -calls[exact]-> " \
                "matches_field" in _text(path)

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
            for question in ("  ", "asdfgh qwerty"):  # answered: nothing, and why
                empty = await session.call_tool("retrieve_knowledge", {"question": question})
                assert not empty.is_error and "matches nothing in this graph" in _text(empty)
            unknown = await session.call_tool("explain_dependency",
                                              {"source": "no_such_function", "target": "fee"})
            assert unknown.is_error and "no_such_function" in _text(unknown)
            bad_k = await session.call_tool("retrieve_knowledge", {"question": "fees", "k": 0})
            assert bad_k.is_error
            fine = await session.call_tool("retrieve_knowledge",
                                           {"question": "What is the fee of a transaction?"})
            assert not fine.is_error


async def test_any_k_is_paged_under_the_cap_without_overlap_or_gap(requests_graph: Path) -> None:
    question = "How do I send a POST request with a JSON body?"
    expected = [d.label for d in Retriever(KnowledgeGraph.load(requests_graph)).retrieve(
        question, k=10**9).documents]
    seen: list[str] = []
    async with _session(requests_graph) as session:
        arguments: dict[str, Any] = {"question": question, "k": 10**9}
        pages = 0
        while True:
            page = await session.call_tool("retrieve_knowledge", arguments)
            text = _text(page)
            assert not page.is_error and len(text) <= MAX_ANSWER_CHARS
            seen += re.findall(r"^## \d+\. ([\w.<>]+) \(", text, flags=re.M)
            pages += 1
            cursor = re.search(r'cursor "([^"]+)"', text)
            if cursor is None:
                break
            arguments = {"question": question, "k": 10**9, "cursor": cursor.group(1)}
        assert pages > 2 and seen == expected  # every function once, in the ranking's order
        other = await session.call_tool("retrieve_knowledge", {**arguments, "k": 5})
        assert other.is_error and "cursor" in _text(other)
        forged = await session.call_tool("retrieve_knowledge",
                                         {"question": question, "cursor": "bm90IGEgY3Vyc29y"})
        assert forged.is_error and "without it" in _text(forged)


async def test_unknown_arguments_are_refused_with_the_valid_ones(requests_graph: Path) -> None:
    async with _session(requests_graph) as session:
        wrong = await session.call_tool("retrieve_knowledge", {"question": "fees", "kk": 3})
        assert wrong.is_error
        assert "'kk'" in _text(wrong) and "did you mean 'k'" in _text(wrong)
        assert "valid arguments: question, cursor, k, max_depth" in _text(wrong)
        other = await session.call_tool("explain_dependency",
                                        {"source": "get", "target": "request", "depth": 2})
        assert other.is_error and "source, target, max_depth, max_paths" in _text(other)
        typed = await session.call_tool("retrieve_knowledge", {"question": "x", "k": "many"})
        assert typed.is_error and "k" in _text(typed) and "integer" in _text(typed)


async def test_tools_say_what_they_are_in_compact_schemas(requests_graph: Path) -> None:
    async with stdio_client(_server(requests_graph)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.version == sgkr.__version__
            tools = (await session.list_tools()).tools
    for tool in tools:
        assert tool.title and tool.annotations is not None and tool.annotations.title
        hints = tool.annotations
        assert hints.read_only_hint and hints.idempotent_hint
        assert hints.destructive_hint is False and hints.open_world_hint is False
        assert tool.input_schema["additionalProperties"] is False
        assert all("title" not in p for p in tool.input_schema["properties"].values())
    assert sum(len(json.dumps(t.input_schema, separators=(",", ":"))) for t in tools) <= 3_400
    for tool in tools:  # the bounds the core holds the search to
        if tool.name == "map_graph":  # no search: a budget of tokens
            assert tool.input_schema["properties"]["tokens"]["maximum"] == 12_000
            continue
        properties = tool.input_schema["properties"]
        assert properties["max_depth"]["maximum"] == MAX_DEPTH
        assert properties["max_paths"]["maximum"] == MAX_PATHS


async def test_search_bounds_beyond_the_maxima_are_refused(requests_graph: Path) -> None:
    async with _session(requests_graph) as session:
        for tool, arguments in (("retrieve_knowledge", {"question": "How to send JSON?"}),
                                ("explain_dependency", {"source": "get", "target": "send"})):
            for name, limit in (("max_depth", MAX_DEPTH), ("max_paths", MAX_PATHS)):
                over = await session.call_tool(tool, {**arguments, name: limit + 1})
                assert over.is_error and f"{name}: {limit + 1} is greater than the maximum" \
                    in _text(over)
                assert not (await session.call_tool(tool, {**arguments, name: limit})).is_error


async def test_the_answer_text_never_contradicts_itself(requests_graph: Path) -> None:
    questions = [json.loads(line)["question"] for line in
                 (REQUESTS / "questions.jsonl").read_text(encoding="utf-8").splitlines()[:12]]
    async with _session(requests_graph) as session:
        for question in [*questions, "zzzz qqqq"]:
            text = _text(await session.call_tool("retrieve_knowledge", {"question": question}))
            [tags] = [line for line in text.splitlines() if line.startswith("Tags matched:")]
            assert "no tag" not in text.lower() or tags == "Tags matched: none."
            if question == "zzzz qqqq":  # matches nothing: nothing retrieved, and said so
                assert text.endswith("the question matches nothing in this graph "
                                     "(no tag, no word of the code).")
                continue
            assert ("Dependency paths between them" in text) != ("No dependency path" in text)


async def test_explain_takes_qualified_names_and_labels_resolution(requests_graph: Path) -> None:
    async with _session(requests_graph) as session:
        exact = _text(await session.call_tool("explain_dependency", {
            "source": "requests.sessions:Session.request",
            "target": "requests.sessions.Session.send"}))
        assert "1. Session.request -calls[exact]-> Session.send" in exact
        guessed = _text(await session.call_tool("explain_dependency", {
            "source": "SessionRedirectMixin.rebuild_auth",
            "target": "PreparedRequest.prepare_auth"}))
        assert "rebuild_auth -calls[name]-> prepare_auth" in guessed
        assert "name = a guess by bare name" in guessed
        inferred = _text(await session.call_tool("explain_dependency", {
            "source": "api.request", "target": "Session.send"}))
        assert "api.request -calls[inferred]-> Session.request" in inferred
        misspelt = await session.call_tool("explain_dependency", {
            "source": "get_enviroment_proxies", "target": "Session.send"})
        assert misspelt.is_error and "did you mean get_environ_proxies" in _text(misspelt)


@pytest.mark.falkordb
async def test_a_store_url_is_served_as_the_graph_in_memory(
        falkordb: Server, payments_graph: KnowledgeGraph, graph_path: Path) -> None:
    from sgkr.stores.falkor import push_graph

    url = falkordb.url("mcp-payments")
    push_graph(payments_graph, url)
    question = str(_heldout("1434")["question"])
    answers = []
    for target in (graph_path, url):
        async with _session(target, "--k", "5") as session:
            answers.append([_text(await session.call_tool(tool, arguments)) for tool, arguments in (
                ("retrieve_knowledge", {"question": question}),
                ("explain_dependency", {"source": "filter_fee_rules", "target": "matches_field"}),
                ("explain_dependency", {"source": "filter_fee_rule", "target": "fee"}))])
            stats = json.loads((await session.read_resource(STATS_URI)).contents[0].text)
            assert stats["functions"] == payments_graph.stats()["functions"]
    memory, store = answers
    assert memory == store and "-calls[exact]->" in store[1] and "did you mean" in store[2]


async def test_sources_are_built_on_start_and_watched(tmp_path: Path) -> None:
    (tmp_path / "fees.py").write_text("def fee(amount):\n    return amount * 0.2\n")
    async with _session(tmp_path, "--watch") as session:
        before = await session.call_tool("explain_dependency",
                                         {"source": "fee", "target": "rate"})
        assert before.is_error and "'rate'" in _text(before)
        (tmp_path / "rates.py").write_text("def rate():\n    return 0.2\n")
        (tmp_path / "fees.py").write_text("from rates import rate\n\n"
                                          "def fee(amount):\n    return amount * rate()\n")
        deadline = time.monotonic() + 60
        while True:  # the watcher's notice and rebuild take their time on a busy machine
            after = await session.call_tool("explain_dependency",
                                            {"source": "fee", "target": "rate"})
            if not after.is_error or time.monotonic() > deadline:
                break
            await anyio.sleep(0.2)
        assert "1. fee -calls[exact]-> rate" in _text(after)


@pytest.mark.parametrize(("arguments", "message"), [
    (["graph.json", "--knowledge", "k.json"], "build options apply to sources"),
    (["falkordb://127.0.0.1:1/g", "--watch"], "--watch follows files"),
    (["falkordb://127.0.0.1:1/g", "src"], "served alone"),
])
def test_what_cannot_be_served_is_one_line(arguments: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "sgkr", "mcp", *arguments], env=_env(),
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr and not done.stdout


def test_a_missing_graph_file_fails_before_serving(tmp_path: Path) -> None:
    from sgkr.cli import main

    assert main(["mcp", str(tmp_path / "missing.json")]) == 5


def _raw_server(graph_path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "sgkr", "mcp", str(graph_path)], env=_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _send(process: subprocess.Popen[bytes], *messages: str) -> None:
    assert process.stdin is not None
    process.stdin.write("".join(m + "\n" for m in messages).encode())
    process.stdin.flush()


_INITIALIZE = ('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
               '"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}')
_INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'


def _call(request_id: int, question: str, name: str = "retrieve_knowledge") -> str:
    return (f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"name":'
            f'"{name}","arguments":{{"question":"{question}"}}}}}}')


def test_a_request_with_a_lone_surrogate_is_answered_with_its_id(graph_path: Path) -> None:
    # Issue 41, M10: the SDK's reader dropped such a request silently; the client waited
    # until its own timeout.
    process = _raw_server(graph_path)
    try:
        _send(process, _INITIALIZE, _INITIALIZED, _call(7, "fee \\ud800 of a card"),
              _call(8, "fee \\udfff", name="no_\\ud800_tool"), _call(9, "fee of a card"))
        assert process.stdout is not None
        lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in process.stdout],
                         daemon=True).start()
        answers: dict[int, Any] = {}
        deadline = time.monotonic() + 60
        while len(answers) < 4 and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                message = json.loads(lines.get(timeout=1))
                answers[message["id"]] = message
        assert sorted(answers) == [0, 7, 8, 9]  # none dropped
        assert answers[7]["error"]["code"] == -32600
        assert "surrogate" in answers[7]["error"]["message"]
        assert "surrogate" in answers[8]["error"]["message"]
        assert answers[9]["result"]["content"][0]["text"]  # the server goes on
    finally:
        process.kill()
        process.wait()


def test_a_client_that_goes_away_with_answers_pending_ends_the_server_quietly(
        graph_path: Path) -> None:
    # Issue 41, L1: a 61-line ExceptionGroup / BrokenPipeError traceback and exit 1.
    process = _raw_server(graph_path)
    assert process.stdout is not None and process.stderr is not None
    _send(process, _INITIALIZE, _INITIALIZED)
    process.stdout.readline()
    _send(process, *(_call(i, "average fee of a card " * 200) for i in range(1, 40)))
    process.stdout.close()  # gone, with answers pending
    assert process.stdin is not None
    process.stdin.close()
    status = process.wait(timeout=60)
    err = process.stderr.read().decode()
    assert status == 0 and "Traceback" not in err, err


async def test_map_graph_fits_its_budget_and_focuses_on_a_question(graph_path: Path) -> None:
    from sgkr.retrieval.overview import count_tokens

    case = _heldout("1434")
    async with _session(graph_path) as session:
        plain = await session.call_tool("map_graph", {"tokens": 300})
        focused = await session.call_tool("map_graph", {"tokens": 300,
                                                        "question": case["question"]})
        refused = await session.call_tool("map_graph", {"tokens": 5})
    assert not plain.is_error and count_tokens(_text(plain)) <= 300
    assert "load_fees()" in _text(plain) and "called by:" in _text(plain)
    assert "a question needs first" in _text(focused).splitlines()[0]
    assert count_tokens(_text(focused)) <= 300 and "get_mcc_code" in _text(focused)
    assert refused.is_error and "tokens" in _text(refused)
