"""GraphML of a :class:`~sgkr.export.view.View`, for Gephi, yEd and networkx.

Written a node or an edge at a time (:func:`graphml_pieces`), so that a whole
graph is never held as an XML tree: a file as large as the graph's own is
written in memory the size of the view. GraphML values are scalars, so lists
(qualnames, sources, aliases) are JSON strings. Every node has ``kind``,
``label``, ``role`` (empty when none), ``faded`` and, when it was retrieved,
``score``; every edge ``type``, ``resolution``, ``role`` and ``faded``; the
graph has ``question`` and ``highlighted``. Edges keep the graph's direction:
``consumes`` from the tag to the function that takes it as input, ``produces``
from the function to its output tag. Every string comes back exactly from an
XML reader, except the characters XML 1.0 cannot hold at all (C0 controls other
than tab, newline and carriage return, lone surrogates, U+FFFE, U+FFFF), which
are written as ``\\xNN`` / ``\\uNNNN``.

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
from collections.abc import Iterator
from typing import Any

from ..errors import InvalidArgumentError
from ..text import escaped
from .view import View

__all__ = ["to_graphml", "graphml_pieces"]


def to_graphml(view: View) -> str:
    """The GraphML document of ``view`` (:func:`graphml_pieces` joined).

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
    return "".join(graphml_pieces(view))


# Each attribute: its key id, where it is declared, its name and its GraphML type.
_KEYS = (("d0", "graph", "question", "string"), ("d1", "graph", "highlighted", "boolean"),
         ("d2", "node", "kind", "string"), ("d3", "node", "label", "string"),
         ("d4", "node", "role", "string"), ("d5", "node", "faded", "boolean"),
         ("d6", "node", "qualnames", "string"), ("d7", "node", "aliases", "string"),
         ("d8", "node", "sources", "string"), ("d9", "node", "knowledge", "string"),
         ("d10", "node", "code", "string"), ("d11", "node", "score", "double"),
         ("d12", "edge", "type", "string"), ("d13", "edge", "resolution", "string"),
         ("d14", "edge", "role", "string"), ("d15", "edge", "faded", "boolean"))
_HEAD = ('<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
         'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
         'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
         'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n')


def graphml_pieces(view: View) -> Iterator[str]:
    """The GraphML document of ``view``, a node or an edge at a time (see the module docs).

    Raises
    ------
    InvalidArgumentError
        If ``view`` is not a View.
    """
    if not isinstance(view, View):
        raise InvalidArgumentError(f"view must be a View, got {type(view)}")
    return _pieces(view)


def _pieces(view: View) -> Iterator[str]:
    yield _HEAD + "".join(f'  <key id="{k}" for="{where}" attr.name="{name}" '
                          f'attr.type="{kind}" />\n' for k, where, name, kind in _KEYS)
    yield ('  <graph edgedefault="directed">\n' + _data("d0", view.question or "", 4)
           + _data("d1", view.highlighted, 4))
    for n in view.nodes:
        values: list[tuple[str, Any]] = [
            ("d2", n.kind), ("d3", n.label), ("d4", n.role or ""),
            ("d5", view.highlighted and n.role is None), ("d6", json.dumps(list(n.qualnames))),
            ("d7", json.dumps(list(n.aliases))),
            ("d8", json.dumps([s.to_dict() for s in n.sources])), ("d9", n.knowledge),
            ("d10", n.code)]
        if n.score is not None:
            values.append(("d11", float(n.score)))
        yield (f'    <node id="{_attribute(n.id)}">\n'
               + "".join(_data(k, v, 6) for k, v in values) + "    </node>\n")
    for e in view.edges:
        yield (f'    <edge source="{_attribute(e.source)}" target="{_attribute(e.target)}">\n'
               + _data("d12", e.type, 6) + _data("d13", e.resolution or "", 6)
               + _data("d14", e.role or "", 6)
               + _data("d15", view.highlighted and e.role is None, 6) + "    </edge>\n")
    yield "  </graph>\n</graphml>\n"


def _data(key: str, value: Any, indent: int) -> str:
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = repr(value)
    else:
        text = _text(str(value))
    pad = " " * indent
    return f'{pad}<data key="{key}">{text}</data>\n' if text else f'{pad}<data key="{key}" />\n'


# What XML 1.0 cannot hold, even as a character reference.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# What XML reads otherwise than written: in text, a carriage return (read as a newline);
# in an attribute, white space too (read as a space).
_TEXT = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"}
_ATTRIBUTE = {**_TEXT, '"': "&quot;", "\n": "&#10;", "\t": "&#9;"}
_TEXT_SPECIAL = re.compile("[&<>\r]")
_ATTRIBUTE_SPECIAL = re.compile('[&<>\r"\n\t]')


def _text(value: str) -> str:
    return _TEXT_SPECIAL.sub(lambda m: _TEXT[m.group()], _NOT_XML.sub(escaped, value))


def _attribute(value: str) -> str:
    return _ATTRIBUTE_SPECIAL.sub(lambda m: _ATTRIBUTE[m.group()], _NOT_XML.sub(escaped, value))
