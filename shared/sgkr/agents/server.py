"""A Model Context Protocol server over one graph, for coding agents (``sgkr mcp``).

Built with the official ``mcp`` SDK (sgkr's ``mcp`` extra), served over
stdio. It offers:

- tool ``retrieve_knowledge``: the knowledge and code of the functions a
  question needs, with the retriever's options (``k``, ``max_depth``, ...), a
  page of at most 60,000 characters at a time (a ``cursor`` gives the next);
- tool ``explain_dependency``: how one function or tag depends on another,
  path by path, each call labelled with how it was resolved;
- tool ``map_graph``: a map of the graph within a budget of tokens (its most
  central functions with their headers, knowledge, callers and callees), optionally
  focused on a question (a graph in memory only);
- resource ``sgkr://graph/stats``: the graph's counts, build metadata,
  most-called functions and tag labels (JSON).

The tools only read (their annotations say so), refuse arguments they do not
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

import contextlib
import functools
import io
import json
import re
import sys
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, cast

from ..errors import InvalidArgumentError, SGKRError
from ..extras import missing_extra
from ..graph.model import KnowledgeGraph
from ..masking import mask_secrets
from ..version import __version__
from . import tools as _tools
from .answer import MAX_ANSWER_CHARS, describe_page, explain_path
from .paging import decode_cursor, encode_cursor, page_key
from .serving import Library, Snapshot
from .tools import EXPLAIN, MAP, RETRIEVE, TOOLS, ToolSpec, check_arguments

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


def _map(snapshot: Snapshot, arguments: dict[str, Any]) -> str:
    question = arguments.get("question")
    if question is not None and not question.strip():
        raise InvalidArgumentError("the question is empty")
    return snapshot.retriever.overview(arguments["tokens"], question).text


_WORK: dict[str, tuple[ToolSpec, Callable[[Snapshot, dict[str, Any]], str]]] = {
    RETRIEVE.name: (RETRIEVE, _retrieve), EXPLAIN.name: (EXPLAIN, _explain),
    MAP.name: (MAP, _map)}


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
        raise SGKRError(missing_extra("the MCP server", "mcp", exc)) from None


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

    A request the SDK cannot read because it holds a lone surrogate escape
    (``"\\ud800"``: JSON, but not Unicode) is answered with an error carrying its id,
    never dropped; a client that goes away with answers pending ends the server
    quietly.

    Raises
    ------
    SGKRError
        If the ``mcp`` package is not installed.
    """
    server = make_server(graph, **options)
    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        replies = _Replies()
        lines = cast(Any, _checked(_stdin_lines(), replies))  # the SDK only iterates them
        async with stdio_server(stdin=lines) as (read, write):
            replies.ready(write)
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(run)
    except Exception as exc:
        if not _hung_up(exc):
            raise


class _Unowned(io.TextIOWrapper):
    """Standard input as UTF-8 text, never closing the process's own buffer."""

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.detach()


def _stdin_lines() -> Any:
    import anyio

    return anyio.wrap_file(_Unowned(sys.stdin.buffer, encoding="utf-8", errors="replace"))


class _Replies:
    """Where answers the server makes itself (refusals) go, once the transport is up."""

    def __init__(self) -> None:
        import anyio

        self._ready = anyio.Event()
        self._write: Any = None

    def ready(self, write: Any) -> None:
        self._write = write
        self._ready.set()

    async def send(self, message: Any) -> None:
        from mcp.shared.message import SessionMessage

        await self._ready.wait()
        await self._write.send(SessionMessage(message))


# A JSON escape of a lone surrogate half (a pair is fine: the SDK reads it).
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


async def _checked(lines: Any, replies: _Replies) -> AsyncIterator[str]:
    """The lines of ``lines``, but requests the SDK would drop unread answered here."""
    async for line in lines:
        if _SURROGATE.search(line):
            refusal = _refusal(line)
            if refusal is not None:
                await replies.send(refusal)
                continue
        yield line


def _refusal(line: str) -> Any:
    """The error answering the request ``line`` if the SDK cannot read it, else None."""
    import mcp.types as types

    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except Exception:  # noqa: BLE001 - unreadable by the SDK: answered below if it can be
        pass
    try:
        data = json.loads(line)
    except ValueError:
        return None  # not JSON: the SDK reports it as it does
    request_id = data.get("id") if isinstance(data, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)) \
            or _SURROGATE.search(json.dumps(request_id)) or "method" not in data:
        return None  # a notification, or no id to answer with
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
        code=types.INVALID_REQUEST, message="the request is not valid Unicode: it holds a "
                                            "lone surrogate escape (\\ud800 to \\udfff)"))


def _hung_up(exc: BaseException) -> bool:
    """Whether ``exc`` (or every error of a group) says the client went away."""
    import anyio

    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, tuple) and inner:
        return all(_hung_up(e) for e in inner)
    return isinstance(exc, (BrokenPipeError, ConnectionResetError, anyio.BrokenResourceError,
                            anyio.ClosedResourceError))
