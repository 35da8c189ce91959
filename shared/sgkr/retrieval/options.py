"""The retrieval options, declared once for every interface.

Each option is one field of :class:`RetrieverOptions`, declared with
:func:`option`: its type (the field's annotation: ``int``, ``float``,
``bool``, a ``Literal`` of choices, or a JSON object), default, bounds, a
one-line ``help`` and a longer ``doc``. Everything else is made from that
declaration: the validation of :class:`RetrieverOptions`, its docstring, the
``sgkr`` command's flags (:mod:`sgkr.cli.options`), the MCP tool's JSON
schema (:meth:`Option.json_schema`), LangChain's pydantic fields
(:meth:`Option.annotation`) and the table in
``docs/options.md`` (:func:`options_markdown`).

- A new option: one field here, declared with :func:`option`; every interface
  has it then.
- Validation of one option: its declaration's ``minimum``, ``maximum``,
  ``choices`` (a ``Literal``) or, for what those cannot say, ``check``;
  validation across options: :meth:`RetrieverOptions.check_together`.

Examples
--------
>>> RetrieverOptions(k=3).k
3
>>> OPTIONS["k"].json_schema()
{'type': 'integer', 'minimum': 1, 'default': 8, 'description': 'most functions returned'}
>>> RetrieverOptions.from_dict({"kk": 3})
Traceback (most recent call last):
...
sgkr.errors.InvalidArgumentError: unknown retriever option(s): ['kk'] (did you mean 'k'?)
"""

from __future__ import annotations

import difflib
import json
import math
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from types import MappingProxyType, UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from ..algorithms.paths import DEFAULT_MAX_DEPTH, DEFAULT_MAX_PATHS, MAX_DEPTH, MAX_PATHS
from ..errors import InvalidArgumentError
from ..text import shown
from .filters import FILTER_FIELDS, compile_filter

__all__ = ["RetrieverOptions", "Option", "OPTIONS", "option", "options_markdown", "refuse_unknown",
           "DEFAULT_K", "Partial", "Fill", "Inferred", "Kind"]

DEFAULT_K = 8
# Beyond these the fill's scores overflow (a length to the power 100 is past any
# float) or stop meaning anything: 1 is the default of both.
#: Largest weight of a part of the graph stage's fusion, and the largest ``evidence``.
MAX_WEIGHT = 100.0
MAX_EVIDENCE = 1e6
MAX_CENTRALITY = 100.0
MAX_BREVITY = 10.0
#: Most earlier questions that may vote (a solution of any more says little).
MAX_NEIGHBOURS = 1_000
Partial = Literal["connect", "nearest", "none"]
Fill = Literal["ppr", "none"]
Inferred = Literal["seeds", "paths"]
#: What an option holds: the JSON type of its value.
Kind = Literal["integer", "number", "boolean", "string", "object"]

_META = "sgkr.option"
_JSON_TYPES: dict[Any, Kind] = {int: "integer", float: "number", bool: "boolean"}


