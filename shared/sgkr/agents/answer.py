"""What SGKR tells a coding agent: retrieved knowledge and code, dependency paths, stats.

Plain text (Markdown) answers, made from the graph alone; the Model Context
Protocol server (:mod:`sgkr.agents.server`) hands them to agents. Nothing here
imports the ``mcp`` SDK.

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("fees.py", "def fee(amount):\\n    return rate() * amount\\n"
...                              "def rate():\\n    return 0.2\\n")])
>>> print(explain_path(g, "fee", "rate"))
fee depends on rate (1 path, shortest first):
<BLANKLINE>
1. fee -calls-> rate
<BLANKLINE>
- fee (fees.py:1): fee(amount): fee from amount.
- rate (fees.py:3): rate(): rate.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..algorithms.paths import DEFAULT_MAX_DEPTH, connect_paths, find_paths
from ..errors import InvalidArgumentError, NodeNotFoundError
from ..graph.model import KnowledgeGraph, tag_id
from ..records import FunctionNode, RetrievalResult, SourceSpan
from ..text import fold

__all__ = ["describe_result", "explain_path", "graph_summary", "resolve_node", "where"]

_MAX_PATHS_SHOWN = 5


def where(span: SourceSpan) -> str:
    """``file:line``, or ``file, cell N, line L`` in a notebook.

    Examples
    --------
    >>> where(SourceSpan("a.py", 3, 9)), where(SourceSpan("n.ipynb", 2, 4, 5, 5))
    ('a.py:3', 'n.ipynb, cell 5, line 2')
    """
    if span.cell is not None:
        return f"{span.file}, cell {span.cell}, line {span.start_line}"
    return f"{span.file}:{span.start_line}"


def describe_result(result: RetrievalResult) -> str:
    """A retrieval result as Markdown: matched tags, paths, then each function's knowledge and code.

    Examples
    --------
    >>> print(describe_result(RetrievalResult("What is x?", ())))
    Question: What is x?
    No tag of the graph matched the question; nothing retrieved.
    """
    lines = [f"Question: {result.question}"]
    if result.tags:
        lines.append("Matched tags: " + ", ".join(
            f"{m.label!r} ({m.role}, from {m.text!r})" for m in result.tags))
    elif not result.documents:
        lines.append("No tag of the graph matched the question; nothing retrieved.")
    if result.fallback_used:
        lines.append("No tag matched: the documents come from the fallback retriever.")
    for path in result.paths[:_MAX_PATHS_SHOWN]:
        lines.append("Path: " + " -> ".join(path))
    if len(result.paths) > _MAX_PATHS_SHOWN:
        lines.append(f"... and {len(result.paths) - _MAX_PATHS_SHOWN} more paths")
    for number, d in enumerate(result.documents, start=1):
        place = f" ({where(d.sources[0])})" if d.sources else ""
        lines += ["", f"## {number}. {d.name}{place}, score {d.score:.3f}"]
        if d.knowledge.strip():
            lines += ["", d.knowledge.strip()]
        lines += ["", "```python", d.code.strip(), "```"]
    return "\n".join(lines)


def resolve_node(graph: KnowledgeGraph, name: str) -> list[str]:
    """Node ids a name stands for: a node id, a function's name or qualname, or a tag.

    Raises
    ------
    InvalidArgumentError
        If ``name`` is empty.
    NodeNotFoundError
        If nothing in the graph has that name.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> resolve_node(build_graph([("m.py", "def f():\\n    return 1\\n")]), "m.f")
    ['fn:m.f']

    A tag is found by its label or an alias, case and plural folded.
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidArgumentError("a function or tag name is needed, got an empty one")
    name = name.strip()
    if name in graph:
        return [name]
    found = graph.find(name)
    if found:
        return found
    try:
        tag = tag_id(name)
    except InvalidArgumentError:
        raise NodeNotFoundError(f"no function or tag named {name!r} in the graph") from None
    if tag in graph:
        return [tag]
    aliased = [t.id for t in graph.tags() if any(tag_id(a) == tag for a in t.aliases if fold(a))]
    if aliased:
        return aliased
    raise NodeNotFoundError(f"no function or tag named {name!r} in the graph")


