"""The runner, metrics and reports on a tiny leave-one-out dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgkr import InvalidArgumentError
from sgkr.eval.baselines import HashingEmbeddings
from sgkr.eval.datasets import Dataset
from sgkr.eval.metrics import count_tokens, score_question
from sgkr.eval.report import format_table, to_markdown, write_report
from sgkr.eval.runner import RetrieverSpec, default_specs, evaluate
from sgkr.tags import Example, TagRef

SOLUTION = '''
def load_fees():
    """Read the fee rules from fees.json."""
    return []

def calculate_fee(rule, amount):
    """fee = fixed_amount + rate * amount / 10000"""
    return rule["fixed_amount"] + rule["rate"] * amount / 10000

def {name}(amount):
    """The asked quantity."""
    return sum(calculate_fee(r, amount) for r in load_fees())

print({name}(10))
'''


def _dataset() -> Dataset:
    names = ["average_fee", "average_fee", "total_fee", "average_fee"]
    return Dataset("toy", examples=tuple(
        Example(str(i), f"What is the {n.replace('_', ' ')} for a transaction value of 10?",
                f"s{i}.py", SOLUTION.format(name=n),
                (TagRef("transaction value", ("calculate_fee",)),),
                (TagRef(n.replace("_", " "), (n,)),))
        for i, n in enumerate(names)), meta={"levels": {"0": "hard", "1": "easy"}})


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    return evaluate(_dataset(), default_specs(), embedding_model=HashingEmbeddings())


def test_metrics() -> None:
    s = score_question(["a", "b"], ["a", "b", "c", "d"])
    assert (s.recall, s.precision, s.full_cover) == (1.0, 0.5, True)
    assert score_question(["a"], []).precision == 0.0
    with pytest.raises(InvalidArgumentError):
        score_question([], ["a"])
    assert count_tokens("a_b + 1") == 3


def test_sgkr_finds_the_shared_pipeline(result) -> None:  # type: ignore[no-untyped-def]
    sgkr = result.summaries["all"]["sgkr"]
    by_id = {r.question_id: r for r in result.records if r.retriever == "sgkr"}
    assert sgkr.questions == 4
    assert all(by_id[i].full_cover for i in ("0", "1", "3"))
    # the total-fee question matches only its input tag: the nearest consumer comes first,
    # and the walk from it fills the budget with the rest of the pipeline
    assert by_id["2"].retrieved[0] == "calculate_fee" and by_id["2"].recall == 1.0
    assert result.budget == round(sgkr.nodes)
    assert {len(r.retrieved) for r in result.records if r.retriever == "bm25"} == {
        result.budget}
    assert result.summaries["hard"]["sgkr"].questions == 1


def test_no_knowledge_keeps_nodes_and_cuts_tokens(result) -> None:  # type: ignore[no-untyped-def]
    full, bare = result.summaries["all"]["sgkr"], result.summaries["all"]["sgkr no-knowledge"]
    assert bare.nodes == full.nodes and bare.tokens < full.tokens


def test_question_without_gold_is_skipped() -> None:
    ds = _dataset()
    lonely = Example("9", "What is the fraud rate?", "z.py", "def fraud_rate():\n    return 0\n",
                     (), ())
    res = evaluate(Dataset("toy", examples=(*ds.examples, lonely)), [RetrieverSpec("sgkr")])
    assert res.skipped == ("9",)


def test_spec_validation() -> None:
    with pytest.raises(InvalidArgumentError):
        RetrieverSpec("x", "bm25", options={"k": 2})
    with pytest.raises(InvalidArgumentError):
        evaluate(_dataset(), [RetrieverSpec("bm25", "bm25")])
    with pytest.raises(InvalidArgumentError):
        evaluate(_dataset(), [RetrieverSpec("a"), RetrieverSpec("a")])


@pytest.mark.slow
def test_reports(result, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = format_table([result])
    assert "sgkr no-merge" in table and "budget k=" in table
    assert "| sgkr | all |" in to_markdown([result])
    paths = write_report([result], tmp_path, meta={"machine": "test"})
    data = json.loads(paths[0].read_text())
    assert data["datasets"][0]["summaries"]["all"]["sgkr"]["recall"] == 1.0
    assert paths[2].read_bytes()[:4] == b"\x89PNG"
