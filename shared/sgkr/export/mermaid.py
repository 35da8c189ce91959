"""Mermaid flowchart text of a :class:`~sgkr.export.view.View`, for a README or a notebook.

Shapes carry the node kind (function ``[..]``, module ``[[..]]``, method
``[/../]``, tag ``([..])``), classes carry the highlight (``retrieved``,
``path``, ``input``, ``output``, ``tag``, ``faded``), path edges are thick
(``==>``), consumes/produces edges dotted (``-.->``).

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.export.view import subgraph
>>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")],
...                infer_tags=False)
>>> print(to_mermaid(subgraph(g)))  # doctest: +NORMALIZE_WHITESPACE
flowchart TD
    n0["f"]:::function
    n1["g"]:::function
    n0 --> n1
    classDef function fill:#eef3fb,stroke:#4a6fa5,color:#1d2b3a
    classDef method fill:#eef3fb,stroke:#4a6fa5,color:#1d2b3a
    classDef module fill:#f3f0fa,stroke:#7a64a8,color:#2b2140
    classDef tag fill:#fff6e0,stroke:#c99a2e,color:#4a3710
    classDef retrieved fill:#d8e7ff,stroke:#1f4fa0,stroke-width:3px,color:#0b1f44
    classDef path fill:#e9f0fb,stroke:#1f4fa0,stroke-width:2px,stroke-dasharray:4 3
    classDef input fill:#ffe3b0,stroke:#b36b00,stroke-width:3px,color:#4a2c00
    classDef output fill:#d9f2d9,stroke:#2d7a2d,stroke-width:3px,color:#0f3310
    classDef faded fill:#f7f7f7,stroke:#d5d5d5,color:#b0b0b0
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
from .view import View, ViewNode

__all__ = ["to_mermaid"]

_SHAPES = {"function": ('["', '"]'), "method": ('[/"', '"/]'), "module": ('[["', '"]]'),
           "tag": ('(["', '"])'), "task": ('>"', '"]')}
_CLASSES = {
    "function": "fill:#eef3fb,stroke:#4a6fa5,color:#1d2b3a",
    "method": "fill:#eef3fb,stroke:#4a6fa5,color:#1d2b3a",
    "module": "fill:#f3f0fa,stroke:#7a64a8,color:#2b2140",
    "tag": "fill:#fff6e0,stroke:#c99a2e,color:#4a3710",
    "task": "fill:#eaf6ea,stroke:#4f8a4f,color:#1e3a1e",
    "retrieved": "fill:#d8e7ff,stroke:#1f4fa0,stroke-width:3px,color:#0b1f44",
    "path": "fill:#e9f0fb,stroke:#1f4fa0,stroke-width:2px,stroke-dasharray:4 3",
    "input": "fill:#ffe3b0,stroke:#b36b00,stroke-width:3px,color:#4a2c00",
    "output": "fill:#d9f2d9,stroke:#2d7a2d,stroke-width:3px,color:#0f3310",
    "asked": "fill:#c9ecc9,stroke:#2d7a2d,stroke-width:2px,color:#0f3310",
    "faded": "fill:#f7f7f7,stroke:#d5d5d5,color:#b0b0b0",
}
_TASK_CLASSES = frozenset({"task", "asked"})


def to_mermaid(view: View) -> str:
    """The Mermaid ``flowchart TD`` source of ``view`` (callers above callees).

    Parameters
    ----------
    view
        What to draw (see :func:`~sgkr.export.view.subgraph`).

    Returns
    -------
    str
        One statement per line: the question as a ``%%`` comment, one line per
        node, one per edge, then class definitions and, when highlighted,
        ``linkStyle`` lines that fade the edges off the paths.

    Raises
    ------
    InvalidArgumentError
        If ``view`` is not a View.
    """
    if not isinstance(view, View):
        raise InvalidArgumentError(f"view must be a View, got {type(view)}")
    ids = {n.id: f"n{i}" for i, n in enumerate(view.nodes)}
    lines = ["flowchart TD"]
    if view.question:
        lines.append(f"    %% question: {_label(view.question)}")
    for n in view.nodes:
        start, end = _SHAPES[n.kind]
        lines.append(f"    {ids[n.id]}{start}{_label(n.label)}{end}:::{_class(n, view)}")
    faded: list[str] = []
    for i, e in enumerate(view.edges):
        arrow = "==>" if e.role == "path" else "-->" if e.type == "calls" else "-.->"
        lines.append(f"    {ids[e.source]} {arrow} {ids[e.target]}")
        if view.highlighted and e.role is None:
            faded.append(str(i))
    # The classes of solved tasks only where the picture has some.
    tasks = any(n.kind == "task" for n in view.nodes)
    lines.extend(f"    classDef {name} {style}" for name, style in _CLASSES.items()
                 if tasks or name not in _TASK_CLASSES)
    if faded:
        lines.append(f"    linkStyle {','.join(faded)} stroke:#dddddd")
    return "\n".join(lines) + "\n"


def _class(node: ViewNode, view: View) -> str:
    if node.role is not None:
        return node.role
    return "faded" if view.highlighted else node.kind


# Characters written as they are inside a quoted label; every other one becomes a
# Mermaid entity code (#60; for <): no markdown backtick string, no HTML element,
# no control character reaches the diagram.
_PLAIN = frozenset(" _.,:-+/()'?!=@$%*")


def _label(text: str) -> str:
    return "".join(c if (c.isalnum() and c.isprintable()) or c in _PLAIN
                   else "#quot;" if c == '"' else f"#{ord(c)};"
                   for c in _one_line(text))


def _one_line(text: str) -> str:
    return " ".join(text.split())