def explain_path(graph: KnowledgeGraph, source: str, target: str, *,
                 max_depth: int = DEFAULT_MAX_DEPTH, max_paths: int = _MAX_PATHS_SHOWN) -> str:
    """How ``source`` depends on ``target`` (functions or tags), as Markdown.

    Dependency paths are walked first from ``source`` to ``target`` (calls,
    tag consumed, tag produced), then the other way; failing both, the
    shortest paths through any edges are shown, said to be undirected.

    Raises
    ------
    NodeNotFoundError
        If either name is not in the graph.
    InvalidArgumentError
        If a name is empty or ``max_depth`` / ``max_paths`` is not positive.
    """
    sources, targets = resolve_node(graph, source), resolve_node(graph, target)
    label = f"{_label(graph, sources[0])} depends on {_label(graph, targets[0])}"
    paths = find_paths(graph, sources, targets, max_depth=max_depth, max_paths=max_paths,
                       reverse_calls=False)
    if not paths:
        paths = find_paths(graph, targets, sources, max_depth=max_depth, max_paths=max_paths,
                           reverse_calls=False)
        label = f"{_label(graph, targets[0])} depends on {_label(graph, sources[0])}"
    if not paths:
        paths = connect_paths(graph, [*sources, *targets], max_depth=max_depth,
                              max_paths=max_paths)
        paths = [p for p in paths if p[0] in sources + targets and p[-1] in sources + targets
                 and (p[0] in sources) != (p[-1] in sources)]
        label = (f"{_label(graph, sources[0])} and {_label(graph, targets[0])} are joined "
                 f"only through shared neighbours (edges walked either way)")
    if not paths:
        return (f"No path of at most {max_depth} edges joins {_label(graph, sources[0])} "
                f"and {_label(graph, targets[0])}.")
    lines = [f"{label} ({len(paths)} path{'s' if len(paths) > 1 else ''}, shortest first):", ""]
    lines += [f"{n}. {_path_text(graph, p)}" for n, p in enumerate(paths, start=1)]
    functions = dict.fromkeys(n for p in paths for n in p if graph.node_type(n) == "function")
    lines.append("")
    lines += [_function_line(graph.function(f)) for f in functions]
    return "\n".join(lines)


def graph_summary(graph: KnowledgeGraph, *, top: int = 10) -> dict[str, object]:
    """The graph's counts, build metadata, most-called functions and tags, for an agent.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> graph_summary(build_graph([("m.py", "def f():\\n    return 1\\n")]))["functions"]
    1
    """
    return {
        **graph.stats(),
        "meta": dict(graph.meta),
        "most_called": [{"id": i, "callers": n} for i, n in graph.most_called(top)],
        "tag_labels": sorted(t.label for t in graph.tags()),
    }


def _label(graph: KnowledgeGraph, node_id: str) -> str:
    if graph.node_type(node_id) == "function":
        return graph.function(node_id).name
    return f"tag {graph.tag(node_id).label!r}"


def _path_text(graph: KnowledgeGraph, path: Sequence[str]) -> str:
    parts = [_label(graph, path[0])]
    for a, b in zip(path, path[1:], strict=False):
        forward = _edge_type(graph, a, b)
        kind = forward or _edge_type(graph, b, a) or ""
        text = _EDGE_TEXT.get(kind, "linked to")
        parts.append(f"-{text}-> " if forward else f"<-{text}- ")
        parts[-1] += _label(graph, b)
    return " ".join(parts)


_EDGE_TEXT = {"calls": "calls", "references": "uses", "consumes": "input of",
              "produces": "produces"}


def _edge_type(graph: KnowledgeGraph, source: str, target: str) -> str | None:
    """The type of the edge ``source -> target``, or None when there is none."""
    if graph.node_type(source) == "tag":
        return "consumes" if target in graph.consumers(source) else None
    if graph.node_type(target) == "tag":
        return "produces" if source in graph.producers(target) else None
    return next((kind for _, end, kind, _ in graph.edges_of([source]) if end == target), None)


def _function_line(f: FunctionNode) -> str:
    first = f.knowledge.strip().splitlines()[0] if f.knowledge.strip() else ""
    place = f" ({where(f.sources[0])})" if f.sources else ""
    return f"- {f.name}{place}: {first}"
