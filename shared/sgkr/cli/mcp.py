"""``sgkr mcp``: serve a graph to coding agents over the Model Context Protocol (stdio).

Examples
--------
>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['mcp']
"""

from __future__ import annotations

import argparse

from ..graph.model import KnowledgeGraph
from .options import add_retrieval_options, retrieval_options

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``mcp`` command."""
    p = sub.add_parser(
        "mcp", help="serve a graph to coding agents (Model Context Protocol, stdio)",
        description="Serve graph.json over the Model Context Protocol on standard input and "
                    "output: a retrieve_knowledge tool, an explain_dependency tool and the "
                    "sgkr://graph/stats resource. Needs pip install \"sgkr[mcp]\". The "
                    "retrieval options below are the defaults a tool call may override.")
    p.add_argument("graph", help="graph.json made by sgkr build")
    add_retrieval_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load the graph, then serve it until the client disconnects."""
    from ..agents.server import serve

    serve(KnowledgeGraph.load(args.graph), **retrieval_options(args))
    return 0
