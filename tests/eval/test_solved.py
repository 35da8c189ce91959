"""The solved-tasks evaluation: splits, gold, task-specific gold, the baselines, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgkr import Retriever
from sgkr.cli import main
from sgkr.eval.datasets import Dataset, Question
from sgkr.eval.library import CodeAndQuestions, FixedByName, NearestQuestions
from sgkr.eval.metrics import count_tokens
from sgkr.eval.solved import (
    Library,
    SolvedRecord,
    SolvedSpec,
    evaluate_solved,
    format_solved,
    solved_specs,
    splits,
)
from sgkr.tags import Example

LOAD = "def load():\n    return []\n"


def _task(i: int, topic: str) -> Example:
    code = (f"{LOAD}def {topic}_helper(rows):\n    return rows\n"
            f"def answer_{i}(rows):\n    return {topic}_helper(rows)\n"
            f"print(answer_{i}(load()))\n")
    return Example(str(i), f"What is the {topic} of merchant {i}?", f"s/t{i}.py", code, (), ())


TOPICS = ["fee", "fraud", "fee", "fraud", "fee", "fraud", "volume", "volume"]
DATASET = Dataset("toy", examples=tuple(_task(i, t) for i, t in enumerate(TOPICS)))


def test_splits_halve_the_examples_and_leave_one_out() -> None:
    a, b, *loo = list(splits(DATASET))
    assert (a.fold, b.fold) == ("A", "B")
    assert [q.id for q in a.questions] == ["0", "2", "4", "6"]
    assert [e.id for e in a.library] == ["1", "3", "5", "7"]
    assert [q.id for q in b.questions] == [e.id for e in a.library]
    assert len(loo) == 8 and all(len(s.library) == 7 for s in loo)
    # a dataset with questions of its own keeps its library, halves its questions
    asked = Dataset("q", examples=DATASET.examples, questions=tuple(
        Question(str(i), "q", ("load",)) for i in range(5)))
    assert [len(s.questions) for s in splits(asked)] == [3, 2]


def test_gold_and_its_task_specific_part() -> None:
    result = evaluate_solved(DATASET, [SolvedSpec("fixed", "fixed")], ks=(2,), folds=("loo",))
    first = next(r for r in result.records if r.question_id == "0")
    # what the new solution defines and the library has: its answer_0 is nowhere else
    assert set(first.gold) == {"load", "fee_helper"}
    assert first.specific == ()  # load and fee_helper: a tenth of the library or more
    record = SolvedRecord("x", "A", "1", ("a", "b"), ("b",), ("b", "c", "a"))
    assert (record.recall(1), record.recall(3), record.recall(1, specific=True)) == (0.5, 1, 1)


def test_the_baselines_rank_names() -> None:
    library = DATASET.examples[:6]
    assert FixedByName(library)("anything")[0] == "load"
    assert NearestQuestions(library)("the fraud of a merchant")[:2] in (
        ["fraud_helper", "load"], ["load", "fraud_helper"])
    assert CodeAndQuestions(library)("fraud")[0] == "fraud_helper"


def test_context_tokens_are_those_of_the_documents_shown() -> None:
    split = next(splits(DATASET, ("A",)))
    lib = Library(DATASET, split)
    question = split.questions[0].question
    docs = Retriever(lib.graph, k=3).retrieve(question).documents
    result = evaluate_solved(DATASET, [SolvedSpec("sgkr")], ks=(3,), folds=("A",))
    record = next(r for r in result.records if r.question_id == split.questions[0].id)
    assert record.tokens == tuple(count_tokens(d.text) for d in docs)
    # a name another retriever ranks costs what its most called copy's text does
    load = max(lib.graph.find("load"), key=lambda i: len(lib.graph.callers(i)))
    assert lib.tokens["load"] == count_tokens(lib.graph.function(load).text)


def test_every_retriever_is_scored_at_every_k() -> None:
    specs = solved_specs(dense=False)
    result = evaluate_solved(DATASET, specs, ks=(1, 3))
    assert result.folds == ("A", "B", "loo") and result.retrievers == tuple(s.name for s in specs)
    for spec in specs:
        for fold in result.folds:
            n, every, _ = result.summary(spec.name, fold, 3)
            assert n > 0 and every is not None and 0 <= every <= 1
            # tokens: the context of the first k slots, more for a longer answer
            assert 0 < result.tokens(spec.name, fold, 1) <= result.tokens(spec.name, fold, 3)
    table = format_solved(result)
    assert table.splitlines()[1].split()[:2] == ["retriever", "k"]
    assert json.loads(json.dumps(result.to_dict()))["summaries"]["sgkr"]["loo"]["3"]["questions"]


def test_cli_solved_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "toy"
    folder.mkdir()
    (folder / "examples.jsonl").write_text("".join(json.dumps(
        {"id": e.id, "question": e.question, "code": e.code}) + "\n" for e in DATASET.examples))
    out = tmp_path / "out"
    assert main(["eval", str(folder), "--solved", "--ks", "1,3", "--no-dense", "--no-ablations",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "toy (solved tasks; recall all / task-specific, tokens)" in printed
    assert "nearest questions" in printed and "sgkr code-only" in printed
    assert json.loads((out / "solved.json").read_text())["datasets"][0]["ks"] == [1, 3]
    assert main(["eval", str(folder), "--solved", "--ks", "x"]) == 2
