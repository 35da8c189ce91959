"""The command line: build, inspect, query --json, demo, and one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sgkr.cli import main
from sgkr.graph.jsonfile import TASKS_VERSION

from ..conftest import FIXTURES, PAYMENTS

MINI = FIXTURES / "mini"


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "graph.json"
    assert main(["build", str(PAYMENTS / "solutions"), "--knowledge",
                 str(PAYMENTS / "knowledge.json"), "--examples", str(PAYMENTS / "examples.jsonl"),
                 "-o", str(out), "--quiet"]) == 0
    return out


def test_build_prints_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.json"
    assert main(["build", str(MINI), "--knowledge", str(MINI / "knowledge.json"),
                 "--examples", str(MINI / "examples.jsonl"), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert ("files: 4, functions: 9, call edges: 6 exact, 1 inferred, reference edges: 0, "
            "tags: 6") in printed
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["schema_version"] == TASKS_VERSION  # it keeps its solved tasks
    assert [t["id"] for t in written["tasks"]] == ["task:q1", "task:q2", "task:q3"]


def test_inspect(graph_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(graph_file), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["functions"] > 50 and data["tags"] > 10
    assert data["most_called"][0] == {"id": "fn:load_fees", "callers": 30}
    assert all(0 <= t["weight"] <= 1 for t in data["tag_list"])
    assert main(["inspect", str(graph_file)]) == 0
    printed = capsys.readouterr().out
    assert "most called:" in printed and "tags: " in printed and "(curated)" in printed


def test_inspect_lists_at_most_top_tags_the_most_used_first(
        graph_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(graph_file), "--top", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["most_called"]) == 3 and len(data["tag_list"]) == 3 < data["tags"]
    used = [t["consumers"] + t["producers"] for t in data["tag_list"]]
    assert used == sorted(used, reverse=True)
    assert main(["inspect", str(graph_file), "--top", "3"]) == 0
    printed = capsys.readouterr().out
    assert f"{data['tags'] - 3} more: --top 0 lists all" in printed
    assert main(["inspect", str(graph_file), "--top", "0", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["tag_list"]) == data["tags"]


def test_query_json(graph_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    question = "What is the fee ID or IDs that apply to account_type = D and aci = F?"
    assert main(["query", str(graph_file), question, "--k", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"question", "tags", "documents", "paths"}
    assert data["tags"] == {"inputs": ["account type", "aci"], "outputs": ["fee ids"]}
    assert len(data["documents"]) == 4
    # the earlier questions of the same kind (fee IDs for an account type and an ACI) vote:
    # their loader and their collector first, each with the questions that used it
    names = [d["name"] for d in data["documents"]]
    assert set(names[:2]) == {"load_fees", "collect_fee_ids"} and "filter_fee_rules" in names
    collector = data["documents"][names.index("collect_fee_ids")]
    assert collector["used_by"][0]["task"] in {"task:1464", "task:1480"}
    for doc in data["documents"]:
        assert set(doc) >= {"id", "name", "qualnames", "knowledge", "code", "score", "sources"}
        assert 0 < doc["score"] <= 1
    assert all(p[0].startswith("tag:") and p[-1].startswith("tag:") for p in data["paths"])


def _run(argv: list[str]) -> int:
    """main's status, also when argparse exits on a usage error."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


