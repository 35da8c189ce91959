"""The first stage: code-aware BM25 over function documents, equal to bm25s's scores."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from sgkr import build_graph
from sgkr.algorithms.counts import count_fields, patched
from sgkr.algorithms.lexical import (
    LexicalIndex,
    add_up,
    attach,
    fingerprint,
    function_document,
    index_of,
    indexed,
    weighted_postings,
)
from sgkr.algorithms.tokens import code_tokens
from sgkr.build.incremental import GraphBuilder
from sgkr.errors import InvalidArgumentError

CODE = ("def set_timeout(request, seconds):\n    request.timeout = seconds\n"
        "def get_cookie(jar, name):\n    return jar.get(name)\n"
        "def cookies_from_dict(values):\n    return dict(values)\n"
        "def send(request):\n    return request\n"
        "class PreparedRequest:\n    def prepare_content_length(self, body):\n"
        "        self.headers['Content-Length'] = str(len(body))\n")


@pytest.fixture(scope="module")
def index() -> LexicalIndex:
    return LexicalIndex(build_graph([("http/models.py", CODE)]))


def test_names_and_stems_rank_first(index: LexicalIndex) -> None:
    assert index.search("set a timeout on a request", 1)[0][0] == "fn:http.models.set_timeout"
    assert index.search("make cookies from a dict", 1)[0][0] \
        == "fn:http.models.cookies_from_dict"
    assert {n for n, _ in index.search("cookie", 2)} == {"fn:http.models.cookies_from_dict",
                                                          "fn:http.models.get_cookie"}
    # Named whole, or in words: the identifier, its parts and its class's module.
    assert index.search("prepare_content_length sends a length", 1)[0][0] \
        == "fn:http.models.PreparedRequest.prepare_content_length"
    assert index.search("Content-Length header of prepared requests", 1)[0][0] \
        == "fn:http.models.PreparedRequest.prepare_content_length"
    assert index.search("zzz", 3) == []


def test_scores_are_scaled_ranked_and_ties_broken_by_id(index: LexicalIndex) -> None:
    hits = index.search("request", 10)
    assert hits[0][1] == 1.0 and all(0 < s <= 1 for _, s in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    ties = [n for n, s in hits if s == hits[-1][1]]
    assert ties == sorted(ties)
    with pytest.raises(InvalidArgumentError, match="k must be"):
        index.search("request", 0)


def test_a_repeated_word_counts_as_often_as_it_is_said(index: LexicalIndex) -> None:
    once = index.scores("cookie timeout")
    twice = index.scores("cookie cookie timeout")
    assert twice["fn:http.models.get_cookie"] == pytest.approx(
        2 * once["fn:http.models.get_cookie"])
    assert twice["fn:http.models.set_timeout"] == once["fn:http.models.set_timeout"]


def test_the_document_scores_equal_bm25s(index: LexicalIndex) -> None:
    """The document field alone is what bm25s scores (Lucene's BM25, k1 1.5, b 0.75)."""
    bm25s = pytest.importorskip("bm25s")
    graph = build_graph([("http/models.py", CODE)])
    nodes = indexed(graph)
    model = bm25s.BM25()
    model.index([code_tokens(function_document(f)[0]) for f in nodes], show_progress=False)
    words, indptr, indices, data = weighted_postings(
        [[function_document(f)[0] for f in nodes]], (1.0,))
    names = LexicalIndex.from_arrays([f.id for f in nodes], words, indptr, indices, data, "")
    for question in ("request timeout", "cookie from a dict", "prepared content length"):
        tokens = [t for t in code_tokens(question) if t in model.vocab_dict]
        expected = model.get_scores(tokens)
        found = names.scores(question)
        for i, f in enumerate(nodes):
            assert found.get(f.id, 0.0) == pytest.approx(float(expected[i]), rel=1e-5)


def test_postings_add_up_as_the_index_does(index: LexicalIndex) -> None:
    question = "cookie cookie request timeout dict"
    postings = {w: index.postings(w) for w in code_tokens(question)}
    assert add_up(code_tokens(question), postings) == index.scores(question)
    assert index.postings("no-such-word") == []


def test_the_index_of_a_graph_is_made_once_and_can_be_attached() -> None:
    graph = build_graph([("m.py", CODE)])
    made = index_of(graph)
    assert index_of(graph) is made
    other = build_graph([("m.py", CODE)])
    attach(other, made)
    assert index_of(other) is made
    with pytest.raises(InvalidArgumentError):
        attach(other, "index")  # type: ignore[arg-type]


def test_the_fingerprint_follows_what_is_indexed() -> None:
    a = indexed(build_graph([("m.py", CODE)]))
    b = indexed(build_graph([("m.py", CODE.replace("seconds", "secs"))]))
    assert fingerprint(a) == fingerprint(indexed(build_graph([("m.py", CODE)])))
    assert fingerprint(a) != fingerprint(b)


def test_module_bodies_are_not_indexed() -> None:
    graph = build_graph([("s.py", "import os\nx = os.getcwd()\nprint(x)\n")])
    assert LexicalIndex(graph).size == 0
    assert LexicalIndex(graph).search("getcwd", 3) == []
    with pytest.raises(InvalidArgumentError, match="KnowledgeGraph"):
        LexicalIndex("graph.json")  # type: ignore[arg-type]


def test_an_updated_graph_gets_its_index_patched_equal_to_a_new_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After an update only the changed functions are counted again; the postings, words,
    lengths and fingerprint equal those of an index made from scratch, to the last bit."""
    for n in range(8):
        (tmp_path / f"m{n}.py").write_text("".join(
            f"def fetch_{n}_{k}(session, url):\n    return session.get(url, {k})\n"
            for k in range(4)))
    builder = GraphBuilder([tmp_path], infer_tags=False, jobs=1)
    first = index_of(builder.build())
    (tmp_path / "m3.py").write_text("def fetch_3_0(session, url):\n    return frozen(url)\n"
                                    "def brand_new_helper(x):\n    return x\n")
    (tmp_path / "m5.py").unlink()
    graph = builder.update()
    assert builder.last_update is not None and builder.last_update.patched
    with monkeypatch.context() as m:  # made by patching the first one, not from scratch
        m.setattr(LexicalIndex, "__init__", lambda *a: pytest.fail("made again"))
        patched = index_of(graph)
    fresh = LexicalIndex(graph)
    assert patched is not first and patched.ids == fresh.ids and patched.words == fresh.words
    for name in ("indptr", "indices", "data", "lengths"):
        assert getattr(patched, name).tobytes() == getattr(fresh, name).tobytes()
    assert patched.fingerprint == fresh.fingerprint == fingerprint(indexed(graph))
    question = "frozen brand new helper"
    assert patched.search(question, 2) == fresh.search(question, 2)


def test_an_index_is_not_patched_from_a_file_or_for_a_mostly_new_graph() -> None:
    graph = build_graph([("m.py", CODE)])
    other = build_graph([("n.py", CODE.replace("request", "query"))])
    assert LexicalIndex(graph).patched(other) is None
    loaded = LexicalIndex.from_arrays([], [], np.zeros(1, dtype=np.int64),
                                      np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float32),
                                      "")
    assert loaded.patched(graph) is None


def test_counts_refuse_documents_that_do_not_match() -> None:
    counts = count_fields([["get fee", "fee"]])
    with pytest.raises(InvalidArgumentError, match="do not match"):
        patched(counts, np.array([0]), 1, [["x"]], np.array([1]))


# Texts whose words the counting reads in C (ASCII) and by the tokenizer's pattern (the rest):
# digits before a word, underscores, humps, punctuation, accents, a lone surrogate.
TEXTS = ["def getFee(rate_2): return 2x + rate_2 * 100",
         "class HTTPAdapter(BaseAdapter):\n    __init__ = 12ab3 or _x9_",
         "numéro_café = getFee(café) # the résumé's fee",
         "x_\ud800y = a.b.c(\"don't\") 3.14e10 __dunder__ CamelCase_word",
         "", "!!! ... ???"]


def test_counts_are_the_tokens_of_each_document_counted() -> None:
    """Each (token, document) is counted as often as code_tokens gives it, whichever way
    the document's words are read, and each field on its own."""
    counts = count_fields([TEXTS, list(reversed(TEXTS))])
    for field, texts in zip(counts.fields, (TEXTS, list(reversed(TEXTS))), strict=True):
        found = {(counts.words[w], d): c for w, d, c in zip(*(a.tolist() for a in field),
                                                            strict=True)}
        expected = {(t, d): c for d, text in enumerate(texts)
                    for t, c in Counter(code_tokens(text)).items()}
        assert found == expected
    assert counts.words == sorted({t for text in TEXTS for t in code_tokens(text)})
    assert counts.documents == len(TEXTS)
