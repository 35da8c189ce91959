"""``sgkr --version``, ``--help`` and a question import only what they use (issue 43, part 5)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sgkr import build_graph
from sgkr.algorithms.lexicalfile import save_graph

# Run in a fresh interpreter: the test process has imported everything already.
PROBE = """
import contextlib, io, json, sys
from sgkr.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        status = main(json.loads(sys.argv[1]))
    except SystemExit as exit:
        status = exit.code
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""
#: What no command needs before it starts working: the build's parser and its caches, the
#: frameworks, the progress bar, the completion script, asyncio, fuzzy matching.
NEVER_TO_START = {"tree_sitter", "rapidfuzz", "asyncio", "tqdm", "shtab", "watchfiles",
                  "llama_index", "langchain_core", "mcp", "falkordb", "sqlite3",
                  "sgkr.build", "sgkr.ingest.extract", "sgkr.eval", "sgkr.export"}


def _imported(argv: list[str]) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["status"] in (0, None), report["status"]
    return {m.split(".")[0] if not m.startswith("sgkr.") else ".".join(m.split(".")[:2])
            for m in report["modules"]} | set(report["modules"])


@pytest.mark.subprocess
@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["query", "--help"]])
def test_version_and_help_import_no_stage_of_sgkr(argv: list[str]) -> None:
    imported = _imported(argv)
    heavy = {"numpy", "networkx", "sgkr.graph", "sgkr.retrieval"} if argv[0] != "query" else set()
    assert not imported & (NEVER_TO_START | heavy)


@pytest.mark.subprocess
def test_a_question_imports_neither_the_build_nor_tree_sitter(tmp_path: Path) -> None:
    graph = tmp_path / "graph.json"
    save_graph(build_graph([("fees.py", "def fee(amount):\n    return amount * 2\n")]), graph)
    imported = _imported(["query", str(graph), "What is the fee of an amount?"])
    assert "sgkr.retrieval" in imported  # it did answer
    assert not imported & NEVER_TO_START
