"""I/O tags on the graph: from the sidecar file, from examples, and inferred from code.

Every function here changes the graph through the batch methods of
:class:`~sgkr.graph.KnowledgeGraph`; :class:`~sgkr.assembly.Assembly` calls them
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

from collections.abc import Iterable, Sequence

from .graph import KnowledgeGraph, tag_id
from .knowledge import (
    Example,
    FunctionKnowledge,
    Sidecar,
    TagRef,
    code_terms,
    infer_tags,
    mentions_any,
)
from .records import Definition, Edge, EdgeRow, ModuleExtract, Problem, TagNode
from .text import fold

__all__ = ["add_tag", "link", "link_entry", "missing_function", "add_sidecar_tags",
           "attach_example", "inferred_rows"]


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
    for name, entry in sidecar.functions.items():
        ids = graph.find(name)
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
            found = sorted(c for c in called if c in graph.find(name))
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


def inferred_rows(graph: KnowledgeGraph, pairs: Iterable[tuple[str, Definition]]
                  ) -> tuple[list[EdgeRow], list[str]]:
    """The edges of the tags inferred for each ``(node id, definition)``, and those tags' ids.

    The tags are added to the graph (merged into one of the same id there);
    the edges are for the caller to add.
    """
    known: dict[str, str] = {}
    rows: list[EdgeRow] = []
    add = rows.append
    for node_id, d in pairs:
        # Tags were inferred where the file was parsed (sgkr.knowledge.annotate); the
        # labels are folded already, so "tag:" and the label is the id.
        inputs, outputs = infer_tags(d)
        for label in inputs:
            add((known.setdefault(label, "tag:" + label), node_id, "consumes", None))
        for label in outputs:
            add((node_id, known.setdefault(label, "tag:" + label), "produces", None))
    graph.add_tags([TagNode(node_id, label) for label, node_id in known.items()])
    return rows, list(known.values())
