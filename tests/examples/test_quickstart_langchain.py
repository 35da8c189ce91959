"""examples/quickstart_langchain.py runs offline and shows what SGKR retrieved."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

import pytest

from langchain_sgkr import SGKRRetriever

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "quickstart_langchain.py"


def run(monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    """Run the script as ``python quickstart_langchain.py ARGS`` would, in this process."""
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *args])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    assert done.value.code == 0


def test_case_study_through_a_chain(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str],
                                    payments_graph: Any) -> None:
    run(monkeypatch)
    out = capsys.readouterr().out
    question = next(line for line in out.splitlines() if line.startswith("question: "))
    question = question.removeprefix("question: ")
    assert question.startswith("What is the most expensive MCC for a transaction of 5 euros")
    docs = SGKRRetriever(graph=payments_graph, k=8).invoke(question)
    assert docs
    table = out.split(question, 1)[1].split("functions a solution needs", 1)[0]
    listed = [line.split()[1] for line in table.splitlines() if line[:1].isdigit()]
    assert listed == [d.metadata["name"] for d in docs]
    assert "functions a solution needs, retrieved: " in out
    prompt = out.split("the first lines:", 1)[1]
    assert prompt.strip().startswith("You are an expert data analyst")
    assert f"## {docs[0].metadata['name']} ({docs[0].metadata['file']}" in prompt


def test_a_question_without_tags(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    run(monkeypatch, "How do I read a json file?")
    out = capsys.readouterr().out
    # no tag and so no path: the functions named like the question, and their neighbours
    assert "nothing retrieved" not in out and "tags=[]" in out
