"""examples/quickstart_llamaindex.py runs offline and shows what SGKR retrieves."""

from __future__ import annotations

import re
import runpy
import socket
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "quickstart_llamaindex.py"


@pytest.fixture()
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a network connection fails the test."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        *args: str) -> str:
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *args])
    with pytest.raises(SystemExit) as info:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    assert info.value.code == 0
    return capsys.readouterr().out


def test_quickstart_answers_the_case_study(offline, monkeypatch, capsys,  # type: ignore[no-untyped-def]
                                           payments_graph) -> None:
    from llama_index_sgkr import SGKRRetriever

    out = run(monkeypatch, capsys)
    assert "What is the most expensive MCC for a transaction of 5 euros" in out
    listed = re.findall(r"^(\d\.\d{3})  (\w+) +(\S+):(\d+)", out, flags=re.M)
    question = out.split("question: ", 1)[1].splitlines()[0]
    expected = SGKRRetriever.from_defaults(payments_graph, k=8).retrieve(question)
    assert [name for _, name, _, _ in listed] == [h.node.metadata["name"] for h in expected]
    assert [score for score, *_ in listed] == [f"{h.score:.3f}" for h in expected]
    found = re.search(r"functions a solution needs, retrieved: (\d)/6", out)
    assert found and int(found.group(1)) >= 1
    assert "Context information is below." in out


def test_quickstart_with_a_question_without_tags(offline, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    out = run(monkeypatch, capsys, "Which helper reads the csv of category codes?")
    # no tag and so no path: the functions named like the question, and their neighbours
    assert "nothing retrieved" not in out and "load_mcc_codes" in out and "tags=[]" in out
