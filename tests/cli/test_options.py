"""Every retrieval option as a flag of the ``sgkr`` commands, run as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sgkr import KnowledgeGraph, Retriever
from sgkr.cli.options import flag
from sgkr.retrieval.options import OPTIONS

pytestmark = pytest.mark.subprocess

QUESTION = "What is the fee ID or IDs that apply to account_type = D and aci = F?"


@pytest.fixture(scope="module")
def graph_file(payments_graph: KnowledgeGraph,
               tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("options") / "graph.json"
    payments_graph.save(out)
    return out


def _sgkr(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sgkr", *argv], capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.parametrize("command", ["query", "demo", "export", "mcp"])
def test_every_option_is_a_flag(command: str) -> None:
    shown = _sgkr(command, "--help")
    assert shown.returncode == 0, shown.stderr
    for spec in OPTIONS.values():
        assert flag(spec.name) in shown.stdout, f"sgkr {command} lacks {flag(spec.name)}"
        if spec.kind == "boolean":
            assert f"--no-{spec.name.replace('_', '-')}" in shown.stdout


@pytest.mark.parametrize("flags,options", [
    (["--filter", '{"file": {"$in": ["solutions/task_1305.py", "solutions/task_1273.py"]}}'],
     {"filter": {"file": {"$in": ["solutions/task_1305.py", "solutions/task_1273.py"]}}}),
    (["--filter", '{"kind": "function"}', "--k", "3"], {"filter": {"kind": "function"}, "k": 3}),
    (["--inferred", "paths", "--no-reverse-calls", "--callees", "0"],
     {"inferred": "paths", "reverse_calls": False, "callees": 0}),
    (["--fill", "none", "--no-lexical", "--specificity", "0.2", "--max-paths", "4"],
     {"fill": "none", "lexical": False, "specificity": 0.2, "max_paths": 4}),
])
def test_query_flags_reach_the_retriever(graph_file: Path, flags: list[str],
                                         options: dict[str, Any]) -> None:
    done = _sgkr("query", str(graph_file), QUESTION, "--json", *flags)
    assert done.returncode == 0, done.stderr
    got = [d["id"] for d in json.loads(done.stdout)["documents"]]
    expected = Retriever(KnowledgeGraph.load(graph_file), **options).retrieve(QUESTION)
    assert got == [d.id for d in expected.documents] and got
    if "filter" in options and "file" in options["filter"]:
        allowed = set(options["filter"]["file"]["$in"])
        assert all({s.file for s in d.sources} & allowed for d in expected.documents)


@pytest.mark.parametrize("flags,message", [
    (["--filter", "kind=function"], "argument --filter: filter: must be JSON"),
    (["--filter", '{"path": "a.py"}'], "argument --filter: filter: unknown field 'path'"),
    (["--k", "0"], "argument --k: k must be an integer of at least 1, got 0"),
    (["--k", "two"], "argument --k: k must be an integer of at least 1, got 'two'"),
    (["--specificity", "2"], "specificity must be a number from 0 to 1, got 2.0"),
    (["--inferred", "all"], "argument --inferred: inferred must be one of"),
])
def test_a_bad_flag_is_one_line_and_status_2(graph_file: Path, flags: list[str],
                                             message: str) -> None:
    done = _sgkr("query", str(graph_file), QUESTION, *flags)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
