"""SGKR records as LlamaIndex nodes: one ``TextNode`` per function.

The node's ``id_`` is the graph node id, so the same function is the same
node in every run and in every retriever built over the same graph (LlamaIndex
drops duplicate ids). The text is the function's knowledge followed by its
code; the metadata says where the function stands and why it was retrieved.
Long metadata is kept out of embeddings and out of the text the LLM is shown.
The function's file is the node's source document (``ref_doc_id`` and the
``SOURCE`` relationship), so what works per document in LlamaIndex (a
docstore's reference documents, document-level post-processors, recursive
retrieval by document) groups the functions of one file.

Examples
--------
>>> from llama_index.core.schema import MetadataMode
>>> from sgkr.records import RetrievedFunction, SourceSpan
>>> doc = RetrievedFunction("fn:fee", "fee", ("fees.fee",), "Fee = fixed + rate * amount.",
...                         "def fee(rule, amount): ...", (SourceSpan("fees.py", 1, 2),),
...                         "function", 1.0, ("amount",), (("tag:amount", "fn:fee"),))
>>> hit = to_node_with_score(doc)
>>> hit.node.node_id, hit.score, hit.node.metadata["path"], hit.node.ref_doc_id
('fn:fee', 1.0, ['tag:amount', 'fn:fee'], 'fees.py')
>>> print(hit.node.get_content(metadata_mode=MetadataMode.LLM))
qualname: fee
location: fees.py:1
matched_tags: ['amount']
<BLANKLINE>
Fee = fixed + rate * amount.
<BLANKLINE>
def fee(rule, amount): ...
"""

from __future__ import annotations

from llama_index.core.schema import (
    NodeRelationship,
    NodeWithScore,
    ObjectType,
    RelatedNodeInfo,
    TextNode,
)

from sgkr.errors import InvalidArgumentError
from sgkr.graph import KnowledgeGraph
from sgkr.records import FunctionNode, RetrievedFunction
from sgkr.retrieval.context import function_document

__all__ = [
    "METADATA_KEYS",
    "EXCLUDED_EMBED_METADATA_KEYS",
    "EXCLUDED_LLM_METADATA_KEYS",
    "to_node",
    "to_node_with_score",
    "graph_nodes",
]

#: The metadata of every node, in this order: :meth:`sgkr.RetrievedFunction.metadata`.
METADATA_KEYS = (
    "id", "name", "qualname", "location", "qualnames", "kind", "file", "start_line", "end_line",
    "sources", "score", "matched_tags", "path",
)
#: Only the qualified name goes into embeddings: the rest is place or per-question.
EXCLUDED_EMBED_METADATA_KEYS = tuple(k for k in METADATA_KEYS if k != "qualname")
#: The LLM sees the qualified name, ``file:line`` and the matched tags (when there are
#: any), not ids, scores or the rest of the place.
EXCLUDED_LLM_METADATA_KEYS = (
    "id", "name", "qualnames", "kind", "file", "start_line", "end_line", "sources", "score",
    "path",
)


def to_node(record: RetrievedFunction | FunctionNode) -> TextNode:
    """A ``TextNode`` for one function: knowledge, then code; id = graph node id.

    Its ``SOURCE`` relationship (``ref_doc_id``) is the file the function was
    found in first (none for a function without a place).

    Parameters
    ----------
    record
        A retrieved function, or a function node of the graph (then
        ``score`` is 0.0 and ``matched_tags`` and ``path`` are empty).

    Returns
    -------
    TextNode

    Raises
    ------
    InvalidArgumentError
        If ``record`` is neither record.

    Examples
    --------
    >>> from sgkr.records import FunctionNode
    >>> node = to_node(FunctionNode("fn:f", "f", ("m.f",), "def f(): ...", "", (), "function"))
    >>> node.node_id, node.text, node.metadata["file"], node.ref_doc_id
    ('fn:f', 'def f(): ...', None, None)
    """
    if isinstance(record, FunctionNode):
        record = function_document(record)
    if not isinstance(record, RetrievedFunction):
        raise InvalidArgumentError(
            f"record must be a RetrievedFunction or a FunctionNode, got {type(record).__name__}")
    relationships = {}
    if record.sources:  # the file it was found in first is its document
        file = record.sources[0].file
        relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(
            node_id=file, node_type=ObjectType.DOCUMENT, metadata={"file": file})
    return TextNode(
        id_=record.id,
        text=record.text,
        metadata=record.metadata(),
        excluded_embed_metadata_keys=list(EXCLUDED_EMBED_METADATA_KEYS),
        excluded_llm_metadata_keys=[*EXCLUDED_LLM_METADATA_KEYS,
                                    *(() if record.matched_tags else ("matched_tags",))],
        relationships=relationships,
    )


def to_node_with_score(doc: RetrievedFunction) -> NodeWithScore:
    """A ``NodeWithScore`` for one retrieved function; the score is SGKR's, in (0, 1].

    Raises
    ------
    InvalidArgumentError
        If ``doc`` is not a :class:`~sgkr.records.RetrievedFunction`.

    Examples
    --------
    >>> from sgkr.records import RetrievedFunction
    >>> to_node_with_score(RetrievedFunction("fn:f", "f", (), "", "def f(): ...", (),
    ...                                      "function", 0.5)).score
    0.5
    """
    if not isinstance(doc, RetrievedFunction):
        raise InvalidArgumentError(f"doc must be a RetrievedFunction, got {type(doc).__name__}")
    return NodeWithScore(node=to_node(doc), score=doc.score)


def graph_nodes(graph: KnowledgeGraph) -> list[TextNode]:
    """Every function of ``graph`` as a node, ordered by id.

    These are the nodes SGKR retrieves from, with the same ids: index them with
    another retriever (``BM25Retriever.from_defaults(nodes=...)``, a
    ``VectorStoreIndex``) to fuse it with SGKR without duplicates.

    Raises
    ------
    InvalidArgumentError
        If ``graph`` is not a :class:`~sgkr.graph.KnowledgeGraph`.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")])
    >>> [n.node_id for n in graph_nodes(g)]
    ['fn:m.f', 'fn:m.g']
    """
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph).__name__}")
    return [to_node(f) for f in sorted(graph.functions(), key=lambda f: f.id)]

