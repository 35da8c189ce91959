"""The edges along a dependency path: which relation each step follows, and which way.

A path (:attr:`sgkr.records.RetrievalResult.paths`) is a sequence of node ids
from an input tag to an output tag. Each step follows one edge: ``consumes``
(from a tag to the function that takes it as input), ``calls`` or
``references`` (from the caller to the callee, or back from the callee when
the search walked a call against its direction) or ``produces`` (from a
function to the tag it outputs). :func:`path_hops` says which, so that a path
can be shown as ``tag:amount -input of-> fn:fee -called by-> fn:main``.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.stores import as_reader
>>> g = build_graph([("m.py", "def f(x):\\n    return g(x)\\ndef g(x):\\n    return x\\n")])
>>> [h.text for h in path_hops(as_reader(g), ("fn:m.g", "fn:m.f"))]
['called by']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import get_args

from ..records import EdgeType
from ..stores.base import GraphReader

__all__ = ["Hop", "path_hops", "paths_hops", "hop_arrow"]

#: How each relation reads from its source to its target, and back.
_TEXT: dict[EdgeType, tuple[str, str]] = {
    "calls": ("calls", "called by"), "references": ("uses", "used by"),
    "consumes": ("input of", "takes"), "produces": ("produces", "produced by"),
}


@dataclass(frozen=True)
class Hop:
    """One step of a path: from ``source`` to ``target`` along an edge of ``type``.

    ``forward`` is false when the edge points from ``target`` to ``source``
    (a call walked from the callee to its caller); ``type`` is ``None`` when
    no edge joins the two (a path of another graph).
    """

    source: str
    target: str
    type: EdgeType | None
    forward: bool = True

    @property
    def text(self) -> str:
        """The relation as read along the path (``calls``, ``called by``, ``input of``)."""
        if self.type is None:
            return "linked to"
        ahead, back = _TEXT[self.type]
        return ahead if self.forward else back


def hop_arrow(hop: Hop) -> str:
    """``-calls->``: the step as an arrow labelled with its relation.

    Examples
    --------
    >>> hop_arrow(Hop("fn:f", "fn:g", "calls")), hop_arrow(Hop("fn:g", "fn:f", "calls", False))
    ('-calls->', '-called by->')
    """
    return f"-{hop.text}->"


def path_hops(reader: GraphReader, path: Sequence[str]) -> tuple[Hop, ...]:
    """The steps of one path, read from ``reader`` (see :func:`paths_hops` for many)."""
    return paths_hops(reader, [path])[0]


def paths_hops(reader: GraphReader,
               paths: Iterable[Sequence[str]]) -> list[tuple[Hop, ...]]:
    """The steps of each path, with one batch of reads per relation for all of them."""
    paths = [tuple(p) for p in paths]
    nodes = sorted({n for p in paths for n in p})
    out = {kind: reader.neighbours(nodes, kind, "out") for kind in get_args(EdgeType)}

    def hop(a: str, b: str) -> Hop:
        for kind in get_args(EdgeType):
            if b in out[kind].get(a, ()):
                return Hop(a, b, kind)
        for kind in get_args(EdgeType):
            if a in out[kind].get(b, ()):
                return Hop(a, b, kind, forward=False)
        return Hop(a, b, None)

    return [tuple(hop(a, b) for a, b in zip(p, p[1:], strict=False)) for p in paths]
