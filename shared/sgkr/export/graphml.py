"""GraphML of a :class:`~sgkr.export.view.View`, for Gephi, yEd and networkx.

Written by :func:`networkx.generate_graphml`. GraphML values are scalars, so
lists (qualnames, sources, aliases) are JSON strings. Every node has
``kind``, ``label``, ``role`` (empty when none) and ``faded``; every edge
``type``, ``role`` and ``faded``; the graph has ``question`` and ``highlighted``.
Edges keep the graph's direction: ``consumes`` from the tag to the function
that takes it as input, ``produces`` from the function to its output tag.
Every string comes back exactly from an XML reader, except the characters XML
1.0 cannot hold at all (C0 controls other than tab, newline and carriage return,
lone surrogates, U+FFFE, U+FFFF), which are written as ``\\xNN`` / ``\\uNNNN``.

Examples
--------
>>> import io, networkx as nx
>>> from sgkr import build_graph
>>> from sgkr.export.view import subgraph
>>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")],
...                 infer_tags=False)
>>> back = nx.read_graphml(io.StringIO(to_graphml(subgraph(g))))
>>> sorted((d["label"], d["kind"]) for _, d in back.nodes(data=True))
[('f', 'function'), ('g', 'function')]
"""

from __future__ import annotations

import json
import re
from typing import Any

import networkx as nx

from ..errors import InvalidArgumentError
from ..text import escaped
from .view import View

__all__ = ["to_graphml"]


def to_graphml(view: View) -> str:
    """The GraphML document of ``view``.

    Parameters
    ----------
    view
        What to draw (see :func:`~sgkr.export.view.subgraph`).

    Returns
    -------
    str
        A GraphML document; node ids are the graph's node ids.

    Raises
    ------
    InvalidArgumentError
        If ``view`` is not a View.
    """
    if not isinstance(view, View):
        raise InvalidArgumentError(f"view must be a View, got {type(view)}")
    g = nx.DiGraph(question=view.question or "", highlighted=view.highlighted)
    for n in view.nodes:
        attrs: dict[str, Any] = {
            "kind": n.kind, "label": n.label, "role": n.role or "",
            "faded": view.highlighted and n.role is None,
            "qualnames": json.dumps(list(n.qualnames)),
            "aliases": json.dumps(list(n.aliases)),
            "sources": json.dumps([s.to_dict() for s in n.sources]),
            "knowledge": n.knowledge, "code": n.code,
        }
        if n.score is not None:
            attrs["score"] = float(n.score)
        g.add_node(n.id, **attrs)
    for e in view.edges:
        g.add_edge(e.source, e.target, type=e.type, resolution=e.resolution or "",
                   role=e.role or "", faded=view.highlighted and e.role is None)
    # A carriage return would come back from an XML reader as a newline: it goes
    # through networkx as \x01 (which _xml_safe has escaped where it stood) and is
    # written as a character reference, which comes back as it was.
    return "\n".join(nx.generate_graphml(_xml_safe(g))).replace("\x01", "&#13;") + "\n"


# What XML 1.0 cannot hold, even as a character reference.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    return _NOT_XML.sub(escaped, value).replace("\r", "\x01")


def _xml_safe(g: nx.DiGraph) -> nx.DiGraph:
    """``g`` with the characters XML cannot hold written as ``\\xNN`` / ``\\uNNNN``."""
    out = nx.DiGraph(**{k: _xml_text(v) for k, v in g.graph.items()})
    ids = {n: _xml_text(n) for n in g}
    out.add_nodes_from((ids[n], {k: _xml_text(v) for k, v in d.items()})
                       for n, d in g.nodes(data=True))
    out.add_edges_from((ids[a], ids[b], {k: _xml_text(v) for k, v in d.items()})
                       for a, b, d in g.edges(data=True))
    return out
