"""``sgkr build --watch``: the graph file follows the sources as they change."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.build.incremental import GraphBuilder
from sgkr.cli import build as build_cli
from sgkr.cli import main


def test_watch_writes_the_graph_again_when_a_file_changes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "fees.py").write_text("def fee(amount):\n    return amount\n", encoding="utf-8")
    out = tmp_path / "graph.json"
    builder = GraphBuilder([src])
    builder.build().save(out)
    edits = iter([
        lambda: (src / "rates.py").write_text("def rate():\n    return 2\n", encoding="utf-8"),
        lambda: None,  # nothing changed: nothing written
    ])

    def batches() -> Iterator[set[str]]:
        for edit in edits:
            edit()
            yield {str(src)}

    build_cli.watch(builder, [str(src)], str(out), 0.5, changes=batches())
    saved = KnowledgeGraph.load(out)
    assert saved.to_dict() == build_graph([src]).to_dict()
    assert "fn:rates.rate" in saved
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 1 and "(0 changed, 1 added, 0 removed)" in printed[0]


def test_cli_watch_stops_cleanly_on_interrupt(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    out = tmp_path / "g.json"

    def interrupt(*_args: object) -> Iterator[set[str]]:
        raise KeyboardInterrupt
        yield set()

    monkeypatch.setattr(build_cli, "_changes", interrupt)
    assert main(["build", str(tmp_path), "-o", str(out), "--watch", "0.1", "--no-cache"]) == 0
    assert "fn:m.f" in KnowledgeGraph.load(out)
    assert "wrote" in capsys.readouterr().out


def test_watch_interval_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["build", ".", "--watch", "0"])
    assert exit_info.value.code == 2
    assert "expected a positive number" in capsys.readouterr().err


def test_watch_follows_changes_the_system_reports(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "fees.py").write_text("def fee(amount):\n    return amount\n", encoding="utf-8")
    out = tmp_path / "graph.json"
    builder = GraphBuilder([src], jobs=1)
    builder.build().save(out)
    watcher = threading.Thread(target=build_cli.watch, args=(builder, [str(src)], str(out), 0.1),
                               kwargs={"rounds": 1, "quiet": True}, daemon=True)
    watcher.start()
    deadline = time.monotonic() + 60
    turn = 0
    while watcher.is_alive() and time.monotonic() < deadline:  # until the watch is set up
        (src / "rates.py").write_text(f"def rate():\n    return {turn}\n", encoding="utf-8")
        turn += 1
        watcher.join(0.5)
    assert not watcher.is_alive()
    assert "fn:rates.rate" in KnowledgeGraph.load(out)
