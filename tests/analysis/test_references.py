"""Functions used as values, table-driven: source files in, expected ``references`` edges out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.algorithms.paths import find_paths
from sgkr.analysis.resolve import CallResolver
from sgkr.cli import main
from sgkr.export import render
from sgkr.ingest.extract import extract_module
from sgkr.tags import FunctionKnowledge, Sidecar

from ..conftest import FIXTURES

FEES = "def fee(row):\n    return row['amount'] * 0.1\n"

# (files, expected (user, function) references): exactly these, nothing else.
CASES = {
    "passed to a method of a library object": (
        {"m.py": FEES + "def fees(df):\n    return df.apply(fee, axis=1)\n"},
        {("m.fees", "m.fee")},
    ),
    "passed to a builtin": (
        {"m.py": FEES + "def fees(rows):\n    return list(map(fee, rows))\n"},
        {("m.fees", "m.fee")},
    ),
    "a keyword argument": (
        {"m.py": FEES + "def ranked(rows):\n    return sorted(rows, key=fee)\n"},
        {("m.ranked", "m.fee")},
    ),
    "in a tuple of a keyword argument": (
        {"m.py": FEES + "def totals(g):\n    return g.agg(total=('amount', fee))\n"},
        {("m.totals", "m.fee")},
    ),
    "a dict value at module level": (
        {"m.py": FEES + "HANDLERS = {'fee': fee}\n"},
        {("m", "m.fee")},
    ),
    "list, tuple and set elements": (
        {"m.py": FEES + "def g(x):\n    pass\n"
                 "def steps():\n    return [fee, g], (fee,), {g}\n"},
        {("m.steps", "m.fee"), ("m.steps", "m.g")},
    ),
    "passed to a function of the sources, whose result is chained": (
        {"m.py": FEES + "def pool(f, rows):\n    return rows\n"
                 "def run(rows):\n    return pool(fee, rows).copy()\n"},
        set(),
    ),
    "passed to a library call, whose result is chained": (
        {"m.py": FEES + "def run(df):\n    return df.apply(fee).sum()\n"},
        {("m.run", "m.fee")},
    ),
    "deep inside nested calls and literals": (
        {"m.py": FEES + "def deep(x):\n    return " + "g(x, " * 3000 + "[[fee]]" + ")" * 3000
                 + "\n"},
        {("m.deep", "m.fee")},
    ),
    "returned": (
        {"m.py": FEES + "def pick():\n    return fee\n"},
        {("m.pick", "m.fee")},
    ),
    "assigned to a name": (
        {"m.py": FEES + "def alias():\n    f = fee\n    return f\n"},
        {("m.alias", "m.fee")},
    ),
    "imported from another module, under an alias": (
        {"fees.py": FEES,
         "m.py": "from fees import fee as charge\ndef fees(df):\n    return df.apply(charge)\n"},
        {("m.fees", "fees.fee")},
    ),
    "through a module name": (
        {"fees.py": FEES,
         "m.py": "import fees\ndef run(rows):\n    return map(fees.fee, rows)\n"},
        {("m.run", "fees.fee")},
    ),
    "a bound method of self (a base class's)": (
        {"m.py": "class Base:\n    def on_row(self, row):\n        pass\n"
                 "class Job(Base):\n    def run(self, pool, rows):\n"
                 "        pool.map(self.on_row, rows)\n"},
        {("m.Job.run", "m.Base.on_row")},
    ),
    "passed to a function of the sources: its own calls tell": (
        {"m.py": FEES + "def each(f, rows):\n    return [f(r) for r in rows]\n"
                 "def run(rows):\n    return each(fee, rows)\n"},
        set(),
    ),
    "called and passed: the call wins": (
        {"m.py": FEES + "def run(rows):\n    fee(rows[0])\n    return map(fee, rows)\n"},
        set(),
    ),
    "a class is not a function reference": (
        {"m.py": "class Rule:\n    def __init__(self):\n        pass\n"
                 "def make(factory=Rule):\n    return defaultdict(Rule)\n"},
        set(),
    ),
    "a local variable or a builtin is nothing": (
        {"m.py": "def run(rows, key):\n    total = len(rows)\n    return sorted(rows, key=key)"
                 " or [total, print]\n"},
        set(),
    ),
    "an unknown attribute is not guessed by name": (
        {"m.py": FEES + "def run(obj, rows):\n    return map(obj.fee, rows)\n"},
        set(),
    ),
    "a function referring to itself is no edge": (
        {"m.py": "def walk(tree):\n    return map(walk, tree)\n"},
        set(),
    ),
}


def _references(files: dict[str, str]) -> set[tuple[str, str]]:
    modules = [extract_module(path, text) for path, text in files.items()]
    refs: dict[str, dict[str, str]] = {}
    CallResolver(modules).resolve_modules(modules, refs)  # type: ignore[arg-type]
    assert all(how == "exact" for found in refs.values() for how in found.values())
    return {(user, target) for user, found in refs.items() for target in found}


@pytest.mark.parametrize("files,expected", CASES.values(), ids=CASES.keys())
def test_references(files: dict[str, str], expected: set[tuple[str, str]]) -> None:
    assert _references(files) == expected


def _graph() -> KnowledgeGraph:
    return build_graph([("fees.py", FEES + "def rate():\n    return 0.2\n"
                         "def fees(df):\n    \"\"\"Fees of a data frame.\"\"\"\n"
                         "    return df.apply(fee, axis=1) * rate()\n")], infer_tags=False)


def test_edges_carry_type_and_resolution_and_the_report_counts_them() -> None:
    graph = _graph()
    edges = {(e.source, e.target): (e.type, e.resolution) for e in graph.edges()}
    assert edges == {("fn:fees.fees", "fn:fees.fee"): ("references", "exact"),
                     ("fn:fees.fees", "fn:fees.rate"): ("calls", "exact")}
    assert graph.nx.edges["fn:fees.fees", "fn:fees.fee"] == {
        "type": "references", "resolution": "exact"}
    stats = graph.stats()
    assert stats["edges"] == {"calls": 1, "references": 1}
    assert stats["reference_edges"] == {"exact": 1}
    assert graph.report is not None and graph.report.reference_edges == {"exact": 1}
    assert "reference edges: 1 exact" in graph.report.summary()
    # A call between the same nodes replaces a reference; a reference never replaces a call.
    graph.add_edge_rows([("fn:fees.fees", "fn:fees.rate", "references", "exact"),
                         ("fn:fees.fees", "fn:fees.fee", "calls", "inferred")])
    assert graph.nx.edges["fn:fees.fees", "fn:fees.rate"]["type"] == "calls"
    assert graph.nx.edges["fn:fees.fees", "fn:fees.fee"] == {
        "type": "calls", "resolution": "inferred"}


def test_references_round_trip_through_graph_json(tmp_path: Path) -> None:
    graph = _graph()
    path = tmp_path / "graph.json"
    graph.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = [e for e in data["edges"] if e["source"] == "fn:fees.fees"]
    assert lines and lines[0]["references"] == {"exact": ["fn:fees.fee"]}
    assert KnowledgeGraph.load(path).to_dict() == graph.to_dict()


def test_a_schema_1_graph_still_loads() -> None:
    old = FIXTURES / "mini.graph.v1.json"
    assert json.loads(old.read_text(encoding="utf-8"))["schema_version"] == 1
    graph = KnowledgeGraph.load(old)
    assert graph.stats()["call_edges"] == {"exact": 6, "name": 1}


def test_retrieval_walks_references_like_calls() -> None:
    # The frame goes into fees, the row fee comes out of fee: only the reference joins them.
    sidecar = Sidecar(tags={}, functions={
        "fees": FunctionKnowledge(inputs=("transactions frame",)),
        "fee": FunctionKnowledge(outputs=("row fee",))})
    graph = build_graph([("fees.py", FEES + "def fees(df):\n    return df.apply(fee, axis=1)\n")],
                        knowledge=sidecar)
    assert find_paths(graph, ["fn:fees.fees"], ["fn:fees.fee"]) == [
        ("fn:fees.fees", "fn:fees.fee")]
    result = Retriever(graph).retrieve("the row fee of a transactions frame")
    assert result.paths[0] == ("tag:transaction frame", "fn:fees.fees", "fn:fees.fee",
                               "tag:row fee")


def test_exports_draw_references_dashed() -> None:
    graph = _graph()
    dot = render(graph, format="dot")
    line = next(x for x in dot.splitlines() if '"fn:fees.fees" -> "fn:fees.fee"' in x)
    assert "dashed" in line and "references" in line
    call = next(x for x in dot.splitlines() if '"fn:fees.fees" -> "fn:fees.rate"' in x)
    assert "dashed" not in call
    assert "-.->" in render(graph, format="mermaid")
    assert ".edge.type-references" in render(graph, format="html")


def test_inspect_counts_each_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "graph.json"
    _graph().save(path)
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "calls by resolution: {'exact': 1}; references by resolution: {'exact': 1}" in out
    assert main(["inspect", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["call_edges"], data["reference_edges"]) == ({"exact": 1}, {"exact": 1})
