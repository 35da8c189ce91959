"""``sgkr export`` on a saved graph: formats, --query, --around, --focus, errors."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from sgkr import KnowledgeGraph
from sgkr.cli import main


@pytest.fixture(scope="module")
def graph_file(payments_graph: KnowledgeGraph, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "graph.json"
    payments_graph.save(path)
    return path


def test_graphml_file_with_a_query(graph_file: Path, tmp_path: Path, case_question: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.graphml"
    assert main(["export", str(graph_file), "--query", case_question, "-o", str(out)]) == 0
    back = nx.read_graphml(out)
    roles = {d["role"] for _, d in back.nodes(data=True)}
    assert {"retrieved", "input", ""} <= roles
    assert "highlighted" in capsys.readouterr().err


def test_mermaid_to_stdout_around_a_function(graph_file: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(graph_file), "-f", "mermaid", "--around", "get_mcc_code",
                 "--depth", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "flowchart TD"
    assert sum(1 for line in lines if ":::" in line) == 1


def test_focus_limits_to_the_highlight(graph_file: Path, case_question: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(graph_file), "-f", "dot", "-q", case_question, "--focus",
                 "--depth", "0"]) == 0
    nodes = [line for line in capsys.readouterr().out.splitlines() if "kind=" in line]
    assert nodes and all("role=" in line for line in nodes)


@pytest.mark.parametrize(("argv", "message", "status"), [
    (["--focus"], "--focus needs --query", 2),
    (["--query", " "], "question is empty", 2),
    (["--around", "nope"], "nope", 7),
    (["--depth", "-1", "--around", "load_fees"], "--depth", 2),
])
def test_errors_are_one_line(graph_file: Path, argv: list[str], message: str, status: int,
                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(graph_file), *argv]) == status
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_bad_format_is_a_usage_error(graph_file: Path) -> None:
    with pytest.raises(SystemExit) as info:
        main(["export", str(graph_file), "-f", "png"])
    assert info.value.code == 2
