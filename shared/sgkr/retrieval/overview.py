"""A map of a graph for a language model's context, within a budget of tokens.

:func:`graph_map` lists the most central functions and methods of a graph,
grouped by file and class: each with its header (parameters and return
annotation, from its syntax tree), the first line of its knowledge, and who calls
it and what it calls, so a model reads the dependency paths as well as the
names. Central is the PageRank of the call graph (calls and references, caller
to callee): a function that many central functions use ranks high. With a
question, the map is focused on it: the functions the retriever finds for it
come first, then the functions they call and that call them, then the rest by
rank.

The budget counts tokens as ``\\w+|[^\\w\\s]`` (:func:`count_tokens`); the map
never exceeds it.

Examples
--------
>>> from sgkr import build_graph
>>> code = ("def fee(rule, amount):\\n    '''The fee of one rule.'''\\n    return rule * amount\\n"
...         "def total(rules, amount):\\n    return sum(fee(r, amount) for r in rules)\\n")
>>> print(graph_map(build_graph([("fees.py", code)]), 60).text)
# 2 of 2 functions, the most central first (1 file)
fees.py
  fee(rule, amount): The fee of one rule.
    called by: total
  total(rules, amount)
    calls: fee
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import FunctionNode

__all__ = ["MapEntry", "GraphMap", "graph_map", "count_tokens", "call_rank", "MIN_TOKENS",
           "MAX_TOKENS"]

#: Fewest and most tokens a map is asked for.
MIN_TOKENS, MAX_TOKENS = 20, 1_000_000
#: Most callers and callees named under a function.
_NAMED = 4
_DAMPING, _ROUNDS = 0.85, 30
# The fewest tokens of an entry (``  f()``), and the misses in a row before a map stops.
_SMALLEST, _MISSES = 4, 100
_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Tokens of ``text`` as the budget counts them: words and single other characters.

    Examples
    --------
    >>> count_tokens("def fee(rule) -> float:")
    9
    """
    return len(_TOKEN.findall(text))


@dataclass(frozen=True)
class MapEntry:
    """One function of a map: where it is, its header and knowledge, its neighbours."""

    id: str
    shown: str  # its name in its file: ``Session.send``, ``fee``
    file: str
    line: int
    header: str  # ``(self, request) -> Response``; empty for a module body
    knowledge: str  # the first line
    calls: tuple[str, ...]
    called_by: tuple[str, ...]


@dataclass(frozen=True)
class GraphMap:
    """A map: its entries in the order shown, its text, and the tokens of that text."""

    entries: tuple[MapEntry, ...]
    text: str
    tokens: int
    budget: int
    question: str | None


def call_rank(calls: Mapping[str, Sequence[str]], nodes: Iterable[str]) -> dict[str, float]:
    """PageRank of ``nodes`` over ``calls`` (caller → callees): mass flows to what is used.

    Examples
    --------
    >>> rank = call_rank({"a": ["c"], "b": ["c"]}, ["a", "b", "c"])
    >>> max(rank, key=rank.__getitem__)
    'c'
    """
    order = list(dict.fromkeys(nodes))
    if not order:
        return {}
    base = (1 - _DAMPING) / len(order)
    rank = dict.fromkeys(order, 1 / len(order))
    for _ in range(_ROUNDS):
        spread = dict.fromkeys(order, base)
        sink = 0.0
        for node, mass in rank.items():
            out = [c for c in calls.get(node, ()) if c in spread]
            if not out:
                sink += mass
                continue
            for callee in out:
                spread[callee] += _DAMPING * mass / len(out)
        share = _DAMPING * sink / len(order)
        rank = {node: value + share for node, value in spread.items()}
    return rank


def graph_map(graph: KnowledgeGraph, tokens: int, *, question: str | None = None,
              focus: Sequence[str] = ()) -> GraphMap:
    """The map of ``graph`` in at most ``tokens`` tokens (see the module).

    Parameters
    ----------
    graph
        The graph to map.
    tokens
        The budget, from :data:`MIN_TOKENS` to :data:`MAX_TOKENS`.
    question
        The question ``focus`` answers, kept with the map (its first line says the map is
        focused).
    focus
        Function ids to put first, best first (what a retriever found for ``question``);
        their callers and callees follow them.

    Raises
    ------
    InvalidArgumentError
        If ``tokens`` is out of range, or ``focus`` names what is not a function.
    """
    if isinstance(tokens, bool) or not isinstance(tokens, int) \
            or not MIN_TOKENS <= tokens <= MAX_TOKENS:
        raise InvalidArgumentError(
            f"tokens must be an integer from {MIN_TOKENS} to {MAX_TOKENS:,}, got {tokens!r}")
    functions = {f.id: f for f in graph.functions()}
    missing = [node for node in focus if node not in functions]
    if missing:
        raise InvalidArgumentError(f"focus: not functions of the graph: {missing[:3]}")
    calls, called_by = _neighbours(graph, functions)
    rank = call_rank(calls, functions)
    order = _order(functions, rank, calls, called_by, focus)
    return _fit(order, functions, calls, called_by, rank, tokens, question)


