"""Parsed JSON is checked for lone surrogates only where the text escapes one."""

from __future__ import annotations

import json

import pytest

from sgkr.errors import GraphFormatError
from sgkr.ingest import files
from sgkr.ingest.files import parse_json, parse_large_json


@pytest.mark.parametrize("escaped", ["\\ud800", "\\\\\\udfff", "x\\\\\\\\\\udbff"])
def test_a_lone_surrogate_escape_is_refused(escaped: str) -> None:
    with pytest.raises(GraphFormatError, match="lone surrogate"):
        parse_json(f'["{escaped}"]'.encode(), "g.json", GraphFormatError)


def test_code_that_spells_a_surrogate_escape_is_not_walked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Source code holding the six characters \\ud800 (a test of the standard library's)
    is written to JSON with its backslash escaped: no surrogate, and the document (61 MB
    for the standard library with its tests) is not walked in Python for one."""
    code = 'assert "\\ud800\\udfff".isprintable() is False'
    raw = json.dumps({"code": code, "more": ["\\\\ud800"]}, ensure_ascii=False).encode()
    monkeypatch.setattr(files, "check_tree", lambda *a, **k: pytest.fail("walked"))
    assert parse_json(raw, "g.json", GraphFormatError)["code"] == code


@pytest.mark.parametrize("raw", [b'[NaN]', b'["\\ud800"]', b'["\xff"]', b"[" * 3000 + b"]" * 3000,
                                 b'{"a": 1'])
def test_a_large_document_is_refused_in_the_words_of_the_standard_parser(raw: bytes) -> None:
    with pytest.raises(GraphFormatError) as standard:
        parse_json(raw, "g.json", GraphFormatError)
    with pytest.raises(GraphFormatError) as large:
        parse_large_json(raw, "g.json", GraphFormatError)
    assert str(large.value) == str(standard.value)


def test_a_large_document_parses_as_the_standard_parser_does() -> None:
    raw = json.dumps({"code": "x = '\\u00e9\U0001f600'", "weights": [0.1, 1e-320, 2**63 - 1],
                      "lines": [[1, 2], []], "n": None}, ensure_ascii=False).encode()
    assert parse_large_json(b"\xef\xbb\xbf" + raw, "g.json", GraphFormatError) \
        == parse_json(raw, "g.json", GraphFormatError)
    # What orjson refuses and the standard parser takes, it takes.
    assert parse_large_json(b"[1e400]", "g.json", GraphFormatError) == [float("inf")]
