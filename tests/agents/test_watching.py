"""Sources built on start and again as they change; a failed update keeps the last graph."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from sgkr import build_graph
from sgkr.agents.serving import Library, Snapshot
from sgkr.agents.watching import Sources, Watcher


def _library(sources: Sources) -> tuple[Library, Watcher, list[str]]:
    said: list[str] = []
    library = Library(Snapshot.of(sources.build()))
    return library, Watcher(library, sources, say=said.append), said


def test_a_knowledge_file_that_changes_builds_again(tmp_path: Path) -> None:
    (tmp_path / "fees.py").write_text("def fee(amount):\n    return amount\n")
    knowledge = tmp_path / "knowledge.json"
    knowledge.write_text(json.dumps({"functions": {"fee": {"inputs": ["amount"]}}}))
    library, watcher, said = _library(Sources([tmp_path / "fees.py"], knowledge=knowledge))
    knowledge.write_text(json.dumps({"functions": {"fee": {"outputs": ["card fee"]}}}))
    assert watcher.apply({str(knowledge)})
    assert library.current.names().resolve("card fee") == ["tag:card fee"]
    assert said == ["graph updated; functions: 1"]


def test_nothing_changed_keeps_the_snapshot(tmp_path: Path) -> None:
    (tmp_path / "fees.py").write_text("def fee(amount):\n    return amount\n")
    library, watcher, _ = _library(Sources([tmp_path]))
    first = library.current
    assert not watcher.apply({str(tmp_path / "notes.txt")}) and library.current is first


def test_a_failed_update_keeps_the_last_graph_and_says_so_once(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "fees.py").write_text("def fee(amount):\n    return amount\n")
    library, watcher, said = _library(Sources([src]))
    first = library.current
    shutil.rmtree(src)  # a checkout in progress
    assert not watcher.apply({str(src)}) and not watcher.apply({str(src)})
    assert library.current is first and len(said) == 1 and "still serving" in said[0]
    src.mkdir()
    (src / "fees.py").write_text("def fee(amount):\n    return rate()\ndef rate():\n    return 1\n")
    assert watcher.apply({str(src / "fees.py")})
    assert library.current.names().resolve("rate") == ["fn:fees.rate"]


def test_a_graph_file_is_loaded_again(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    build_graph([("m.py", "def f():\n    return 1\n")]).save(path)
    library, watcher, _ = _library(Sources([path], graph=True))
    build_graph([("m.py", "def g():\n    return 1\n")]).save(path)
    assert watcher.apply({str(path)})
    assert library.current.names().resolve("g") == ["fn:m.g"]


def test_the_watcher_follows_changes_until_stopped(tmp_path: Path) -> None:
    (tmp_path / "fees.py").write_text("def fee(amount):\n    return amount\n")
    library, watcher, _ = _library(Sources([tmp_path]))
    first = library.current
    watcher.start()
    try:
        time.sleep(0.5)  # the watch is set up
        (tmp_path / "rates.py").write_text("def rate():\n    return 0.2\n")
        deadline = time.monotonic() + 60
        while library.current is first and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        watcher.stop()
    assert library.current.names().resolve("rate") == ["fn:rates.rate"]


@pytest.mark.parametrize("paths", [[], ["missing-folder"]])
def test_sources_that_cannot_be_built_say_why(tmp_path: Path, paths: list[str]) -> None:
    from sgkr.errors import SourceError

    with pytest.raises(SourceError):
        Sources([tmp_path / p for p in paths]).build()
