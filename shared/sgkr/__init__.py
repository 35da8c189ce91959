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

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    GraphFormatError,
    InvalidArgumentError,
    KnowledgeFormatError,
    NodeNotFoundError,
    SGKRError,
    SourceError,
    StoreError,
)
from .version import __version__

if TYPE_CHECKING:
    from .build.builder import build_graph
    from .build.incremental import GraphBuilder, UpdateReport
    from .build.options import BuildOptions
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

# Imported on first use (PEP 562), so that ``sgkr --version``, ``--help`` and a question
# load only what they use: the build alone imports tree-sitter, the graph networkx.
_LAZY = {
    **dict.fromkeys(["build_graph"], "build.builder"),
    **dict.fromkeys(["GraphBuilder", "UpdateReport"], "build.incremental"),
    **dict.fromkeys(["BuildOptions"], "build.options"),
    **dict.fromkeys(["KnowledgeGraph", "tag_id"], "graph.model"),
    **dict.fromkeys(["BuildReport", "Edge", "FunctionNode", "Problem", "RetrievalResult",
                     "RetrievedFunction", "SourceSpan", "TagMatch", "TagNode"], "records"),
    **dict.fromkeys(["DABSTEP_PROMPT", "FINQA_PROMPT", "format_prompt", "render_context"],
                    "retrieval.context"),
    **dict.fromkeys(["Retriever", "RetrieverOptions"], "retrieval.retriever"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sgkr' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
