"""The heavier reliability campaign (minutes, not part of the test run); prints the figures.

Run from the project root::

    python -m tests.reliability.campaign [--quick] [--only "hostile review"]

Each heavy file is read in a child process with a time limit, so a hang or a
blow-up is counted, not suffered.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .review import Tally

HANG_SECONDS = 180


def _one(kind: str, size: int, limit: int) -> None:
    """Child: build a graph of one generated file; print time, memory and what was found."""
    from sgkr import build_graph

    from .corpus import nested

    if kind == "string":
        text = "x = '" + "a" * (size - 7) + "'\ndef tail():\n    pass\n"
    elif kind == "list":
        text = "x = [" + "1, " * (size // 3) + "]\ndef tail():\n    pass\n"
    elif kind == "statements":
        text = "f();" * (size // 4) + "\ndef tail():\n    pass\n"
    else:
        text = nested(kind, size)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "big.py").write_text(text)
        (Path(folder) / "small.py").write_text("def small():\n    return 1\n")
        started = time.perf_counter()
        graph = build_graph([folder], jobs=1, max_file_bytes=limit)
        seconds = time.perf_counter() - started
    assert graph.report is not None
    print(json.dumps({"seconds": round(seconds, 2), "bytes": len(text.encode()),
                      "functions": graph.report.functions,
                      "problems": [str(p)[:80] for p in graph.report.problems],
                      "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))


def _child(kind: str, size: int, limit: int) -> dict[str, object]:
    code = f"from tests.reliability.campaign import _one; _one({kind!r}, {size}, {limit})"
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        return {"hang": True}
    if done.returncode != 0:
        return {"crash": done.stderr.strip().splitlines()[-1:]}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def heavy_files(quick: bool) -> dict[str, dict[str, object]]:
    big = 5_000_000 if quick else 50_000_000
    cases = {
        f"{big // 10**6} MB one-line string, default limit": ("string", big, 5_000_000),
        f"{big // 10**6} MB one-line string, limit raised": ("string", big, 2 * big),
        "5 MB one-line list literal": ("list", 4_900_000, 5_000_000),
        "5 MB one line of 1.2M statements": ("statements", 4_900_000, 5_000_000),
        "10,000 nested brackets": ("brackets", 10_000, 5_000_000),
        "10,000 unclosed brackets": ("unclosed", 10_000, 5_000_000),
        "10,000 nested calls": ("calls", 10_000, 5_000_000),
        "3,000 nested blocks (4.5 MB)": ("blocks", 3_000, 5_000_000),
        "3,000 nested defs (4.5 MB)": ("defs", 3_000, 5_000_000),
    }
    return {name: _child(*args) for name, args in cases.items()}


def broken_code() -> dict[str, object]:
    """Every fragment at every position of the sample, and a bracket opened on every line of
    each payments solution: the other functions must survive."""
    from sgkr.ingest.extract import extract_module

    from .corpus import broken_variants

    tried = lost = crashes = 0
    worst = 0.0
    for _, _, text in broken_variants(step=1):
        tried += 1
        started = time.perf_counter()
        try:
            names = {d.name for d in extract_module("m.py", text).definitions}
        except Exception:  # noqa: BLE001 - counting crashes is the point
            crashes += 1
            continue
        worst = max(worst, time.perf_counter() - started)
        lost += not {"first", "keep", "last"} <= names
    solutions = sorted((Path(__file__).parents[2] / "examples/payments/solutions").glob("*.py"))
    for path in solutions:
        text = path.read_text()
        whole = extract_module(path.name, text)
        tops = {d.name for d in whole.definitions if d.kind == "function"}
        lines = text.splitlines(keepends=True)
        for number in range(len(lines)):
            broken = "".join(lines[:number]) + "(" + "".join(lines[number:])
            tried += 1
            try:
                found = {d.name for d in extract_module(path.name, broken).definitions}
            except Exception:  # noqa: BLE001
                crashes += 1
                continue
            # The function holding the broken line may go; at most that one.
            lost += len(tops - found) > 1
    return {"inputs": tried, "crashes": crashes, "lost_other_functions": lost,
            "slowest_seconds": round(worst, 3)}


def random_text(count: int) -> dict[str, object]:
    from sgkr.ingest.extract import extract_module

    from .corpus import BREAKS

    rng = random.Random(1)
    alphabet = [*BREAKS, "def f(x):\n", "    return g(x)\n", "class C:\n", "x", " ", "\n",
                "\r\n", "\t", "#", "\u00e9", "\x0c", "0", ",", ".", "await ", "yield "]
    crashes = 0
    worst = 0.0
    for _ in range(count):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        started = time.perf_counter()
        try:
            extract_module("r.py", text)
        except Exception:  # noqa: BLE001
            crashes += 1
        worst = max(worst, time.perf_counter() - started)
    return {"inputs": count, "crashes": crashes, "slowest_seconds": round(worst, 4)}


def graph_mutations(count: int) -> dict[str, object]:
    import copy

    from sgkr.errors import GraphFormatError
    from sgkr.graph import KnowledgeGraph

    from .test_graph_files import GOOD, PLACES

    rng = random.Random(2)
    values: list[object] = [None, True, 0, -1, 1.5, "", "x", "tag:amount", [], {}, [1], {"a": 1},
                            "x" * 10_000, float("inf"), 10**40]
    refused = loaded = crashes = 0
    for _ in range(count):
        doc = copy.deepcopy(GOOD)
        for _ in range(rng.randint(1, 3)):
            place = rng.choice(PLACES)
            target = doc
            try:
                for key in place[:-1]:
                    target = target[key]
                target[place[-1]] = rng.choice(values)
            except (KeyError, IndexError, TypeError):
                continue
        try:
            KnowledgeGraph.from_dict(json.loads(json.dumps(doc)))
            loaded += 1
        except GraphFormatError:
            refused += 1
        except Exception:  # noqa: BLE001
            crashes += 1
    return {"inputs": count, "refused": refused, "loaded": loaded, "crashes": crashes}


def search_worst_case(quick: bool) -> dict[str, object]:
    from sgkr.retrieval.retriever import Retriever

    from .graphs import hub_scc_graph

    graph = hub_scc_graph(functions=1000 if quick else 5000, scc=400 if quick else 2000,
                          hub_callers=600 if quick else 3000)
    before = graph.to_dict()
    option_sets = [{}, {"max_depth": 16, "max_paths": 256, "callees": 4},
                   {"reverse_calls": False}, {"partial": "connect", "max_depth": 16}]
    questions = ["fee per amount", "which merchant has the highest fee", "amount merchant",
                 "fee", "merchant amount fee"]
    worst, worst_case, runs, most_paths = 0.0, "", 0, 0
    for options in option_sets:
        r = Retriever(graph, **options)
        for q in questions:
            started = time.perf_counter()
            result = r.retrieve(q)
            took = time.perf_counter() - started
            runs += 1
            most_paths = max(most_paths, len(result.paths))
            if took > worst:
                worst, worst_case = took, f"{options} {q!r}"
    stats = graph.stats()
    return {"nodes": len(graph), "call_edges": stats["edges"].get("calls", 0),
            "hub_callers": len(graph.callers("fn:hub")), "queries": runs,
            "most_paths_in_a_result": most_paths,
            "worst_seconds": round(worst, 3), "worst_case": worst_case,
            "graph_unchanged": graph.to_dict() == before}


def hostile_review(quick: bool) -> dict[str, object]:
    """The reproductions of issue 23 (:mod:`tests.reliability.review`), with their table."""
    from .review import review

    total = _tallies(((item, tally, [f"{seconds:.0f}"]) for item, tally, seconds in review(quick)),
                     ["seconds"], lambda: [""])
    return {"inputs": total.inputs, "crashes": total.crashes, "hangs": total.hangs,
            "bytes_leaked": total.leaked}


def issue33_inputs(quick: bool) -> dict[str, object]:
    """Issue 33's input defects and their classes (:mod:`tests.reliability.inputs`), a table."""
    from .inputs import SLOW, review

    every: list[float] = []

    def cases() -> Iterator[tuple[str, Tally, list[str]]]:
        for item, tally, _, times in review(quick):
            every.extend(times)
            yield item, tally, [f"{max(times, default=0.0):.1f}", str(sum(t > SLOW for t in times))]

    def totals() -> list[str]:
        return [f"**{max(every, default=0.0):.1f}**", f"**{sum(t > SLOW for t in every)}**"]

    total = _tallies(cases(), ["slowest run (s)", f"runs over {SLOW:.0f} s"], totals)
    return {"inputs": total.inputs, "crashes": total.crashes, "hangs": total.hangs,
            "bytes_leaked": total.leaked, "slow_runs": sum(t > SLOW for t in every),
            "slowest_seconds": round(max(every, default=0.0), 2)}


