"""SGKR: structure-grounded knowledge retrieval over code dependencies.

Build a knowledge–code graph from example code, then retrieve the functions
on the dependency paths between what a question gives and what it asks for.

Examples
--------
>>> import sgkr
>>> g = sgkr.build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")])
>>> g.stats()["functions"]
2
"""

from __future__ import annotations

# Imported for its effect: graph.lexical.npz is saved and loaded with every graph
# (a layer above the graph registers it, docs/architecture.md).
from .algorithms import lexicalfile as _lexicalfile  # noqa: F401
from .build.builder import build_graph
from .build.incremental import GraphBuilder, UpdateReport
from .build.options import BuildOptions
from .errors import (
    GraphFormatError,
    InvalidArgumentError,
    KnowledgeFormatError,
    NodeNotFoundError,
    SGKRError,
    SourceError,
    StoreError,
)
from .graph.model import KnowledgeGraph, tag_id
from .records import (
    BuildReport,
    Edge,
    FunctionNode,
    Problem,
    RetrievalResult,
    RetrievedFunction,
    SourceSpan,
    TagMatch,
    TagNode,
)
from .retrieval.context import DABSTEP_PROMPT, FINQA_PROMPT, format_prompt, render_context
from .retrieval.retriever import Retriever, RetrieverOptions
from .version import __version__

__all__ = [
    "__version__",
    "build_graph",
    "BuildOptions",
    "GraphBuilder",
    "UpdateReport",
    "KnowledgeGraph",
    "tag_id",
    "Retriever",
    "RetrieverOptions",
    "render_context",
    "format_prompt",
    "DABSTEP_PROMPT",
    "FINQA_PROMPT",
    "SGKRError",
    "InvalidArgumentError",
    "SourceError",
    "KnowledgeFormatError",
    "GraphFormatError",
    "NodeNotFoundError",
    "StoreError",
    "BuildReport",
    "Edge",
    "FunctionNode",
    "Problem",
    "RetrievalResult",
    "RetrievedFunction",
    "SourceSpan",
    "TagMatch",
    "TagNode",
]
