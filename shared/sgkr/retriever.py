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
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, cast, get_args

from .context import make_documents
from .errors import InvalidArgumentError
from .export import render
from .filters import compile_filter, filter_values
from .graph import KnowledgeGraph
from .records import RetrievalResult, TagMatch
from .search import DEFAULT_MAX_DEPTH, DEFAULT_MAX_PATHS
from .stores import GraphReader, GraphStore, MemoryStore, open_store
from .tags import TagExtractor, VocabularyMatcher, resolve_labels, split_roles

__all__ = ["Retriever", "RetrieverOptions", "Fallback", "DEFAULT_K"]

DEFAULT_K = 8
#: A fallback retriever: the question and k in, function node ids out, best first.
Fallback = Callable[[str, int], Sequence[str]]
Partial = Literal["connect", "nearest", "none"]
_CALLEE_WEIGHT = 0.5


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
    filter
        Only functions whose metadata passes this filter are returned, with
        the budget ``k`` spent on them (see :mod:`sgkr.filters`: ``file``,
        ``kind``, ``name``, ``matched_tags``); the others still lead to their
        callees. ``None``: no filter.
    """

    k: int = DEFAULT_K
    max_depth: int = DEFAULT_MAX_DEPTH
    max_paths: int = DEFAULT_MAX_PATHS
    reverse_calls: bool = True
    callees: int = 2
    partial: Partial = "connect"
    include_knowledge: bool = True
    scripts: int = 1
    filter: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        for name in ("k", "max_depth", "max_paths", "callees", "scripts"):
            value = getattr(self, name)
            low = 0 if name in ("callees", "scripts") else 1
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise InvalidArgumentError(
                    f"{name} must be an integer of at least {low}, got {value!r}")
        for name in ("reverse_calls", "include_knowledge"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidArgumentError(f"{name} must be True or False")
        if self.partial not in get_args(Partial):
            raise InvalidArgumentError(
                f"partial must be one of {get_args(Partial)}, got {self.partial!r}")
        if self.filter is not None:
            compile_filter(self.filter)

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
    """Structure-grounded retriever over a knowledge–code graph or a graph store.

    Parameters
    ----------
    graph
        The knowledge–code graph, in memory. It is read, never changed, so one
        retriever can serve many threads.
    store
        Instead of ``graph``: a :class:`~sgkr.stores.base.GraphStore`, or the URL
        of one (``falkordb://host:port/name``, see ``sgkr push``). The graph
        stays in the store; each question reads one version of it in a few
        batched queries, with the same answers as from the graph in memory.
    tag_extractor
        A callable ``question -> tag matches or labels``; default: folded
        vocabulary matching (:class:`~sgkr.tags.VocabularyMatcher`).
    fallback
        Called as ``fallback(question, k)`` when no tag matches; returns
        function node ids. Without one, such a question retrieves nothing.
    **options
        Any field of :class:`RetrieverOptions` (``k``, ``max_depth``, ...).

    Raises
    ------
    InvalidArgumentError
        If neither or both of ``graph`` and ``store`` are given, or an argument
        has the wrong type.
    StoreError
        If the store at a URL cannot be reached.
    """

    def __init__(self, graph: KnowledgeGraph | None = None, *,
                 store: GraphStore | str | None = None,
                 tag_extractor: TagExtractor | None = None,
                 fallback: Fallback | None = None, **options: Any) -> None:
        if (graph is None) == (store is None):
            raise InvalidArgumentError("give a graph or a store (exactly one)")
        if graph is not None and not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
        if store is not None and not isinstance(store, (str, GraphStore)):
            raise InvalidArgumentError(
                f"store must be a GraphStore or a store URL, got {type(store)}")
        if tag_extractor is not None and not callable(tag_extractor):
            raise InvalidArgumentError("tag_extractor must be callable")
        if fallback is not None and not callable(fallback):
            raise InvalidArgumentError("fallback must be callable")
        self.options = RetrieverOptions.from_dict(options)
        if isinstance(store, str):
            store = open_store(store)
        self.store: GraphStore = (MemoryStore(graph) if graph is not None
                                  else cast(GraphStore, store))
        self.tag_extractor = tag_extractor
        self.fallback = fallback

    @property
    def graph(self) -> KnowledgeGraph:
        """The graph in memory (a retriever over a server's store has none).

        Raises
        ------
        InvalidArgumentError
            If the retriever reads a store on a server.
        """
        if isinstance(self.store, MemoryStore):
            return self.store.graph
        raise InvalidArgumentError(
            f"this retriever reads the graph store {self.store.url}; it holds no graph")

    @property
    def k(self) -> int:
        """The default number of functions returned."""
        return self.options.k

    def with_options(self, **options: Any) -> Retriever:
        """A retriever over the same graph or store with some options changed."""
        clone = Retriever.__new__(Retriever)
        clone.store, clone.tag_extractor, clone.fallback = (
            self.store, self.tag_extractor, self.fallback)
        clone.options = replace(self.options, **options)
        return clone

    def match(self, question: str) -> list[TagMatch]:
        """The tags of ``question``, from the tag extractor."""
        return self._match(question, self.store.reader())

    def _match(self, question: str, reader: GraphReader) -> list[TagMatch]:
        matcher = VocabularyMatcher(reader)
        if self.tag_extractor is None:
            return matcher(question)
        return resolve_labels(matcher, reader, question, self.tag_extractor(question))

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
        StoreError
            If the graph store fails while answering (no partial answer is returned).
        """
        if not isinstance(question, str):
            raise InvalidArgumentError(
                f"question must be a string, got {type(question).__name__}")
        limit = self.options.k if k is None else k
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")
        if not question.strip():
            return RetrievalResult(question=question, documents=())
        o = self.options
        if isinstance(self.store, MemoryStore):
            # Every table this query might need, so the first fallback is not a slow query.
            self.store.prepare(reverse_calls=o.reverse_calls, connect=o.partial == "connect")
        reader = self.store.reader()  # one version of the graph for the whole question
        matches = self._match(question, reader)
        if not matches:
            return self._fallback(reader, question, limit)
        inputs, outputs = split_roles(question, matches)
        paths = reader.find_paths(inputs, outputs, max_depth=o.max_depth,
                                  max_paths=o.max_paths, reverse_calls=o.reverse_calls)
        if not paths and o.partial == "connect" and len(matches) > 1:
            paths = reader.connect_paths([m.tag_id for m in matches], max_depth=o.max_depth,
                                         max_paths=o.max_paths)
        if not paths and o.partial != "none":
            paths = self._nearest(reader, inputs, outputs)
        ranked = self._rank(reader, paths, limit, self._filter(reader, paths))
        label = {t: info.label for t, info in reader.tags([*inputs, *outputs]).items()}
        return RetrievalResult(
            question=question,
            documents=make_documents(reader, ranked, paths,
                                     include_knowledge=o.include_knowledge),
            tags=tuple(matches),
            paths=tuple(paths),
            inputs=tuple(label[t] for t in inputs),
            outputs=tuple(label[t] for t in outputs),
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

    @staticmethod
    def _nearest(reader: GraphReader, inputs: Sequence[str],
                 outputs: Sequence[str]) -> list[tuple[str, ...]]:
        consumers = reader.neighbours(inputs, "consumes", "out") if inputs else {}
        producers = reader.neighbours(outputs, "produces", "in") if outputs else {}
        paths: list[tuple[str, ...]] = [(t, f) for t in inputs for f in consumers.get(t, ())]
        paths += [(f, t) for t in outputs for f in producers.get(t, ())]
        return sorted(set(paths))

    def _filter(self, reader: GraphReader,
                paths: Sequence[tuple[str, ...]]) -> Callable[[list[str]], set[str]] | None:
        """The ids of a batch of function nodes that pass the filter option, if any."""
        if self.options.filter is None:
            return None
        rule = compile_filter(self.options.filter)
        ends = reader.tags({n for p in paths for n in (p[0], p[-1])}) if paths else {}
        tags_of: dict[str, dict[str, None]] = defaultdict(dict)
        for p in paths:  # as make_documents finds a document's matched tags
            labels = dict.fromkeys(ends[n].label for n in (p[0], p[-1]) if n in ends)
            for n in p:
                tags_of[n].update(labels)

        def passing(nodes: list[str]) -> set[str]:
            records = reader.functions(nodes)
            return {n for n, f in records.items() if rule(filter_values(f, tags_of.get(n, ())))}

        return passing

    def _rank(self, reader: GraphReader, paths: Sequence[tuple[str, ...]], limit: int,
              keep: Callable[[list[str]], set[str]] | None = None) -> list[tuple[str, float]]:
        weight: dict[str, float] = defaultdict(float)
        first: dict[str, tuple[int, int]] = {}
        kinds = reader.kinds({node for path in paths for node in path})
        for index, path in enumerate(paths):
            for position, node in enumerate(path):
                if kinds[node] != "tag":
                    weight[node] += 1.0 / len(path)
                    first.setdefault(node, (index, position))
        dropped: set[str] = set()
        scripts_left = self.options.scripts
        shown: list[str] = []  # what is returned: the admitted nodes that pass the filter

        def admit(nodes: list[str]) -> list[str]:
            """``nodes`` less the module bodies over the ``scripts`` cap (those go to dropped)."""
            nonlocal scripts_left
            passing = None if keep is None else keep(nodes)
            kept: list[str] = []
            for node in nodes:
                visible = passing is None or node in passing
                if visible and kinds[node] == "module":
                    if scripts_left == 0:
                        dropped.add(node)
                        continue
                    scripts_left -= 1
                kept.append(node)
                if visible:
                    shown.append(node)
            return kept

        order = admit(sorted(weight, key=lambda n: (-weight[n], first[n], n)))
        top = max(weight.values(), default=1.0)
        score = {n: weight[n] / top for n in order}
        frontier = order
        for _ in range(self.options.callees):
            if len(shown) >= limit or not frontier:
                break
            # Each layer of callees scores below the layer that calls it, so scores
            # fall with rank and a score cut-off keeps what SGKR ranks first.
            floor = min(score[n] for n in frontier)
            best: dict[str, float] = {}
            # Functions used as values (references) are followed as calls are.
            callees = reader.neighbours(frontier, "calls", "out")
            used = reader.neighbours(frontier, "references", "out")
            for node in frontier:
                for callee in (*callees[node], *used[node]):
                    if callee not in score and callee not in dropped:
                        best[callee] = max(best.get(callee, 0.0), score[node])
            kinds.update(reader.kinds(best))
            frontier = admit(sorted(best, key=lambda n: (-best[n], n)))
            most = max((best[n] for n in frontier), default=1.0)
            score.update({n: floor * _CALLEE_WEIGHT * best[n] / most for n in frontier})
            order += frontier
        return [(n, max(round(score[n], 6), 1e-6)) for n in shown[:limit]]

    def _fallback(self, reader: GraphReader, question: str, limit: int) -> RetrievalResult:
        if self.fallback is None:
            return RetrievalResult(question=question, documents=())
        found = list(self.fallback(question, limit))
        known = reader.kinds(found)
        ids = [i for i in found if i in known]
        keep = self._filter(reader, ())
        if keep is not None:
            passing = keep(ids)
            ids = [i for i in ids if i in passing]
        ids = ids[:limit]
        ranked = [(node_id, round(1.0 / (rank + 1), 6)) for rank, node_id in enumerate(ids)]
        docs = make_documents(reader, ranked, (),
                              include_knowledge=self.options.include_knowledge)
        return RetrievalResult(question=question, documents=docs, fallback_used=True)
