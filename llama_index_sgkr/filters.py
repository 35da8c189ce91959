"""LlamaIndex ``MetadataFilters`` as SGKR's filter option (see :mod:`sgkr.retrieval.filters`).

SGKR applies the filter before ranking, so the budget ``similarity_top_k`` is
spent on the functions that pass. The keys are ``file``, ``kind``, ``name``,
``matched_tags`` (text) and ``start_line``, ``end_line`` (integers); the
operators ``==``, ``!=``, ``in``, ``nin``, ``contains``, ``any``, ``all``,
``>``, ``>=``, ``<``, ``<=``, ``text_match`` (holds the value as a substring)
and ``text_match_insensitive``, and the conditions ``and``, ``or`` and ``not``
(none of the filters holds). ``file``, ``matched_tags`` and the lines hold
several values (a merged function's files and places, the matched tags):
``==``, ``contains``, the ranges and the text matches ask that one of them
passes.

Examples
--------
>>> from llama_index.core.vector_stores import MetadataFilter, MetadataFilters
>>> to_sgkr_filter(MetadataFilters(filters=[
...     MetadataFilter(key="kind", value="function"),
...     MetadataFilter(key="file", value=["a.py", "b.py"], operator="in")]))
{'$and': [{'kind': {'$eq': 'function'}}, {'file': {'$in': ['a.py', 'b.py']}}]}
"""

from __future__ import annotations

from typing import Any

from llama_index.core.vector_stores.types import (
    ExactMatchFilter,
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from sgkr.errors import InvalidArgumentError
from sgkr.retrieval.filters import MAX_FILTER_DEPTH, compile_filter

__all__ = ["to_sgkr_filter"]

_OPERATORS = {
    FilterOperator.EQ: "$eq", FilterOperator.CONTAINS: "$eq", FilterOperator.NE: "$ne",
    FilterOperator.IN: "$in", FilterOperator.ANY: "$in", FilterOperator.NIN: "$nin",
    FilterOperator.ALL: "$all", FilterOperator.GT: "$gt", FilterOperator.GTE: "$gte",
    FilterOperator.LT: "$lt", FilterOperator.LTE: "$lte",
    FilterOperator.TEXT_MATCH: "$text_match",
    FilterOperator.TEXT_MATCH_INSENSITIVE: "$text_match_insensitive",
}


def to_sgkr_filter(filters: MetadataFilters) -> dict[str, Any] | None:
    """The SGKR filter of LlamaIndex ``filters``, checked; ``None`` if they hold none.

    As for LlamaIndex's vector stores, ``MetadataFilters(filters=[])`` filters nothing.

    Raises
    ------
    InvalidArgumentError
        If ``filters`` is not ``MetadataFilters``, or uses a key, operator or
        value SGKR cannot filter on (the message names it).

    Examples
    --------
    >>> from llama_index.core.vector_stores import MetadataFilter, MetadataFilters
    >>> to_sgkr_filter(MetadataFilters(filters=[MetadataFilter(key="score", value=0.5)]))
    Traceback (most recent call last):
    ...
    sgkr.errors.InvalidArgumentError: filter.$and[0]: unknown field 'score'; \
filterable: file, kind, name, matched_tags, start_line, end_line, test
    """
    if not isinstance(filters, MetadataFilters):
        raise InvalidArgumentError(
            f"filters must be LlamaIndex MetadataFilters, got {type(filters).__name__}")
    if not filters.filters:
        return None
    spec = _convert(filters)
    compile_filter(spec)
    return spec


def _convert(filters: MetadataFilters, depth: int = 1) -> dict[str, Any]:
    if depth > MAX_FILTER_DEPTH // 2:  # each level is an object and a list in SGKR's form
        raise InvalidArgumentError(
            f"filters: MetadataFilters nested more than {MAX_FILTER_DEPTH // 2} levels deep")
    parts = [_convert(f, depth + 1) if isinstance(f, MetadataFilters) else _one(f)
             for f in filters.filters]
    if not parts:
        raise InvalidArgumentError("filters: a nested MetadataFilters holds no filter")
    condition = filters.condition or FilterCondition.AND
    if condition == FilterCondition.NOT:
        return {"$not": {"$or": parts}}
    return {"$or" if condition == FilterCondition.OR else "$and": parts}


def _one(item: MetadataFilter | ExactMatchFilter) -> dict[str, Any]:
    operator = getattr(item, "operator", FilterOperator.EQ)
    op = _OPERATORS.get(operator)
    if op is None:
        raise InvalidArgumentError(
            f"filters: operator {operator.value!r} (on {item.key!r}) is not one SGKR "
            f"filters with; use one of {sorted({o.value for o in _OPERATORS})}")
    return {item.key: {op: item.value}}
