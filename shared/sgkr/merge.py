"""Merging identical function nodes met in several files.

Policies:

``name``
    The paper's rule: every definition with the same bare name is one node.
``qualname``
    Only definitions with the same qualified name are merged.
``none``
    One node per definition.
``auto`` (default)
    Same bare name *and* the same or nearly the same code (token-set
    Jaccard similarity at least :data:`SIMILARITY`); methods only within
    classes of the same name, and dunder methods only when identical. Copies
    of one helper across solution scripts become one node, while unrelated
    ``__init__``, ``run`` or ``main`` of a real code base stay apart.

Module bodies are never merged with anything.

Examples
--------
>>> from sgkr.records import Definition, SourceSpan
>>> def d(q, code):
...     return Definition(q, q.rsplit(".", 1)[-1], "function", code, SourceSpan(q, 1, 2))
>>> groups = merge_groups([d("a.fee", "def fee(x): return x*2"),
...                        d("b.fee", "def fee(x): return x*2"),
...                        d("c.fee", "def fee(rows): return sum(rows)")], "auto")
>>> [(node_id, [m.qualname for m in members]) for node_id, members in groups]
[('fn:a.fee', ['a.fee', 'b.fee']), ('fn:c.fee', ['c.fee'])]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal, get_args

from .errors import InvalidArgumentError
from .records import Definition

__all__ = ["MergePolicy", "MERGE_POLICIES", "merge_groups", "SIMILARITY"]

MergePolicy = Literal["auto", "name", "qualname", "none"]
MERGE_POLICIES: tuple[str, ...] = get_args(MergePolicy)
#: Identifier-set Jaccard similarity above which same-name definitions merge under ``auto``.
SIMILARITY = 0.8
# Pairwise comparison is quadratic: larger same-name groups merge only identical code.
_PAIRWISE_LIMIT = 64
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|\S")


def merge_groups(
    definitions: Sequence[Definition], policy: str = "auto"
) -> list[tuple[str, list[Definition]]]:
    """Group definitions into nodes.

    Parameters
    ----------
    definitions
        Every definition of a build, in a deterministic order (by file, then line).
    policy
        One of :data:`MERGE_POLICIES`.

    Returns
    -------
    list of (node id, members)
        Members in input order, the first being the node's representative;
        groups ordered by their first member.
    """
    if policy not in MERGE_POLICIES:
        raise InvalidArgumentError(f"merge policy {policy!r} is not one of {MERGE_POLICIES}")
    order = {id(d): i for i, d in enumerate(definitions)}
    modules = [[d] for d in definitions if d.kind == "module"]
    functions = [d for d in definitions if d.kind != "module"]
    if policy == "none":
        groups = [[d] for d in functions]
    elif policy == "qualname":
        groups = _by_key(functions, lambda d: d.qualname)
    elif policy == "name":
        groups = _by_key(functions, lambda d: d.name)
    else:
        groups = []
        for same_name in _by_key(functions, _auto_key):
            if len(same_name) == 1:
                groups.append(same_name)
            else:
                groups.extend(_similar(same_name))
    groups.sort(key=lambda g: order[id(g[0])])
    counts = Counter(g[0].name for g in groups)
    result: list[tuple[str, list[Definition]]] = []
    used: set[str] = set()
    for group in modules:
        result.append((_unique(f"mod:{group[0].qualname}", used), group))
    for group in groups:
        head = group[0]
        by_name = policy == "name" or (policy == "auto" and len(group) > 1
                                       and counts[head.name] == 1)
        node_id = f"fn:{head.name if by_name else head.qualname}"
        if node_id in used:
            node_id = _unique(node_id, used)
        else:
            used.add(node_id)
        result.append((node_id, group))
    result.sort(key=lambda item: order[id(item[1][0])])
    return result


def _unique(node_id: str, used: set[str]) -> str:
    candidate, n = node_id, 1
    while candidate in used:
        n += 1
        candidate = f"{node_id}#{n}"
    used.add(candidate)
    return candidate


def _by_key(defs: Sequence[Definition], key: object) -> list[list[Definition]]:
    groups: dict[str, list[Definition]] = {}
    for d in defs:
        groups.setdefault(key(d), []).append(d)  # type: ignore[operator]
    return list(groups.values())


def _auto_key(d: Definition) -> str:
    if d.enclosing_class is None:
        return d.name
    return f"{d.enclosing_class.rsplit('.', 1)[-1]}.{d.name}"


def _similar(same_name: list[Definition]) -> list[list[Definition]]:
    if len(same_name) == 1:
        return [same_name]
    exact: dict[str, list[Definition]] = {}
    for d in same_name:
        # The code with every run of white space made one space, none at the ends.
        exact.setdefault(" ".join(d.code.split()), []).append(d)
    buckets = list(exact.values())
    dunder = same_name[0].name.startswith("__") and same_name[0].name.endswith("__")
    if len(buckets) == 1 or len(buckets) > _PAIRWISE_LIMIT or dunder:
        return buckets
    tokens = [set(_TOKEN.findall(b[0].code)) for b in buckets]
    parent = list(range(len(buckets)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(buckets)):
        for j in range(i + 1, len(buckets)):
            union = len(tokens[i] | tokens[j])
            if union and len(tokens[i] & tokens[j]) / union >= SIMILARITY:
                parent[find(j)] = find(i)
    merged: dict[int, list[Definition]] = {}
    for i, bucket in enumerate(buckets):
        merged.setdefault(find(i), []).extend(bucket)
    return list(merged.values())
