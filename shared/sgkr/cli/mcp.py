"""``sgkr mcp``: serve a graph to coding agents over the Model Context Protocol (stdio).

What is served is a graph file, the URL of a graph store, or source files and folders,
built on start (``--watch``: built again as they change).

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="sgkr mcp")
>>> register(parser)
>>> '--watch' in parser.format_help()
True
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..build.options import BuildOptions
from ..errors import InvalidArgumentError
from ..ingest.cachedir import default_cache_dir
from ..stores import is_store_url
from .build import add_build_options, build_options
from .options import add_retrieval_options, retrieval_options

__all__ = ["register", "run"]


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr mcp``, on its parser ``p``."""
    p.description = ("Serve a graph over the Model Context Protocol on standard input and "
                     "output: a retrieve_knowledge tool, an explain_dependency tool and the "
                     "sgkr://graph/stats resource. TARGET is a graph.json made by sgkr build, "
                     "the URL of a graph store (falkordb://host:port/name), or Python files "
                     "and folders, built on start. Needs the mcp extra of sgkr. The "
                     "retrieval options below are the defaults a tool call may override.")
    p.add_argument("targets", nargs="+", metavar="TARGET",
                   help="graph.json, a store URL, or source files and folders")
    p.add_argument("--watch", action="store_true",
                   help="build again (only what changed) when the sources, the knowledge or "
                        "examples file, or the graph file change; requests running meanwhile "
                        "finish on the version they started with")
    build = p.add_argument_group("build options (sources only)")
    add_build_options(build)
    build.add_argument("--cache", metavar="DIR", default=None,
                       help="content-hash cache of parsed files, for the next start (default: "
                            "a folder under ~/.cache/sgkr)")
    build.add_argument("--no-cache", action="store_true", help="parse every file, keep no cache")
    add_retrieval_options(p)
    p.set_defaults(run=run)


def _what(targets: list[str]) -> str:
    """``store``, ``graph`` (one graph file) or ``sources``."""
    if any(is_store_url(t) for t in targets):
        if len(targets) > 1:
            raise InvalidArgumentError("a store URL is served alone: give one TARGET")
        return "store"
    first = Path(targets[0])
    return "graph" if len(targets) == 1 and first.suffix == ".json" \
        and not first.is_dir() else "sources"


def run(args: argparse.Namespace) -> int:
    """Load, reach or build the graph, then serve it until the client disconnects."""
    from ..agents.server import require_sdk, serve
    from ..agents.serving import Library, Snapshot
    from ..agents.watching import Sources, Watcher

    require_sdk()

    options: dict[str, Any] = retrieval_options(args)
    what = _what(args.targets)
    built = build_options(args, args.cache)
    if what != "sources" and (built != BuildOptions() or args.no_cache):
        raise InvalidArgumentError(f"build options apply to sources, not to a {what}: "
                                   f"{args.targets[0]}")
    if what == "store":
        if args.watch:
            raise InvalidArgumentError("--watch follows files: a graph store is read at each "
                                       "question already")
        serve(Library(Snapshot.of_store(args.targets[0], **options)))
        return 0
    started = time.perf_counter()
    if what == "sources" and args.cache is None:
        built = replace(built, cache=None if args.no_cache else default_cache_dir(
            args.targets[0]))
    sources = Sources(args.targets, built, graph=what == "graph")
    library = Library(Snapshot.of(sources.build(), **options))
    print(f"sgkr mcp: serving {library.current.summary()['functions']} functions, ready in "
          f"{time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    watcher = Watcher(library, sources, options=options) if args.watch else None
    if watcher is not None:
        watcher.start()
    try:
        serve(library)
    finally:
        if watcher is not None:
            watcher.stop()
    return 0
