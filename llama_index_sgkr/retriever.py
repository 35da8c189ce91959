"""``SGKRRetriever``: SGKR as a LlamaIndex retriever, a drop-in for a vector retriever.

All retrieval goes through :class:`sgkr.Retriever`; this class turns its
documents into ``NodeWithScore`` (see :mod:`llama_index_sgkr.nodes`) and
follows LlamaIndex's conventions: ``from_defaults``, ``persist`` and
``from_persist_dir``, callbacks and instrumentation events from
``BaseRetriever.retrieve``.

Examples
--------
>>> from sgkr.tags import FunctionKnowledge, Sidecar
>>> code = ("def fee(rule, amount):\\n    return rule['fixed'] + rule['rate'] * amount\\n"
...         "def avg_fee(rules, amount):\\n    return sum(fee(r, amount) for r in rules)\\n")
>>> side = Sidecar({"fee": FunctionKnowledge(inputs=("amount",)),
...                 "avg_fee": FunctionKnowledge(outputs=("average fee",))}, {})
>>> retriever = SGKRRetriever.from_defaults(sources=[("fees.py", code)], knowledge=side, k=4)
>>> [(n.node.node_id, n.score) for n in retriever.retrieve("Average fee for an amount of 10?")]
[('fn:fees.fee', 1.0), ('fn:fees.avg_fee', 1.0)]
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import fields
from typing import Any

from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import IndexNode, NodeWithScore, QueryBundle
from llama_index.core.utils import print_text
from llama_index.core.vector_stores.types import MetadataFilters

from sgkr.build import build_graph
from sgkr.build.options import BuildOptions
from sgkr.errors import InvalidArgumentError
from sgkr.graph import KnowledgeGraph
from sgkr.ingest.sources import SourceInput
from sgkr.records import RetrievalResult
from sgkr.retrieval.options import OPTIONS, refuse_unknown
from sgkr.retrieval.retriever import Extractor, Fallback, Retriever, RetrieverOptions
from sgkr.retrieval.tags import TagExtractor
from sgkr.stores import GraphStore

from .filters import to_sgkr_filter
from .nodes import to_node_with_score
from .persist import load_retriever, save_retriever

__all__ = ["SGKRRetriever"]

_BUILD_NAMES = tuple(f.name for f in fields(BuildOptions))
_RETRIEVER_NAMES = tuple(OPTIONS)
# from_defaults' own parameters: a misspelt one is suggested too.
_DEFAULTS_NAMES = ("graph", "graph_path", "store", "sources", "build_options", "tag_extractor",
                   "fallback", "seed_retriever", "similarity_top_k", "filters",
                   "callback_manager", "verbose")


class SGKRRetriever(BaseRetriever):
    """Retrieve the functions on the dependency paths of a question, one node each.

    Each result is a ``NodeWithScore`` over a ``TextNode`` whose ``id_`` is the
    graph node id, whose text is the function's knowledge followed by its code,
    and whose metadata is :meth:`sgkr.RetrievedFunction.metadata` (``name``,
    ``qualnames``, ``kind``, ``file``, ``start_line``, ``end_line``,
    ``sources``, ``score``, ``matched_tags``, ``path``). Scores are in (0, 1],
    best first. A question with no known tag retrieves nothing (or what the
    fallback of the SGKR retriever finds); an empty question retrieves nothing.
    The retriever keeps nothing between calls: it pickles and deep-copies, and
    ``sgkr.export.render(r.graph, r.retrieve(question))`` with
    ``r = retriever.sgkr_retriever`` draws a question's retrieval.

    Parameters
    ----------
    retriever
        The configured :class:`sgkr.Retriever`. Most callers use
        :meth:`from_defaults` instead.
    callback_manager, object_map, objects, verbose
        As for any LlamaIndex ``BaseRetriever``.

    Raises
    ------
    InvalidArgumentError
        If ``retriever`` is not an :class:`sgkr.Retriever`.

    Examples
    --------
    >>> from sgkr import Retriever, build_graph
    >>> graph = build_graph([("m.py", "def f():\\n    return 1\\n")])
    >>> SGKRRetriever(Retriever(graph, k=2)).similarity_top_k
    2
    """

    def __init__(
        self,
        retriever: Retriever,
        *,
        callback_manager: CallbackManager | None = None,
        object_map: dict[str, Any] | None = None,
        objects: list[IndexNode] | None = None,
        verbose: bool = False,
    ) -> None:
        if not isinstance(retriever, Retriever):
            raise InvalidArgumentError(
                f"retriever must be an sgkr.Retriever, got {type(retriever).__name__}")
        self._sgkr = retriever
        super().__init__(callback_manager=callback_manager, object_map=object_map,
                         objects=objects, verbose=verbose)

    @classmethod
    def from_defaults(
        cls,
        graph: KnowledgeGraph | None = None,
        *,
        graph_path: str | os.PathLike[str] | None = None,
        store: GraphStore | str | None = None,
        sources: Iterable[SourceInput] | None = None,
        build_options: BuildOptions | None = None,
        tag_extractor: TagExtractor | Extractor | None = None,
        fallback: Fallback | None = None,
        seed_retriever: Any = None,
        similarity_top_k: int | None = None,
        filters: MetadataFilters | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        **options: Any,
    ) -> SGKRRetriever:
        """Make a retriever from exactly one of a graph, a graph.json path, a store or sources.

        Parameters
        ----------
        graph
            A built :class:`~sgkr.graph.KnowledgeGraph`.
        graph_path
            A ``graph.json`` written by ``sgkr build`` or ``KnowledgeGraph.save``.
        store
            A graph store, or its URL (``falkor://host:port/name``, where
            ``sgkr push`` wrote the graph): the graph is read there, never loaded.
        sources
            Python files, folders or ``(path, text)`` pairs to build the graph
            from (:func:`sgkr.build_graph`); solved tasks alone (``examples``, or
            ``solutions`` with ``tasks``) also build.
        build_options
            A :class:`sgkr.BuildOptions` for that build (only with ``sources``).
        tag_extractor, fallback
            Passed to :class:`sgkr.Retriever` (see
            :func:`llama_index_sgkr.retriever_fallback` to fall back on
            another LlamaIndex retriever).
        seed_retriever
            The first stage in place of SGKR's BM25: any LlamaIndex retriever (a
            ``VectorStoreIndex``'s ``as_retriever()``), LangChain retriever or
            callable; its results seed the graph stage (:mod:`sgkr.retrieval.seeds`).
        similarity_top_k
            LlamaIndex's name for ``k``; give one or the other.
        filters
            LlamaIndex ``MetadataFilters`` on ``file``, ``kind``, ``name`` and
            ``matched_tags``, applied before ranking so that ``k`` is spent on
            the functions that pass (see :func:`llama_index_sgkr.to_sgkr_filter`);
            SGKR's own ``filter`` option is the same in its form.
        callback_manager, verbose
            As for any LlamaIndex retriever.
        **options
            Any field of :class:`sgkr.RetrieverOptions` (``k``, ``max_depth``,
            ``callees``, ``partial``, ...) and, with ``sources``, of
            :class:`sgkr.BuildOptions` (``knowledge``, ``examples``, ``merge``,
            ``infer_tags``, ``root``, ``exclude``, ``jobs``, ``cache``, ...; over
            ``build_options``). An unknown name is an error naming it.

        Returns
        -------
        SGKRRetriever

        Raises
        ------
        InvalidArgumentError
            (a ``ValueError``) naming the bad combination or option.
        GraphFormatError, SourceError, KnowledgeFormatError
            From loading or building the graph.

        Examples
        --------
        >>> SGKRRetriever.from_defaults(graph_path="g.json", sources=["src"])
        Traceback (most recent call last):
        ...
        sgkr.errors.InvalidArgumentError: pass exactly one of graph, graph_path, store or \
