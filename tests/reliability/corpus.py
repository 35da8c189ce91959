"""Hostile and odd inputs shared by the reliability tests and ``campaign.py``.

Each oddity is a named file content (bytes) with what a build must do with it:
read it and find ``expect`` functions, or skip it with a reason containing ``skip``.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

__all__ = ["Oddity", "oddities", "VALID", "BREAKS", "broken_variants", "nested"]

#: A valid file of three top-level functions and a class; the middle one is broken in tests.
VALID = '''"""A module."""
import os


def first(a, b):
    """First."""
    return a + b


def middle(rows, key="x"):
    total = 0
    for row in rows:
        if row[key] > 0:
            total += first(row[key], 1)
    return {"total": total, "n": len(rows)}


class Keeper:
    def keep(self, value):
        return middle([value])


def last(x):
    return first(x, middle([x])["total"])
'''

#: Fragments that break Python when put anywhere: unterminated strings and brackets,
#: stray keywords and operators.
BREAKS = ("(", "[", "{", ")", "'", '"', '"""', "'''", ":", "def ", "async ", "lambda",
          "\\", "@", "=", "\t", " if", "else:", "\n    ", "\n)", "`", "$", "print 'x'")


@dataclass(frozen=True)
class Oddity:
    """One file: its name, bytes, and the functions a build must find or the skip reason."""

    name: str
    data: bytes
    expect: tuple[str, ...] = ()
    skip: str | None = None


def nested(kind: str, depth: int) -> str:
    """Source nested ``depth`` deep: brackets, calls, strings of ``not`` or indented blocks."""
    if kind == "brackets":
        return "x = " + "(" * depth + "1" + ")" * depth + "\n\ndef after():\n    return x\n"
    if kind == "unclosed":
        return "x = " + "[" * depth + "\n\ndef after():\n    return 1\n"
    if kind == "calls":
        return "x = " + "f(" * depth + ")" * depth + "\n\ndef after():\n    return x\n"
    if kind == "operators":
        return "x = " + "not " * depth + "1\n\ndef after():\n    return x\n"
    if kind == "blocks":  # one space per level: 10,000 levels would be 50 MB
        body = "".join(" " * i + "if x:\n" for i in range(depth))
        return "def before():\n    pass\n\n" + body + " " * depth + "g()\n"
    if kind == "defs":
        body = "".join(" " * i + f"def f{i}():\n" for i in range(depth))
        return body + " " * depth + "pass\n"
    raise ValueError(kind)


def oddities(*, big: int = 200_000, depth: int = 10_000) -> list[Oddity]:
    """The corpus of real-world oddities; ``big`` is the size of the one-line file."""
    fn = "def fn(a):\n    return a\n"
    latin = "# -*- coding: latin-1 -*-\ndef caf\u00e9_prix(a):\n    return 'na\u00efve'\n"
    return [
        Oddity("plain.py", fn.encode(), ("fn",)),
        Oddity("crlf.py", fn.replace("\n", "\r\n").encode(), ("fn",)),
        Oddity("cr_only.py", fn.replace("\n", "\r").encode(), ("fn",)),
        Oddity("tabs.py", b"def tabbed(a):\n\tif a:\n\t\treturn a\n\treturn 0\n", ("tabbed",)),
        Oddity("mixed_tabs.py", b"def mixed(a):\n\tif a:\n\t        return a\n    return 0\n",
               ("mixed",)),
        Oddity("formfeed.py", b"\x0cdef ff(a):\n    return a\n\x0c\ndef gg():\n    pass\n",
               ("ff", "gg")),
        Oddity("bom.py", codecs.BOM_UTF8 + fn.encode(), ("fn",)),
        Oddity("latin1_declared.py", latin.encode("latin-1"), ("caf\u00e9_prix",)),
        Oddity("latin1_undeclared.py", latin.replace("# -*- coding: latin-1 -*-\n", "")
               .encode("latin-1"), skip="not decodable"),
        Oddity("utf16_bom.py", fn.encode("utf-16"), ("fn",)),
        Oddity("utf16_no_bom.py", fn.encode("utf-16-le"), skip="NUL"),
        Oddity("unknown_coding.py", b"# coding: klingon\n" + fn.encode(), skip="not decodable"),
        Oddity("nul.py", b"def nul():\n    return '\x00'\n", skip="NUL"),
        Oddity("empty.py", b"", skip="empty"),
        Oddity("blank.py", b"  \n\n\t\n", skip="empty"),
        Oddity("binary.py", bytes(range(256)) * 4, skip="not decodable"),
        Oddity("python2.py", b"print 'hello'\nexec 'x = 1'\n\ndef old(a):\n    print >>f, a\n"
               b"    raise ValueError, 'bad'\n    return 0777L\n\ndef after():\n    return `a`\n",
               ("old", "after")),
        Oddity("async_odd.py", b"async = 1\nawait = 2\n\nasync def co():\n    async with a as b:\n"
               b"        return [x async for x in b]\n\ndef sync():\n    return async_call()\n"
               b"\nclass A:\n    async def m(self):\n        await self.m()\n",
               ("co", "sync", "m")),
        Oddity("unterminated_string.py", b"def a():\n    return 'open\n\ndef b():\n    return 1\n",
               ("a", "b")),
        Oddity("unterminated_triple.py", b'def a():\n    return """open\n\ndef b():\n'
               b'    return 1\n', ("a", "b")),
        Oddity("unterminated_bracket.py", b"def a():\n    return f(1, [2, {3\n\ndef b():\n"
               b"    return 1\n", ("a", "b")),
        Oddity("non_ascii_names.py", "def \u0444\u0443\u043d\u043a\u0446\u0438\u044f(\u0445):\n"
               "    return \u0445\n\ndef \u51fd\u6570():\n    return '\U0001f600'\n".encode(),
               ("\u0444\u0443\u043d\u043a\u0446\u0438\u044f", "\u51fd\u6570")),
        Oddity("long_name.py", f"def {'n' * 10_000}():\n    return 1\n".encode(), ("n" * 10_000,)),
        Oddity("one_line.py", ("x = [" + "1, " * (big // 3) + "]\ndef tail():\n    pass\n")
               .encode(), ("tail",)),
        Oddity("deep_brackets.py", nested("brackets", depth).encode(), ("after",)),
        Oddity("deep_unclosed.py", nested("unclosed", depth).encode(), ("after",)),
        Oddity("deep_calls.py", nested("calls", depth).encode(), ("after",)),
        Oddity("deep_not.py", nested("operators", depth).encode(), ("after",)),
        Oddity("deep_blocks.py", nested("blocks", min(depth, 2_000)).encode(), ("before",)),
        Oddity("deep_defs.py", nested("defs", min(depth, 400)).encode(), ("f0", "f399")
               if depth >= 400 else ("f0",)),
    ]


def broken_variants(text: str = VALID, step: int = 1) -> list[tuple[int, str, str]]:
    """``(position, fragment, text)`` for each fragment of :data:`BREAKS` inserted at every
    ``step``-th position of the body of ``middle`` in ``text``."""
    start = text.index("def middle")
    end = text.index("class Keeper")
    return [(pos, frag, text[:pos] + frag + text[pos:])
            for pos in range(start, end, step) for frag in BREAKS]
