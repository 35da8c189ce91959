"""The tools SGKR offers agents: names, titles, hints, compact JSON schemas, strict arguments.

Each :class:`ToolSpec` says what a tool is for and the JSON schema of its arguments,
written for a model's context: one line per parameter, no titles, every bound declared
(``minimum``, ``maximum``, ``enum``) and no other argument allowed. The retrieval options
are declared once in :mod:`sgkr.retrieval.options`, which makes their schemas.
:func:`check_arguments` refuses what the schema does not allow, naming the valid arguments,
before a tool runs. Nothing here imports the ``mcp`` SDK.

Examples
--------
>>> check_arguments(RETRIEVE, {"question": "fees?", "kk": 3})
Traceback (most recent call last):
...
sgkr.errors.InvalidArgumentError: retrieve_knowledge has no argument 'kk' (did you mean 'k'?); \
valid arguments: question, cursor, k, max_depth, max_paths, reverse_calls, callees, partial, \
include_knowledge, scripts, fill, lexical, evidence, mentions, walk, reuse, centrality, brevity, \
neighbours, boost, specificity, inferred, filter, tests
>>> check_arguments(EXPLAIN, {"source": "fee", "target": "rate"})
{'source': 'fee', 'target': 'rate'}
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process

from ..algorithms.paths import DEFAULT_MAX_DEPTH
from ..errors import InvalidArgumentError
from ..retrieval.options import OPTIONS
from ..retrieval.overview import MIN_TOKENS
from .answer import DEFAULT_SHOWN_PATHS, MAX_ANSWER_CHARS
from .names import MAX_NAME_CHARS

__all__ = ["ToolSpec", "RETRIEVE", "EXPLAIN", "MAP", "TOOLS", "check_arguments", "schema_chars",
           "prepare"]

#: Longest question a tool takes (a question is a sentence or a paragraph, not a file).
MAX_QUESTION_CHARS = 10_000
MAX_CURSOR_CHARS = 200
_READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
              "openWorldHint": False}


@dataclass(frozen=True, eq=False)
class ToolSpec:
    """One tool: its name, title, description, argument schema and behaviour hints."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]


def _option_schemas() -> dict[str, dict[str, Any]]:
    """Every retrieval option's schema, as declared (the server's defaults may differ)."""
    return {name: spec.json_schema(default=False) for name, spec in OPTIONS.items()}


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
         "description": "a function (bare or qualified name) or a tag"}
EXPLAIN = ToolSpec(
    name="explain_dependency",
    title="Explain a dependency",
    description=(
        "How one function or tag depends on another: the paths of calls and data between "
        "them, each call labelled exact, inferred or name (a guess by bare name). A misspelt "
        "name gets the nearest names."),
    input_schema=_object({
        "source": _NAME, "target": _NAME,
        "max_depth": {**OPTIONS["max_depth"].json_schema(description=False),
                      "default": DEFAULT_MAX_DEPTH},
        "max_paths": {**OPTIONS["max_paths"].json_schema(description=False),
                      "default": DEFAULT_SHOWN_PATHS, "description": "most paths shown"},
    }, ["source", "target"]),
    annotations={"title": "Explain a dependency", **_READ_ONLY},
)
#: Most tokens a map tool call asks for: its text stays under an answer's characters.
MAX_MAP_TOKENS = MAX_ANSWER_CHARS // 5
MAP = ToolSpec(
    name="map_graph",
    title="Map the code base",
    description=(
        "A map of this code base within a budget of tokens, for a first look before any "
        "question: its most central functions and methods by file and class, each with its "
        "parameters, the first line of its knowledge, and what it calls and is called by. "
        "With a question, the functions it depends on and their neighbours come first."),
    input_schema=_object({
        "tokens": {"type": "integer", "minimum": MIN_TOKENS, "maximum": MAX_MAP_TOKENS,
                   "description": "most tokens of the map (words and symbols)"},
        "question": {"type": "string", "maxLength": MAX_QUESTION_CHARS,
                     "description": "focus the map on what this question needs"},
    }, ["tokens"]),
    annotations={"title": "Map the code base", **_READ_ONLY},
)
TOOLS = (RETRIEVE, EXPLAIN, MAP)


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
    error = jsonschema.exceptions.best_match(_validator(tool).iter_errors(arguments))
    if error is not None:
        where = ".".join(map(str, error.absolute_path))
        raise InvalidArgumentError(f"{tool.name}: {where + ': ' if where else ''}"
                                   f"{error.message}")
    return dict(arguments)


@functools.cache
def _validator(tool: ToolSpec) -> Any:
    """The JSON Schema validator of ``tool``'s arguments, made once."""
    import jsonschema  # comes with the mcp SDK

    return jsonschema.Draft202012Validator(tool.input_schema)


def prepare() -> None:
    """Make the validators of every tool now (a server, before its first request)."""
    for tool in TOOLS:
        _validator(tool)


def schema_chars(tools: tuple[ToolSpec, ...] = TOOLS) -> int:
    """Characters of the tools' argument schemas as compact JSON (what a client reads).

    Examples
    --------
    >>> schema_chars() <= 3_400
    True
    """
    import json

    return sum(len(json.dumps(t.input_schema, separators=(",", ":"))) for t in tools)
