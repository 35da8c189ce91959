"""Reading a graph in one pass: functions by name, the edges of some nodes, counts.

The questions :class:`~sgkr.graph.model.KnowledgeGraph` answers over all its
nodes or edges at once, asked of the :class:`networkx.DiGraph` it keeps (its
plain dicts are read: networkx's views cost more than the questions). Only
:mod:`sgkr.graph` uses this module.

Examples
--------
>>> import networkx as nx
>>> from sgkr.records import FunctionNode
>>> g = nx.DiGraph()
>>> g.add_node("fn:m.C.f", type="function",
...            record=FunctionNode("fn:m.C.f", "f", ("m.C.f",), "", "", (), "function"))
>>> find_many(g, ["C.f", "B.f"])
{'C.f': ['fn:m.C.f'], 'B.f': []}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import networkx as nx

from ..errors import InvalidArgumentError
from ..records import EdgeRow, FunctionNode, TagNode

__all__ = ["named", "find_many", "edges_of", "tagged_functions", "most_called", "stats"]


def named(record: FunctionNode, name: str) -> bool:
    """Whether ``name`` is the function's bare name, a qualname or a qualname's tail.

    Examples
    --------
    >>> f = FunctionNode("fn:m.C.f", "f", ("m.C.f",), "", "", (), "function")
    >>> named(f, "C.f"), named(f, "B.f")
    (True, False)
    """
    suffix = "." + name
    return record.name == name or any(q == name or q.endswith(suffix) for q in record.qualnames)


def _names_of(record: FunctionNode, depth: int) -> set[str]:
    """The names :func:`named` accepts for ``record`` with at most ``depth`` dots."""
    names = {record.name}
    for qualname in record.qualnames:
        names.add(qualname)
        end = len(qualname)
        for _ in range(depth + 1):  # the tails after the last depth + 1 dots
            end = qualname.rfind(".", 0, end)
            if end < 0:
                break
            names.add(qualname[end + 1 :])
    return names


def find_many(g: nx.DiGraph, names: Iterable[str]) -> dict[str, list[str]]:
    """Ids of the function nodes each of ``names`` names (see :func:`named`), sorted.

    A function's node id names that function only. One pass looks each
    function's names up among ``names`` (a tail of a qualname only as deep
    as the deepest name asked), instead of a pass per name.
    """
    attrs = g._node
    found: dict[str, list[str]] = {name: [] for name in names}
    wanted = {n for n in found if not (n in attrs and attrs[n]["type"] == "function")}
    for name in found.keys() - wanted:
        found[name].append(name)  # a node id names that node only
    depth = max((n.count(".") for n in wanted), default=-1)
    if depth < 0:
        return found
    for node_id in sorted(attrs):
        record = attrs[node_id]["record"]
        if isinstance(record, FunctionNode):
            for name in _names_of(record, depth) & wanted:
                found[name].append(node_id)
    return found


def edges_of(g: nx.DiGraph, nodes: Iterable[str], direction: str = "out") -> list[EdgeRow]:
    """The edges out of (``out``), into (``in``) or at either end of (``both``) ``nodes``.

    Nodes not in the graph have none.
    """
    if direction not in ("out", "in", "both"):
        raise InvalidArgumentError(f"direction must be out, in or both, got {direction!r}")
    succ, pred = g._succ, g._pred
    rows: list[EdgeRow] = []
    for node in nodes:
        if node not in succ:
            continue
        if direction != "in":
            rows += [(node, t, d["type"], d.get("resolution")) for t, d in succ[node].items()]
        if direction != "out":
            rows += [(s, node, d["type"], d.get("resolution")) for s, d in pred[node].items()]
    return rows


def tagged_functions(g: nx.DiGraph) -> set[str]:
    """Ids of the function nodes that consume or produce some tag."""
    succ, pred = g._succ, g._pred
    found: set[str] = set()
    for node_id, attrs in g._node.items():
        if attrs["type"] == "tag":
            found.update(succ[node_id])
            found.update(pred[node_id])
    return found


def most_called(g: nx.DiGraph, n: int) -> list[tuple[str, int]]:
    """The ``n`` function ids with the most callers (by calls), with their caller counts."""
    succ, pred = g._succ, g._pred
    counts = [(node_id, sum(1 for s in pred[node_id] if succ[s][node_id]["type"] == "calls"))
              for node_id, attrs in g._node.items() if attrs["type"] == "function"]
    counts.sort(key=lambda item: (-item[1], item[0]))
    return [c for c in counts[:n] if c[1] > 0]


def stats(g: nx.DiGraph) -> dict[str, Any]:
    """Counts of nodes and edges, by kind and by resolution (one pass: every build ends so)."""
    records = [attrs["record"] for attrs in g._node.values()]
    kinds = Counter(r.kind for r in records if isinstance(r, FunctionNode))
    pairs = Counter((data["type"], data.get("resolution", "exact"))
                    for targets in g._succ.values() for data in targets.values())
    edge_types: Counter[str] = Counter()
    resolutions: Counter[str] = Counter()
    referring: Counter[str] = Counter()
    for (kind, resolution), count in pairs.items():
        edge_types[kind] += count
        if kind == "calls":
            resolutions[resolution] += count
        elif kind == "references":
            referring[resolution] += count
    return {
        "functions": sum(kinds.values()),
        "kinds": dict(sorted(kinds.items())),
        "tags": sum(1 for r in records if isinstance(r, TagNode)),
        "edges": dict(sorted(edge_types.items())),
        "call_edges": dict(sorted(resolutions.items())),
        "reference_edges": dict(sorted(referring.items())),
    }
