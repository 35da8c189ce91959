"""The FalkorDB store against a real server: same answers, atomic pushes, clean failures."""

from __future__ import annotations

import itertools
import json
import pickle
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.bench import make_questions
from sgkr.errors import InvalidArgumentError, StoreError
from sgkr.records import Edge, FunctionNode, SourceSpan, TagNode
from sgkr.stores import (
    GraphReader,
    GraphStore,
    MemoryStore,
    NamesReader,
    TasksReader,
    open_store,
)
from sgkr.stores.connection import Server as Connection
from sgkr.stores.falkor import FalkorDBStore, parse_url, push_graph
from sgkr.stores.layout import current_key

from ..conftest import PAYMENTS
from ..falkordb_server import Server, free_port, start_server

pytestmark = [pytest.mark.falkordb, pytest.mark.server]


def _questions(graph: KnowledgeGraph) -> list[str]:
    examples = [json.loads(line)["question"]
                for line in (PAYMENTS / "examples.jsonl").read_text().splitlines()]
    return examples + make_questions(graph, 40, seed=3) + ["What is the weather?"]


@pytest.fixture(scope="module")
def payments_url(falkordb: Server, payments_graph: KnowledgeGraph) -> str:
    url = falkordb.url("payments")
    push_graph(payments_graph, url)
    return url


@pytest.mark.parametrize("options", [
    {},
    {"reverse_calls": False},
    {"partial": "nearest", "callees": 0},
    {"k": 3, "max_depth": 3, "max_paths": 4, "scripts": 0},
    {"include_knowledge": False, "partial": "none"},
    {"filter": {"$or": [{"kind": "module"}, {"name": {"$nin": ["get_fee", "fee"]}}]}},
    {"fill": "none"},
    {"lexical": False, "centrality": 0.0, "brevity": 0.0},
    {"fill": "none", "lexical": False},
])
def test_same_answers_as_the_graph_in_memory(payments_graph: KnowledgeGraph, payments_url: str,
                                             options: dict[str, object]) -> None:
    memory = Retriever(payments_graph, **options)
    store = Retriever(store=payments_url, **options)
    questions = _questions(payments_graph)
    answered = 0
    for question in questions:
        expected = memory.retrieve(question)
        assert store.retrieve(question) == expected, question
        answered += bool(expected.documents)
    assert answered > len(questions) // 2


def test_same_answers_with_an_extractor_and_a_fallback(payments_graph: KnowledgeGraph,
                                                       payments_url: str) -> None:
    labels = [t.label for t in payments_graph.tags()]
    ids = [f.id for f in payments_graph.functions()]

    def extractor(question: str) -> list[str]:
        return [labels[len(question) % len(labels)], "tag:" + labels[0], "no such tag"]

    def fallback(question: str, k: int) -> list[str]:
        return ["fn:nope", *ids[len(question) % 7:][:k]]

    for question in _questions(payments_graph)[:20]:
        memory = Retriever(payments_graph, tag_extractor=extractor, fallback=fallback)
        store = Retriever(store=payments_url, tag_extractor=extractor, fallback=fallback)
        assert store.retrieve(question) == memory.retrieve(question)
    no_tags = Retriever(store=payments_url, tag_extractor=lambda q: [], fallback=fallback)
    assert no_tags.retrieve("anything").fallback_used


def _odd_graph(text: str) -> KnowledgeGraph:
    g = KnowledgeGraph(meta={"text": text})
    g.add_functions([
        FunctionNode("fn:odd", "odd", ("m.odd", "m.C.odd"), f"def odd():\n    return {text!r}\n",
                     text, (SourceSpan("m.py", 1, 2), SourceSpan("n.py", 3, 4)), "method"),
        FunctionNode("fn:bare", "bare", (), "", "", (), "module"),
        FunctionNode("fn:used", "used", ("m.used",), "def used(): ...", "", (), "function")])
    g.add_tags([TagNode("tag:in", "in", (), 0.125),
                TagNode("tag:out", "out", ("Result Value", "o"), 0.5)])
    g.add_edges([Edge("tag:in", "fn:bare", "consumes"), Edge("fn:odd", "fn:bare", "calls", "name"),
                 Edge("fn:odd", "tag:out", "produces"),
                 Edge("fn:used", "fn:odd", "references", "exact"),
                 Edge("fn:bare", "fn:used", "references", "inferred")])
    return g


