"""One assembler: the graph of extracted modules, made whole or patched after a change.

:meth:`Assembly.add` makes the graph of a build: function nodes (merged),
call edges, then the I/O tags of the sidecar, the examples and inference.
:meth:`Assembly.replace` patches that graph when some modules were
extracted again, so that it equals the graph :meth:`Assembly.add` makes of
the new modules:

- calls are resolved again only in the modules :class:`~sgkr.analysis.affected.ImportIndex`
  names (changed modules, their importers, callers of a bare name whose
  matches changed);
- only definitions sharing a name with a changed definition are merged again;
- only nodes that changed get their call edges and tags again.

Both change the graph through the batch methods of
:class:`~sgkr.graph.KnowledgeGraph` only.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> from sgkr.build.options import BuildOptions
>>> plan = make_plan([("m.py", "")], BuildOptions(infer_tags=False))
>>> old = extract_module("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")
>>> assembly = Assembly.add(plan, [old], [])
>>> [(e.source, e.target) for e in assembly.graph.edges()]
[('fn:m.f', 'fn:m.g')]
>>> new = extract_module("m.py", "def f():\\n    return 2\\ndef g():\\n    return 1\\n")
>>> assembly.replace([old], [new], [new], [])
1
>>> list(assembly.graph.edges())
[]
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..analysis.affected import ImportIndex, affected_modules
from ..analysis.knowledge import knowledge_of
from ..analysis.merge import merge_groups
from ..analysis.resolve import CallResolver, flatten
from ..errors import InvalidArgumentError, KnowledgeFormatError, SourceError
from ..graph.model import KnowledgeGraph
from ..ingest.files import roots_of
from ..ingest.sources import SourceInput, common_root, is_test_file
from ..records import (
    BuildReport,
    Definition,
    EdgeRow,
    EdgeType,
    FunctionNode,
    ModuleExtract,
    Problem,
    Resolution,
)
from ..tags.examples import Example, load_examples
from ..tags.rows import TagRows, missing_function
from ..tags.sidecar import Sidecar, load_sidecar
from ..tags.stage import TagInputs, build_rows, curated_tags
from ..tags.tasklist import load_task_folder
from ..tags.update import (
    missing_keys,
    named_by_callers,
    orphan_tags,
    relabels,
    retag_rows,
    tags_of,
)
from ..tags.weights import TagFrequency
from ..version import __version__
from .options import BuildOptions
from .reuse import BuildCalls, resolve

__all__ = ["Plan", "make_plan", "Assembly", "write_tags"]

Calls = dict[str, dict[str, Resolution]]
# The edges between functions, made from the call and reference maps.
_BETWEEN_FUNCTIONS = ("calls", "references")


@dataclass(frozen=True)
class Plan:
    """The validated inputs of a build: what to read, relative to what, and how to tag."""

    inputs: list[SourceInput]
    base: Path
    sidecar: Sidecar | None
    examples: list[Example]
    merge: str
    infer_tags: bool
    max_file_bytes: int
    exclude: tuple[str, ...]
    where: str
    gitignore: bool = True
    #: Whether the sidecar or the examples give any I/O tag.
    curated_tags: bool = False
    #: What the plan noticed: tasks of a task list with no solution (skipped).
    notes: tuple[Problem, ...] = ()
    #: Whether the tags inferred from code stay on the graph; else they are only the
    #: vocabulary the questions of the examples are matched against (the questions' tags
    #: are the graph's: examples without tags, nothing curated, ``infer_tags`` not set).
    keep_inferred: bool = True


def make_plan(sources: Iterable[SourceInput], options: BuildOptions) -> Plan:
    """Check the sources exist, load the sidecar and examples, and choose the root.

    Raises
    ------
    SourceError
        Nothing to build, or a source path does not exist.
    KnowledgeFormatError
        The sidecar or the examples file is malformed.
    """
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    source_list = list(sources)
    knowledge, examples = options.knowledge, options.examples
    sidecar = load_sidecar(knowledge) if isinstance(knowledge, (str, os.PathLike)) else knowledge
    disk = [Path(s) for s in source_list if isinstance(s, (str, os.PathLike))]
    for path in disk:
        if not path.exists():
            raise SourceError(f"source path does not exist: {path}")
    # Solution files are read inside the examples file's folder or the source folders.
    example_list = _examples(examples, roots_of(disk), options.max_file_bytes)
    unused, notes = _task_folder(options, example_list)
    disk += unused
    source_list += unused
    if not source_list and not example_list:
        raise SourceError("nothing to build: give source paths or an examples file")
    extra_dirs = [e.source_file.parent for e in example_list if e.source_file is not None]
    if isinstance(examples, (str, os.PathLike)):
        extra_dirs.append(Path(examples).resolve().parent)
    base = Path(options.root).resolve() if options.root is not None else common_root(
        [p.resolve() for p in disk] + extra_dirs)
    inputs: list[SourceInput] = list(source_list)
    inputs += [e.source_file for e in example_list if e.source_file is not None]
    inputs += [(e.path, e.code) for e in example_list if e.source_file is None]
    where = ", ".join(str(s) for s in source_list) or "the examples"
    curated = curated_tags(sidecar, example_list)
    infer = not curated if options.infer_tags is None else options.infer_tags
    asked = not curated and options.infer_tags is None and bool(example_list)
    return Plan(inputs, base, sidecar, example_list, options.merge, infer,
                options.max_file_bytes, tuple(options.exclude), where, options.gitignore,
                curated, notes, keep_inferred=not asked)


def _task_folder(options: BuildOptions, examples: list[Example]
                 ) -> tuple[list[Path], tuple[Problem, ...]]:
    """Add the examples of the options' solutions folder and task list to ``examples``; the
    solution files of no task (built as code), and a note of the tasks with no solution.

    Raises
    ------
    KnowledgeFormatError
        The folder or the list is malformed, or a task's id is an example's too.
    """
    if options.solutions is None or options.tasks is None:
        return [], ()
    folder = load_task_folder(options.solutions, options.tasks,
                              max_file_bytes=options.max_file_bytes)
    ids = {e.id for e in examples}
    for example in folder.examples:
        if example.id in ids:
            raise KnowledgeFormatError(f"{options.tasks}: task {example.id!r} is also an "
                                       "example's id")
    examples += folder.examples
    if not folder.missing:
        return list(folder.unused), ()
    ids_shown = ", ".join(folder.missing[:5]) + (", ..." if len(folder.missing) > 5 else "")
    return list(folder.unused), (Problem(
        str(options.tasks), f"{len(folder.missing)} task(s) with no solution in "
        f"{options.solutions}, skipped: {ids_shown}", kind="knowledge"),)


def _examples(examples: object, roots: Sequence[str], max_file_bytes: int) -> list[Example]:
    if examples is None:
        return []
    if isinstance(examples, (str, os.PathLike)):
        return load_examples(examples, roots=roots, max_file_bytes=max_file_bytes)
    if isinstance(examples, Sequence) and all(isinstance(e, Example) for e in examples):
        return list(examples)
    raise InvalidArgumentError(f"examples must be a path or a list of Example, got {examples!r}")


@dataclass(frozen=True)
class _Merged:
    """The function nodes of the definitions merged again in an update."""

    records: dict[str, FunctionNode]
    new_map: dict[str, str]  # qualified name -> node id, of the definitions merged again
    gone: set[str]
    changed: set[str]  # ids of new or changed records
    moved: set[str]  # qualified names now on another node, or on none


class Assembly:
    """A graph and what an update needs to patch it.

    Attributes
    ----------
    plan : Plan
    graph : KnowledgeGraph
    modules : list of ModuleExtract
        The extractions, sorted by path.
    qual_to_id : dict
        Each qualified name's node id.
    resolver : CallResolver
    calls : dict
        Each caller's resolved calls, by qualified name.
    refs : dict
        The functions each definition uses as values (``references``), by qualified name.
    problems : list of Problem
    frequency : TagFrequency
        The document frequencies of the tags' words, which weigh the tags.
    """

    def __init__(self, plan: Plan, graph: KnowledgeGraph, modules: list[ModuleExtract],
                 qual_to_id: dict[str, str], resolver: CallResolver, calls: Calls,
                 problems: list[Problem], refs: Calls,
                 frequency: TagFrequency | None = None) -> None:
        self.plan = plan
        self.graph = graph
        self.modules = modules
        self.qual_to_id = qual_to_id
        self.resolver = resolver
        self.calls = calls
        self.refs = refs
        self.problems = problems
        self._index: ImportIndex | None = None  # made by the first update
        self._missing: dict[str, bool] = {}  # sidecar function keys found in no node
        self.frequency = frequency if frequency is not None else TagFrequency()

    @classmethod
    def add(cls, plan: Plan, modules: list[ModuleExtract], read_problems: Sequence[Problem],
            *, started: float | None = None, resolution: BuildCalls | None = None) -> Assembly:
        """The graph of ``modules``: nodes, calls, knowledge tags and the report.

        ``started``: when the build began (:func:`time.perf_counter`), for the
        report's time; default: now. ``resolution``: the calls of ``modules`` resolved
        already (:func:`~sgkr.build.reuse.resolve`); default: resolved here.
        """
        started = time.perf_counter() if started is None else started
        problems = [*plan.notes, *read_problems, *(p for m in modules for p in m.problems)]
        # curated_tags false tells the retriever every tag was inferred from code; tags the
        # earlier questions ground are not (question_tags).
        meta = {"sgkr_version": __version__, "merge": plan.merge,
                "infer_tags": plan.infer_tags and plan.keep_inferred,
                "curated_tags": plan.curated_tags or not plan.keep_inferred}
        if not plan.keep_inferred:
            meta["question_tags"] = True
        graph = KnowledgeGraph(meta=meta)
        qual_to_id = _add_functions(graph, modules, plan)
        if resolution is None:
            resolution = resolve(modules, {}, None, None)
        resolver, calls, refs = resolution.resolver, resolution.calls, resolution.refs
        resolver.forget()  # its answers are kept in calls and refs: free them for the graph
        graph.add_edge_rows(_rows(calls, qual_to_id, "calls"))
        graph.add_edge_rows(_rows(refs, qual_to_id, "references"))
        problems += write_tags(graph, build_rows(
            graph, TagInputs(plan.sidecar, plan.examples, plan.base, plan.infer_tags,
                             plan.keep_inferred), modules, qual_to_id, calls, refs))
        frequency = TagFrequency()
        frequency.update(graph, [r.id for r in graph.records() if isinstance(r, FunctionNode)])
        graph.set_tag_weights(frequency.weigh(graph))
        graph.report = report(graph, len(modules), problems, started)
        return cls(plan, graph, modules, qual_to_id, resolver, calls, problems, refs, frequency)

    def replace(self, old: Sequence[ModuleExtract], new: Sequence[ModuleExtract],
                modules: list[ModuleExtract], read_problems: Sequence[Problem], *,
                started: float | None = None) -> int | None:
        """Patch a copy of the graph: ``old`` modules became ``new``; ``modules`` are now all
        of them. The graph held before stays as it was.

        ``started``: when the update began, for the report's time; default: now.

        Returns
        -------
        int or None
            The number of modules whose calls were resolved again; None when
            the change cannot be patched (the build has examples, or build
            order decides what a name is): then this assembly is spent, and
            :meth:`add` must make the graph.
        """
        started = time.perf_counter() if started is None else started
        if self.plan.examples:
            return None
        if self._index is None:
            self._index = ImportIndex(self.modules)
            self._missing = missing_keys(self.graph, self.plan.sidecar)
        names = {d.name for m in (*old, *new) for d in m.definitions if d.kind != "module"}
        resolved = self._resolve_again(old, new)
        merged = None if resolved is None else self._merge_again(old, new, modules, names)
        if resolved is None or merged is None:
            return None
        # Copy on write: the patch goes into a copy, which becomes this assembly's graph;
        # whoever holds the graph before (a retriever in another thread) keeps that
        # version, unchanged. A refused patch copies nothing.
        self.graph = self.graph.copy()
        redo, new_calls, new_refs = resolved
        call_dirty, tag_dirty = self._dirty(old, new, merged, redo, new_calls, new_refs)
        self._apply(merged, call_dirty, tag_dirty, names | {m.module for m in new})
        self.modules = modules
        sidecar_problems = [missing_function(k) for k, gone in self._missing.items() if gone]
        self.problems = [*read_problems, *(p for m in modules for p in m.problems),
                         *sidecar_problems]
        self.graph.report = report(self.graph, len(modules), self.problems, started)
        return len(redo)

    def _resolve_again(self, old: Sequence[ModuleExtract], new: Sequence[ModuleExtract]
                       ) -> tuple[set[str], Calls, Calls] | None:
        """The modules whose calls may have changed, their call and reference maps; None:
        refused."""
        resolver, index = self.resolver, self._index
        assert index is not None
        redo = affected_modules(resolver, index, old, new)
        if redo is None:
            return None
        refs: Calls = {}
        calls = resolver.resolve_modules((resolver.by_module[n] for n in sorted(redo)), refs)
        return redo, calls, refs

    def _merge_again(self, old: Sequence[ModuleExtract], new: Sequence[ModuleExtract],
                     modules: list[ModuleExtract], names: set[str]) -> _Merged | None:
        """Merge again the definitions sharing a name with a changed one; None: refused."""
        graph, plan = self.graph, self.plan
        old_module_defs = [d for m in old for d in m.definitions if d.kind == "module"]
        old_quals = {d.qualname for m in self.modules for d in m.definitions
                     if d.name in names and d.kind != "module"}
        old_quals |= {d.qualname for d in old_module_defs}
        fresh = {m.path for m in new}
        subset = [d for m in modules for d in m.definitions
                  if d.kind != "module" and d.name in names
                  or d.kind == "module" and m.path in fresh]
        groups = merge_groups(subset, plan.merge)
        old_ids = {r.id for r in graph.records() if isinstance(r, FunctionNode)
                   and r.name in names and r.kind != "module"}
        old_ids |= {self.qual_to_id[d.qualname] for d in old_module_defs
                    if d.qualname in self.qual_to_id}
        records = {node_id: function_node(node_id, members, plan.sidecar)
                   for node_id, members in groups}
        if any(i in graph and i not in old_ids for i in records):
            return None  # an id taken by a node of another name: build order decides
        gone = old_ids - records.keys()
        if plan.sidecar is not None and any(k in gone or k in records and k not in old_ids
                                            for k in plan.sidecar.functions):
            return None
        new_map: dict[str, str] = {}
        for node_id, members in groups:
            for d in members:
                new_map.setdefault(d.qualname, node_id)
        moved = {q for q in old_quals | new_map.keys()
                 if self.qual_to_id.get(q) != new_map.get(q)}
        changed = {i for i, r in records.items() if i not in graph or graph.function(i) != r}
        return _Merged(records, new_map, gone, changed, moved)

    def _dirty(self, old: Sequence[ModuleExtract], new: Sequence[ModuleExtract],
               merged: _Merged, redo: set[str], new_calls: Calls,
               new_refs: Calls) -> tuple[set[str], set[str]]:
        """The nodes whose call and reference edges, and those whose tags, are made again.

        The new call and reference maps are kept in :attr:`calls` and :attr:`refs`.
        """
        graph, new_map = self.graph, merged.new_map
        call_dirty, tag_dirty = set(merged.changed), set(merged.changed)
        for q in merged.moved:
            old_id = self.qual_to_id.get(q)
            if old_id is not None and old_id in graph:
                call_dirty.update(s for s, _, kind, _ in graph.edges_of([old_id], "in")
                                  if kind in _BETWEEN_FUNCTIONS)
                call_dirty.add(old_id)
                tag_dirty.add(old_id)
            if q in new_map:
                call_dirty.add(new_map[q])
                tag_dirty.add(new_map[q])
        # A node keeps its record when a definition of its qualified name comes or
        # goes beside the first, whose code it shows: the tags inferred from that
        # definition change all the same.
        tag_dirty.update(new_map[d.qualname] for m in (*old, *new) for d in m.definitions
                         if d.qualname in new_map)
        redone = {d.qualname for n in redo for d in self.resolver.by_module[n].definitions}
        redone |= {d.qualname for m in old for d in m.definitions}
        for q in redone:
            if self.calls.get(q) != new_calls.get(q) or self.refs.get(q) != new_refs.get(q):
                for table, found in ((self.calls, new_calls), (self.refs, new_refs)):
                    if q in found:
                        table[q] = found[q]
                    else:
                        table.pop(q, None)
                caller = new_map.get(q) or self.qual_to_id.get(q)
                if caller is not None:
                    call_dirty.add(caller)
        return call_dirty, tag_dirty

    def _apply(self, merged: _Merged, call_dirty: set[str], tag_dirty: set[str],
               names: set[str]) -> None:
        """Change the graph: qualified names, nodes, call edges, tags."""
        graph, gone = self.graph, merged.gone
        for q in merged.moved:
            self.qual_to_id.pop(q, None)
            if q in merged.new_map:
                self.qual_to_id[q] = merged.new_map[q]
        if self.plan.infer_tags:
            # A callee's outputs are named by its callers (fee = calculate_fee(...)): the
            # callees of the callers whose calls change, before and after, are tagged again.
            tag_dirty |= self._callees(call_dirty)
        touched = tags_of(graph, gone | tag_dirty)
        graph.remove_nodes(gone)
        graph.add_functions(merged.records[i] for i in sorted(merged.changed))
        self._recall(call_dirty - gone)
        if self.plan.infer_tags:
            called = self._callees(call_dirty - gone) - tag_dirty
            touched |= tags_of(graph, called)
            tag_dirty |= called
        relabel = self._retag(tag_dirty - gone, touched)
        keys = [key for key in self._missing
                if key.rpartition(".")[2] in names or key.startswith(("fn:", "mod:"))]
        self._missing.update((key, not ids) for key, ids in graph.find_many(keys).items())
        self._relabel(relabel)
        # Every tag is weighed again: the number of functions, and so every weight, may change.
        self.frequency.update(graph, gone | tag_dirty | merged.changed)
        graph.set_tag_weights(self.frequency.weigh(graph))

    def _recall(self, nodes: set[str]) -> None:
        """Call and reference edges out of ``nodes`` made again from their maps."""
        graph = self.graph
        graph.remove_edges([(s, t) for s, t, kind, _ in graph.edges_of(nodes)
                            if kind in _BETWEEN_FUNCTIONS])
        quals = [q for node_id in nodes for q in self._quals(node_id)]
        maps: tuple[tuple[Calls, EdgeType], ...] = ((self.calls, "calls"),
                                                     (self.refs, "references"))
        for table, kind in maps:
            graph.add_edge_rows(_rows({q: table[q] for q in quals if q in table},
                                      self.qual_to_id, kind))

    def _callees(self, nodes: set[str]) -> set[str]:
        """The functions that ``nodes`` call, as the graph holds them now."""
        return {t for _, t, kind, _ in self.graph.edges_of(nodes) if kind == "calls"}

    def _retag(self, nodes: set[str], touched: set[str]) -> set[str]:
        """Tag edges of ``nodes`` made again (:func:`~sgkr.tags.update.retag_rows`).

        Returns the tags linked or unlinked that are still in the graph.
        """
        graph, plan = self.graph, self.plan
        graph.remove_edges([(s, t) for s, t, kind, _ in graph.edges_of(nodes, "both")
                            if kind not in _BETWEEN_FUNCTIONS])
        written = retag_rows(graph, nodes, plan.sidecar, plan.infer_tags, self._definitions,
                             lambda node: named_by_callers(graph, node, self._definitions,
                                                           self.calls, self.qual_to_id))
        write_tags(graph, written)
        touched.update(t.id for t in written.tags)
        orphans = orphan_tags(graph, touched, plan.sidecar)
        graph.remove_nodes(orphans)
        return touched - orphans

    def _relabel(self, tags: set[str]) -> None:
        """Give each tag the label a fresh build gives it (:func:`~sgkr.tags.update.relabels`)."""
        for t, label in relabels(self.graph, self.plan.sidecar, self._missing, tags).items():
            self.graph.set_tag_label(t, label)

    def _quals(self, node_id: str) -> list[str]:
        """Qualified names whose definitions' calls and tags belong to ``node_id``."""
        return [q for q in self.graph.function(node_id).qualnames
                if self.qual_to_id.get(q) == node_id]

    def _definitions(self, node_id: str) -> list[Definition]:
        """Definitions whose qualified name maps to ``node_id``, in build order."""
        tables = self.resolver.tables
        quals = set(self._quals(node_id))
        owners = sorted({tables.owner[q] for q in quals if q in tables.owner})
        return [d for name in owners for d in tables.by_module[name].definitions
                if d.qualname in quals]


