"""Metadata filters: which functions a retrieval may return, checked before ranking.

A filter is plain JSON data in the style of the vector stores' filters
(Chroma, PGVector, ...), so it is persisted with the retriever options and
the adapters only translate their frameworks' filters into it:

- ``{"kind": "function"}``: a field holds a value (``$eq``);
- ``{"file": {"$in": ["a.py", "b.py"]}}``: with an operator, one of ``$eq``,
  ``$ne``, ``$in``, ``$nin`` (holds one of / none of the values), ``$all``
  (holds every value), ``$gt``, ``$gte``, ``$lt``, ``$lte`` (holds a value
  above, ..., below the operand: numbers by value, text in code point order),
  ``$text_match`` and ``$text_match_insensitive`` (holds a text containing the
  operand, with or without regard to case);
- ``{"$and": [...]}``, ``{"$or": [...]}``, ``{"$not": {...}}``; several keys
  in one object must all hold.

The fields are those of a document's metadata: ``file`` (every file the
function was found in: a merged function has several), ``kind``
(``function``, ``method`` or ``module``), ``name``, ``matched_tags`` (the labels of the matched
tags on the paths through it: callees added after the paths have none), all
text; ``start_line`` and ``end_line`` (of each of its places), integers; and
``test``, ``true`` for test code (every file it is found in is a test file:
:func:`~sgkr.ingest.sources.is_test_file`). A field holding several values passes an operator
when one of them does, except ``$ne`` and ``$nin`` (none may) and ``$all``.
An operand is of its field's type: ``{"start_line": {"$gte": 100}}``,
``{"name": {"$text_match": "fee"}}``.

Examples
--------
>>> rule = compile_filter({"kind": "function", "file": {"$nin": ["tests/t.py"]}})
>>> rule({"kind": ("function",), "file": ("fees.py",), "name": ("fee",), "matched_tags": ()})
True
>>> compile_filter({"start_line": {"$gte": 10}})({"start_line": (3, 12)})
True
>>> compile_filter({"path": "a.py"})
Traceback (most recent call last):
...
sgkr.errors.InvalidArgumentError: filter: unknown field 'path'; filterable: file, kind, name, \
matched_tags, start_line, end_line, test
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from ..errors import InvalidArgumentError
from ..ingest.sources import is_test_file
from ..records import FunctionNode
from ..stores import GraphReader
from ..text import shown

__all__ = ["FILTER_FIELDS", "Values", "Rule", "compile_filter", "filter_values",
           "path_filter", "names_field", "is_test", "MAX_FILTER_DEPTH", "MAX_FILTER_NODES",
           "MAX_FILTER_VALUES"]

#: The fields a filter may name.
FILTER_FIELDS = ("file", "kind", "name", "matched_tags", "start_line", "end_line", "test")
#: The values of each field for one function.
Values = Mapping[str, Collection[Any]]
#: A compiled filter: the values of a function in, whether it may be returned out.
Rule = Callable[[Values], bool]

_NUMBERS = frozenset({"start_line", "end_line"})
_BOOLEANS = frozenset({"test"})
#: Most levels of objects and lists in a filter (``$and``, ``$or``, ``$not`` nest them).
MAX_FILTER_DEPTH = 32
#: Most conditions in a filter (its keys and the items of its ``$and`` and ``$or``): each
#: is checked for each function a question reaches.
MAX_FILTER_NODES = 256
#: Most operands of one ``$in``, ``$nin`` or ``$all`` (checked as a set: their number
#: costs nothing per function).
MAX_FILTER_VALUES = 100_000

_TESTS: dict[str, Callable[[Collection[Any], Any], bool]] = {
    "$eq": lambda held, value: value in held,
    "$ne": lambda held, value: value not in held,
    # Set operations: a function's few values against the operands, however many.
    "$in": lambda held, values: not values.isdisjoint(held),
    "$nin": lambda held, values: values.isdisjoint(held),
    "$all": lambda held, values: values.issubset(held),
    "$gt": lambda held, value: any(h > value for h in held),
    "$gte": lambda held, value: any(h >= value for h in held),
    "$lt": lambda held, value: any(h < value for h in held),
    "$lte": lambda held, value: any(h <= value for h in held),
    "$text_match": lambda held, value: any(value in h for h in held),
    "$text_match_insensitive": lambda held, value: any(value in h.casefold() for h in held),
}
_LISTS = ("$in", "$nin", "$all")
_TEXT = ("$text_match", "$text_match_insensitive")


def compile_filter(spec: object) -> Rule:
    """Check a filter and make it a function of a function's field values.

    Parameters
    ----------
    spec
        A filter in the form of this module's docstring.

    Returns
    -------
    Rule
        ``rule(values) -> bool``, ``values`` mapping each of
        :data:`FILTER_FIELDS` to the strings it holds (see :func:`filter_values`).

    Raises
    ------
    InvalidArgumentError
        If the filter names an unknown field or operator, or a value is not a
        string (a list of strings for ``$in``, ``$nin``, ``$all``), or it nests
        deeper than :data:`MAX_FILTER_DEPTH`, holds more than :data:`MAX_FILTER_NODES`
        conditions or more than :data:`MAX_FILTER_VALUES` operands in one list; the
        message names it.

    Examples
    --------
    >>> deep = {"kind": "function"}
    >>> for _ in range(5000):
    ...     deep = {"$not": deep}
    >>> compile_filter(deep)
    Traceback (most recent call last):
    ...
    sgkr.errors.InvalidArgumentError: filter: nested more than 32 levels deep
    """
    _check_size(spec)
    return _compile(spec, "filter")


def names_field(spec: object, field: str) -> bool:
    """Whether the filter ``spec`` (checked already) names ``field`` anywhere.

    Examples
    --------
    >>> names_field({"$or": [{"kind": "method"}, {"test": True}]}, "test")
    True
    """
    stack = [spec]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            if field in value:
                return True
            stack.extend(value.values())
        elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
            stack.extend(value)
    return False


def _check_size(spec: object) -> None:
    """Refuse a filter nested deeper than :data:`MAX_FILTER_DEPTH`, of more than
    :data:`MAX_FILTER_NODES` conditions or of an operand list longer than
    :data:`MAX_FILTER_VALUES`, looked at without recursion."""
    stack: list[tuple[object, int, object]] = [(spec, 1, None)]
    nodes = 0
    while stack:
        value, depth, key = stack.pop()
        if isinstance(value, Mapping):
            children: list[tuple[object, object]] = [(v, k) for k, v in value.items()]
        elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
            if key in _LISTS:  # operands, checked as one set (_test)
                if len(value) > MAX_FILTER_VALUES:
                    raise InvalidArgumentError(f"filter: {key} takes at most "
                                               f"{MAX_FILTER_VALUES:,} values, got {len(value):,}")
                continue
            children = [(v, key) for v in value]
        else:
            continue
        if depth > MAX_FILTER_DEPTH:
            raise InvalidArgumentError(f"filter: nested more than {MAX_FILTER_DEPTH} levels deep")
        nodes += len(children)
        if nodes > MAX_FILTER_NODES:
            raise InvalidArgumentError(f"filter: more than {MAX_FILTER_NODES} conditions")
        stack.extend((child, depth + 1, k) for child, k in children)


def filter_values(function: FunctionNode,
                  matched_tags: Iterable[str] = ()) -> dict[str, tuple[Any, ...]]:
    """The values a filter sees for ``function``, reached through ``matched_tags``.

    Examples
    --------
    >>> from sgkr.records import FunctionNode, SourceSpan
    >>> f = FunctionNode("fn:f", "f", ("a.f",), "", "", (SourceSpan("a.py", 1, 2),), "function")
    >>> filter_values(f, ["amount"])["file"], filter_values(f)["matched_tags"]
    (('a.py',), ())
    """
    return {"file": tuple(dict.fromkeys(s.file for s in function.sources)),
            "kind": (function.kind,), "name": (function.name,),
            "matched_tags": tuple(matched_tags),
            "start_line": tuple(s.start_line for s in function.sources),
            "end_line": tuple(s.end_line for s in function.sources),
            "test": (is_test(function),)}


def is_test(function: FunctionNode) -> bool:
    """Whether a function is test code: every file it is found in is a test file
    (:func:`~sgkr.ingest.sources.is_test_file`).

    Examples
    --------
    >>> from sgkr.records import FunctionNode, SourceSpan
    >>> is_test(FunctionNode("fn:t", "t", ("tests.t",), "", "", (SourceSpan("tests/t.py", 1, 2),),
    ...                      "function"))
    True
    """
    return bool(function.sources) and all(is_test_file(s.file) for s in function.sources)


def path_filter(reader: GraphReader, spec: Mapping[str, Any] | None,
                paths: Sequence[tuple[str, ...]] = (), *,
                tests: bool = True) -> Callable[[list[str]], set[str]]:
    """The ids of a batch of function nodes that pass the filter ``spec`` (``None``: any),
    each seen with the labels of the matched end tags of the ``paths`` through it (as a
    document's ``matched_tags``); with ``tests=False``, test code (:func:`is_test`) does not
    pass either.

    Raises
    ------
    InvalidArgumentError
        If ``spec`` is not a valid filter (:func:`compile_filter`).

    Examples
    --------
    >>> from sgkr import build_graph
    >>> from sgkr.stores import MemoryStore
    >>> store = MemoryStore(build_graph([("m.py", "def f():\\n    return 1\\n")]))
    >>> path_filter(store, {"name": "f"})(["fn:m.f"]), path_filter(store, {"name": "g"})(["fn:m.f"])
    ({'fn:m.f'}, set())
    """
    rule = None if spec is None else compile_filter(spec)
    ends = reader.tags({n for p in paths for n in (p[0], p[-1])}) if paths and rule else {}
    tags_of: dict[str, dict[str, None]] = defaultdict(dict)
    for p in paths if rule else ():  # as make_documents finds a document's matched tags
        labels = dict.fromkeys(ends[n].label for n in (p[0], p[-1]) if n in ends)
        for n in p:
            tags_of[n].update(labels)

    def passing(nodes: list[str]) -> set[str]:
        records = reader.functions(nodes)
        return {n for n, f in records.items() if (tests or not is_test(f))
                and (rule is None or rule(filter_values(f, tags_of.get(n, ()))))}

    return passing


def _compile(spec: object, where: str) -> Rule:
    if not isinstance(spec, Mapping) or not spec:
        raise InvalidArgumentError(
            f"{where}: expected a non-empty object, got {shown(spec)}")
    rules = [_key_rule(key, value, where) for key, value in spec.items()]
    return rules[0] if len(rules) == 1 else (lambda values: all(r(values) for r in rules))


def _key_rule(key: object, value: object, where: str) -> Rule:
    if key in ("$and", "$or"):
        if not isinstance(value, Sequence) or isinstance(value, str) or not value:
            raise InvalidArgumentError(f"{where}: {key} takes a non-empty list of filters")
        parts = [_compile(v, f"{where}.{key}[{i}]") for i, v in enumerate(value)]
        combine = all if key == "$and" else any
        return lambda values: combine(p(values) for p in parts)
    if key == "$not":
        inner = _compile(value, f"{where}.$not")
        return lambda values: not inner(values)
    if key not in FILTER_FIELDS:
        raise InvalidArgumentError(
            f"{where}: unknown field {shown(key)}; filterable: {', '.join(FILTER_FIELDS)}")
    field = str(key)
    if not isinstance(value, Mapping):
        value = {"$eq": value}
    tests = [_test(field, op, operand, f"{where}.{field}") for op, operand in value.items()]
    if not tests:
        raise InvalidArgumentError(f"{where}.{field}: no operator given")
    return lambda values: all(test(values.get(field, ()), operand) for test, operand in tests)


def _test(field: str, op: object, operand: object,
          where: str) -> tuple[Callable[[Collection[Any], Any], bool], Any]:
    test = _TESTS.get(op) if isinstance(op, str) else None
    if test is None:
        raise InvalidArgumentError(
            f"{where}: unknown operator {shown(op)}; expected one of {', '.join(_TESTS)}")
    kind = _kind_of(field)
    if op in _TEXT and kind != "string":
        raise InvalidArgumentError(f"{where}: {op} is for text fields, not {field}")
    if op in _LISTS:
        if (isinstance(operand, str) or not isinstance(operand, Sequence)
                or not all(_typed(v, kind) for v in operand)):
            raise InvalidArgumentError(
                f"{where}: {op} takes a list of {kind}s, got {shown(operand)}")
        return test, frozenset(operand)
    if not _typed(operand, kind):
        raise InvalidArgumentError(
            f"{where}: {op} takes a {kind}, got {shown(operand)}")
    if op == "$text_match_insensitive":
        return test, str(operand).casefold()
    return test, operand


def _kind_of(field: str) -> str:
    """What a field's values are: ``number``, ``boolean`` or ``string``."""
    return "number" if field in _NUMBERS else "boolean" if field in _BOOLEANS else "string"


def _typed(value: object, kind: str) -> bool:
    if kind == "number":
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and value == value)  # not NaN
    if kind == "boolean":
        return isinstance(value, bool)
    return isinstance(value, str)
