"""A Model Context Protocol server over one graph, for coding agents (``sgkr mcp``).

Built with the official ``mcp`` SDK (``pip install "sgkr[mcp]"``), served over
stdio. It offers:

- tool ``retrieve_knowledge``: the knowledge and code of the functions a
  question needs, with the retriever's options (``k``, ``max_depth``, ...);
- tool ``explain_dependency``: how one function or tag depends on another,
  path by path;
- resource ``sgkr://graph/stats``: the graph's counts, build metadata,
  most-called functions and tag labels (JSON).

The graph is loaded once, before the server starts; nothing is written to
standard output but the protocol.

Examples
--------
>>> from sgkr import build_graph
>>> server = make_server(build_graph([("m.py", "def f():\\n    return 1\\n")]))
>>> server.name
'sgkr'
"""

# No ``from __future__ import annotations``: the SDK reads the tools' annotations, which
# name pydantic's Field imported where the server is made.
import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

from ..algorithms.paths import DEFAULT_MAX_DEPTH
from ..errors import InvalidArgumentError, SGKRError
from ..graph.model import KnowledgeGraph
from ..masking import mask_secrets
from ..retrieval.retriever import Retriever
from .answer import describe_result, explain_path, graph_summary

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["make_server", "serve", "STATS_URI"]

STATS_URI = "sgkr://graph/stats"
_INSTRUCTIONS = (
    "SGKR retrieves the example functions (their domain knowledge and code) that a question "
    "about this code base depends on, following the code's call graph between what the "
    "question gives and what it asks for. Call retrieve_knowledge before writing analysis "
    "code in this domain; call explain_dependency to see why one function needs another.")


def make_server(graph: KnowledgeGraph, **options: Any) -> "MCPServer":
    """The MCP server over ``graph``; ``options`` are the retriever's defaults.

    Raises
    ------
    SGKRError
        If the ``mcp`` package is not installed.
    InvalidArgumentError
        If an option is not one of :class:`~sgkr.retrieval.retriever.RetrieverOptions`.
    """
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from pydantic import Field
    except ImportError as exc:
        raise SGKRError(
            f"the MCP server needs the mcp package ({exc}): pip install \"sgkr[mcp]\"") from None
    retriever = Retriever(graph, **options)
    server = MCPServer("sgkr", instructions=_INSTRUCTIONS)

    @server.tool()
    def retrieve_knowledge(
        question: Annotated[str, Field(description="the question, in the user's words")],
        k: Annotated[int | None, Field(description="most functions returned", ge=1)] = None,
        max_depth: Annotated[int | None, Field(description="longest path, in edges", ge=1)] = None,
        max_paths: Annotated[int | None, Field(description="most paths searched", ge=1)] = None,
        reverse_calls: Annotated[bool | None, Field(
            description="walk call edges from callee to caller too")] = None,
        callees: Annotated[int | None, Field(
            description="add callees of retrieved functions, this many calls deep", ge=0)] = None,
        partial: Annotated[Literal["connect", "nearest", "none"] | None, Field(
            description="what to do when no input-to-output path exists")] = None,
        include_knowledge: Annotated[bool | None, Field(
            description="put each function's knowledge before its code")] = None,
        scripts: Annotated[int | None, Field(
            description="most whole solution scripts returned", ge=0)] = None,
        fill: Annotated[Literal["ppr", "none"] | None, Field(
            description="ppr: fill k by a walk from the question's tags, paths and "
                        "words; none: only what the paths found")] = None,
        lexical: Annotated[bool | None, Field(
            description="seed the walk with the functions named like the question")] = None,
        centrality: Annotated[float | None, Field(
            description="weight of how often a function is called, in the fill", ge=0)] = None,
        brevity: Annotated[float | None, Field(
            description="how much the fill prefers short functions", ge=0)] = None,
        specificity: Annotated[float | None, Field(
            description="least specificity (IDF, 0-1) of a matched tag used", ge=0)] = None,
        inferred: Annotated[Literal["seeds", "paths"] | None, Field(
            description="on a graph of inferred tags only: seed the walk, or search "
                        "paths")] = None,
        filter: Annotated[dict[str, Any] | None, Field(
            description="only functions whose metadata passes this filter, e.g. "
                        '{"kind": "function"} or {"file": {"$in": ["fees.py"]}}; fields: '
                        "file, kind, name, matched_tags; operators $eq $ne $in $nin $all "
                        "$and $or $not")] = None,
    ) -> str:
        """Retrieve the domain knowledge and example code a question depends on.

        Returns the tags matched in the question, the dependency paths found, and
        for each function its knowledge, then its code, best first.
        """
        if not question.strip():
            raise ToolError("the question is empty")
        changed = {name: value for name, value in (
            ("k", k), ("max_depth", max_depth), ("max_paths", max_paths),
            ("reverse_calls", reverse_calls), ("callees", callees), ("partial", partial),
            ("include_knowledge", include_knowledge), ("scripts", scripts),
            ("fill", fill), ("lexical", lexical), ("centrality", centrality),
            ("brevity", brevity), ("specificity", specificity), ("inferred", inferred),
            ("filter", filter))
            if value is not None}
        try:
            chosen = retriever.with_options(**changed) if changed else retriever
            return describe_result(chosen.retrieve(question))
        except SGKRError as exc:  # the agent reads why; other errors stay on the server
            raise ToolError(mask_secrets(str(exc))) from None

    @server.tool()
    def explain_dependency(
        source: Annotated[str, Field(
            description="a function (name, qualified name or node id) or a tag label")],
        target: Annotated[str, Field(
            description="a function (name, qualified name or node id) or a tag label")],
        max_depth: Annotated[int, Field(description="longest path, in edges", ge=1)]
        = DEFAULT_MAX_DEPTH,
    ) -> str:
        """Explain how one function or tag depends on another: the paths that join them."""
        try:
            return explain_path(graph, source, target, max_depth=max_depth)
        except SGKRError as exc:
            raise ToolError(mask_secrets(str(exc))) from None

    @server.resource(STATS_URI, name="graph stats", mime_type="application/json",
                     description="counts of functions, tags and edges; most-called functions")
    def stats() -> str:
        return json.dumps(graph_summary(graph), indent=2, ensure_ascii=False)

    return server


def serve(graph: KnowledgeGraph, **options: Any) -> None:
    """Serve ``graph`` over stdio until the client closes the connection.

    Raises
    ------
    SGKRError
        If the ``mcp`` package is not installed.
    """
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
    make_server(graph, **options).run("stdio")
