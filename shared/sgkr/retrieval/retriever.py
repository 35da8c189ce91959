"""The retriever: question → I/O tags → dependency paths → ranked knowledge and code.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.tags import Sidecar, FunctionKnowledge
>>> code = ("def fee(rule, amount):\\n    return rule['fixed'] + rule['rate'] * amount\\n"
...         "def avg_fee(rules, amount):\\n    return sum(fee(r, amount) for r in rules)\\n")
>>> side = Sidecar({"fee": FunctionKnowledge(inputs=("amount",)),
...                 "avg_fee": FunctionKnowledge(outputs=("average fee",))}, {})
>>> r = Retriever(build_graph([("fees.py", code)], knowledge=side))
>>> [d.name for d in r.retrieve("What is the average fee for an amount of 10?").documents]
['fee', 'avg_fee']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Literal, cast, get_args

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import RetrievalResult, RetrievedFunction, TagMatch
from ..stores import (
    GraphReader,
    GraphStore,
    MemoryStore,
    RankingReader,
    TasksReader,
    open_store,
)
from .context import USED_BY, make_documents
from .fill import fill_ranking
from .filters import names_field, path_filter
from .graphstage import POOL, confidence, graph_scores, lexical_hits
from .mentions import mentions
from .options import DEFAULT_K, OPTIONS, RetrieverOptions
from .overview import GraphMap, graph_map
from .pathrank import Keep, nearest_paths, rank_paths
from .question import check_question
from .seeds import as_seed_retriever, seed_functions
from .solved import TaskCache, has_tasks, solved_slots
from .specific import specific_matches
from .tables import Tables
from .tagmatch import WeightedMatcher, names_tag
from .tags import TagExtractor, VocabularyMatcher, resolve_labels, split_roles

__all__ = ["Retriever", "RetrieverOptions", "Fallback", "DEFAULT_K"]

#: A fallback retriever: the question and k in, function node ids out, best first.
Fallback = Callable[[str, int], Sequence[str]]
#: The built-in tag extractors: scored matching (default), the paper's keywords, embeddings.
Extractor = Literal["weighted", "keyword", "embedding"]
#: How sure the graph stage takes a seed retriever to be (see Retriever._first_stage).
_SEEDED = 0.5

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
        self._tables = (Tables(self.store) if isinstance(self.store, MemoryStore)
                        else None)
        self._tasks = TaskCache()
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
        clone._tasks = self._tasks
        clone.seed_retriever, clone._seeds = self.seed_retriever, self._seeds
        clone._extractor = self._extractor
        clone.options = replace(self.options, **options)
        return clone

    def overview(self, tokens: int, question: str | None = None) -> GraphMap:
        """A map of the graph in at most ``tokens`` tokens, for a model's context: the most
        central functions with their headers, knowledge, callers and callees; with
        ``question``, the functions this retriever finds for it and their neighbours first
        (:func:`sgkr.retrieval.overview.graph_map`).

        Raises
        ------
        InvalidArgumentError
            If ``tokens`` is out of range, or the retriever reads a store on a server.
        """
        focus = [d.id for d in self.retrieve(question).documents] if question else []
        return graph_map(self.graph, tokens, question=question, focus=focus)

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
            Documents best first, the matched tags and the paths. A score, in (0, 1], says
            how sure the retriever is: the functions on dependency paths score near 1; the
            others at most the question's confidence (:func:`~.graphstage.confidence`: a
            bug report that names the code near 1, a short question's few words less).

            A question that matches nothing in the graph (no tag, no word of the index:
            ``"asdfgh qwerty"``), and an empty or blank one, retrieve nothing and are
            flagged ``matched=False``, so that a caller can abstain.

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
            return RetrievalResult(question=question, documents=(), matched=False)
        o = self.options
        self.prepare()
        reader = self._reader()  # one version of the graph for the whole question
        matches = specific_matches(reader, self._match(question, reader), o.specificity)
        # Paths join the tags the question names; a tag it names in part only seeds the walk.
        named = [m for m in matches if names_tag(m)]
        first = o.lexical or self._seeds is not None  # a first stage to answer without tags
        if not named and (self.fallback is not None or (o.fill == "none" and not first)):
            return self._fallback(reader, question, limit)
        inputs, outputs = split_roles(question, named)
        paths = self._paths(reader, named, inputs, outputs)
        keep = self._filter(reader, paths)
        if o.neighbours and has_tasks(reader):
            documents, matched = self._solved(reader, question, matches, paths, limit, keep)
        else:
            documents, matched = self._ranked(reader, question, matches, paths, limit, keep)
        label = {t: info.label for t, info in reader.tags([*inputs, *outputs]).items()}
        return RetrievalResult(
            question=question,
            documents=documents,
            tags=tuple(matches),
            paths=tuple(paths),
            inputs=tuple(label[t] for t in inputs),
            outputs=tuple(label[t] for t in outputs),
            fallback_used=not paths and bool(documents),
            matched=matched,
        )

    def _ranked(self, reader: RankingReader, question: str, matches: Sequence[TagMatch],
                paths: Sequence[tuple[str, ...]], limit: int,
                keep: Keep | None) -> tuple[tuple[RetrievedFunction, ...], bool]:
        """The documents of the paths and the graph stage's fill, and whether the question
        matched anything (nothing is retrieved when it did not)."""
        o = self.options
        ranked = rank_paths(reader, paths, limit, callees=o.callees, scripts=o.scripts, keep=keep,
                            sure={m.tag_id: m.score for m in matches})
        matched = True
        if len(ranked) < limit and (o.fill == "ppr" or o.lexical or self._seeds is not None):
            ranked, matched = self._fill(reader, question, matches, ranked, limit, keep)
        if not (paths or matched):
            return (), False
        return make_documents(reader, ranked, paths, include_knowledge=o.include_knowledge), True

    def _paths(self, reader: RankingReader, named: Sequence[TagMatch], inputs: Sequence[str],
               outputs: Sequence[str]) -> list[tuple[str, ...]]:
        """The dependency paths between the tags the question names (curated tags, or
        ``inferred="paths"``), else those the ``partial`` option finds."""
        o = self.options
        if not named or not (o.inferred == "paths" or reader.curated_tags()):
            return []
        paths = reader.find_paths(inputs, outputs, max_depth=o.max_depth,
                                  max_paths=o.max_paths, reverse_calls=o.reverse_calls)
        if not paths and o.partial == "connect" and len(named) > 1:
            paths = reader.connect_paths([m.tag_id for m in named],
                                         max_depth=o.max_depth, max_paths=o.max_paths)
        if not paths and o.partial != "none":
            paths = nearest_paths(reader, inputs, outputs)
        return paths

    def prepare(self) -> None:
        """Make now every table a question with these options reads (a graph in memory).

        A retriever makes them on its first question otherwise; a server calls
        this before it accepts questions, so that the first one is as fast as
        the next. Clones made by :meth:`with_options` share the tables.
        """
        o = self.options
        if isinstance(self.store, MemoryStore) and self._tables is not None:
            # The path search's tables, where paths are searched (curated tags).
            paths = o.inferred == "paths" or self.store.curated_tags()
            self.store.prepare(reverse_calls=o.reverse_calls, connect=o.partial == "connect",
                               paths=paths)
            self._tables.prepare(lexical=o.lexical and self._seeds is None)
            if o.neighbours and has_tasks(self.store):
                self._tasks.index(self.store)
            self.store.callers_and_sizes(())  # the sizes table (from the lexical index)

    async def aretrieve(self, question: str, k: int | None = None) -> RetrievalResult:
        """:meth:`retrieve` in a worker thread, for async callers."""
        import asyncio  # here: a process that never awaits does not import it

        return await asyncio.to_thread(self.retrieve, question, k)

    # -- internals -----------------------------------------------------------------

    def _reader(self) -> RankingReader:
        """One version of the graph for one question; it must offer what ranking reads."""
        reader = self.store.reader()
        if not isinstance(reader, RankingReader):
            raise InvalidArgumentError(
                f"the graph store {self.store.url} reads no lexical hits, names or call "
                "counts (its reader is no sgkr.stores.RankingReader)")
        return reader

    def _filter(self, reader: GraphReader, paths: Sequence[tuple[str, ...]]) -> Keep | None:
        """The ids of a batch of function nodes that pass the filter option, if any."""
        spec = self.options.filter
        tests = self.options.tests or (spec is not None and names_field(spec, "test"))
        return None if spec is None and tests else path_filter(reader, spec, paths, tests=tests)

    def _fill(self, reader: RankingReader, question: str, matches: Sequence[TagMatch],
              ranked: list[tuple[str, float]], limit: int,
              keep: Keep | None) -> tuple[list[tuple[str, float]], bool]:
        """``ranked`` and, after it, the graph stage's functions (:mod:`.graphstage`), their
        best at the question's confidence (:func:`~.graphstage.confidence`); and whether
        the question matched anything (a tag, a word of the index, a function it names, a
        seed): when it did not, nothing is filled."""
        o = self.options
        if o.fill == "none" and ranked:
            return ranked, True
        hits = self._first_stage(reader, question)
        named = mentions(question, reader)
        if not (matches or hits[0] or named):
            return ranked, False
        scored = graph_scores(reader, question, o, hits=hits, matches=matches, ranked=ranked,
                              named=named)
        best = confidence(reader, matches, hits[1] if hits[0] else 0.0, named)
        return fill_ranking(reader, scored, ranked, limit, scripts=o.scripts, keep=keep,
                            most_called=reader.most_called if o.fill == "ppr" else None,
                            best=best), True

    def _first_stage(self, reader: RankingReader,
                     question: str) -> tuple[dict[str, float], float]:
        """The first stage's hits and how sure it is of them, from 0 to 1
        (:func:`~sgkr.retrieval.graphstage.lexical_hits`). A seed retriever's scores say
        nothing of the kind: it is taken as half sure.
        """
        if self._seeds is not None:
            return dict(seed_functions(self._seeds(question), reader)[:POOL]), _SEEDED
        if not self.options.lexical:
            return {}, 0.0
        found, sure = lexical_hits(reader, question, evidence=self.options.evidence)
        return dict(found), sure

    def _solved(self, reader: RankingReader, question: str, matches: Sequence[TagMatch],
                paths: Sequence[tuple[str, ...]], limit: int,
                keep: Keep | None) -> tuple[tuple[RetrievedFunction, ...], bool]:
        """The answer of a graph of solved tasks (:mod:`.solved`): the earlier questions'
        votes fused with the paths, one slot per distinct function, with provenance; and
        whether the question matched anything (nothing is retrieved when it did not).

        Its evidence is gathered whatever ``limit`` and the filter, so that an answer is the
        first ``limit`` passing slots of one ranking, with the same scores.
        """
        o = self.options
        assert isinstance(reader, TasksReader)  # has_tasks(reader) said so
        index = self._tasks.index(reader)
        ranked = rank_paths(reader, paths, POOL, callees=o.callees, scripts=POOL,
                            sure={m.tag_id: m.score for m in matches})
        hits, sure = self._first_stage(reader, question)
        # Names are looked for here only when nothing else matched; graph_scores
        # looks for them otherwise, so that they are looked for once.
        said = None if (paths or matches or hits) else mentions(question, reader)
        if said == {}:
            return (), False
        structure = list(ranked)
        if o.fill == "ppr" or hits:
            scored = graph_scores(reader, question, o, hits=(hits, sure), matches=matches,
                                  ranked=ranked, named=said)
            structure = fill_ranking(reader, scored, ranked, POOL, scripts=POOL)
        named = {m.tag_id for m in matches if names_tag(m)}
        weights = {t: info.weight for t, info in reader.tags(named).items()}
        slots = solved_slots(reader, index, question, hits, structure,
                             scripts=o.scripts, neighbours=o.neighbours, tags=weights,
                             boost=o.boost)
        if keep is not None:
            passing = keep([s.node for s in slots])
            slots = [s for s in slots if s.node in passing]
        slots = slots[:limit]
        docs = make_documents(reader, [(s.node, s.score) for s in slots], paths,
                              include_knowledge=o.include_knowledge)
        asked = {t: index.task(t).question for s in slots for t in s.voters[:USED_BY]}
        return tuple(replace(d, used_by=tuple((t, asked[t]) for t in s.voters[:USED_BY]),
                             variants=s.variants) for d, s in zip(docs, slots, strict=True)), True

    def _fallback(self, reader: GraphReader, question: str, limit: int) -> RetrievalResult:
        if self.fallback is None:
            return RetrievalResult(question=question, documents=(), matched=False)
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
        return RetrievalResult(question=question, documents=docs, fallback_used=True,
                               matched=bool(docs))

