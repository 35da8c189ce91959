"""The dataset folder format, loading, writing and leave-one-out folds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgkr import KnowledgeFormatError, SourceError
from sgkr.eval.datasets import Dataset, Question, load_dataset, load_questions, write_dataset
from sgkr.tags import Example, TagRef

CODE = ("def load_fees():\n    return []\n"
        "def average_fee(amount):\n    return sum(load_fees()) * amount\n"
        "print(average_fee(1))\n")


def _examples(n: int = 3) -> tuple[Example, ...]:
    return tuple(Example(str(i), f"What is the average fee for amount {i}?", f"s{i}.py",
                         CODE.replace("average_fee", f"average_fee{i}") if i == 0 else CODE,
                         (TagRef("amount", ("average_fee",)),),
                         (TagRef("average fee", ("average_fee",)),)) for i in range(n))


def test_leave_one_out_builds_without_the_held_out_example() -> None:
    folds = list(Dataset("toy", examples=_examples()).folds())
    assert len(folds) == 3
    graph, question = folds[0]
    assert question.gold == ("load_fees",)  # average_fee0 exists only in the held-out one
    assert not graph.find("average_fee0")
    assert folds[1][1].gold == ("load_fees", "average_fee")


def test_leave_one_out_needs_two_examples() -> None:
    with pytest.raises(ValueError):
        list(Dataset("toy", examples=_examples(1)).folds())


def test_questions_gold_is_filtered_to_the_graph() -> None:
    ds = Dataset("toy", examples=_examples(), questions=(
        Question("q", "average fee?", ("average_fee", "missing")),))
    (graph, question), = list(ds.folds())
    assert question.gold == ("average_fee",)


def test_write_and_load_round_trip(tmp_path: Path) -> None:
    ds = Dataset("toy", examples=_examples(), questions=(
        Question("q", "average fee?", ("average_fee",), level="hard", answer="1"),))
    folder = write_dataset(ds, tmp_path / "toy")
    loaded = load_dataset(folder)
    assert loaded.name == "toy" and len(loaded.examples) == 3
    assert loaded.questions[0].level == "hard"
    assert load_dataset(folder, leave_one_out=True).leave_one_out


def test_payments_folder_loads_leave_one_out_with_levels() -> None:
    ds = load_dataset(Path(__file__).resolve().parents[2] / "examples" / "payments")
    assert ds.leave_one_out and len(ds.examples) == 35
    assert ds.meta["levels"]["1273"] == "hard"


def test_malformed_inputs_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        load_dataset(tmp_path / "nope")
    bad = tmp_path / "q.jsonl"
    bad.write_text(json.dumps({"question": "x", "gold": "f"}) + "\n")
    with pytest.raises(KnowledgeFormatError, match="q.jsonl:1"):
        load_questions(bad)
    (tmp_path / "empty").mkdir()
    with pytest.raises(KnowledgeFormatError, match="no examples"):
        load_dataset(tmp_path / "empty")


def test_bundled_code_search_dataset_has_its_gold_in_the_graph() -> None:
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "examples" / "requests"
    ds = load_dataset(folder)
    assert len(ds.questions) >= 40 and ds.knowledge is None and not ds.examples
    graph, _ = next(ds.folds())
    assert graph.meta["infer_tags"] and not graph.meta["curated_tags"]
    for _, question in ds.folds():
        assert question.gold, question.id  # every gold function exists in requests


def test_bare_drops_the_knowledge_and_the_example_tags() -> None:
    from sgkr.cli.demo import payments_example

    bare = load_dataset(payments_example()).bare()
    assert bare.name.endswith("-bare") and bare.knowledge is None
    assert all(not e.inputs and not e.outputs for e in bare.examples)
    graph, _ = next(bare.folds())
    # the questions ground the tags, matched against the tags inferred from code
    assert graph.meta["question_tags"] and graph.stats()["tags"] > 0
    assert all(t.inputs or t.outputs for t in graph.tasks)
    # the inferred-tags ablation builds the same folds without them
    plain, question = next(bare.folds(infer_tags=False))
    assert plain.stats()["tags"] == 0 and question.gold == next(bare.folds())[1].gold
