"""The earlier questions of a build: what each solution uses, and the tags each question grounds.

For every example (an earlier question with its solution) :func:`task_rows` gives

- its :class:`~sgkr.records.SolvedTask`: the function nodes its solution uses (its
  module body first, then what it defines, then, following the resolved calls and
  references, what those reach in other modules), and its input and output tags;
- where the example gives no tags, the tags of its question, found by the extractor
  a new question goes through (:class:`~sgkr.tags.match.ScoredMatcher`, the tags it
  names: :func:`~sgkr.tags.match.names_tag`) over the vocabulary of the tags made so
  far, and attached along the solution's own functions, as the paper inserts
  semantic I/O nodes: an input tag to the functions of the solution that take it in
  (their facts say so), an output tag to those that give it out, either one, failing
  that, to the solution's entry (its module body, else its first function).

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> from sgkr.records import TagNode
>>> from sgkr.tags.examples import Example
>>> code = "def fee(amount):\\n    return amount * 0.1\\nprint(fee(10))\\n"
>>> m = extract_module("s.py", code)
>>> ex = Example("1", "What is the fee of an amount?", "s.py", code, (), ())
>>> q2id = {"s": "mod:s", "s.fee": "fn:s.fee"}
>>> vocabulary = [TagNode("tag:amount", "amount"), TagNode("tag:fee", "fee")]
>>> rows = [("tag:amount", "fn:s.fee", "consumes", None), ("fn:s.fee", "tag:fee", "produces",
...          None)]
>>> found = task_rows([(ex, m)], q2id, {}, {}, vocabulary, rows)
>>> found.tasks[0].uses, found.tasks[0].inputs, found.tasks[0].outputs
(('mod:s', 'fn:s.fee'), ('tag:amount',), ('tag:fee',))
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..records import EdgeRow, ModuleExtract, Role, SolvedTask, TagNode
from .examples import Example
from .labels import tag_id
from .match import ScoredMatcher, names_tag, split_roles
from .protocol import Calls
from .rows import link_row
from .vocabulary import Vocabulary

__all__ = ["TaskRows", "task_rows", "solution_uses", "MAX_USES"]

#: Most function nodes a solution is said to use (what its calls reach past its own file is
#: cut there), so that a build's work stays linear in its examples.
MAX_USES = 256


@dataclass(frozen=True)
class TaskRows:
    """The solved tasks of a build, and the tag rows their questions ground."""

    tasks: tuple[SolvedTask, ...]
    tags: tuple[TagNode, ...] = ()
    rows: tuple[EdgeRow, ...] = ()


def solution_uses(module: ModuleExtract, qual_to_id: Mapping[str, str], calls: Calls,
                  refs: Calls) -> tuple[str, ...]:
    """The node ids a solution uses: its module body, its definitions, then what their
    calls and references reach elsewhere (breadth first), at most :data:`MAX_USES`.

    Examples
    --------
    >>> from sgkr.ingest.extract import extract_module
    >>> m = extract_module("s.py", "from lib import fee\\nprint(fee(1))\\n")
    >>> solution_uses(m, {"s": "mod:s", "lib.fee": "fn:lib.fee", "lib.rate": "fn:lib.rate"},
    ...               {"s": {"lib.fee": "exact"}, "lib.fee": {"lib.rate": "exact"}}, {})
    ('mod:s', 'fn:lib.fee', 'fn:lib.rate')
    """
    queue = [d.qualname for d in module.definitions if d.qualname in qual_to_id]
    seen = set(queue)
    uses: dict[str, None] = {}
    at = 0
    while at < len(queue) and len(uses) < MAX_USES:
        qualname = queue[at]
        at += 1
        uses[qual_to_id[qualname]] = None
        for table in (calls, refs):
            for callee in table.get(qualname, ()):
                if callee not in seen and callee in qual_to_id:
                    seen.add(callee)
                    queue.append(callee)
    return tuple(uses)


def task_rows(solved: Sequence[tuple[Example, ModuleExtract]], qual_to_id: Mapping[str, str],
              calls: Calls, refs: Calls, vocabulary: Iterable[TagNode],
              rows: Sequence[EdgeRow]) -> TaskRows:
    """The solved tasks of ``solved`` (each example with its solution's module), and the tags
    that the questions of the examples without tags ground.

    ``vocabulary`` and ``rows``: the tags made so far and their edges (their roles; the
    functions that take each in or give it out).
    """
    consumers: dict[str, set[str]] = defaultdict(set)
    producers: dict[str, set[str]] = defaultdict(set)
    for source, target, kind, _ in rows:
        if kind == "consumes":
            consumers[source].add(target)
        elif kind == "produces":
            producers[target].add(source)
    roles: dict[str, Role] = {}
    for tag in {*consumers, *producers}:
        roles[tag] = "both" if tag in consumers and tag in producers else (
            "input" if tag in consumers else "output")
    matcher = ScoredMatcher(Vocabulary(vocabulary, roles))
    tasks: list[SolvedTask] = []
    grounded: list[EdgeRow] = []
    for example, module in solved:
        uses = solution_uses(module, qual_to_id, calls, refs)
        if example.inputs or example.outputs:
            inputs = tuple(tag_id(r.label) for r in example.inputs)
            outputs = tuple(tag_id(r.label) for r in example.outputs)
        else:
            named = [m for m in matcher(example.question) if names_tag(m)]
            found_in, found_out = split_roles(example.question, named)
            inputs, outputs = tuple(found_in), tuple(found_out)
            grounded += _ground(inputs, uses, consumers, "input")
            grounded += _ground(outputs, uses, producers, "output")
        tasks.append(SolvedTask(f"task:{example.id}", example.question, uses,
                                tuple(dict.fromkeys(inputs)), tuple(dict.fromkeys(outputs)),
                                module.path, example.answer))
    used = {r[0] if r[2] == "consumes" else r[1] for r in grounded}
    kept = {t.id: t for t in vocabulary if t.id in used}
    return TaskRows(tuple(tasks), tuple(kept.values()), tuple(dict.fromkeys(grounded)))


def _ground(tags: Sequence[str], uses: Sequence[str], ends: Mapping[str, set[str]],
            role: str) -> list[EdgeRow]:
    """The rows attaching each of ``tags`` to the functions of ``uses`` that take it in
    (``ends``: each tag's consumers) or give it out (its producers); else to the entry."""
    found: list[EdgeRow] = []
    for tag in tags:
        linked = [f for f in uses if f in ends.get(tag, ())] or list(uses[:1])
        found += [link_row(tag, f, role) for f in linked]
    return found
