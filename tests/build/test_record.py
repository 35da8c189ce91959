"""A build of unchanged inputs into unchanged files writes nothing; any change writes again."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from sgkr.build.builder import prepare_build
from sgkr.build.options import BuildOptions
from sgkr.build.record import build_key, find_record
from sgkr.cli import main
from sgkr.ingest.cache import DATABASE, ExtractCache

from ..conftest import FIXTURES

MINI = FIXTURES / "mini"


def _source(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "fees.py").write_text("def fee(amount):\n    return rate() * amount\n"
                                 "def rate():\n    return 0.2\n", encoding="utf-8")
    (src / "totals.py").write_text("from fees import fee\ndef total(rows):\n"
                                   "    return sum(fee(r) for r in rows)\n", encoding="utf-8")
    return src


def _build(src: Path, out: Path, cache: Path, *flags: str) -> tuple[bool, str]:
    """Build ``src`` into ``out``; whether the files were written, and what was printed."""
    stamps = [(p.stat().st_mtime_ns, p.stat().st_ino) if p.exists() else None
              for p in (out, out.with_name(out.stem + ".lexical.npz"))]
    code = main(["build", str(src), "-o", str(out), "--cache", str(cache), "--json", *flags])
    assert code == 0
    after = [(p.stat().st_mtime_ns, p.stat().st_ino)
             for p in (out, out.with_name(out.stem + ".lexical.npz"))]
    return after != stamps, out.read_text(encoding="utf-8")


def test_an_unchanged_build_writes_nothing_and_reports_the_same(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, out, cache = _source(tmp_path), tmp_path / "out" / "graph.json", tmp_path / "cache"
    (src / "test_fees.py").write_text("from fees import fee\ndef test_fee():\n"
                                      "    assert fee(10) == 2\n", encoding="utf-8")
    wrote, first = _build(src, out, cache)
    report = json.loads(capsys.readouterr().out)
    assert wrote and report["test_functions"] == 1
    wrote, second = _build(src, out, cache)
    again = json.loads(capsys.readouterr().out)
    assert not wrote and second == first
    assert {k: v for k, v in again.items() if k != "seconds"} == \
        {k: v for k, v in report.items() if k != "seconds"}
    assert main(["build", str(src), "-o", str(out), "--cache", str(cache)]) == 0
    assert capsys.readouterr().out.endswith(f"{out} is up to date\n")


def test_any_change_of_the_inputs_or_the_files_builds_again(tmp_path: Path) -> None:
    src, out, cache = _source(tmp_path), tmp_path / "out" / "graph.json", tmp_path / "cache"
    assert _build(src, out, cache)[0]
    (src / "fees.py").write_text("def fee(amount):\n    return 0.3 * amount\n", encoding="utf-8")
    wrote, graph = _build(src, out, cache)
    assert wrote and "fn:fees.rate" not in graph
    assert not _build(src, out, cache)[0]
    (src / "new.py").write_text("def extra():\n    return 1\n", encoding="utf-8")
    assert _build(src, out, cache)[0]
    (src / "new.py").unlink()
    assert _build(src, out, cache)[0]
    for flags in (["--no-infer-tags"], ["--merge", "none"], ["--exclude", "totals.py"]):
        assert _build(src, out, cache, *flags)[0], flags
        assert not _build(src, out, cache, *flags)[0], flags
    assert _build(src, out, cache)[0]
    # The files written changed or went: they are written again.
    out.write_text(out.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert _build(src, out, cache)[0]
    out.with_name("graph.lexical.npz").unlink()
    assert _build(src, out, cache)[0]
    # Another output file is another build.
    assert _build(src, tmp_path / "other.json", cache)[0]


def test_a_changed_sidecar_builds_again(tmp_path: Path) -> None:
    out, cache = tmp_path / "graph.json", tmp_path / "cache"
    sidecar = tmp_path / "knowledge.json"
    sidecar.write_text((MINI / "knowledge.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert _build(MINI, out, cache, "--knowledge", str(sidecar))[0]
    assert not _build(MINI, out, cache, "--knowledge", str(sidecar))[0]
    data = json.loads(sidecar.read_text(encoding="utf-8"))
    data.setdefault("tags", {})["a new tag"] = ["another name"]
    sidecar.write_text(json.dumps(data), encoding="utf-8")
    assert _build(MINI, out, cache, "--knowledge", str(sidecar))[0]


def test_a_record_not_signed_by_this_user_is_not_used(tmp_path: Path) -> None:
    src, out, cache = _source(tmp_path), tmp_path / "graph.json", tmp_path / "cache"
    assert _build(src, out, cache)[0]
    key = build_key(prepare_build([src], BuildOptions()), out)
    assert find_record(ExtractCache(cache), key) is not None
    with sqlite3.connect(cache / DATABASE) as db:  # every record's signature spoilt
        rows = db.execute("SELECT key, data FROM records").fetchall()
        db.executemany("UPDATE records SET data = ? WHERE key = ?",
                       [(bytes([data[0] ^ 1]) + data[1:], key) for key, data in rows])
    assert find_record(ExtractCache(cache), key) is None
    assert _build(src, out, cache)[0]


def test_without_a_cache_every_build_writes(tmp_path: Path) -> None:
    src, out = _source(tmp_path), tmp_path / "graph.json"
    for _ in range(2):
        before = out.stat().st_mtime_ns if out.exists() else None
        assert main(["build", str(src), "-o", str(out), "--no-cache", "--quiet"]) == 0
        assert out.stat().st_mtime_ns != before
    assert not os.path.exists(tmp_path / "cache")
