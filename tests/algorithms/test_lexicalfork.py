"""A build's lexical index counted in a forked process: the same index, or none at all."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

import numpy as np
import pytest

from sgkr import build_graph
from sgkr.algorithms import lexicalfork
from sgkr.algorithms.lexical import LexicalIndex, attached, indexed
from sgkr.algorithms.lexicalfile import index_path
from sgkr.cli import main
from sgkr.errors import InvalidArgumentError
from sgkr.graph.model import KnowledgeGraph

REQUESTS = Path(__file__).resolve().parents[2] / "examples" / "requests" / "src"

pytestmark = pytest.mark.skipif(not lexicalfork.FORKS,
                                reason="the index is counted in a fork on Linux only")


@pytest.fixture(autouse=True)
def alone(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads other tests leave running (tqdm's monitor) do not stop the fork here."""
    if "threads" not in request.node.name:
        monkeypatch.setattr(lexicalfork, "_alone", lambda: True)


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return build_graph([str(REQUESTS)], infer_tags=False, cache=None)


def _same(a: LexicalIndex, b: LexicalIndex) -> None:
    assert (a.ids, a.words, a.fingerprint) == (b.ids, b.words, b.fingerprint)
    for name in ("indptr", "indices", "data", "lengths"):
        found, made = getattr(a, name), getattr(b, name)
        assert found.dtype == made.dtype and np.array_equal(found, made)


def test_the_index_counted_in_a_fork_is_the_one_counted_here(graph: KnowledgeGraph) -> None:
    pending = lexicalfork.count_later(indexed(graph), minimum=1)
    assert pending.attach(graph)
    found = attached(graph)
    assert found is not None
    _same(found, LexicalIndex(graph))
    # It can be patched after an update, as one made here.
    nodes = indexed(graph)
    changed = replace(nodes[0], code=nodes[0].code + "\n    refresh_session_token()\n")
    copy = graph.copy()
    copy.add_function(changed)
    patched = found.patched(copy)
    assert patched is not None
    _same(patched, LexicalIndex(copy))


def test_a_function_changed_after_the_fork_is_not_counted_stale(graph: KnowledgeGraph) -> None:
    copy = graph.copy()
    nodes = indexed(copy)
    pending = lexicalfork.count_later(nodes, minimum=1)
    copy.add_function(replace(nodes[0], code=nodes[0].code + "\n    other()\n"))
    assert not pending.attach(copy)
    assert attached(copy) is None


def test_nothing_is_forked_below_the_minimum_or_beside_other_threads(
        graph: KnowledgeGraph) -> None:
    small = lexicalfork.count_later(indexed(graph), minimum=10**9)
    assert not small.attach(graph.copy())
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        pending = lexicalfork.count_later(indexed(graph), minimum=1)
        assert pending._process is None and not pending.attach(graph.copy())
    finally:
        stop.set()
        other.join()


def test_a_counting_process_that_fails_leaves_the_index_to_the_save(
        graph: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    def fails(nodes: object) -> NoReturn:
        raise MemoryError  # in the child: it ends quietly, the parent reads no counts

    monkeypatch.setattr(lexicalfork, "counted", fails)
    copy = graph.copy()
    pending = lexicalfork.count_later(indexed(copy), minimum=1)
    assert not pending.attach(copy)
    assert attached(copy) is None
    assert capfd.readouterr().err == ""
    with pytest.raises(InvalidArgumentError, match="KnowledgeGraph"):
        pending.attach("graph.json")  # type: ignore[arg-type]


def test_sgkr_build_writes_the_same_files_with_the_index_counted_in_a_fork(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written = []
    attached_: list[bool] = []
    attach = lexicalfork.Pending.attach

    def noted(self: lexicalfork.Pending, g: KnowledgeGraph) -> bool:
        attached_.append(attach(self, g))
        return attached_[-1]

    monkeypatch.setattr(lexicalfork.Pending, "attach", noted)
    for minimum in (10**9, 1):
        monkeypatch.setattr(lexicalfork, "MIN_FORKED", minimum)
        out = tmp_path / f"{minimum}" / "graph.json"
        assert main(["build", str(REQUESTS), "--no-cache", "--quiet", "-o", str(out)]) == 0
        written.append((out.read_bytes(), index_path(out).read_bytes()))
    assert attached_ == [False, True]
    assert written[0] == written[1]
