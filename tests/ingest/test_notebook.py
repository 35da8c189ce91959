"""Jupyter notebooks as sources: code cells as one module, markdown as knowledge."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgkr import KnowledgeGraph, build_graph
from sgkr.errors import SourceError
from sgkr.ingest.facts import extract_source
from sgkr.ingest.notebook import (
    MAX_NOTEBOOK_CONTAINERS,
    containers,
    is_help,
    is_magic,
    notebook_code,
)

from ..conftest import PAYMENTS


def _notebook(*cells: tuple[str, str], nbformat: int = 4) -> str:
    return json.dumps({
        "nbformat": nbformat, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": kind, "metadata": {},
                   "source": source.splitlines(keepends=True),
                   **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                  for kind, source in cells]})


def _as_notebook(python: str) -> str:
    """A .py file as a notebook: a cell per block between two blank lines, with magics added."""
    blocks = python.split("\n\n\n")
    cells = [("markdown", "# A solution\nIt computes the answer."),
             ("code", "%matplotlib inline\n!pip install pandas\n")]
    cells += [("code", block.strip("\n")) for block in blocks]
    return _notebook(*cells)


def _shape(graph: KnowledgeGraph) -> tuple[list[tuple[str, ...]], list[tuple[str, str, str]]]:
    nodes = sorted((f.id, f.name, f.kind, f.code, *f.qualnames) for f in graph.functions())
    edges = sorted((e.source, e.target, e.type) for e in graph.edges())
    return nodes, edges


def test_a_notebook_of_two_solutions_builds_the_graph_of_the_py_files(tmp_path: Path) -> None:
    py, nb = tmp_path / "py", tmp_path / "nb"
    py.mkdir()
    nb.mkdir()
    for name in ("task_1234", "task_1273"):
        text = (PAYMENTS / "solutions" / f"{name}.py").read_text(encoding="utf-8")
        (py / f"{name}.py").write_text(text, encoding="utf-8")
        (nb / f"{name}.ipynb").write_text(_as_notebook(text), encoding="utf-8")
    from_py, from_nb = build_graph([py]), build_graph([nb])
    assert from_nb.report is not None and from_nb.report.problems == ()
    nodes, edges = _shape(from_nb)
    assert (nodes, edges) == _shape(from_py)
    assert len(nodes) > 5 and len(edges) > 5
    knowledge = {f.id: f.knowledge for f in from_py.functions() if f.kind != "module"}
    assert knowledge == {f.id: f.knowledge for f in from_nb.functions() if f.kind != "module"}
    # Lines map back to the notebook's cells.
    load = from_nb.function("fn:task_1234.load_payments")
    span = load.sources[0]
    assert (span.file, span.cell, span.end_cell) == ("task_1234.ipynb", span.cell, span.cell)
    cells = json.loads((nb / "task_1234.ipynb").read_text(encoding="utf-8"))["cells"]
    lines = cells[span.cell - 1]["source"]
    assert lines[span.start_line - 1].startswith("def load_payments(")
    assert span.end_line == len(lines)


def test_markdown_above_a_cell_is_knowledge_of_its_functions(tmp_path: Path) -> None:
    (tmp_path / "fees.ipynb").write_text(_notebook(
        ("markdown", "## Fees\nA fee is fixed_amount + rate * amount / 10000."),
        ("markdown", "Rates are in basis points."),
        ("code", "def fee(rule, amount):\n    \"\"\"The fee of one payment.\"\"\"\n"
                 "    return rule.fixed + rate(rule) * amount / 10000\n\n"
                 "def rate(rule):\n    return rule.rate\n"),
        ("code", "def unexplained():\n    return fee(None, 1)\n")), encoding="utf-8")
    graph = build_graph([tmp_path], infer_tags=False)
    fee = graph.function("fn:fees.fee")
    assert fee.knowledge == ("## Fees\nA fee is fixed_amount + rate * amount / 10000.\n\n"
                             "Rates are in basis points.\n\nThe fee of one payment.")
    assert graph.function("fn:fees.rate").knowledge.startswith("## Fees")
    assert "Fees" not in graph.function("fn:fees.unexplained").knowledge
    assert {(e.source, e.target) for e in graph.edges()} == {
        ("fn:fees.fee", "fn:fees.rate"), ("fn:fees.unexplained", "fn:fees.fee")}
    spans = {f.name: f.sources[0].to_dict() for f in graph.functions()}
    assert spans["rate"] == {"file": "fees.ipynb", "start_line": 5, "end_line": 6,
                             "cell": 3, "end_cell": 3}
    assert spans["unexplained"]["cell"] == 4
    # The cells survive graph.json.
    graph.save(tmp_path / "g.json")
    again = KnowledgeGraph.load(tmp_path / "g.json")
    assert again.function("fn:fees.rate").sources == graph.function("fn:fees.rate").sources


@pytest.mark.parametrize("source,kept", [
    ("%matplotlib inline\nx = 1", ["", "x = 1"]),
    ("!pip install pandas\nfiles = !ls\nt = %timeit -o f()\ny = 2", ["", "", "", "y = 2"]),
    ("if x:\n    %time f()\n    y = x != 1", ["if x:", "", "    y = x != 1"]),
    ("msg = ('fee %s'\n       % rate)", ["msg = ('fee %s'", "       % rate)"]),
    ("pd.read_csv?\n??fee\nz = 1", ["", "", "z = 1"]),
    ("%%time\nz = 3", ["", "z = 3"]),
    ("%%bash\nls -l\necho hi", ["", "", ""]),
    ("%%writefile a.py\ndef f():\n    pass", ["", "", ""]),
])
def test_magic_and_shell_lines_are_left_out_in_place(source: str, kept: list[str]) -> None:
    code = notebook_code(_notebook(("code", source)))
    assert code.text.splitlines() == kept


def test_syntax_errors_name_the_cell() -> None:
    raw = _notebook(("code", "x = 1"), ("markdown", "text"), ("code", "y = 2\ndef f(:\n    pass"))
    problems = extract_source("nb.ipynb", raw).problems
    assert problems and all(p.reason.startswith("cell 3: ") for p in problems)
    assert problems[0].line == 2


@pytest.mark.parametrize("raw,why", [
    ("{not json", "not a notebook"),
    ("[1, 2]", "no list of cells"),
    ('{"cells": "x", "nbformat": 4}', "no list of cells"),
    (_notebook(("code", "x = 1"), nbformat=3), "nbformat 3 is not supported"),
    ('{"nbformat": 4, "cells": [{"cell_type": "code", "source": 7}]}', "cell 1 has no"),
    ('{"nbformat": 4, "cells": [5]}', "cell 1 is not an object"),
    ('{"nbformat": 4, "cells": ' + "[" * 100_000 + "]" * 100_000 + "}", "not a notebook"),
])
def test_a_malformed_notebook_is_reported_and_skipped(tmp_path: Path, raw: str, why: str) -> None:
    (tmp_path / "bad.ipynb").write_text(raw, encoding="utf-8")
    (tmp_path / "good.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    graph = build_graph([tmp_path])
    assert [f.id for f in graph.functions()] == ["fn:good.f"]
    assert graph.report is not None
    [problem] = graph.report.problems
    assert problem.file == "bad.ipynb" and why in problem.reason


def test_notebooks_go_through_the_cache_and_worker_processes(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(4):
        (src / f"nb{i}.ipynb").write_text(_notebook(
            ("markdown", f"Step {i}."), ("code", f"def step{i}():\n    return {i}\n")),
            encoding="utf-8")
    fresh = build_graph([src], jobs=1)
    for jobs in (2, 1):  # parsed by workers and cached, then read from the cache
        graph = build_graph([src], jobs=jobs, cache=tmp_path / "cache")
        assert graph.to_dict()["nodes"] == fresh.to_dict()["nodes"]
    assert fresh.function("fn:nb2.step2").sources[0].cell == 2
    assert fresh.function("fn:nb2.step2").knowledge.startswith("Step 2.")


def test_an_update_reads_a_changed_notebook_again(tmp_path: Path) -> None:
    from sgkr import GraphBuilder

    path = tmp_path / "nb.ipynb"
    path.write_text(_notebook(("code", "def a():\n    return 1\n")), encoding="utf-8")
    builder = GraphBuilder([tmp_path], infer_tags=False)
    assert [f.name for f in builder.build().functions()] == ["a"]
    path.write_text(_notebook(("code", "def a():\n    return 1\n"), ("markdown", "B explained."),
                              ("code", "def b():\n    return a()\n")), encoding="utf-8")
    graph = builder.update()
    assert graph.function("fn:nb.b").knowledge.startswith("B explained.")
    assert graph.function("fn:nb.b").sources[0].cell == 3
    assert [(e.source, e.target) for e in graph.edges()] == [("fn:nb.b", "fn:nb.a")]


def test_a_bad_cell_number_in_graph_json_is_refused(tmp_path: Path) -> None:
    from sgkr.errors import GraphFormatError

    (tmp_path / "nb.ipynb").write_text(_notebook(("code", "def a():\n    return 1\n")),
                                       encoding="utf-8")
    data = build_graph([tmp_path]).to_dict()
    data["nodes"][0]["sources"][0][3] = 0  # [file, start_line, end_line, cell, end_cell]
    (tmp_path / "g.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(GraphFormatError, match="cell and end_cell"):
        KnowledgeGraph.load(tmp_path / "g.json")


def test_query_output_and_metadata_name_the_cell(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from sgkr import Retriever
    from sgkr.cli import main

    (tmp_path / "fees.ipynb").write_text(_notebook(
        ("markdown", "Fees."), ("code", "x = 1"),
        ("code", "def total_fee(amount):\n    return 2 * amount\n")), encoding="utf-8")
    graph = build_graph([tmp_path], infer_tags=True)
    [doc] = [d for d in Retriever(graph).retrieve("What is the total fee?").documents
             if d.name == "total_fee"]
    assert doc.metadata()["cell"] == 3 and doc.metadata()["start_line"] == 1
    graph.save(tmp_path / "g.json")
    assert main(["query", str(tmp_path / "g.json"), "What is the total fee?"]) == 0
    assert "total_fee  (fees.ipynb, cell 3, line 1)" in capsys.readouterr().out


def test_outputs_do_not_count_towards_the_size_limit(tmp_path: Path) -> None:
    cells = [("markdown", "Plot the fees."), ("code", "def fee(a):\n    return 2 * a\n")]
    document = json.loads(_notebook(*cells))
    document["cells"][1]["outputs"] = [{"output_type": "display_data",
                                        "data": {"image/png": "A" * 20_000}}]
    (tmp_path / "plots.ipynb").write_text(json.dumps(document), encoding="utf-8")
    graph = build_graph([tmp_path], max_file_bytes=5_000)
    assert [f.name for f in graph.functions()] == ["fee"]
    assert graph.function("fn:plots.fee").knowledge.startswith("Plot the fees.")
    # The limit still holds for the code, and for the file as read (ten times the limit).
    with pytest.raises(SourceError):
        build_graph([tmp_path], max_file_bytes=1_000)
    long_code = json.loads(_notebook(("code", "x = 1\n" * 2_000)))
    (tmp_path / "plots.ipynb").write_text(json.dumps(long_code), encoding="utf-8")
    (tmp_path / "other.py").write_text("def g():\n    return 1\n", encoding="utf-8")
    report = build_graph([tmp_path], max_file_bytes=5_000).report
    assert report is not None
    assert [p.reason.split(" (")[0] for p in report.problems] == [
        "notebook too large without its outputs"]


def test_a_notebook_of_millions_of_tiny_outputs_is_skipped_before_it_is_parsed(
        tmp_path: Path) -> None:
    # Issue 41, also seen: a 48 MB notebook of 8 million tiny outputs peaked at 769 MB (a
    # 24 MB one of empty objects: 690 MB, 3.6 s); refused now from its text, in bounded
    # memory (102 MB, 1.4 s for the whole sgkr build).
    document = json.loads(_notebook(("code", "def fee(a):\n    return 2 * a\n")))
    text = json.dumps(document)
    cut = text.rindex("}]")  # inside the code cell: its outputs
    spam = ', "outputs": [' + ",".join(["{}"] * (MAX_NOTEBOOK_CONTAINERS + 1)) + "]"
    (tmp_path / "many.ipynb").write_text(text[:cut] + spam + text[cut:], encoding="utf-8")
    (tmp_path / "other.py").write_text("def g():\n    return 1\n", encoding="utf-8")
    report = build_graph([tmp_path], max_file_bytes=5_000_000).report
    assert report is not None
    assert [p.reason.split(":")[0] for p in report.problems] == ["notebook too large to read"]
    assert containers(text) < 10


def test_a_rerun_that_changes_only_outputs_changes_nothing(tmp_path: Path) -> None:
    from sgkr import GraphBuilder

    path = tmp_path / "nb.ipynb"
    document = json.loads(_notebook(("code", "def a():\n    return 1\n")))
    path.write_text(json.dumps(document), encoding="utf-8")
    builder = GraphBuilder([tmp_path])
    builder.build()
    document["cells"][0]["outputs"] = [{"output_type": "stream", "text": "1"}]
    document["cells"][0]["execution_count"] = 7
    path.write_text(json.dumps(document), encoding="utf-8")
    builder.update()
    assert builder.last_update is not None and not builder.last_update.changed


@pytest.mark.slow
def test_m6_a_notebook_of_many_cells_is_read_in_linear_time() -> None:
    # Issue 33, M6: each definition looked its cell up in a list made again each time
    # (20,000 cells: 45 s). Every definition still lands in its own cell and line.
    cells = [{"cell_type": "markdown", "source": "About f."}] + [
        {"cell_type": "code", "source": f"def f{i}():\n    return {i}\n"} for i in range(20_000)]
    module = extract_source("many.ipynb", json.dumps({"nbformat": 4, "cells": cells}))
    last = module.definitions[-1]
    assert len(module.definitions) == 20_000
    assert (last.name, last.span.cell, last.span.start_line, last.span.end_line) == (
        "f19999", 20_001, 1, 2)
    first = next(d for d in module.definitions if d.name == "f0")
    assert first.comment == "About f." and first.span.cell == 2


# IPython's lines as the notebook reader once told them, by pattern: a reference only.
_MAGIC_PATTERN = re.compile(r"\s*(?:[\w.]+\s*=\s*)?(?:%%?[A-Za-z_]|!(?!=))")
_HELP_PATTERN = re.compile(r"\s*(?:\?{1,2}[\w.]+|[\w.]+\?{1,2})\s*$")
_LINE_PIECES = st.sampled_from([" ", "\t", "\u3000", "%", "%%", "!", "!=", "=", "?", "??", "x",
                                "pd.read", "_", "é", "1", "time", " = ", "\r", "-"])


@given(st.lists(_LINE_PIECES, max_size=8).map("".join))
def test_magic_and_help_lines_are_told_as_ipython_writes_them(line: str) -> None:
    assert is_magic(line) == bool(_MAGIC_PATTERN.match(line))
    assert is_help(line) == bool(_HELP_PATTERN.match(line))
