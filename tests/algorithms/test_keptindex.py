"""A rebuild with a cache patches the lexical index from the counts the last build kept, and
writes the very bytes a build without a cache writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sgkr.algorithms import keptindex
from sgkr.algorithms.counts import Counts
from sgkr.algorithms.lexical import KeptCounts, LexicalIndex
from sgkr.algorithms.lexicalfile import index_path
from sgkr.cli import main
from sgkr.graph import KnowledgeGraph
from sgkr.ingest.cache import DATABASE, ExtractCache

from ..build.test_incremental import EDITS, FILES, Edit, _write

#: The edits a rebuild is checked after: a file changed, one added, one removed.
CHANGES = {name: EDITS[name] for name in (
    "a function added that a bare-name call now matches", "a function deleted",
    "a file added", "a file deleted", "a copy of a function in another file (merged)")}


def _build(src: Path, out: Path, *flags: str) -> tuple[bytes, bytes]:
    """``sgkr build src -o out`` with ``flags``; the bytes of graph.json and its index."""
    assert main(["build", str(src), "-o", str(out), "--jobs", "1", "--quiet", *flags]) == 0
    return out.read_bytes(), index_path(out).read_bytes()


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many indexes are counted from scratch from now on (one entry each)."""
    made: list[int] = []
    real = LexicalIndex.__init__

    def spy(self: LexicalIndex, graph: KnowledgeGraph) -> None:
        made.append(1)
        real(self, graph)

    monkeypatch.setattr(LexicalIndex, "__init__", spy)
    return made


@pytest.mark.parametrize("edit", CHANGES.values(), ids=CHANGES.keys())
def test_a_rebuild_patches_the_index_and_writes_what_a_cold_build_writes(
        tmp_path: Path, edit: Edit, monkeypatch: pytest.MonkeyPatch) -> None:
    src, out, cache = tmp_path / "src", tmp_path / "out" / "graph.json", tmp_path / "cache"
    _write(src, FILES)
    _build(src, out, "--cache", str(cache))
    edit(src)
    counted = _counted(monkeypatch)
    rebuilt = _build(src, out, "--cache", str(cache))
    assert counted == []  # patched from the kept counts, not counted again
    assert rebuilt == _build(src, tmp_path / "cold" / "graph.json", "--no-cache")


def _spoil_signatures(cache: Path) -> None:
    with sqlite3.connect(cache / DATABASE) as db:
        rows = db.execute("SELECT key, data FROM records").fetchall()
        db.executemany("UPDATE records SET data = ? WHERE key = ?",
                       [(bytes([d[0] ^ 1]) + d[1:], k) for k, d in rows])


def _remove_outputs(out: Path) -> None:
    out.unlink()
    index_path(out).unlink()


@pytest.mark.parametrize("case,counted_again", [
    ("outputs removed", False),  # the counts are the cache's: the outputs are never read
    ("built with other options", False),  # counts of other nodes: only a start
    ("signatures spoilt", True),
    ("counts file changed", True),
    ("counts file removed", True),
    ("another version of the code", True),
    ("another output file", True),
])
def test_whatever_was_kept_the_rebuild_writes_what_a_cold_build_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, counted_again: bool,
) -> None:
    src, out, cache = tmp_path / "src", tmp_path / "out" / "graph.json", tmp_path / "cache"
    _write(src, FILES)
    first = ["--merge", "none"] if case == "built with other options" else []
    _build(src, tmp_path / "elsewhere.json" if case == "another output file" else out,
           "--cache", str(cache), *first)
    EDITS["a file added"](src)
    if case == "outputs removed":
        _build(src, out, "--cache", str(cache))
        _remove_outputs(out)
    elif case == "signatures spoilt":
        _spoil_signatures(cache)
    elif case == "counts file changed":  # the record's SHA-256 is no longer the file's
        data = bytearray(_counts_file(cache).read_bytes())
        data[-1] ^= 1
        _counts_file(cache).write_bytes(bytes(data))
    elif case == "counts file removed":
        _counts_file(cache).unlink()
    elif case == "another version of the code":  # its record is another's; the same file
        monkeypatch.setattr(keptindex, "code_fingerprint", lambda: "another")
    counted = _counted(monkeypatch)
    rebuilt = _build(src, out, "--cache", str(cache))
    assert len(counted) == counted_again
    assert rebuilt == _build(src, tmp_path / "cold" / "graph.json", "--no-cache")
    assert len(list(cache.glob("lexical-*.counts"))) == 1 + (case == "another output file")


def _counts_file(cache: Path) -> Path:
    (found,) = cache.glob("lexical-*.counts")
    return found


def _kept(tmp_path: Path) -> tuple[ExtractCache, bytes]:
    """A cache holding the counts of a small build's index, and the bytes of their file."""
    src, out, cache = tmp_path / "src", tmp_path / "graph.json", ExtractCache(tmp_path / "c")
    _write(src, FILES)
    _build(src, out, "--cache", str(cache.folder))
    return cache, _counts_file(cache.folder).read_bytes()


def test_the_kept_counts_read_back_are_those_written(tmp_path: Path) -> None:
    _, payload = _kept(tmp_path)
    kept = keptindex._decode(payload)
    assert kept is not None and b"".join(keptindex._pieces(kept)) == payload
    fresh = LexicalIndex(KnowledgeGraph.load(tmp_path / "graph.json", index=False)).kept()
    assert fresh is not None
    assert (kept.ids, kept.digests, kept.counts.words, kept.counts.documents) == \
        (fresh.ids, fresh.digests, fresh.counts.words, fresh.counts.documents)
    assert np.array_equal(kept.lengths, fresh.lengths)
    for mine, theirs in zip(kept.counts.fields, fresh.counts.fields, strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(mine, theirs, strict=True))


@pytest.mark.parametrize("spoil", [
    lambda p: p[:-4],  # cut short
    lambda p: p + b"\0" * 12,  # too long
    lambda p: p[:8] + p[8:].replace(b'"format":1', b'"format":9', 1),
    lambda p: p[:-4] + np.int32(-1).tobytes(),  # a count below 1
    lambda p: b"\xff" * 8 + p[8:],  # a header longer than the payload
])
def test_malformed_counts_are_not_used(tmp_path: Path, spoil: Any) -> None:
    _, payload = _kept(tmp_path)
    assert keptindex._decode(spoil(payload)) is None


def test_a_word_out_of_range_is_not_used(tmp_path: Path) -> None:
    _, payload = _kept(tmp_path)
    kept = keptindex._decode(payload)
    assert kept is not None
    word, doc, count = kept.counts.fields[0]
    word = word.copy()
    word[0] = len(kept.counts.words)
    bad = KeptCounts(kept.ids, kept.digests, Counts(
        kept.counts.words, ((word, doc, count), kept.counts.fields[1]), kept.counts.documents),
        kept.lengths)
    assert keptindex._decode(b"".join(keptindex._pieces(bad))) is None