def test_names_and_edge_kinds_as_in_memory(payments_graph: KnowledgeGraph,
                                           payments_url: str) -> None:
    memory, store = MemoryStore(payments_graph).reader(), open_store(payments_url).reader()
    assert isinstance(store, NamesReader)
    assert store.function_names() == memory.function_names()
    pairs = [(e.source, e.target) for e in payments_graph.edges()]
    pairs += [(b, a) for a, b in pairs[:50]] + [("fn:nowhere", "tag:nothing")]
    assert store.edge_kinds(pairs) == memory.edge_kinds(pairs) and store.edge_kinds([]) == {}


def test_solved_tasks_are_pushed_and_answer_alike(payments_graph: KnowledgeGraph,
                                                  payments_url: str, falkordb: Server) -> None:
    store = open_store(payments_url).reader()
    assert isinstance(store, TasksReader) and store.tasks() == payments_graph.tasks
    assert len(store.tasks()) == 35
    question = "What is the fee ID or IDs that apply to account_type = D and aci = F?"
    docs = Retriever(store=payments_url).retrieve(question).documents
    assert docs == Retriever(payments_graph).retrieve(question).documents
    assert docs[0].used_by and docs[0].used_by[0][0] in {"task:1464", "task:1480"}
    # a graph without solved tasks has none in the store either
    url = falkordb.url("plain")
    push_graph(build_graph([("m.py", "def f():\n    return 1\n")]), url)
    assert open_store(url).reader().tasks() == ()


def test_records_round_trip_exactly(falkordb: Server) -> None:
    text = 'quotes " \' back\\slash \\n tab\t new\nline unicode é ∑ 😀 {braces} $dollar `tick`'
    g = _odd_graph(text)
    url = falkordb.url("odd")
    push_graph(g, url, batch=1)
    reader = FalkorDBStore(url).reader()
    assert isinstance(reader, GraphReader)
    assert reader.functions(["fn:odd", "fn:bare", "tag:in", "fn:none"]) == {
        "fn:odd": g.function("fn:odd"), "fn:bare": g.function("fn:bare")}
    assert reader.kinds(["fn:odd", "fn:bare", "tag:out"]) == {
        "fn:odd": "method", "fn:bare": "module", "tag:out": "tag"}
    memory = Retriever(g).store.reader()
    assert reader.phrase_tags(["result value", "o", "in", "x"]) == memory.phrase_tags(
        ["result value", "o", "in", "x"])
    assert reader.longest_phrase() == memory.longest_phrase() == 2
    assert reader.tags(["tag:in", "tag:out", "fn:odd"]) == memory.tags(["tag:in", "tag:out"])
    assert [t.weight for t in reader.phrase_tags(["in"])["in"]] == [0.125]
    assert reader.phrases() == memory.phrases()
    assert reader.neighbours(["fn:bare"], "calls", "in") == {"fn:bare": ("fn:odd",)}
    assert reader.neighbours(["fn:bare", "fn:odd"], "references", "out") == {
        "fn:bare": ("fn:used",), "fn:odd": ()}
    question = "Given the in, what is the result value?"
    assert Retriever(store=url).retrieve(question) == Retriever(g).retrieve(question)


