"""Hostile graph.json files: refused with one clear GraphFormatError, never half-loaded.

Saving is atomic: a crash mid-save leaves the previous file whole.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgkr import build_graph
from sgkr.errors import GraphFormatError
from sgkr.graph import KnowledgeGraph
from sgkr.records import FunctionNode

FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _graph() -> KnowledgeGraph:
    from sgkr.tags import FunctionKnowledge, Sidecar

    code = ("def fee(rule, amount):\n    return rule['fixed'] + rule['rate'] * amount\n"
            "def avg_fee(rules, amount):\n    return sum(fee(r, amount) for r in rules)\n")
    side = Sidecar({"fee": FunctionKnowledge(inputs=("amount",)),
                    "avg_fee": FunctionKnowledge(outputs=("average fee",))}, {})
    return build_graph([("fees.py", code)], knowledge=side)


GOOD = _graph().to_dict()


def _refused(tmp_path: Path, content: bytes | str) -> str:
    path = tmp_path / "graph.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(GraphFormatError) as info:
        KnowledgeGraph.load(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def test_the_good_graph_loads(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(GOOD))
    assert KnowledgeGraph.load(path).to_dict() == GOOD


def test_every_truncation_is_refused(tmp_path: Path) -> None:
    text = json.dumps(GOOD, indent=1)
    for cut in range(0, len(text) - 1, max(1, len(text) // 150)):
        assert "JSON" in _refused(tmp_path, text[:cut]) or cut == 0


def test_corrupted_bytes_are_refused(tmp_path: Path) -> None:
    data = bytearray(json.dumps(GOOD).encode())
    data[len(data) // 2] = 0xFF
    assert "UTF-8" in _refused(tmp_path, bytes(data))
    assert "JSON" in _refused(tmp_path, b"\x00" * 64)
    assert "JSON" in _refused(tmp_path, "")


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    deep = '{"schema_version": 1, "meta": ' + "[" * 200_000 + "]" * 200_000 + "}"
    assert "nested too deeply" in _refused(tmp_path, deep)


def test_future_and_missing_schema_versions(tmp_path: Path) -> None:
    for version, words in ((5, "newer"), (10**30, "newer"), (0, "unknown"), ("1", "missing"),
                           (True, "missing"), (1.0, "missing")):
        doc = dict(GOOD, schema_version=version)
        assert words in _refused(tmp_path, json.dumps(doc)), version
    assert "missing" in _refused(tmp_path, json.dumps({"nodes": [], "edges": []}))


def _mutated(change: Any) -> dict[str, Any]:
    doc = copy.deepcopy(GOOD)
    change(doc)
    return doc


HOSTILE = {
    "top level list": [GOOD],
    "nodes not a list": _mutated(lambda d: d.update(nodes={"a": 1})),
    "duplicate id": _mutated(lambda d: d["nodes"].append(dict(d["nodes"][0]))),
    "function and tag share an id": _mutated(lambda d: d["nodes"].append(
        {"id": d["nodes"][0]["id"], "type": "tag", "label": "x", "aliases": []})),
    "edge to a missing node": _mutated(lambda d: d["edges"].append(
        {"source": "fn:fees.fee", "calls": {"exact": ["fn:nowhere"]}})),
    "duplicate edge": _mutated(lambda d: d["edges"].append(dict(d["edges"][0]))),
    "edge of the wrong ends": _mutated(lambda d: d["edges"].append(
        {"source": "fn:fees.fee", "calls": {"exact": ["tag:amount"]}})),
    "unknown node type": _mutated(lambda d: d["nodes"][0].update(type="__import__")),
    "unknown edge type": _mutated(lambda d: d["edges"][0].update(exec=["fn:fees.fee"])),
    "line not an integer": _mutated(lambda d: d["nodes"][0]["sources"][0].__setitem__(
        1, float("nan"))),
    "id not a string": _mutated(lambda d: d["nodes"][0].update(id=["fn:x"])),
    "empty id": _mutated(lambda d: d["nodes"][0].update(id="")),
    "aliases a string": _mutated(lambda d: d["nodes"][-1].update(aliases="abc")),
    "meta a list": _mutated(lambda d: d.update(meta=[1])),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_documents_are_refused_whole(tmp_path: Path, name: str) -> None:
    _refused(tmp_path, json.dumps(HOSTILE[name]))


def test_huge_strings_load_within_the_byte_limit(tmp_path: Path) -> None:
    doc = _mutated(lambda d: d["nodes"][0].update(code="x" * 5_000_000, knowledge="\u00e9" * 10))
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(doc))
    graph = KnowledgeGraph.load(path)
    assert len(graph.function(doc["nodes"][0]["id"]).code) == 5_000_000
    with pytest.raises(GraphFormatError, match="file too large"):
        KnowledgeGraph.load(path, max_bytes=1_000_000)


def test_loading_executes_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    doc = _mutated(lambda d: d["nodes"][0].update(code=payload, knowledge=payload,
                                                  name="__reduce__"))
    doc["meta"] = {"__class__": payload, "py/object": "os.system"}
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(doc))
    graph = KnowledgeGraph.load(path)
    assert not marker.exists()
    assert isinstance(graph.function(doc["nodes"][0]["id"]), FunctionNode)
    assert graph.meta["py/object"] == "os.system"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=8,
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += _paths(value, (*prefix, index))
    return found


PLACES = _paths(GOOD)[1:]


@FAST
@given(st.sampled_from(PLACES), _JSON)
def test_any_single_mutation_loads_whole_or_is_refused(place: tuple[Any, ...],
                                                       value: Any) -> None:
    doc = copy.deepcopy(GOOD)
    target = doc
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    try:
        graph = KnowledgeGraph.from_dict(doc)
    except GraphFormatError as exc:
        assert str(exc).startswith("graph")
        return
    # Loaded: then it is whole and consistent, and saves back to what it loaded.
    again = graph.to_dict()
    assert KnowledgeGraph.from_dict(again).to_dict() == again
    assert len(graph) == len({n["id"] for n in doc["nodes"]})


def test_save_is_atomic_when_the_rename_fails(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "graph.json"
    _graph().save(path)
    before = path.read_bytes()
    bigger = build_graph([("other.py", "def other():\n    return 2\n")])

    def broken(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("sgkr.graph.jsonfile.os.replace", broken)
    with pytest.raises(OSError):
        bigger.save(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.json", "graph.lexical.npz"]


def test_save_is_atomic_when_interrupted_mid_write(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "graph.json"
    _graph().save(path)
    before = path.read_bytes()

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("sgkr.graph.jsonfile.os.fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_graph([("other.py", "def other():\n    return 2\n")]).save(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.json", "graph.lexical.npz"]
    assert KnowledgeGraph.load(path).to_dict() == GOOD


def test_saved_graph_is_complete_json(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "graph.json"
    _graph().save(path)
    assert json.loads(path.read_text(encoding="utf-8")) == GOOD
    mask = os.umask(0o022)
    os.umask(mask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's private 0600
