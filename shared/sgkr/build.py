"""Building the knowledge–code graph from sources, a sidecar file and examples.

The pipeline: read files (:mod:`sgkr.sources`) → extract definitions and
calls (:mod:`sgkr.extract`) → resolve calls (:mod:`sgkr.resolve`) → merge
identical functions (:mod:`sgkr.merge`) → attach knowledge and I/O tags
(:mod:`sgkr.knowledge`) → :class:`~sgkr.graph.KnowledgeGraph`.

Examples
--------
>>> g = build_graph([("fees.py", "def fee(amount):\\n    return 0.1 + rate() * amount\\n"
...                              "def rate():\\n    return 0.2\\n")])
>>> [(e.source, e.target, e.resolution) for e in g.edges()]
[('fn:fees.fee', 'fn:fees.rate', 'exact')]
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from . import __version__
from .batch import extracting, uses_processes
from .errors import InvalidArgumentError, SourceError
from .forked import Background
from .gcpause import paused_gc
from .graph import EdgeRow, KnowledgeGraph, tag_id
from .knowledge import (
    Example,
    Sidecar,
    TagRef,
    code_terms,
    infer_tags,
    knowledge_of,
    load_examples,
    load_sidecar,
    mentions_phrase,
)
from .merge import merge_groups
from .options import DEFAULT_MERGE, BuildOptions
from .records import (
    BuildReport,
    Definition,
    Edge,
    FunctionNode,
    ModuleExtract,
    Problem,
    Resolution,
    TagNode,
    bulk_record,
)
from .resolve import CallEdge, CallResolver, flatten, ordered
from .sources import SourceInput, common_root, read_sources
from .text import fold

__all__ = ["build_graph", "BuildOptions", "DEFAULT_MERGE"]

Progress = Callable[[str, int, int], None]


def build_graph(
    sources: Iterable[SourceInput] = (),
    options: BuildOptions | None = None,
    *,
    progress: Progress | None = None,
    **kwargs: Any,
) -> KnowledgeGraph:
    """Build a knowledge–code graph.

    Parameters
    ----------
    sources
        Python files, folders, or in-memory ``(relative path, text)`` pairs.
    options
        How to build (see :class:`~sgkr.options.BuildOptions`; default: its defaults).
    progress
        Called as ``progress(stage, done, total)`` during long work.
    **kwargs
        Options by name (``knowledge=``, ``examples=``, ``merge=``,
        ``infer_tags=``, ``root=``, ``max_file_bytes=``, ``exclude=``,
        ``jobs=``, ``cache=``), overriding those in ``options``.

    Returns
    -------
    KnowledgeGraph
        With ``graph.report`` holding what was read and skipped.

    Raises
    ------
    SourceError
        A path does not exist, or no Python source was found at all.
    KnowledgeFormatError
        The sidecar or the examples file is malformed.
    InvalidArgumentError
        An unknown option, merge policy or a wrong argument type.
    """
    opts = BuildOptions.from_kwargs(options, **kwargs)
    with paused_gc(long_lived=True):
        return _build_graph(sources, opts, progress)


@dataclass(frozen=True)
class _Plan:
    """The validated arguments of a build."""

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


@dataclass
class _Assembly:
    """A graph and what an incremental rebuild needs to patch it."""

    graph: KnowledgeGraph
    modules: list[ModuleExtract]
    qual_to_id: dict[str, str]
    resolver: CallResolver
    calls: dict[str, dict[str, Resolution]]
    problems: list[Problem]


def _plan(sources: Iterable[SourceInput], options: BuildOptions) -> _Plan:
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    source_list = list(sources)
    knowledge, examples = options.knowledge, options.examples
    sidecar = load_sidecar(knowledge) if isinstance(knowledge, (str, os.PathLike)) else knowledge
    example_list = _examples(examples)
    if not source_list and not example_list:
        raise SourceError("nothing to build: give source paths or an examples file")

    disk = [Path(s) for s in source_list if not isinstance(s, tuple)]
    for path in disk:
        if not path.exists():
            raise SourceError(f"source path does not exist: {path}")
    extra_dirs = [e.source_file.parent for e in example_list if e.source_file is not None]
    if isinstance(examples, (str, os.PathLike)):
        extra_dirs.append(Path(examples).resolve().parent)
    base = Path(options.root).resolve() if options.root is not None else common_root(
        [p.resolve() for p in disk] + extra_dirs)
    inputs: list[SourceInput] = list(source_list)
    inputs += [e.source_file for e in example_list if e.source_file is not None]
    inputs += [(e.path, e.code) for e in example_list if e.source_file is None]
    where = ", ".join(str(s) for s in source_list) or "the examples"
    return _Plan(inputs, base, sidecar, example_list, options.merge, options.infer_tags,
                 options.max_file_bytes, tuple(options.exclude), where, options.gitignore)


def _build_graph(sources: Iterable[SourceInput], options: BuildOptions,
                 progress: Progress | None) -> KnowledgeGraph:
    started = time.perf_counter()
    plan = _plan(sources, options)
    files, problems = read_sources(plan.inputs, root=plan.base,
                                   max_file_bytes=plan.max_file_bytes, exclude=plan.exclude,
                                   gitignore=plan.gitignore)
    if not files:
        raise SourceError(f"found no Python source to read in {plan.where}")
    with extracting([(f.path, f.text) for f in files], jobs=options.jobs, cache=options.cache,
                    progress=progress) as (modules, _):
        # Worker processes write their cache entries while the graph is assembled.
        return _assemble(plan, modules, problems, started, jobs=options.jobs).graph


def _assemble(plan: _Plan, modules: list[ModuleExtract], read_problems: Sequence[Problem],
              started: float, *, jobs: int | None) -> _Assembly:
    """Make the graph of extracted files: nodes, calls, knowledge tags and the report.

    Calls are resolved in a forked child (:mod:`sgkr.forked`) while this process
    makes the function nodes, when ``jobs`` lets the build use other cores.
    """
    problems = list(read_problems)
    for module in modules:
        problems.extend(module.problems)
    graph = KnowledgeGraph(meta={"sgkr_version": __version__, "merge": plan.merge,
                                 "infer_tags": plan.infer_tags})
    resolver = CallResolver(modules)
    resolving = Background(partial(_resolved_calls, resolver, modules),
                           fork=uses_processes(jobs, len(modules)))
    try:
        qual_to_id = _add_functions(graph, modules, plan.merge, plan.sidecar)
        # Without a sidecar or examples no function is tagged otherwise, and the
        # inferred tags are added while the calls are still being resolved.
        early = plan.infer_tags and plan.sidecar is None and not plan.examples
        if early:
            graph.add_edge_rows(_inferred_tags(graph, modules, qual_to_id, set()))
    except BaseException:
        resolving.cancel()  # no child is left behind
        raise
    calls = resolving.result()
    _add_calls(graph, flatten(calls, in_order=True), qual_to_id)
    by_path = {m.path: m for m in modules}
    example_paths = {e.id: _relative(e, plan.base) for e in plan.examples}
    _add_sidecar_tags(graph, plan.sidecar, problems)
    for example in plan.examples:
        solution = by_path.get(example_paths[example.id])
        if solution is None:
            problems.append(Problem(example.path, f"example {example.id}: solution not read",
                                    kind="knowledge"))
            continue
        _attach_example(graph, example, solution, qual_to_id, problems)
    if plan.infer_tags and not early:
        graph.add_edge_rows(_inferred_tags(graph, modules, qual_to_id,
                                           graph.tagged_functions()))
    graph.report = _report(graph, len(modules), problems, started)
    return _Assembly(graph, modules, qual_to_id, resolver, calls, problems)


def _resolved_calls(resolver: CallResolver,
                    modules: list[ModuleExtract]) -> dict[str, dict[str, Resolution]]:
    """The call maps of ``modules``, sorted where they are made (in a forked child)."""
    return ordered(resolver.resolve_modules(modules))


def _report(graph: KnowledgeGraph, files: int, problems: Sequence[Problem],
            started: float) -> BuildReport:
    stats = graph.stats()
    return BuildReport(
        files=files, functions=stats["functions"], call_edges=stats["call_edges"],
        tags=stats["tags"], problems=tuple(problems), seconds=time.perf_counter() - started)


def _examples(examples: object) -> list[Example]:
    if examples is None:
        return []
    if isinstance(examples, (str, os.PathLike)):
        return load_examples(examples)
    if isinstance(examples, Sequence) and all(isinstance(e, Example) for e in examples):
        return list(examples)
    raise InvalidArgumentError(f"examples must be a path or a list of Example, got {examples!r}")


def _relative(example: Example, base: Path) -> str:
    if example.source_file is None:
        return example.path
    try:
        return example.source_file.relative_to(base).as_posix()
    except ValueError:
        return Path(os.path.relpath(example.source_file, base)).as_posix()


def _add_functions(graph: KnowledgeGraph, modules: Sequence[ModuleExtract], merge: str,
                   sidecar: Sidecar | None) -> dict[str, str]:
    definitions = [d for m in modules for d in m.definitions]
    qual_to_id: dict[str, str] = {}
    setdefault = qual_to_id.setdefault
    nodes: list[FunctionNode] = []
    for node_id, members in merge_groups(definitions, merge):
        nodes.append(_function_node(node_id, members, sidecar))
        for d in members:
            setdefault(d.qualname, node_id)
    graph.add_functions(nodes)
    return qual_to_id


def _function_node(node_id: str, members: Sequence[Definition],
                   sidecar: Sidecar | None) -> FunctionNode:
    """The node of a merge group: the first member's code, the best-documented knowledge."""
    head = members[0]
    if sidecar is None and len(members) == 1:  # most nodes: what the general case makes
        return bulk_record(FunctionNode, {
            "id": node_id, "name": head.name, "qualnames": (head.qualname,), "code": head.code,
            "knowledge": knowledge_of(head), "sources": (head.span,), "kind": head.kind})
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


