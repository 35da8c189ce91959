"""Fixtures of the export tests: the case-study question of the payments example."""

from __future__ import annotations

import json

import pytest

from sgkr import KnowledgeGraph, RetrievalResult, Retriever

from ..conftest import PAYMENTS

CASE_STUDY = "1434"


@pytest.fixture(scope="session")
def case_question() -> str:
    """The paper's case-study question (held out of the payments graph)."""
    for line in (PAYMENTS / "heldout.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and str(json.loads(line)["id"]) == CASE_STUDY:
            return str(json.loads(line)["question"])
    raise AssertionError(f"task {CASE_STUDY} is missing from heldout.jsonl")


@pytest.fixture(scope="session")
def case_result(payments_graph: KnowledgeGraph, case_question: str) -> RetrievalResult:
    """What the default retriever returns for the case-study question."""
    return Retriever(payments_graph).retrieve(case_question)
