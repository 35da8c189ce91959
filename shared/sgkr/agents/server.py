"""A Model Context Protocol server over one graph, for coding agents (``sgkr mcp``).

Built with the official ``mcp`` SDK (``pip install "sgkr[mcp]"``), served over
stdio. It offers:

- tool ``retrieve_knowledge``: the knowledge and code of the functions a
  question needs, with the retriever's options (``k``, ``max_depth``, ...), a
  page of at most 60,000 characters at a time (a ``cursor`` gives the next);
- tool ``explain_dependency``: how one function or tag depends on another,
  path by path, each call labelled with how it was resolved;
- resource ``sgkr://graph/stats``: the graph's counts, build metadata,
  most-called functions and tag labels (JSON).

Both tools only read (their annotations say so), refuse arguments they do not
have, and report bad input as a tool error the agent reads. The graph is loaded
and made ready before the server starts; nothing is written to standard output
but the protocol.

Examples
--------
>>> from sgkr import build_graph
>>> server = make_server(build_graph([("m.py", "def f():\\n    return 1\\n")]))
>>> server.name, server.version == __version__
('sgkr', True)
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import InvalidArgumentError, SGKRError
from ..graph.model import KnowledgeGraph
from ..masking import mask_secrets
from ..version import __version__
from . import tools as _tools
from .answer import MAX_ANSWER_CHARS, describe_page, explain_path
from .paging import decode_cursor, encode_cursor, page_key
from .serving import Library, Snapshot
from .tools import EXPLAIN, RETRIEVE, TOOLS, ToolSpec, check_arguments

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = ["make_server", "serve", "answer", "require_sdk", "STATS_URI"]

STATS_URI = "sgkr://graph/stats"
_INSTRUCTIONS = (
    "SGKR retrieves the example functions (their domain knowledge and code) that a question "
    "about this code base depends on, following the code's call graph between what the "
    "question gives and what it asks for. Call retrieve_knowledge before writing code in "
    "this domain; call explain_dependency to see why one function needs another.")
_MORE = ("\n\nMore functions are left: call retrieve_knowledge again with the same arguments "
         'and cursor "{cursor}".')


def _retrieve(snapshot: Snapshot, arguments: dict[str, Any]) -> str:
    options = dict(arguments)
    question, cursor = options.pop("question"), options.pop("cursor", None)
    key = page_key(snapshot.version(snapshot.reader), question, options)
    start = 0 if cursor is None else decode_cursor(cursor, key)
    retriever = snapshot.retriever.with_options(**options) if options else snapshot.retriever
    budget = MAX_ANSWER_CHARS - len(_MORE) - 2 * len(encode_cursor(start, key)) - 20
    page = describe_page(retriever.retrieve(question), start, budget=budget)
    if page.next is None:
        return page.text
    return page.text + _MORE.format(cursor=encode_cursor(page.next, key))


def _explain(snapshot: Snapshot, arguments: dict[str, Any]) -> str:
    options = {k: v for k, v in arguments.items() if k in ("max_depth", "max_paths")}
    reader = snapshot.reader
    return explain_path(reader, arguments["source"], arguments["target"],
                        names=snapshot.names(reader), **options)


_WORK: dict[str, tuple[ToolSpec, Callable[[Snapshot, dict[str, Any]], str]]] = {
    RETRIEVE.name: (RETRIEVE, _retrieve), EXPLAIN.name: (EXPLAIN, _explain)}


def answer(library: Library, tool: str, arguments: Any) -> str:
    """What ``tool`` answers to ``arguments``, from the library's current snapshot.

    Raises
    ------
    InvalidArgumentError
        If the tool is unknown or the arguments are not the tool's.
    SGKRError
        If the tool cannot answer (a name not in the graph, a store that fails).
    """
    if tool not in _WORK:
        raise InvalidArgumentError(f"no tool {tool!r}; tools: {', '.join(_WORK)}")
    spec, work = _WORK[tool]
    return work(library.current, check_arguments(spec, arguments))


def require_sdk() -> None:
    """Check that the ``mcp`` SDK is installed (before a long build, not after).

    Raises
    ------
    SGKRError
        If it is not, saying how to install it.
    """
    try:
        import jsonschema  # noqa: F401
        import mcp.server.lowlevel  # noqa: F401
    except ImportError as exc:
        raise SGKRError(
            f"the MCP server needs the mcp package ({exc}): pip install \"sgkr[mcp]\"") from None


def make_server(graph: KnowledgeGraph | Library, **options: Any) -> Server[Any]:
    """The MCP server over ``graph`` (or a library of its versions); ``options`` are the
    retriever's defaults.

    Raises
    ------
    SGKRError
        If the ``mcp`` package is not installed.
    InvalidArgumentError
        If an option is not one of :class:`~sgkr.retrieval.retriever.RetrieverOptions`.
    """
    require_sdk()
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    _tools.prepare()
    if isinstance(graph, KnowledgeGraph):
        library = Library(Snapshot.of(graph, **options))
    elif isinstance(graph, Library) and not options:
        library = graph
    else:
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph (with options) or a "
                                   f"Library (its snapshots have theirs), got {type(graph)}")
    tools = [types.Tool(name=t.name, title=t.title, description=t.description,
                        input_schema=t.input_schema,
                        annotations=types.ToolAnnotations.model_validate(t.annotations))
             for t in TOOLS]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in _WORK:
            raise MCPError(types.INVALID_PARAMS, f"no tool {params.name!r}; tools: "
                                                 f"{', '.join(_WORK)}")
        work = functools.partial(answer, library, params.name, params.arguments or {})
        try:
            text = await anyio.to_thread.run_sync(work)
        except SGKRError as exc:  # the agent reads why; other errors stay on the server
            return types.CallToolResult(content=[types.TextContent(
                type="text", text=mask_secrets(str(exc)))], is_error=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(
            uri=STATS_URI, name="graph stats", title="Graph statistics",
            mime_type="application/json",
            description="counts of functions, tags and edges; most-called functions")])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        if str(params.uri) != STATS_URI:
            raise MCPError(types.INVALID_PARAMS, f"no resource {str(params.uri)!r}")
        text = json.dumps(library.current.summary(), indent=2, ensure_ascii=False)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=STATS_URI, text=text, mime_type="application/json")])

    return Server("sgkr", version=__version__, title="SGKR", instructions=_INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_read_resource=read_resource)


def serve(graph: KnowledgeGraph | Library, **options: Any) -> None:
    """Serve ``graph`` over stdio until the client closes the connection.

    Raises
    ------
    SGKRError
        If the ``mcp`` package is not installed.
    """
    server = make_server(graph, **options)
    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