sources; got graph_path and sources
        >>> SGKRRetriever.from_defaults(sources=[("m.py", "")], top_k=3)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        sgkr.errors.InvalidArgumentError: unknown argument(s): ['top_k']: expected ...
        """
        build = {name: options.pop(name) for name in list(options) if name in _BUILD_NAMES}
        refuse_unknown(options, [*_RETRIEVER_NAMES, *_BUILD_NAMES, *_DEFAULTS_NAMES],
                       what="argument",
                       expected=f": expected options of sgkr.RetrieverOptions "
                                f"{list(_RETRIEVER_NAMES)} or of sgkr.BuildOptions "
                                f"{list(_BUILD_NAMES)}")
        given = [name for name, value in (("graph", graph), ("graph_path", graph_path),
                                          ("store", store), ("sources", sources))
                 if value is not None]
        solved = any(build.get(name) is not None for name in ("examples", "solutions", "tasks"))
        if sources is None and solved and not given:
            given, sources = ["sources"], ()
        if len(given) != 1:
            got = " and ".join(given) if given else "none"
            raise InvalidArgumentError(
                f"pass exactly one of graph, graph_path, store or sources; got {got}")
        extra = [*build, *(["build_options"] if build_options is not None else [])]
        if sources is None and extra:
            raise InvalidArgumentError(
                f"{', '.join(extra)}: only with sources, not with {given[0]}")
        _framework_options(similarity_top_k, filters, options)
        if store is not None:
            return cls(Retriever(store=store, tag_extractor=tag_extractor, fallback=fallback,
                                 seed_retriever=seed_retriever, **options),
                       callback_manager=callback_manager, verbose=verbose)
        if graph_path is not None:
            graph = KnowledgeGraph.load(graph_path)
        elif sources is not None:
            graph = build_graph(sources, BuildOptions.from_kwargs(build_options, **build))
        if not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(
                f"graph must be a KnowledgeGraph, got {type(graph).__name__} "
                "(pass a graph.json path as graph_path=)")
        core = Retriever(graph, tag_extractor=tag_extractor, fallback=fallback,
                         seed_retriever=seed_retriever, **options)
        return cls(core, callback_manager=callback_manager, verbose=verbose)

    def overview(self, tokens: int, question: str | None = None) -> str:
        """The text of :meth:`sgkr.Retriever.overview`: a map of the graph in at most
        ``tokens`` tokens for a model's context, focused on ``question`` when given."""
        return self._sgkr.overview(tokens, question).text

    # -- persistence -----------------------------------------------------------------

    def persist(self, persist_dir: str | os.PathLike[str]) -> None:
        """Write ``graph.json``, its index and ``sgkr_retriever.json`` (the options) into
        ``persist_dir``.

        JSON only, no pickle; the lexical index beside the graph (NumPy arrays, no
        objects). A tag extractor, a fallback or a seed retriever is not persisted.

        Examples
        --------
        >>> import tempfile
        >>> from sgkr import build_graph
        >>> r = SGKRRetriever.from_defaults(build_graph([("m.py", "x = 1\\n")]), k=5)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     r.persist(folder)
        ...     SGKRRetriever.from_persist_dir(folder).options.k
        5
        """
        save_retriever(self._sgkr, persist_dir)

    @classmethod
    def from_persist_dir(
        cls,
        persist_dir: str | os.PathLike[str],
        *,
        tag_extractor: TagExtractor | Extractor | None = None,
        fallback: Fallback | None = None,
        seed_retriever: Any = None,
        similarity_top_k: int | None = None,
        filters: MetadataFilters | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        **options: Any,
    ) -> SGKRRetriever:
        """Load a retriever written by :meth:`persist`; ``options`` override the stored ones.

        ``similarity_top_k`` and ``filters`` are as for :meth:`from_defaults`.

        Raises
        ------
        GraphFormatError
            If a file is missing or malformed (the message names it).
        InvalidArgumentError
            If an option is unknown or out of range.

        Examples
        --------
        >>> SGKRRetriever.from_persist_dir("/nonexistent")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        sgkr.errors.GraphFormatError: /nonexistent/sgkr_retriever.json: cannot read ...
        """
        _framework_options(similarity_top_k, filters, options)
        graph, stored = load_retriever(persist_dir)
        core = Retriever(graph, tag_extractor=tag_extractor, fallback=fallback,
                         seed_retriever=seed_retriever, **{**stored, **options})
        return cls(core, callback_manager=callback_manager, verbose=verbose)

    # -- what it wraps -------------------------------------------------------------

    @property
    def sgkr_retriever(self) -> Retriever:
        """The :class:`sgkr.Retriever` doing the work.

        :func:`sgkr.export.render` draws its graph with a retrieval highlighted.
        """
        return self._sgkr

    @property
    def graph(self) -> KnowledgeGraph:
        """The knowledge–code graph retrieved from."""
        return self._sgkr.graph

    @property
    def options(self) -> RetrieverOptions:
        """The retrieval options in force."""
        return self._sgkr.options

    @property
    def similarity_top_k(self) -> int:
        """Most nodes returned (SGKR's ``k``); settable, like a vector retriever's."""
        return self._sgkr.options.k

    @similarity_top_k.setter
    def similarity_top_k(self, value: int) -> None:
        self._sgkr = self._sgkr.with_options(k=value)

    # -- BaseRetriever ---------------------------------------------------------------

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._convert(self._sgkr.retrieve(query_bundle.query_str))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._convert(await self._sgkr.aretrieve(query_bundle.query_str))

    def _convert(self, result: RetrievalResult) -> list[NodeWithScore]:
        if self._verbose:
            how = "fallback" if result.fallback_used else "paths"
            print_text(f"SGKR: inputs {list(result.inputs)}, outputs {list(result.outputs)}, "
                       f"{len(result.documents)} functions ({how})\n", color="llama_blue")
        return [to_node_with_score(doc) for doc in result.documents]


def _framework_options(similarity_top_k: int | None, filters: MetadataFilters | None,
                       options: dict[str, Any]) -> None:
    """Put LlamaIndex's ``similarity_top_k`` and ``filters`` into SGKR's ``options``."""
    given = {"k": similarity_top_k,
             "filter": None if filters is None else to_sgkr_filter(filters)}
    for (option, value), name in zip(given.items(), ("similarity_top_k", "filters"), strict=True):
        if value is not None:
            if option in options:
                raise InvalidArgumentError(f"pass {option} or {name}, not both")
            options[option] = value
