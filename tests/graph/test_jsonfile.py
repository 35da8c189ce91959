"""graph.json: the golden file of a small fixture, round trips, refusals, atomic saves."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.errors import GraphFormatError
from sgkr.graph.jsonfile import SCHEMA_VERSION, TASKS_VERSION
from sgkr.graph.jsonrecords import records_of
from sgkr.records import EdgeRow, FunctionNode, SourceSpan, TagNode

from ..conftest import FIXTURES

MINI = FIXTURES / "mini"
GOLDEN = FIXTURES / "mini.graph.json"


def _mini() -> KnowledgeGraph:
    return build_graph([MINI], knowledge=MINI / "knowledge.json",
                       examples=MINI / "examples.jsonl")


def test_golden_graph_json(tmp_path: Path) -> None:
    out = tmp_path / "graph.json"
    _mini().save(out)
    if os.environ.get("SGKR_UPDATE_GOLDEN"):
        GOLDEN.write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(
        GOLDEN.read_text(encoding="utf-8")), "set SGKR_UPDATE_GOLDEN=1 to accept a change"


def test_fields_other_tools_read() -> None:
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert data["schema_version"] == TASKS_VERSION  # it keeps its solved tasks
    functions = [n for n in data["nodes"] if n.get("type", "function") == "function"]
    tags = [n for n in data["nodes"] if n.get("type") == "tag"]
    assert functions and tags
    for node in functions:
        assert set(node) >= {"id", "code", "knowledge", "sources"}
        assert set(node) <= {"id", "name", "kind", "qualnames", "sources", "knowledge", "code"}
        assert all(type(s) is list and len(s) == 3 for s in node["sources"])
    assert all(set(t) >= {"id", "type"} for t in tags)
    groups = [e for e in data["edges"] if "calls" in e]
    assert groups and all(set(e["calls"]) <= {"exact", "inferred", "name"} for e in groups)
    assert set().union(*data["edges"]) == {"source", "calls", "consumes", "produces"}


def test_older_versions_load_as_the_same_graph() -> None:
    golden = KnowledgeGraph.load(GOLDEN)  # version 2 is the same graph, every field written out
    assert golden.tasks  # version 4 keeps the solved tasks, which version 2 did not
    golden.set_tasks(())
    assert KnowledgeGraph.load(FIXTURES / "mini.graph.v2.json").to_dict() == golden.to_dict()
    assert records_of(golden) == json.loads(
        (FIXTURES / "mini.graph.v2.json").read_text(encoding="utf-8"))
    older = KnowledgeGraph.load(FIXTURES / "mini.graph.v1.json")  # an earlier build's graph
    assert {f.id: f for f in older.functions()} == {f.id: f for f in golden.functions()}


def _odd() -> KnowledgeGraph:
    """A graph using every field of the format, with values its defaults do not give."""
    functions = [
        FunctionNode("fn:a.f", "f", ("a.f",), "def f(): pass", "F.", (SourceSpan("a.py", 1, 1),),
                     "function"),
        FunctionNode("fn:g", "g", ("a.g", "b.g"), "", "", (SourceSpan("a.py", 2, 3),
                     SourceSpan("b.py", 4, 5)), "method"),
        FunctionNode("fn:a.h", "other", ("x.h",), "h", "H", (SourceSpan("n.ipynb", 1, 2, 3, 4),),
                     "function"),
        FunctionNode("mod:a", "a", ("a",), "import b", "", (), "module"),
        FunctionNode("odd id", "odd id", ("odd id",), "", "", (), "function")]
    tags = [TagNode("tag:fee", "fee"), TagNode("tag:amount", "Amount", ("value", "sum"), 0.25),
            TagNode("tag:one", "one", (), 1.0)]
    rows: list[EdgeRow] = [
        ("fn:a.f", "fn:g", "calls", "exact"), ("fn:a.f", "fn:a.h", "calls", "name"),
        ("fn:a.f", "mod:a", "references", "inferred"), ("fn:a.f", "tag:fee", "produces", None),
        ("fn:g", "fn:a.f", "calls", "inferred"), ("tag:amount", "fn:a.f", "consumes", None),
        ("tag:amount", "fn:g", "consumes", None)]
    return KnowledgeGraph.from_rows([*functions, *tags], rows, meta={"note": "odd"})


def test_every_field_round_trips(tmp_path: Path) -> None:
    graph = _odd()
    graph.save(tmp_path / "g.json")
    again = KnowledgeGraph.load(tmp_path / "g.json")
    assert records_of(again) == records_of(graph)
    assert sorted(again.records(), key=str) == sorted(graph.records(), key=str)
    assert records_of(KnowledgeGraph.from_dict(graph.to_dict())) == records_of(graph)
    lines = (tmp_path / "g.json").read_text(encoding="utf-8").splitlines()
    assert '{"id":"fn:a.f","sources":[["a.py",1,1]],"knowledge":"F.","code":"def f(): pass"},' \
        in lines
    assert '{"id":"tag:fee","type":"tag"},' in lines
    assert ('{"source":"fn:a.f","calls":{"exact":["fn:g"],"name":["fn:a.h"]},'
            '"references":{"inferred":["mod:a"]},"produces":["tag:fee"]},') in lines


def test_round_trip(tmp_path: Path) -> None:
    graph = _mini()
    graph.save(tmp_path / "g.json")
    again = KnowledgeGraph.load(tmp_path / "g.json")
    assert again.to_dict() == graph.to_dict()


def _valid() -> dict[str, Any]:
    return {"schema_version": 1, "nodes": [
        {"id": "fn:f", "type": "function", "name": "f", "kind": "function", "qualnames": ["m.f"],
         "sources": [{"file": "m.py", "start_line": 1, "end_line": 2}], "knowledge": "",
         "code": "def f(): pass"},
        {"id": "tag:x", "type": "tag", "label": "x", "aliases": []}],
        "edges": [{"source": "tag:x", "target": "fn:f", "type": "consumes"}]}


def _broken(change: str) -> Any:
    data = _valid()
    if change == "future":
        data["schema_version"] = TASKS_VERSION + 1
    elif change == "no version":
        del data["schema_version"]
    elif change == "missing node":
        data["edges"].append({"source": "fn:f", "target": "fn:nope", "type": "calls",
                              "resolution": "exact"})
    elif change == "duplicate id":
        data["nodes"].append(dict(data["nodes"][0]))
    elif change == "bad kind":
        data["nodes"][0]["kind"] = "lambda"
    elif change == "bad edge direction":
        data["edges"] = [{"source": "fn:f", "target": "tag:x", "type": "consumes"}]
    elif change == "calls without resolution":
        data["edges"] = [{"source": "fn:f", "target": "fn:f", "type": "calls"}]
    elif change == "negative line":
        data["nodes"][0]["sources"][0]["start_line"] = -1
    elif change == "not a list":
        data["nodes"] = {}
    return data


@pytest.mark.parametrize("change,message", [
    ("future", "newer than this SGKR understands"),
    ("no version", "schema_version"),
    ("missing node", "missing node 'fn:nope'"),
    ("duplicate id", "duplicate node id"),
    ("bad kind", "unknown function kind 'lambda'"),
    ("bad edge direction", "a consumes edge goes tag -> function"),
    ("calls without resolution", "needs resolution"),
    ("negative line", "positive integers"),
    ("not a list", "must be lists"),
])
def test_malformed_graphs_are_refused(tmp_path: Path, change: str, message: str) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps(_broken(change)), encoding="utf-8")
    with pytest.raises(GraphFormatError, match=message) as info:
        KnowledgeGraph.load(path)
    assert str(path) in str(info.value)


def test_truncated_and_missing_files(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps(_valid())[:-20], encoding="utf-8")
    with pytest.raises(GraphFormatError, match="truncated or corrupted"):
        KnowledgeGraph.load(path)
    with pytest.raises(GraphFormatError, match="cannot read"):
        KnowledgeGraph.load(tmp_path / "absent.json")


def test_save_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "g.json"
    _mini().save(path)
    before = path.read_bytes()

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        KnowledgeGraph.from_dict(_valid()).save(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json", "g.lexical.npz",
                                                          "g.tasks.npz"]


def test_a_saved_graph_loads_as_it_was(payments_graph: KnowledgeGraph) -> None:
    data = payments_graph.to_dict()
    assert KnowledgeGraph.from_dict(data).to_dict() == data


def test_valid_forms_sgkr_does_not_write_still_load() -> None:
    data = _valid()
    data["edges"][0]["resolution"] = None  # valid, but not the form SGKR writes
    data["nodes"][1]["note"] = "extra keys are ignored"
    graph = KnowledgeGraph.from_dict(data)
    assert [(e.source, e.target, e.resolution) for e in graph.edges()] == [
        ("tag:x", "fn:f", None)]


def test_saved_file_is_compact_one_item_a_line(tmp_path: Path) -> None:
    graph = _mini()
    graph.save(tmp_path / "g.json")
    text = (tmp_path / "g.json").read_text(encoding="utf-8")
    data = json.loads(text)
    lines = text.splitlines()
    assert data["tasks"]  # one line each, after the edges
    assert len(lines) == len(data["nodes"]) + len(data["edges"]) + len(data["tasks"]) + 7
    assert json.loads(lines[-2].rstrip(",")) == data["tasks"][-1]
    assert json.loads(lines[2].rstrip(",")) == data["nodes"][0]
    assert ": " not in lines[0] and text.endswith("]}\n")
    empty = KnowledgeGraph()
    empty.save(tmp_path / "empty.json")
    assert KnowledgeGraph.load(tmp_path / "empty.json").to_dict() == empty.to_dict()


@pytest.mark.parametrize("change,message", [
    ("duplicate edge", "duplicate edge tag:x -> fn:f"),
    ("number as edge end", "'target' must be a non-empty string"),
    ("number in qualnames", "'qualnames' must be a list of strings"),
    ("number in aliases", "'aliases' must be a list of strings"),
    ("unknown resolution", "needs resolution"),
    ("weight over 1", "'weight' must be a number from 0 to 1"),
    ("weight as text", "'weight' must be a number from 0 to 1"),
])
def test_malformed_items_are_refused_by_name(change: str, message: str) -> None:
    data = _valid()
    if change == "duplicate edge":
        data["edges"].append(dict(data["edges"][0]))
    elif change == "number as edge end":
        data["edges"][0]["target"] = 7
    elif change == "number in qualnames":
        data["nodes"][0]["qualnames"].append(3)
    elif change == "number in aliases":
        data["nodes"][1]["aliases"] = ["y", None]
    elif change == "weight over 1":
        data["nodes"][1]["weight"] = 1.5
    elif change == "weight as text":
        data["nodes"][1]["weight"] = "0.5"
    else:
        data["edges"] = [{"source": "fn:f", "target": "fn:f", "type": "calls",
                          "resolution": "guess"}]
    with pytest.raises(GraphFormatError, match=message):
        KnowledgeGraph.from_dict(data)


def test_tag_weights_are_kept_and_older_files_without_them_weigh_1() -> None:
    data = _valid()
    assert KnowledgeGraph.from_dict(data).tag("tag:x").weight == 1.0
    data["nodes"][1]["weight"] = 0.25
    graph = KnowledgeGraph.from_dict(data)
    assert graph.tag("tag:x").weight == 0.25
    assert graph.to_dict()["nodes"][1]["weight"] == 0.25


def _v3() -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "meta": {}, "nodes": [
        {"id": "fn:m.f", "sources": [["m.py", 1, 2]], "knowledge": "", "code": "def f(): pass"},
        {"id": "tag:x", "type": "tag"}],
        "edges": [{"source": "fn:m.f", "calls": {"exact": ["fn:m.f"]}},
                  {"source": "tag:x", "consumes": ["fn:m.f"]}]}


@pytest.mark.parametrize("change,message", [
    (lambda d: d["nodes"][0].update(type="class"), "nodes[0]: unknown node type 'class'"),
    (lambda d: d["nodes"][0].update(kind="lambda"), "nodes[0]: unknown function kind 'lambda'"),
    (lambda d: d["nodes"][0].update(name=""), "nodes[0]: 'name' must be a non-empty string"),
    (lambda d: d["nodes"][0].update(id="fn:m."), "nodes[0]: 'name' must be a non-empty string"),
    (lambda d: d["nodes"][0].update(qualnames="m.f"), "nodes[0]: 'qualnames' must be a list"),
    (lambda d: d["nodes"][0].pop("code"), "nodes[0]: 'code' must be a string"),
    (lambda d: d["nodes"][0].update(sources={}), "nodes[0]: 'sources' must be a list"),
    (lambda d: d["nodes"][0]["sources"].append({"file": "m.py", "start_line": 1,
                                                "end_line": 2}),
     "nodes[0].sources[1]: must be [file, start_line, end_line]"),
    (lambda d: d["nodes"][0]["sources"][0].pop(), "nodes[0].sources[0]: must be [file"),
    (lambda d: d["nodes"][0]["sources"][0].__setitem__(0, 3),
     "nodes[0].sources[0]: 'file' must be a string"),
    (lambda d: d["nodes"][0]["sources"][0].__setitem__(1, 0), "positive integers"),
    (lambda d: d["nodes"][0]["sources"][0].extend([1, "2"]),
     "cell and end_cell must be positive integers"),
    (lambda d: d["nodes"][1].update(id="tag:"), "nodes[1]: 'label' must be a non-empty string"),
    (lambda d: d["nodes"][1].update(aliases="y"), "nodes[1]: 'aliases' must be a list"),
    (lambda d: d["nodes"][1].update(weight=2), "nodes[1]: 'weight' must be a number"),
    (lambda d: d["nodes"].append({"id": "tag:x", "type": "tag"}), "duplicate node id 'tag:x'"),
    (lambda d: d["edges"].append([]), "edges[2]: must be an object"),
    (lambda d: d["edges"][1].pop("source"), "edges[1]: 'source' must be a non-empty string"),
    (lambda d: d["edges"][1].update(calls=["fn:m.f"]),
     "edges[1]: 'calls' must be an object of resolution"),
    (lambda d: d["edges"][0]["calls"].update(guess=["fn:m.f"]),
     "edges[0]: a calls edge needs resolution 'exact', 'inferred' or 'name', not 'guess'"),
    (lambda d: d["edges"][1].update(consumes="fn:m.f"),
     "edges[1]: 'consumes' must be a list of node ids"),
    (lambda d: d["edges"][0]["calls"].update(exact=[""]),
     "edges[0]: 'calls.exact' must be a list of node ids"),
    (lambda d: d["edges"][1].update(eats=["fn:m.f"]), "edges[1]: unknown edge type 'eats'"),
    (lambda d: d["edges"][1].update(consumes=["fn:nope"]),
     "edges[1]: refers to missing node 'fn:nope'"),
    (lambda d: d["edges"][1].update(consumes=[], produces=["fn:m.f"]),
     "edges[1]: a produces edge goes function -> tag, not tag -> function"),
    (lambda d: d["edges"].append({"source": "fn:m.f", "calls": {"name": ["fn:m.f"]}}),
     "edges[2]: duplicate edge fn:m.f -> fn:m.f"),
    (lambda d: d["edges"][0].update(references={"name": ["fn:m.f"]}),
     "edges[0]: duplicate edge fn:m.f -> fn:m.f"),
    (lambda d: d["edges"][1].update(consumes=["fn:m.f", "fn:m.f"]),
     "edges[1]: duplicate edge tag:x -> fn:m.f"),
    (lambda d: d["edges"][1].update(consumes=[["fn:m.f"]]),
     "edges[1]: 'consumes' must be a list of node ids"),
    (lambda d: d["edges"][0].update(calls={}, consumes=["tag:x"]),
     "edges[0]: a consumes edge goes tag -> function, not function -> tag"),
    (lambda d: d["nodes"][1].update(weight=1.5), "nodes[1]: 'weight' must be a number"),
    (lambda d: d["nodes"][0].update(kind="lambda"), "nodes[0]: unknown function kind 'lambda'"),
    (lambda d: d["nodes"][0].update(code=None), "nodes[0]: 'code' must be a string"),
    (lambda d: d["nodes"][0]["sources"].append(["m.py", 0, 1]),
     "nodes[0].sources[1]: start_line and end_line must be positive integers"),
])
def test_malformed_items_of_version_3_are_refused_by_name(tmp_path: Path, change: Any,
                                                         message: str) -> None:
    assert KnowledgeGraph.from_dict(_v3()).to_dict() == _v3()
    data = _v3()
    change(data)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(GraphFormatError, match=re.escape(message)) as info:
        KnowledgeGraph.load(path)
    assert str(info.value).startswith(f"{path}: ")


def _v3_more() -> dict[str, Any]:
    data = _v3()
    data["nodes"].insert(1, {"id": "fn:m.g", "kind": "method", "knowledge": "", "code": "",
                             "sources": [["m.ipynb", 1, 2, 1, 1]]})
    return data


@pytest.mark.parametrize("change,message", [
    (lambda d: d["nodes"].append({"id": "fn:m.f", "type": "tag"}),
     "nodes[3]: duplicate node id 'fn:m.f'"),
    (lambda d: d["edges"].append({"source": ""}), "edges[2]: 'source' must be a non-empty"),
    (lambda d: d["edges"][0].update(source=["fn:m.f"]), "edges[0]: 'source' must be a non-empty"),
    (lambda d: d["edges"].append({"calls": {}}), "edges[2]: 'source' must be a non-empty"),
    (lambda d: d["edges"].append(3), "edges[2]: must be an object"),
    (lambda d: d["edges"].append({"source": "fn:m.f", "references": {"name": ["fn:m.f"]}}),
     "edges[2]: duplicate edge fn:m.f -> fn:m.f"),
    (lambda d: d["edges"][0]["calls"].update({None: ["fn:m.g"]}),
     "edges[0]: a calls edge needs resolution 'exact', 'inferred' or 'name', not None"),
    (lambda d: d["edges"][0]["calls"].update(name=["tag:x"]),
     "edges[0]: a calls edge goes function -> function, not function -> tag"),
    (lambda d: d["edges"][0]["calls"].update(name=[{}]),
     "edges[0]: 'calls.name' must be a list of node ids"),
    (lambda d: d["edges"].append({"source": "fn:zz", "calls": {"exact": ["fn:m.f"]}}),
     "edges[2]: refers to missing node 'fn:zz'"),
    (lambda d: d["edges"][0]["calls"].update(exact=["fn:m.g", "fn:m.g"]),
     "edges[0]: duplicate edge fn:m.f -> fn:m.g"),
    (lambda d: d["edges"][0].update(produces=["fn:m.g"]),
     "edges[0]: a produces edge goes function -> tag, not function -> function"),
    (lambda d: d["nodes"][2].update(weight=True), "nodes[2]: 'weight' must be a number"),
    (lambda d: d["nodes"][2].update(weight=float("nan")), "nodes[2]: 'weight' must be a number"),
    (lambda d: d["nodes"][0].update(kind=["method"]), "nodes[0]: unknown function kind ['method']"),
    (lambda d: d["nodes"][0].update(type=["tag"]), "nodes[0]: unknown node type ['tag']"),
    (lambda d: d["nodes"][0].update(qualnames=None), "nodes[0]: 'qualnames' must be a list"),
    (lambda d: d["nodes"][0].update(name=None), "nodes[0]: 'name' must be a non-empty string"),
    (lambda d: d["nodes"][2].update(label=""), "nodes[2]: 'label' must be a non-empty string"),
    (lambda d: d["nodes"][2].update(aliases=None), "nodes[2]: 'aliases' must be a list"),
    (lambda d: d["nodes"][0].update(id=3), "nodes[0]: 'id' must be a non-empty string"),
    (lambda d: d["nodes"][0]["sources"][0].__setitem__(1, True), "positive integers"),
    (lambda d: d["nodes"][1]["sources"][0].__setitem__(3, 0),
     "nodes[1].sources[0]: cell and end_cell must be positive integers"),
])
def test_each_wrong_field_is_refused_by_name(change: Any, message: str) -> None:
    data = _v3_more()
    change(data)
    with pytest.raises(GraphFormatError, match=re.escape(message)):
        KnowledgeGraph.from_dict(data, where="g.json")


@pytest.mark.parametrize("change,edges", [
    (lambda d: d["edges"].append({"source": "fn:nope"}), 2),  # a line of no edges
    (lambda d: d["edges"].append({"source": "fn:m.f", "calls": {"name": ["fn:m.g"]}}), 3),
    (lambda d: d["edges"][0].update(references={}), 2),
    (lambda d: d["nodes"][2].update(weight=0, aliases=["y", "z"]), 2),
    (lambda d: d["nodes"][0].update(qualnames=["a.b", "c.d"]), 2),
])
def test_unusual_but_valid_lines_still_load(change: Any, edges: int) -> None:
    data = _v3_more()
    change(data)
    graph = KnowledgeGraph.from_dict(data)
    assert len(list(graph.edges())) == edges
    assert KnowledgeGraph.from_dict(graph.to_dict()).to_dict() == graph.to_dict()
