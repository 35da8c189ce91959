"""SGKR records as LangChain documents: one ``Document`` per function.

A document's ``id`` is the graph node id, its ``page_content`` the function's
knowledge then its code, and its ``metadata`` the flat fields of
:meth:`sgkr.RetrievedFunction.metadata` (``name``, ``qualnames``, ``file``,
``start_line``, ``end_line``, ``matched_tags``, ``path``, ``score``, ...).

The id and page content depend on the function alone; ``score``,
``matched_tags`` and ``path`` (and, on a graph of solved tasks, ``used_by`` and
``variants``: :data:`PER_QUESTION_KEYS`) on the question too. The documents are
:class:`SGKRDocument`, whose equality leaves those keys out, so that LangChain's own
de-duplication (``MultiQueryRetriever`` compares whole documents) keeps one document per
function, the first one.

Examples
--------
>>> from sgkr import RetrievedFunction, SourceSpan
>>> record = RetrievedFunction("fn:fee", "fee", ("fees.fee",), "fee = fixed + rate * v",
...                            "def fee(v): ...", (SourceSpan("fees.py", 1, 2),), "function", 1.0)
>>> doc = to_document(record)
>>> doc.id, doc.metadata["file"], doc.metadata["start_line"]
('fn:fee', 'fees.py', 1)
>>> print(doc.page_content)
fee = fixed + rate * v
<BLANKLINE>
def fee(v): ...
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.documents import Document
from langchain_core.prompts import PromptTemplate

from sgkr import KnowledgeGraph, RetrievedFunction
from sgkr.errors import InvalidArgumentError
from sgkr.retrieval.context import make_documents

__all__ = ["SGKRDocument", "PER_QUESTION_KEYS", "to_document", "to_documents",
           "graph_documents", "DOCUMENT_PROMPT"]

#: The metadata that depends on the question as well as on the function.
PER_QUESTION_KEYS = frozenset({"score", "matched_tags", "path", "used_by", "variants"})

#: A document prompt (for ``create_retriever_tool`` and the like) that heads each
#: document with its function's qualified name and place (``## Flask.dispatch_request
#: (src/flask/app.py:870)``), then shows its knowledge and code.
DOCUMENT_PROMPT = PromptTemplate.from_template("## {qualname} ({location})\n{page_content}")


class SGKRDocument(Document):
    """A LangChain ``Document`` that equals another of the same function.

    Two documents are equal when their ids, page contents and metadata are,
    leaving out :data:`PER_QUESTION_KEYS`: the same function retrieved for two
    questions is one document. LangChain serialises it as a plain
    ``Document`` (``langchain_core.load.loads`` gives one back).

    Examples
    --------
    >>> a = SGKRDocument(id="fn:f", page_content="def f(): ...", metadata={"score": 1.0})
    >>> a == SGKRDocument(id="fn:f", page_content="def f(): ...", metadata={"score": 0.5})
    True
    >>> a == Document(id="fn:g", page_content="def f(): ...", metadata={"score": 1.0})
    False
    """

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document):
            return NotImplemented
        return (self.id, self.page_content, _stable(self.metadata), self.type) == (
            other.id, other.page_content, _stable(other.metadata), other.type)

    @classmethod
    def lc_id(cls) -> list[str]:
        """Serialised as a plain ``Document``."""
        return Document.lc_id()


def _stable(metadata: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metadata.items() if k not in PER_QUESTION_KEYS}


def to_document(record: RetrievedFunction) -> Document:
    """The LangChain document of one retrieved function.

    Parameters
    ----------
    record
        A document of :attr:`sgkr.RetrievalResult.documents`.

    Returns
    -------
    Document
        ``id`` the node id, ``page_content`` knowledge then code, flat ``metadata``.

    Raises
    ------
    InvalidArgumentError
        If ``record`` is not a :class:`sgkr.RetrievedFunction`.

    Examples
    --------
    >>> from sgkr import RetrievedFunction
    >>> doc = to_document(RetrievedFunction("fn:f", "f", ("m.f",), "", "def f(): ...", (),
    ...                                     "function", 0.5))
    >>> doc.page_content, doc.metadata["score"], doc.metadata["file"]
    ('def f(): ...', 0.5, None)
    """
    if not isinstance(record, RetrievedFunction):
        raise InvalidArgumentError(
            f"record must be an sgkr.RetrievedFunction, got {type(record).__name__}")
    return _convert(record)


def to_documents(records: Iterable[RetrievedFunction]) -> list[Document]:
    """The LangChain documents of retrieved functions, in the same order.

    Raises
    ------
    InvalidArgumentError
        If an item of ``records`` is not a :class:`sgkr.RetrievedFunction`.

    Examples
    --------
    >>> to_documents(())
    []
    """
    return [to_document(record) for record in records]


def graph_documents(graph: KnowledgeGraph, *, include_knowledge: bool = True) -> list[Document]:
    """One document for every function of ``graph``: a corpus for a retriever beside SGKR.

    The documents have the same ``id``, ``page_content`` and metadata keys as the
    ones :class:`~langchain_sgkr.SGKRRetriever` returns (``score`` 0.0, no tags,
    no path), so an ensemble (for instance with a BM25 retriever built on them)
    recognises the same function coming from both.

    Parameters
    ----------
    graph
        The knowledge–code graph.
    include_knowledge
        Put each function's knowledge before its code (off: code only, less
        the docstring that carried the knowledge).

    Raises
    ------
    InvalidArgumentError
        If ``graph`` is not a :class:`sgkr.KnowledgeGraph`.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> graph = build_graph([("m.py", "def f():\\n    '''Fees.'''\\n    return 1\\n")])
    >>> [(d.metadata["name"], d.page_content.splitlines()[0]) for d in graph_documents(graph)]
    [('f', 'Fees.')]
    """
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph).__name__}")
    if not isinstance(include_knowledge, bool):
        raise InvalidArgumentError("include_knowledge must be True or False")
    records = make_documents(graph, [(f.id, 0.0) for f in graph.functions()], (),
                             include_knowledge=include_knowledge, tasks=graph.tasks)
    return [_convert(record) for record in records]


def _convert(record: RetrievedFunction) -> Document:
    return SGKRDocument(id=record.id, page_content=record.text, metadata=record.metadata())
