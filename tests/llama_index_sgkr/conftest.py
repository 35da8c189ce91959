"""Fixtures of the LlamaIndex adapter tests: questions and a retriever over the payments graph."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

try:
    import llama_index.core  # noqa: F401
except ImportError:  # the core's tests run without LlamaIndex installed
    collect_ignore_glob = ["test_*.py"]

PAYMENTS = Path(__file__).resolve().parents[2] / "examples" / "payments"


@pytest.fixture(scope="session")
def case_question() -> str:
    """The paper's case study: held-out DABstep task 1434."""
    for line in (PAYMENTS / "heldout.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip() else {}
        if entry.get("id") == "1434":
            return str(entry["question"])
    raise AssertionError("task 1434 is missing from heldout.jsonl")


@pytest.fixture(scope="session")
def no_tag_question() -> str:
    """A payments question that names no tag of the graph (answered by names, not paths)."""
    return "Which helper reads the csv of category codes?"


@pytest.fixture()
def retriever(payments_graph):  # type: ignore[no-untyped-def]
    """An SGKRRetriever over the payments graph, k = 6."""
    from llama_index_sgkr import SGKRRetriever

    return SGKRRetriever.from_defaults(payments_graph, k=6)


@pytest.fixture()
def paper(payments_graph):  # type: ignore[no-untyped-def]
    """The paper's retriever: paths only, nothing when no tag matches (k = 6)."""
    from llama_index_sgkr import SGKRRetriever

    return SGKRRetriever.from_defaults(payments_graph, k=6, fill="none", lexical=False)