def report(graph: KnowledgeGraph, files: int, problems: Sequence[Problem],
           started: float) -> BuildReport:
    """The build report of ``graph``, made of ``files`` files, ``started`` at this time."""
    stats = graph.stats()
    tests = sum(1 for f in graph.functions() if f.kind != "module" and f.sources
                and all(is_test_file(s.file) for s in f.sources))
    return BuildReport(
        files=files, functions=stats["functions"], call_edges=stats["call_edges"],
        tags=stats["tags"], problems=tuple(problems), seconds=time.perf_counter() - started,
        reference_edges=stats["reference_edges"], test_functions=tests)


def function_node(node_id: str, members: Sequence[Definition],
                  sidecar: Sidecar | None) -> FunctionNode:
    """The node of a merge group: the first member's code, the best-documented knowledge."""
    head = members[0]
    if sidecar is None and len(members) == 1:  # most nodes: what the general case makes
        return FunctionNode(node_id, head.name, (head.qualname,), head.code, knowledge_of(head),
                            (head.span,), head.kind)
    texts = [_sidecar_text(sidecar, d) for d in members]
    sidecar_text = next((t for t in texts if t), None)
    documented = max(members, key=lambda d: len(d.docstring or "") + len(d.comment or ""))
    return FunctionNode(
        id=node_id,
        name=head.name,
        qualnames=tuple(dict.fromkeys(d.qualname for d in members)),
        code=head.code,
        knowledge=knowledge_of(documented, sidecar_text),
        sources=tuple(d.span for d in members),
        kind=head.kind,
    )


