"""Pictures of the knowledge–code graph: an interactive HTML page, Mermaid, DOT and GraphML.

One call draws the whole graph, a neighbourhood (``around``, ``depth``) or
what a retrieval touched, with the matched tags, the retrieved functions and
the path edges highlighted and the rest faded (the paper's Figure 2).

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")],
...                 infer_tags=False)
>>> print(render(g, format="mermaid").splitlines()[3])
    n0 --> n1
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..atomic import write_atomic
from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import RetrievalResult
from .dot import to_dot
from .graphml import graphml_pieces, to_graphml
from .html import to_html
from .layout import Layout, layout
from .mermaid import to_mermaid
from .view import View, ViewEdge, ViewNode, subgraph

__all__ = [
    "FORMATS",
    "render",
    "render_view",
    "render_pieces",
    "write",
    "format_for",
    "subgraph",
    "layout",
    "View",
    "ViewNode",
    "ViewEdge",
    "Layout",
    "to_html",
    "to_mermaid",
    "to_dot",
    "to_graphml",
]

_WRITERS: dict[str, Callable[[View], str]] = {
    "html": to_html, "mermaid": to_mermaid, "dot": to_dot, "graphml": to_graphml,
}
#: The export formats, by name.
FORMATS: tuple[str, ...] = tuple(_WRITERS)
_SUFFIXES = {".html": "html", ".htm": "html", ".mmd": "mermaid", ".mermaid": "mermaid",
             ".dot": "dot", ".gv": "dot", ".graphml": "graphml"}


def render(graph: KnowledgeGraph, result: RetrievalResult | None = None, format: str = "html",
           *, around: Iterable[str] = (), depth: int = 1, focus: bool = False) -> str:
    """The picture of ``graph`` (and of ``result``, highlighted) in ``format``.

    Parameters
    ----------
    graph
        The knowledge–code graph.
    result
        A retrieval on ``graph`` (e.g. ``Retriever(graph).retrieve(question)``):
        its matched tags, retrieved functions and path edges are highlighted
        and the rest is faded. ``None``: no highlight.
    format
        One of :data:`FORMATS`: ``html``, ``mermaid``, ``dot``, ``graphml``.
    around, depth, focus
        Limit the picture to the nodes within ``depth`` edges of the named
        nodes, or of the highlighted ones with ``focus`` (see
        :func:`~sgkr.export.view.subgraph`).

    Returns
    -------
    str
        The document: an HTML page, Mermaid or DOT source, or GraphML.

    Raises
    ------
    InvalidArgumentError
        If ``format`` is unknown, or an option is invalid.
    NodeNotFoundError
        If a name in ``around`` is not in the graph.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> g = build_graph([("m.py", "def f():\\n    return 1\\n")], infer_tags=False)
    >>> render(g, format="dot").count("->"), render(g, format="png")
    Traceback (most recent call last):
    ...
    sgkr.errors.InvalidArgumentError: format must be one of html, mermaid, dot, graphml; got 'png'
    """
    _writer(format)
    return render_view(subgraph(graph, result, around=around, depth=depth, focus=focus), format)


def render_view(view: View, format: str = "html") -> str:
    """Draw a :class:`~sgkr.export.view.View` made by :func:`subgraph` in ``format``.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> v = subgraph(build_graph([("m.py", "def f():\\n    return 1\\n")]))
    >>> render_view(v, "mermaid").splitlines()[1]
    '    n0["f"]:::function'
    """
    return _writer(format)(view)


def render_pieces(view: View, format: str = "html") -> Iterator[str]:
    """:func:`render_view`'s text in pieces, to write as they come: GraphML a node or an
    edge at a time (a whole graph is never held as one document), the others whole."""
    if format == "graphml":
        return graphml_pieces(view)
    return iter([render_view(view, format)])


def _writer(format: str) -> Callable[[View], str]:
    writer = _WRITERS.get(format) if isinstance(format, str) else None
    if writer is None:
        raise InvalidArgumentError(
            f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    return writer


def format_for(path: str | os.PathLike[str]) -> str | None:
    """The format a file name implies (``.html``, ``.mmd``, ``.dot``/``.gv``, ``.graphml``).

    Examples
    --------
    >>> format_for("graph.gv"), format_for("notes.txt")
    ('dot', None)
    """
    return _SUFFIXES.get(Path(path).suffix.lower())


def write(path: str | os.PathLike[str], graph: KnowledgeGraph,
          result: RetrievalResult | None = None, format: str | None = None, *,
          around: Iterable[str] = (), depth: int = 1, focus: bool = False) -> Path:
    """Render (as :func:`render`) and write the picture to ``path``; return the path.

    ``format`` defaults to the one the file suffix implies, else ``html``. The
    file is written atomically; a symlink at ``path`` is replaced, never
    followed (:func:`sgkr.atomic.write_atomic`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sgkr import build_graph
    >>> g = build_graph([("m.py", "def f():\\n    return 1\\n")], infer_tags=False)
    >>> out = write(pathlib.Path(tempfile.mkdtemp()) / "g.graphml", g)
    >>> out.read_text(encoding="utf-8").count("<node ")
    1
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(f"path must be a file name, got {type(path)}")
    chosen = format or format_for(path) or "html"
    _writer(chosen)
    view = subgraph(graph, result, around=around, depth=depth, focus=focus)
    return write_atomic(path, render_pieces(view, chosen))
