"""The retriever: question → I/O tags → dependency paths → ranked knowledge and code.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.knowledge import Sidecar, FunctionKnowledge
>>> code = ("def fee(rule, amount):\\n    return rule['fixed'] + rule['rate'] * amount\\n"
...         "def avg_fee(rules, amount):\\n    return sum(fee(r, amount) for r in rules)\\n")
>>> side = Sidecar({"fee": FunctionKnowledge(inputs=("amount",)),
...                 "avg_fee": FunctionKnowledge(outputs=("average fee",))}, {})
>>> r = Retriever(build_graph([("fees.py", code)], knowledge=side))
>>> [d.name for d in r.retrieve("What is the average fee for an amount of 10?").documents]
['fee', 'avg_fee']
"""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, get_args

from .context import make_documents
from .errors import InvalidArgumentError
from .export import render
from .graph import KnowledgeGraph
from .lexical import LexicalIndex
from .records import FunctionKind, RetrievalResult, TagMatch
from .search import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_PATHS,
    SearchIndex,
    connect_paths,
    find_paths,
)
from .tags import TagExtractor, VocabularyMatcher, resolve_labels, split_roles
from .walk import call_centrality, personalized_pagerank

__all__ = ["Retriever", "RetrieverOptions", "Fallback", "DEFAULT_K"]

DEFAULT_K = 8
#: A fallback retriever: the question and k in, function node ids out, best first.
Fallback = Callable[[str, int], Sequence[str]]
Partial = Literal["connect", "nearest", "none"]
Fill = Literal["ppr", "none"]
_CALLEE_WEIGHT = 0.5
_FILL_WEIGHT = 0.5


