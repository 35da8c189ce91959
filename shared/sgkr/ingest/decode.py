"""Source bytes to text: by BOM, PEP 263 coding line or UTF-8, in time linear in the file.

The coding line is a comment, read as text (its bytes), never as code.

Examples
--------
>>> decoded(b"# -*- coding: latin-1 -*-\\nname = '\\xe9'\\n", "m.py")
("# -*- coding: latin-1 -*-\\nname = 'é'\\n", None)
>>> decoded(b"\\n", "e.py")[1].reason
'empty file'
"""

from __future__ import annotations

import codecs

from ..records import Problem

__all__ = ["decode_source", "decoded", "shown_path", "is_text", "coding_of",
           "SOURCE_ENCODINGS"]

#: The encodings a coding line may name (their canonical names): Unicode, the
#: single-byte code pages and the East Asian multi-byte ones, each decoded in
#: time linear in the file. Others (``punycode``, quadratic: a 400 KB file took
#: 8 s; ``idna``, ``utf-7``, ``unicode_escape``; ``rot13``, ``zlib``, which are
#: not text encodings) are refused.
SOURCE_ENCODINGS = frozenset({
    "utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le",
    "utf-32-be", "ascii", "cp037", "cp1006", "cp1026", "cp1125", "cp1140", "cp273", "cp424",
    "cp437", "cp500", "cp720", "cp737", "cp775", "cp850", "cp852", "cp855", "cp856", "cp857",
    "cp858", "cp860", "cp861", "cp862", "cp863", "cp864", "cp865", "cp866", "cp869", "cp874",
    "cp875", "cp932", "cp949", "cp950", *(f"cp125{i}" for i in range(9)),
    *(f"iso8859-{i}" for i in (*range(1, 12), 13, 14, 15, 16)), "koi8-r", "koi8-t", "koi8-u",
    "kz1048", "ptcp154", "tis-620", "hp-roman8", "mac-arabic", "mac-croatian", "mac-cyrillic",
    "mac-farsi", "mac-greek", "mac-iceland", "mac-latin2", "mac-roman", "mac-romanian",
    "mac-turkish", "big5", "big5hkscs", "euc_jis_2004", "euc_jisx0213", "euc_jp", "euc_kr",
    "gb18030", "gb2312", "gbk", "hz", "iso2022_jp", "iso2022_jp_1", "iso2022_jp_2",
    "iso2022_jp_2004", "iso2022_jp_3", "iso2022_jp_ext", "iso2022_kr", "johab", "shift_jis",
    "shift_jis_2004", "shift_jisx0213",
})
# What may stand between ``#`` and the encoding's name, and the name's characters.
_MARGIN = b" \t\f"
_NAME = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def decode_source(data: bytes) -> str:
    """Decode Python source bytes by BOM, PEP 263 coding line, or UTF-8.

    Raises
    ------
    UnicodeError, LookupError
        When the bytes are not text in the declared or default encoding, or the
        coding line names an encoding not in :data:`SOURCE_ENCODINGS`.

    Examples
    --------
    >>> decode_source(b"# coding: latin-1\\nx = '\\xe9'\\n")[-4:]
    "'é'\\n"
    >>> decode_source(b"# coding: punycode\\nx = 1\\n")
    Traceback (most recent call last):
    ...
    LookupError: coding 'punycode' is not a source encoding SGKR reads
    """
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    for line in data.split(b"\n", 2)[:2]:
        name = coding_of(line)
        if name is not None:
            return data.decode(_source_encoding(name))
    return data.decode("utf-8")


def _source_encoding(name: str) -> str:
    """The canonical name of the encoding a coding line names, if it is one SGKR reads.

    Emacs' ``utf-8-unix`` and ``latin-1-dos`` are read as Python reads them.
    """
    low = name.lower().replace("_", "-")
    if low.startswith(("utf-8-", "latin-1-", "iso-8859-1-", "iso-latin-1-")):
        name = "utf-8" if low.startswith("utf-8") else "iso-8859-1"
    try:
        canonical = codecs.lookup(name).name
    except LookupError:
        raise LookupError(f"unknown encoding {name!r} in the coding line") from None
    if canonical not in SOURCE_ENCODINGS:
        raise LookupError(f"coding {name!r} is not a source encoding SGKR reads")
    return canonical


def coding_of(line: bytes) -> str | None:
    """The encoding a PEP 263 coding comment names (``# -*- coding: NAME -*-``), or None.

    A comment line whose text holds ``coding:`` or ``coding=`` followed by a name,
    as Python's own tokenizer reads it.

    Examples
    --------
    >>> coding_of(b"# vim: set fileencoding=cp1252 :"), coding_of(b"x = 1  # coding: utf-8")
    ('cp1252', None)
    """
    text = line.lstrip(_MARGIN)
    if not text.startswith(b"#"):
        return None
    at = text.find(b"coding")
    while at >= 0:
        after = at + len(b"coding")
        if text[after : after + 1] in (b":", b"="):
            start = after + 1
            while text[start : start + 1] in (b" ", b"\t"):
                start += 1
            end = start
            while end < len(text) and text[end] in _NAME:
                end += 1
            if end > start:
                return text[start:end].decode("ascii")
        at = text.find(b"coding", after)
    return None


def decoded(data: bytes, rel: str) -> tuple[str | None, Problem | None]:
    """The text of a source file's bytes, or the problem that makes it skipped."""
    if not data.strip():
        return None, Problem(rel, "empty file")
    try:
        text = decode_source(data)
    except (UnicodeError, LookupError) as exc:
        return None, Problem(rel, f"not decodable as text: {exc}")
    if "\x00" in text:
        return None, Problem(rel, "binary file (NUL bytes)")
    if not is_text(text):
        return None, Problem(rel, "not Unicode text (a lone surrogate)")
    return text, None


def shown_path(rel: str) -> str:
    """``rel`` with bytes that are not UTF-8 (kept as surrogates by the OS layer) as U+FFFD."""
    if is_text(rel):
        return rel
    try:
        return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return rel.encode("utf-8", "replace").decode("utf-8")


def is_text(text: str) -> bool:
    """Whether ``text`` is Unicode text (holds no lone surrogate).

    Examples
    --------
    >>> is_text("fee"), is_text("\\ud800")
    (True, False)
    """
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
