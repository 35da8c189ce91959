"""Incremental rebuilds: a build kept in memory and patched when source files change.

:class:`GraphBuilder` makes the graph :func:`~sgkr.build.build_graph` makes,
and keeps what it needs to update it. :meth:`GraphBuilder.update` looks at
the files again (one ``stat`` each; a file is read only when its size,
modification time or inode changed), extracts only the files whose text
changed, and patches the graph in place:

- calls are resolved again only in changed modules, in modules importing
  from them (directly or through re-exports), and in modules calling a bare
  name whose matches changed;
- only definitions sharing a name with a changed definition are merged again;
- only nodes that changed get their call edges and tags again.

The patched graph equals a fresh build of the same files. When a change
cannot be patched (the build has examples, or two files fill the same
module or qualified name, so that build order decides), the graph is
assembled again from the extractions in memory: no file is parsed again.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "fees.py").write_text("def fee(amount):\\n    return rate() * amount\\n"
...                                     "def rate():\\n    return 0.2\\n")
>>> builder = GraphBuilder(folder)
>>> [(e.source, e.target) for e in builder.build().edges()]
[('fn:fees.fee', 'fn:fees.rate')]
>>> _ = (folder / "rates.py").write_text("def rate():\\n    return 0.3\\n")
>>> _ = (folder / "fees.py").write_text("from rates import rate\\n"
...                                     "def fee(amount):\\n    return rate() * amount\\n")
>>> [(e.source, e.target) for e in builder.update().edges()]
[('fn:fees.fee', 'fn:rates.rate')]
>>> builder.last_update.changed, builder.last_update.added, builder.last_update.patched
(('fees.py',), ('rates.py',), True)
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any

from .batch import extract_files, extracting
from .build import (
    _add_calls,
    _assemble,
    _Assembly,
    _function_node,
    _inferred_rows,
    _link,
    _plan,
    _report,
    _tag,
)
from .errors import InvalidArgumentError, SourceError
from .gcpause import paused_gc
from .graph import KnowledgeGraph, tag_id
from .merge import merge_groups
from .options import BuildOptions
from .records import (
    BuildReport,
    Definition,
    FunctionNode,
    ModuleExtract,
    Problem,
    Resolution,
    TagNode,
)
from .resolve import NAME_MATCH_LIMIT, CallResolver, flatten
from .sources import SourceInput, list_sources, read_source

__all__ = ["GraphBuilder", "UpdateReport"]

_NAME = attrgetter("name")
_CALLS = attrgetter("calls")

# A file modified this recently may change again within the resolution of its
# file system's clock without its stamp changing: its stamp is not trusted.
_RACY_NS = 100_000_000
_RACY_COARSE_NS = 2_000_000_000
_Stamp = tuple[int, int, int]
_Position = tuple[str, int]


@dataclass(frozen=True)
class UpdateReport:
    """What :meth:`GraphBuilder.update` found and did.

    Attributes
    ----------
    changed, added, removed
        Relative paths of files whose text changed, that appeared, that went.
    patched
        True when the graph was patched; False when it was assembled again
        from the extractions in memory (or nothing changed).
    resolved_modules
        Modules whose calls were resolved again.
    seconds
        Time taken.
    """

    changed: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    patched: bool
    resolved_modules: int
    seconds: float


@dataclass
class _Index:
    """Look-ups a patch needs, made on the first update and kept up to date."""

    # Inverted import tables, each from a dotted name to the modules whose imports:
    # name it or something within it (any scope); name it exactly (any scope);
    # pass on its members (module level: a name's parent, a wildcard's module);
    # name it exactly (module level).
    imports_within: dict[str, set[str]] = field(default_factory=dict)
    imports_module: dict[str, set[str]] = field(default_factory=dict)
    passes_member: dict[str, set[str]] = field(default_factory=dict)
    passes_module: dict[str, set[str]] = field(default_factory=dict)
    sidecar_tags: set[str] = field(default_factory=set)
    sidecar_missing: dict[str, bool] = field(default_factory=dict)


class GraphBuilder:
    """Builds a graph once, then updates it in place as files change.

    Parameters
    ----------
    sources, options, **kwargs
        As for :func:`~sgkr.build.build_graph`.

    Attributes
    ----------
    options : BuildOptions
        The options of the build.
    last_update : UpdateReport or None
        What the last :meth:`update` did.

    Notes
    -----
    :meth:`update` changes the graph :meth:`build` returned. Make a new
    :class:`~sgkr.retriever.Retriever` after an update: a retriever keeps
    tables made from the graph as it was.
    """

    def __init__(self, sources: Iterable[SourceInput] = (),
                 options: BuildOptions | None = None, **kwargs: Any) -> None:
        self.options = BuildOptions.from_kwargs(options, **kwargs)
        self._plan = _plan(sources, self.options)
        self._jobs = self.options.jobs
        self._cache = self.options.cache
        self._state: _Assembly | None = None
        self._index: _Index | None = None
        self._texts: dict[str, str] = {}
        self._read: dict[str, tuple[_Stamp, str | Problem]] = {}
        self._read_problems: list[Problem] = []
        self.last_update: UpdateReport | None = None

    @property
    def graph(self) -> KnowledgeGraph:
        """The graph of the last :meth:`build` or :meth:`update`."""
        if self._state is None:
            raise InvalidArgumentError("GraphBuilder: call build() before reading the graph")
        return self._state.graph

    def build(self) -> KnowledgeGraph:
        """Read, extract and assemble every file (as :func:`~sgkr.build.build_graph` does).

        Raises
        ------
        SourceError
            A source path went missing, or no Python source was found.
        """
        with paused_gc(long_lived=True):
            started = time.perf_counter()
            texts, problems = self._scan()
            with extracting(sorted(texts.items()), jobs=self._jobs,
                            cache=self._cache) as (modules, _):
                # Worker processes write their cache entries while the graph is assembled.
                self._state = _assemble(self._plan, modules, problems, started, jobs=self._jobs)
            self._texts = texts
            self._read_problems = problems
            self._index = None  # made by the first update that patches
            return self._state.graph

    def update(self) -> KnowledgeGraph:
        """Bring the graph up to date with the files, re-extracting only changed ones.

        Returns
        -------
        KnowledgeGraph
            The same graph object as before, changed in place (see Notes).

        Raises
        ------
        SourceError
            A source path went missing, or no Python source is left.
        """
        if self._state is None:
            return self.build()
        with paused_gc(long_lived=True):
            return self._update()

    # -- reading -----------------------------------------------------------------

    def _scan(self) -> tuple[dict[str, str], list[Problem]]:
        plan = self._plan
        texts: dict[str, str] = {}
        disk: list[Path] = []
        for item in plan.inputs:
            if isinstance(item, tuple):
                texts[item[0].replace("\\", "/")] = item[1]
            else:
                path = Path(item)
                if not path.exists():
                    raise SourceError(f"source path does not exist: {path}")
                disk.append(path)
        found, problems = list_sources(disk, plan.base, exclude=plan.exclude, skip=texts,
                                       gitignore=plan.gitignore)
        now = time.time_ns()
        read: dict[str, tuple[_Stamp, str | Problem]] = {}
        for path, rel in found:
            try:
                st = os.stat(path)
                stamp: _Stamp | None = (st.st_size, st.st_mtime_ns, st.st_ino)
            except OSError:
                stamp = None
            known = self._read.get(rel)
            if stamp is not None and known is not None and known[0] == stamp:
                outcome = known[1]
            else:
                text, problem = read_source(path, rel, plan.max_file_bytes)
                outcome = problem if problem is not None else text or ""
                if stamp is not None and now - stamp[1] < _racy_window(stamp[1]):
                    stamp = None
            if stamp is not None:
                read[rel] = (stamp, outcome)
            if isinstance(outcome, Problem):
                problems.append(outcome)
            else:
                texts[rel] = outcome
        self._read = read
        if not texts:
            raise SourceError(f"found no Python source to read in {plan.where}")
        return texts, problems

    # -- updating ----------------------------------------------------------------

    def _update(self) -> KnowledgeGraph:
        started = time.perf_counter()
        state = self._state
        assert state is not None
        texts, problems = self._scan()
        old = self._texts
        changed = tuple(p for p in sorted(texts) if p in old and texts[p] != old[p])
        added = tuple(p for p in sorted(texts) if p not in old)
        removed = tuple(p for p in sorted(old) if p not in texts)
        self._texts = texts
        if not (changed or added or removed):
            if problems != self._read_problems:
                state.problems = [*problems, *state.problems[len(self._read_problems):]]
                state.graph.report = _report(state.graph, len(state.modules), state.problems,
                                             started)
                self._read_problems = problems
            self.last_update = UpdateReport((), (), (), False, 0, time.perf_counter() - started)
            return state.graph
        fresh, _ = extract_files([(p, texts[p]) for p in (*changed, *added)],
                                 jobs=self._jobs, cache=self._cache)
        by_path = {m.path: m for m in state.modules}
        old_mods = [by_path[p] for p in (*changed, *removed)]
        for module in fresh:
            by_path[module.path] = module
        for path in removed:
            del by_path[path]
        modules = [by_path[p] for p in sorted(by_path)]
        self._read_problems = problems
        try:
            resolved = self._patch(state, old_mods, fresh, modules, problems, started)
        except KeyError:  # a change the patch rules did not foresee: assemble instead
            resolved = None
        if resolved is None:
            self._state = _assemble(self._plan, modules, problems, started, jobs=self._jobs)
            self._index = None
        self.last_update = UpdateReport(changed, added, removed, resolved is not None,
                                        resolved if resolved is not None else len(modules),
                                        time.perf_counter() - started)
        return self.graph

    def _patch(self, state: _Assembly, old_mods: list[ModuleExtract],
               new_mods: list[ModuleExtract], modules: list[ModuleExtract],
               read_problems: list[Problem], started: float) -> int | None:
        """Patch the graph; the number of modules resolved again, or None if it cannot."""
        plan = self._plan
        if plan.examples:
            return None
        if self._index is None:
            self._index = self._make_index(state)
        index = self._index
        resolver = state.resolver
        names = {d.name for m in (*old_mods, *new_mods) for d in m.definitions
                 if d.kind != "module"}
        before = {n: _matches(resolver, n) for n in names}
        if not resolver.replace(old_mods, new_mods):
            return None
        # From here on the resolver has changed: a refusal below must reassemble.
        self._index = None
        rematched = {n for n in names if _rematched(before[n], _matches(resolver, n))}
        _reindex_modules(index, old_mods, new_mods)
        redo = self._to_resolve(index, resolver, old_mods, new_mods, rematched)
        new_calls = resolver.resolve_modules(resolver.by_module[n] for n in sorted(redo))
        graph = state.graph

        # Merge again the definitions that share a name with a changed one.
        old_module_defs = [d for m in old_mods for d in m.definitions if d.kind == "module"]
        old_subset = [d for m in state.modules for d in m.definitions
                      if d.name in names and d.kind != "module"] + old_module_defs
        fresh = {m.path for m in new_mods}
        subset = [d for m in modules for d in m.definitions
                  if d.kind != "module" and d.name in names
                  or d.kind == "module" and m.path in fresh]
        groups = merge_groups(subset, plan.merge)
        old_ids = {node_id for node_id, attrs in graph.nx._node.items()
                   if attrs["type"] == "function" and attrs["record"].name in names
                   and attrs["record"].kind != "module"}
        old_ids |= {state.qual_to_id[d.qualname] for d in old_module_defs
                    if d.qualname in state.qual_to_id}
        records = {node_id: _function_node(node_id, members, plan.sidecar)
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
        quals = {d.qualname for d in old_subset} | new_map.keys()
        moved = {q for q in quals if state.qual_to_id.get(q) != new_map.get(q)}
        changed_ids = {i for i, r in records.items() if i not in graph or graph.function(i) != r}

        # Which nodes get their call edges and tags again.
        call_dirty = set(changed_ids)
        tag_dirty = set(changed_ids)
        for q in moved:
            old_id = state.qual_to_id.get(q)
            if old_id is not None and old_id in graph:
                call_dirty.update(s for s in graph.nx.predecessors(old_id)
                                  if graph.nx.edges[s, old_id]["type"] == "calls")
                call_dirty.add(old_id)
                tag_dirty.add(old_id)
            if q in new_map:
                call_dirty.add(new_map[q])
                tag_dirty.add(new_map[q])
        redone = {d.qualname for n in redo for d in resolver.by_module[n].definitions}
        redone |= {d.qualname for m in old_mods for d in m.definitions}
        for q in redone:
            if state.calls.get(q) != new_calls.get(q):
                if q in new_calls:
                    state.calls[q] = new_calls[q]
                else:
                    state.calls.pop(q, None)
                caller = new_map.get(q) or state.qual_to_id.get(q)
                if caller is not None:
                    call_dirty.add(caller)

        # Apply: qualified names, nodes, call edges, tags.
        for q in moved:
            state.qual_to_id.pop(q, None)
            if q in new_map:
                state.qual_to_id[q] = new_map[q]
        touched_tags = _tags_of(graph, gone | tag_dirty)
        call_counts = Counter(state.graph.report.call_edges if state.graph.report else {})
        call_counts.subtract(_call_edges(graph, (call_dirty | gone) & graph.nx.nodes.keys()))
        functions = (graph.report.functions if graph.report else 0) - len(gone) + sum(
            1 for i in records if i not in graph)
        graph.remove_nodes(gone)
        for node_id in changed_ids:
            graph.add_function(records[node_id])
        self._recall(graph, state, index, call_dirty - gone)
        call_counts.update(_call_edges(graph, call_dirty - gone))
        relabel = self._retag(graph, state, index, tag_dirty - gone, touched_tags)
        self._update_sidecar_problems(graph, index, names | {m.module for m in new_mods})
        self._relabel(graph, index, relabel)
        state.modules = modules
        module_problems = [p for m in modules for p in m.problems]
        sidecar_problems = [Problem("knowledge", f"no function named {k!r} in the sources",
                                    kind="knowledge")
                            for k, missing in index.sidecar_missing.items() if missing]
        state.problems = [*read_problems, *module_problems, *sidecar_problems]
        graph.report = BuildReport(
            files=len(modules), functions=functions,
            call_edges={r: n for r, n in sorted(call_counts.items()) if n},
            tags=len(graph) - functions, problems=tuple(state.problems),
            seconds=time.perf_counter() - started)
        self._index = index
        return len(redo)

    def _to_resolve(self, index: _Index, resolver: CallResolver, old_mods: list[ModuleExtract],
                    new_mods: list[ModuleExtract], rematched: set[str]) -> set[str]:
        """Modules whose calls may resolve differently after the change."""
        changed = {m.module for m in (*old_mods, *new_mods)}
        # A module that appeared or went changes what a name bound to it is.
        appeared = {m.module for m in old_mods} ^ {m.module for m in new_mods}
        # Modules whose module-level imports pass names of changed modules on
        # (re-exports): a look-up follows a binding into the module it names a
        # member of, and stops at a module bound as a whole.
        exporters = set(changed)
        frontier = [*changed, *(m for a in appeared for m in index.passes_module.get(a, ()))]
        while frontier:
            name = frontier.pop()
            exporters.add(name)
            frontier += [m for m in index.passes_member.get(name, ()) if m not in exporters]
        redo = {m.module for m in new_mods}
        for name in exporters:
            redo.update(index.imports_within.get(name, ()))
        for name in _prefixes(exporters):
            redo.update(index.imports_module.get(name, ()))
        if rematched:
            # Every call of the build is looked at: iterated in C, not by a generator.
            redo.update(name for name, module in resolver.by_module.items()
                        if name not in redo and not rematched.isdisjoint(map(
                            _NAME, chain.from_iterable(map(_CALLS, module.definitions)))))
        return {n for n in redo if n in resolver.by_module}

    def _make_index(self, state: _Assembly) -> _Index:
        index = _Index()
        _reindex_modules(index, [], state.modules)
        sidecar = self._plan.sidecar
        if sidecar is not None:
            index.sidecar_tags = {tag_id(label) for label in sidecar.tags}
            index.sidecar_missing = {k: not state.graph.find(k) for k in sidecar.functions}
        return index

    def _recall(self, graph: KnowledgeGraph, state: _Assembly, index: _Index,
                nodes: set[str]) -> None:
        """Call edges out of ``nodes`` made again from the call maps."""
        g = graph.nx
        graph.remove_edges([(s, t) for s in nodes for t, data in g._succ[s].items()
                            if data["type"] == "calls"])
        calls: dict[str, dict[str, Resolution]] = {}
        qual_to_id = state.qual_to_id
        for node_id in nodes:
            for q in _quals(graph, state, node_id):
                if q in state.calls:
                    calls[q] = state.calls[q]
        _add_calls(graph, flatten(calls), qual_to_id)

    def _retag(self, graph: KnowledgeGraph, state: _Assembly, index: _Index, nodes: set[str],
               touched: set[str]) -> set[str]:
        """Tag edges of ``nodes`` made again: sidecar links, else inferred tags.

        Returns the tags linked or unlinked that are still in the graph.
        """
        plan = self._plan
        g = graph.nx
        graph.remove_edges([(t, n) for n in nodes for t in g._pred[n]
                            if g._node[t]["type"] == "tag"])
        graph.remove_edges([(n, t) for n in nodes for t in g._succ[n]
                            if g._node[t]["type"] == "tag"])
        inferred: list[tuple[str, Definition]] = []
        for node_id in sorted(nodes):
            record = graph.function(node_id)
            tagged = False
            if plan.sidecar is not None:
                for key, entry in plan.sidecar.functions.items():
                    if _finds(graph, key, record):
                        for role, labels in (("input", entry.inputs), ("output", entry.outputs)):
                            for label in labels:
                                touched.add(_tag(graph, label))
                                _link(graph, tag_id(label), node_id, role)
                                tagged = True
            if plan.infer_tags and not tagged:
                inferred += [(node_id, d) for d in self._definitions(state, node_id)]
        rows, tags = _inferred_rows(graph, inferred)
        graph.add_edge_rows(rows)
        touched.update(tags)
        orphans = {t for t in touched if t in g and not g._pred[t] and not g._succ[t]
                   and t not in index.sidecar_tags}
        graph.remove_nodes(orphans)
        return touched - orphans

    def _relabel(self, graph: KnowledgeGraph, index: _Index, tags: set[str]) -> None:
        """Give each tag the label a fresh build gives it: the first sidecar entry's naming it
        (of the functions found), else its folded words."""
        sidecar = self._plan.sidecar
        if sidecar is None:
            return
        labels: dict[str, str] = {}
        for key, entry in sidecar.functions.items():
            if not index.sidecar_missing.get(key, True):
                for label in (*entry.inputs, *entry.outputs):
                    labels.setdefault(tag_id(label), label.strip())
        for t in tags - index.sidecar_tags:
            if t in graph.nx:
                label = labels.get(t, t.removeprefix("tag:"))
                if graph.tag(t).label != label:
                    graph.nx.nodes[t]["record"] = TagNode(t, label)

    @staticmethod
    def _definitions(state: _Assembly, node_id: str) -> list[Definition]:
        """Definitions whose qualified name maps to ``node_id``, in build order."""
        resolver = state.resolver
        quals = set(_quals(state.graph, state, node_id))
        owners = sorted({resolver.owner[q] for q in quals if q in resolver.owner})
        return [d for name in owners for d in resolver.by_module[name].definitions
                if d.qualname in quals]

    def _update_sidecar_problems(self, graph: KnowledgeGraph, index: _Index,
                                 names: set[str]) -> None:
        for key in index.sidecar_missing:
            if key.rpartition(".")[2] in names or key.startswith(("fn:", "mod:")):
                index.sidecar_missing[key] = not graph.find(key)


def _racy_window(mtime_ns: int) -> int:
    """How recent a modification time is too recent to trust, in nanoseconds."""
    # Whole seconds suggest a file system that keeps only seconds (FAT, some network ones).
    return _RACY_COARSE_NS if mtime_ns % 1_000_000_000 == 0 else _RACY_NS


def _matches(resolver: CallResolver, name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return (tuple(sorted(resolver.functions_by_name.get(name, ()))),
            tuple(sorted(resolver.callables_by_name.get(name, ()))))


def _rematched(old: tuple[tuple[str, ...], tuple[str, ...]],
               new: tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
    """Whether a bare-name call of this name may now resolve differently."""
    return any(a != b and (len(a) <= NAME_MATCH_LIMIT or len(b) <= NAME_MATCH_LIMIT)
               for a, b in zip(old, new, strict=True))


def _prefixes(names: set[str]) -> set[str]:
    """Proper dotted prefixes of ``names`` (``a`` and ``a.b`` for ``a.b.c``)."""
    found: set[str] = set()
    for name in names:
        parts = name.split(".")
        found.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return found


def _reindex_modules(index: _Index, old: Sequence[ModuleExtract],
                     new: Sequence[ModuleExtract]) -> None:
    for module in old:
        for table, keys in _import_keys(module):
            for key in keys:
                table_of = getattr(index, table)[key]
                table_of.discard(module.module)
    for module in new:
        for table, keys in _import_keys(module):
            found = getattr(index, table)
            for key in keys:
                found.setdefault(key, set()).add(module.module)


def _import_keys(module: ModuleExtract) -> list[tuple[str, set[str]]]:
    """The keys ``module`` has in each inverted import table of :class:`_Index`."""
    targets = {b.target for b in module.imports}
    top = [b for b in module.imports if b.scope == module.module]
    top_targets = {b.target for b in top}
    return [("imports_within", _prefixes(targets) | targets),
            ("imports_module", targets),
            ("passes_member", _prefixes(top_targets) | {b.target for b in top if b.alias == "*"}),
            ("passes_module", top_targets)]


def _quals(graph: KnowledgeGraph, state: _Assembly, node_id: str) -> list[str]:
    """Qualified names whose definitions' calls and tags belong to ``node_id``."""
    return [q for q in graph.function(node_id).qualnames if state.qual_to_id.get(q) == node_id]


def _call_edges(graph: KnowledgeGraph, nodes: Iterable[str]) -> Counter[str]:
    """Call edges out of ``nodes``, counted by resolution."""
    succ = graph.nx._succ
    return Counter(data.get("resolution", "exact") for n in nodes for data in succ[n].values()
                   if data["type"] == "calls")


def _tags_of(graph: KnowledgeGraph, nodes: set[str]) -> set[str]:
    g = graph.nx
    found: set[str] = set()
    for node_id in nodes:
        if node_id in g:
            found.update(t for t in g._pred[node_id] if g._node[t]["type"] == "tag")
            found.update(t for t in g._succ[node_id] if g._node[t]["type"] == "tag")
    return found


def _finds(graph: KnowledgeGraph, key: str, record: FunctionNode) -> bool:
    """Whether :meth:`KnowledgeGraph.find` of ``key`` includes ``record`` (sidecar links)."""
    if key in graph.nx and graph.nx.nodes[key]["type"] == "function":
        return key == record.id
    suffix = "." + key
    return record.name == key or any(q == key or q.endswith(suffix) for q in record.qualnames)
