"""Snapshots are ready before the first request; a library swaps them whole."""

from __future__ import annotations

import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.agents.serving import Library, Snapshot


def test_a_snapshot_makes_every_table_before_the_first_request(
        payments_graph: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = Snapshot.of(payments_graph)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a table was made while answering")

    import sgkr.algorithms.lexical
    import sgkr.algorithms.paths
    import sgkr.algorithms.summary

    monkeypatch.setattr(sgkr.algorithms.lexical, "LexicalIndex", refuse)
    monkeypatch.setattr(sgkr.algorithms.paths, "_table", refuse)
    monkeypatch.setattr(sgkr.algorithms.summary, "summarize", refuse)
    monkeypatch.setattr(sgkr.algorithms.summary.PhraseWords, "of", refuse)
    # Words of no tag phrase, read by the partial matcher; then a question of tags.
    assert snapshot.retriever.retrieve("How are card schemes and merchant accounts priced?")
    result = snapshot.retriever.retrieve("What is the fee of a transaction for a merchant?")
    assert result.documents
    assert snapshot.names().suggest("calculate_fe")
    snapshot.reader.find_paths(*[[t.id] for t in list(payments_graph.tags())[:2]],
                               max_depth=3, max_paths=2, reverse_calls=False)


def test_a_request_keeps_the_snapshot_it_started_with() -> None:
    old = Snapshot.of(build_graph([("m.py", "def f():\n    return 1\n")]))
    library = Library(old)
    running = library.current
    library.replace(Snapshot.of(build_graph([("m.py", "def g():\n    return 1\n")])))
    assert running is old and library.current is not old
    assert running.token != library.current.token
    assert running.names().resolve("f") == ["fn:m.f"]
