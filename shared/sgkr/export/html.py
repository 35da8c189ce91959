"""A self-contained, offline HTML page of a :class:`~sgkr.export.view.View`.

The layout is computed in Python (:mod:`sgkr.export.layout`) and embedded
as JSON with the page's own small script and stylesheet (``page.js``,
``page.css``, shipped in this package): no CDN, no third-party JavaScript.
The script draws SVG, pans (drag) and zooms (wheel, buttons), finds a node
by name, and shows a clicked node's knowledge, code, callers and callees in
a side panel.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.export.view import subgraph
>>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")])
>>> page = to_html(subgraph(g))
>>> page.startswith("<!DOCTYPE html>"), "http" in page.replace(_SVG_NS, "")
(True, False)
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from ..errors import InvalidArgumentError
from .layout import NODE_HEIGHT, layout
from .view import View

__all__ = ["to_html"]

_SVG_NS = "http://www.w3.org/2000/svg"


def to_html(view: View, *, title: str | None = None) -> str:
    """The interactive page of ``view``, as one HTML document.

    Parameters
    ----------
    view
        What to draw (see :func:`~sgkr.export.view.subgraph`).
    title
        The page title; default: the question, or "SGKR graph".

    Returns
    -------
    str
        An HTML document that needs no network: the data, the layout, the
        script and the styles are all inside.

    Raises
    ------
    InvalidArgumentError
        If ``view`` is not a View or ``title`` not a string.
    """
    if not isinstance(view, View):
        raise InvalidArgumentError(f"view must be a View, got {type(view)}")
    if title is not None and not isinstance(title, str):
        raise InvalidArgumentError(f"title must be a string, got {type(title)}")
    name = title or (f"SGKR: {view.question}" if view.question else "SGKR graph")
    legend = ('<div id="legend">'
              '<span style="background:#d8e7ff;border-color:#1f4fa0"></span>retrieved'
              '<span style="background:#e9f0fb;border-color:#1f4fa0;border-style:dashed">'
              '</span>on a path'
              '<span style="background:#ffe3b0;border-color:#b36b00"></span>input tag'
              '<span style="background:#d9f2d9;border-color:#2d7a2d"></span>output tag'
              '<span style="background:#f3f0fa;border-color:#7a64a8;border-style:dashed">'
              '</span>script</div>')
    question = html.escape(f"Question: {view.question}") if view.question else ""
    hint = ("Click a node to see its knowledge and code. Drag to pan, wheel to zoom."
            if view.nodes else "Nothing to draw.")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(name)}</title>\n<style>\n{_asset('page.css')}</style>\n</head>\n"
        "<body>\n<div id=\"app\">\n<div id=\"canvas\">\n"
        f"<svg xmlns=\"{_SVG_NS}\" role=\"img\" aria-label=\"{html.escape(name)}\"></svg>\n"
        "<div id=\"toolbar\"><button id=\"fit\" title=\"fit to window\">fit</button>"
        "<button id=\"zoom-in\">+</button><button id=\"zoom-out\">\u2212</button>"
        "<input id=\"search\" placeholder=\"find a node, Enter\"></div>\n"
        f"{legend}\n<div id=\"question\">{question}</div>\n</div>\n"
        f"<aside id=\"panel\"><p class=\"muted\">{hint}</p></aside>\n</div>\n"
        f"<script type=\"application/json\" id=\"sgkr-data\">{_data(view)}</script>\n"
        f"<script>\n{_asset('page.js')}</script>\n</body>\n</html>\n"
    )


def _data(view: View) -> str:
    box = layout(view)
    index = {n.id: i for i, n in enumerate(view.nodes)}
    nodes: list[dict[str, Any]] = [
        {"id": n.id, "label": n.label, "kind": n.kind, "role": n.role,
         "x": box.x[n.id], "y": box.y[n.id], "w": box.width_of[n.id],
         "score": n.score, "qualnames": list(n.qualnames), "aliases": list(n.aliases),
         "sources": [f"{s.file}:{s.start_line}-{s.end_line}" for s in n.sources],
         "knowledge": n.knowledge, "code": n.code}
        for n in view.nodes
    ]
    edges = [[index[e.source], index[e.target], e.type, e.role] for e in view.edges]
    data = {"nodes": nodes, "edges": edges, "width": box.width, "height": box.height,
            "nodeHeight": NODE_HEIGHT, "highlighted": view.highlighted,
            "question": view.question}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # Inside <script>, "</script>" or "<!--" in a function's code would end the element.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _asset(name: str) -> str:
    return resources.files("sgkr.export").joinpath(name).read_text(encoding="utf-8")