def _sidecar_text(sidecar: Sidecar | None, d: Definition) -> str | None:
    if sidecar is None:
        return None
    entry = sidecar.functions.get(d.qualname) or sidecar.functions.get(d.name)
    return entry.knowledge if entry else None


def _rows(table: Calls, qual_to_id: dict[str, str], kind: EdgeType) -> list[EdgeRow]:
    """The edges of a call or reference map, between the nodes of the qualified names."""
    return [(qual_to_id[source], qual_to_id[target], kind, how)
            for source, target, how in flatten(table)]


def _add_functions(graph: KnowledgeGraph, modules: Sequence[ModuleExtract],
                   plan: Plan) -> dict[str, str]:
    """Add the function nodes of the merged definitions; each qualified name's node id."""
    definitions = [d for m in modules for d in m.definitions]
    qual_to_id: dict[str, str] = {}
    setdefault = qual_to_id.setdefault
    nodes: list[FunctionNode] = []
    for node_id, members in merge_groups(definitions, plan.merge):
        nodes.append(function_node(node_id, members, plan.sidecar))
        for d in members:
            setdefault(d.qualname, node_id)
    graph.add_functions(nodes)
    return qual_to_id


def write_tags(graph: KnowledgeGraph, written: TagRows) -> list[Problem]:
    """Write the tag stage's nodes and rows into ``graph``; return its problems."""
    graph.add_tags(written.tags)
    graph.add_edge_rows(written.rows)
    if written.tasks:
        graph.set_tasks(written.tasks)
    return list(written.problems)
