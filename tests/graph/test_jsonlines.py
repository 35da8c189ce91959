"""A graph an update made is saved again encoding only the lines of what changed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from sgkr.build import build_graph
from sgkr.build.incremental import GraphBuilder
from sgkr.graph import jsonfile, jsonlines
from sgkr.graph.model import KnowledgeGraph


def _sources(folder: Path) -> None:
    for n in range(6):
        (folder / f"m{n}.py").write_text("".join(
            f"def fetch_{n}_{k}(session, url):\n    return helper_{n}(session.get(url, {k}))\n"
            for k in range(3)) + f"def helper_{n}(x):\n    return x\n")


def _plain(graph: KnowledgeGraph, path: Path) -> bytes:
    jsonfile.write_graph(graph.meta, sorted(graph.records(), key=lambda r: r.id),
                         graph.edge_rows(), path, graph.tasks)
    return path.read_bytes()


def test_saves_after_updates_write_the_bytes_of_a_plain_write_encoding_what_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    _sources(src)
    builder = GraphBuilder([src], infer_tags=True, jobs=1)
    first = builder.build()
    first.save(out / "graph.json")
    kept = jsonlines.lines_of(first)  # a builder's graph keeps its lines from its first save
    assert kept is not None and len(kept.nodes) == len(first)
    encoded: list[str] = []
    real = jsonfile.node_line
    monkeypatch.setattr(jsonfile, "node_line", lambda r: encoded.append(r.id) or real(r))
    for round_ in range(3):
        (src / "m2.py").write_text((src / "m2.py").read_text()
                                   + f"def added_{round_}(x):\n    return helper_2(x)\n")
        graph = builder.update()
        encoded.clear()
        graph.save(out / "graph.json")
        saved = list(encoded)
        assert (out / "graph.json").read_bytes() == _plain(graph, tmp_path / "plain.json")
        # Each save, the first after the build's included, encodes what changed.
        assert f"fn:m2.added_{round_}" in saved and len(saved) < len(graph) // 2, saved
    digest = hashlib.sha256((out / "graph.json").read_bytes()).hexdigest()
    assert KnowledgeGraph.load(out / "graph.json").stats() == graph.stats()
    assert digest == hashlib.sha256(_plain(graph, tmp_path / "again.json")).hexdigest()


def test_a_graph_neither_copied_nor_a_builders_keeps_no_lines(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    _sources(src)
    graph = build_graph([src], jobs=1)
    graph.save(tmp_path / "graph.json")
    assert jsonlines.lines_of(graph) is None  # a one-off build holds none of its file
