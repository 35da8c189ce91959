"""``sgkr map``: a map of a graph within a budget of tokens, for a model's context.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="sgkr map")
>>> register(parser)
>>> parser.parse_args(["graph.json", "--tokens", "500"]).tokens
500
"""

from __future__ import annotations

import argparse

from ..errors import InvalidArgumentError
from ..retrieval.overview import MAX_TOKENS, MIN_TOKENS
from .options import add_retrieval_options, retrieval_options
from .terminal import json_text, warn

__all__ = ["register", "run"]


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr map``, on its parser ``p``."""
    p.description = ("Print a map of a graph within a budget of tokens (words and symbols), "
                     "for a language model's context: its most central functions by file "
                     "and class, with their parameters, the first line of their knowledge, "
                     "and what they call and are called by. With --query, focused on what "
                     "the question needs.")
    p.add_argument("graph", help="graph.json made by sgkr build")
    p.add_argument("--tokens", type=_tokens, default=1000, metavar="N",
                   help="most tokens of the map (default: %(default)s)")
    p.add_argument("--query", "-q", metavar="QUESTION",
                   help="put the functions this question needs, and their neighbours, first")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: the entries, the text and its tokens")
    add_retrieval_options(p)
    p.set_defaults(run=run)


def _tokens(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not MIN_TOKENS <= value <= MAX_TOKENS:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from {MIN_TOKENS} to {MAX_TOKENS:,}, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    """Load the graph, map it, print the map."""
    from ..graph.model import KnowledgeGraph
    from ..retrieval.retriever import Retriever
    from ..stores import is_store_url

    if is_store_url(args.graph):
        raise InvalidArgumentError(f"{args.graph}: sgkr map reads a graph file (graph.json), "
                                   "not a store")
    if args.query is not None and not args.query.strip():
        raise InvalidArgumentError("the question is empty")
    retriever = Retriever(KnowledgeGraph.load(args.graph, warn=warn), **retrieval_options(args))
    found = retriever.overview(args.tokens, args.query)
    if args.json:
        print(json_text({"tokens": found.tokens, "budget": found.budget,
                         "question": found.question,
                         "entries": [vars(e) for e in found.entries], "text": found.text}))
    else:
        print(found.text)
    return 0