@dataclass(frozen=True)
class Option:
    """One retrieval option as every interface shows it.

    Attributes
    ----------
    name
        The field of :class:`RetrieverOptions` (``max_depth``); the CLI flag
        is ``--max-depth``.
    kind
        The JSON type of its value: ``integer``, ``number``, ``boolean``,
        ``string`` (one of ``choices``) or ``object``.
    default
        Its value when not given.
    help
        One line, for a CLI flag, an MCP argument, a LangChain field.
    doc
        The full description, for docstrings and the docs.
    minimum, maximum
        Bounds of a number, inclusive (``None``: unbounded).
    choices
        The values of a ``string`` option.
    nullable
        ``None`` is a value (it switches the option off).
    check
        Further validation of a value that passed the above: raises
        :class:`~sgkr.errors.InvalidArgumentError`.
    metavar
        The CLI's name for the value (``DEPTH``).
    """

    name: str
    kind: Kind
    default: Any
    help: str
    doc: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False
    check: Callable[[Any], None] | None = None
    metavar: str | None = None

    def validate(self, value: object) -> None:
        """Raise :class:`~sgkr.errors.InvalidArgumentError` naming the option unless ``value`` fits.

        Examples
        --------
        >>> OPTIONS["callees"].validate(-1)
        Traceback (most recent call last):
        ...
        sgkr.errors.InvalidArgumentError: callees must be an integer from 0 to 64, got -1
        """
        if value is None and self.nullable:
            return
        if self.kind == "boolean":
            if not isinstance(value, bool):
                raise InvalidArgumentError(f"{self.name} must be True or False, got {shown(value)}")
        elif self.kind in ("integer", "number"):
            self._check_number(value)
        elif self.kind == "string":
            if value not in self.choices:
                raise InvalidArgumentError(
                    f"{self.name} must be one of {self.choices}, got {shown(value)}")
        elif not isinstance(value, Mapping):
            raise InvalidArgumentError(
                f"{self.name} must be an object (a dict), got {shown(value)}")
        if self.check is not None:
            self.check(value)

    def _check_number(self, value: object) -> None:
        whole = self.kind == "integer"
        # An int is compared as it is: math.isfinite(10**400) raises OverflowError.
        fits = (isinstance(value, (int, float)) and not isinstance(value, bool)
                and (isinstance(value, int) or (not whole and math.isfinite(value)))
                and (self.minimum is None or value >= self.minimum)
                and (self.maximum is None or value <= self.maximum))
        if not fits:
            raise InvalidArgumentError(
                f"{self.name} must be {'an integer' if whole else 'a number'}"
                f"{self.range_text()}, got {shown(value)}")

    def range_text(self) -> str:
        """`` of at least 1``, `` from 0 to 1``, or nothing: the bounds in words."""
        low, high = (_number(b) for b in (self.minimum, self.maximum))
        if low is not None and high is not None:
            return f" from {low} to {high}"
        if low is not None:
            return f" of at least {low}"
        return f" of at most {high}" if high is not None else ""

    def annotation(self) -> Any:
        """The Python type of a value (``int``, ``Literal["ppr", "none"]``, ...), for pydantic."""
        return _ANNOTATIONS[self.name]

    def json_schema(self, *, default: bool = True, description: bool = True) -> dict[str, Any]:
        """The JSON Schema of a value: type, bounds, choices, and the default and help.

        Examples
        --------
        >>> OPTIONS["fill"].json_schema(description=False)
        {'type': 'string', 'enum': ['ppr', 'none'], 'default': 'ppr'}
        """
        schema: dict[str, Any] = {"type": [self.kind, "null"] if self.nullable else self.kind}
        if self.choices:
            schema["enum"] = list(self.choices)
        schema.update({key: _number(value) for key, value in
                       (("minimum", self.minimum), ("maximum", self.maximum))
                       if value is not None})
        if default:
            schema["default"] = self.default
        if description:
            schema["description"] = self.help
        return schema


def option(default: Any, help: str, doc: str, *, minimum: float | None = None,
           maximum: float | None = None, check: Callable[[Any], None] | None = None,
           metavar: str | None = None) -> Any:
    """Declare a field of :class:`RetrieverOptions` (see this module's docstring).

    Its type is the field's annotation; the rest of :class:`Option` is given here.
    """
    spec = {"help": help, "doc": " ".join(doc.split()), "minimum": minimum,
            "maximum": maximum, "check": check, "metavar": metavar}
    return field(default=default, metadata={_META: MappingProxyType(spec)})


def _check_filter(value: Mapping[str, Any]) -> None:
    compile_filter(value)


