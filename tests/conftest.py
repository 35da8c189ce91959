"""Shared fixtures: the repository's paths and a small hand-made graph."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .falkordb_server import Server, start_server

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
PAYMENTS = ROOT / "examples" / "payments"


@pytest.fixture(scope="session")
def payments_graph():  # type: ignore[no-untyped-def]
    """The graph of the bundled payments example, built once per session."""
    from sgkr import build_graph

    return build_graph([PAYMENTS / "solutions"], knowledge=PAYMENTS / "knowledge.json",
                       examples=PAYMENTS / "examples.jsonl", root=PAYMENTS)


@pytest.fixture(scope="session")
def falkordb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A FalkorDB server started for the session on a free 127.0.0.1 port."""
    server = start_server(tmp_path_factory.mktemp("falkordb"))
    yield server
    server.stop()