def _neighbours(graph: KnowledgeGraph, functions: Mapping[str, FunctionNode],
                ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    calls: dict[str, list[str]] = defaultdict(list)
    called_by: dict[str, list[str]] = defaultdict(list)
    for edge in graph.edges():
        if edge.type in ("calls", "references") and edge.source in functions \
                and edge.target in functions and edge.source != edge.target:
            calls[edge.source].append(edge.target)
            called_by[edge.target].append(edge.source)
    return calls, called_by


def _order(functions: Mapping[str, FunctionNode], rank: Mapping[str, float],
           calls: Mapping[str, list[str]], called_by: Mapping[str, list[str]],
           focus: Sequence[str]) -> list[str]:
    """The functions in the order a map takes them: the focus, its neighbours, the rest."""
    def by_rank(ids: Iterable[str]) -> list[str]:
        return sorted(ids, key=lambda i: (-rank[i], i))

    near = by_rank({n for f in focus for n in (*calls.get(f, ()), *called_by.get(f, ()))})
    first = list(dict.fromkeys([*focus, *near]))
    # Module bodies (scripts) last among equals: a map is of what can be called.
    rest = sorted(functions, key=lambda i: (functions[i].kind == "module", -rank[i], i))
    return list(dict.fromkeys([*first, *rest]))


def _entry(node: FunctionNode, calls: Sequence[str], called_by: Sequence[str],
           functions: Mapping[str, FunctionNode], rank: Mapping[str, float]) -> MapEntry:
    def named(ids: Sequence[str]) -> tuple[str, ...]:
        best = sorted(set(ids), key=lambda i: (-rank[i], i))[:_NAMED]
        more = len(set(ids)) - len(best)
        return tuple(_shown(functions[i]) for i in best) + ((f"{more} more",) if more else ())

    from ..ingest.headers import header_of  # here: a question imports no tree-sitter

    header = header_of(node.code) if node.kind != "module" else None
    shown = _shown(node)
    text = "" if header is None else \
        f"{'async ' if header.asynchronous else ''}{_tidy(header.parameters)}" \
        f"{f' -> {header.returns}' if header.returns else ''}"
    source = node.sources[0]
    knowledge = node.knowledge.strip().splitlines()[0].strip() if node.knowledge.strip() else ""
    if knowledge.startswith((f"{node.name}(", f"{shown}(")):
        knowledge = ""  # the build's description of a function without knowledge: its header
    return MapEntry(node.id, shown, source.file, source.start_line, text, knowledge,
                    named(calls), named(called_by))


def _tidy(parameters: str) -> str:
    """``( a, b, )`` (a list written one parameter a line) as ``(a, b)``."""
    inner = parameters.removeprefix("(").removesuffix(")").strip().removesuffix(",").strip()
    return f"({inner})"


def _shown(node: FunctionNode) -> str:
    """A function's name within its file: the qualified name less its module."""
    if node.kind == "module":
        return f"(module {node.qualnames[0] if node.qualnames else node.name})"
    qualname = node.qualnames[0] if node.qualnames else node.name
    module = node.sources[0].file.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
    for prefix in (module, module.rsplit(".", 1)[-1]):
        if qualname.startswith(prefix + "."):
            return qualname[len(prefix) + 1:]
    return node.name


def _shorter(entry: MapEntry) -> Iterator[MapEntry]:
    """``entry``, then less of it: without its neighbours, its knowledge, its header."""
    yield entry
    yield replace(entry, calls=(), called_by=())
    yield replace(entry, calls=(), called_by=(), knowledge="")
    yield replace(entry, calls=(), called_by=(), knowledge="", header="")


def _lines(entry: MapEntry) -> list[str]:
    head = f"  {entry.shown}{entry.header}"
    lines = [f"{head}: {entry.knowledge}" if entry.knowledge else head]
    if entry.calls:
        lines.append(f"    calls: {', '.join(entry.calls)}")
    if entry.called_by:
        lines.append(f"    called by: {', '.join(entry.called_by)}")
    return lines


def _fit(order: Sequence[str], functions: Mapping[str, FunctionNode],
         calls: Mapping[str, list[str]], called_by: Mapping[str, list[str]],
         rank: Mapping[str, float], budget: int, question: str | None) -> GraphMap:
    """The entries, in ``order``, that fit the budget with their files' lines."""
    chosen: list[MapEntry] = []
    files: dict[str, list[MapEntry]] = {}
    used = count_tokens(_title(len(functions), len(functions), question, ["x"]))
    misses = 0
    for node_id in order:
        if budget - used < _SMALLEST or misses > _MISSES:
            break  # nothing more fits, or nothing has for long
        entry = _entry(functions[node_id], calls.get(node_id, ()), called_by.get(node_id, ()),
                       functions, rank)
        head = 0 if entry.file in files else count_tokens(entry.file)
        fits = next((e for e in _shorter(entry)
                     if used + head + count_tokens("\n".join(_lines(e))) <= budget), None)
        if fits is None:
            misses += 1
            continue  # a smaller one further down may still fit
        used, misses = used + head + count_tokens("\n".join(_lines(fits))), 0
        chosen.append(fits)
        files.setdefault(fits.file, []).append(fits)
    lines = [_title(len(chosen), len(functions), question, list(files))]
    for file, entries in files.items():
        lines.append(file)
        for entry in entries:
            lines += _lines(entry)
    text = "\n".join(lines)
    return GraphMap(tuple(chosen), text, count_tokens(text), budget, question)


def _title(shown: int, total: int, question: str | None, files: Sequence[str]) -> str:
    """The first line; its tokens are the same for any count of files (the budget's)."""
    about = "those a question needs first" if question else "the most central first"
    where = f" ({len(files)} file{'s' if len(files) > 1 else ''})" if files else ""
    return f"# {shown} of {total} functions, {about}{where}"
