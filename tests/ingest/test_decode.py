"""Decoding source bytes: the coding comment is read as Python's tokenizer reads it."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from sgkr.ingest.decode import coding_of, decode_source

# PEP 263's own statement of the coding comment, as a reference for the reader.
PEP_263 = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _reference(line: bytes) -> str | None:
    found = PEP_263.match(line)
    return found.group(1).decode("ascii") if found else None


def test_coding_comments_of_editors_and_plain_lines() -> None:
    assert coding_of(b"# -*- coding: latin-1 -*-") == "latin-1"
    assert coding_of(b"  # vim: set fileencoding=utf-8 :") == "utf-8"
    assert coding_of(b"#coding:cp1252") == "cp1252"
    assert coding_of(b"# coding= , but coding: koi8-r") == "koi8-r"
    assert coding_of(b"x = 1  # coding: utf-8") is None
    assert coding_of(b"# coding utf-8") is None
    assert decode_source(b"#!/usr/bin/env python\n# coding: latin-1\nx = '\xe9'\n")[-4:] \
        == "'\u00e9'\n"


@given(st.lists(st.sampled_from([b" ", b"\t", b"\x0c", b"#", b"coding", b":", b"=", b"-",
                                 b"utf", b"8", b"_", b".", b"x", b"\xe9", b"\r"]),
                max_size=12))
def test_coding_of_reads_what_pep_263_states(pieces: list[bytes]) -> None:
    line = b"".join(pieces)
    assert coding_of(line) == _reference(line)
