"""FalkorDB's own URL schemes: falkor:// and falkors:// (TLS) wherever falkordb:// goes."""

from __future__ import annotations

import json
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sgkr import KnowledgeGraph, Retriever, StoreError
from sgkr.errors import InvalidArgumentError
from sgkr.stores import is_store_url, open_store
from sgkr.stores.falkor import parse_url, push_graph

from ..falkordb_server import Server, free_port

pytestmark = [pytest.mark.falkordb, pytest.mark.server]
QUESTION = "What is the fee ID or IDs that apply to account_type = D and aci = F?"


@pytest.fixture(scope="module")
def graph_file(payments_graph: KnowledgeGraph,
               tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("urls") / "graph.json"
    payments_graph.save(out)
    return out


def _sgkr(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sgkr", *argv], capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_schemes_parse_alike() -> None:
    plain = parse_url("falkor://user:pw@db.example:7000/g?timeout=2")
    assert (plain.host, plain.port, plain.name, plain.username, plain.password, plain.tls) == (
        "db.example", 7000, "g", "user", "pw", False)
    assert parse_url("falkordb://db.example:7000/g").url == "falkordb://db.example:7000/g"
    secure = parse_url("falkors://db.example/g?ca=/etc/ca.pem")
    assert secure.tls and secure.ca == "/etc/ca.pem" and secure.url == "falkors://db.example:6379/g"
    with pytest.raises(InvalidArgumentError, match="ca is for falkors://"):
        parse_url("falkor://db.example/g?ca=/etc/ca.pem")
    assert all(is_store_url(u) for u in ("falkor://h/g", "falkors://h/g", "redis://h/g"))
    assert not is_store_url("graphs/falkor.json")
    with pytest.raises(InvalidArgumentError, match="scheme 'redis': expected falkor://"):
        open_store("redis://h:1/g")


def test_falkor_urls_through_the_cli(falkordb: Server, graph_file: Path) -> None:
    url = f"falkor://{falkordb.host}:{falkordb.port}/cli-falkor"
    pushed = _sgkr("push", str(graph_file), url, "--quiet")
    assert pushed.returncode == 0, pushed.stderr
    done = _sgkr("query", url, QUESTION, "--json", "--k", "4")
    assert done.returncode == 0, done.stderr
    expected = Retriever(KnowledgeGraph.load(graph_file), k=4).retrieve(QUESTION)
    assert [d["id"] for d in json.loads(done.stdout)["documents"]] == [
        d.id for d in expected.documents]


def test_an_unknown_scheme_is_not_read_as_a_file(graph_file: Path) -> None:
    done = _sgkr("query", "redis://127.0.0.1:1/g", QUESTION)
    assert done.returncode == 2
    assert "scheme 'redis'" in done.stderr and "cannot read graph file" not in done.stderr


@pytest.fixture(scope="module")
def tls_proxy(falkordb: Server, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[tuple[int, Path]]:
    """A TLS endpoint (a test CA's certificate for 127.0.0.1) in front of the test server.

    The bundled server is built without TLS: this proxy ends TLS and passes the bytes on.
    """
    trustme = pytest.importorskip("trustme")
    authority = trustme.CA()
    folder = tmp_path_factory.mktemp("tls")
    ca_file = folder / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    listener = socket.create_server(("127.0.0.1", free_port()))
    listener.settimeout(0.2)
    stop = threading.Event()

    def pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                s.close()

    def serve() -> None:
        while not stop.is_set():
            try:
                raw, _ = listener.accept()
            except OSError:
                continue
            try:
                client = context.wrap_socket(raw, server_side=True)
            except (OSError, ssl.SSLError):
                raw.close()
                continue
            upstream = socket.create_connection((falkordb.host, falkordb.port))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=pipe, args=(a, b), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], ca_file
    stop.set()
    thread.join(5)
    listener.close()


def test_falkors_connects_over_tls_and_checks_the_certificate(
        falkordb: Server, graph_file: Path, tls_proxy: tuple[int, Path]) -> None:
    port, ca_file = tls_proxy
    graph = KnowledgeGraph.load(graph_file)
    url = f"falkors://127.0.0.1:{port}/tls-graph?timeout=5&ca={ca_file}"
    assert push_graph(graph, url).url == f"falkors://127.0.0.1:{port}/tls-graph"
    got = Retriever(store=url, k=4).retrieve(QUESTION)
    assert [d.id for d in got.documents] == [
        d.id for d in Retriever(graph, k=4).retrieve(QUESTION).documents]
    # the same graph, read in the clear from the server behind the proxy
    assert Retriever(store=falkordb.url("tls-graph"), k=4).retrieve(QUESTION) == got
    # a certificate no trusted authority signed is refused, one line naming the URL
    with pytest.raises(StoreError, match=r"^graph store falkors://127\.0\.0\.1:\d+/tls-graph: "
                                         r".*certificate verify failed"):
        Retriever(store=f"falkors://127.0.0.1:{port}/tls-graph?timeout=5")
    # and a plain server does not speak TLS
    with pytest.raises(StoreError, match="graph store falkors://"):
        Retriever(store=f"falkors://{falkordb.host}:{falkordb.port}/tls-graph?timeout=2")
