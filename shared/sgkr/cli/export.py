"""``sgkr export``: a picture of the graph (HTML, Mermaid, DOT, GraphML), a question highlighted.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="sgkr export")
>>> register(parser)
>>> '--focus' in parser.format_help()
True
"""

from __future__ import annotations

import argparse
import sys

from ..atomic import write_atomic
from ..errors import InvalidArgumentError
from ..export import FORMATS, format_for, render_pieces, subgraph
from ..graph.model import KnowledgeGraph
from ..retrieval.retriever import Retriever
from .options import add_retrieval_options, retrieval_options

__all__ = ["register", "run"]


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr export``, on its parser ``p``."""
    p.description = ("Draw the graph, or a neighbourhood of it, with the functions and paths "
                     "retrieved for a question highlighted.")
    p.add_argument("graph", help="graph.json made by sgkr build")
    p.add_argument("--format", "-f", choices=FORMATS, default=None,
                   help="default: from the --output suffix (.html .mmd .dot .gv .graphml; "
                        "another suffix is refused), html on standard output")
    p.add_argument("--query", "-q", metavar="QUESTION",
                   help="highlight what this question retrieves; fade the rest")
    p.add_argument("--around", action="append", default=[], metavar="NAME",
                   help="only the neighbourhood of this function or tag (repeatable)")
    p.add_argument("--depth", type=int, default=1, metavar="N",
                   help="neighbourhood radius in edges, for --around and --focus (default 1)")
    p.add_argument("--focus", action="store_true",
                   help="only what --query highlights, and its neighbours within --depth")
    p.add_argument("--output", "-o", metavar="FILE", default="-",
                   help="the file to write (default: standard output)")
    add_retrieval_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load the graph, retrieve if asked, draw, write."""
    if args.query is not None and not args.query.strip():
        raise InvalidArgumentError("--query: the question is empty")
    if args.focus and args.query is None:
        raise InvalidArgumentError("--focus needs --query")
    if args.depth < 0:
        raise InvalidArgumentError(f"--depth must be at least 0, got {args.depth}")
    fmt = args.format or (format_for(args.output) if args.output != "-" else "html")
    if fmt is None:
        raise InvalidArgumentError(
            f"--output {args.output}: the suffix names no format this writes (.html .mmd .dot "
            f".gv .graphml); name the file so, or give --format")
    graph = KnowledgeGraph.load(args.graph, index=False)
    result = None
    if args.query is not None:
        result = Retriever(graph, **retrieval_options(args)).retrieve(args.query)
    view = subgraph(graph, result, around=args.around, depth=args.depth, focus=args.focus)
    pieces = render_pieces(view, fmt)  # GraphML a node at a time: never one document
    if args.output == "-":
        for piece in pieces:
            sys.stdout.write(piece)
        return 0
    write_atomic(args.output, pieces)
    marked = sum(1 for n in view.nodes if n.role is not None)
    print(f"wrote {args.output} ({fmt}): {len(view.nodes)} nodes, {len(view.edges)} edges"
          + (f", {marked} highlighted" if result is not None else ""), file=sys.stderr)
    return 0
