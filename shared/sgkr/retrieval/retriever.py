"""The retriever: question → I/O tags → dependency paths → ranked knowledge and code.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.analysis.knowledge import Sidecar, FunctionKnowledge
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
import math
import threading
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, cast, get_args

from ..algorithms.lexical import LexicalIndex, index_of
from ..algorithms.walk import centrality_prior, personalized_pagerank
from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import EdgeType, RetrievalResult, TagMatch
from ..stores import GraphReader, GraphStore, MemoryStore, Side, open_store
from .context import make_documents
from .filters import compile_filter, filter_values
from .mentions import mentions
from .options import DEFAULT_K, OPTIONS, RetrieverOptions
from .question import check_question
from .seeds import as_seed_retriever, seed_functions
from .tagmatch import WeightedMatcher, names_tag
from .tags import TagExtractor, VocabularyMatcher, resolve_labels, split_roles

__all__ = ["Retriever", "RetrieverOptions", "Fallback", "DEFAULT_K"]

#: A fallback retriever: the question and k in, function node ids out, best first.
Fallback = Callable[[str, int], Sequence[str]]
#: The built-in tag extractors: scored matching (default), the paper's keywords, embeddings.
Extractor = Literal["weighted", "keyword", "embedding"]
_CALLEE_WEIGHT = 0.5
_FILL_WEIGHT = 0.5
#: The first stage's hits the graph stage scores, and the best of them that seed the walk.
_POOL = 100
_SEEDS = DEFAULT_K
#: How sure the graph stage takes a seed retriever to be (see Retriever._first_stage).
_SEEDED = 0.5
_WALKED: tuple[EdgeType, ...] = ("calls", "references", "consumes", "produces")


class Retriever:
    """Structure-grounded retriever over a knowledge–code graph or a graph store.

    Parameters
    ----------
    graph
        The knowledge–code graph, in memory. It is read, never changed, so one
        retriever can serve many threads.
    store
        Instead of ``graph``: a :class:`~sgkr.stores.base.GraphStore`, or the URL
        of one (``falkor://host:port/name``, see ``sgkr push``). The graph
        stays in the store; each question reads one version of it in a few
        batched queries, with the same answers as from the graph in memory.
    tag_extractor
        ``"weighted"`` (default): exact phrases, other forms of words and
        partial phrases, each match scored (:class:`~sgkr.retrieval.tagmatch.WeightedMatcher`);
        ``"keyword"``: the paper's folded keyword matching
        (:class:`~sgkr.retrieval.tags.VocabularyMatcher`); ``"embedding"``: weighted
        matching and, for the words it leaves, the tags nearest to the
        question's phrases by ``embedding_model``
        (:class:`~sgkr.retrieval.tagembed.EmbeddingMatcher`); or a callable
        ``question -> tag matches or labels``.
    fallback
        Called as ``fallback(question, k)`` when the question names no tag
        (:func:`~sgkr.retrieval.tagmatch.names_tag`); returns function node ids. Without
        one, such a question is answered by the lexical seeds and the walk
        (``fill``), or retrieves nothing when both are off.
    seed_retriever
        The first stage in place of the built-in BM25: a LangChain or LlamaIndex
        retriever (a vector store's, say) or a callable ``question -> results``;
        its results, mapped onto the graph's functions
        (:mod:`sgkr.retrieval.seeds`), seed the graph stage.
    embedding_model
        For ``tag_extractor="embedding"``: any embedding model
        :func:`sgkr.retrieval.embeddings.as_embedding_model` accepts (LlamaIndex,
        LangChain, sentence-transformers, a callable); default: the offline
        all-MiniLM-L6-v2 of the ``eval`` extra.
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
                 tag_extractor: TagExtractor | Extractor | None = None,
                 fallback: Fallback | None = None, seed_retriever: Any = None,
                 embedding_model: Any = None, **options: Any) -> None:
        if (graph is None) == (store is None):
            raise InvalidArgumentError("give a graph or a store (exactly one)")
        if graph is not None and not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
        if store is not None and not isinstance(store, (str, GraphStore)):
            raise InvalidArgumentError(
                f"store must be a GraphStore or a store URL, got {type(store)}")
        if isinstance(tag_extractor, str) and tag_extractor not in get_args(Extractor):
            raise InvalidArgumentError(f"tag_extractor must be one of {get_args(Extractor)} "
                                       f"or a callable, got {tag_extractor!r}")
        if tag_extractor is not None and not isinstance(tag_extractor, str) \
                and not callable(tag_extractor):
            raise InvalidArgumentError("tag_extractor must be callable")
        if fallback is not None and not callable(fallback):
            raise InvalidArgumentError("fallback must be callable")
        self.options = RetrieverOptions.from_dict(options)
        if isinstance(store, str):
            store = open_store(store)
        self.store: GraphStore = (MemoryStore(graph) if graph is not None
                                  else cast(GraphStore, store))
        self.fallback = fallback
        self.seed_retriever = seed_retriever  # as given (adapters compare it)
        self._seeds = None if seed_retriever is None else as_seed_retriever(seed_retriever)
        self._tables = (_Tables(self.store) if isinstance(self.store, MemoryStore)
                        else None)
        self.tag_extractor = tag_extractor  # as given (adapters compare it)
        self._extractor: TagExtractor | Extractor = tag_extractor or "weighted"
        if tag_extractor == "embedding":
            from .tagembed import EmbeddingMatcher

            self._extractor = EmbeddingMatcher(self.store.reader(), embedding_model)

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
        clone.store, clone.tag_extractor, clone.fallback, clone._tables = (
            self.store, self.tag_extractor, self.fallback, self._tables)
        clone.seed_retriever, clone._seeds = self.seed_retriever, self._seeds
        clone._extractor = self._extractor
        clone.options = replace(self.options, **options)
        return clone

    def match(self, question: str) -> list[TagMatch]:
        """The tags of ``question``, from the tag extractor."""
        return self._match(check_question(question), self.store.reader())

    def _match(self, question: str, reader: GraphReader) -> list[TagMatch]:
        extractor = self._extractor
        if extractor == "weighted":
            return (self._tables.matcher() if self._tables is not None
                    else WeightedMatcher(reader))(question)
        matcher = VocabularyMatcher(reader)
        if isinstance(extractor, str):  # "keyword" ("embedding" is a matcher by now)
            return matcher(question)
        return resolve_labels(matcher, reader, question, extractor(question))

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
            If ``question`` is not a string or is longer than
            :data:`~sgkr.retrieval.question.MAX_QUESTION_CHARS`, or ``k`` is not positive.
        StoreError
            If the graph store fails while answering (no partial answer is returned).
        """
        check_question(question)
        limit = self.options.k if k is None else k
        OPTIONS["k"].validate(limit)
        if not question.strip():
            return RetrievalResult(question=question, documents=())
        o = self.options
        self.prepare()
        reader = self.store.reader()  # one version of the graph for the whole question
        matches = self._specific(reader, self._match(question, reader))
        # Paths join the tags the question names; a tag it names in part only seeds the walk.
        named = [m for m in matches if names_tag(m)]
        first = o.lexical or self._seeds is not None  # a first stage to answer without tags
        if not named and (self.fallback is not None or (o.fill == "none" and not first)):
            return self._fallback(reader, question, limit)
        inputs, outputs = split_roles(question, named)
        paths: list[tuple[str, ...]] = []
        if named and (o.inferred == "paths" or self._curated(reader)):
            paths = reader.find_paths(inputs, outputs, max_depth=o.max_depth,
                                      max_paths=o.max_paths, reverse_calls=o.reverse_calls)
            if not paths and o.partial == "connect" and len(named) > 1:
                paths = reader.connect_paths([m.tag_id for m in named],
                                             max_depth=o.max_depth, max_paths=o.max_paths)
            if not paths and o.partial != "none":
                paths = self._nearest(reader, inputs, outputs)
        keep = self._filter(reader, paths)
        ranked = self._rank(reader, paths, limit, keep, {m.tag_id: m.score for m in matches})
        if len(ranked) < limit and (o.fill == "ppr" or first):
            ranked = self._fill(reader, question, matches, ranked, limit, keep)
        label = {t: info.label for t, info in reader.tags([*inputs, *outputs]).items()}
        return RetrievalResult(
            question=question,
            documents=make_documents(reader, ranked, paths,
                                     include_knowledge=o.include_knowledge),
            tags=tuple(matches),
            paths=tuple(paths),
            inputs=tuple(label[t] for t in inputs),
            outputs=tuple(label[t] for t in outputs),
            fallback_used=not paths and bool(ranked),
        )

    def prepare(self) -> None:
        """Make now every table a question with these options reads (a graph in memory).

        A retriever makes them on its first question otherwise; a server calls
        this before it accepts questions, so that the first one is as fast as
        the next. Clones made by :meth:`with_options` share the tables.
        """
        o = self.options
        if isinstance(self.store, MemoryStore) and self._tables is not None:
            # The path search's tables, where paths are searched (curated tags).
            paths = o.inferred == "paths" or self._curated(self.store)
            self.store.prepare(reverse_calls=o.reverse_calls, connect=o.partial == "connect",
                               paths=paths)
            self._tables.prepare(lexical=o.lexical and self._seeds is None)

    async def aretrieve(self, question: str, k: int | None = None) -> RetrievalResult:
        """:meth:`retrieve` in a worker thread, for async callers."""
        return await asyncio.to_thread(self.retrieve, question, k)

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
              keep: Callable[[list[str]], set[str]] | None = None,
              sure: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
        weight: dict[str, float] = defaultdict(float)
        first: dict[str, tuple[int, int]] = {}
        kinds = reader.kinds({node for path in paths for node in path})
        sure = sure or {}
        for index, path in enumerate(paths):
            # A path counts as much as its matched end tags are sure (their mean score).
            ends = [sure[n] for n in {path[0], path[-1]} if n in sure]
            share = (sum(ends) / len(ends) if ends else 1.0) / len(path)
            for position, node in enumerate(path):
                if kinds[node] != "tag":
                    weight[node] += share
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

        frontier = sorted(weight, key=lambda n: (-weight[n], first[n], n))
        admit(frontier)
        top = max(weight.values(), default=1.0)
        score = {n: weight[n] / top for n in weight}
        # A module body left out still leads to the functions it calls.
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
        return [(n, max(round(score[n], 6), 1e-6)) for n in shown[:limit]]

    def _fill(self, reader: GraphReader, question: str, matches: Sequence[TagMatch],
              ranked: list[tuple[str, float]], limit: int,
              keep: Callable[[list[str]], set[str]] | None) -> list[tuple[str, float]]:
        """``ranked`` and, after it, the graph stage's functions (see :meth:`_scores`)."""
        o = self.options
        taken = {n for n, _ in ranked}
        kinds: dict[str, str] = dict(reader.kinds(taken))
        scripts_left = o.scripts - sum(1 for n in taken if kinds.get(n) == "module")
        if o.fill == "none" and ranked:
            return ranked
        scored = self._scores(reader, question, matches, ranked)
        kinds.update(reader.kinds([n for n in scored if n not in kinds]))
        order = sorted((n for n in scored if n not in taken and kinds.get(n, "tag") != "tag"),
                       key=lambda n: (-scored[n], n))
        if o.fill == "ppr":  # the most-called functions, when the walk reached too few
            order += [n for n in self._most_called(reader, 4 * limit + len(taken) + len(scored))
                      if n not in scored]
        floor = min((s for _, s in ranked), default=1.0 / _FILL_WEIGHT) * _FILL_WEIGHT
        top = max((scored[n] for n in order if n in scored), default=1.0) or 1.0
        out = list(ranked)
        for start in range(0, len(order), limit):  # read the filter's records in batches
            batch = [n for n in order[start : start + limit] if n not in taken]
            passing = set(batch) if keep is None else keep(batch)
            kinds.update(reader.kinds([n for n in batch if n not in kinds]))
            for node in batch:
                if len(out) >= limit:
                    return out
                if node not in passing:
                    continue
                if kinds.get(node) == "module":
                    if scripts_left <= 0:
                        continue
                    scripts_left -= 1
                out.append((node, max(round(floor * scored.get(node, 0.0) / top, 6), 1e-6)))
                taken.add(node)
            if len(out) >= limit:
                break
        return out

    def _scores(self, reader: GraphReader, question: str, matches: Sequence[TagMatch],
                ranked: list[tuple[str, float]]) -> dict[str, float]:
        """The graph stage's score of each function it reaches, whatever ``k``.

        ``sure`` times the first stage's hits (the best 1) and ``1 - sure`` times
        ``walk`` times the walk's score (a personalized PageRank from the
        matched tags, the path functions, the best hits and the named
        functions, times the centrality prior, over the length to the
        ``brevity``; the best 1), where ``sure`` is how sure the first stage is
        (:meth:`_first_stage`); plus ``mentions`` times the mention scores of
        the functions the question names (the best 1), plus ``reuse`` times the
        share of the calling functions that call it (the helpers everything
        reuses). The pools are fixed, so the order never depends on ``k``.
        """
        o = self.options
        hits, sure = self._first_stage(reader, question)
        named = mentions(question, reader) if o.mentions else {}
        walk = self._walk(reader, matches, ranked, hits, named) if o.fill == "ppr" else {}
        central = self._most_called(reader, _POOL) if o.fill == "ppr" and o.reuse else []
        kinds = reader.kinds({*walk, *central})
        found = [n for n in {**walk, **dict.fromkeys(central)} if kinds.get(n, "tag") != "tag"]
        callers, size = self._callers_and_sizes(reader, found)
        walked = {n: walk[n] * (1.0 + o.centrality * centrality_prior(callers[n]))
                  / size[n] ** o.brevity for n in found if n in walk}
        calling = self._calling(reader) if central else 0
        reused = {n: callers[n] / calling for n in central if n in callers} if calling else {}
        out = _fused({}, ((sure, hits), (o.mentions, named),
                          ((1.0 - sure) * o.walk if o.fill == "ppr" else 0.0, walked)))
        for node, share in reused.items():
            out[node] = out.get(node, 0.0) + o.reuse * share
        return out

    def _first_stage(self, reader: GraphReader,
                     question: str) -> tuple[dict[str, float], float]:
        """The first stage's hits and how sure it is of them, from 0 to 1.

        BM25 is as sure as its best score ``s`` says: ``s / (s + evidence)``; a
        question of a few words matches weakly (``s`` near 10), a bug report that
        names the code strongly (``s`` in the hundreds). A seed retriever's scores
        say nothing of the kind: it is taken as half sure.
        """
        if self._seeds is not None:
            return dict(seed_functions(self._seeds(question), reader)[:_POOL]), _SEEDED
        if not self.options.lexical:
            return {}, 0.0
        found = dict(self._lexical(reader, question, _POOL))
        top = max(found.values(), default=0.0)
        return found, top / (top + self.options.evidence) if top > 0 else 0.0

    def _walk(self, reader: GraphReader, matches: Sequence[TagMatch],
              ranked: list[tuple[str, float]], hits: Mapping[str, float],
              named: Mapping[str, float]) -> dict[str, float]:
        """The personalized PageRank walk from the question's seeds (tags and functions)."""
        seeds: dict[str, float] = defaultdict(float)
        # Each kind of seed (matched tags, path functions, lexical matches, named functions)
        # gets an equal share of the restart mass, split within it by score (a tag's: how
        # sure its match is times how specific the tag is): five generic tags do not drown
        # the one function named like the question, nor the reverse.
        specific = reader.tags([m.tag_id for m in matches]) if matches else {}
        tags = [(m.tag_id, m.score * (specific[m.tag_id].weight if m.tag_id in specific
                                      else 1.0)) for m in matches]
        best = sorted(hits.items(), key=lambda item: (-item[1], item[0]))[:_SEEDS]
        for group in (tags, ranked, best, sorted(named.items())):
            total = sum(score for _, score in group)
            for node, score in group:
                seeds[node] += score / total if total else 0.0
        return personalized_pagerank(self._neighbours(reader), seeds)

    @staticmethod
    def _calling(reader: GraphReader) -> int:
        """How many functions call some function (the reuse prior's denominator)."""
        calling = getattr(reader, "calling_count", None)  # both stores offer it
        return int(calling()) if callable(calling) else 0

    def _curated(self, reader: GraphReader) -> bool:
        """Whether the graph's tags may be curated (its meta ``curated_tags``, default true)."""
        if isinstance(self.store, MemoryStore):
            return bool(self.store.graph.meta.get("curated_tags", True))
        curated = getattr(reader, "curated_tags", None)  # a store may have it pushed
        return bool(curated()) if callable(curated) else True

    def _specific(self, reader: GraphReader, matches: list[TagMatch]) -> list[TagMatch]:
        """``matches`` less the tags too common to say what a question is about.

        A tag's specificity is ``log((n + 1) / (d + 1)) / log(n + 1)`` for ``n``
        functions and ``d`` functions consuming or producing it (an inverse
        document frequency, scaled to [0, 1]); tags below the ``specificity``
        option are dropped (``get``, ``data`` or ``self`` inferred on every
        function say nothing).
        """
        threshold = self.options.specificity
        if not matches or not threshold:
            return matches
        n = self._function_count(reader)
        if n is None or n < 2:
            return matches
        ids = [m.tag_id for m in matches]
        consumers = reader.neighbours(ids, "consumes", "out")
        producers = reader.neighbours(ids, "produces", "in")
        top = math.log(n + 1)
        kept = []
        for m in matches:
            degree = len(set(consumers.get(m.tag_id, ())) | set(producers.get(m.tag_id, ())))
            if math.log((n + 1) / (degree + 1)) / top >= threshold:
                kept.append(m)
        return kept

    @staticmethod
    def _function_count(reader: GraphReader) -> int | None:
        count = getattr(reader, "function_count", None)  # both stores offer it
        return int(count()) if callable(count) else None

    @staticmethod
    def _most_called(reader: GraphReader, n: int) -> list[str]:
        most_called = getattr(reader, "most_called", None)  # both stores offer it
        return list(most_called(n)) if callable(most_called) else []

    def _lexical(self, reader: GraphReader, question: str, k: int) -> list[tuple[str, float]]:
        """The first stage's ``k`` best hits, with their BM25 scores (not scaled)."""
        if self._tables is not None:
            return self._tables.lexical().search(question, k, scaled=False)
        search = getattr(reader, "lexical_search", None)  # a store may offer one
        return list(search(question, k, scaled=False)) if callable(search) else []

    @staticmethod
    def _neighbours(reader: GraphReader) -> Callable[[list[str]], dict[str, tuple[str, ...]]]:
        """The walk's moves: every edge, either way (one batch of reads a round)."""
        around = getattr(reader, "around", None)  # a store may read them in one query
        if callable(around):
            return lambda ids: dict(around(ids))

        def read(ids: list[str]) -> dict[str, tuple[str, ...]]:
            found: dict[str, set[str]] = defaultdict(set)
            for edge_type in _WALKED:
                for side in get_args(Side):
                    for node, others in reader.neighbours(ids, edge_type, side).items():
                        found[node].update(others)
            return {n: tuple(sorted(v)) for n, v in found.items()}

        return read

    @staticmethod
    def _callers_and_sizes(reader: GraphReader, ids: list[str],
                           ) -> tuple[dict[str, int], dict[str, int]]:
        """Each function's number of callers and its text's length."""
        pushed = getattr(reader, "callers_and_sizes", None)  # both stores offer it
        if callable(pushed):
            found: tuple[dict[str, int], dict[str, int]] = pushed(ids)
            return found
        called = reader.neighbours(ids, "calls", "in")
        records = reader.functions(ids)
        return ({n: len(called.get(n, ())) for n in ids},
                {n: max(len(records[n].text), 1) for n in ids})

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


def _fused(hits: Mapping[str, float],
           weighted: Sequence[tuple[float, Mapping[str, float]]]) -> dict[str, float]:
    """``hits`` plus, for each ``(weight, scores)``, ``weight`` times the scores over their best.

    Examples
    --------
    >>> _fused({"a": 1.0, "b": 0.5}, [(0.5, {"b": 2.0}), (0.1, {"c": 4.0, "a": 2.0})])
    {'a': 1.05, 'b': 1.0, 'c': 0.1}
    """
    out: dict[str, float] = dict(hits)
    for weight, scores in weighted:
        top = max(scores.values(), default=0.0)
        if weight and top > 0:
            for node, score in scores.items():
                out[node] = out.get(node, 0.0) + weight * score / top
    return out


class _Tables:
    """What a retriever reads of a graph in memory beyond the store: its tag matcher and its
    lexical index, made on first use and shared by clones."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._lexical: LexicalIndex | None = None
        self._matcher: WeightedMatcher | None = None

    def __getstate__(self) -> dict[str, MemoryStore]:
        # A copy (pickle, deepcopy) remakes the tables on first use; a lock is not copied.
        return {"store": self.store}

    def __setstate__(self, state: dict[str, MemoryStore]) -> None:
        self.__init__(state["store"])  # type: ignore[misc]

    def prepare(self, *, lexical: bool) -> None:
        """Make now what a query with these options reads."""
        self.matcher().prepare()
        if lexical:
            self.lexical()

    def matcher(self) -> WeightedMatcher:
        """The default tag extractor over this graph (its vocabulary read once)."""
        if self._matcher is None:
            with self._lock:
                if self._matcher is None:
                    self._matcher = WeightedMatcher(self.store)
        return self._matcher

    def lexical(self) -> LexicalIndex:
        """The graph's lexical index (:func:`~sgkr.algorithms.lexical.index_of`)."""
        if self._lexical is None:
            with self._lock:
                if self._lexical is None:
                    self._lexical = index_of(self.store.graph)
        return self._lexical
