"""I/O tags on the graph: from the sidecar file, from examples, and inferred from code.

Every function here changes the graph through the batch methods of
:class:`~sgkr.graph.KnowledgeGraph`; :class:`~sgkr.build.assembly.Assembly` calls them
for a build and for an update.

Examples
--------
>>> from sgkr.records import FunctionNode
>>> g = KnowledgeGraph()
>>> g.add_function(FunctionNode("fn:f", "f", ("m.f",), "", "", (), "function"))
>>> link(g, add_tag(g, "Fee"), "fn:f", "output")
>>> g.producers("tag:fee")
['fn:f']
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

from ..analysis.knowledge import (
    Example,
    FunctionKnowledge,
    Sidecar,
    TagRef,
    code_terms,
    infer_tags,
    mentions_any,
)
from ..records import (
    BindingKind,
    Definition,
    Edge,
    EdgeRow,
    FunctionNode,
    ModuleExtract,
    Problem,
    TagNode,
)
from ..text import fold
from .model import KnowledgeGraph, tag_id

__all__ = ["add_tag", "link", "link_entry", "missing_function", "add_sidecar_tags",
           "attach_example", "inferred_rows", "bound_outputs", "TagFrequency", "tag_weights"]


def add_tag(graph: KnowledgeGraph, label: str, aliases: Sequence[str] = ()) -> str:
    """Add the tag ``label`` (merged into one of the same id); return its id."""
    node_id = tag_id(label)
    graph.add_tag(TagNode(node_id, label.strip(),
                          tuple(a for a in aliases if fold(a)) if aliases else ()))
    return node_id


def link(graph: KnowledgeGraph, tag: str, function: str, role: str) -> None:
    """Make ``function`` consume (role ``input``) or produce (``output``) ``tag``."""
    if role == "input":
        graph.add_edge(Edge(tag, function, "consumes"))
    else:
        graph.add_edge(Edge(function, tag, "produces"))


def add_sidecar_tags(graph: KnowledgeGraph, sidecar: Sidecar | None,
                     problems: list[Problem]) -> None:
    """Add the sidecar's tags and link the functions it names; report names not found."""
    if sidecar is None:
        return
    for label, aliases in sidecar.tags.items():
        add_tag(graph, label, aliases)
    found = graph.find_many(sidecar.functions)
    for name, entry in sidecar.functions.items():
        ids = found[name]
        if not ids:
            problems.append(missing_function(name))
            continue
        link_entry(graph, entry, ids)


def link_entry(graph: KnowledgeGraph, entry: FunctionKnowledge, node_ids: Sequence[str]
               ) -> set[str]:
    """Link ``node_ids`` to the input and output tags of a sidecar ``entry``; return the tags."""
    tags: set[str] = set()
    for role, labels in (("input", entry.inputs), ("output", entry.outputs)):
        for label in labels:
            tag = add_tag(graph, label)
            tags.add(tag)
            for node_id in node_ids:
                link(graph, tag, node_id, role)
    return tags


def missing_function(name: str) -> Problem:
    """The problem of a sidecar naming a function found in no source."""
    return Problem("knowledge", f"no function named {name!r} in the sources", kind="knowledge")


def attach_example(graph: KnowledgeGraph, example: Example, module: ModuleExtract,
                   qual_to_id: dict[str, str], problems: list[Problem]) -> None:
    """Link the example's I/O tags to the functions of its solution ``module``."""
    defs = [d for d in module.definitions if d.qualname in qual_to_id]
    if not defs:
        problems.append(Problem(module.path, f"example {example.id}: no definitions",
                                kind="knowledge"))
        return
    for role, refs in (("input", example.inputs), ("output", example.outputs)):
        for ref in refs:
            tag = add_tag(graph, ref.label)
            if ref.functions:
                ids = _chosen(graph, ref, defs, qual_to_id, module, example, problems)
            else:
                aliases = (ref.label, *graph.tag(tag).aliases)
                ids = [qual_to_id[d.qualname] for d in _matching(defs, aliases, role)]
            for node_id in dict.fromkeys(ids):
                link(graph, tag, node_id, role)