@dataclass(frozen=True)
class RetrieverOptions:
    """Retrieval options, all JSON-serialisable (adapters persist them).

    Attributes
    ----------
    k
        Most function nodes returned.
    max_depth, max_paths
        Bounds of the path search (edges per path; paths in all).
    reverse_calls
        Walk call edges from callee to caller too (connects a helper shared
        by two solutions to either caller).
    callees
        Add the callees of retrieved functions up to this many calls deep,
        ranked after the functions on paths (0: none).
    partial
        When no path leads from an input tag to an output tag (only inputs,
        or only outputs, matched, or nothing joins them): ``connect`` joins
        the matched tags by the shortest paths through any edges;
        ``nearest`` takes the functions that consume or produce them;
        ``none`` retrieves nothing.
    include_knowledge
        Put each function's knowledge in its document (off: code only, less
        the docstring that carried the knowledge; an ablation).
    scripts
        Most module-body documents (whole solution scripts) returned; near
        copies of one solution would otherwise crowd out the functions.
    fill
        ``ppr`` fills what the paths and their callees leave of the ``k``
        functions with the functions a personalized PageRank walk from the
        question's seeds visits most (then the most-called functions), so a
        question always gets ``k`` functions when the graph has them;
        ``none`` returns only what the paths found (the paper).
    lexical
        Seed the walk with the functions whose names, identifiers and
        knowledge match the question's words (BM25, :mod:`sgkr.lexical`); they
        answer when no tag matches.
    centrality
        Weight of the call graph's centrality (:func:`sgkr.walk.call_centrality`)
        as a prior of the fill: a function's walk score is multiplied by
        ``1 + centrality * its share of the calls`` (0: no prior).
    brevity
        How much the fill prefers short functions: a function's walk score is
        divided by its length over the mean length to this power (0: length
        does not count), so the context a filled slot costs is priced in.
    """

    k: int = DEFAULT_K
    max_depth: int = DEFAULT_MAX_DEPTH
    max_paths: int = DEFAULT_MAX_PATHS
    reverse_calls: bool = True
    callees: int = 2
    partial: Partial = "connect"
    include_knowledge: bool = True
    scripts: int = 0
    fill: Fill = "ppr"
    lexical: bool = True
    centrality: float = 1.0
    brevity: float = 0.5

    def __post_init__(self) -> None:
        for name in ("k", "max_depth", "max_paths", "callees", "scripts"):
            value = getattr(self, name)
            low = 0 if name in ("callees", "scripts") else 1
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise InvalidArgumentError(
                    f"{name} must be an integer of at least {low}, got {value!r}")
        for name in ("reverse_calls", "include_knowledge", "lexical"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidArgumentError(f"{name} must be True or False")
        if self.partial not in get_args(Partial):
            raise InvalidArgumentError(
                f"partial must be one of {get_args(Partial)}, got {self.partial!r}")
        if self.fill not in get_args(Fill):
            raise InvalidArgumentError(
                f"fill must be one of {get_args(Fill)}, got {self.fill!r}")
        for name in ("centrality", "brevity"):
            value = getattr(self, name)
            if (not isinstance(value, (int, float)) or isinstance(value, bool)
                    or not 0 <= value < float("inf")):
                raise InvalidArgumentError(f"{name} must be a non-negative number, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RetrieverOptions:
        """Options from a dict; unknown keys are an error naming them."""
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise InvalidArgumentError(f"unknown retriever option(s): {sorted(unknown)}")
        return cls(**data)


class Retriever:
    """Structure-grounded retriever over a :class:`~sgkr.graph.KnowledgeGraph`.

    Parameters
    ----------
    graph
        The knowledge–code graph. It is read, never changed, so one retriever
        can serve many threads.
    tag_extractor
        A callable ``question -> tag matches or labels``; default: folded
        vocabulary matching (:class:`~sgkr.tags.VocabularyMatcher`).
    fallback
        Called as ``fallback(question, k)`` when no tag matches; returns
        function node ids. Without one, such a question is answered by the
        lexical seeds and the walk (``fill``), or retrieves nothing when both
        are off.
    **options
        Any field of :class:`RetrieverOptions` (``k``, ``max_depth``, ...).
    """

    def __init__(self, graph: KnowledgeGraph, *, tag_extractor: TagExtractor | None = None,
                 fallback: Fallback | None = None, **options: Any) -> None:
        if not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
        if tag_extractor is not None and not callable(tag_extractor):
            raise InvalidArgumentError("tag_extractor must be callable")
        if fallback is not None and not callable(fallback):
            raise InvalidArgumentError("fallback must be callable")
        self.graph = graph
        self.options = RetrieverOptions.from_dict(options)
        self.tag_extractor = tag_extractor
        self.fallback = fallback
        self._matcher = VocabularyMatcher(graph)
        self._index = SearchIndex(graph)
        self._tables = _Tables(graph)

    @property
    def k(self) -> int:
        """The default number of functions returned."""
        return self.options.k

    def with_options(self, **options: Any) -> Retriever:
        """A retriever over the same graph with some options changed."""
        clone = Retriever.__new__(Retriever)
        clone.graph, clone.tag_extractor, clone.fallback = (
            self.graph, self.tag_extractor, self.fallback)
        clone._matcher, clone._index, clone._tables = self._matcher, self._index, self._tables
        clone.options = replace(self.options, **options)
        return clone

    def match(self, question: str) -> list[TagMatch]:
        """The tags of ``question``, from the tag extractor."""
        if self.tag_extractor is None:
            return self._matcher(question)
        return resolve_labels(self._matcher, self.graph, question, self.tag_extractor(question))

    def retrieve(self, question: str, k: int | None = None) -> RetrievalResult:
        """Retrieve the functions on the dependency paths of ``question``.

        Parameters
        ----------
        question
            The natural-language question.
        k
            Most functions returned (default: the retriever's ``k``).

        Returns
        -------
        RetrievalResult
            Documents best first (scores in (0, 1]), the matched tags and the paths.

            An empty (or blank) question retrieves nothing, as a vector
            retriever's does.

        Raises
        ------
        InvalidArgumentError
            If ``question`` is not a string, or ``k`` is not positive.
        """
        if not isinstance(question, str):
            raise InvalidArgumentError(
                f"question must be a string, got {type(question).__name__}")
        limit = self.options.k if k is None else k
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")
        if not question.strip():
            return RetrievalResult(question=question, documents=())
        matches = self.match(question)
        o = self.options
        if not matches and (self.fallback is not None or (o.fill == "none" and not o.lexical)):
            return self._fallback(question, limit)
        inputs, outputs = split_roles(question, matches)
        paths: list[tuple[str, ...]] = []
        # Every table this query might need, so that the first use is not in a later query.
        self._index.prepare(reverse_calls=o.reverse_calls,
                            connect=o.partial == "connect" or o.fill == "ppr")
        self._tables.prepare(lexical=o.lexical, fill=o.fill == "ppr")
        if matches:
            paths = find_paths(self.graph, inputs, outputs, max_depth=o.max_depth,
                               max_paths=o.max_paths, reverse_calls=o.reverse_calls,
                               index=self._index)
            if not paths and o.partial == "connect" and len(matches) > 1:
                paths = connect_paths(self.graph, [m.tag_id for m in matches],
                                      max_depth=o.max_depth, max_paths=o.max_paths,
                                      index=self._index)
            if not paths and o.partial != "none":
                paths = self._nearest(inputs, outputs)
        ranked = self._rank(paths, limit)
        if len(ranked) < limit and (o.fill == "ppr" or o.lexical):
            ranked = self._fill(question, matches, ranked, limit)
        return RetrievalResult(
            question=question,
            documents=make_documents(self.graph, ranked, paths,
                                     include_knowledge=o.include_knowledge),
            tags=tuple(matches),
            paths=tuple(paths),
            inputs=tuple(self.graph.tag(t).label for t in inputs),
            outputs=tuple(self.graph.tag(t).label for t in outputs),
            fallback_used=not paths and bool(ranked),
        )

    async def aretrieve(self, question: str, k: int | None = None) -> RetrievalResult:
        """:meth:`retrieve` in a worker thread, for async callers."""
        return await asyncio.to_thread(self.retrieve, question, k)

    def export(self, question: str | None = None, format: str = "html",
               **options: Any) -> str:
        """The picture of the graph, with the retrieval of ``question`` highlighted.

        The one export helper of the core and of both adapters
        (``retriever.core.export(question)``): it retrieves ``question`` afresh,
        so it draws exactly what that question gets, whatever ran in between.

        Parameters
        ----------
        question
            The question whose tags, functions and paths are highlighted
            (``None``: the graph, nothing highlighted).
        format, **options
            As for :func:`sgkr.export.render` (``around``, ``depth``, ``focus``).

        Examples
        --------
        >>> from sgkr import build_graph
        >>> r = Retriever(build_graph([("m.py", "def f():\\n    return 1\\n")]))
        >>> r.export("Which f?", "mermaid").splitlines()[0]
        'flowchart TD'
        """
        result = None if question is None else self.retrieve(question)
        return render(self.graph, result, format, **options)

    # -- internals -----------------------------------------------------------------

    def _nearest(self, inputs: Sequence[str], outputs: Sequence[str]) -> list[tuple[str, ...]]:
        paths: list[tuple[str, ...]] = [(t, f) for t in inputs for f in self.graph.consumers(t)]
        paths += [(f, t) for t in outputs for f in self.graph.producers(t)]
        return sorted(set(paths))

    def _rank(self, paths: Sequence[tuple[str, ...]], limit: int) -> list[tuple[str, float]]:
        weight: dict[str, float] = defaultdict(float)
        first: dict[str, tuple[int, int]] = {}
        is_function: dict[str, bool] = {}  # a node recurs on many paths: look it up once
        for index, path in enumerate(paths):
            for position, node in enumerate(path):
                known = is_function.get(node)
                if known is None:
                    known = is_function[node] = self.graph.node_type(node) == "function"
                if known:
                    weight[node] += 1.0 / len(path)
                    first.setdefault(node, (index, position))
        dropped: set[str] = set()
        scripts_left = self.options.scripts

        def admit(nodes: list[str]) -> list[str]:
            """``nodes`` less the module bodies over the ``scripts`` cap (those go to dropped)."""
            nonlocal scripts_left
            kept: list[str] = []
            for node in nodes:
                if self.graph.function(node).kind == "module":
                    if scripts_left == 0:
                        dropped.add(node)
                        continue
                    scripts_left -= 1
                kept.append(node)
            return kept

        order = admit(sorted(weight, key=lambda n: (-weight[n], first[n], n)))
        top = max(weight.values(), default=1.0)
        score = {n: weight[n] / top for n in weight}
        # A module body left out still leads to the functions it calls.
        frontier = sorted(weight, key=lambda n: (-weight[n], first[n], n))
        for _ in range(self.options.callees):
            if len(order) >= limit or not frontier:
                break
            # Each layer of callees scores below the layer that calls it, so scores
            # fall with rank and a score cut-off keeps what SGKR ranks first.
            floor = min(score[n] for n in frontier)
            best: dict[str, float] = {}
            for node in frontier:
                for callee in self.graph.callees(node):
                    if callee not in score and callee not in dropped:
                        best[callee] = max(best.get(callee, 0.0), score[node])
            frontier = admit(sorted(best, key=lambda n: (-best[n], n)))
            most = max((best[n] for n in frontier), default=1.0)
            score.update({n: floor * _CALLEE_WEIGHT * best[n] / most for n in frontier})
            order += frontier
        return [(n, max(round(score[n], 6), 1e-6)) for n in order[:limit]]

    def _fill(self, question: str, matches: Sequence[TagMatch],
              ranked: list[tuple[str, float]], limit: int) -> list[tuple[str, float]]:
        """``ranked`` and, after it, the walk's functions (the lexical ones with fill off)."""
        o = self.options
        taken = {n for n, _ in ranked}
        kind = self._tables.kinds()
        scripts_left = o.scripts - sum(1 for n in taken if kind[n] == "module")
        hits = self._tables.lexical().search(question, limit) if o.lexical else []
        if o.fill == "none":
            if ranked:
                return ranked
            scored = dict(hits)
        else:
            seeds: dict[str, float] = defaultdict(float)
            for m in matches:
                seeds[m.tag_id] += 1.0
            for node, score in (*ranked, *hits):
                seeds[node] += score
            walk = personalized_pagerank(self._index.moves("any"), seeds)
            central = self._tables.centrality()
            size = self._tables.sizes()
            scored = {n: v * (1.0 + o.centrality * central[n]) / size[n] ** o.brevity
                      for n, v in walk.items() if n in central}
        order = sorted((n for n in scored if n not in taken), key=lambda n: (-scored[n], n))
        if o.fill == "ppr":  # the most-called functions, when the walk reached too few
            order += [n for n in self._tables.central_order() if n not in scored]
        floor = min((s for _, s in ranked), default=1.0 / _FILL_WEIGHT) * _FILL_WEIGHT
        top = max((scored[n] for n in order if n in scored), default=1.0) or 1.0
        out = list(ranked)
        for node in order:
            if len(out) >= limit:
                break
            if node in taken:
                continue
            if kind[node] == "module":
                if scripts_left <= 0:
                    continue
                scripts_left -= 1
            out.append((node, max(round(floor * scored.get(node, 0.0) / top, 6), 1e-6)))
            taken.add(node)
        return out

    def _fallback(self, question: str, limit: int) -> RetrievalResult:
        if self.fallback is None:
            return RetrievalResult(question=question, documents=())
        ids = [i for i in self.fallback(question, limit) if i in self.graph][:limit]
        ranked = [(node_id, round(1.0 / (rank + 1), 6)) for rank, node_id in enumerate(ids)]
        docs = make_documents(self.graph, ranked, (),
                              include_knowledge=self.options.include_knowledge)
        return RetrievalResult(question=question, documents=docs, fallback_used=True)


class _Tables:
    """What the fill reads of a graph, computed on first use and shared by clones."""

    def __init__(self, graph: KnowledgeGraph) -> None:
        self.graph = graph
        self._lock = threading.Lock()
        self._lexical: LexicalIndex | None = None
        self._centrality: dict[str, float] | None = None
        self._order: list[str] | None = None
        self._kinds: dict[str, FunctionKind] | None = None
        self._sizes: dict[str, float] | None = None

    def __getstate__(self) -> dict[str, KnowledgeGraph]:
        # A copy (pickle, deepcopy) recomputes the tables on first use; a lock is not copied.
        return {"graph": self.graph}

    def __setstate__(self, state: dict[str, KnowledgeGraph]) -> None:
        self.graph = state["graph"]
        self._lock = threading.Lock()
        self._lexical = self._centrality = self._order = self._kinds = self._sizes = None

    def prepare(self, *, lexical: bool, fill: bool) -> None:
        """Make now what a query with these options reads."""
        self.kinds()
        if lexical:
            self.lexical()
        if fill:
            self.central_order()
            self.sizes()

    def lexical(self) -> LexicalIndex:
        if self._lexical is None:
            with self._lock:
                if self._lexical is None:
                    self._lexical = LexicalIndex(self.graph)
        return self._lexical

    def centrality(self) -> dict[str, float]:
        if self._centrality is None:
            with self._lock:
                if self._centrality is None:
                    self._centrality = call_centrality(self.graph)
        return self._centrality

    def central_order(self) -> list[str]:
        """Function ids, most-called first (ties by id)."""
        if self._order is None:
            central = self.centrality()
            order = sorted(central, key=lambda n: (-central[n], n))
            with self._lock:
                self._order = order
        return self._order

    def sizes(self) -> dict[str, float]:
        """Each function node's length (its text's characters) over the mean length."""
        if self._sizes is None:
            lengths = {f.id: len(f.text) for f in self.graph.functions()}
            mean = sum(lengths.values()) / max(len(lengths), 1) or 1.0
            sizes = {n: max(v, 1) / mean for n, v in lengths.items()}
            with self._lock:
                self._sizes = sizes
        return self._sizes

    def kinds(self) -> dict[str, FunctionKind]:
        """The kind of each function node (``function``, ``method``, ``module``, ...)."""
        if self._kinds is None:
            kinds: dict[str, FunctionKind] = {f.id: f.kind for f in self.graph.functions()}
            with self._lock:
                self._kinds = kinds
        return self._kinds
