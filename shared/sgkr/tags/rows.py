"""The tag stage's output: tag nodes and edge rows, from the sidecar, examples and facts.

Each function here reads the graph being built (:class:`~sgkr.tags.protocol.TagGraph`:
its functions and calls) and returns a :class:`TagRows`; the build's assembler
writes them (:meth:`~sgkr.graph.KnowledgeGraph.add_tags`, ``add_edge_rows``). An
edge row ``(tag, function, "consumes", None)`` says the function takes the tag
in; ``(function, tag, "produces", None)`` that it gives the tag out.

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.records import FunctionNode
>>> g = KnowledgeGraph()
>>> g.add_function(FunctionNode("fn:fee", "fee", ("m.fee",), "", "", (), "function"))
>>> out = sidecar_rows(g, Sidecar({"fee": FunctionKnowledge(outputs=("Fee",))}, {}))
>>> [t.label for t in out.tags], list(out.rows)
(['Fee'], [('fn:fee', 'tag:fee', 'produces', None)])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..records import Definition, EdgeRow, ModuleExtract, Problem, SolvedTask, TagNode
from ..text import fold
from .examples import Example, TagRef
from .infer import infer_tags
from .labels import merge_tag, tag_id
from .phrases import code_terms, mentions_any
from .protocol import TagGraph
from .sidecar import FunctionKnowledge, Sidecar

__all__ = ["TagRows", "joined", "link_row", "sidecar_rows", "entry_rows", "example_rows",
           "inferred_rows", "missing_function", "declared_aliases"]


@dataclass(frozen=True)
class TagRows:
    """Tag nodes and edge rows for the assembler to write, and the problems met.

    ``tags`` are in the order they are met: a tag met twice keeps its first
    label and takes every alias (:meth:`~sgkr.graph.KnowledgeGraph.add_tags`).
    """

    tags: tuple[TagNode, ...] = ()
    rows: tuple[EdgeRow, ...] = ()
    problems: tuple[Problem, ...] = ()
    #: The earlier questions of the build (:mod:`sgkr.tags.questions`).
    tasks: tuple[SolvedTask, ...] = ()



@dataclass
class _Collect:
    """Tags and rows gathered as a stage function goes (made into a :class:`TagRows`)."""

    tags: list[TagNode] = field(default_factory=list)
    rows: list[EdgeRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def tag(self, label: str, aliases: Sequence[str] = ()) -> str:
        node_id = tag_id(label)
        self.tags.append(TagNode(node_id, label.strip(),
                                 tuple(a for a in aliases if fold(a)) if aliases else ()))
        return node_id

    def done(self) -> TagRows:
        return TagRows(tuple(self.tags), tuple(self.rows), tuple(self.problems))


def joined(parts: Iterable[TagRows]) -> TagRows:
    """The tags, rows and problems of ``parts``, in order, as one (in time linear in them).

    Examples
    --------
    >>> joined([TagRows(rows=(("tag:a", "fn:f", "consumes", None),)), TagRows()]).rows
    (('tag:a', 'fn:f', 'consumes', None),)
    """
    parts = list(parts)
    return TagRows(tuple(t for p in parts for t in p.tags), tuple(r for p in parts for r in p.rows),
                   tuple(q for p in parts for q in p.problems),
                   tuple(t for p in parts for t in p.tasks))


def link_row(tag: str, function: str, role: str) -> EdgeRow:
    """The row making ``function`` consume (role ``input``) or produce (``output``) ``tag``.

    Examples
    --------
    >>> link_row("tag:fee", "fn:f", "output"), link_row("tag:fee", "fn:f", "input")
    (('fn:f', 'tag:fee', 'produces', None), ('tag:fee', 'fn:f', 'consumes', None))
    """
    if role == "input":
        return (tag, function, "consumes", None)
    return (function, tag, "produces", None)


def sidecar_rows(graph: TagGraph, sidecar: Sidecar | None) -> TagRows:
    """The sidecar's tags (with their aliases) and the links of the functions it names.

    A function the sidecar names that no node is gives a problem (:func:`missing_function`).
    """
    if sidecar is None:
        return TagRows()
    out = _Collect()
    for label, aliases in sidecar.tags.items():
        out.tag(label, aliases)
    found = graph.find_many(sidecar.functions)
    for name, entry in sidecar.functions.items():
        ids = found[name]
        if not ids:
            out.problems.append(missing_function(name))
            continue
        _link_entry(out, entry, ids)
    return out.done()


def entry_rows(entry: FunctionKnowledge, node_ids: Sequence[str]) -> TagRows:
    """The input and output tags of a sidecar ``entry``, linked to each of ``node_ids``.

    Examples
    --------
    >>> [r[:3] for r in entry_rows(FunctionKnowledge(inputs=("amount",)), ["fn:f"]).rows]
    [('tag:amount', 'fn:f', 'consumes')]
    """
    out = _Collect()
    _link_entry(out, entry, node_ids)
    return out.done()


def _link_entry(out: _Collect, entry: FunctionKnowledge, node_ids: Sequence[str]) -> None:
    for role, labels in (("input", entry.inputs), ("output", entry.outputs)):
        for label in labels:
            tag = out.tag(label)
            out.rows.extend(link_row(tag, node_id, role) for node_id in node_ids)


def missing_function(name: str) -> Problem:
    """The problem of a sidecar naming a function found in no source."""
    return Problem("knowledge", f"no function named {name!r} in the sources", kind="knowledge")


def declared_aliases(sidecar: Sidecar | None) -> dict[str, tuple[str, ...]]:
    """The aliases of each tag the sidecar declares, by tag id (labels of one id merged).

    Examples
    --------
    >>> declared_aliases(Sidecar({}, {"Fee": ("charge",), "fees": ("cost", "Fee")}))
    {'tag:fee': ('charge', 'cost')}
    """
    merged: dict[str, TagNode] = {}
    for label, aliases in (sidecar.tags.items() if sidecar is not None else ()):
        node = TagNode(tag_id(label), label.strip(), tuple(a for a in aliases if fold(a)))
        old = merged.get(node.id)
        merged[node.id] = node if old is None else merge_tag(old, node)
    return {node_id: tag.aliases for node_id, tag in merged.items()}


def example_rows(graph: TagGraph, example: Example, module: ModuleExtract,
                 qual_to_id: Mapping[str, str],
                 aliases: Mapping[str, tuple[str, ...]]) -> TagRows:
    """The example's I/O tags linked to the functions of its solution ``module``.

    A tag that names its functions links those (defined or called by the
    solution); a plain label links the solution's functions whose code mentions
    it (inputs) or whose name says it (outputs), else its entry points.
    ``aliases``: the aliases of the tags declared so far, by id (:func:`declared_aliases`).
    """
    out = _Collect()
    defs = [d for d in module.definitions if d.qualname in qual_to_id]
    if not defs:
        out.problems.append(Problem(module.path, f"example {example.id}: no definitions",
                                    kind="knowledge"))
        return out.done()
    for role, refs in (("input", example.inputs), ("output", example.outputs)):
        for ref in refs:
            tag = out.tag(ref.label)
            if ref.functions:
                ids = _chosen(graph, ref, defs, qual_to_id, module, example, out.problems)
            else:
                names = (ref.label, *aliases.get(tag, ()))
                ids = [qual_to_id[d.qualname] for d in _matching(defs, names, role)]
            out.rows.extend(link_row(tag, node_id, role) for node_id in dict.fromkeys(ids))
    return out.done()


def _chosen(graph: TagGraph, ref: TagRef, defs: Sequence[Definition],
            qual_to_id: Mapping[str, str], module: ModuleExtract, example: Example,
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


def inferred_rows(pairs: Iterable[tuple[str, Definition]],
                  returned: Iterable[tuple[str, str]] = ()) -> TagRows:
    """The tags inferred for each ``(node id, definition)`` and their edges.

    ``returned``: ``(node id, label)`` outputs named where the function's value
    is bound (:func:`~sgkr.tags.infer.bound_outputs`).

    Examples
    --------
    >>> from sgkr.ingest.extract import extract_module
    >>> d = extract_module("m.py", "def average_fee(rows):\\n    return 1\\n").definitions[0]
    >>> list(inferred_rows([("fn:m.average_fee", d)]).rows)
    [('tag:row', 'fn:m.average_fee', 'consumes', None), \
('fn:m.average_fee', 'tag:average fee', 'produces', None)]
    """
    known: dict[str, str] = {}
    rows: list[EdgeRow] = []
    add = rows.append
    for node_id, d in pairs:
        # Tags were inferred where the file was parsed (sgkr.tags.infer.annotate); the
        # labels are folded already, so "tag:" and the label is the id.
        inputs, outputs = infer_tags(d)
        for label in inputs:
            add((known.setdefault(label, "tag:" + label), node_id, "consumes", None))
        for label in outputs:
            add((node_id, known.setdefault(label, "tag:" + label), "produces", None))
    for node_id, label in returned:
        add((node_id, known.setdefault(label, "tag:" + label), "produces", None))
    return TagRows(tuple(TagNode(node_id, label) for label, node_id in known.items()),
                   tuple(rows))
