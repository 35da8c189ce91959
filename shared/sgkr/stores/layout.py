"""How a graph lies in a FalkorDB server: its keys, its labels, and the text codec.

A store named ``name`` is a few Redis keys:

- ``name@<digest>-<push>``: one graph per push, written whole before it is used
  (the digest of its content, then the push's own token: two pushes never write
  into one graph);
- ``name@current``: the string naming the version readers read;
- ``name@lock``: held by the one push writing to the store (:mod:`sgkr.stores.lock`);
- ``name@retired``: a hash of the versions no longer current, with the server
  time they stopped being so (kept a while for the questions still reading them).

In a version, every node has an indexed ``key``: the hex BLAKE2b digest of its
id (of its words, for a ``:Phrase`` or ``:Token``). FalkorDB's exact-match
index trims blanks and splits values at U+0001 (``"x"`` finds ``" x"`` and
``"x "``, ``"a\\x01"`` is never found), so SGKR never looks a text up in it.
Text travels in a Cypher parameter, which cannot hold NUL: :func:`pack`
escapes NUL and U+0001, :func:`unpack` restores them; a record is stored as
its graph.json object (JSON escapes every control character).

Examples
--------
>>> key_of("fn:m.f") == key_of("fn:m.f") != key_of("fn:m.f ")
True
>>> pack("a\\x00b\\x01c"), unpack(pack("a\\x00b\\x01c")) == "a\\x00b\\x01c"
('a\\x01\\x03b\\x01\\x02c', True)
"""

from __future__ import annotations

import hashlib
import re

from ..records import EdgeType

__all__ = ["FORMAT", "RELATIONS", "INDEXES", "key_of", "pack", "unpack", "current_key",
           "lock_key", "retired_key", "version_prefix"]

#: The layout of a pushed graph and the tokens of its postings; a reader refuses another.
FORMAT = 8
#: The relationship type of each edge type.
RELATIONS: dict[EdgeType, str] = {"calls": "CALLS", "references": "REFERENCES",
                                  "consumes": "CONSUMES", "produces": "PRODUCES"}
#: The indexes of a version, (label, property): lookups by key, and the fill's ranking.
INDEXES = (("Node", "key"), ("Node", "central"), ("Function", "name"), ("Phrase", "key"),
           ("Token", "key"))
_ESCAPE = "\x01"
_PACKED = re.compile("\x01([\x02\x03])")


def key_of(text: str) -> str:
    """The indexed key of a node id, a phrase or a word: 32 hex digits."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def pack(text: str) -> str:
    """``text`` as a Cypher parameter can carry it: NUL and U+0001 escaped."""
    if "\x00" not in text and _ESCAPE not in text:
        return text
    return text.replace(_ESCAPE, "\x01\x02").replace("\x00", "\x01\x03")


def unpack(text: str) -> str:
    """The text :func:`pack` packed."""
    if _ESCAPE not in text:
        return text
    return _PACKED.sub(lambda m: "\x01" if m.group(1) == "\x02" else "\x00", text)


def current_key(name: str) -> str:
    """The key naming the current version of the store ``name``."""
    return f"{name}@current"


def lock_key(name: str) -> str:
    """The key a push to the store ``name`` holds while it writes."""
    return f"{name}@lock"


def retired_key(name: str) -> str:
    """The hash of the store's versions no longer current, and since when (server time)."""
    return f"{name}@retired"


def version_prefix(name: str) -> str:
    """What the name of every graph of the store ``name`` starts with."""
    return f"{name}@"
