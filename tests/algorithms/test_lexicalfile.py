"""The persisted lexical index: read back equal, stale ones ignored, malformed ones refused."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.algorithms import lexicalfile, summary
from sgkr.algorithms.lexical import LexicalIndex, attached, index_of
from sgkr.algorithms.lexicalfile import (
    index_path,
    load_graph,
    read_index,
    save_graph,
    write_index,
)
from sgkr.errors import GraphFormatError
from sgkr.graph.jsonfile import write_document
from sgkr.records import TagNode
from sgkr.stores import MemoryStore

from .npzfiles import rewrite

CODE = ("def set_timeout(request, seconds):\n    request.timeout = seconds\n"
        "def get_cookie(jar, name):\n    return jar.get(name)\n")


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, object]:
    graph = build_graph([("m.py", CODE)])
    path = index_path(tmp_path / "graph.json")
    write_index(LexicalIndex(graph), path)
    return path, graph


def test_an_index_reads_back_equal(written: tuple[Path, object]) -> None:
    path, graph = written
    made, read = LexicalIndex(graph), read_index(path, graph)  # type: ignore[arg-type]
    assert read is not None
    for question in ("timeout of a request", "cookie jar", "nothing here"):
        assert read.scores(question) == made.scores(question)
        assert read.search(question, 5) == made.search(question, 5)


def test_an_index_of_other_functions_is_not_used(written: tuple[Path, object]) -> None:
    path, _ = written
    changed = build_graph([("m.py", CODE.replace("seconds", "secs"))])
    assert read_index(path, changed) is None


@pytest.mark.parametrize(("change", "message"), [
    ({"indices": np.array([0, 99, 0, 1], dtype=np.int32)}, "names no indexed function"),
    ({"data": np.array([np.nan] * 4, dtype=np.float32)}, "finite"),
    ({"indptr": np.array([0, 1], dtype=np.int64)}, "do not match the words"),
    ({"data": np.zeros(4, dtype=np.float64)}, "float32"),
    ({"extra": np.zeros(1)}, "not a lexical index"),
    ({"header": np.frombuffer(b"{not json", dtype=np.uint8)}, "header is not JSON"),
    ({"lengths": np.zeros(2, dtype=np.int64)}, "lengths do not match"),
])
def test_a_malformed_index_is_refused_naming_the_file(
        written: tuple[Path, object], change: dict[str, object], message: str) -> None:
    path, graph = written
    with zipfile.ZipFile(path) as archive:
        sizes = {i.filename: i.file_size for i in archive.infolist()}
    if "indices" in change:  # keep the length, point out of range
        n = sizes["indices.npy"] - 128
        change = {"indices": np.resize(change["indices"], n // 4)}  # type: ignore[arg-type]
    if "data" in change and change["data"].dtype == np.float32:  # type: ignore[union-attr]
        n = (sizes["data.npy"] - 128) // 4
        change = {"data": np.full(n, np.nan, dtype=np.float32)}
    rewrite(path, **change)
    with pytest.raises(GraphFormatError, match=message) as raised:
        read_index(path, graph)  # type: ignore[arg-type]
    assert str(path) in str(raised.value)


def test_garbage_pickles_and_compression_are_refused(written: tuple[Path, object]) -> None:
    path, graph = written
    path.write_bytes(b"not a zip at all")
    with pytest.raises(GraphFormatError, match="not a lexical index"):
        read_index(path, graph)  # type: ignore[arg-type]
    buffer = io.BytesIO()
    np.savez(buffer, header=np.array([{"a": 1}], dtype=object), indptr=np.zeros(1),
             indices=np.zeros(1), data=np.zeros(1), lengths=np.zeros(1))
    path.write_bytes(buffer.getvalue())
    with pytest.raises(GraphFormatError, match="not a lexical index"):
        read_index(path, graph)  # type: ignore[arg-type]
    buffer = io.BytesIO()
    np.savez_compressed(buffer, header=np.zeros(1, dtype=np.uint8), indptr=np.zeros(1),
                        indices=np.zeros(1), data=np.zeros(1), lengths=np.zeros(1))
    path.write_bytes(buffer.getvalue())
    with pytest.raises(GraphFormatError, match="compressed"):
        read_index(path, graph)  # type: ignore[arg-type]
    with pytest.raises(GraphFormatError, match="cannot read"):
        read_index(path.with_name("missing.npz"), graph)  # type: ignore[arg-type]


def test_the_index_lives_beside_its_graph() -> None:
    assert index_path("a/graph.json") == Path("a/graph.lexical.npz")
    assert index_path("a/std") == Path("a/std.lexical.npz")


def test_a_graph_saved_with_its_index_loads_it(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    graph = build_graph([("m.py", CODE)])
    save_graph(graph, tmp_path / "graph.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.json", "graph.lexical.npz"]

    def refuse(*args: object) -> None:
        raise AssertionError("the index was made again instead of read")

    monkeypatch.setattr(LexicalIndex, "__init__", refuse)
    loaded = load_graph(tmp_path / "graph.json")
    assert index_of(loaded).search("timeout", 1) == [("fn:m.set_timeout", 1.0)]


def test_a_bad_index_is_reported_and_made_again(tmp_path: Path) -> None:
    graph = build_graph([("m.py", CODE)])
    save_graph(graph, tmp_path / "graph.json")
    (tmp_path / "graph.lexical.npz").write_bytes(b"garbage")
    said: list[str] = []
    loaded = load_graph(tmp_path / "graph.json", warn=said.append)
    assert len(said) == 1 and "graph.lexical.npz" in said[0] and "made again" in said[0]
    assert index_of(loaded).search("timeout", 1) == [("fn:m.set_timeout", 1.0)]
    # An index of another graph is not used: the graph's own is made.
    other = build_graph([("m.py", CODE.replace("timeout", "deadline"))])
    save_graph(other, tmp_path / "other.json")
    (tmp_path / "other.lexical.npz").replace(tmp_path / "graph.lexical.npz")
    assert index_of(load_graph(tmp_path / "graph.json")).search("timeout", 1)[0][0] \
        == "fn:m.set_timeout"


def _core(path: Path) -> Any:
    return Retriever(KnowledgeGraph.load(path), k=2)


def _llama(path: Path) -> Any:
    llama = pytest.importorskip("llama_index_sgkr")
    folder = path.parent / "persisted"
    llama.SGKRRetriever.from_defaults(graph_path=path, similarity_top_k=2).persist(folder)
    return llama.SGKRRetriever.from_persist_dir(folder).sgkr_retriever


def _langchain(path: Path) -> Any:
    langchain = pytest.importorskip("langchain_sgkr")
    return Retriever(langchain.SGKRRetriever.from_graph_file(path, k=2).graph, k=2)


def _mcp(path: Path) -> Any:
    from sgkr.agents.watching import Sources

    return Retriever(Sources([path], graph=True).build(), k=2)


@pytest.mark.parametrize("open_", [_core, _llama, _langchain, _mcp])
def test_a_loaded_graph_makes_no_tables_for_its_first_question(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_: Any) -> None:
    # Issue 42: the documented path, KnowledgeGraph.load then Retriever, ignored the index
    # and summary saved with the graph (3.45 s on the stdlib's first question); graph.save
    # did not write them. The adapters and MCP load through it too.
    graph = build_graph([("m.py", CODE)])
    graph.add_tag(TagNode("tag:timeout", "timeout"))
    graph.add_edge_rows([("fn:m.set_timeout", "tag:timeout", "produces", None)])
    graph.save(tmp_path / "graph.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.json", "graph.lexical.npz"]
    expected = Retriever(graph, k=2).retrieve("set the timeout")

    def refuse(*args: object) -> None:
        raise AssertionError("a table was made again instead of read")

    monkeypatch.setattr(summary, "summarize", refuse)
    monkeypatch.setattr(LexicalIndex, "__init__", refuse)
    monkeypatch.setattr(lexicalfile, "fingerprint", refuse)  # the file's digest vouches
    assert open_(tmp_path / "graph.json").retrieve("set the timeout") == expected


def test_a_graph_loads_without_its_index_when_asked(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    build_graph([("m.py", CODE)]).save(tmp_path / "graph.json")

    def refuse(*args: object) -> None:
        raise AssertionError("the index was read")

    monkeypatch.setattr(lexicalfile.LEXICAL_FILE, "read", refuse)
    graph = KnowledgeGraph.load(tmp_path / "graph.json", index=False)
    assert attached(graph) is None


def test_a_summary_is_used_only_with_the_graph_file_it_was_saved_with(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = build_graph([("m.py", CODE)])
    save_graph(graph, tmp_path / "graph.json")
    graph.add_tag(TagNode("tag:cookie jar", "cookie jar"))
    write_document(graph.to_dict(), tmp_path / "graph.json")  # its index left as it was
    made: list[object] = []
    real = summary.summarize
    monkeypatch.setattr(summary, "summarize", lambda g: made.append(g) or real(g))
    loaded = load_graph(tmp_path / "graph.json")
    assert "cookie jar" in MemoryStore(loaded).phrase_tags(["cookie jar"])
    assert made == [loaded]
    # The functions did not change: the index is still the graph's, and used.
    assert index_of(loaded).search("timeout", 1) == [("fn:m.set_timeout", 1.0)]


def test_a_malformed_summary_is_reported_and_made_again(tmp_path: Path) -> None:
    graph = build_graph([("m.py", CODE)])
    path = tmp_path / "graph.json"
    save_graph(graph, path)
    header = json.loads(_member(index_path(path), "header").tobytes())
    header["summary"]["calling"] = -1
    _replace_member(index_path(path), "header",
                    np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    said: list[str] = []
    loaded = load_graph(path, warn=said.append)
    assert len(said) == 1 and "calling must count" in said[0] and "made again" in said[0]
    assert Retriever(loaded, k=1).retrieve("set timeout").documents[0].id \
        == "fn:m.set_timeout"


def _member(path: Path, name: str) -> Any:
    with zipfile.ZipFile(path) as archive:
        return np.lib.format.read_array(archive.open(f"{name}.npy"), allow_pickle=False)


def _replace_member(path: Path, name: str, array: Any) -> None:
    with zipfile.ZipFile(path) as archive:
        arrays = {i.filename[:-4]: np.lib.format.read_array(archive.open(i),
                                                             allow_pickle=False)
                  for i in archive.infolist()}
    arrays[name] = array
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def test_an_archive_written_into_its_file_is_numpys_own(tmp_path: Path) -> None:
    from sgkr.algorithms.npz import write_npz

    arrays = {"header": np.frombuffer(b'{"a": 1}', dtype=np.uint8),
              "n": np.arange(100_000, dtype=np.int64), "x": np.linspace(0, 1, 7, dtype=np.float32)}
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    assert write_npz(tmp_path / "x.npz", arrays).read_bytes() == buffer.getvalue()
    assert [p.name for p in tmp_path.iterdir()] == ["x.npz"]
