"""Bug localization on repositories: instances read and checked, Acc@k scored per report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgkr.cli import main
from sgkr.errors import InvalidArgumentError
from sgkr.eval.swebench import (
    Localizer,
    default_localizers,
    evaluate_localization,
    format_localization,
    load_instances,
    localization_markdown,
)
from sgkr.retrieval.embeddings import HashingEmbeddings

MODELS = ("class Request:\n"
          "    def prepare_url(self, url, params):\n        return url + encode(params)\n"
          "    def prepare_body(self, data):\n        return encode(data)\n"
          "def encode(params):\n    return '&'.join(params)\n"
          "def unrelated_helper(x):\n    return x\n")


def _folder(tmp_path: Path, instances: list[dict[str, object]]) -> Path:
    corpus = tmp_path / "repo__abc" / "pkg"
    corpus.mkdir(parents=True)
    (corpus / "models.py").write_text(MODELS)
    (tmp_path / "instances.jsonl").write_text(
        "".join(json.dumps(i) + "\n" for i in instances))
    return tmp_path


def _instance(iid: str, question: str, *gold: str) -> dict[str, object]:
    return {"instance_id": iid, "repo": "o/pkg", "corpus": "repo__abc",
            "problem_statement": question,
            "gold": [{"file": "pkg/models.py", "qualname": g, "line": 1} for g in gold]}


def test_acc_at_k_needs_every_gold_function(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [
        _instance("a-1", "prepare_url drops the params of a url", "Request.prepare_url"),
        _instance("a-2", "the body of a request is not encoded", "Request.prepare_body",
                  "encode"),
        _instance("a-3", "nothing about it", "Request.prepare_url", "unrelated_helper")])
    rows = [Localizer("sgkr"), Localizer("bm25s", "bm25s"), Localizer("dense", "dense")]
    result = evaluate_localization(folder, rows, embedding_model=HashingEmbeddings())
    by_id = {(r.localizer, r.instance): r for r in result.records}
    assert by_id["sgkr", "a-1"].hit5 and by_id["sgkr", "a-1"].hit10
    assert by_id["sgkr", "a-2"].hit10  # both gold functions in the top 10 of 4
    assert all(r.prefix for r in result.records)
    assert result.summary["sgkr"].instances == 3
    assert {h: s["sgkr"].instances for h, s in result.by_half.items()} == {"A": 2, "B": 1}
    text = format_localization(result)
    assert "swebench" in text and "bm25s" in text and "o/pkg (3)" in text
    markdown = localization_markdown(result, "sgkr eval swebench --data X")
    assert markdown.startswith("`sgkr eval swebench --data X`")
    assert "| sgkr | 3 |" in markdown


def test_bad_folders_are_refused_naming_the_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="instances.jsonl: cannot read"):
        load_instances(tmp_path)
    folder = _folder(tmp_path, [_instance("a-1", "q", "encode")])
    (folder / "instances.jsonl").write_text('{"instance_id": "a-1"}\n')
    with pytest.raises(InvalidArgumentError, match=r"instances.jsonl:1: 'repo' must be a string"):
        load_instances(folder)
    bad = _instance("a-1", "q", "encode") | {"corpus": "../elsewhere"}
    (folder / "instances.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(InvalidArgumentError, match="no corpus folder"):
        load_instances(folder)
    (folder / "instances.jsonl").write_text(json.dumps(_instance("a-1", "q")) + "\n")
    with pytest.raises(InvalidArgumentError, match="'gold' must be a list"):
        load_instances(folder)
    with pytest.raises(InvalidArgumentError, match="distinct names"):
        evaluate_localization(folder, [Localizer("x"), Localizer("x")])


def test_the_default_rows_and_the_command(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    names = [r.name for r in default_localizers(dense=False)]
    assert names[0] == "sgkr" and "sgkr no-graph" in names and "bm25s" in names
    assert "dense" not in names and len(set(names)) == len(names)
    with pytest.raises(InvalidArgumentError, match="options apply to sgkr"):
        Localizer("b", "bm25s", {"k": 3})
    folder = _folder(tmp_path / "data", [_instance("a-1", "prepare_url and its params",
                                                   "Request.prepare_url")])
    out = tmp_path / "out"
    assert main(["eval", "swebench", "--data", str(folder), "--no-dense", "--no-ablations",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "swebench (function-level localization" in printed
    assert json.loads((out / "swebench.json").read_text())["summary"]["sgkr"]["acc10"] == 1.0
    assert "| bm25s |" in (out / "swebench.md").read_text()
    assert main(["eval", "swebench", "--no-dense"]) == 2  # no --data: one line, no traceback
    assert "give --data" in capsys.readouterr().err