def _chosen(graph: KnowledgeGraph, ref: TagRef, defs: Sequence[Definition],
            qual_to_id: dict[str, str], module: ModuleExtract, example: Example,
            problems: list[Problem]) -> list[str]:
    """Node ids of the functions an example's tag names: defined or called by the solution."""
    own = {qual_to_id[d.qualname] for d in defs}
    called = {c for node in own for c in graph.callees(node)}
    chosen: list[str] = []
    for name in ref.functions:
        found = [qual_to_id[d.qualname] for d in defs if d.name == name or d.qualname == name
                 or d.qualname.endswith("." + name)]
        if not found:
            found = sorted(c for c in called if graph.finds(name, c))
        if not found:
            problems.append(Problem(module.path, f"example {example.id}: tag {ref.label!r} names "
                                    f"{name!r}, which the solution neither defines nor calls",
                                    kind="knowledge"))
        chosen.extend(found)
    return chosen


def _matching(defs: Sequence[Definition], aliases: Sequence[str], role: str) -> list[Definition]:
    phrases = {fold(a) for a in aliases} - {()}
    functions = [d for d in defs if d.kind != "module"]
    if role == "input":  # each definition's terms made once, whatever the number of aliases
        found = [d for d in functions if mentions_any(phrases, code_terms(d))]
    else:
        found = [d for d in functions if mentions_any(phrases, [d.name])]
    return found or _entries(defs)


def _entries(defs: Sequence[Definition]) -> list[Definition]:
    modules = [d for d in defs if d.kind == "module"]
    if modules:
        return modules
    called = {c.name for d in defs for c in d.calls}
    return [d for d in defs if d.name not in called] or list(defs)


def inferred_rows(graph: KnowledgeGraph, pairs: Iterable[tuple[str, Definition]],
                  returned: Iterable[tuple[str, str]] = ()) -> tuple[list[EdgeRow], list[str]]:
    """The edges of the tags inferred for each ``(node id, definition)``, and those tags' ids.

    ``returned``: ``(node id, label)`` outputs named where the function's value
    is bound (:func:`bound_outputs`). The tags are added to the graph (merged
    into one of the same id there); the edges are for the caller to add.
    """
    known: dict[str, str] = {}
    rows: list[EdgeRow] = []
    add = rows.append
    for node_id, d in pairs:
        # Tags were inferred where the file was parsed (sgkr.analysis.knowledge.annotate); the
        # labels are folded already, so "tag:" and the label is the id.
        inputs, outputs = infer_tags(d)
        for label in inputs:
            add((known.setdefault(label, "tag:" + label), node_id, "consumes", None))
        for label in outputs:
            add((node_id, known.setdefault(label, "tag:" + label), "produces", None))
    for node_id, label in returned:
        add((node_id, known.setdefault(label, "tag:" + label), "produces", None))
    graph.add_tags([TagNode(node_id, label) for label, node_id in known.items()])
    return rows, list(known.values())