@pytest.mark.parametrize("argv,status,message", [
    (["build", "/no/such/dir"], 3, "source path does not exist: /no/such/dir"),
    (["inspect", "/no/such/graph.json"], 5, "cannot read graph file"),
    (["build", "--merge", "fuzzy", "x"], 2, "invalid choice: 'fuzzy'"),
    (["frobnicate"], 2, "invalid choice"),
])
def test_errors_are_one_line(argv: list[str], status: int, message: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(argv) == status
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("sgkr: error: ")


def test_bad_graph_and_empty_question(tmp_path: Path, graph_file: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "nodes": [}', encoding="utf-8")
    assert main(["query", str(bad), "fees"]) == 5
    errors = capsys.readouterr().err.splitlines()
    assert errors[0].startswith(f"sgkr: error: {bad}: not valid JSON")
    # An empty question, like one that matches nothing, is answered: nothing, flagged.
    for question in ("  ", "asdfgh qwerty"):
        assert main(["query", str(graph_file), question]) == 0
        out = capsys.readouterr()
        assert "matched: nothing" in out.out and not out.err
        assert main(["query", str(graph_file), question, "--json"]) == 0
        answer = json.loads(capsys.readouterr().out)
        assert answer["matched"] is False and answer["documents"] == []


def test_verbose_shows_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--verbose", "inspect", "/no/such/graph.json"]) == 5
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.subprocess
def test_demo_runs_as_a_program() -> None:
    done = subprocess.run([sys.executable, "-m", "sgkr", "demo"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("task ") >= 3
    assert "tag: 'mcc'" in done.stdout and "calculate_fee" in done.stdout
    # every step of a path says which relation it follows, not a bare "->"
    paths = [line for line in done.stdout.splitlines() if line.startswith("path: ")]
    assert paths and not any(" -> " in line for line in paths)
    steps = re.findall(r" -([a-z ]+)-> ", "\n".join(paths))
    assert set(steps) <= {"input of", "calls", "called by", "uses", "used by", "produces",
                          "takes", "produced by"}
    assert {"input of", "produces"} <= set(steps)
    assert re.search(r"^path: tag:\S+ -input of-> fn:", done.stdout, flags=re.M)



def test_skipped_files_are_summarised_by_reason(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "main.py").write_text("def f():\n    return 1\n")
    for i in range(40):
        (tmp_path / f"p{i:02d}").mkdir()
        (tmp_path / f"p{i:02d}" / "__init__.py").write_text("")
    out = tmp_path / "g.json"
    assert main(["build", str(tmp_path), "-o", str(out), "--no-cache"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert "skipped: 40" in printed
    assert ("  empty file: 40 (p00/__init__.py, p01/__init__.py, p02/__init__.py, ...)"
            in printed)
    assert len(printed) < 6
    # --verbose, after the command as before it, lists every file.
    for argv in (["build", str(tmp_path), "-o", str(out), "--no-cache", "--verbose"],
                 ["--verbose", "build", str(tmp_path), "-o", str(out), "--no-cache"]):
        assert main(argv) == 0
        assert sum("empty file" in line for line in capsys.readouterr().out.splitlines()) == 40


def test_no_gitignore_reads_ignored_files(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / ".gitignore").write_text("gen_*.py\n")
    (src / "main.py").write_text("def f():\n    return g()\n")
    (src / "gen_a.py").write_text("def g():\n    return 1\n")
    out = tmp_path / "g.json"
    assert main(["build", str(src), "-o", str(out), "--no-cache"]) == 0
    assert "gen_a.py: ignored by .gitignore" in capsys.readouterr().out
    assert main(["build", str(src), "-o", str(out), "--no-cache", "--no-gitignore"]) == 0
    assert "files: 2, functions: 2" in capsys.readouterr().out


def test_bare_sgkr_prints_usage_and_help_lists_exit_codes(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    usage = capsys.readouterr().out
    assert usage.startswith("usage: sgkr") and "build" in usage and "mcp" in usage
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert "exit statuses:" in text
    from sgkr.cli import EXIT_CODES

    for code in {0, 130, *EXIT_CODES.values()}:
        assert f"\n  {code:<4} " in text


def test_build_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.json"
    assert main(["build", str(MINI), "--knowledge", str(MINI / "knowledge.json"),
                 "--examples", str(MINI / "examples.jsonl"), "-o", str(out), "--json",
                 "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["output"] == str(out)
    assert (data["files"], data["functions"], data["tags"]) == (4, 9, 6)
    assert data["call_edges"] == {"exact": 6, "inferred": 1}
    assert isinstance(data["seconds"], float) and isinstance(data["problems"], list)
    assert main(["build", str(MINI), "-o", str(out), "--json", "--watch", "1"]) == 2
    assert "--watch" in capsys.readouterr().err


def test_export_refuses_an_unknown_suffix(graph_file: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "g.png"
    assert main(["export", str(graph_file), "-o", str(png)]) == 2
    assert "g.png" in capsys.readouterr().err and not png.exists()
    assert main(["export", str(graph_file), "-o", str(png), "--format", "dot"]) == 0
    assert png.read_text(encoding="utf-8").startswith("digraph")


def test_shell_completion_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--print-completion", "bash"]) == 0
    script = capsys.readouterr().out
    assert "complete" in script and "build" in script and "--no-gitignore" in script


def test_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    import io

    from sgkr import build_graph
    from sgkr.cli.progress import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for i in range(60):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    screen, pipe = Terminal(), io.StringIO()
    for stream in (screen, pipe):
        bar = ProgressBar(stream, delay=0)
        build_graph([tmp_path], jobs=1, progress=bar)
        bar.close()
    assert "parse" in screen.getvalue() and "/60 " in screen.getvalue()
    assert pipe.getvalue() == ""


def test_a_long_stage_shows_before_any_file_is_done() -> None:
    import io
    import time

    from sgkr.cli.progress import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    bar = ProgressBar(screen, delay=0.2, tick=0.05)
    bar("parse", 0, 1760)  # the workers have not finished a file yet
    deadline = time.monotonic() + 10
    while "0/1760" not in screen.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    bar.close()
    assert "parse" in screen.getvalue() and "0/1760" in screen.getvalue()


def test_a_build_reports_every_stage_from_the_start(tmp_path: Path) -> None:
    from sgkr import build_graph

    for i in range(120):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    seen: list[tuple[str, int, int]] = []
    build_graph([tmp_path], jobs=1, progress=lambda *event: seen.append(event))
    assert seen[0] == ("read", 0, 120)  # before a file is read: not blank while reading
    assert seen[seen.index(("read", 120, 120)) + 1] == ("parse", 0, 120)
    assert seen[-2:] == [("assemble", 0, 1), ("assemble", 1, 1)]
    stages = list(dict.fromkeys(stage for stage, _, _ in seen))
    assert stages == ["read", "parse", "assemble"]


def test_verbose_after_the_command_shows_the_traceback(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "/no/such/graph.json", "--verbose"]) == 5
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.subprocess
@pytest.mark.parametrize("argv", [["--print-completion", "bash"], ["--help"], ["demo"]])
def test_a_reader_that_stops_early_gets_no_traceback(argv: list[str]) -> None:
    process = subprocess.Popen([sys.executable, "-m", "sgkr", *argv], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the program writes: every write meets a closed pipe
    error = process.stderr.read().decode()
    assert process.wait(timeout=120) in (0, 141)  # help may end before its text is flushed
    assert error == ""


def test_plain_code_is_built_with_inferred_tags_unless_told_not_to(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "fees.py").write_text("def average_fee(rows, merchant):\n    return rows[merchant]\n")
    out = tmp_path / "g.json"
    for flags, inferred in (([], True), (["--no-infer-tags"], False), (["--infer-tags"], True)):
        assert main(["build", str(src), "-o", str(out), "--no-cache", "--json", *flags]) == 0
        assert (json.loads(capsys.readouterr().out)["tags"] > 0) is inferred
        assert json.loads(out.read_text(encoding="utf-8"))["meta"]["infer_tags"] is inferred
    with pytest.raises(SystemExit) as stop:
        main(["build", str(src), "-o", str(out), "--infer-tags", "--no-infer-tags"])
    assert stop.value.code == 2
