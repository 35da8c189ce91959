"""What SGKR writes for people and other tools, with hostile text in the graph (items 16-17).

Plain command output holds no character that acts on a terminal; ``--json`` is
exact; every export format escapes or round-trips every string of
:data:`tests.reliability.hostile.HOSTILE`.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import networkx as nx
import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.cli import main
from sgkr.cli.terminal import printable
from sgkr.export import render_view
from sgkr.export.view import View, ViewEdge, ViewNode
from sgkr.retrieval.retriever import Retriever

from .hostile import HOSTILE

# What a terminal acts on: C0 but tab and newline, DEL, C1, bidi and invisible format.
_ACTS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f]")
_CODE = "def fee(amount):\n    '''Fee of {0}.'''\n    return amount  # {0}\n"


@pytest.fixture()
def hostile_graph(tmp_path: Path) -> Path:
    sources = [(f"m{i}.py", _CODE.format(text.replace("'", "").replace("\\", "")))
               for i, text in enumerate(HOSTILE)]
    path = tmp_path / "graph.json"
    build_graph(sources, jobs=1, infer_tags=True).save(path)
    return path


def test_16_plain_query_output_has_nothing_a_terminal_acts_on(
        hostile_graph: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(hostile_graph), "what is the fee of an amount?", "--k", "30"]) == 0
    out = capsys.readouterr().out
    assert "fee" in out and not _ACTS.search(out)
    assert "\\x1b]0;PWNED\\x07" in out  # shown, escaped


def test_16_json_output_is_exact_and_inert(hostile_graph: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(hostile_graph), "what is the fee of an amount?", "--k", "30",
                 "--json"]) == 0
    out = capsys.readouterr().out
    assert not _ACTS.search(out)
    graph = KnowledgeGraph.load(hostile_graph)
    result = Retriever(graph, k=30).retrieve("what is the fee of an amount?")
    assert json.loads(out) == result.to_dict()  # exact
    assert any("\x1b]0;PWNED\x07" in d["code"] for d in json.loads(out)["documents"])


def test_16_errors_and_file_names_are_printable(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    evil = tmp_path / "x\x1b]0;PWNED\x07.json"
    assert main(["inspect", str(evil)]) == 5
    err = capsys.readouterr().err
    assert not _ACTS.search(err) and "\\x1b]0;PWNED\\x07" in err
    assert printable("\r\n\t\x9b\u202e\udce9") == "\\x0d\n\t\\x9b\\u202e\\udce9"


def _view() -> View:
    nodes = tuple(ViewNode(f"fn:{i}:{text}", kind, text or "-", code=text, knowledge=text)
                  for i, text in enumerate(HOSTILE)
                  for kind in ("function",))
    tags = tuple(ViewNode(f"tag:{i}:{text}", "tag", text or "-", aliases=(text,))
                 for i, text in enumerate(HOSTILE))
    edges = tuple(ViewEdge(n.id, t.id, "produces") for n, t in zip(nodes, tags, strict=True))
    return View(nodes + tags, edges, question=" ".join(HOSTILE))


def _mermaid_labels(text: str) -> list[str]:
    found = re.findall(r'^    n\d+(?:\[\[|\[/|\(\[|\[)"(.*?)"(?:\]\]|/\]|\]\)|\]):::\w+$', text,
                       re.M)
    return [re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), s.replace("#quot;", '"'))
            for s in found]


def test_17_mermaid_labels_are_inert_and_decode_back() -> None:
    view = _view()
    text = render_view(view, "mermaid")
    body = text.splitlines()
    assert not _ACTS.search(text) and "<" not in text and "`" not in text
    assert len(body) == 1 + 1 + len(view.nodes) + len(view.edges) + 9  # nothing split
    assert _mermaid_labels(text) == [" ".join(n.label.split()) for n in view.nodes]


_DOT_STRING = re.compile(r'"((?:\\.|[^"\\])*)"')


_DOT_ESCAPE = re.compile(r"\\(.)|&amp;|&#(\d+);")


def _dot_decode(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return "\n" if m.group(1) == "n" else m.group(1)
        return "&" if m.group(2) is None else chr(int(m.group(2)))

    return _DOT_ESCAPE.sub(one, text)


def test_17_dot_strings_are_inert_and_decode_back() -> None:
    view = _view()
    text = render_view(view, "dot")
    assert not _ACTS.search(text) and "\x00" not in text
    strings = {_dot_decode(s) for s in _DOT_STRING.findall(text)}
    for n in view.nodes:
        assert n.id in strings and n.label in strings
    assert view.question in strings


def test_17_graphml_parses_and_round_trips() -> None:
    view = _view()
    text = render_view(view, "graphml")
    back = nx.read_graphml(io.StringIO(text))
    not_xml = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
    expect = {not_xml.sub(lambda m: f"\\x{ord(m.group()):02x}", n.id): n for n in view.nodes}
    assert set(back.nodes) == set(expect)
    for node_id, data in back.nodes(data=True):
        label = expect[node_id].label
        assert data["label"] == not_xml.sub(lambda m: f"\\x{ord(m.group()):02x}", label)
        if not not_xml.search(label):
            assert data["label"] == label  # exact, \r included
    assert back.graph["question"] == not_xml.sub(lambda m: f"\\x{ord(m.group()):02x}",
                                                 view.question)


def test_17_html_page_survives_the_same_strings(tmp_path: Path) -> None:
    page = render_view(_view(), "html")
    data = re.search(r'<script type="application/json" id="sgkr-data">(.*?)</script>', page,
                     re.S)
    assert data is not None and "<script>alert" not in data.group(1)


def test_16_build_json_stays_json_with_hostile_file_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.py").write_text("def ok():\n    return 1\n")
    (src / "bidi\u202e\x9bx.py").write_text("")  # an empty file: reported by name
    assert main(["build", str(src), "-o", str(tmp_path / "g.json"), "--json",
                 "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert not _ACTS.search(out)
    [problem] = json.loads(out)["problems"]
    assert problem["file"] == "bidi\u202e\x9bx.py"


def test_14_a_cache_folder_not_used_is_said_once(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import os

    (tmp_path / "m.py").write_text("def ok():\n    return 1\n")
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    assert main(["build", str(tmp_path / "m.py"), "-o", str(tmp_path / "g.json"), "--cache",
                 str(shared), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("sgkr: warning: cache not used:") == 1 and "written by other" in err
