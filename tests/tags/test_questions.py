"""Solved tasks as input: earlier questions ground the tags, the graph keeps them, bad input."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.errors import GraphFormatError, KnowledgeFormatError
from sgkr.tags import Example, TagRef, load_examples
from sgkr.tags.examples import MAX_QUESTION_CHARS
from sgkr.tags.tasklist import load_task_folder

LOAD = "def load_rules():\n    return [{'fee': 1, 'card_scheme': 'A'}]\n"
AVERAGE = (LOAD + "def average_fee(rules, card_scheme):\n"
           "    return sum(r['fee'] for r in rules if r['card_scheme'] == card_scheme)\n"
           "print(average_fee(load_rules(), 'A'))\n")
FRAUD = ("def load_payments():\n    return []\n"
         "def fraud_rate(payments, merchant):\n"
         "    return sum(p['fraud'] for p in payments if p['merchant'] == merchant)\n"
         "print(fraud_rate(load_payments(), 'M'))\n")


def _examples() -> list[Example]:
    return [Example("1", "What is the average fee of card scheme A?", "s/a.py", AVERAGE, (), ()),
            Example("2", "What is the fraud rate of merchant M?", "s/b.py", FRAUD, (), ())]


def test_questions_ground_their_tags_on_their_own_solutions() -> None:
    graph = build_graph([], examples=_examples())
    assert graph.meta["question_tags"] and graph.meta["curated_tags"]
    one, two = graph.tasks
    assert one.id == "task:1" and one.source == "s/a.py"
    assert set(one.uses) == {"mod:s.a", "fn:s.a.load_rules", "fn:s.a.average_fee"}
    assert "tag:card scheme" in one.inputs and "tag:average fee" in one.outputs
    assert "tag:merchant" in two.inputs and "tag:fraud rate" in two.outputs
    # the question's input tag goes to the function that takes it in, the output to the one
    # that gives it out; the graph keeps only the tags some question grounds
    assert graph.consumers("tag:card scheme") == ["fn:s.a.average_fee"]
    assert graph.producers("tag:average fee") == ["fn:s.a.average_fee"]
    grounded = {t for task in graph.tasks for t in (*task.inputs, *task.outputs)}
    assert {t.id for t in graph.tags()} == grounded


def test_curated_tags_win_where_given() -> None:
    tagged = Example("3", "Which card scheme is the cheapest?", "s/c.py", AVERAGE,
                     (TagRef("card scheme", ("average_fee",)),), (TagRef("cheapest scheme"),))
    graph = build_graph([], examples=[*_examples(), tagged])
    by_id = {t.id: t for t in graph.tasks}
    assert by_id["task:3"].inputs == ("tag:card scheme",)
    assert by_id["task:3"].outputs == ("tag:cheapest scheme",)
    assert not graph.meta.get("question_tags")  # tags are curated: nothing is inferred
    assert by_id["task:1"].inputs == ("tag:card scheme",)  # matched against the curated ones


def test_a_solution_uses_what_it_calls_in_the_library(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "fees.py").write_text(
        "def fee(r):\n    return rate(r) * 2\ndef rate(r):\n    return 0.1\ndef unused():\n"
        "    return 0\n")
    (tmp_path / "s.py").write_text("from lib.fees import fee\nprint(fee(1))\n")
    (tmp_path / "ex.jsonl").write_text(json.dumps({"question": "The fee?", "file": "s.py"}))
    graph = build_graph([tmp_path / "lib"], examples=tmp_path / "ex.jsonl")
    (task,) = graph.tasks
    assert task.uses == ("mod:s", "fn:lib.fees.fee", "fn:lib.fees.rate")


def test_the_tasks_are_saved_and_loaded(tmp_path: Path) -> None:
    graph = build_graph([], examples=_examples())
    graph.save(tmp_path / "g.json")
    back = KnowledgeGraph.load(tmp_path / "g.json")
    assert back.tasks == graph.tasks and back.to_dict() == graph.to_dict()
    data = json.loads((tmp_path / "g.json").read_text())
    data["tasks"][0]["uses"].append("fn:nowhere")
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(GraphFormatError, match=r"tasks\[0\] \(task:1\): 'uses' names "
                                               r"'fn:nowhere', not a function node"):
        KnowledgeGraph.load(tmp_path / "bad.json")
    graph.remove_nodes(["fn:s.a.load_rules"])
    assert "fn:s.a.load_rules" not in graph.tasks[0].uses


def test_a_folder_of_solutions_and_a_task_list(tmp_path: Path) -> None:
    folder = tmp_path / "solutions"
    folder.mkdir()
    (folder / "task_1.py").write_text(AVERAGE)
    notebook = {"nbformat": 4, "cells": [{"cell_type": "code", "source": FRAUD}]}
    (folder / "task_2.ipynb").write_text(json.dumps(notebook))
    (folder / "helpers.py").write_text("def spare():\n    return 1\n")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n".join(json.dumps(t) for t in (
        {"task_id": "1", "question": "What is the average fee of card scheme A?",
         "guidelines": "a number", "level": "hard"},
        {"task_id": 2, "question": "What is the fraud rate of merchant M?", "answer": "0"},
        {"task_id": "3", "question": "No solution for this one?"})))
    found = load_task_folder(folder, tasks)
    assert [e.id for e in found.examples] == ["1", "2"] and found.missing == ("3",)
    assert "def fraud_rate" in found.examples[1].code  # the notebook's code cells
    assert [p.name for p in found.unused] == ["helpers.py"]
    graph = build_graph([], solutions=folder, tasks=tasks)
    assert [t.id for t in graph.tasks] == ["task:1", "task:2"]
    assert graph.find("spare") and graph.find("fraud_rate")  # nothing else lost
    assert graph.report is not None
    assert any("1 task(s) with no solution" in p.reason for p in graph.report.problems)
    csv = tmp_path / "tasks.csv"
    csv.write_text("id,question\n1,What is the average fee?\n")
    assert [e.id for e in load_task_folder(folder, csv).examples] == ["1"]


@pytest.mark.parametrize("lines,message", [
    ([{"id": "1", "question": "q?"}], r"ex.jsonl:1: no solution: give its 'file' or its 'code'"),
    ([{"id": "1", "question": "q?", "code": "x = 1"}, {"id": "1", "question": "r?", "code": "y"}],
     r"ex.jsonl:2: duplicate example id '1'"),
    ([{"id": "1", "question": "q" * (MAX_QUESTION_CHARS + 1), "code": "x = 1"}],
     r"ex.jsonl:1: the question has 100,001 characters, over the 100,000"),
    ([{"id": "1", "question": "q?", "code": "x", "file": "s.py"}], r"ex.jsonl:1: give one of"),
])
def test_bad_examples_are_refused_naming_the_line(tmp_path: Path, lines: list[object],
                                                  message: str) -> None:
    path = tmp_path / "ex.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    with pytest.raises(KnowledgeFormatError, match=message):
        load_examples(path)


def test_bad_task_lists_are_refused_naming_the_line(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "1.py").write_text("x = 1\n")
    (folder / "task-1.py").write_text("y = 1\n")
    tasks = tmp_path / "t.jsonl"
    tasks.write_text('{"id": "2", "question": "q?"}\n{"id": "2", "question": "r?"}\n')
    with pytest.raises(KnowledgeFormatError, match=r"t.jsonl:2: task id '2' again"):
        load_task_folder(folder, tasks)
    tasks.write_text('{"id": "1", "question": "q?"}\n')
    with pytest.raises(KnowledgeFormatError, match="task '1' has several solutions"):
        load_task_folder(folder, tasks)
    tasks.write_text('{"question": "q?"}\n')
    with pytest.raises(KnowledgeFormatError, match=r"t.jsonl:1: a task needs an 'id'"):
        load_task_folder(folder, tasks)


def test_a_solution_that_does_not_parse_is_read_as_far_as_it_goes() -> None:
    broken = Example("9", "What is the average fee?", "s/broken.py",
                     "def average_fee(rules):\n    return sum(rules\n", (), ())
    graph = build_graph([], examples=[*_examples(), broken])
    assert [t.id for t in graph.tasks] == ["task:1", "task:2", "task:9"]
    assert graph.report is not None and graph.report.problems  # said, not lost
    assert "fn:s.broken.average_fee" in graph.tasks[2].uses


@pytest.mark.slow
def test_many_examples_build_in_linear_time() -> None:
    def build(n: int) -> float:
        examples = [Example(str(i), f"What is the fee {i % 50} of merchant {i % 7}?",
                            f"s/t{i}.py", f"def fee_{i % 50}(m):\n    return {i}\n"
                            f"print(fee_{i % 50}('m'))\n", (), ()) for i in range(n)]
        started = time.perf_counter()
        graph = build_graph([], examples=examples, jobs=1)
        assert len(graph.tasks) == n
        return time.perf_counter() - started

    small, large = build(1_000), build(4_000)
    assert large < 4 * small * 2  # four times the examples, well under eight times the time
