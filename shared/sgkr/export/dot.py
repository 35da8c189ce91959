"""Graphviz DOT text of a :class:`~sgkr.export.view.View`.

Nodes carry ``kind`` and ``role`` attributes (Graphviz keeps unknown
attributes, so they survive ``dot -Tdot``); shapes and pen widths draw them.
Input tags sit in the top rank and output tags in the bottom one.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.export.view import subgraph
>>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")],
...                 infer_tags=False)
>>> text = to_dot(subgraph(g))
>>> text.splitlines()[0], text.count(" -> ")
('digraph sgkr {', 1)
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
from .view import View, ViewEdge, ViewNode

__all__ = ["to_dot"]

_SHAPES = {"function": "box", "method": "box", "module": "box3d", "tag": "ellipse",
           "task": "note"}
_FILL = {"function": "#eef3fb", "method": "#eef3fb", "module": "#f3f0fa", "tag": "#fff6e0",
         "task": "#eaf6ea",
         "retrieved": "#d8e7ff", "path": "#e9f0fb", "input": "#ffe3b0", "output": "#d9f2d9",
         "asked": "#c9ecc9",
         "faded": "#f7f7f7"}


def to_dot(view: View) -> str:
    """The DOT source of ``view``: one statement per node and per edge.

    Parameters
    ----------
    view
        What to draw (see :func:`~sgkr.export.view.subgraph`).

    Returns
    -------
    str
        A ``digraph`` with ``rankdir=TB`` (callers above callees); highlighted
        nodes and edges are bold, the rest grey when a question is shown.

    Raises
    ------
    InvalidArgumentError
        If ``view`` is not a View.
    """
    if not isinstance(view, View):
        raise InvalidArgumentError(f"view must be a View, got {type(view)}")
    graph_attrs = {"rankdir": "TB", "fontname": "Helvetica"}
    if view.question:
        graph_attrs.update(label=view.question, labelloc="t")
    lines = ["digraph sgkr {", f"  graph [{_attrs(graph_attrs)}];",
             '  node [fontname="Helvetica", fontsize=11, style=filled];',
             '  edge [fontname="Helvetica", fontsize=9];']
    lines.extend(f"  {_quote(n.id)} [{_attrs(_node_attrs(n, view))}];" for n in view.nodes)
    produced = {e.target for e in view.edges if e.type == "produces"}
    tags = [n.id for n in view.nodes if n.is_tag]
    for rank, members in (("min", [t for t in tags if t not in produced]),
                          ("max", [t for t in tags if t in produced])):
        if members:
            lines.append(f"  {{ rank={rank}; {' '.join(_quote(t) + ';' for t in members)} }}")
    lines.extend(f"  {_quote(e.source)} -> {_quote(e.target)} [{_attrs(_edge_attrs(e, view))}];"
                 for e in view.edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _node_attrs(n: ViewNode, view: View) -> dict[str, str]:
    faded = view.highlighted and n.role is None
    attrs = {"label": n.label, "kind": n.kind, "shape": _SHAPES[n.kind],
             "fillcolor": _FILL["faded" if faded else (n.role or n.kind)]}
    if n.role is not None:
        attrs.update(role=n.role, penwidth="3" if n.role != "path" else "2")
        attrs["style"] = "filled,bold" if n.role != "path" else "filled,dashed"
    if faded:
        attrs.update(color="#d0d0d0", fontcolor="#a8a8a8")
    return attrs


def _edge_attrs(e: ViewEdge, view: View) -> dict[str, str]:
    attrs = {"type": e.type}
    if e.resolution:
        attrs["resolution"] = e.resolution
    if e.type != "calls":
        attrs["style"] = "dashed"
    if e.role is not None:
        attrs.update(role=e.role, penwidth="3" if e.role == "path" else "2")
    elif view.highlighted:
        attrs["color"] = "#d8d8d8"
    return attrs


def _attrs(attrs: dict[str, str]) -> str:
    return ", ".join(f"{key}={_quote(value)}" for key, value in attrs.items())


# Inside a quoted DOT string: backslash and quote escaped, a newline as Graphviz's
# \n, & and every character that is not printable (controls, NUL, form feeds,
# separators, lone surrogates) as an HTML character reference, which Graphviz decodes.
_DOT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "&": "&amp;"}


def _quote(text: str) -> str:
    if text.isascii() and text.isprintable() and not any(c in text for c in '\\"&'):
        return f'"{text}"'
    escaped = "".join(_DOT_ESCAPES.get(c) or (c if c.isprintable() else f"&#{ord(c)};")
                      for c in text)
    return f'"{escaped}"'
