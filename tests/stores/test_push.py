"""Pushing to a FalkorDB store, against a real server: one writer at a time, every push
checked, readers always on a whole graph, every id and text back as it was sent, nothing
left behind by a push that fails."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.errors import StoreError
from sgkr.records import Edge, FunctionNode, SourceSpan, TagNode
from sgkr.stores.connection import Server as Connection
from sgkr.stores.connection import parse_url
from sgkr.stores.falkor import FalkorDBStore
from sgkr.stores.layout import current_key, lock_key
from sgkr.stores.push import graph_parts, problems, push_graph
from tests.falkordb_server import Server
from tests.graph_strategies import knowledge_graphs

from ..conftest import PAYMENTS

pytestmark = [pytest.mark.falkordb, pytest.mark.server]
QUESTION = "What is the average fee for account type H and a transaction of 100 euros?"


def _odd_graph(text: str) -> KnowledgeGraph:
    g = KnowledgeGraph(meta={"text": text})
    g.add_functions([
        FunctionNode("fn:odd", "odd", ("m.odd",), f"def odd():\n    return {text!r}\n", text,
                     (SourceSpan("m.py", 1, 2),), "function"),
        FunctionNode("fn:used", "used", ("m.used",), "def used(): ...", "", (), "function")])
    g.add_tags([TagNode("tag:out", "out", ("result value",), 0.5)])
    g.add_edges([Edge("fn:used", "fn:odd", "calls", "exact"),
                 Edge("fn:odd", "tag:out", "produces")])
    return g


def _keys(falkordb: Server, name: str) -> dict[str, set[str]]:
    """Every key of the store ``name``: its graphs, and its other keys."""
    server = Connection(parse_url(falkordb.url(name)))
    graphs = {g for g in server.graphs() if g.startswith(f"{name}@")}
    others = {str(k) for k in server.call(lambda: server.redis.keys(f"{name}@*"))} - graphs
    return {"graphs": graphs, "others": others}


def _whole(url: str, graph: KnowledgeGraph) -> None:
    """The store's current graph is ``graph``, every check holding, and it answers alike."""
    store = FalkorDBStore(url)
    reader = store.reader()
    parts, _ = graph_parts(graph)
    assert problems(store._server, reader.version, parts) == []
    ids = [n["id"] for n in graph.to_dict()["nodes"]]
    assert reader.functions(ids) == {f.id: f for f in graph.functions()}
    memory = Retriever(graph).store.reader()
    assert reader.phrases() == memory.phrases()
    assert reader.tags(ids) == memory.tags(ids)
    assert reader.kinds(ids) == memory.kinds(ids)
    for kind in ("calls", "references", "consumes", "produces"):
        for side in ("in", "out"):
            assert reader.neighbours(ids, kind, side) == memory.neighbours(ids, kind, side)


# -- H1: two writers, one store ---------------------------------------------------------


