"""``sgkr query``: a question → matched tags, paths and retrieved functions (``--json``)."""

from __future__ import annotations

import argparse

from ..agents.answer import UNMATCHED
from ..graph.model import KnowledgeGraph
from ..records import RetrievalResult
from ..retrieval.hops import hop_arrow, paths_hops
from ..retrieval.retriever import Retriever
from ..stores import GraphReader, is_store_url
from .options import add_retrieval_options, retrieval_options
from .terminal import json_text, warn

__all__ = ["register", "run", "print_result"]


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr query``, on its parser ``p``."""
    p.description = "Retrieve knowledge and code for a question."
    p.add_argument("graph", help="graph.json made by sgkr build, or the URL of a graph store "
                                 "it was pushed to (falkor://host:port/name)")
    p.add_argument("question", help="the question, in quotes")
    add_retrieval_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def print_result(result: RetrievalResult, reader: GraphReader, *,
                 show_code: bool = True) -> None:
    """Human-readable output: tags, paths (each step named), then each function's knowledge.

    ``reader`` is the graph retrieved from: it says which relation each step of a path
    follows (``tag:amount -input of-> fn:fee -called by-> fn:main``).
    """
    print(f"question: {result.question}")
    if not result.matched:
        print(f"matched: nothing ({UNMATCHED}); nothing retrieved")
        return
    if not result.tags:
        print("tags: none matched" + ("" if result.documents else "; nothing retrieved"))
    for m in result.tags:
        print(f"tag: {m.label!r} <- {m.text!r} ({m.role})")
    for path, hops in zip(result.paths[:5], paths_hops(reader, result.paths[:5]), strict=True):
        print("path: " + " ".join([path[0], *(f"{hop_arrow(h)} {h.target}" for h in hops)]))
    if len(result.paths) > 5:
        print(f"... {len(result.paths) - 5} more paths")
    for d in result.documents:
        place = f"  ({d.location})" if d.location else ""
        print(f"\n[{d.score:.3f}] {d.label}{place}")
        if d.variants:
            print(f"  (and {len(d.variants)} variant(s) of it in other solutions)")
        if d.used_by:
            print("  used by: " + "; ".join(f"{t} {q[:70]!r}" for t, q in d.used_by))
        if d.knowledge:
            print("  " + d.knowledge.strip().replace("\n", "\n  "))
        if show_code:
            print("  ---\n  " + d.code.strip().replace("\n", "\n  "))


def run(args: argparse.Namespace) -> int:
    """Load the graph, retrieve, print."""
    options = retrieval_options(args)
    retriever = (Retriever(store=args.graph, **options) if is_store_url(args.graph)
                 else Retriever(KnowledgeGraph.load(args.graph, warn=warn), **options))
    result = retriever.retrieve(args.question)
    if args.json:
        print(json_text(result.to_dict()))
    else:
        print_result(result, retriever.store.reader())
    return 0
