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

from collections import Counter
from collections.abc import Sequence
from typing import Literal, get_args

from ..errors import InvalidArgumentError
from ..ingest.tokens import tokens_of
from ..records import Definition

__all__ = ["MergePolicy", "MERGE_POLICIES", "merge_groups", "SIMILARITY"]

MergePolicy = Literal["auto", "name", "qualname", "none"]
MERGE_POLICIES: tuple[str, ...] = get_args(MergePolicy)
#: Identifier-set Jaccard similarity above which same-name definitions merge under ``auto``.
SIMILARITY = 0.8
# Pairwise comparison is quadratic: larger same-name groups merge only identical code.
_PAIRWISE_LIMIT = 64


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
    groups = _groups([d for d in definitions if d.kind != "module"], policy)
    # Groups are emitted where their first member stands in the input; "mod:" and
    # "fn:" ids never collide, so modules and functions can be named in one pass.
    heads = {id(g[0]): g for g in groups}
    counts = Counter(g[0].name for g in groups) if policy == "auto" else None
    result: list[tuple[str, list[Definition]]] = []
    used: set[str] = set()
    for d in definitions:
        if d.kind == "module":
            result.append((_unique(f"mod:{d.qualname}", used), [d]))
            continue
        group = heads.pop(id(d), None)
        if group is None:  # not the first member of its group
            continue
        by_name = policy == "name" or (counts is not None and len(group) > 1
                                       and counts[d.name] == 1)
        node_id = f"fn:{d.name if by_name else d.qualname}"
        if node_id in used:
            node_id = _unique(node_id, used)
        else:
            used.add(node_id)
        result.append((node_id, group))
    return result


def _groups(functions: list[Definition], policy: str) -> list[list[Definition]]:
    """The groups of ``functions`` under ``policy``, each in input order."""
    if policy == "none":
        return [[d] for d in functions]
    by_key: dict[str, list[Definition]] = {}
    for d in functions:
        if policy == "qualname":
            key = d.qualname
        elif policy == "name" or d.enclosing_class is None:
            key = d.name
        else:  # auto, a method: only within classes of the same name
            key = f"{d.enclosing_class.rsplit('.', 1)[-1]}.{d.name}"
        same = by_key.get(key)
        if same is None:
            by_key[key] = [d]
        else:
            same.append(d)
    if policy != "auto":
        return list(by_key.values())
    groups: list[list[Definition]] = []
    for same in by_key.values():
        if len(same) == 1:
            groups.append(same)
        else:
            groups.extend(_similar(same))
    return groups


def _unique(node_id: str, used: set[str]) -> str:
    candidate, n = node_id, 1
    while candidate in used:
        n += 1
        candidate = f"{node_id}#{n}"
    used.add(candidate)
    return candidate


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
    tokens = [tokens_of(b[0].code) for b in buckets]
    parent = list(range(len(buckets)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    sizes = [len(t) for t in tokens]
    for i in range(len(buckets)):
        for j in range(i + 1, len(buckets)):
            small, large = sorted((sizes[i], sizes[j]))
            # The overlap is at most the smaller set: too different in size, too different.
            # (A ratio, as below: a subset at the threshold exactly still merges.)
            if large and small / large < SIMILARITY:
                continue
            common = len(tokens[i] & tokens[j])
            union = sizes[i] + sizes[j] - common
            if union and common / union >= SIMILARITY:
                parent[find(j)] = find(i)
    merged: dict[int, list[Definition]] = {}
    for i, bucket in enumerate(buckets):
        merged.setdefault(find(i), []).extend(bucket)
    return list(merged.values())