def test_concurrent_pushes_of_one_graph_write_it_once(falkordb: Server,
                                                      payments_graph: KnowledgeGraph) -> None:
    url = falkordb.url("same")
    reports: list[Any] = []
    errors: list[BaseException] = []

    def push() -> None:
        try:
            reports.append(push_graph(payments_graph, url, batch=20))
        except BaseException as error:  # noqa: BLE001 - the test reports it
            errors.append(error)

    threads = [threading.Thread(target=push) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(r.unchanged for r in reports) == [False, True, True, True]
    _whole(url, payments_graph)  # no duplicated edge: the checks count every one
    assert push_graph(payments_graph, url).unchanged
    assert _keys(falkordb, "same")["graphs"] == {reports[0].version}
    assert Retriever(store=url).retrieve(QUESTION) == Retriever(payments_graph).retrieve(QUESTION)


def test_concurrent_push_processes(falkordb: Server, tmp_path: Path,
                                   payments_graph: KnowledgeGraph) -> None:
    graphs = [payments_graph, build_graph([PAYMENTS / "solutions"], root=PAYMENTS)]
    paths = []
    for n, graph in enumerate(graphs):
        paths.append(tmp_path / f"g{n}.json")
        graph.save(paths[-1])
    url = falkordb.url("processes")
    pushers = [subprocess.Popen([sys.executable, "-m", "sgkr", "push", str(paths[n % 2]), url,
                                 "--batch", "25"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for n in range(4)]
    outputs = [p.communicate(timeout=120) for p in pushers]
    assert [p.returncode for p in pushers] == [0, 0, 0, 0], outputs
    assert all(err == "" for _, err in outputs)
    current = FalkorDBStore(url).reader().version
    whole = []  # the current graph is one of the two, whole
    for graph in graphs:
        try:
            _whole(url, graph)
            whole.append(graph)
        except AssertionError:
            pass
    assert len(whole) == 1, current
    assert push_graph(whole[0], url).unchanged


def test_a_damaged_current_graph_is_repaired_not_unchanged(falkordb: Server,
                                                           payments_graph: KnowledgeGraph
                                                           ) -> None:
    url = falkordb.url("damaged")
    first = push_graph(payments_graph, url)
    server = Connection(parse_url(url))
    server.query(first.version, "MATCH ()-[e:CALLS]->() WITH e LIMIT 3 DELETE e", write=True)
    server.query(first.version, "MATCH (n:Function) WITH n LIMIT 1 DETACH DELETE n", write=True)
    again = push_graph(payments_graph, url)
    assert not again.unchanged and again.version != first.version
    _whole(url, payments_graph)
    assert push_graph(payments_graph, url).unchanged


def test_a_push_waits_for_the_lock_then_gives_up_clearly(falkordb: Server) -> None:
    url = falkordb.url("locked")
    server = Connection(parse_url(url))
    holder = json.dumps({"push": "0" * 16, "pid": 4242, "host": "elsewhere"})
    server.call(lambda: server.redis.set(lock_key("locked"), holder, px=60_000))
    started = time.monotonic()
    with pytest.raises(StoreError, match=r"another push to 'locked' is under way by process "
                                         r"4242 on 'elsewhere'.*--wait"):
        push_graph(_odd_graph("x"), url, wait=0.5)
    assert time.monotonic() - started < 5
    assert _keys(falkordb, "locked") == {"graphs": set(), "others": {lock_key("locked")}}
    # A pusher killed while it held the lock: the lease runs out, the next push goes on
    # and removes what the killed one left.
    server.call(lambda: server.redis.pexpire(lock_key("locked"), 300))
    server.query("locked@0123456789abcdef-deadbeef", "CREATE (:Node {key: 'x'})", write=True)
    report = push_graph(_odd_graph("x"), url, wait=10)
    assert _keys(falkordb, "locked") == {"graphs": {report.version},
                                         "others": {current_key("locked")}}


def test_a_push_that_loses_its_lock_makes_nothing_current(
        falkordb: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    from sgkr.stores import lock as locks

    url = falkordb.url("stolen")
    before = push_graph(_odd_graph("one"), url)
    real = locks.PushLock.renew

    def stolen(self: locks.PushLock) -> None:  # another push takes over after a long pause
        self.server.call(lambda: self.server.redis.set(lock_key("stolen"), "another push"))
        self._renewed = 0.0
        real(self)

    monkeypatch.setattr(locks.PushLock, "renew", stolen)
    with pytest.raises(StoreError, match="lost the lock of 'stolen'.*nothing of it was made "
                                         "current"):
        push_graph(_odd_graph("two"), url)
    assert FalkorDBStore(url).reader().version == before.version
    assert _keys(falkordb, "stolen")["graphs"] == {before.version}


_STORES = itertools.count()


@settings(max_examples=12, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(graphs=st.lists(knowledge_graphs(max_functions=4, max_tags=2), min_size=2, max_size=4),
       batch=st.integers(1, 5))
def test_any_concurrent_pushes_leave_one_whole_graph(falkordb: Server,
                                                     graphs: list[KnowledgeGraph],
                                                     batch: int) -> None:
    # Generated graphs pushed at once, with a reader asking all along: every push ends
    # (pushed or unchanged), the reader only ever sees whole versions, and the store holds
    # one of the graphs, whole, and nothing but its versions.
    name = f"race-{next(_STORES)}"
    url = falkordb.url(name)
    outcomes: list[object] = []
    stop = threading.Event()
    seen: list[object] = []

    def push(graph: KnowledgeGraph) -> None:
        try:
            outcomes.append(push_graph(graph, url, batch=batch, wait=30))
        except BaseException as error:  # noqa: BLE001 - the test reports it
            outcomes.append(error)

    def read() -> None:
        digests = {graph_parts(g)[1] for g in graphs}
        while not stop.is_set():
            try:
                reader = FalkorDBStore(url).reader()
            except StoreError as error:
                if "no graph pushed" not in str(error):
                    seen.append(error)
                continue
            rows = reader._server.query(reader.version, "MATCH (m:SGKRMeta) RETURN m.digest")
            seen.append(rows[0][0] in digests or rows)

    threads = [threading.Thread(target=push, args=(g,)) for g in graphs]
    reader = threading.Thread(target=read)
    reader.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    reader.join()
    assert [o for o in outcomes if isinstance(o, BaseException)] == []
    assert all(s is True for s in seen), seen
    whole = []
    for graph in graphs:
        try:
            _whole(url, graph)
            whole.append(graph)
        except AssertionError:
            pass
    assert whole  # (generated graphs may be equal)
    keys = _keys(falkordb, name)
    assert lock_key(name) not in keys["others"]
    assert FalkorDBStore(url).reader().version in keys["graphs"]
    assert len(keys["graphs"]) <= len(graphs)


# -- M2: readers during pushes ------------------------------------------------------------


def test_questions_during_repushes_always_read_a_whole_graph(
        falkordb: Server, payments_graph: KnowledgeGraph) -> None:
    other = build_graph([PAYMENTS / "solutions"], knowledge=PAYMENTS / "knowledge.json",
                        root=PAYMENTS)
    url = falkordb.url("repushed")
    push_graph(payments_graph, url)
    push_graph(other, url)
    questions = [QUESTION, "What is the fee for a merchant?", "Which card scheme is cheapest?"]
    answers = {q: (Retriever(payments_graph).retrieve(q), Retriever(other).retrieve(q))
               for q in questions}
    retriever = Retriever(store=url)
    stop = threading.Event()
    seen: list[int] = []
    failures: list[BaseException] = []

    def ask() -> None:
        n = 0
        while not stop.is_set():
            question = questions[n % len(questions)]
            n += 1
            try:
                assert retriever.retrieve(question) in answers[question]
            except BaseException as error:  # noqa: BLE001 - the test reports it
                failures.append(error)
                return
        seen.append(n)

    readers = [threading.Thread(target=ask) for _ in range(4)]
    for reader in readers:
        reader.start()
    for n in range(6):  # re-push earlier graphs while questions run
        push_graph(payments_graph if n % 2 == 0 else other, url, batch=40)
    stop.set()
    for reader in readers:
        reader.join()
    assert failures == [] and sum(seen) > 0


# -- M9, L4: every id and text round-trips --------------------------------------------------


def test_ids_an_index_confuses_round_trip(falkordb: Server) -> None:
    ids = ["fn:a\x01b", "x", "x ", " x", " ", "\t", "\x00", "\x01", "a\x01", "a", "fn:é😀"]
    nodes = [{"id": i, "type": "function", "name": "f", "kind": "function",
              "qualnames": [i], "code": f"def f():\n    return {i!r}\n", "knowledge": i,
              "sources": [{"file": i, "start_line": 1, "end_line": 2}]} for i in ids]
    edges = [{"source": a, "target": b, "type": "calls", "resolution": "exact"}
             for a, b in zip(ids, ids[1:], strict=False)]
    graph = KnowledgeGraph.from_dict({"schema_version": 2, "meta": {}, "nodes": nodes,
                                      "edges": edges})
    url = falkordb.url("ids")
    report = push_graph(graph, url, batch=3)
    assert report.nodes == len(ids) and report.edges == len(ids) - 1
    _whole(url, graph)


def test_a_nul_in_a_notebook_cell_round_trips(falkordb: Server) -> None:
    notebook = json.dumps({"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Fees \u0000"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["def fee(amount):\n", "    \"\"\"The fee, \u0000 and \u0001.\"\"\"\n",
                    "    return amount * 2\n"]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    graph = build_graph([("fees.ipynb", notebook)])
    assert any("\x00" in f.code for f in graph.functions())
    url = falkordb.url("nul")
    report = push_graph(graph, url)
    _whole(url, graph)
    assert Retriever(store=url).retrieve("What is the fee?") == Retriever(graph).retrieve(
        "What is the fee?")
    assert _keys(falkordb, "nul") == {"graphs": {report.version},
                                      "others": {current_key("nul")}}


@settings(max_examples=40, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(graph=knowledge_graphs(), batch=st.integers(1, 7))
def test_any_graph_round_trips(falkordb: Server, graph: KnowledgeGraph, batch: int) -> None:
    url = falkordb.url("generated")
    push_graph(graph, url, batch=batch)
    _whole(url, graph)


# -- nothing left behind --------------------------------------------------------------------


@pytest.mark.parametrize("failure", ["server error", "interrupted", "silently dropped",
                                     "dropped once"])
def test_a_failed_push_leaves_nothing_and_the_current_graph_current(
        falkordb: Server, monkeypatch: pytest.MonkeyPatch, failure: str) -> None:
    from sgkr.stores import push as pushing

    name = f"failing-{failure.replace(' ', '-')}"
    url = falkordb.url(name)
    first = push_graph(_odd_graph("one"), url)
    before = _keys(falkordb, name)
    real = pushing.Server.query
    writes = {"n": 0}

    def query(self: Connection, graph: str, cypher: str, params: Any = None, *,
              write: bool = False) -> list[list[Any]]:
        if write and cypher.startswith("UNWIND"):
            writes["n"] += 1
            if writes["n"] == 3:
                if failure == "server error":
                    raise self.error("the connection dropped")
                if failure == "interrupted":
                    raise KeyboardInterrupt
            if writes["n"] == 3 or (failure == "silently dropped" and "CALLS" in cypher):
                return []  # the server lost the batch without a word
        return real(self, graph, cypher, params, write=write)

    monkeypatch.setattr(pushing.Server, "query", query)
    if failure == "dropped once":  # the version is written once more, and whole
        report = push_graph(_odd_graph("two"), url, batch=1)
        monkeypatch.setattr(pushing.Server, "query", real)
        _whole(url, _odd_graph("two"))
        assert _keys(falkordb, name)["graphs"] == {first.version, report.version}
        return
    expected = {"server error": StoreError, "interrupted": KeyboardInterrupt,
                "silently dropped": StoreError}[failure]
    with pytest.raises(expected) as caught:
        push_graph(_odd_graph("two"), url, batch=1)
    if failure == "silently dropped":
        assert "was not written whole (calls edges: 0 (expected 1))" in str(caught.value)
        assert "the current version stays current" in str(caught.value)
    monkeypatch.setattr(pushing.Server, "query", real)
    assert _keys(falkordb, name) == before
    assert FalkorDBStore(url).reader().version == first.version
    _whole(url, _odd_graph("one"))
    push_graph(_odd_graph("two"), url)  # and the next push writes it whole
    _whole(url, _odd_graph("two"))


def test_versions_kept_for_questions_then_removed(falkordb: Server,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from sgkr.stores import push as pushing

    url = falkordb.url("kept")
    first = push_graph(_odd_graph("one"), url)
    store = FalkorDBStore(url)
    before = store.reader()  # a question that began on the first graph
    versions = [push_graph(_odd_graph(text), url).version for text in ("two", "three")]
    assert before.functions(["fn:odd"])["fn:odd"].knowledge == "one"  # still whole
    assert _keys(falkordb, "kept")["graphs"] == {first.version, *versions}
    monkeypatch.setattr(pushing, "KEEP_SECONDS", 0.0)  # a minute later
    last = push_graph(_odd_graph("four"), url)
    assert _keys(falkordb, "kept") == {"graphs": {last.version},
                                       "others": {current_key("kept")}}


def test_bad_arguments(falkordb: Server) -> None:
    from sgkr.errors import InvalidArgumentError

    for bad in ({"batch": 0}, {"wait": -1}, {"wait": float("nan")}, {"wait": True}):
        with pytest.raises(InvalidArgumentError):
            push_graph(_odd_graph("x"), falkordb.url("bad"), **bad)  # type: ignore[arg-type]


def test_cli_wait(falkordb: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sgkr.cli import main

    path = tmp_path / "graph.json"
    _odd_graph("x").save(path)
    url = falkordb.url("cli-wait")
    for bad in ("-1", "nan", "soon", "86401"):
        with pytest.raises(SystemExit) as exit_:
            main(["push", str(path), url, "--wait", bad])
        assert exit_.value.code == 2
    assert "--wait: expected seconds from 0 to 86400" in capsys.readouterr().err
    server = Connection(parse_url(url))
    server.call(lambda: server.redis.set(lock_key("cli-wait"), "another push", px=60_000))
    assert main(["push", str(path), url, "--wait", "0"]) == 8
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another push to 'cli-wait' is under way" in err
    server.call(lambda: server.redis.delete(lock_key("cli-wait")))
    assert main(["push", str(path), url, "--wait", "0"]) == 0
    assert "pushed version cli-wait@" in capsys.readouterr().out
