"""Mermaid, DOT and GraphML, parsed back: nodes, edges, kinds and the highlight."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import networkx as nx
import pytest

from sgkr import InvalidArgumentError, KnowledgeGraph, RetrievalResult, build_graph
from sgkr.export import FORMATS, View, render, render_view, subgraph, to_dot, to_graphml, write
from sgkr.export.graphml import graphml_pieces

_MERMAID_NODE = re.compile(
    r'^    (n\d+)(\[\["|\(\["|\[/"|\["|>")(.*?)("\]\]|"\]\)|"/\]|"\]):::(\w+)$')
_MERMAID_EDGE = re.compile(r"^    (n\d+) (-->|==>|-\.->) (n\d+)$")
_DOT_NODE = re.compile(r'^  ("(?:[^"\\]|\\.)*") \[(.*)\];$')
_DOT_EDGE = re.compile(r'^  ("(?:[^"\\]|\\.)*") -> ("(?:[^"\\]|\\.)*") \[(.*)\];$')
_DOT_ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


@pytest.fixture(scope="module")
def view(payments_graph: KnowledgeGraph, case_result: RetrievalResult) -> View:
    return subgraph(payments_graph, case_result)


def test_mermaid_has_one_line_per_node_and_edge(view: View) -> None:
    lines = render_view(view, "mermaid").splitlines()
    assert lines[0] == "flowchart TD"
    nodes = [m for m in map(_MERMAID_NODE.match, lines) if m]
    edges = [m for m in map(_MERMAID_EDGE.match, lines) if m]
    assert len(nodes) == len(view.nodes) and len(edges) == len(view.edges)
    by_label = {m.group(3): m for m in nodes}
    assert by_label["mcc"].group(2) == '(["' and by_label["mcc"].group(5) == "input"
    module = next(n for n in view.nodes if n.kind == "module")
    assert by_label[module.label].group(2) == '[["'
    classes = {m.group(5) for m in nodes}
    assert {"retrieved", "input", "faded"} <= classes
    thick = sum(1 for m in edges if m.group(2) == "==>")
    assert thick == sum(1 for e in view.edges if e.role == "path") > 0
    faded = next(line for line in lines if line.startswith("    linkStyle "))
    assert len(faded.split()[1].split(",")) == sum(1 for e in view.edges if e.role is None)


def test_mermaid_escapes_quotes_and_newlines() -> None:
    graph = build_graph([("m.py", "def f():\n    return 1\n")])
    text = render(graph, format="mermaid")
    assert '["f"]' in text
    from sgkr.export.view import ViewNode
    odd = View((ViewNode("x", "tag", 'say "hi"\nnow'),), ())
    assert '(["say #quot;hi#quot; now"])' in render_view(odd, "mermaid")


def test_dot_counts_kinds_and_roles(view: View) -> None:
    lines = render_view(view, "dot").splitlines()
    assert lines[0] == "digraph sgkr {" and lines[-1] == "}"
    nodes = {json.loads(m.group(1)): dict(_DOT_ATTR.findall(m.group(2)))
             for m in map(_DOT_NODE.match, lines) if m}
    edges = [m for m in map(_DOT_EDGE.match, lines) if m]
    assert len(nodes) == len(view.nodes) and len(edges) == len(view.edges)
    for n in view.nodes:
        assert nodes[n.id]["kind"] == n.kind
        assert nodes[n.id].get("role") == n.role
    path = [m for m in edges if 'role="path"' in m.group(3)]
    assert len(path) == sum(1 for e in view.edges if e.role == "path")
    assert any(line.startswith("  { rank=min;") and '"tag:mcc";' in line for line in lines)


def test_dot_quotes_awkward_ids() -> None:
    from sgkr.export.view import ViewEdge, ViewNode
    odd = View((ViewNode('a"b\\c', "function", "x"), ViewNode("d", "tag", "y")),
               (ViewEdge('a"b\\c', "d", "produces"),))
    text = to_dot(odd)
    assert '"a\\"b\\\\c" -> "d"' in text


def test_graphml_round_trips_through_networkx(view: View) -> None:
    back = nx.read_graphml(io.StringIO(render_view(view, "graphml")))
    assert back.number_of_nodes() == len(view.nodes)
    assert back.number_of_edges() == len(view.edges)
    assert back.graph["question"] == view.question and back.graph["highlighted"] is True
    for n in view.nodes:
        data = back.nodes[n.id]
        assert (data["kind"], data["label"], data["role"]) == (n.kind, n.label, n.role or "")
        assert json.loads(data["qualnames"]) == list(n.qualnames)
        assert data["faded"] is (n.role is None)
    for e in view.edges:
        data = back.edges[e.source, e.target]
        assert (data["type"], data["role"]) == (e.type, e.role or "")


def test_graphml_is_written_a_node_or_an_edge_at_a_time(view: View) -> None:
    # Issue 41, also seen: GraphML was made as one XML tree, 2.3 GB for a 27 MB graph.json
    # (the standard library's: 700 MB, now 172 MB).
    pieces = list(graphml_pieces(view))
    assert len(pieces) == len(view.nodes) + len(view.edges) + 3
    assert "".join(pieces) == to_graphml(view)
    assert all(p.count("<node ") + p.count("<edge ") <= 1 for p in pieces)


def test_write_picks_the_format_from_the_suffix(tmp_path: Path,
                                                payments_graph: KnowledgeGraph) -> None:
    for name, start in (("g.mmd", "flowchart TD"), ("g.gv", "digraph sgkr {"),
                        ("g.graphml", "<graphml"), ("g.html", "<!DOCTYPE html>"),
                        ("g.txt", "<!DOCTYPE html>")):
        text = write(tmp_path / name, payments_graph, around=["load_fees"], depth=0).read_text(
            encoding="utf-8")
        assert start in text.splitlines()[0] + text.splitlines()[1], name


def test_unknown_format_is_refused(payments_graph: KnowledgeGraph) -> None:
    assert FORMATS == ("html", "mermaid", "dot", "graphml")
    with pytest.raises(InvalidArgumentError, match="svg"):
        render(payments_graph, format="svg")