def _tallies(cases: Iterable[tuple[str, Tally, list[str]]], columns: list[str],
             totals: Callable[[], list[str]]) -> Tally:
    """Print each case's tally and notes as it ends, then the table of them all; the total."""
    total = Tally()
    rows = ["| what | inputs | crashes | hangs | bytes leaked | " + " | ".join(columns) + " |",
            "| --- | ---: | ---: | ---: | ---: |" + " ---: |" * len(columns)]
    for item, tally, cells in cases:
        total.add(tally)
        rows.append(f"| {item} | {tally.inputs} | {tally.crashes} | {tally.hangs} | "
                    f"{tally.leaked} | " + " | ".join(cells) + " |")
        print(f"{item}: {tally.inputs} inputs, {tally.crashes} crashes, {tally.hangs} hangs, "
              f"{tally.leaked} bytes leaked", *tally.notes, sep="\n  ", flush=True)
    rows.append(f"| **all** | **{total.inputs}** | **{total.crashes}** | **{total.hangs}** | "
                f"**{total.leaked}** | " + " | ".join(totals()) + " |")
    print("\n".join(rows), flush=True)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs (about a minute)")
    parser.add_argument("--only", action="append", default=[], metavar="SECTION",
                        help="run only this section (repeatable)")
    args = parser.parse_args(argv)
    sections = {
        "hostile review": lambda: hostile_review(args.quick),
        "issue 33 inputs": lambda: issue33_inputs(args.quick),
        "broken code": lambda: broken_code(),
        "random text": lambda: random_text(500 if args.quick else 5000),
        "graph.json mutations": lambda: graph_mutations(500 if args.quick else 5000),
        "search worst case": lambda: search_worst_case(args.quick),
        "heavy files": lambda: heavy_files(args.quick),
    }
    for name, run in sections.items():
        if args.only and name not in args.only:
            continue
        started = time.perf_counter()
        result = run()
        print(f"== {name} ({time.perf_counter() - started:.1f} s)")
        print(json.dumps(result, indent=1, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
