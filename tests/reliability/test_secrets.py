"""A store's password is never shown: in any repr, dump, error or log line, of the core,
the CLI, the MCP server and both adapters.

The FalkorDB server of the tests gets a user with a password; every way SGKR can
show a store URL is then tried, with the right password and with wrong ones,
and nothing printed, raised, logged or dumped may hold a password.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.errors import SGKRError
from sgkr.stores import open_store
from sgkr.stores.falkor import FalkorDBStore, parse_url, push_graph
from tests.falkordb_server import Server, free_port, start_server

pytestmark = [pytest.mark.falkordb, pytest.mark.server]
PASSWORD = "Pa55-s3cret-Xq"
WRONG = "Wr0ng-s3cret-Zk"
SECRETS = (PASSWORD, WRONG)


def _clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


@pytest.fixture(scope="module")
def secret_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A FalkorDB server of its own, with a password for its default user and a user
    ``sgkr`` with the same password."""
    server = start_server(tmp_path_factory.mktemp("secret"), "--requirepass", PASSWORD,
                          "--user", "sgkr", "on", f">{PASSWORD}", "~*", "&*", "+@all")
    yield server
    server.stop()


@pytest.fixture(scope="module", params=["", "sgkr"])
def secret_url(secret_server: Server, request: pytest.FixtureRequest) -> str:
    url = (f"falkordb://{request.param}:{PASSWORD}@{secret_server.host}:{secret_server.port}"
           "/secrets")
    _push_total(url)
    return url


def _push_total(url: str) -> None:
    """The graph the adapters are asked about (test_cli pushes another to the same URL)."""
    push_graph(build_graph([("m.py", "def total(fees):\n    return sum(fees)\n")]), url)


def _bad_urls(server: Server) -> list[str]:
    where = f"{server.host}:{server.port}"
    return [f"falkordb://sgkr:{WRONG}@{where}/secrets",                 # wrong password
            f"falkordb://:{WRONG}@{where}/secrets",                      # default user
            f"falkordb://sgkr:{WRONG}@127.0.0.1:{free_port()}/g?timeout=1",  # server down
            f"falkordb://sgkr:{WRONG}@{where}/bad name",                 # malformed name
            f"falkordb://sgkr:{WRONG}@{where}/g?timeout=x",              # malformed option
            f"falkordb://sgkr:{WRONG}@{where}/g?token={WRONG}",          # unknown option
            f"redis://sgkr:{WRONG}@{where}/g",                           # not a store URL
            f"falkordb://sgkr:{WRONG}@{where}:99999/g"]                  # malformed port


def test_core_reprs_and_errors(secret_server: Server, secret_url: str) -> None:
    store = open_store(secret_url)
    retriever = Retriever(store=secret_url)
    assert retriever.retrieve("What is the total?").documents
    for shown in (repr(store), store.url, repr(parse_url(secret_url)), repr(retriever.store),
                  str(vars(retriever)), repr(store.reader().version)):
        _clean(shown)
    for url in _bad_urls(secret_server):
        for attempt in (Retriever, open_store, lambda u: push_graph(KnowledgeGraph(), u)):
            with pytest.raises(SGKRError) as caught:
                attempt(store=url) if attempt is Retriever else attempt(url)
            _clean(str(caught.value))
            _clean(repr(caught.value))
    # A pickle keeps the password (it connects again), and a copy works.
    assert pickle.loads(pickle.dumps(retriever)).retrieve("What is the total?").documents


def test_push_and_bench_logs(secret_server: Server, secret_url: str, tmp_path: Path) -> None:
    from sgkr.bench import run_bench

    lines: list[str] = []
    report = push_graph(build_graph([("m.py", "def f():\n    return 1\n")]), secret_url,
                        log=lines.append)
    _clean(" ".join(lines) + report.summary() + repr(report))
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text("def total(fees):\n    return sum(fees)\n")
    figures = run_bench(src, queries=2, jobs=1, repeat=1, store=secret_url, log=lines.append)
    _clean(" ".join(lines) + figures.summary() + json.dumps(figures.to_dict()))


def test_cli(secret_server: Server, secret_url: str, tmp_path: Path,
             capsys: pytest.CaptureFixture[str]) -> None:
    from sgkr.cli import main

    graph = tmp_path / "graph.json"
    build_graph([("m.py", "def f():\n    return 1\n")]).save(graph)
    runs: list[list[str]] = [["push", str(graph), secret_url], ["query", secret_url, "f?"],
                             ["bench", str(tmp_path), "--store", secret_url, "--queries", "1"]]
    for url in _bad_urls(secret_server):
        runs += [["push", str(graph), url, "--verbose"], ["query", url, "what is f?"],
                 ["query", url, "what is f?", "--verbose"]]
    runs.append(["bench", str(tmp_path), "--store", _bad_urls(secret_server)[0], "--queries", "1"])
    for argv in runs:
        main(argv)
        printed = capsys.readouterr()
        _clean(printed.out + printed.err)
    done = subprocess.run([sys.executable, "-m", "sgkr", "query", _bad_urls(secret_server)[0], "f?",
                           "--verbose"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 8 and "Traceback" in done.stderr
    _clean(done.stdout + done.stderr)


def test_langchain(secret_url: str) -> None:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.load import dumpd, dumps

    from langchain_sgkr import SGKRRetriever

    seen: list[Any] = []

    class Recorder(BaseCallbackHandler):
        def on_retriever_start(self, serialized: dict[str, Any], query: str,
                               **kwargs: Any) -> None:
            seen.append(serialized)

    _push_total(secret_url)
    for store in (secret_url, FalkorDBStore(secret_url)):
        retriever = SGKRRetriever(store=store, k=2)
        assert retriever.invoke("What is the total?", config={"callbacks": [Recorder()]})
        for shown in (repr(retriever), str(retriever), str(retriever.model_dump()),
                      retriever.model_dump_json(), str(dumpd(retriever)), dumps(retriever),
                      str(seen), repr(retriever.core.store)):
            _clean(shown)
    shown = SGKRRetriever(store=secret_url).model_dump()["store"]
    assert shown == secret_url.replace(PASSWORD, "***")


def test_llama_index(secret_url: str) -> None:
    from llama_index_sgkr import SGKRRetriever

    _push_total(secret_url)
    retriever = SGKRRetriever.from_defaults(store=secret_url)
    assert retriever.retrieve("What is the total?")
    _clean(repr(retriever) + str(vars(retriever)) + repr(retriever.sgkr_retriever.store))


def test_mcp_errors() -> None:
    from sgkr.agents.server import make_server

    graph = build_graph([("m.py", "def total(fees):\n    return sum(fees)\n")])

    def failing(question: str) -> list[str]:
        raise SGKRError(f"graph store falkordb://sgkr:{PASSWORD}@h:1/g: down")

    server = make_server(graph, tag_extractor=failing)

    async def call() -> str:
        from mcp import Client

        async with Client(server) as client:
            answer = await client.call_tool("retrieve_knowledge",
                                            {"question": "What is the total?"})
        assert answer.is_error
        return "\n".join(getattr(part, "text", "") for part in answer.content)

    shown = anyio.run(call)
    assert "graph store falkordb://sgkr:***@h:1/g" in shown
    _clean(shown)
