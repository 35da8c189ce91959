"""``sgkr bench``: build, rebuild, load and query figures of a code base (see :mod:`sgkr.bench`)."""

from __future__ import annotations

import argparse
import json
import sys

from ..bench import DEFAULT_QUERIES, DEFAULT_REPEAT, run_bench
from ..errors import InvalidArgumentError
from .build import positive_int

__all__ = ["register", "run"]


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr bench``, on its parser ``p``."""
    p.description = ("Measure parse-only, cold build, incremental rebuild, "
                     "graph.json save/load, query latency and peak memory on "
                     "the Python sources under PATH (which is only read).")
    p.add_argument("path", metavar="PATH", nargs="?", help="a Python file or folder")
    p.add_argument("--graph", metavar="FILE",
                   help="instead of PATH: load this graph file (sgkr build's output) and time "
                        "its load, first question and --queries questions, nothing else")
    p.add_argument("--questions", choices=("tags", "names"), default="tags",
                   help="with --graph: questions naming input and output tags (default), or "
                        "made of functions' docstrings and names")
    p.add_argument("--answers", metavar="FILE",
                   help="with --graph: write each question's documents and scores to FILE, "
                        "one JSON line each (to compare two versions' answers)")
    p.add_argument("--queries", type=int, default=DEFAULT_QUERIES, metavar="N",
                   help="generated questions to time (default: %(default)s)")
    p.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                   help="processes that parse files (default: all cores)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="leave out files or folders matching GLOB (repeatable)")
    p.add_argument("--max-files", type=positive_int, default=None, metavar="N",
                   help="use only N files spread over the sorted paths (growth curves)")
    p.add_argument("--no-infer-tags", action="store_true",
                   help="do not infer I/O tags (no questions can then be generated)")
    p.add_argument("--repeat", type=positive_int, default=DEFAULT_REPEAT, metavar="N",
                   help="runs of the parse-only time and the cold build; the median of each "
                        "is reported (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the question generator")
    p.add_argument("--store", metavar="URL",
                   help="also push the graph to this graph store (falkor://host:port/name; "
                        "its graph there is replaced), time the questions through it and "
                        "count answers that differ from the graph in memory")
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--markdown", action="store_true",
                        help="print a Markdown table (header and one row), as the docs show it")
    p.set_defaults(run=run)


def _log(line: str) -> None:
    if sys.stderr.isatty():
        print(f"bench: {line}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures."""
    if (args.graph is None) == (args.path is None):
        raise InvalidArgumentError("sgkr bench: give either PATH (sources) or --graph FILE")
    if args.graph is not None:
        from ..bench import run_latency

        latency = run_latency(args.graph, queries=args.queries, seed=args.seed,
                              questions=args.questions, answers=args.answers)
        print(json.dumps(latency.to_dict(), sort_keys=True) if args.json else latency.summary())
        return 0
    report = run_bench(args.path, queries=args.queries, jobs=args.jobs, exclude=args.exclude,
                       max_files=args.max_files, infer_tags=not args.no_infer_tags, seed=args.seed,
                       repeat=args.repeat, store=args.store, log=_log)
    if args.json:
        print(json.dumps(report.to_dict(), sort_keys=True))
    elif args.markdown:
        print(report.markdown())
    else:
        print(report.summary())
    return 0
