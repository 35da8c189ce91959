"""The tools SGKR offers agents: names, titles, hints, compact JSON schemas, strict arguments.

Each :class:`ToolSpec` says what a tool is for and the JSON schema of its arguments,
written for a model's context: one line per parameter, no titles, every bound declared
(``minimum``, ``maximum``, ``enum``) and no other argument allowed. The retrieval options
are those of :class:`~sgkr.retrieval.retriever.RetrieverOptions`, with their types read
from it. :func:`check_arguments` refuses what the schema does not allow, naming the valid
arguments, before a tool runs. Nothing here imports the ``mcp`` SDK.

Examples
--------
>>> check_arguments(RETRIEVE, {"question": "fees?", "kk": 3})
Traceback (most recent call last):
...
sgkr.errors.InvalidArgumentError: retrieve_knowledge has no argument 'kk' (did you mean 'k'?); \
valid arguments: question, cursor, k, max_depth, max_paths, reverse_calls, callees, partial, \
include_knowledge, scripts, fill, lexical, centrality, brevity, specificity, inferred, filter
>>> check_arguments(EXPLAIN, {"source": "fee", "target": "rate"})
{'source': 'fee', 'target': 'rate'}
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from rapidfuzz import fuzz, process

from ..algorithms.paths import DEFAULT_MAX_DEPTH
from ..errors import InvalidArgumentError
from ..retrieval.retriever import RetrieverOptions
from .answer import DEFAULT_SHOWN_PATHS, MAX_ANSWER_CHARS
from .names import MAX_NAME_CHARS

__all__ = ["ToolSpec", "RETRIEVE", "EXPLAIN", "TOOLS", "check_arguments", "schema_chars"]

#: Longest question a tool takes (a question is a sentence or a paragraph, not a file).
MAX_QUESTION_CHARS = 10_000
MAX_CURSOR_CHARS = 200
# Retrieval options as agents see them: a short description, and bounds beyond the type.
_OPTION_TEXT: dict[str, tuple[str, dict[str, Any]]] = {
    "k": ("most functions, over all pages", {"minimum": 1}),
    "max_depth": ("longest path, in edges", {"minimum": 1}),
    "max_paths": ("most paths searched", {"minimum": 1}),
    "reverse_calls": ("walk calls backwards too", {}),
    "callees": ("add callees this many calls deep", {"minimum": 0}),
    "partial": ("if no path joins the tags", {}),
    "include_knowledge": ("knowledge before code", {}),
    "scripts": ("most whole scripts", {"minimum": 0}),
    "fill": ("fill k by a graph walk, or not", {}),
    "lexical": ("seed the walk by words", {}),
    "centrality": ("weight of being called often", {"minimum": 0}),
    "brevity": ("preference for short functions", {"minimum": 0}),
    "specificity": ("least specificity of a tag used", {"minimum": 0, "maximum": 1}),
    "inferred": ("inferred tags: seed walk or paths", {}),
    "filter": ('on file, kind, name, matched_tags: {"kind": "method"}, '
               '{"file": {"$in": [...]}}; $eq $ne $in $nin $all $and $or $not', {}),
}
_READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
              "openWorldHint": False}


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, title, description, argument schema and behaviour hints."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]


def _json_type(hint: Any) -> dict[str, Any]:
    """The JSON schema of an option's Python type (optional types as their inner type)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        return _json_type(args[0])
    for python, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")):
        if hint is python:
            return {"type": name}
    return {"type": "object"}


def _option_schemas() -> dict[str, dict[str, Any]]:
    hints = typing.get_type_hints(RetrieverOptions)
    found = {}
    for f in fields(RetrieverOptions):
        text, bounds = _OPTION_TEXT.get(f.name, (f.name.replace("_", " "), {}))
        found[f.name] = {**_json_type(hints[f.name]), **bounds, "description": text}
    return found


def _object(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


RETRIEVE = ToolSpec(
    name="retrieve_knowledge",
    title="Retrieve knowledge and code",
    description=(
        "The domain knowledge and example code (functions, best first) a question about this "
        "code base depends on, found along its call graph. Options default to the server's. "
        f"An answer has at most {MAX_ANSWER_CHARS:,} characters: when functions are left, it "
        "ends with a cursor; call again with the same arguments and that cursor for the next "
        "page."),
    input_schema=_object({
        "question": {"type": "string", "maxLength": MAX_QUESTION_CHARS,
                     "description": "the question, in the user's words"},
        "cursor": {"type": "string", "maxLength": MAX_CURSOR_CHARS,
                   "description": "from the previous page's answer"},
        **_option_schemas(),
    }, ["question"]),
    annotations={"title": "Retrieve knowledge and code", **_READ_ONLY},
)

_NAME = {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS,
         "description": "a function (bare or qualified name, or node id) or a tag"}
EXPLAIN = ToolSpec(
    name="explain_dependency",
    title="Explain a dependency",
    description=(
        "How one function or tag depends on another: the paths of calls and data between "
        "them, each call labelled exact, inferred or name (a guess by bare name). A misspelt "
        "name gets the nearest names."),
    input_schema=_object({
        "source": _NAME, "target": _NAME,
        "max_depth": {"type": "integer", "minimum": 1, "default": DEFAULT_MAX_DEPTH,
                      "description": "longest path, in edges"},
        "max_paths": {"type": "integer", "minimum": 1, "default": DEFAULT_SHOWN_PATHS,
                      "description": "most paths shown"},
    }, ["source", "target"]),
    annotations={"title": "Explain a dependency", **_READ_ONLY},
)
TOOLS = (RETRIEVE, EXPLAIN)


def check_arguments(tool: ToolSpec, arguments: Any) -> dict[str, Any]:
    """``arguments`` if ``tool``'s schema allows them, else one error saying what is wrong.

    Raises
    ------
    InvalidArgumentError
        An argument the tool does not have (the valid ones are listed), a
        missing one, or a value of the wrong type or out of bounds.
    """
    import jsonschema  # comes with the mcp SDK

    if not isinstance(arguments, dict):
        raise InvalidArgumentError(f"{tool.name} takes a JSON object of arguments")
    valid = list(tool.input_schema["properties"])
    unknown = [name for name in arguments if name not in valid]
    if unknown:
        hint = process.extractOne(unknown[0], valid, scorer=fuzz.ratio, score_cutoff=50)
        near = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise InvalidArgumentError(
            f"{tool.name} has no argument{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}{near}; valid arguments: {', '.join(valid)}")
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(tool.input_schema).iter_errors(arguments))
    if error is not None:
        where = ".".join(map(str, error.absolute_path))
        raise InvalidArgumentError(f"{tool.name}: {where + ': ' if where else ''}"
                                   f"{error.message}")
    return dict(arguments)


def schema_chars(tools: tuple[ToolSpec, ...] = TOOLS) -> int:
    """Characters of the tools' argument schemas as compact JSON (what a client reads).

    Examples
    --------
    >>> schema_chars() <= 2_400
    True
    """
    import json

    return sum(len(json.dumps(t.input_schema, separators=(",", ":"))) for t in tools)
