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


@pytest.fixture()
def every_build_option(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    """A source folder and a value for every build option that changes its graph.

    Built with these options the folder has two functions, ``fn:a.f`` and
    ``fn:b.f`` (copies kept apart; ``c.py`` excluded, ``big.py`` too large),
    and the extraction cache is written.
    """
    src = tmp_path / "src"
    src.mkdir()
    for name, text in (("a.py", "def f():\n    return 1\n"), ("b.py", "def f():\n    return 1\n"),
                       ("c.py", "def g():\n    return 2\n"), ("big.py", "x = 1\n" * 100)):
        (src / name).write_text(text, encoding="utf-8")
    return src, {"merge": "none", "infer_tags": True, "max_file_bytes": 100,
                 "exclude": ["c.py"], "jobs": 1, "cache": tmp_path / "cache", "root": src}