def _tag(graph: KnowledgeGraph, label: str, aliases: Sequence[str] = (),
         node_id: str | None = None) -> str:
    """Add the tag ``label`` (its id given when known); return its id."""
    node_id = node_id or tag_id(label)
    graph.add_tag(TagNode(node_id, label.strip(),
                          tuple(a for a in aliases if fold(a)) if aliases else ()))
    return node_id


def _link(graph: KnowledgeGraph, tag: str, function: str, role: str) -> None:
    if role == "input":
        graph.add_edge(Edge(tag, function, "consumes"))
    else:
        graph.add_edge(Edge(function, tag, "produces"))


def _add_sidecar_tags(graph: KnowledgeGraph, sidecar: Sidecar | None,
                      problems: list[Problem]) -> None:
    if sidecar is None:
        return
    for label, aliases in sidecar.tags.items():
        _tag(graph, label, aliases)
    for name, entry in sidecar.functions.items():
        ids = graph.find(name)
        if not ids:
            problems.append(Problem("knowledge", f"no function named {name!r} in the sources",
                                    kind="knowledge"))
            continue
        for role, labels in (("input", entry.inputs), ("output", entry.outputs)):
            for label in labels:
                tag = _tag(graph, label)
                for node_id in ids:
                    _link(graph, tag, node_id, role)