@dataclass(frozen=True)
class RetrieverOptions:
    # The docstring is made from the declarations below (see _docstring).
    k: int = option(
        DEFAULT_K, "most functions returned", """Most function nodes returned.""",
        minimum=1)
    max_depth: int = option(
        DEFAULT_MAX_DEPTH, "longest path, in edges",
        """Bound of the path search: most edges on one path.""", minimum=1,
        maximum=MAX_DEPTH)
    max_paths: int = option(
        DEFAULT_MAX_PATHS, "most paths searched",
        """Bound of the path search: most paths in all.""", minimum=1, maximum=MAX_PATHS)
    reverse_calls: bool = option(
        True, "walk calls from callee to caller too",
        """Walk call edges from callee to caller too (connects a helper shared by two
        solutions to either caller).""")
    callees: int = option(
        2, "add callees this many calls deep",
        """Add the callees of retrieved functions up to this many calls deep, ranked
        after the functions on paths (0: none).""", minimum=0, maximum=MAX_DEPTH,
        metavar="DEPTH")
    partial: Partial = option(
        "connect", "when no path joins input and output tags",
        """When no path leads from an input tag to an output tag (only inputs, or only
        outputs, matched, or nothing joins them): ``connect`` joins the matched tags by
        the shortest paths through any edges; ``nearest`` takes the functions that
        consume or produce them; ``none`` retrieves nothing.""")
    include_knowledge: bool = option(
        True, "put each function's knowledge before its code",
        """Put each function's knowledge in its document (off: code only, less the
        docstring that carried the knowledge; an ablation).""")
    scripts: int = option(
        0, "most whole scripts (module bodies)",
        """Most module-body documents (whole solution scripts) returned. A module body
        on a path is still walked through (its callees are added) when it is not
        returned.""", minimum=0)
    fill: Fill = option(
        "ppr", "ppr: fill k by a walk from the question; none: paths only",
        """``ppr`` fills what the paths and their callees leave of the ``k`` functions
        with the functions a personalized PageRank walk from the question's seeds
        (matched tags, path functions, lexical matches) visits most, then, in memory,
        the most-called functions, so a question gets ``k`` functions when the graph
        has them; ``none`` returns what the paths found (the paper), or the lexical
        matches when no tag matched.""")
    lexical: bool = option(
        True, "seed the walk by the question's words",
        """Seed the walk with the functions whose names, identifiers and knowledge
        match the question's words (BM25, :mod:`sgkr.algorithms.lexical`); they
        answer when no tag matches. A graph store without a lexical index (a
        server's) has no lexical seeds.""")
    evidence: float = option(
        25.0, "BM25 score at which the first stage is half sure",
        """How sure the graph stage takes the first stage to be: ``s / (s + evidence)`` for the
        question's best BM25 score ``s``. Its hits weigh that much (the best 1) and the walk
        the rest: a question of a few words (best scores near 10) is answered mostly by the
        walk from its tags and hits, a bug report that names the code (scores in the
        hundreds) mostly by its words.""", minimum=0.0, maximum=MAX_EVIDENCE)
    mentions: float = option(
        0.5, "weight of the functions the question names",
        """Weight, in the graph stage's fusion, of the functions the question names as code
        (``Dataset.chunks``, ``prepare_url(``, an identifier in backticks), matched exactly
        against the graph's function names and each name's share split among the functions
        that have it (:mod:`sgkr.retrieval.mentions`); the first stage's best hit weighs 1.
        0: off.""", minimum=0.0, maximum=MAX_WEIGHT)
    walk: float = option(
        1.0, "weight of the walk's score in the graph stage",
        """Weight, in the graph stage's fusion, of the personalized PageRank walk from the
        question's seeds (matched tags, path functions, the best lexical hits and the named
        functions), times the centrality prior and priced by length (``centrality``,
        ``brevity``), its best scaled to 1; the first stage's best hit weighs 1.""",
        minimum=0.0, maximum=MAX_WEIGHT)
    reuse: float = option(
        0.0, "weight of the helpers everything reuses",
        """Weight, in the graph stage's fusion, of how widely a function is reused: the share
        of the functions that call anything that call it. The helpers every script of a
        corpus calls (a loader, a filter) weigh near 1 and join every answer; in a code base
        where calls spread thin they weigh little. 0: off. Off by default: it added recall on
        no dataset we score and cost some on one (1.5 before).""", minimum=0.0,
        maximum=MAX_WEIGHT)
    centrality: float = option(
        0.0, "weight of being called often, in the fill",
        """Weight of the call graph's centrality as a prior of the fill: a function's
        walk score is multiplied by ``1 + centrality * p`` where ``p`` grows with its
        callers (:func:`sgkr.algorithms.walk.centrality_prior`). Off by default: it
        added nothing measurable on any dataset we score.""", minimum=0,
        maximum=MAX_CENTRALITY)
    brevity: float = option(
        1.0, "how much the fill prefers short functions",
        """How much the fill prefers short functions: a function's walk score is
        divided by its length to this power (1: its score per character; 0: length
        does not count), so the context a filled slot costs is priced in.""",
        minimum=0, maximum=MAX_BREVITY)
    neighbours: int = option(
        20, "earlier questions that vote",
        """On a graph built from solved tasks (earlier questions with their solutions): how
        many of the earlier questions most like the new one (BM25 over their text) vote for
        what their solutions use, each with its similarity squared; each distinct function
        then scores its share of the votes, plus what ``boost`` gives the other evidence
        (:mod:`sgkr.retrieval.solved`). 0: off (the graph is answered as one without
        solved tasks). No effect on other graphs.""", minimum=0, maximum=MAX_NEIGHBOURS)
    boost: float = option(
        0.05, "what the other evidence adds to the votes",
        """On a graph built from solved tasks: a function scores its share of the earlier
        questions' votes plus this much times each of three other pieces of evidence (each
        the best 1): the words of the earlier questions whose solutions use it, its own
        words (the first stage), and the graph's answer (the paths between the question's
        tags, then the graph stage); after the first two, the slots best by that score and
        those best by the other evidence alone take turns. 0: the votes alone.""",
        minimum=0.0,
        maximum=MAX_WEIGHT)
    specificity: float = option(
        0.0, "least specificity (IDF, 0-1) of a tag used",
        """Matched tags whose inverse document frequency over the functions, scaled to
        [0, 1], is below this are not used (0: every match is used).""",
        minimum=0, maximum=1)
    inferred: Inferred = option(
        "seeds", "inferred tags: seed the walk, or search paths",
        """On a graph whose ``meta["curated_tags"]`` is false (its tags were all
        inferred from code: no knowledge file, no example tags): ``seeds``, the
        matched tags seed the walk beside the lexical matches and no path is searched
        (inferred tags join too much to trust a path between them); ``paths``, paths
        first as for curated tags.""")
    filter: Mapping[str, Any] | None = option(
        None, "filter {\"file\": {\"$in\": [\"a.py\"]}}; fields "
              + ", ".join(FILTER_FIELDS),
        """Only functions whose metadata passes this filter are returned, with the
        budget ``k`` spent on them (see :mod:`sgkr.retrieval.filters`: ``file``,
        ``kind``, ``name``, ``matched_tags``, ``start_line``, ``end_line``, ``test``; ``$eq``,
        ``$in``, ``$gt``, ``$text_match``, ``$or``, ...); the others still lead to
        their callees. ``None``: no filter.""", check=_check_filter, metavar="JSON")
    tests: bool = option(
        False, "return tests too",
        """Return the functions of test files too (a folder ``tests``, ``test`` or
        ``testing``; ``test_*.py``, ``*_test.py``, ``conftest.py``: pytest's and unittest's
        conventions). Off, tests are left out of answers (the walk still passes through
        them), so a repository built with its tests answers with the code under test. A
        filter that names the field ``test`` decides alone (``{"test": true}``: tests
        only).""")

    def __post_init__(self) -> None:
        for spec in OPTIONS.values():
            spec.validate(getattr(self, spec.name))
        self.check_together()

    def check_together(self) -> None:
        """Validation across options (each option's own is in its declaration).

        Raises
        ------
        InvalidArgumentError
            If options that are valid alone do not go together.
        """

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict."""
        return {name: getattr(self, name) for name in OPTIONS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetrieverOptions:
        """Options from a dict; unknown keys are an error naming them."""
        refuse_unknown(data, OPTIONS)
        return cls(**data)


def refuse_unknown(given: Iterable[str], known: Iterable[str], *,
                   what: str = "retriever option", expected: str = "") -> None:
    """Raise :class:`~sgkr.errors.InvalidArgumentError` naming every name of ``given`` not
    in ``known``, with the nearest known name of each (the did-you-mean of
    docs/options.md); ``expected`` ends the message.

    Examples
    --------
    >>> refuse_unknown(["k", "max_dept"], OPTIONS, what="field")
    Traceback (most recent call last):
    ...
    sgkr.errors.InvalidArgumentError: unknown field(s): ['max_dept'] (did you mean 'max_depth'?)
    """
    names = list(known)
    unknown = sorted(str(name) for name in set(given) - set(names))
    if not unknown:
        return
    close = [m for name in unknown for m in difflib.get_close_matches(name, names, n=1)]
    hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
    raise InvalidArgumentError(f"unknown {what}(s): {unknown}{hint}{expected}")


def _specs() -> dict[str, Option]:
    hints = get_type_hints(RetrieverOptions)
    specs: dict[str, Option] = {}
    for f in fields(RetrieverOptions):
        meta, hint = f.metadata[_META], hints[f.name]
        members = get_args(hint) if get_origin(hint) in (Union, UnionType) else (hint,)
        nullable = type(None) in members
        (base,) = [m for m in members if m is not type(None)]
        choices = tuple(get_args(base)) if get_origin(base) is Literal else ()
        kind: Kind = "string" if choices else _JSON_TYPES.get(base, "object")
        assert f.default is not MISSING
        specs[f.name] = Option(f.name, kind, f.default, choices=choices, nullable=nullable,
                               **meta)
        _ANNOTATIONS[f.name] = hint
    return specs


def _docstring(specs: Mapping[str, Option]) -> str:
    lines = ["Retrieval options, all JSON-serialisable (adapters persist them).", "",
             "Declared in :mod:`sgkr.retrieval.options`, which makes this text, the CLI's",
             "flags, the MCP tool's schema and the adapters' fields from one declaration.", "",
             "Attributes", "----------"]
    for spec in specs.values():
        lines += [spec.name, *_wrap(spec.doc + _default_text(spec), "    ")]
    lines += ["", "Raises", "------", "InvalidArgumentError",
              "    If an option has the wrong type or is out of range; the message names it."]
    return "\n".join(lines)


def _default_text(spec: Option) -> str:
    return f" Default: ``{spec.default!r}``."


def _wrap(text: str, indent: str, width: int = 88) -> list[str]:
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False)


def _number(value: float | None) -> Any:
    """``1.0`` as ``1``, for messages and schemas."""
    return int(value) if value is not None and float(value).is_integer() else value


def _markdown(text: str) -> str:
    """reStructuredText's ``code`` and :role:`~target` as Markdown's code."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


