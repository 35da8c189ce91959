"""``sgkr push``: write graph.json to a graph store, replacing its graph atomically."""

from __future__ import annotations

import argparse
import sys

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..masking import mask_url
from ..stores import is_store_url
from ..stores.push import DEFAULT_WAIT
from .build import positive_int
from .terminal import warn

__all__ = ["register", "run"]


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr push``, on its parser ``p``."""
    p.description = ("Write graph.json to a graph store, in batches, one push "
                     "at a time. The new graph is checked on the server before "
                     "readers see it (they keep the previous one until then); "
                     "pushing the same graph again changes nothing, and repairs "
                     "it if it was damaged. A push that fails leaves nothing.")
    p.add_argument("graph", help="graph.json made by sgkr build")
    p.add_argument("url", metavar="URL",
                   help="falkor://[[user]:password@]host:port/name[?timeout=seconds] "
                        "(falkors:// over TLS, with &ca=FILE for a private CA)")
    p.add_argument("--batch", type=positive_int, default=500, metavar="N",
                   help="rows written per query (default: %(default)s)")
    p.add_argument("--wait", type=_seconds, default=DEFAULT_WAIT, metavar="SECONDS",
                   help="wait this long for another push to the same store to end, then give "
                        "up (default: %(default)g; 0: give up at once)")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(run=run)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 86_400:  # NaN and infinity fail too
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 86400, got {text!r}")
    return value


def _log(line: str) -> None:
    if sys.stderr.isatty():
        print(f"push: {line}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Load the graph, push it, print what changed."""
    from ..stores.push import push_graph

    if not is_store_url(args.url):
        raise InvalidArgumentError(f"{mask_url(args.url)!r} is not a store URL "
                                   "(expected falkor://host:port/name, or falkors:// for TLS)")
    graph = KnowledgeGraph.load(args.graph, warn=warn)
    report = push_graph(graph, args.url, batch=args.batch, wait=args.wait, log=_log)
    if not args.quiet:
        print(report.summary())
    return 0
