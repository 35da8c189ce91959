"""Parsed JSON is checked for lone surrogates only where the text escapes one."""

from __future__ import annotations

import json

import pytest

from sgkr.errors import GraphFormatError
from sgkr.ingest import files
from sgkr.ingest.files import parse_json


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
