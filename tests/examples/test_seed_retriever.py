"""examples/seed_retriever.py runs offline: a LangChain vector store seeds SGKR's graph stage."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "seed_retriever.py"


def test_a_vector_store_seeds_sgkr(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "--hash", "4"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    assert done.value.code == 0
    out = capsys.readouterr().out
    blocks = [b for b in out.split("\n\n") if "SGKR seeded by it:" in b]
    assert len(blocks) == 4
    for block in blocks:
        seeded = block.split("SGKR seeded by it:", 1)[1].split()
        assert len(seeded) == 5, block  # five functions, each a function of the graph
    assert "needed functions in the top 5: vector store" in out
