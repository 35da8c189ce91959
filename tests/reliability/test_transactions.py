"""Updates are transactions (issue 41, class 2): a failed update loses nothing.

One failure is injected at each step of GraphBuilder.update; the update after it
makes the graph a fresh build of the files makes, and meanwhile the last good
graph is served. Every watch loop (sgkr build --watch, sgkr mcp --watch) goes
on after any failure of an update or a save, and tries again.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.agents.serving import Library, Snapshot
from sgkr.agents.watching import Sources, Watcher
from sgkr.build import assembly, batch, incremental
from sgkr.build import builder as build_module
from sgkr.build.incremental import GraphBuilder
from sgkr.cli import build as build_cli
from sgkr.cli import main
from sgkr.errors import SourceError

FILES = {
    "fees.py": "from rates import rate\n\ndef fee(amount):\n    '''The fee of an amount.'''\n"
               "    return rate() * amount\n",
    "rates.py": "def rate():\n    return 0.2\n",
    "old.py": "def gone(x):\n    return x\n",
}
EDITS = {
    "fees.py": "from rates import rate, floor\n\ndef fee(amount):\n    '''The fee, at least the"
               " floor.'''\n    return max(rate() * amount, floor())\n",
    "rates.py": "def rate():\n    return 0.3\n\ndef floor():\n    return 1\n",
    "new.py": "from fees import fee\n\ndef total(amounts):\n    return sum(fee(a) for a in "
              "amounts)\n",
}


def _tree(root: Path) -> Path:
    src = root / "src"
    src.mkdir()
    for name, text in FILES.items():
        (src / name).write_text(text)
    return src


def _edit(src: Path) -> None:
    for name, text in EDITS.items():
        (src / name).write_text(text)
    (src / "old.py").unlink()


class Injected(Exception):
    """The failure a test injects."""


def _failing(real: Callable[..., Any]) -> Callable[..., Any]:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise Injected("injected")
    return fail


# Each step an update goes through: where a failure is injected.
STEPS = [
    (incremental, "read_source"),
    (incremental, "extract_files"),
    (assembly.Assembly, "_resolve_again"),
    (assembly.Assembly, "_merge_again"),
    (assembly.Assembly, "_dirty"),
    (assembly.Assembly, "_apply"),
    (assembly.Assembly, "_recall"),
    (assembly.Assembly, "_retag"),
    (assembly.Assembly, "_relabel"),
    (assembly, "report"),
]


@pytest.mark.parametrize(("owner", "name"), STEPS, ids=[n for _, n in STEPS])
def test_an_update_that_fails_at_any_step_loses_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> None:
    # Issue 41, H2: the new texts were recorded before they were extracted, so after a
    # failure the retry saw no change and the edit was lost for good.
    src = _tree(tmp_path)
    builder = GraphBuilder([src], jobs=1)
    before = builder.build().to_dict()
    _edit(src)
    with monkeypatch.context() as patch:
        patch.setattr(owner, name, _failing(getattr(owner, name)))
        with pytest.raises(Injected):
            builder.update()
    assert builder.graph.to_dict() == before  # the last good graph is still the one served
    assert builder.update().to_dict() == build_graph([src], jobs=1).to_dict()


def test_a_rebuild_that_fails_after_a_failed_patch_loses_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path)
    builder = GraphBuilder([src], jobs=1)
    builder.build()
    _edit(src)
    with monkeypatch.context() as patch:
        patch.setattr(assembly.Assembly, "_apply", _failing(assembly.Assembly._apply))
        patch.setattr(assembly.Assembly, "add", _failing(assembly.Assembly.add))
        for _ in range(2):
            with pytest.raises(Injected):
                builder.update()
    (src / "later.py").write_text("def later():\n    return 1\n")
    assert builder.update().to_dict() == build_graph([src], jobs=1).to_dict()


def _killed(files: Any) -> Any:
    os._exit(9)  # as the out-of-memory killer ends a process


def test_a_killed_parsing_process_loses_nothing(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 41, H2 (b): a parsing worker killed: BrokenProcessPool, and the graph stayed at
    # 80 functions against 161 in a fresh build.
    src = _tree(tmp_path)
    builder = GraphBuilder([src], jobs=2)
    builder.build()
    _edit(src)
    with monkeypatch.context() as patch:
        patch.setattr(batch, "_parse", _killed)
        with pytest.raises(SourceError, match="a process parsing the sources died"):
            builder.update()
    assert builder.update().to_dict() == build_graph([src], jobs=1).to_dict()


def test_a_build_whose_parsing_process_is_killed_fails_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    src = _tree(tmp_path)
    monkeypatch.setattr(batch, "_parse", _killed)
    assert main(["build", str(src), "-o", str(tmp_path / "g.json"), "--jobs", "2",
                 "--no-cache"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a process parsing the sources died" in err


# -- sgkr build --watch ----------------------------------------------------------------


def _batches(*steps: Callable[[], object]) -> Iterator[set[str]]:
    """A batch after each step (an empty batch: nothing changed, the watch tries again)."""
    for step in steps:
        if step() is not False:
            yield {"changed"}
        else:
            yield set()


def test_build_watch_survives_a_cache_folder_that_is_briefly_a_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 41, H2 (a): "trying again after the next change", but graph.json kept a_old
    # while the source defined a_new, for good.
    src = _tree(tmp_path)
    cache, out = tmp_path / "cache", tmp_path / "graph.json"
    builder = GraphBuilder([src], jobs=1, cache=cache)
    builder.build().save(out)

    def break_cache() -> None:
        shutil.rmtree(cache)
        cache.write_text("not a folder")
        _edit(src)

    def mend_cache() -> bool:
        cache.unlink()
        return False

    build_cli.watch(builder, [str(src)], str(out), 0.1,
                    changes=_batches(break_cache, mend_cache))
    assert KnowledgeGraph.load(out).to_dict() == build_graph([src], jobs=1).to_dict()
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("breaks", ["folder", "size limit"])
def test_build_watch_survives_a_failed_save_and_saves_later(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], breaks: str) -> None:
    # Issue 41, M9: --watch exited (status 6) when the save failed (a disk full through a
    # file-size limit, graph.json replaced by a folder).
    import resource
    import signal

    src = _tree(tmp_path)
    out = tmp_path / "graph.json"
    builder = GraphBuilder([src], jobs=1)
    builder.build().save(out)
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write fails, as disk full

    def break_save() -> None:
        _edit(src)
        if breaks == "folder":
            out.unlink()
            out.mkdir()
        else:
            resource.setrlimit(resource.RLIMIT_FSIZE, (100, limit[1]))

    def mend_save() -> bool:
        if breaks == "folder":
            out.rmdir()
        else:
            resource.setrlimit(resource.RLIMIT_FSIZE, limit)
        return False

    try:
        build_cli.watch(builder, [str(src)], str(out), 0.1,
                        changes=_batches(break_save, lambda: False, mend_save))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
        signal.signal(signal.SIGXFSZ, previous)
    assert KnowledgeGraph.load(out).to_dict() == build_graph([src], jobs=1).to_dict()
    err = capsys.readouterr().err
    assert err.count("sgkr: warning:") == 1 and "Traceback" not in err


# -- sgkr mcp --watch ------------------------------------------------------------------


def _served(library: Library) -> int:
    return int(library.current.summary()["functions"])


def _until(check: Callable[[], bool], seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_mcp_watch_serves_every_rebuild_of_a_graph_file(tmp_path: Path) -> None:
    # Issue 41, M8: the atomic rename replaced the watched file: after rebuilds with 3 and 4
    # functions, 2 were still served.
    path = tmp_path / "out" / "graph.json"

    def graph(n: int) -> KnowledgeGraph:
        return build_graph([("m.py", "".join(f"def f{i}():\n    return {i}\n"
                                             for i in range(n)))])

    graph(2).save(path)
    sources = Sources([path], graph=True)
    library = Library(Snapshot.of(sources.build()))
    watcher = Watcher(library, sources, say=lambda _: None)
    watcher.start()
    try:
        time.sleep(0.5)  # the watch is set up
        for n in (3, 4, 5):
            graph(n).save(path)
            assert _until(lambda n=n: _served(library) == n), (n, _served(library))
    finally:
        watcher.stop()


def test_mcp_watch_keeps_serving_through_any_failure_and_retries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path)
    said: list[str] = []
    sources = Sources([src], jobs=1)
    library = Library(Snapshot.of(sources.build()))
    first = library.current
    watcher = Watcher(library, sources, say=said.append)
    _edit(src)
    with monkeypatch.context() as patch:
        patch.setattr(assembly.Assembly, "_apply", _failing(assembly.Assembly._apply))
        assert not watcher.apply({str(src / "fees.py")})
    assert library.current is first and len(said) == 1 and "Injected" in said[0]
    assert watcher.apply(set())  # the retry, with no new change
    assert library.current.retriever.graph.to_dict() == build_graph([src], jobs=1).to_dict()


def test_mcp_watch_owes_a_rebuild_after_a_side_file_change_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    src = _tree(tmp_path)
    knowledge = tmp_path / "knowledge.json"
    knowledge.write_text(json.dumps({"functions": {"fee": {"inputs": ["amount"]}}}))
    sources = Sources([src], knowledge=knowledge, jobs=1)
    library = Library(Snapshot.of(sources.build()))
    watcher = Watcher(library, sources, say=lambda _: None)
    knowledge.write_text(json.dumps({"functions": {"fee": {"outputs": ["card fee"]}}}))
    with monkeypatch.context() as patch:  # a new build fails, wherever it extracts
        patch.setattr(incremental, "extract_files", _failing(incremental.extract_files))
        patch.setattr(build_module, "extract_files", _failing(build_module.extract_files))
        assert not watcher.apply({str(knowledge)})
    assert watcher.apply(set())
    assert library.current.names().resolve("card fee") == ["tag:card fee"]


@pytest.mark.slow
def test_the_mcp_watch_thread_retries_without_a_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sgkr.agents import watching

    monkeypatch.setattr(watching, "RETRY_SECONDS", 0.2)
    src = _tree(tmp_path)
    sources = Sources([src], jobs=1)
    library = Library(Snapshot.of(sources.build()))
    watcher = Watcher(library, sources, say=lambda _: None)
    broken = threading.Event()
    real = assembly.Assembly._apply

    def apply_once_broken(self: Any, *args: Any) -> Any:
        if not broken.is_set():
            broken.set()
            raise Injected("injected")
        return real(self, *args)

    monkeypatch.setattr(assembly.Assembly, "_apply", apply_once_broken)
    watcher.start()
    try:
        time.sleep(0.5)
        _edit(src)
        assert _until(lambda: "fn:new.total" in library.current.retriever.graph)
    finally:
        watcher.stop()
    assert broken.is_set()
    assert library.current.retriever.graph.to_dict() == build_graph([src], jobs=1).to_dict()
