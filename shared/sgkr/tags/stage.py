"""The tags of a fresh build, in one call: sidecar, then examples, then inference.

:func:`build_rows` gives every tag node and tag edge of a build: the sidecar's
tags and links first, then the examples' (each linked to its own solution's
functions), then, when ``infer`` is set, the tags inferred from the facts of
every function that neither gave a tag. The assembler writes what it returns.

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.ingest.extract import extract_module
>>> from sgkr.records import FunctionNode
>>> m = extract_module("m.py", "def average_fee(rows):\\n    return 1\\n")
>>> g = KnowledgeGraph()
>>> g.add_function(FunctionNode("fn:m.average_fee", "average_fee", ("m.average_fee",), "",
...                             "", (), "function"))
>>> out = build_rows(g, TagInputs(None, (), infer=True), [m], {"m.average_fee":
...                  "fn:m.average_fee"}, {})
>>> sorted(t.id for t in out.tags)
['tag:average fee', 'tag:row']
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..records import EdgeRow, ModuleExtract, Problem
from .examples import Example
from .infer import bound_outputs
from .labels import merged_tags
from .protocol import Calls, TagGraph
from .questions import task_rows
from .rows import (
    TagRows,
    declared_aliases,
    example_rows,
    inferred_rows,
    joined,
    sidecar_rows,
)
from .sidecar import Sidecar

__all__ = ["TagInputs", "build_rows", "curated_tags", "tagged_by", "solution_path"]



@dataclass(frozen=True)
class TagInputs:
    """What a build's tags come from besides the facts: the sidecar and the examples.

    ``base`` is the folder the build reads paths relative to (where an example's
    solution file is found among the modules); ``infer``: whether tags are inferred
    for functions the sidecar and examples leave untagged; ``keep_inferred``: whether
    those stay on the graph, or only make the vocabulary that the questions of the
    examples without tags are matched against (then their tags are the questions').
    """

    sidecar: Sidecar | None
    examples: Sequence[Example]
    base: Path = Path(".")
    infer: bool = False
    keep_inferred: bool = True


def curated_tags(sidecar: Sidecar | None, examples: Sequence[Example]) -> bool:
    """Whether the sidecar or the examples give any I/O tag (then none is inferred by default).

    Examples
    --------
    >>> from sgkr.tags.sidecar import FunctionKnowledge
    >>> curated_tags(Sidecar({"f": FunctionKnowledge("Knowledge only.")}, {}), [])
    False
    >>> curated_tags(Sidecar({"f": FunctionKnowledge(outputs=("fee",))}, {}), [])
    True
    """
    if sidecar is not None and (sidecar.tags or any(
            e.inputs or e.outputs for e in sidecar.functions.values())):
        return True
    return any(e.inputs or e.outputs for e in examples)


def build_rows(graph: TagGraph, inputs: TagInputs, modules: Sequence[ModuleExtract],
               qual_to_id: Mapping[str, str], calls: Calls, refs: Calls | None = None,
               ) -> TagRows:
    """Every tag node and tag edge of a build whose functions and calls ``graph`` holds, and
    its solved tasks (:func:`~sgkr.tags.questions.task_rows`).

    ``qual_to_id``: each qualified name's node id; ``calls``: the resolved calls,
    whose bound values name their callees' outputs (:func:`~sgkr.tags.infer.bound_outputs`);
    ``refs``: the functions used as values.
    """
    parts = [sidecar_rows(graph, inputs.sidecar)]
    aliases = declared_aliases(inputs.sidecar)
    by_path = {m.path: m for m in modules}
    solved: list[tuple[Example, ModuleExtract]] = []
    for example in inputs.examples:
        solution = by_path.get(solution_path(example, inputs.base))
        if solution is None:
            parts.append(TagRows(problems=(Problem(
                example.path, f"example {example.id}: solution not read", kind="knowledge"),)))
            continue
        solved.append((example, solution))
        if example.inputs or example.outputs:
            parts.append(example_rows(graph, example, solution, qual_to_id, aliases))
    inferred = TagRows()
    if inputs.infer:
        inferred = _inferred(modules, qual_to_id,
                             tagged_by(r for part in parts for r in part.rows), calls)
    if solved:
        made = joined([*parts, inferred])
        found = task_rows(solved, qual_to_id, calls, refs or {}, merged_tags(made.tags),
                          made.rows)
        parts.append(TagRows(found.tags, found.rows, tasks=found.tasks))
    if inputs.keep_inferred:
        parts.append(inferred)
    return joined(parts)


def tagged_by(rows: Iterable[EdgeRow]) -> set[str]:
    """The functions that tag edge ``rows`` link (the target of a consumes, the source of a
    produces)."""
    return {target if kind == "consumes" else source for source, target, kind, _ in rows
            if kind in ("consumes", "produces")}


def solution_path(example: Example, base: Path) -> str:
    """The path of ``example``'s solution as the build reads it (relative to ``base``)."""
    if example.source_file is None:
        return example.path
    try:
        return example.source_file.relative_to(base).as_posix()
    except ValueError:
        return Path(os.path.relpath(example.source_file, base)).as_posix()


def _inferred(modules: Sequence[ModuleExtract], qual_to_id: Mapping[str, str],
              tagged: set[str], calls: Calls) -> TagRows:
    """The tags inferred for the functions not ``tagged``, and their edges."""
    definitions = [d for module in modules for d in module.definitions]
    returned = [(n, label) for d in definitions if d.bindings
                for n, label in bound_outputs(d, calls.get(d.qualname), qual_to_id)
                if n not in tagged]
    pairs = ((qual_to_id[d.qualname], d) for d in definitions)
    return inferred_rows(((n, d) for n, d in pairs if n not in tagged), returned)
