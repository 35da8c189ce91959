"""Cursors for answers given a page at a time (MCP's pagination: opaque, from the server).

A cursor says where the next page starts, and for which call: the question, the
options and the version of the graph are folded into a key, so a cursor used with
other arguments, or after the graph changed, is refused rather than paging through
another ranking (pages would then overlap or skip).

Examples
--------
>>> key = page_key("v1", "What is a fee?", {"k": 50})
>>> cursor = encode_cursor(8, key)
>>> decode_cursor(cursor, key)
8
>>> decode_cursor(cursor, page_key("v1", "What is a fee?", {"k": 60}))
Traceback (most recent call last):
...
sgkr.errors.InvalidArgumentError: this cursor belongs to other arguments or an older version \
of the graph: call again with the arguments that gave it, or without a cursor
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidArgumentError

__all__ = ["page_key", "encode_cursor", "decode_cursor"]


def page_key(version: str, question: str, options: Mapping[str, Any]) -> str:
    """What a cursor is valid for: one version of the graph, one question, one set of options."""
    text = json.dumps([version, question, dict(options)], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def encode_cursor(start: int, key: str) -> str:
    """The opaque cursor of the page starting at document ``start``."""
    raw = json.dumps({"at": start, "key": key}, separators=(",", ":")).encode("ascii")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str, key: str) -> int:
    """Where the page of ``cursor`` starts.

    Raises
    ------
    InvalidArgumentError
        If ``cursor`` is not one :func:`encode_cursor` made, or was made for another key.
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw.decode("ascii"))
        start, made_for = data["at"], data["key"]
    except (binascii.Error, ValueError, UnicodeDecodeError, TypeError, KeyError):
        raise InvalidArgumentError(
            "the cursor is not one this server gave: call again without it") from None
    if not isinstance(start, int) or isinstance(start, bool) or start < 0 \
            or not isinstance(made_for, str):
        raise InvalidArgumentError("the cursor is not one this server gave: call again "
                                   "without it")
    if made_for != key:
        raise InvalidArgumentError(
            "this cursor belongs to other arguments or an older version of the graph: call "
            "again with the arguments that gave it, or without a cursor")
    return start
