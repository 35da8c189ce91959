"""A build with a cache resolves again only what a change can reach, and equals a fresh build."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import sgkr.build.builder as builder_module
from sgkr import build_graph
from sgkr.build.reuse import BuildCalls
from sgkr.graph import KnowledgeGraph
from sgkr.ingest.cache import DATABASE, cache_key

from .test_incremental import EDITS, FILES, Edit, _append, _write


def _resolutions(monkeypatch: pytest.MonkeyPatch) -> list[BuildCalls]:
    """The resolutions the builds make from now on, in order."""
    made: list[BuildCalls] = []
    real = builder_module.resolve

    def spy(*args: Any) -> BuildCalls:
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(builder_module, "resolve", spy)
    return made


def _same(graph: KnowledgeGraph, fresh: KnowledgeGraph) -> None:
    assert graph.to_dict() == fresh.to_dict()
    assert graph.report is not None and fresh.report is not None
    assert graph.report.problems == fresh.report.problems


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_a_build_after_an_edit_equals_a_fresh_build(tmp_path: Path, edit: Edit,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    src, cache = tmp_path / "src", tmp_path / "cache"
    _write(src, FILES)
    options: dict[str, Any] = {"root": src, "jobs": 1, "infer_tags": True}
    build_graph([src], cache=cache, **options)
    edit(src)
    made = _resolutions(monkeypatch)
    graph = build_graph([src], cache=cache, **options)
    _same(graph, build_graph([src], **options))
    # The modules the edit cannot reach keep their calls (a touched file changes nothing).
    assert len(made[0].redone) < len(FILES)


def test_only_the_modules_a_change_reaches_are_resolved_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, FILES)
    made = _resolutions(monkeypatch)
    cache = tmp_path / "cache"
    build_graph([tmp_path], root=tmp_path, jobs=1, cache=cache)
    assert len(made[-1].redone) == len(FILES)
    build_graph([tmp_path], root=tmp_path, jobs=1, cache=cache)
    assert made[-1].redone == frozenset()
    _append(tmp_path, "util.py", "\ndef unused_helper(x):\n    return x\n")
    graph = build_graph([tmp_path], root=tmp_path, jobs=1, cache=cache)
    # handlers.py imports util (for a reference): it is resolved again, as in an update.
    assert made[-1].redone == {"util", "handlers"}
    _same(graph, build_graph([tmp_path], root=tmp_path, jobs=1))


@pytest.mark.parametrize("spoil", ["entries", "signatures"])
def test_without_the_old_versions_or_a_signed_record_everything_is_resolved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spoil: str) -> None:
    src, cache = tmp_path / "src", tmp_path / "cache"
    _write(src, FILES)
    build_graph([src], root=src, jobs=1, cache=cache)
    with sqlite3.connect(cache / DATABASE) as db:
        if spoil == "entries":  # the extractions gone, the kept resolution left
            db.executemany("DELETE FROM entries WHERE key = ?",
                           [(cache_key(rel, text),) for rel, text in FILES.items()])
        else:
            rows = db.execute("SELECT key, data FROM records").fetchall()
            db.executemany("UPDATE records SET data = ? WHERE key = ?",
                           [(bytes([d[0] ^ 1]) + d[1:], k) for k, d in rows])
    _append(src, "util.py", "\ndef unused_helper(x):\n    return x\n")
    made = _resolutions(monkeypatch)
    graph = build_graph([src], root=src, jobs=1, cache=cache)
    assert len(made[-1].redone) == len(FILES)
    _same(graph, build_graph([src], root=src, jobs=1))
