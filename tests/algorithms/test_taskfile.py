"""The solved tasks' index saved with its graph: read back and used, others made again."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.algorithms import neighbours
from sgkr.algorithms.taskfile import task_index_of, tasks_path
from sgkr.tags import Example

from .npzfiles import rewrite

LOAD = "def load():\n    return []\n"
EXAMPLES = [
    Example("1", "What is the average fee of card scheme NexPay?", "s/t1.py",
            LOAD + "def average_fee(r):\n    return 1\nprint(average_fee(load()))\n", (), ()),
    Example("2", "Which merchant had the most fraudulent disputes?", "s/t2.py",
            LOAD + "def fraud(r):\n    return 2\nprint(fraud(load()))\n", (), ()),
    Example("3", "What is the average fee of card scheme GlobalCard?", "s/t3.py",
            LOAD + "def average_fee(r):\n    return 3\nprint(average_fee(load()))\n", (), ())]
QUESTIONS = ("the average fee of SwiftCharge", "fraudulent disputes of a merchant", "nothing")


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "graph.json"
    build_graph([], examples=EXAMPLES).save(path)
    return path


def _answers(graph: KnowledgeGraph) -> list[list[tuple[str, float]]]:
    return [[(d.id, d.score) for d in Retriever(graph).retrieve(q).documents]
            for q in QUESTIONS]


def test_the_index_is_saved_and_used_as_it_was_made(saved: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert tasks_path(saved).is_file()
    made = build_graph([], examples=EXAMPLES)
    expected = _answers(made)
    fresh = task_index_of(made)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the saved index was made again")

    monkeypatch.setattr(neighbours.TaskIndex, "__init__", refuse)
    loaded = KnowledgeGraph.load(saved)
    index = task_index_of(loaded)
    assert _answers(loaded) == expected
    for question in QUESTIONS:
        assert index.neighbours(question, 3) == fresh.neighbours(question, 3)
        assert index.asked(question) == fresh.asked(question)
    assert index.members_of == fresh.members_of


def test_a_graph_without_tasks_writes_none(tmp_path: Path) -> None:
    build_graph([("m.py", LOAD)]).save(tmp_path / "graph.json")
    assert not tasks_path(tmp_path / "graph.json").exists()


def test_the_index_of_another_graph_file_is_not_used(saved: Path, tmp_path: Path) -> None:
    other = tmp_path / "other" / "graph.json"
    other.parent.mkdir()
    graph = build_graph([], examples=EXAMPLES[:2])
    graph.save(other)
    tasks_path(other).write_bytes(tasks_path(saved).read_bytes())  # digest of another file
    loaded = KnowledgeGraph.load(other, warn=pytest.fail)
    assert [t.id for t in task_index_of(loaded).tasks] == ["task:1", "task:2"]
    assert _answers(loaded) == _answers(graph)


def _header(path: Path) -> dict[str, object]:
    with zipfile.ZipFile(path) as archive:
        raw = np.lib.format.read_array(archive.open("header.npy"))
    header: dict[str, object] = json.loads(bytes(raw))
    return header


@pytest.mark.parametrize(("change", "message"), [
    (lambda h: {**h, "members": ["fn:nowhere"] * len(h["members"])}, "other tasks or functions"),
    (lambda h: {**h, "tasks": list(reversed(h["tasks"]))}, "other tasks"),
    (lambda h: {**h, "asked_words": h["asked_words"][:-1]}, "postings do not match"),
    (lambda h: {**h, "members": h["members"][:-1]}, "members do not match"),
])
def test_a_tampered_index_is_refused_and_made_again(saved: Path, change: object,
                                                    message: str) -> None:
    path = tasks_path(saved)
    header = change(_header(path))  # type: ignore[operator]
    rewrite(path, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    said: list[str] = []
    loaded = KnowledgeGraph.load(saved, warn=said.append)
    assert len(said) == 1 and str(path) in said[0] and message in said[0]
    assert _answers(loaded) == _answers(build_graph([], examples=EXAMPLES))


def test_garbage_is_refused_naming_the_file(saved: Path) -> None:
    tasks_path(saved).write_bytes(b"not a zip at all")
    said: list[str] = []
    loaded = KnowledgeGraph.load(saved, warn=said.append)
    assert len(said) == 1 and "not a task index" in said[0]
    assert task_index_of(loaded).neighbours("average fee", 1)
