"""The defects of the hostile review (issue 23), one regression test each (items 1-10, 13).

Files, links and FIFOs are made under ``tmp_path``. A build that could hang is
run in a thread and must finish: a hang fails the test instead of stopping it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.build.incremental import GraphBuilder
from sgkr.cli import build as build_cli
from sgkr.cli import main
from sgkr.errors import (
    GraphFormatError,
    InvalidArgumentError,
    KnowledgeFormatError,
    SGKRError,
)
from sgkr.ingest.files import FileRefused, read_file
from sgkr.ingest.sources import read_sources
from sgkr.tags import load_examples, load_sidecar
from sgkr.tags.phrases import mentions_any, mentions_phrase

SECRET = "def leaked():\n    return 'TOP SECRET PASSWORD'\n"
OK = "def ok(amount):\n    return amount\n"


def _finishes(work: Callable[[], Any], seconds: float = 60.0) -> Any:
    """Run ``work`` in a thread; fail (instead of hanging) when it does not end."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "hung"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sgkr: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture()
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A source folder with one good file, and a folder outside it holding a secret."""
    src = tmp_path / "src"
    outside = tmp_path / "outside"
    src.mkdir()
    outside.mkdir()
    (src / "ok.py").write_text(OK)
    (outside / "secret.py").write_text(SECRET)
    return src, outside


def _graph_text(graph: KnowledgeGraph) -> str:
    return json.dumps(graph.to_dict())


# -- 1-3: which files are read, and how -------------------------------------------------


def test_1_file_symlink_leading_out_is_not_read(tree: tuple[Path, Path]) -> None:
    src, outside = tree
    (src / "passwd.py").symlink_to(outside / "secret.py")
    graph = build_graph([src], jobs=1)
    assert "TOP SECRET" not in _graph_text(graph)
    [problem] = graph.report.problems
    assert problem.file == "passwd.py" and "outside" in problem.reason
    # Named directly, the link is refused too; a link inside the tree is followed.
    with pytest.raises(SGKRError):
        build_graph([src / "passwd.py"], jobs=1)
    (src / "again.py").symlink_to(src / "ok.py")
    files, problems = read_sources([src])
    assert [f.text for f in files] == [OK] and [p.file for p in problems] == ["passwd.py"]


def test_1_file_symlink_out_is_not_read_on_update(tree: tuple[Path, Path]) -> None:
    src, outside = tree
    builder = GraphBuilder([src], jobs=1)
    builder.build()
    (src / "passwd.py").symlink_to(outside / "secret.py")
    assert "TOP SECRET" not in _graph_text(builder.update())


def test_2_fifo_is_skipped_not_waited_on(tree: tuple[Path, Path]) -> None:
    src, _ = tree
    os.mkfifo(src / "pipe.py")
    graph = _finishes(lambda: build_graph([src], jobs=1))
    assert [f.name for f in graph.functions()] == ["ok"]
    [problem] = graph.report.problems
    assert problem.file == "pipe.py" and "not a regular file" in problem.reason


def test_2_watch_survives_a_fifo_and_its_removal(tree: tuple[Path, Path]) -> None:
    src, _ = tree
    builder = GraphBuilder([src], jobs=1)
    builder.build()
    os.mkfifo(src / "pipe.py")
    _finishes(builder.update)
    (src / "pipe.py").unlink()
    (src / "more.py").write_text("def more():\n    return 2\n")
    assert "fn:more.more" in _finishes(builder.update)


def test_3_device_and_growing_files_are_capped(tree: tuple[Path, Path],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    src, _ = tree
    (src / "zero.py").symlink_to("/dev/zero")
    graph = _finishes(lambda: build_graph([src], jobs=1))
    assert [p.file for p in graph.report.problems] == ["zero.py"]
    # /dev/zero inside the roots: not a regular file, refused before any read.
    with pytest.raises(FileRefused, match="not a regular file"):
        read_file("/dev/zero", 1000, roots=["/dev"])
    # A file larger than its stat said (it grew, or the size lies): read to limit + 1.
    big = src / "big.py"
    big.write_text("x = 1\n" * 1000)
    real_fstat = os.fstat

    def small_fstat(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, *st[1:6], 0, *st[7:]))  # st_size = 0

    monkeypatch.setattr(os, "fstat", small_fstat)
    with pytest.raises(FileRefused, match="over 100 bytes when read"):
        read_file(big, 100)
    files, problems = read_sources([big], max_file_bytes=100)
    assert not files and "too large" in problems[0].reason


def _examples_file(folder: Path, entry: dict[str, Any]) -> Path:
    path = folder / "examples.jsonl"
    path.write_text(json.dumps({"id": "1", "question": "what is the fee?", **entry}) + "\n")
    return path


@pytest.mark.parametrize("name", ["ABSOLUTE", "../outside/secret.py", "../../../../dev/zero",
                                  "link.py", "/dev/zero"])
def test_4_example_files_stay_inside_their_folder(tree: tuple[Path, Path], name: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    src, outside = tree
    examples_dir = src / "examples"
    examples_dir.mkdir()
    (examples_dir / "link.py").symlink_to(outside / "secret.py")
    name = str(outside / "secret.py") if name == "ABSOLUTE" else name
    path = _examples_file(examples_dir, {"file": name})
    with pytest.raises(KnowledgeFormatError, match=f"solution file {name!r}"):
        _finishes(lambda: load_examples(path))
    status, _, err = _cli(capsys, "build", str(src), "--examples", str(path), "-o",
                          str(src.parent / "g.json"), "--no-cache")
    assert status == 4 and name in _one_error_line(err)


def test_4_example_files_may_lie_in_the_source_folders(tree: tuple[Path, Path]) -> None:
    src, _ = tree
    examples_dir = src.parent / "examples"
    examples_dir.mkdir()
    path = _examples_file(examples_dir, {"file": "../src/ok.py", "inputs": ["amount"]})
    with pytest.raises(KnowledgeFormatError, match="outside"):
        load_examples(path)
    graph = build_graph([src], examples=path, jobs=1)
    assert graph.consumers("tag:amount") == ["fn:ok.ok"]  # src/ok.py: the module ok (src layout)


# -- 5-8: ordinary bad input ends in a result or one error line ---------------------------


def test_5_file_name_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.py").write_text(OK)
    (src / os.fsdecode(b"caf\xe9.py")).write_text("def cafe():\n    return 1\n")
    out = tmp_path / "g.json"
    for cache in ([], ["--no-cache"]):
        status, printed, err = _cli(capsys, "build", str(src), "-o", str(out), *cache)
        assert status == 0, err
        assert "caf\ufffd.py: file name is not UTF-8" in printed
        assert [f.name for f in KnowledgeGraph.load(out).functions()] == ["ok"]


SURROGATE_KNOWLEDGE = '{"functions": {"ok": "lone \\ud800 surrogate"}}'


def test_6_lone_surrogates_are_refused_where_they_are_read(tree: tuple[Path, Path],
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    src, _ = tree
    knowledge = src.parent / "k.json"
    knowledge.write_text(SURROGATE_KNOWLEDGE)
    with pytest.raises(KnowledgeFormatError, match="lone surrogate"):
        load_sidecar(knowledge)
    examples = src.parent / "e.jsonl"
    examples.write_text('{"question": "q\\udfff", "code": "def f():\\n    return 1\\n"}\n')
    with pytest.raises(KnowledgeFormatError, match="e.jsonl:1: text holds a lone surrogate"):
        load_examples(examples)
    graph = build_graph([src], jobs=1).to_dict()
    graph["nodes"][0]["knowledge"] = "\ud800"
    bad = src.parent / "bad.json"
    bad.write_text(json.dumps(graph))  # ASCII JSON: the surrogate as an escape
    with pytest.raises(GraphFormatError, match="lone surrogate"):
        KnowledgeGraph.load(bad)
    for argv in (["query", str(bad), "fee"], ["export", str(bad), "-o", str(src / "x.html")]):
        status, _, err = _cli(capsys, *argv)
        assert status == 5 and "lone surrogate" in _one_error_line(err)
    # In-memory sources holding one are skipped and reported, and the graph saves.
    g = build_graph([("a.py", OK), ("b.py", "def b():\n    return '\udc00'\n")])
    assert [p.file for p in g.report.problems] == ["b.py"]
    g.save(src.parent / "fine.json")
    (src / "nb.ipynb").write_text('{"nbformat": 4, "cells": [{"cell_type": "code", '
                                  '"source": "def nb():\\n    return \'\\udc00\'\\n"}]}')
    g = build_graph([src], jobs=1)
    assert [p.file for p in g.report.problems] == ["nb.ipynb"]
    assert "lone surrogate" in g.report.problems[0].reason
    g.save(src.parent / "fine.json")


DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = '{"schema_version": ' + "9" * 5000 + ', "nodes": [], "edges": []}'


@pytest.mark.slow
@pytest.mark.parametrize("text", [DEEP, LONG_INT], ids=["deep", "long int"])
def test_7_deep_json_and_long_integers_raise_the_documented_error(
        tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    graph = tmp_path / "graph.json"
    graph.write_text(text)
    with pytest.raises(GraphFormatError):
        KnowledgeGraph.load(graph)
    for command in (["query", str(graph), "fee"], ["inspect", str(graph)]):
        status, _, err = _cli(capsys, *command)
        assert status == 5
        _one_error_line(err)
    for name in ("k.json", "k.yaml"):
        side = tmp_path / name
        side.write_text(text if name.endswith("json") else
                        ("- " * 1 + "[" * 5000 + "]" * 5000 if text is DEEP
                         else "n: " + "9" * 5000))
        with pytest.raises(KnowledgeFormatError):
            load_sidecar(side)
    lines = tmp_path / "q.jsonl"
    lines.write_text(text.replace("\n", " ") + "\n")
    from sgkr.eval.datasets import load_questions
    with pytest.raises(KnowledgeFormatError):
        load_questions(lines)
    with pytest.raises(KnowledgeFormatError):
        load_examples(lines)


def test_7_adapters_raise_the_documented_error(tmp_path: Path) -> None:
    pytest.importorskip("llama_index.core")
    pytest.importorskip("langchain_core")
    from langchain_sgkr import SGKRRetriever as LangChainRetriever
    from llama_index_sgkr import SGKRRetriever as LlamaRetriever

    (tmp_path / "graph.json").write_text(DEEP)
    (tmp_path / "sgkr_retriever.json").write_text(LONG_INT)
    with pytest.raises(GraphFormatError):
        LangChainRetriever.from_graph_file(tmp_path / "graph.json")
    with pytest.raises(GraphFormatError):
        LlamaRetriever.from_persist_dir(tmp_path)


def test_8_bad_arguments_get_typed_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    for value in ("inf", "nan", "-inf", "1e999"):
        status, _, err = _cli(capsys, "build", ".", f"--watch={value}")
        assert status == 2 and "positive number" in _one_error_line(err)
    with pytest.raises(InvalidArgumentError, match="123"):
        KnowledgeGraph.load(123)  # type: ignore[arg-type]
    # One string is one pattern, not one pattern a letter.
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "t.py").write_text(OK)
    (tmp_path / "s.py").write_text(OK)
    assert [f.path for f in read_sources([tmp_path], exclude="tests")[0]] == ["s.py"]
    assert [f.name for f in build_graph([tmp_path], exclude="tests").functions()] == ["ok"]
    with pytest.raises(InvalidArgumentError, match="glob patterns"):
        read_sources([tmp_path], exclude=[1])  # type: ignore[list-item]


def test_8_bom_yaml_errors_nan_and_folder_output(tree: tuple[Path, Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    src, _ = tree
    knowledge = src.parent / "k.json"
    knowledge.write_bytes(b"\xef\xbb\xbf" + b'{"functions": {"ok": "With a BOM."}}')
    assert load_sidecar(knowledge).functions["ok"].knowledge == "With a BOM."
    bad_yaml = src.parent / "k.yaml"
    bad_yaml.write_text("functions:\n  ok: [unclosed\n  other: 1\n")
    status, _, err = _cli(capsys, "build", str(src), "--knowledge", str(bad_yaml), "-o",
                          str(src.parent / "g.json"), "--no-cache")
    assert status == 4 and "line" in _one_error_line(err)
    doc = build_graph([src], jobs=1).to_dict()
    doc["meta"]["x"] = float("nan")
    nan_graph = src.parent / "nan.json"
    nan_graph.write_text(json.dumps(doc))  # json writes NaN
    status, _, err = _cli(capsys, "inspect", str(nan_graph), "--json")
    assert status == 5 and "NaN" in _one_error_line(err)
    folder = src.parent / "a_folder"
    folder.mkdir()
    status, _, err = _cli(capsys, "build", str(src), "-o", str(folder), "--no-cache")
    line = _one_error_line(err)
    assert status == 6 and str(folder) in line and ".tmp" not in line


def test_8_inspect_json_is_strict_json(tree: tuple[Path, Path],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    src, _ = tree
    out = src.parent / "g.json"
    build_graph([src], jobs=1).save(out)
    status, printed, _ = _cli(capsys, "inspect", str(out), "--json")

    def refuse(name: str) -> None:
        raise AssertionError(name)

    assert status == 0 and json.loads(printed, parse_constant=refuse)["functions"] == 1


# -- 9-10: amplification -------------------------------------------------------------


def test_9_yaml_aliases_cannot_blow_up(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    lines = ['a0: &a0 ["' + "x" * 100 + '"]']
    for level in range(1, 25):
        lines.append(f"a{level}: &a{level} [*a{level - 1}, *a{level - 1}]")
    lines.append("tags:\n  fee:\n    aliases: *a24")
    bomb = tmp_path / "k.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    with pytest.raises(KnowledgeFormatError, match="expands to more than"):
        _finishes(lambda: load_sidecar(bomb))
    loop = tmp_path / "loop.yaml"
    loop.write_text("tags: &t\n  fee:\n    aliases: *t\n")
    with pytest.raises(KnowledgeFormatError):
        _finishes(lambda: load_sidecar(loop))
    fine = tmp_path / "fine.yaml"
    fine.write_text("common: &c [amount, value]\ntags:\n  fee:\n    aliases: *c\n"
                    "  price:\n    aliases: *c\n")
    with pytest.raises(KnowledgeFormatError, match="unknown top-level"):  # parsed, then checked
        load_sidecar(fine)


def test_10_aliases_cost_one_pass_over_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    from sgkr.tags import Example, Sidecar, TagRef
    from sgkr.tags import rows as build_module

    calls = 0
    real = build_module.code_terms

    def counted(d: Any) -> list[str]:
        nonlocal calls
        calls += 1
        return real(d)

    monkeypatch.setattr(build_module, "code_terms", counted)
    code = "".join(f"def f{i}(a{i}):\n    return a{i} + {i}\n" for i in range(20))
    example = Example("1", "q", "sol.py", code, (TagRef("transaction value"),), ())
    aliases = tuple(f"alias number {i}" for i in range(300))
    sidecar = Sidecar({}, {"transaction value": aliases})
    build_graph([], examples=[example], knowledge=sidecar, jobs=1)
    assert calls <= 20  # once per function, not once per alias


@pytest.mark.parametrize("seed", range(20))
def test_10_mentions_any_is_mentions_phrase_of_any(seed: int) -> None:
    import random

    rng = random.Random(seed)
    vocab = ["fee", "card", "scheme", "amount", "total", "rate", "x"]
    terms = ["_".join(rng.choices(vocab, k=rng.randint(1, 4))) for _ in range(rng.randint(0, 6))]
    phrases = {tuple(rng.choices(vocab, k=rng.randint(1, 3))) for _ in range(rng.randint(0, 5))}
    assert mentions_any(phrases, terms) == any(mentions_phrase(p, terms) for p in phrases)


# -- 13: --watch keeps going -------------------------------------------------------------


def test_13_watch_keeps_the_last_graph_while_sources_are_gone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.py").write_text(OK)
    out = tmp_path / "graph.json"
    builder = GraphBuilder([src], jobs=1)
    builder.build().save(out)
    hidden = tmp_path / "hidden.py"
    steps = iter([
        lambda: (src / "ok.py").rename(hidden),  # the folder is empty
        lambda: src.rename(tmp_path / "away"),  # the folder is gone
        lambda: (tmp_path / "away").rename(src),
        lambda: hidden.rename(src / "ok.py"),
        lambda: (src / "new.py").write_text("def new():\n    return 1\n"),
    ])

    def batches() -> Iterator[set[str]]:
        for step in steps:
            step()
            yield {str(src)}
            assert "fn:ok.ok" in KnowledgeGraph.load(out)  # the last good graph stays

    build_cli.watch(builder, [str(src)], str(out), 0.1, changes=batches())
    assert "fn:new.new" in KnowledgeGraph.load(out)
    err = capsys.readouterr().err
    assert err.count("sgkr: warning:") == 1 and "Traceback" not in err
