"""The built-in lexical scorer: names weigh most, common words little, postings bounded."""

from __future__ import annotations

import pytest

from sgkr import build_graph
from sgkr.algorithms.lexical import LexicalIndex
from sgkr.errors import InvalidArgumentError

CODE = ("def set_timeout(request, seconds):\n    request.timeout = seconds\n"
        "def get_cookie(jar, name):\n    return jar.get(name)\n"
        "def cookies_from_dict(values):\n    return dict(values)\n"
        "def send(request):\n    return request\n")


def test_names_rank_first_and_plurals_fold() -> None:
    index = LexicalIndex(build_graph([("m.py", CODE)]))
    assert index.search("set a timeout on a request", 1)[0][0] == "fn:m.set_timeout"
    assert index.search("make cookies from a dict", 1)[0][0] == "fn:m.cookies_from_dict"
    assert {n for n, _ in index.search("cookie", 2)} == {"fn:m.cookies_from_dict",
                                                          "fn:m.get_cookie"}
    assert index.search("zzz", 3) == []


def test_postings_are_bounded_and_scores_scaled() -> None:
    index = LexicalIndex(build_graph([("m.py", CODE)]), postings=1)
    hits = index.search("request", 4)
    assert len(hits) == 1 and hits[0][1] == 1.0
    with pytest.raises(InvalidArgumentError, match="postings"):
        LexicalIndex(build_graph([("m.py", CODE)]), postings=0)
    with pytest.raises(InvalidArgumentError, match="k must be"):
        index.search("request", 0)