def test_store_urls_and_missing_graphs(falkordb: Server) -> None:
    assert parse_url("falkordb://:s3cret@db.example:7000/g?timeout=0.5").password == "s3cret"
    for bad, why in [("falkordb://h/", "expected falkor://"), ("redis://h:1/g", "expected"),
                     ("falkordb://h:x/g", "port"), ("falkordb://h:1/g?retries=2", "retries"),
                     ("falkordb://h:1/g?timeout=0", "timeout"), ("falkordb://h:1/a b", "name")]:
        with pytest.raises(InvalidArgumentError, match=why):
            parse_url(bad)
    store = open_store(falkordb.url("never-pushed"))
    assert isinstance(store, GraphStore)
    with pytest.raises(StoreError, match="no graph pushed under 'never-pushed'"):
        Retriever(store=store).retrieve("What is the fee?")


def test_a_password_is_never_shown() -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        parse_url("falkordb://:s3cret@h:1/")
    assert "s3cret" not in str(caught.value)
    with pytest.raises(StoreError) as down:
        FalkorDBStore(f"falkordb://:s3cret@127.0.0.1:{free_port()}/g?timeout=1")
    assert "s3cret" not in str(down.value)


def test_a_server_that_is_down_is_one_line_naming_the_url() -> None:
    url = f"falkordb://127.0.0.1:{free_port()}/g?timeout=1"
    with pytest.raises(StoreError, match=r"^graph store falkordb://127\.0\.0\.1:\d+/g: ") as e:
        Retriever(store=url)
    assert "\n" not in str(e.value)
    cli = subprocess.run([sys.executable, "-m", "sgkr", "query", url, "What is the fee?"],
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 8 and cli.stdout == ""
    assert cli.stderr.count("\n") == 1 and "graph store falkordb://127.0.0.1" in cli.stderr


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


def test_a_server_that_never_answers_times_out(silent_server: int) -> None:
    with pytest.raises(StoreError, match=f"falkordb://127.0.0.1:{silent_server}/g: .*[Tt]ime"):
        FalkorDBStore(f"falkordb://127.0.0.1:{silent_server}/g?timeout=0.3")


def test_a_connection_dropped_mid_question_is_an_error_not_an_answer(
        tmp_path: Path, payments_graph: KnowledgeGraph,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from sgkr.stores import falkor

    server = start_server(tmp_path)
    try:
        url = server.url("payments") + "?timeout=2"
        push_graph(payments_graph, url)
        retriever = Retriever(store=url)
        question = "What is the average fee for account type H and a transaction of 100 euros?"
        assert retriever.retrieve(question).documents
        real = falkor.Server.query
        seen = {"n": 0}

        def dropping(self: object, *args: object, **kwargs: object) -> object:
            seen["n"] += 1
            if seen["n"] == 3:  # the question is under way: tags matched, search begun
                server.process.kill()
                server.process.wait(10)
            return real(self, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(falkor.Server, "query", dropping)
        with pytest.raises(StoreError, match=r"^graph store falkordb://127\.0\.0\.1:\d+/payments:"):
            retriever.retrieve(question)
    finally:
        server.stop()


def test_pickles_by_url(payments_url: str) -> None:
    retriever = Retriever(store=payments_url, k=3)
    copy = pickle.loads(pickle.dumps(retriever))
    question = "What is the average fee for account type H?"
    assert copy.retrieve(question) == retriever.retrieve(question)
    with pytest.raises(InvalidArgumentError, match="reads the graph store falkordb://"):
        _ = copy.graph


def test_cli_push_and_query(falkordb: Server, tmp_path: Path,
                            payments_graph: KnowledgeGraph,
                            capsys: pytest.CaptureFixture[str]) -> None:
    from sgkr.cli import main

    path = tmp_path / "graph.json"
    payments_graph.save(path)
    url = falkordb.url("cli")
    assert main(["push", str(path), url]) == 0
    assert "pushed version cli@" in capsys.readouterr().out
    assert main(["push", str(path), url]) == 0
    assert "unchanged" in capsys.readouterr().out
    question = "What is the average fee for account type H?"
    assert main(["query", str(path), question, "--json", "--k", "4"]) == 0
    from_file = capsys.readouterr().out
    assert main(["query", url, question, "--json", "--k", "4"]) == 0
    assert capsys.readouterr().out == from_file
    assert main(["push", str(path), "graph.json"]) == 2
    assert "not a store URL" in capsys.readouterr().err


def test_bench_through_the_store(falkordb: Server) -> None:
    from sgkr.bench import run_bench

    report = run_bench(PAYMENTS / "solutions", queries=20, jobs=1, repeat=1,
                       store=falkordb.url("bench"))
    assert report.store_url == falkordb.url("bench")
    assert report.store_mismatches == 0 and report.push_s is not None
    assert "answer(s) differ" in report.summary()


def test_build_graph_of_text_pushes(falkordb: Server) -> None:
    g = build_graph([("m.py", "def average_fee(amount, rate):\n    return scale(amount) * rate\n"
                              "def scale(amount):\n    return amount / 100\n")], infer_tags=True)
    url = falkordb.url("tiny")
    push_graph(g, url)
    for question in make_questions(g, 5) + ["What is the scale?"]:
        assert Retriever(store=url).retrieve(question) == Retriever(g).retrieve(question)


def test_a_graph_of_inferred_tags_answers_alike(falkordb: Server,
                                                payments_graph: KnowledgeGraph) -> None:
    # A graph whose tags are all inferred (eval's bare datasets) seeds the walk with them.
    bare = payments_graph.copy()
    bare.meta["curated_tags"] = False
    url = falkordb.url("bare")
    push_graph(bare, url)
    for question in _questions(payments_graph):
        assert Retriever(store=url).retrieve(question) == Retriever(bare).retrieve(question)


# -- L3: a malformed store is a StoreError, never a traceback ------------------------------

_PROPERTIES = {"Function": ("id", "kind", "record", "callers", "central", "size", "key",
                            "name", "qualnames"),
               "Tag": ("id", "kind", "role", "record"), "Phrase": ("text", "key"),
               "Token": ("word", "postings", "key"), "SGKRMeta": ("format", "longest", "curated")}
# Values a Cypher parameter can carry (no NUL, no infinity).
_texts = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"),
                 max_size=20)
_STORES = itertools.count()
_odd_values = st.one_of(
    st.none(), st.booleans(), st.integers(-2**63, 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False), _texts,
    st.lists(st.one_of(st.integers(), _texts), max_size=3),
    st.sampled_from(["[", "{}", "[[1, 2]]", '[["fn:x", "y"]]', "[" * 100_000, '{"id": 1}',
                     '{"id": "fn:odd", "type": "tag", "label": "x", "aliases": []}',
                     '{"id": "fn:odd", "type": "function"}', "null", "method", "tag"]))


def _every_read(url: str, graph: KnowledgeGraph) -> None:
    """Every way a retriever reads the store; a StoreError is the only error allowed."""
    ids = [n["id"] for n in graph.to_dict()["nodes"]] + ["fn:none"]
    reads = [lambda r: r.functions(ids), lambda r: r.tags(ids), lambda r: r.kinds(ids),
             lambda r: r.phrases(), lambda r: r.phrase_tags(["result value", "in", "out"]),
             lambda r: r.neighbours(ids, "calls", "in"), lambda r: r.around(ids),
             lambda r: r.most_called(5), lambda r: r.callers_and_sizes(ids),
             lambda r: r.function_count(), lambda r: r.lexical_search("odd result value", 5),
             lambda r: r.find_paths(["tag:in"], ["tag:out"], max_depth=4, max_paths=4,
                                    reverse_calls=True),
             lambda r: r.connect_paths(["tag:in", "tag:out"], max_depth=4, max_paths=4),
             lambda r: r.function_names(),
             lambda r: r.edge_kinds([(a, b) for a in ids for b in ids])]
    for read in reads:
        try:
            read(FalkorDBStore(url).reader())
        except StoreError as error:
            assert "\n" not in str(error) and str(error).startswith("graph store falkordb://")
    for options in ({}, {"fill": "none"}, {"partial": "nearest"}):
        try:
            Retriever(store=url, **options).retrieve("Given the in, what is the result value?")
        except StoreError:
            pass


def _corrupted(falkordb: Server, name: str, label: str, prop: str, value: object, *,
               every: bool = False) -> str:
    """A new store ``name`` whose graph's first node of ``label`` (or every one) has
    ``prop`` set to ``value``."""
    url = falkordb.url(name)
    version = push_graph(_odd_graph("odd"), url).version
    server = FalkorDBStore(url)._server
    server.query(version, f"MATCH (n:{label}) WITH n {'' if every else 'LIMIT 1'} "
                          f"SET n.{prop} = $v", {"v": value}, write=True)
    return url


_IDS = ["fn:odd", "fn:bare", "fn:used", "tag:in", "tag:out"]


@pytest.mark.parametrize("label, prop, value, read", [
    ("Function", "record", "not json", lambda r: r.functions(_IDS)),
    ("Function", "record", "[" * 100_000, lambda r: r.functions(_IDS)),
    ("Function", "record", '{"id": "fn:other", "type": "function"}', lambda r: r.functions(_IDS)),
    ("Function", "record", None, lambda r: r.functions(_IDS)),
    ("Function", "id", 5, lambda r: r.kinds(_IDS)),
    ("Function", "kind", "script", lambda r: r.kinds(_IDS)),
    ("Function", "key", "elsewhere", lambda r: r.kinds(_IDS)),
    ("Function", "callers", "many", lambda r: r.callers_and_sizes(_IDS)),
    ("Function", "size", -1, lambda r: r.callers_and_sizes(_IDS)),
    ("Function", "qualnames", "m.odd", lambda r: r.function_names()),
    ("Tag", "role", "sideways", lambda r: r.tags(_IDS)),
    ("Tag", "record", '{"id": "tag:out", "type": "tag"}', lambda r: r.tags(_IDS)),
    ("Tag", "kind", "function", lambda r: r.kinds(_IDS)),
    ("Phrase", "text", ["a"], lambda r: r.phrases()),
    ("Token", "postings", '[["fn:odd"]]', lambda r: r.lexical_search("odd used bare", 5)),
    ("Token", "postings", '[["fn:odd", "high"]]', lambda r: r.lexical_search("odd used", 5)),
    ("SGKRMeta", "format", "6", lambda r: r),
    ("SGKRMeta", "longest", -3, lambda r: r),
    ("SGKRMeta", "curated", "yes", lambda r: r),
])
def test_malformed_records_are_store_errors(falkordb: Server, label: str, prop: str,
                                            value: object, read: Any) -> None:
    url = _corrupted(falkordb, f"malformed-{label}-{prop}-{next(_STORES)}", label, prop, value,
                     every=True)
    _every_read(url, _odd_graph("odd"))
    with pytest.raises(StoreError, match=r"^graph store falkordb://\S+: .*(push|format)") as e:
        read(FalkorDBStore(url).reader())
    assert "\n" not in str(e.value)


@settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_malformed_value_is_a_store_error(falkordb: Server, data: st.DataObject) -> None:
    label = data.draw(st.sampled_from(sorted(_PROPERTIES)))
    prop = data.draw(st.sampled_from(_PROPERTIES[label]))
    name = f"malformed-{next(_STORES)}"  # a store of its own: edits never add up
    url = _corrupted(falkordb, name, label, prop, data.draw(_odd_values),
                     every=data.draw(st.booleans()))
    _every_read(url, _odd_graph("odd"))
    server = Connection(parse_url(url))
    server.drop(str(server.get(current_key(name))))


def test_a_malformed_store_through_the_cli(falkordb: Server) -> None:
    url = _corrupted(falkordb, "malformed-cli", "Function", "record", "not json", every=True)
    done = subprocess.run([sys.executable, "-m", "sgkr", "query", url,
                           "Given the in, what is the result value?"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 8, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "push the graph again" in done.stderr
