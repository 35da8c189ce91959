"""Cursors: opaque, valid for one question, options and graph version only."""

from __future__ import annotations

import pytest

from sgkr.agents.paging import decode_cursor, encode_cursor, page_key
from sgkr.errors import InvalidArgumentError


def test_a_cursor_comes_back_to_where_it_was_made() -> None:
    key = page_key("v", "q", {"k": 3, "filter": {"kind": "method"}})
    assert decode_cursor(encode_cursor(12, key), key) == 12
    assert key == page_key("v", "q", {"filter": {"kind": "method"}, "k": 3})  # order of keys


@pytest.mark.parametrize("other", [("w", "q", {"k": 3}), ("v", "q2", {"k": 3}),
                                   ("v", "q", {"k": 4}), ("v", "q", {})])
def test_a_cursor_of_other_arguments_or_graph_is_refused(other: tuple[str, str, dict]) -> None:
    cursor = encode_cursor(5, page_key("v", "q", {"k": 3}))
    with pytest.raises(InvalidArgumentError, match="other arguments or an older version"):
        decode_cursor(cursor, page_key(*other))


@pytest.mark.parametrize("cursor", ["", "!!!", "bm90IGpzb24", "eyJhdCI6IC0xLCAia2V5IjogIngifQ",
                                    "WzFd", "eyJhdCI6dHJ1ZSwia2V5IjoieCJ9"])
def test_a_cursor_not_made_here_is_refused(cursor: str) -> None:
    with pytest.raises(InvalidArgumentError, match="not one this server gave"):
        decode_cursor(cursor, "x")