def bound_outputs(d: Definition, resolved: Mapping[str, object] | None,
                  qual_to_id: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """``(node id, label)`` of each function whose value ``d`` binds to a name.

    ``fee = calculate_fee(rule, amount)`` in ``d`` gives ``calculate_fee`` the
    output ``fee``: the caller names what the callee returns. ``resolved`` is
    the map of ``d``'s resolved calls (callee qualified name -> resolution);
    ``x = Parser()`` names what the class's ``__init__`` makes.

    Examples
    --------
    >>> from sgkr.ingest.extract import extract_module
    >>> m = extract_module("m.py", "def f(rule):\\n    fee = calc_fee(rule)\\n    return fee\\n")
    >>> list(bound_outputs(m.definitions[0], {"lib.calc_fee": "name"},
    ...                    {"lib.calc_fee": "fn:lib.calc_fee"}))
    [('fn:lib.calc_fee', 'fee')]
    """
    if not resolved:
        return
    for b in d.bindings:
        if b.kind is not BindingKind.ASSIGNED:
            continue
        name = b.value.name.rpartition(".")[2]
        label = " ".join(fold(b.target.rpartition(".")[2]))
        if len(label) < 2:
            continue
        for callee in resolved:
            head, _, last = callee.rpartition(".")
            if (last == name or last == "__init__" and head.rpartition(".")[2] == name) \
                    and callee in qual_to_id:
                yield qual_to_id[callee], label


class TagFrequency:
    """How many functions each tag's words belong to: the document frequencies of tag weights.

    A function's *bag* is every run of words (``set``, ``cookie``, ``set cookie``)
    of the labels of the tags it consumes or produces. A tag's document
    frequency is the number of functions whose bag holds its label: ``set`` is
    frequent when many functions handle a ``set cookie``, a ``set header``...
    An update recounts only the functions whose tags changed, so that its
    weights equal a fresh build's.

    Examples
    --------
    >>> from sgkr.records import FunctionNode
    >>> g = KnowledgeGraph()
    >>> for name in ("a", "b", "c"):
    ...     g.add_function(FunctionNode(f"fn:{name}", name, (name,), "", "", (), "function"))
    >>> for node, label in (("fn:a", "set cookie"), ("fn:b", "set header"), ("fn:c", "set")):
    ...     link(g, add_tag(g, label), node, "output")
    >>> frequency = TagFrequency()
    >>> frequency.update(g, ["fn:a", "fn:b", "fn:c"])
    >>> frequency.weigh(g)
    >>> g.tag("tag:set").weight < g.tag("tag:set cookie").weight
    True
    """

    def __init__(self) -> None:
        self._bags: dict[str, frozenset[str]] = {}
        self._count: Counter[str] = Counter()
        self._runs: dict[str, tuple[str, ...]] = {}  # each tag id's runs of words, made once
        self._changed: set[str] = set()  # runs whose counts changed since the last weigh
        self._weighed = -1  # the number of functions at the last weigh

    def update(self, graph: KnowledgeGraph, nodes: Iterable[str]) -> None:
        """Count again the bags of ``nodes`` (function ids; those gone from ``graph`` drop)."""
        succ, pred = graph.adjacency()
        count, bags, runs = self._count, self._bags, self._runs
        for node in nodes:
            old = bags.pop(node, None)
            if old:
                count.subtract(old)
                self._changed.update(old)
            record = graph.get(node)
            if not isinstance(record, FunctionNode):
                continue
            bag: set[str] = set()
            for edges, kind in ((succ[node], "produces"), (pred[node], "consumes")):
                for tag, edge in edges.items():
                    if edge["type"] == kind:
                        found = runs.get(tag)
                        if found is None:
                            found = runs[tag] = _runs(tag)
                        bag.update(found)
            bags[node] = frozenset(bag)
            count.update(bag)
            self._changed.update(bag)

    def weigh(self, graph: KnowledgeGraph) -> None:
        """Give every tag of ``graph`` its weight (see :func:`tag_weights`).

        Only the tags whose counts changed since the last call are weighed
        again, unless the number of functions changed (then every weight may).
        """
        functions = len(self._bags)
        if functions != self._weighed:
            tags = [t.id for t in graph.records() if isinstance(t, TagNode)]
        else:  # a tag's label is one of its runs: its count changed if its links did
            tags = [t for t in ("tag:" + key for key in self._changed)
                    if isinstance(graph.get(t), TagNode)]
        graph.set_tag_weights(tag_weights(tags, self._count, functions))
        self._changed.clear()
        self._weighed = functions


def tag_weights(tags: Iterable[str], frequency: Mapping[str, int], functions: int
                ) -> dict[str, float]:
    """Each tag's weight: ``log((n + 1) / (d + 1)) / log(n + 1)``, rounded to 3 decimals.

    ``n`` is the number of functions, ``d`` the number whose tags hold the
    tag's words (``frequency`` of its folded label); an inverse document
    frequency scaled to [0, 1]. With fewer than two functions every tag weighs 1.

    Examples
    --------
    >>> tag_weights(["tag:fee", "tag:row"], {"fee": 1, "row": 9}, 9)
    {'tag:fee': 0.699, 'tag:row': 0.0}
    """
    if functions < 2:
        return dict.fromkeys(tags, 1.0)
    top = math.log(functions + 1)
    by_count: dict[int, float] = {}  # a weight depends on the count only: few distinct ones
    weights: dict[str, float] = {}
    for t in tags:
        count = frequency.get(t[4:], 0)
        weight = by_count.get(count)
        if weight is None:
            weight = by_count[count] = round(
                max(0.0, math.log((functions + 1) / (count + 1)) / top), 3)
        weights[t] = weight
    return weights


def _runs(tag: str) -> tuple[str, ...]:
    """Every run of words of a tag's label (the id is ``tag:`` and the folded label)."""
    words = tag[4:].split(" ")
    return tuple(" ".join(words[start:end]) for start in range(len(words))
                 for end in range(start + 1, len(words) + 1))
