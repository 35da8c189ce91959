"""What SGKR tells a coding agent: retrieved knowledge and code, dependency paths, stats.

Plain text (Markdown) answers, each at most :data:`MAX_ANSWER_CHARS` characters: a
retrieval answer is shown a page at a time (:func:`describe_page`), a long dependency
explanation is cut. The Model Context Protocol server (:mod:`sgkr.agents.server`) hands
them to agents. Nothing here imports the ``mcp`` SDK.

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("fees.py", "def fee(amount):\\n    return rate() * amount\\n"
...                              "def rate():\\n    return 0.2\\n")])
>>> print(explain_path(g, "fee", "rate"))
fee depends on rate (1 path, shortest first):
<BLANKLINE>
1. fee -calls[exact]-> rate
<BLANKLINE>
- fee (fees.py:1): fee(amount): fee from amount.
- rate (fees.py:3): rate(): rate.
<BLANKLINE>
Edges: exact = found from the syntax alone (same module, import, self.).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..algorithms.paths import DEFAULT_MAX_DEPTH, MAX_PATH_ENDS
from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import FunctionNode, RetrievalResult, RetrievedFunction, SourceSpan
from ..stores import GraphReader, NamesReader, as_reader
from ..stores.base import EdgeKind
from .names import NameTable

__all__ = ["describe_page", "explain_path", "graph_summary", "where", "Page",
           "MAX_ANSWER_CHARS", "DEFAULT_SHOWN_PATHS", "UNMATCHED"]

#: Most characters of one answer: what an agent's context can spare for one call.
MAX_ANSWER_CHARS = 60_000
#: What a question that matches nothing matched (``RetrievalResult.matched`` is false).
UNMATCHED = "no tag, no word of the code"
#: Paths an explanation shows unless asked for more.
DEFAULT_SHOWN_PATHS = 5
_HEAD_CHARS = 6_000  # what the question, tags and paths may take of a page
_LINE_CHARS = 1_000
_COUNT_CHARS = 80  # the line that says which functions a page shows
_MAX_PATHS_SHOWN = 5
_EDGE_TEXT = {"calls": "calls", "references": "uses", "consumes": "input of",
              "produces": "produces"}
_RESOLUTIONS = {
    "exact": "found from the syntax alone (same module, import, self.)",
    "inferred": "inferred from what a variable, attribute or return value holds",
    "name": "a guess by bare name: the callee may be another function of that name",
}


def where(span: SourceSpan) -> str:
    """``file:line``, or ``file, cell N, line L`` in a notebook.

    Examples
    --------
    >>> where(SourceSpan("a.py", 3, 9)), where(SourceSpan("n.ipynb", 2, 4, 5, 5))
    ('a.py:3', 'n.ipynb, cell 5, line 2')
    """
    return span.location


@dataclass(frozen=True)
class Page:
    """One page of a retrieval answer: its text and where the next page starts.

    Attributes
    ----------
    text
        The page, as Markdown.
    start, stop
        The documents shown, ``documents[start:stop]``.
    next
        The first document of the next page, or None on the last page.
    """

    text: str
    start: int
    stop: int
    next: int | None


def describe_page(result: RetrievalResult, start: int = 0, *,
                  budget: int = MAX_ANSWER_CHARS) -> Page:
    """The documents of ``result`` from ``start`` on, as many as fit ``budget`` characters.

    A page says what the question matched and how the functions were found,
    then each function's knowledge and code, best first. At least one function
    is shown when any is left (its code cut to fit if it alone is too long).

    Examples
    --------
    >>> page = describe_page(RetrievalResult("What is x?", ()))
    >>> print(page.text)
    Question: What is x?
    Tags matched: none.
    Nothing retrieved.
    >>> page.next is None
    True
    """
    docs = result.documents
    lines = _head(result, start)
    room = budget - sum(len(line) + 1 for line in lines) - _COUNT_CHARS
    stop = start
    while stop < len(docs):
        text = _document(docs[stop], stop + 1, room if stop == start else None)
        if len(text) + 1 > room:
            break
        lines.append(text)
        room -= len(text) + 1
        stop += 1
    if docs:
        count = (f"Functions {start + 1} to {stop} of {len(docs)}, best first." if stop > start
                 else f"No more functions: all {len(docs)} were shown.")
        lines.insert(len(lines) - (stop - start), count)
    return Page("\n".join(lines), start, stop, stop if stop < len(docs) else None)


def _head(result: RetrievalResult, start: int) -> list[str]:
    """What a page says before its functions: question, tags, how they were found."""
    lines = [_clip(f"Question: {result.question}", _LINE_CHARS)]
    tags = ", ".join(f"{m.label!r} ({m.role}, from {m.text!r})" for m in result.tags)
    lines.append(_clip(f"Tags matched: {tags or 'none'}.", _HEAD_CHARS // 3))
    docs = result.documents
    if not docs:
        lines.append("Nothing retrieved." if result.matched else
                     f"Nothing retrieved: the question matches nothing in this graph "
                     f"({UNMATCHED}).")
        return lines
    if result.paths:
        lines.append(f"Dependency paths between them: {len(result.paths)}, shortest first; "
                     "the functions on them come first.")
        shown = [_clip("Path: " + " -> ".join(p), _LINE_CHARS)
                 for p in result.paths[:_MAX_PATHS_SHOWN]]
        lines += shown if start == 0 else []
    else:
        found = "the tags and the question's words" if result.tags else "the question's words"
        lines.append(f"No dependency path used: the functions are ranked by {found}, "
                     "and the code they call.")
    return lines


def _document(d: RetrievedFunction, number: int, room: int | None) -> str:
    """One function: heading, knowledge, code; cut to ``room`` characters if given."""
    place = f" ({d.location})" if d.location else ""
    head = f"\n## {number}. {d.label}{place}, score {d.score:.3f}\n"
    if d.used_by:  # on a graph of solved tasks: the earlier questions that used it
        head += "Used to answer: " + "; ".join(repr(_clip(q, 120)) for _, q in d.used_by) + "\n"
    knowledge = f"\n{d.knowledge.strip()}\n" if d.knowledge.strip() else ""
    code = d.code.strip()
    text = f"{head}{knowledge}\n```python\n{code}\n```"
    if room is None or len(text) + 1 <= room:
        return text
    note = f"\n... ({{left}} more characters; read the rest at {place.strip(' ()')})"
    keep = max(room - len(head) - len(knowledge) - len(note) - 40, 0)
    if keep == 0:  # even the knowledge does not fit: the code alone, cut
        knowledge = ""
        keep = max(room - len(head) - len(note) - 40, 0)
    cut = code[:keep]
    return (f"{head}{knowledge}\n```python\n{cut}"
            + note.format(left=len(code) - len(cut)) + "\n```")


def explain_path(graph: KnowledgeGraph | GraphReader, source: str, target: str, *,
                 max_depth: int = DEFAULT_MAX_DEPTH, max_paths: int = DEFAULT_SHOWN_PATHS,
                 names: NameTable | None = None) -> str:
    """How ``source`` depends on ``target`` (functions or tags), as Markdown.

    Dependency paths are walked first from ``source`` to ``target`` (calls,
    tag consumed, tag produced), then the other way; failing both, the
    shortest paths through any edges are shown, said to be undirected. Each
    edge between functions says how it was resolved: ``exact``, ``inferred``
    or ``name`` (a guess). Names may be bare, qualified or node ids
    (:class:`~sgkr.agents.names.NameTable`); ``names`` is the table of a graph
    store (made from ``graph`` when it is one).

    Raises
    ------
    NodeNotFoundError
        If either name is not in the graph (the nearest names are offered).
    InvalidArgumentError
        If a name is empty or ``max_depth`` / ``max_paths`` is not positive.
    """
    if names is None:
        if not isinstance(graph, KnowledgeGraph):
            raise TypeError("explain_path over a graph store needs its NameTable")
        names = NameTable.of(graph)
    reader = as_reader(graph)
    sources, targets = names.resolve(source), names.resolve(target)
    lines = [*_ambiguous(names, source, sources), *_ambiguous(names, target, targets)]
    found = _search(reader, sources, targets, max_depth, max_paths)
    if found is None:
        return "\n".join([*lines, f"No path of at most {max_depth} edges joins "
                                  f"{names.label(sources[0])} and {names.label(targets[0])}."])
    ahead, behind, paths = found
    edges = _edges(reader, paths)
    lines.append(_heading(names, ahead, behind, paths))
    lines += ["", *(f"{n}. {_path_text(names, p, edges)}" for n, p in enumerate(paths, 1)), ""]
    ids = list(dict.fromkeys(n for p in paths for n in p if not names.is_tag(n)))
    records = reader.functions(ids)
    lines += [_function_line(names, records[i]) for i in ids if i in records]
    used = dict.fromkeys(r for _, r in edges.values() if r is not None)
    if used:
        lines += ["", "Edges: " + "; ".join(f"{r} = {_RESOLUTIONS[r]}" for r in used) + "."]
    return _fit("\n".join(lines), MAX_ANSWER_CHARS)


def _ambiguous(names: NameTable, given: str, ids: list[str]) -> list[str]:
    if len(ids) == 1:
        return []
    shown = ", ".join(names.label(i) for i in ids[:10]) + (", ..." if len(ids) > 10 else "")
    return [f"{given!r} names {len(ids)} nodes ({shown}): paths from or to any of them.", ""]


def _search(reader: GraphReader, sources: list[str], targets: list[str], max_depth: int,
            max_paths: int) -> tuple[list[str], list[str] | None, list[tuple[str, ...]]] | None:
    """Paths ``sources`` → ``targets``, else back, else undirected (``behind`` None)."""
    for ahead, behind in ((sources, targets), (targets, sources)):
        paths = reader.find_paths(ahead, behind, max_depth=max_depth, max_paths=max_paths,
                                  reverse_calls=False)
        if paths:
            return ahead, behind, paths
    # Both sides among the MAX_PATH_ENDS nodes a search joins, however many one names.
    half = MAX_PATH_ENDS // 2
    ends = {*sources[:half], *targets[:half]}
    paths = [p for p in reader.connect_paths([*sources[:half], *targets[:half]],
                                             max_depth=max_depth, max_paths=max_paths)
             if p[0] in ends and p[-1] in ends and (p[0] in sources) != (p[-1] in sources)]
    return (sources, None, paths) if paths else None


def _heading(names: NameTable, ahead: list[str], behind: list[str] | None,
             paths: Sequence[tuple[str, ...]]) -> str:
    count = f"{len(paths)} path{'s' if len(paths) > 1 else ''}, shortest first"
    first = names.label(paths[0][0])
    if behind is None:
        return (f"{first} and {names.label(paths[0][-1])} are joined only through shared "
                f"neighbours, edges walked either way ({count}):")
    return f"{first} depends on {names.label(paths[0][-1])} ({count}):"


def _edges(reader: GraphReader, paths: Sequence[tuple[str, ...]]
           ) -> dict[tuple[str, str], EdgeKind]:
    """The edge of each step of ``paths``, keyed in its own direction."""
    if not isinstance(reader, NamesReader):
        raise InvalidArgumentError("this graph store cannot tell its edges apart")
    steps = {(a, b) for p in paths for a, b in zip(p, p[1:], strict=False)}
    return reader.edge_kinds(steps | {(b, a) for a, b in steps})


def _path_text(names: NameTable, path: Sequence[str],
               edges: Mapping[tuple[str, str], EdgeKind]) -> str:
    parts = [names.label(path[0])]
    for a, b in zip(path, path[1:], strict=False):
        forward = (a, b) in edges
        kind, resolution = edges.get((a, b)) or edges.get((b, a)) or (None, None)
        text = _EDGE_TEXT.get(kind or "", "linked to") + (f"[{resolution}]" if resolution else "")
        parts.append((f"-{text}-> " if forward else f"<-{text}- ") + names.label(b))
    return " ".join(parts)


def _function_line(names: NameTable, f: FunctionNode) -> str:
    first = f.knowledge.strip().splitlines()[0] if f.knowledge.strip() else ""
    place = f" ({where(f.sources[0])})" if f.sources else ""
    return _clip(f"- {names.label(f.id)}{place}: {first}", _LINE_CHARS)


def graph_summary(graph: KnowledgeGraph, *, top: int = 10) -> dict[str, object]:
    """The graph's counts, build metadata, most-called functions and tags, for an agent.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> graph_summary(build_graph([("m.py", "def f():\\n    return 1\\n")]))["functions"]
    1
    """
    return {
        **graph.stats(),
        "meta": dict(graph.meta),
        "most_called": [{"id": i, "callers": n} for i, n in graph.most_called(top)],
        "tag_labels": sorted(t.label for t in graph.tags()),
        **({"solved_tasks": len(graph.tasks)} if graph.tasks else {}),
    }


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def _fit(text: str, limit: int) -> str:
    """``text`` cut at a line end to ``limit`` characters, saying so."""
    if len(text) <= limit:
        return text
    note = "\n... (cut here: ask for fewer paths or a shorter max_depth)"
    return text[: text.rfind("\n", 0, limit - len(note))] + note