def options_markdown() -> str:
    """The table of ``docs/options.md``: every option, its type, default and meaning.

    Examples
    --------
    >>> options_markdown().splitlines()[2]
    '| `k` | integer, at least 1 | `8` | `--k` | Most function nodes returned. |'
    """
    rows = ["| option | type | default | CLI | what it does |", "|---|---|---|---|---|"]
    for spec in OPTIONS.values():
        kind = " or ".join(f"`{c}`" for c in spec.choices) if spec.choices else spec.kind
        if spec.minimum is not None or spec.maximum is not None:
            kind += "," + spec.range_text().removeprefix(" of").removeprefix(" from")
        if spec.nullable:
            kind += " or null"
        flag = "--" + spec.name.replace("_", "-")
        if spec.kind == "boolean":
            flag = f"{flag}, --no-{flag[2:]}"
        default = json.dumps(spec.default)
        doc = _markdown(spec.doc).replace("|", "\\|")
        rows.append(f"| `{spec.name}` | {kind} | `{default}` | `{flag}` | {doc} |")
    return "\n".join(rows)


_ANNOTATIONS: dict[str, Any] = {}
#: Every option, by name, in declaration order.
OPTIONS: Mapping[str, Option] = MappingProxyType(_specs())
RetrieverOptions.__doc__ = _docstring(OPTIONS)
