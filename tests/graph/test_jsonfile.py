"""graph.json: the golden file of a small fixture, round trips, refusals, atomic saves."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.errors import GraphFormatError
from sgkr.graph.jsonfile import SCHEMA_VERSION

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
    assert data["schema_version"] == SCHEMA_VERSION
    functions = [n for n in data["nodes"] if n["type"] == "function"]
    tags = [n for n in data["nodes"] if n["type"] == "tag"]
    assert functions and tags
    for node in functions:
        assert set(node) >= {"id", "type", "name", "qualnames", "code", "knowledge", "sources",
                             "kind"}
        assert all(set(s) == {"file", "start_line", "end_line"} for s in node["sources"])
    assert all(set(t) >= {"id", "type", "label", "aliases"} for t in tags)
    calls = [e for e in data["edges"] if e["type"] == "calls"]
    assert calls and all(e["resolution"] in ("exact", "inferred", "name") for e in calls)
    assert {e["type"] for e in data["edges"]} == {"calls", "consumes", "produces"}


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
        data["schema_version"] = SCHEMA_VERSION + 1
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
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


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
    assert len(lines) == len(data["nodes"]) + len(data["edges"]) + 5
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
