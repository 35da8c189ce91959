"""Prefix-stable rankings through every interface: the top k of a larger k is the k answer.

Each interface (the API, the command line, LangChain, LlamaIndex) returns for ``k`` the
first ``k`` functions, with their scores, of what it returns for a larger ``k``, in the
order the core ranks them. The MCP server's pages are tested in tests/agents.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sgkr import KnowledgeGraph, Retriever

from .conftest import PAYMENTS

SMALL = (1, 3, 5)
LARGE = 8
# The core's first stage seeds the walk with max(k, 8) lexical matches, so beyond k = 8 a
# larger k can reorder the fill (issue 31 makes the ranking independent of k).
BEYOND = pytest.mark.xfail(strict=True, reason="lexical seeds grow with k beyond 8 (issue 31)")


def _questions() -> list[str]:
    lines = (PAYMENTS / "heldout.jsonl").read_text(encoding="utf-8").splitlines()
    held_out = [json.loads(line)["question"] for line in lines if line.strip()]
    return [*held_out, "Which helper reads the csv of category codes?"]  # no tag: the fill


QUESTIONS = _questions()


def _assert_prefix_stable(ranked: dict[int, list[tuple[str, float]]]) -> None:
    top = ranked[max(ranked)]
    for k, answer in ranked.items():
        assert answer == top[:k], f"k={k} is not the first {k} of k={max(ranked)}"


@pytest.mark.parametrize("large", [LARGE, pytest.param(20, marks=BEYOND)])
def test_the_core(payments_graph: KnowledgeGraph, large: int) -> None:
    retriever = Retriever(payments_graph)
    for question in QUESTIONS:
        _assert_prefix_stable({k: [(d.id, d.score) for d in
                                   retriever.retrieve(question, k).documents]
                               for k in (*SMALL, large)})


def test_the_command_line(payments_graph: KnowledgeGraph, tmp_path: Path) -> None:
    graph_file = tmp_path / "graph.json"
    payments_graph.save(graph_file)
    for question in QUESTIONS[:4]:
        ranked = {}
        for k in (*SMALL, LARGE):
            done = subprocess.run([sys.executable, "-m", "sgkr", "query", str(graph_file),
                                   question, "--json", "--k", str(k)],
                                  capture_output=True, text=True, timeout=120, check=False)
            assert done.returncode == 0, done.stderr
            ranked[k] = [(d["id"], d["score"]) for d in json.loads(done.stdout)["documents"]]
        _assert_prefix_stable(ranked)
        core = Retriever(payments_graph).retrieve(question, LARGE).documents
        assert ranked[LARGE] == [(d.id, d.score) for d in core]


def test_langchain(payments_graph: KnowledgeGraph) -> None:
    langchain_sgkr = pytest.importorskip("langchain_sgkr")
    retriever: Any = langchain_sgkr.SGKRRetriever(graph=payments_graph)
    for question in QUESTIONS:
        ranked = {k: [(d.id, d.metadata["score"]) for d in retriever.invoke(question, k=k)]
                  for k in (*SMALL, LARGE)}
        _assert_prefix_stable(ranked)
        # and the same through a field instead of a per-call k
        fixed = langchain_sgkr.SGKRRetriever(graph=payments_graph, k=3)
        assert [(d.id, d.metadata["score"]) for d in fixed.invoke(question)] == ranked[3]


def test_llamaindex(payments_graph: KnowledgeGraph) -> None:
    llama_index_sgkr = pytest.importorskip("llama_index_sgkr")
    for question in QUESTIONS:
        ranked = {}
        for k in (*SMALL, LARGE):
            retriever = llama_index_sgkr.SGKRRetriever.from_defaults(payments_graph,
                                                                     similarity_top_k=k)
            ranked[k] = [(n.node.node_id, n.score) for n in retriever.retrieve(question)]
        _assert_prefix_stable(ranked)
