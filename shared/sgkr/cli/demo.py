"""``sgkr demo``: build the bundled payments example and answer three held-out questions.

Offline, no language model, in seconds: it shows the matched tags, the
dependency path and the retrieved functions for questions whose solutions
are not in the graph.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ..build.builder import build_graph
from ..errors import SourceError
from ..retrieval.retriever import Retriever
from .options import add_retrieval_options, retrieval_options
from .query import print_result

__all__ = ["register", "run", "payments_example", "DEMO_QUESTIONS"]

#: Held-out tasks the demo asks: the paper's case study first.
DEMO_QUESTIONS = ("1434", "1475", "1513")


def payments_example() -> Path:
    """The folder of the bundled payments example: installed with sgkr (the wheel carries
    it as data, at ``sgkr/examples/payments``), or in a clone (``examples/payments``)."""
    here = Path(__file__).resolve()
    for folder in (here.parents[1] / "examples" / "payments",
                   here.parents[3] / "examples" / "payments"):
        if (folder / "examples.jsonl").is_file():
            return folder
    raise SourceError("the bundled payments example is not installed; reinstall sgkr")


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr demo``, on its parser ``p``."""
    p.description = "Build the bundled payments example and query it."
    p.add_argument("--output", "-o", metavar="FILE", help="also save the graph here")
    p.add_argument("--code", action="store_true", help="print the code of each function")
    add_retrieval_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build, then answer the demo questions."""
    folder = payments_example()
    started = time.perf_counter()
    graph = build_graph([folder / "solutions"], knowledge=folder / "knowledge.json",
                        examples=folder / "examples.jsonl", root=folder)
    seconds = time.perf_counter() - started
    stats = graph.stats()
    print(f"built the payments example in {seconds:.2f} s: {stats['functions']} functions, "
          f"{stats['edges'].get('calls', 0)} calls, {stats['tags']} tags")
    if args.output:
        graph.save(args.output)
        print(f"wrote {args.output}")
    held_out = {}
    for line in (folder / "heldout.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            held_out[str(entry["id"])] = entry["question"]
    retriever = Retriever(graph, **retrieval_options(args))
    for task in DEMO_QUESTIONS:
        print("\n" + "=" * 78)
        print(f"task {task} (not among the examples the graph was built from)")
        print_result(retriever.retrieve(held_out[task]), retriever.store.reader(),
                     show_code=args.code)
    return 0
