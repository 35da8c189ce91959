"""``SGKRRetriever``: SGKR as a LangChain retriever.

Everything is retrieved by :class:`sgkr.Retriever`; this class holds its
options as pydantic fields and turns its records into LangChain documents.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.tags import FunctionKnowledge, Sidecar
>>> code = ("def fee(rule, amount):\\n    return rule['fixed'] + rule['rate'] * amount\\n"
...         "def avg_fee(rules, amount):\\n    return sum(fee(r, amount) for r in rules)\\n")
>>> side = Sidecar({"fee": FunctionKnowledge(inputs=("amount",)),
...                 "avg_fee": FunctionKnowledge(outputs=("average fee",))}, {})
>>> retriever = SGKRRetriever(graph=build_graph([("fees.py", code)], knowledge=side))
>>> [d.metadata["name"] for d in retriever.invoke("What is the average fee for an amount of 10?")]
['fee', 'avg_fee']
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import (
    ConfigDict,
    Field,
    InstanceOf,
    PrivateAttr,
    SerializationInfo,
    create_model,
    field_serializer,
    field_validator,
    model_validator,
)

from sgkr import (
    BuildOptions,
    GraphFormatError,
    KnowledgeGraph,
    Retriever,
    TagMatch,
    build_graph,
)
from sgkr.errors import InvalidArgumentError
from sgkr.ingest.sources import SourceInput
from sgkr.masking import mask_url
from sgkr.retrieval.options import OPTIONS, refuse_unknown
from sgkr.retrieval.retriever import Extractor
from sgkr.stores import GraphStore

from .documents import to_documents

__all__ = ["SGKRRetriever"]

# LangChain reads these from invoke()'s keyword arguments and passes them on to us too.
_LANGCHAIN_CALL_ARGS = frozenset({"verbose"})


def _option_fields() -> dict[str, Any]:
    """A pydantic field for every retrieval option, from its declaration."""
    return {spec.name: (spec.annotation(),
                        Field(default=spec.default, description=spec.help,
                              strict=True if spec.kind in ("integer", "boolean") else None,
                              ge=spec.minimum, le=spec.maximum))
            for spec in OPTIONS.values()}


if TYPE_CHECKING:
    _WithOptions = BaseRetriever
else:  # the retrieval options' fields, made from sgkr.retrieval.options
    _WithOptions = create_model("_WithOptions", __base__=BaseRetriever, **_option_fields())


class SGKRRetriever(_WithOptions):
    """Structure-grounded knowledge retrieval over a knowledge–code graph.

    For a question, finds the tags of what it gives and what it asks for, and
    returns the functions on the code-dependency paths between them: one
    ``Document`` per function, its knowledge then its code, best first.

    Setup:
        Install ``sgkr`` with its LangChain extra; it needs no service and no key.

        .. code-block:: bash

            pip install "sgkr[langchain]"

    Key init args:
        graph: sgkr.KnowledgeGraph
            The knowledge–code graph (``sgkr build`` or ``sgkr.build_graph``).
        store: sgkr.stores.GraphStore | str
            Instead of ``graph``: a graph store or its URL
            (``falkor://host:port/name``, where ``sgkr push`` wrote the graph).
        k: int
            Most documents returned (default 8, as :class:`sgkr.Retriever`);
            ``invoke(q, k=3)`` per call.
        max_depth, callees, partial, fill, lexical, inferred, ...
            Every option of :class:`sgkr.RetrieverOptions` is a field, with
            its type, bounds, default and description (``docs/options.md``
            lists them); any of them can also be given per call.
        filter: dict | None
            A metadata filter on ``file``, ``kind``, ``name`` and ``matched_tags``
            in the vector stores' style (``{"file": {"$in": [...]}}``,
            ``{"$or": [...]}``; see :mod:`sgkr.retrieval.filters`), applied before ranking
            so that ``k`` is spent on what passes; per call too
            (``invoke(q, filter={"kind": "function"})``).
        tag_extractor: Callable[[str], Iterable[TagMatch | str]] | str | None
            Finds a question's tags: ``"weighted"`` (default), ``"keyword"``,
            ``"embedding"`` or a callable (see :class:`sgkr.Retriever`).
        fallback: Callable[[str, int], Sequence[str]] | None
            Node ids to return when a question has no known tag.
        seed_retriever: BaseRetriever | Any | None
            The first stage in place of SGKR's BM25: any LangChain retriever (a
            vector store's ``as_retriever()``), LlamaIndex retriever or callable;
            its results seed the graph stage (see :mod:`sgkr.retrieval.seeds`).

    Instantiate:
        .. code-block:: python

            from langchain_sgkr import SGKRRetriever

            retriever = SGKRRetriever.from_sources(
                ["examples/payments/solutions"],
                knowledge="examples/payments/knowledge.json",
                examples="examples/payments/examples.jsonl",
                k=6,
            )
            # or from a saved graph: SGKRRetriever.from_graph_file("graph.json", k=6)

    Invoke:
        .. code-block:: python

            docs = retriever.invoke("What is the most expensive MCC for a transaction of 5 euros?")
            for doc in docs:
                print(doc.metadata["score"], doc.id, doc.metadata["file"])

        .. code-block:: none

            1.0 fn:get_mcc_code solutions/task_1305.py
            1.0 fn:average_fee solutions/task_1273.py
            ...

    Use within a chain:
        .. code-block:: python

            from langchain_core.output_parsers import StrOutputParser
            from langchain_core.prompts import ChatPromptTemplate, format_document
            from langchain_core.runnables import RunnablePassthrough
            from langchain_sgkr import DOCUMENT_PROMPT

            prompt = ChatPromptTemplate.from_template(
                "Write Python that answers the question, reusing these functions.\\n\\n"
                "{context}\\n\\nQuestion: {question}"
            )

            def format_docs(docs):  # "## Session.send (requests/sessions.py:673)", the code
                return "\\n\\n".join(format_document(d, DOCUMENT_PROMPT) for d in docs)

            chain = (
                {"context": retriever | format_docs, "question": RunnablePassthrough()}
                | prompt
                | llm  # any chat model
                | StrOutputParser()
            )
            chain.invoke("What is the most expensive MCC for a transaction of 5 euros?")

    Raises ``pydantic.ValidationError`` for a misspelt, mistyped or out-of-range
    field, and :class:`sgkr.InvalidArgumentError` for a bad per-call argument.
    An empty question retrieves no documents.

    The retriever holds no per-call state: it pickles, deep-copies and
    ``model_copy(update=...)``-s like any pydantic model (a copy retrieves with
    its own fields). ``model_dump_json()`` writes the graph as its graph.json
    document (``model_validate_json`` reads it back) and a tag extractor or
    fallback as its dotted name, which cannot be read back: pass it again. A
    store URL's password is masked in its ``repr``, its dumps and LangChain's
    ``dumpd`` (and so in callbacks and traces): pass the store again too. To
    draw a question's retrieval, call ``sgkr.export.render(core.graph,
    core.retrieve(question))`` with ``core = retriever.core``.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> graph = build_graph([("m.py", "def total(fees):\\n    return sum(fees)\\n")])
    >>> [d.metadata["name"] for d in SGKRRetriever(graph=graph, k=2).invoke("What is the total?")]
    ['total']
    >>> try:
    ...     SGKRRetriever(graph=graph, max_dept=2)  # misspelt max_depth
    ... except ValueError as error:  # pydantic.ValidationError
    ...     print(error.errors()[0]["msg"].split(";")[0])
    Value error, unknown field(s): ['max_dept'] (did you mean 'max_depth'?)
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    graph: KnowledgeGraph | None = Field(default=None, description="The knowledge–code graph.")
    store: InstanceOf[GraphStore] | str | None = Field(
        default=None, description="Instead of graph: a graph store, or its URL.")
    # sgkr.retrieval.tags.TagExtractor and sgkr.retrieval.retriever.Fallback, for pydantic.
    tag_extractor: Callable[[str], Iterable[TagMatch | str]] | Extractor | None = Field(
        default=None, description="weighted (default), keyword, embedding, or question -> "
                                  "tag matches or labels.")
    fallback: Callable[[str, int], Sequence[str]] | None = Field(
        default=None, description="(question, k) -> node ids, when no tag matches.")
    seed_retriever: Any = Field(
        default=None, description="A retriever (LangChain, LlamaIndex or a callable) whose "
                                  "results seed the graph stage in place of BM25.")

    _core: Retriever | None = PrivateAttr(default=None)
    _made_of: tuple[Any, Any] = PrivateAttr(default=(None, None))

    @field_validator("graph", mode="before")
    @classmethod
    def _graph_from_json(cls, value: Any) -> Any:
        if isinstance(value, dict):  # what model_dump_json wrote
            try:
                return KnowledgeGraph.from_dict(value, where="graph")
            except GraphFormatError as error:
                raise ValueError(
                    f"graph must be a KnowledgeGraph or its graph.json document: {error}"
                ) from error
        return value

    @field_serializer("graph", when_used="json")
    def _graph_to_json(self, graph: KnowledgeGraph | None) -> dict[str, Any] | None:
        return None if graph is None else graph.to_dict()

    @field_serializer("store")
    def _store_shown(self, store: GraphStore | str | None,
                     info: SerializationInfo) -> GraphStore | str | None:
        # A dump never holds the store's password (model_validate of it connects without).
        if isinstance(store, str):
            return mask_url(store)
        return store.url if store is not None and info.mode == "json" else store

    def __repr_args__(self) -> Iterable[tuple[str | None, Any]]:
        # repr, str and LangChain's dumpd (which shows the repr) mask the store's password.
        for name, value in super().__repr_args__():
            yield name, (mask_url(value) if name == "store" and isinstance(value, str)
                         else value)

    @field_serializer("tag_extractor", "fallback", "seed_retriever", when_used="json")
    def _callable_to_json(self, function: Callable[..., Any] | str | None) -> str | None:
        if function is None or isinstance(function, str):
            return function
        name = getattr(function, "__qualname__", type(function).__qualname__)
        return f"{getattr(function, '__module__', None) or '?'}.{name}"

    @model_validator(mode="before")
    @classmethod
    def _known_fields(cls, data: Any) -> Any:
        # A misspelt field gets the nearest one (docs/options.md), not pydantic's bare
        # "Extra inputs are not permitted".
        if isinstance(data, dict):
            refuse_unknown(data, cls.model_fields, what="field",
                           expected=f"; fields: {', '.join(cls.model_fields)}")
        return data

    @model_validator(mode="after")
    def _check_options(self) -> SGKRRetriever:
        # Runs again on every field assignment (validate_assignment). The options are
        # read from the fields at each call, so a model_copy(update=...), which skips
        # validation, still retrieves with its own fields.
        self._configured({})
        return self

    @property
    def core(self) -> Retriever:
        """The :class:`sgkr.Retriever` doing the work (for its full results: tags, paths).

        :func:`sgkr.export.render` draws its graph with a retrieval highlighted.
        """
        return self._configured({})

    def overview(self, tokens: int, question: str | None = None) -> str:
        """A map of the graph in at most ``tokens`` tokens, for a model's context (a system
        prompt, before any question): the most central functions by file and class with
        their parameters, knowledge, callers and callees; with ``question``, the functions
        it needs and their neighbours first (:meth:`sgkr.Retriever.overview`).

        Raises
        ------
        InvalidArgumentError
            If ``tokens`` is out of range, or the graph is read from a store.
        """
        return self.core.overview(tokens, question).text

    @classmethod
    def from_graph_file(cls, path: str | os.PathLike[str], **kwargs: Any) -> SGKRRetriever:
        """A retriever over a saved ``graph.json``.

        Parameters
        ----------
        path
            A file written by ``sgkr build`` or :meth:`sgkr.KnowledgeGraph.save`.
        **kwargs
            Fields of the retriever (``k``, ``max_depth``, ...), not ``graph``.

        Raises
        ------
        InvalidArgumentError
            If ``path`` is not a path, or ``graph`` is given too.
        GraphFormatError, SourceError
            If the file is missing, malformed or of an unknown schema.

        Examples
        --------
        >>> import os, tempfile
        >>> from sgkr import build_graph
        >>> path = os.path.join(tempfile.mkdtemp(), "graph.json")
        >>> build_graph([("m.py", "def f():\\n    return 1\\n")]).save(path)
        >>> SGKRRetriever.from_graph_file(path, k=2).k
        2
        """
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidArgumentError(f"path must be a file path, got {type(path).__name__}")
        _refuse_graph(kwargs, "from_graph_file reads the graph from path")
        return cls(graph=KnowledgeGraph.load(path), **kwargs)

    @classmethod
    def from_sources(cls, sources: Iterable[SourceInput],
                     build_options: BuildOptions | None = None, **kwargs: Any) -> SGKRRetriever:
        """Build the graph of ``sources`` and a retriever over it.

        Parameters
        ----------
        sources
            Python files, folders, or ``(relative path, text)`` pairs, as for
            :func:`sgkr.build_graph`.
        build_options
            A :class:`sgkr.BuildOptions` for the build.
        **kwargs
            Fields of :class:`sgkr.BuildOptions` (``knowledge``, ``examples``,
            ``merge``, ``infer_tags``, ``root``, ``exclude``, ``jobs``,
            ``cache``, ...; over ``build_options``), ``progress`` (as for
            :func:`sgkr.build_graph`) and fields of the retriever (``k``,
            ``max_depth``, ...); not ``graph``.

        Raises
        ------
        InvalidArgumentError
            If an argument is neither a build option nor a field (the message
            names it), or ``graph`` is given.
        SourceError, KnowledgeFormatError
            As :func:`sgkr.build_graph`.

        Examples
        --------
        >>> copies = [(name, "def f():\\n    return 1\\n") for name in ("a.py", "b.py")]
        >>> r = SGKRRetriever.from_sources(copies, merge="none", k=3)  # keep both copies
        >>> r.k, len(list(r.graph.functions()))
        (3, 2)
        """
        _refuse_graph(kwargs, "from_sources builds the graph from sources")
        build_names = [f.name for f in fields(BuildOptions)]
        refuse_unknown(kwargs, [*build_names, "progress", *cls.model_fields], what="argument",
                       expected=f": expected options of sgkr.BuildOptions {build_names} or "
                                f"fields of SGKRRetriever {sorted(cls.model_fields)}")
        build = {name: kwargs.pop(name) for name in list(kwargs) if name in build_names}
        graph = build_graph(sources, BuildOptions.from_kwargs(build_options, **build),
                            progress=kwargs.pop("progress", None))
        return cls(graph=graph, **kwargs)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return to_documents(self._configured(kwargs).retrieve(query).documents)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return to_documents((await self._configured(kwargs).aretrieve(query)).documents)

    def _options(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in OPTIONS}

    def _configured(self, kwargs: dict[str, Any]) -> Retriever:
        """The core retriever with the fields' options and a call's ``kwargs`` over them."""
        options = {n: v for n, v in kwargs.items() if n not in _LANGCHAIN_CALL_ARGS}
        refuse_unknown(options, OPTIONS, what="argument",
                       expected=f" for SGKRRetriever.invoke: expected any of {list(OPTIONS)}")
        core = self._core
        # Made once and shared by every call; made again if a field it holds changed.
        if (core is None or self._made_of != (self.graph, self.store)
                or core.tag_extractor is not self.tag_extractor
                or core.fallback is not self.fallback
                or core.seed_retriever is not self.seed_retriever):
            core = self._core = Retriever(self.graph, store=self.store,
                                          tag_extractor=self.tag_extractor,
                                          fallback=self.fallback,
                                          seed_retriever=self.seed_retriever)
            self._made_of = (self.graph, self.store)
        return core.with_options(**{**self._options(), **options})


def _refuse_graph(kwargs: dict[str, Any], why: str) -> None:
    if "graph" in kwargs:
        raise InvalidArgumentError(f"graph must not be given: {why}")
