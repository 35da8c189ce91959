"""Personalized PageRank by forward push: bounded, deterministic, batched reads."""

from __future__ import annotations

import pytest

from sgkr.algorithms.walk import centrality_prior, personalized_pagerank
from sgkr.errors import InvalidArgumentError

CHAIN = {"a": ("b",), "b": ("a", "c"), "c": ("b", "d"), "d": ("c",)}


def test_mass_falls_with_distance_from_the_seeds() -> None:
    reads: list[list[str]] = []

    def neighbours(ids: list[str]) -> dict[str, tuple[str, ...]]:
        reads.append(ids)
        return {n: CHAIN[n] for n in ids}

    scores = personalized_pagerank(neighbours, {"a": 1.0})
    assert scores["a"] > scores["b"] > scores["c"] > scores.get("d", 0.0)
    assert sum(scores.values()) <= 1.0 + 1e-9
    assert all(len(set(batch)) == len(batch) for batch in reads)  # each node read once a round
    assert personalized_pagerank(neighbours, {"a": 1.0}) == scores  # deterministic


def test_hubs_keep_their_mass_and_bounds_hold() -> None:
    star = {"hub": tuple(f"n{i}" for i in range(500)), **{f"n{i}": ("hub",) for i in range(500)}}
    scores = personalized_pagerank(lambda ids: {n: star[n] for n in ids}, {"n0": 1.0},
                                   max_degree=100)
    assert set(scores) == {"n0", "hub"}  # the hub does not spread to its 500 neighbours
    assert personalized_pagerank(lambda ids: {}, {}) == {}
    with pytest.raises(InvalidArgumentError, match="alpha"):
        personalized_pagerank(lambda ids: {}, {"a": 1.0}, alpha=1.0)
    assert centrality_prior(0) == 0.0 < centrality_prior(3) < centrality_prior(30) < 1.0
