"""End-to-end scoring with fake models (no network, no real LLM)."""

from __future__ import annotations

import pytest

from sgkr import InvalidArgumentError
from sgkr.eval.datasets import Dataset, Question
from sgkr.eval.llm import complete, parse_program_tokens, run_end_to_end, score_answer
from sgkr.tags import Example, TagRef

CODE = ("def subtract(a, b):\n    return a - b\ndef divide(a, b):\n    return a / b\n"
        "def percentage_change(a, b):\n    return divide(subtract(a, b), b)\n"
        "answer = percentage_change(2, 1)\n")
GOOD = '["subtract(", "120", "100", ")", "divide(", "#0", "100", ")", "EOF"]'


def _dataset() -> Dataset:
    ex = Example("t", "what is the percent change?", "t.py", CODE, (),
                 (TagRef("percent change", ("percentage_change",)),))
    q = Question("d", "what was the percent change in sales?", ("percentage_change",), "hard",
                 answer="0.2", report="sales were 100 then 120")
    return Dataset("toy", examples=(ex,), questions=(q,))


def test_scores_executed_programs() -> None:
    assert score_answer(f"Here: {GOOD}", "0.2")
    assert not score_answer('["add(", "1", "1", ")", "EOF"]', "0.2")
    assert not score_answer("I cannot answer", "0.2")
    assert score_answer('["greater(", "3", "2", ")", "EOF"]', "yes")
    with pytest.raises(InvalidArgumentError):
        parse_program_tokens("no list")


def test_llama_index_mock_llm_and_prompt() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.llms import MockLLM

    assert isinstance(complete(MockLLM(max_tokens=3), "hello"), str)
    prompts: list[str] = []

    def fake(prompt: str) -> str:
        prompts.append(prompt)
        return GOOD

    records = run_end_to_end(_dataset(), {"none": lambda g, q: [],
                                          "sgkr": lambda g, q: ["fn:t.percentage_change"]},
                             fake)
    assert [r.correct for r in records] == [True, True]
    assert "sales were 100 then 120" in prompts[1] and "percentage_change" in prompts[1]
    assert "percentage_change" not in prompts[0]


def test_langchain_fake_chat_model() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    model = FakeListChatModel(responses=[GOOD, '["add(", "1", "1", ")", "EOF"]'])
    records = run_end_to_end(_dataset(), {"a": lambda g, q: [], "b": lambda g, q: []}, model)
    assert [r.correct for r in records] == [True, False]


def test_leave_one_out_datasets_are_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        run_end_to_end(Dataset("x", examples=_dataset().examples), {}, lambda p: "")
