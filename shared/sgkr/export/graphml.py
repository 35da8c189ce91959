"""GraphML of a :class:`~sgkr.export.view.View`, for Gephi, yEd and networkx.

Written by :func:`networkx.generate_graphml`. GraphML values are scalars, so
lists (qualnames, sources, aliases) are JSON strings. Every node has
``kind``, ``label``, ``role`` (empty when none) and ``faded``; every edge
``type``, ``role`` and ``faded``; the graph has ``question`` and ``highlighted``.

Examples
--------
>>> import io, networkx as nx
>>> from sgkr import build_graph
>>> from sgkr.export.view import subgraph
>>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")])
>>> back = nx.read_graphml(io.StringIO(to_graphml(subgraph(g))))
>>> sorted((d["label"], d["kind"]) for _, d in back.nodes(data=True))
[('f', 'function'), ('g', 'function')]
"""

from __future__ import annotations

import json
from typing import Any

import networkx as nx

from ..errors import InvalidArgumentError
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
    return "\n".join(nx.generate_graphml(g)) + "\n"
