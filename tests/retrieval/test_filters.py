"""Metadata filters: the filter language, checked and applied to a function's values."""

from __future__ import annotations

from typing import Any

import pytest

from sgkr.errors import InvalidArgumentError
from sgkr.records import FunctionNode, SourceSpan
from sgkr.retrieval.filters import FILTER_FIELDS, compile_filter, filter_values

FEE = filter_values(
    FunctionNode("fn:fee", "fee", ("a.fee", "b.fee"), "", "", (
        SourceSpan("a.py", 1, 2), SourceSpan("b.py", 3, 4), SourceSpan("a.py", 9, 9)),
        "function"),
    ["amount", "fee"])


def test_values_of_a_function() -> None:
    assert FEE == {"file": ("a.py", "b.py"), "kind": ("function",), "name": ("fee",),
                   "matched_tags": ("amount", "fee"), "start_line": (1, 3, 9),
                   "end_line": (2, 4, 9), "test": (False,)}
    assert set(FEE) == set(FILTER_FIELDS)


@pytest.mark.parametrize("spec, passes", [
    ({"kind": "function"}, True),
    ({"kind": "method"}, False),
    ({"file": "b.py"}, True),  # any file the function was found in
    ({"file": {"$eq": "c.py"}}, False),
    ({"file": {"$ne": "b.py"}}, False),
    ({"name": {"$ne": "avg_fee"}}, True),
    ({"file": {"$in": ["c.py", "a.py"]}}, True),
    ({"file": {"$nin": ["c.py", "a.py"]}}, False),
    ({"matched_tags": "amount"}, True),
    ({"matched_tags": {"$all": ["amount", "fee"]}}, True),
    ({"matched_tags": {"$all": ["amount", "mcc"]}}, False),
    ({"kind": "function", "name": "avg_fee"}, False),  # several keys: all hold
    ({"$and": [{"kind": "function"}, {"name": "fee"}]}, True),
    ({"$or": [{"kind": "module"}, {"name": "fee"}]}, True),
    ({"$or": [{"kind": "module"}, {"name": "avg"}]}, False),
    ({"$not": {"kind": "module"}}, True),
    ({"name": {"$in": ["fee"], "$ne": "fee"}}, False),  # operators on one field: all hold
    # ranges: a field holding several values passes when one of them does
    ({"start_line": {"$gt": 8}}, True),
    ({"start_line": {"$gt": 9}}, False),
    ({"start_line": {"$gte": 9}}, True),
    ({"end_line": {"$lt": 2}}, False),
    ({"end_line": {"$lte": 2.5}}, True),
    ({"start_line": {"$gte": 2, "$lte": 4}}, True),
    ({"start_line": 3}, True),
    ({"start_line": {"$in": [5, 6]}}, False),
    ({"name": {"$gt": "fea"}}, True),  # text in code point order
    ({"name": {"$lt": "fea"}}, False),
    ({"file": {"$text_match": ".py"}}, True),
    ({"name": {"$text_match": "Fe"}}, False),
    ({"name": {"$text_match_insensitive": "FE"}}, True),
    ({"matched_tags": {"$text_match": "amo"}}, True),
])
def test_filters(spec: dict[str, Any], passes: bool) -> None:
    assert compile_filter(spec)(FEE) is passes


@pytest.mark.parametrize("spec, message", [
    (None, "filter: expected a non-empty object, got None"),
    ({}, "filter: expected a non-empty object"),
    ({"path": "a.py"}, "filter: unknown field 'path'; filterable: file, kind, name"),
    ({"file": {"$like": "a"}}, r"filter.file: unknown operator '\$like'; expected one of \$eq"),
    ({"file": {}}, "filter.file: no operator given"),
    ({"file": 3}, r"filter.file: \$eq takes a string, got 3"),
    ({"file": ["a.py"]}, r"\$eq takes a string"),
    ({"file": {"$in": "a.py"}}, r"filter.file: \$in takes a list of strings, got 'a.py'"),
    ({"$or": []}, r"filter: \$or takes a non-empty list of filters"),
    ({"$and": [{"kind": "function"}, {"size": 3}]}, r"filter.\$and\[1\]: unknown field 'size'"),
    ({"$not": "function"}, r"filter.\$not: expected a non-empty object"),
    ({"start_line": {"$gt": "10"}}, r"filter.start_line: \$gt takes a number, got '10'"),
    ({"start_line": {"$gt": True}}, r"\$gt takes a number, got True"),
    ({"start_line": {"$in": [1, "2"]}}, r"\$in takes a list of numbers"),
    ({"end_line": {"$text_match": "1"}}, r"\$text_match is for text fields, not end_line"),
    ({"name": {"$lte": 3}}, r"filter.name: \$lte takes a string, got 3"),
])
def test_bad_filters_name_the_problem(spec: object, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        compile_filter(spec)
