"""The tags of an update: the nodes that changed tagged again, as a fresh build tags them.

An update (:meth:`~sgkr.build.assembly.Assembly.replace`) removes the tag edges of
the nodes that changed and writes what :func:`retag_rows` gives in their place:
the links of the sidecar entries naming each node, else (when tags are inferred)
the tags inferred from its definitions and those its callers name. Tags left
with no edge go (:func:`orphan_tags`), and the labels of the tags touched are set
back to what a fresh build gives them (:func:`relabels`).

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.records import FunctionNode
>>> from sgkr.tags.sidecar import FunctionKnowledge, Sidecar
>>> g = KnowledgeGraph()
>>> g.add_function(FunctionNode("fn:m.fee", "fee", ("m.fee",), "", "", (), "function"))
>>> s = Sidecar({"fee": FunctionKnowledge(outputs=("fee",))}, {})
>>> retag_rows(g, {"fn:m.fee"}, s, False, lambda node: [], lambda node: []).rows
(('fn:m.fee', 'tag:fee', 'produces', None),)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..records import Definition, TagNode
from .infer import bound_outputs
from .labels import tag_id
from .protocol import Calls, TagGraph
from .rows import TagRows, entry_rows, inferred_rows, joined
from .sidecar import Sidecar

__all__ = ["retag_rows", "orphan_tags", "relabels", "missing_keys", "named_by_callers",
           "tags_of"]

#: The definitions whose qualified names map to a node, in build order.
DefinitionsOf = Callable[[str], Sequence[Definition]]


def retag_rows(graph: TagGraph, nodes: set[str], sidecar: Sidecar | None, infer: bool,
               definitions: DefinitionsOf,
               named: Callable[[str], Sequence[tuple[str, str]]]) -> TagRows:
    """The tags and tag edges of ``nodes`` (function ids), made again.

    ``definitions(node)``: the node's definitions; ``named(node)``: the
    ``(node, label)`` outputs its callers name (:func:`named_by_callers`).
    """
    entries = sidecar.functions if sidecar is not None else {}
    naming: dict[str, list[str]] = defaultdict(list)  # the sidecar keys naming each node
    for key, ids in (graph.find_many(entries).items() if nodes else ()):
        for node_id in nodes.intersection(ids):
            naming[node_id].append(key)
    parts: list[TagRows] = []
    inferred: list[tuple[str, Definition]] = []
    returned: list[tuple[str, str]] = []
    for node_id in sorted(nodes):
        linked = [entry_rows(entries[key], [node_id]) for key in naming.get(node_id, ())]
        parts += linked
        if infer and not any(part.tags for part in linked):
            inferred += [(node_id, d) for d in definitions(node_id)]
            returned += named(node_id)
    parts.append(inferred_rows(inferred, returned))
    return joined(parts)


def tags_of(graph: TagGraph, nodes: Iterable[str]) -> set[str]:
    """Ids of the tags that the functions ``nodes`` consume or produce."""
    found: set[str] = set()
    for source, target, kind, _ in graph.edges_of(nodes, "both"):
        if kind == "consumes":
            found.add(source)
        elif kind == "produces":
            found.add(target)
    return found


def orphan_tags(graph: TagGraph, touched: Iterable[str], sidecar: Sidecar | None) -> set[str]:
    """The tags of ``touched`` left with no edge, but those the sidecar declares."""
    keep = {tag_id(label) for label in sidecar.tags} if sidecar is not None else set()
    return {t for t in touched if t in graph and t not in keep
            and not graph.edges_of([t], "both")}


def relabels(graph: TagGraph, sidecar: Sidecar | None, missing: Mapping[str, bool],
             tags: Iterable[str]) -> dict[str, str]:
    """The tags of ``tags`` whose label is not what a fresh build gives, with that label.

    A fresh build labels a tag by the first sidecar entry naming it (of the
    functions found: ``missing`` says which keys are not), else by its folded
    words; a tag the sidecar declares keeps its label.
    """
    if sidecar is None:
        return {}
    labels: dict[str, str] = {}
    for key, entry in sidecar.functions.items():
        if not missing.get(key, True):
            for label in (*entry.inputs, *entry.outputs):
                labels.setdefault(tag_id(label), label.strip())
    declared = {tag_id(label) for label in sidecar.tags}
    changed: dict[str, str] = {}
    for t in set(tags) - declared:
        record = graph.get(t)
        if isinstance(record, TagNode):
            label = labels.get(t, t.removeprefix("tag:"))
            if record.label != label:
                changed[t] = label
    return changed


def missing_keys(graph: TagGraph, sidecar: Sidecar | None) -> dict[str, bool]:
    """Whether each function key of the sidecar is found in no node."""
    if sidecar is None:
        return {}
    return {key: not ids for key, ids in graph.find_many(sidecar.functions).items()}


def named_by_callers(graph: TagGraph, node_id: str, definitions: DefinitionsOf, calls: Calls,
                     qual_to_id: Mapping[str, str]) -> list[tuple[str, str]]:
    """The outputs of ``node_id`` that its callers name (see :func:`~sgkr.tags.infer.
    bound_outputs`), as ``(node_id, label)``."""
    callers = sorted(s for s, _, kind, _ in graph.edges_of([node_id], "in") if kind == "calls")
    return [(node_id, label) for caller in callers for d in definitions(caller)
            if d.bindings
            for callee, label in bound_outputs(d, calls.get(d.qualname), qual_to_id)
            if callee == node_id]