def _attach_example(graph: KnowledgeGraph, example: Example, module: ModuleExtract,
                    qual_to_id: dict[str, str], problems: list[Problem]) -> None:
    defs = [d for d in module.definitions if d.qualname in qual_to_id]
    if not defs:
        problems.append(Problem(module.path, f"example {example.id}: no definitions",
                                kind="knowledge"))
        return
    for role, refs in (("input", example.inputs), ("output", example.outputs)):
        for ref in refs:
            tag = _tag(graph, ref.label)
            if ref.functions:
                ids = _chosen(graph, ref, defs, qual_to_id, module, example, problems)
            else:
                aliases = (ref.label, *graph.tag(tag).aliases)
                ids = [qual_to_id[d.qualname] for d in _matching(defs, aliases, role)]
            for node_id in dict.fromkeys(ids):
                _link(graph, tag, node_id, role)


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
    phrases = [fold(a) for a in aliases if fold(a)]
    functions = [d for d in defs if d.kind != "module"]
    if role == "input":
        found = [d for d in functions if any(mentions_phrase(p, code_terms(d)) for p in phrases)]
    else:
        found = [d for d in functions if any(mentions_phrase(p, [d.name]) for p in phrases)]
    return found or _entries(defs)


def _entries(defs: Sequence[Definition]) -> list[Definition]:
    modules = [d for d in defs if d.kind == "module"]
    if modules:
        return modules
    called = {c.name for d in defs for c in d.calls}
    return [d for d in defs if d.name not in called] or list(defs)


def _add_calls(graph: KnowledgeGraph, calls: Iterable[CallEdge],
               qual_to_id: dict[str, str]) -> None:
    graph.add_edge_rows([(qual_to_id[caller], qual_to_id[callee], "calls", how)
                         for caller, callee, how in calls])


def _inferred_tags(graph: KnowledgeGraph, modules: Sequence[ModuleExtract],
                   qual_to_id: dict[str, str], tagged: set[str]) -> list[EdgeRow]:
    """The edges of the tags inferred for the functions not ``tagged``; their tags are added."""
    pairs = ((qual_to_id[d.qualname], d) for module in modules for d in module.definitions)
    return _inferred_rows(graph, ((n, d) for n, d in pairs if n not in tagged))[0]


def _inferred_rows(graph: KnowledgeGraph, pairs: Iterable[tuple[str, Definition]]
                   ) -> tuple[list[EdgeRow], list[str]]:
    """The edges of the tags inferred for each ``(node id, definition)``, and those tags' ids.

    The tags are added to the graph (merged into one of the same id there).
    """
    known: dict[str, str] = {}
    rows: list[EdgeRow] = []
    add = rows.append
    for node_id, d in pairs:
        # Tags were inferred where the file was parsed (sgkr.knowledge.annotate).
        inputs, outputs = infer_tags(d)
        for label in inputs:
            add((known.get(label) or _new_tag(label, known), node_id, "consumes", None))
        for label in outputs:
            add((node_id, known.get(label) or _new_tag(label, known), "produces", None))
    # Added at once, in the order first met.
    graph.add_tags([bulk_record(TagNode, {"id": node_id, "label": label, "aliases": ()})
                    for label, node_id in known.items()])
    return rows, list(known.values())


def _new_tag(label: str, known: dict[str, str]) -> str:
    # Inferred labels are folded (sgkr.knowledge.infer_tags): "tag:" and the label is the id.
    node_id = known[label] = "tag:" + label
    return node_id
