"""The call-graph micro-suite: every program gives the edges its table says, and no others."""

from __future__ import annotations

import pytest

from sgkr import build_graph

from .callgraph_suite import PROGRAMS, Program


def edges_of(program: Program) -> set[tuple[str, str]]:
    """The edges between functions (calls and references) SGKR finds in ``program``."""
    graph = build_graph(list(program.files.items()), merge="none")
    return {(e.source.split(":", 1)[1], e.target.split(":", 1)[1]) for e in graph.edges()
            if e.type in ("calls", "references")}


@pytest.mark.parametrize("program", PROGRAMS,
                         ids=[f"{p.category}-{i}" for i, p in enumerate(PROGRAMS)])
def test_program_edges(program: Program) -> None:
    assert program.missed <= program.expected and not program.extra & program.expected
    assert edges_of(program) == (program.expected - program.missed) | program.extra


def test_suite_precision_and_recall() -> None:
    found = expected = right = 0
    for program in PROGRAMS:
        edges = edges_of(program)
        found += len(edges)
        expected += len(program.expected)
        right += len(edges & program.expected)
    assert right / found >= 0.95 and right / expected >= 0.9
