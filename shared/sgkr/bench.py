"""``sgkr bench``: how fast SGKR builds, rebuilds, loads and answers on a code base.

One run measures, on the Python files under a path (read-only: the files are
copied to a temporary folder first, and only the copy is touched):

- ``parse_only_s``: a process that reads every file and parses it with tree-sitter,
  and does nothing else (the reference cost), timed whole, from its start to its exit;
- ``build_s``: a process running ``sgkr build --no-cache`` (all cores, inferred tags,
  graph.json and its index written), timed whole the same way; ``build_over_parse``
  and ``build_cpu_over_parse`` are the ratios of the two, wall and processor time,
  and ``build_peak_over_parse`` that of their peak memory (the largest single
  process, workers included);
- ``incremental_s``: the update after one file changed, by a
  :class:`~sgkr.build.incremental.GraphBuilder` kept in this process (what a
  long-running process or a watcher pays);
- ``unchanged_rebuild_s``: a new ``sgkr build`` process with the cache of an earlier
  one, nothing changed since (it finds its files up to date and writes nothing), and
  ``unchanged_rebuild_over_parse``, ``unchanged_rebuild_cpu_over_parse``: its ratios to a
  parse-only process run just before it;
- ``cached_rebuild_s``: a new ``sgkr build`` process with the cache of an earlier one,
  after one file changed (what a second ``sgkr build`` pays), its ratios to the cold
  build (``cached_rebuild_over_build``, ``cached_rebuild_cpu_over_build``: of the medians)
  and to the parse-only process run just before it (``cached_rebuild_over_parse``);
- ``save_s``, ``load_s``, ``graph_bytes``, ``index_bytes``: graph.json and its lexical
  index written after the update (the build saved once before, as ``sgkr build --watch``
  saves it: what a watch pays after each change, with ``incremental_s``) and read back
  (:meth:`KnowledgeGraph.save <sgkr.graph.KnowledgeGraph.save>`,
  :meth:`KnowledgeGraph.load <sgkr.graph.KnowledgeGraph.load>`);
- ``first_query_ms``: a new retriever over the graph loaded back answering its first
  question (what it reads of the whole graph was saved with it: nothing is made);
- ``query_p50_ms``, ``query_p99_ms``: latency of generated questions naming
  random input and output tags of the graph (tag matching, path search and
  ranking included);
- ``peak_rss_mb``: the largest resident memory of the bench's own process (the
  build kept for the update, loading, querying).

On a graph already built (``sgkr bench --graph graph.json``, :func:`run_latency`), only
what a user of the graph file pays is measured, in this process: ``load_s``, the
first question of a new retriever, and the latency of ``tags`` questions (above) or
``names`` questions (:func:`name_questions`: a function's docstring's first line, or
its name in words); ``answers`` writes every answer's documents and scores, one JSON
line a question, so that two versions of SGKR can be compared byte for byte.

With ``store`` (``sgkr bench --store falkor://host:port/name``), the graph is
also pushed to that graph store (``push_s``) and the same questions are asked
through it (``store_query_p50_ms``, ``store_query_p99_ms``); each answer is
compared with the answer from the graph in memory, and ``store_mismatches``
counts those that differ in any document, score, tag or path.

The parse-only process and the cold build are run ``repeat`` times each, in turn
(parse, build, parse, build, ...), then ``repeat`` times a parse-only process, a
rebuild with nothing changed and one after a file changed; each ratio to the parse is
taken pair by pair and the median reported, as are the medians of the times (every
run of the first two is in ``parse_only_runs_s`` and ``build_runs_s``). Not the
fastest: where the machine's speed drifts, a short run catches a fast moment more
often than a long one, so the fastest runs would flatter the parse against the build;
pairing keeps a ratio meaningful while it drifts.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "fees.py").write_text(
...     "def average_fee(amount, rate):\\n    return scale(amount) * rate\\n"
...     "def scale(amount):\\n    return amount / 100\\n")
>>> report = run_bench(folder, queries=5, jobs=1)
>>> report.files, report.functions, report.call_edges, report.queries
(1, 2, 1, 5)
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .algorithms.lexicalfile import index_path
from .atomic import write_atomic
from .build.batch import default_jobs
from .build.incremental import GraphBuilder
from .build.options import BuildOptions
from .errors import InvalidArgumentError, SGKRError, SourceError
from .graph.model import KnowledgeGraph
from .ingest.sources import SourceFile, nothing_read, read_sources
from .masking import mask_url
from .records import RetrievalResult
from .retrieval.retriever import Retriever
from .stores import is_store_url
from .text import words

__all__ = ["BenchReport", "ProcessRun", "run_process", "run_bench", "make_questions",
           "percentile", "PARSE_ONLY_SCRIPT", "DEFAULT_QUERIES", "DEFAULT_REPEAT",
           "LatencyReport", "run_latency", "name_questions", "QUESTIONS"]

DEFAULT_QUERIES = 200
#: Runs of the parse-only time and of the cold build; the median of each is reported.
DEFAULT_REPEAT = 5
# ru_maxrss is in kilobytes, on macOS in bytes.
_RSS_SCALE = 1024 * 1024 if sys.platform == "darwin" else 1024
Log = Callable[[str], None]
_PROBE = "\n\ndef _sgkr_bench_probe_{n}(value):\n    return value\n"
#: The yardstick: a program that reads every file named in the list file given as its
#: argument and parses it with tree-sitter, and does nothing else.
PARSE_ONLY_SCRIPT = """\
import sys
import tree_sitter_python
from tree_sitter import Language, Parser
parser = Parser(Language(tree_sitter_python.language()))
with open(sys.argv[1], encoding="utf-8") as listing:
    paths = listing.read().splitlines()
for path in paths:
    with open(path, "rb") as handle:
        parser.parse(handle.read())
"""

# Starts the command (argv[2:]) and writes its exit code, wall and processor seconds and
# peak memory (the operating system's accounting, children waited for included) to argv[1].
_TIMER = """\
import os, sys, time
started = time.perf_counter()
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
with open(sys.argv[1], "w") as out:
    out.write(f"{os.waitstatus_to_exitcode(status)} {wall} "
              f"{usage.ru_utime + usage.ru_stime} {usage.ru_maxrss}")
"""


@dataclass(frozen=True)
class ProcessRun:
    """One whole process, timed from outside: from its start to its exit.

    ``cpu_s`` (user and system) and ``peak_mb`` (the largest resident memory of
    the process or of a child it waited for, such as a worker) are the
    operating system's accounting of the finished process; both are 0 where it
    gives none (Windows).
    """

    wall_s: float
    cpu_s: float
    peak_mb: float


def run_process(command: Sequence[str], *, log_file: str | os.PathLike[str]) -> ProcessRun:
    """Run ``command`` to its end; its wall time, processor time and peak memory.

    A small timer process starts the command and waits for it: a process keeps
    the peak memory of the one that forked it as its own starting peak, so the
    command is started from the timer (a few MB) rather than from this process.

    Parameters
    ----------
    command
        The program, a full path, and its arguments (no shell).
    log_file
        Where its standard output and error go (overwritten).

    Raises
    ------
    SGKRError
        If the command fails; the message holds the end of what it wrote.

    Examples
    --------
    >>> import sys, tempfile, os
    >>> run = run_process([sys.executable, "-c", "pass"],
    ...                   log_file=os.path.join(tempfile.mkdtemp(), "log"))
    >>> run.wall_s > 0 and run.cpu_s >= 0 and run.peak_mb >= 0
    True
    """
    figures = f"{os.fspath(log_file)}.run"
    timed = [sys.executable, "-c", _TIMER, figures, *command] if hasattr(os, "wait4") \
        else list(command)
    with open(log_file, "wb") as log:
        started = time.perf_counter()
        code = subprocess.run(timed, stdin=subprocess.DEVNULL, stdout=log,
                              stderr=subprocess.STDOUT, check=False).returncode
        wall, cpu, peak = time.perf_counter() - started, 0.0, 0.0
    if code == 0 and hasattr(os, "wait4"):
        with open(figures, encoding="utf-8") as handle:
            exit_code, wall_s, cpu_s, peak_kb = handle.read().split()
        code, wall, cpu, peak = int(exit_code), float(wall_s), float(cpu_s), float(peak_kb)
    if code != 0:
        with open(log_file, "rb") as log:
            said = log.read()[-2000:].decode("utf-8", "replace")
        raise SGKRError(f"{' '.join(command[:4])} ... failed (exit {code}): {said}")
    return ProcessRun(_round(wall), _round(cpu), _round(peak / _RSS_SCALE, 1))


@dataclass(frozen=True)
class BenchReport:
    """Figures of one ``sgkr bench`` run; times in seconds unless named ``_ms``."""

    path: str
    files: int
    lines: int
    source_bytes: int
    functions: int
    call_edges: int
    tags: int
    jobs: int
    repeat: int
    parse_only_runs_s: tuple[float, ...]
    build_runs_s: tuple[float, ...]
    parse_only_s: float
    build_s: float
    build_over_parse: float
    parse_only_cpu_s: float
    build_cpu_s: float
    build_cpu_over_parse: float
    parse_only_peak_mb: float
    build_peak_mb: float
    build_peak_over_parse: float
    incremental_s: float
    incremental_over_build: float
    incremental_parsed: int
    unchanged_rebuild_s: float
    unchanged_rebuild_over_parse: float
    unchanged_rebuild_cpu_over_parse: float
    cached_rebuild_s: float
    cached_rebuild_over_build: float
    cached_rebuild_cpu_over_build: float
    cached_rebuild_over_parse: float
    save_s: float
    load_s: float
    graph_bytes: int
    index_bytes: int
    first_query_ms: float
    queries: int
    answered: int
    query_p50_ms: float
    query_p99_ms: float
    query_max_ms: float
    peak_rss_mb: float
    store_url: str | None = None
    push_s: float | None = None
    store_query_p50_ms: float | None = None
    store_query_p99_ms: float | None = None
    store_query_max_ms: float | None = None
    store_mismatches: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``sgkr bench --json`` prints."""
        return asdict(self)

    def markdown(self, *, header: bool = True) -> str:
        """The figures as a Markdown table row (with the header row), as the docs show them.

        Examples
        --------
        >>> print(BenchReport("src", 1, 2, 3, 4, 5, 6, 2, 1, (1.0,), (1.5,), 1.0, 1.5, 1.5,
        ...                   0.9, 1.8, 2.0, 20.0, 60.0, 3.0, 0.05, 0.033, 1,
        ...                   0.6, 0.6, 0.7, 0.5, 0.33, 0.4, 0.5, 0.1, 0.2, 1000, 500, 4.0, 3,
        ...                   3, 1.0, 2.0, 3.0, 100.0).markdown(header=False))
        | src | 1 | 2 | 4 | 1.00 s | 1.50 s | 1.50 | 2.00 | 20 MB | 60 MB | 3.00 | 0.0 MB \
| 0.050 s | 3.3 % | 0.60 | 0.33 | 0.40 | 0.20 s | 4.0 ms | 2.00 ms |
        """
        row = (f"| {self.path} | {self.files} | {self.lines} | {self.functions} "
               f"| {self.parse_only_s:.2f} s | {self.build_s:.2f} s | {self.build_over_parse:.2f} "
               f"| {self.build_cpu_over_parse:.2f} | {self.parse_only_peak_mb:.0f} MB "
               f"| {self.build_peak_mb:.0f} MB | {self.build_peak_over_parse:.2f} "
               f"| {self.graph_bytes / 1e6:.1f} MB "
               f"| {self.incremental_s:.3f} s | {100 * self.incremental_over_build:.1f} % "
               f"| {self.unchanged_rebuild_over_parse:.2f} | {self.cached_rebuild_over_build:.2f} "
               f"| {self.cached_rebuild_cpu_over_build:.2f} "
               f"| {self.load_s:.2f} s | {self.first_query_ms:.1f} ms "
               f"| {self.query_p99_ms:.2f} ms |")
        if not header:
            return row
        return "\n".join([
            "| code | files | lines | functions | parse only | cold build | build / parse "
            "| build / parse, CPU | parse peak | build peak | peak / peak | graph.json "
            "| update, 1 file | update / build | rebuild, unchanged / parse "
            "| rebuild, 1 file / build | same, CPU | load | first query | query p99 |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            row])

    def summary(self) -> str:
        """A few human-readable lines."""
        return "\n".join([
            f"{self.path}: {self.files} files, {self.lines} lines, {self.functions} functions, "
            f"{self.call_edges} call edges, {self.tags} tags",
            f"parse only (a process):  {self.parse_only_s:8.3f} s, CPU "
            f"{self.parse_only_cpu_s:.3f} s, peak {self.parse_only_peak_mb:.0f} MB  "
            f"(medians of {self.repeat})",
            f"sgkr build ({self.jobs} jobs):    {self.build_s:8.3f} s, CPU "
            f"{self.build_cpu_s:.3f} s, peak {self.build_peak_mb:.0f} MB",
            f"build / parse, paired:   wall {self.build_over_parse:.2f}, CPU "
            f"{self.build_cpu_over_parse:.2f}, peak memory {self.build_peak_over_parse:.2f}",
            f"update, 1 file changed: {self.incremental_s:8.3f} s  "
            f"({100 * self.incremental_over_build:.1f} % of the build, "
            f"{self.incremental_parsed} file(s) parsed); with the save after it "
            f"{self.incremental_s + self.save_s:.3f} s",
            f"new build from the cache, nothing changed: {self.unchanged_rebuild_s:6.3f} s  "
            f"(wall {self.unchanged_rebuild_over_parse:.2f}, CPU "
            f"{self.unchanged_rebuild_cpu_over_parse:.2f} of a parse, paired)",
            f"new build from the cache, 1 file changed: {self.cached_rebuild_s:6.3f} s  "
            f"(wall {self.cached_rebuild_over_build:.2f}, CPU "
            f"{self.cached_rebuild_cpu_over_build:.2f} of the build; "
            f"{self.cached_rebuild_over_parse:.2f} of a parse)",
            f"graph.json: {self.graph_bytes / 1e6:.1f} MB and its index "
            f"{self.index_bytes / 1e6:.1f} MB: saved after the update {self.save_s:.3f} s, "
            f"load {self.load_s:.3f} s",
            f"a new retriever over it: first question {self.first_query_ms:.1f} ms",
            f"queries: {self.queries} ({self.answered} answered), p50 {self.query_p50_ms:.2f} ms, "
            f"p99 {self.query_p99_ms:.2f} ms, max {self.query_max_ms:.2f} ms",
            f"peak memory of the bench itself: {self.peak_rss_mb:.0f} MB",
            *([f"store {self.store_url}: push {self.push_s:.2f} s; queries p50 "
               f"{self.store_query_p50_ms:.2f} ms, p99 {self.store_query_p99_ms:.2f} ms, "
               f"max {self.store_query_max_ms:.2f} ms; {self.store_mismatches} answer(s) "
               "differ from the graph in memory"] if self.store_url else []),
        ])


def run_bench(
    path: str | os.PathLike[str],
    *,
    queries: int = DEFAULT_QUERIES,
    jobs: int | None = None,
    exclude: Sequence[str] = (),
    max_files: int | None = None,
    infer_tags: bool = True,
    seed: int = 0,
    repeat: int = DEFAULT_REPEAT,
    store: str | None = None,
    log: Log | None = None,
) -> BenchReport:
    """Measure build, rebuild, persistence and query figures on the sources under ``path``.

    Parameters
    ----------
    path
        A Python file or a folder of them. It is only read.
    queries
        Number of generated questions whose latency is measured.
    jobs
        Worker processes of the builds (default: every core).
    exclude
        Glob patterns of files and folders to leave out.
    max_files
        Keep only this many files, spread evenly over the sorted paths (for
        growth curves); default: all.
    infer_tags
        Infer I/O tags from the code (needed for questions on a bare code base).
    seed
        Seed of the question generator.
    repeat
        Runs of the parse-only time and of the cold build, alternating; the
        median of each is reported.
    store
        The URL of a graph store to push the graph to and query through
        (``falkor://host:port/name``; its graph there is replaced).
    log
        Called with a line as each stage starts.

    Returns
    -------
    BenchReport

    Raises
    ------
    SourceError
        If ``path`` does not exist or holds no Python source.
    InvalidArgumentError
        If a number is out of range, or ``store`` is not a store URL.
    StoreError
        If the store fails.
    """
    _check_bench_args(queries, max_files, repeat, store)
    source = Path(path)
    if not source.exists():
        raise SourceError(f"bench path does not exist: {source}")
    say = log or (lambda _line: None)
    base = source.resolve() if source.is_dir() else source.resolve().parent
    files = _bench_files(source, base, exclude, max_files)
    with tempfile.TemporaryDirectory(prefix="sgkr-bench-") as scratch:
        figures, loaded = _build_figures(Path(scratch), files, base,
                                         BuildOptions(infer_tags=infer_tags, jobs=jobs),
                                         repeat, say)
    say(f"{queries} queries")
    questions = make_questions(loaded, queries, seed=seed)
    retriever = Retriever(loaded)
    first = _timed(lambda: retriever.retrieve(questions[0]))[0] if questions else 0.0
    figures["first_query_ms"] = _round(first * 1000)
    latencies, answers = _answers(retriever, questions)
    figures.update(queries=len(latencies), answered=sum(bool(a.documents) for a in answers),
                   **_latency_figures("query", latencies))
    if store is not None:
        figures.update(_store_figures(loaded, store, questions, answers, say))
    return BenchReport(
        path=str(source),
        files=len(files),
        lines=sum(f.text.count("\n") + (not f.text.endswith("\n")) for f in files),
        source_bytes=sum(len(f.text.encode("utf-8", "surrogatepass")) for f in files),
        jobs=jobs or default_jobs(),
        repeat=repeat,
        peak_rss_mb=_round(_peak_rss_mb(), 1),
        **figures,
    )


def _check_bench_args(queries: object, max_files: object, repeat: object,
                      store: object) -> None:
    if not isinstance(queries, int) or isinstance(queries, bool) or queries < 0:
        raise InvalidArgumentError(f"queries must be a non-negative integer, got {queries!r}")
    if max_files is not None and (not isinstance(max_files, int) or max_files < 1):
        raise InvalidArgumentError(f"max_files must be a positive integer, got {max_files!r}")
    if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
        raise InvalidArgumentError(f"repeat must be a positive integer, got {repeat!r}")
    if store is not None and not (isinstance(store, str) and is_store_url(store)):
        shown = mask_url(store) if isinstance(store, str) else store
        raise InvalidArgumentError(f"store must be a store URL (falkor://...), got {shown!r}")


def _bench_files(source: Path, base: Path, exclude: Sequence[str],
                 max_files: int | None) -> list[SourceFile]:
    """The sources under ``source``, thinned evenly to ``max_files``."""
    files, problems = read_sources([source], root=base, exclude=exclude)
    if max_files is not None and len(files) > max_files:
        step = len(files) / max_files
        files = [files[int(i * step)] for i in range(max_files)]
    if not files:
        raise nothing_read(str(source), problems)
    return files


def _build_figures(work: Path, files: Sequence[SourceFile], base: Path, options: BuildOptions,
                   repeat: int, say: Log) -> tuple[dict[str, Any], KnowledgeGraph]:
    """Whole-process cold builds against parse-only processes, a cached rebuild, an update,
    save and load, on copies of ``files`` under ``work``; the figures and the graph loaded
    back."""
    tree = work / "src"
    for file in files:
        target = tree / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(base / file.path, target)
    listing = work / "files.txt"
    listing.write_text("".join(f"{tree / f.path}\n" for f in files), encoding="utf-8")
    options = BuildOptions.from_kwargs(options, root=tree)
    figures = _cold_builds(_build_command(tree, work / "cold.json", options),
                           [sys.executable, "-c", PARSE_ONLY_SCRIPT, str(listing)],
                           work, repeat, say)
    figures["graph_bytes"] = (work / "cold.json").stat().st_size
    cached = _build_command(tree, work / "cached.json", options, work / "cache")
    run_process(cached, log_file=work / "build.log")  # fills the cache
    say("a build kept in this process, for the update")
    builder = GraphBuilder([tree], options)
    built = builder.build()
    stats = built.stats()  # of the cold build: the update below changes the graph
    target = work / "graph.json"
    built.save(target)  # as a watch saves its first graph, before the update
    del built
    probe = tree / _probe_file(files)
    figures.update(_rebuilds(cached, [sys.executable, "-c", PARSE_ONLY_SCRIPT, str(listing)],
                             probe, work, repeat, say, cold=figures))
    say("update after one file changed")
    _append(probe, _PROBE.format(n=repeat + 1))
    incremental_s, graph = _timed(builder.update)
    update = builder.last_update
    say("save and load graph.json and its index")
    save_s, _ = _timed(lambda: graph.save(target))
    load_s, loaded = _timed(lambda: KnowledgeGraph.load(target))
    build_s = figures["build_s"]
    figures.update({
        "functions": stats["functions"],
        "call_edges": sum(stats["call_edges"].values()),
        "tags": stats["tags"],
        "incremental_s": _round(incremental_s),
        "incremental_over_build": _share(incremental_s, build_s),
        "incremental_parsed": len(update.changed) + len(update.added) if update else 0,
        "save_s": _round(save_s),
        "load_s": _round(load_s),
        "index_bytes": index_path(target).stat().st_size,
    })
    return figures, loaded


def _build_command(tree: Path, output: Path, options: BuildOptions,
                   cache: Path | None = None) -> list[str]:
    """``sgkr build`` of ``tree`` into ``output`` as ``options`` say, with ``cache`` or none."""
    return [sys.executable, "-m", "sgkr", "build", str(tree), "-o", str(output), "--quiet",
            *(["--cache", str(cache)] if cache is not None else ["--no-cache"]),
            "--infer-tags" if options.infer_tags else "--no-infer-tags",
            *(["--jobs", str(options.jobs)] if options.jobs is not None else [])]


def _cold_builds(build: list[str], parse: list[str], work: Path, repeat: int,
                 say: Log) -> dict[str, Any]:
    """``repeat`` parse-only processes and cold ``sgkr build`` processes, in turn; their
    medians and the medians of the pairs' ratios."""
    parses: list[ProcessRun] = []
    builds: list[ProcessRun] = []
    for run in range(1, repeat + 1):
        say(f"parse-only process (run {run} of {repeat})")
        parses.append(run_process(parse, log_file=work / "parse.log"))
        say(f"sgkr build process (run {run} of {repeat})")
        builds.append(run_process(build, log_file=work / "build.log"))
    return {
        "parse_only_runs_s": tuple(r.wall_s for r in parses),
        "build_runs_s": tuple(r.wall_s for r in builds),
        "parse_only_s": _median(parses, "wall_s"), "build_s": _median(builds, "wall_s"),
        "build_over_parse": _ratio(builds, parses, "wall_s"),
        "parse_only_cpu_s": _median(parses, "cpu_s"), "build_cpu_s": _median(builds, "cpu_s"),
        "build_cpu_over_parse": _ratio(builds, parses, "cpu_s"),
        "parse_only_peak_mb": _median(parses, "peak_mb"),
        "build_peak_mb": _median(builds, "peak_mb"),
        "build_peak_over_parse": _ratio(builds, parses, "peak_mb"),
    }


def _rebuilds(cached: list[str], parse: list[str], probe: Path, work: Path, repeat: int,
              say: Log, *, cold: dict[str, Any]) -> dict[str, Any]:
    """``repeat`` rounds of a parse-only process, a ``sgkr build`` from the cache with
    nothing changed, and one after ``probe`` changed; the medians, the medians of the
    ratios to the parse of the same round, and those of the medians to the ``cold``
    build's."""
    parses: list[ProcessRun] = []
    unchanged: list[ProcessRun] = []
    changed: list[ProcessRun] = []
    for run in range(1, repeat + 1):
        say(f"parse-only process, then new builds from the cache (run {run} of {repeat})")
        parses.append(run_process(parse, log_file=work / "parse.log"))
        unchanged.append(run_process(cached, log_file=work / "build.log"))
        _append(probe, _PROBE.format(n=run))
        changed.append(run_process(cached, log_file=work / "build.log"))
    return {
        "unchanged_rebuild_s": _median(unchanged, "wall_s"),
        "unchanged_rebuild_over_parse": _ratio(unchanged, parses, "wall_s"),
        "unchanged_rebuild_cpu_over_parse": _ratio(unchanged, parses, "cpu_s"),
        "cached_rebuild_s": _median(changed, "wall_s"),
        "cached_rebuild_over_build": _share(_median(changed, "wall_s"), cold["build_s"]),
        "cached_rebuild_cpu_over_build": _share(_median(changed, "cpu_s"), cold["build_cpu_s"]),
        "cached_rebuild_over_parse": _ratio(changed, parses, "wall_s"),
    }


def _median(runs: Sequence[ProcessRun], field: str) -> float:
    return _round(statistics.median(getattr(r, field) for r in runs))


def _ratio(runs: Sequence[ProcessRun], parses: Sequence[ProcessRun], field: str) -> float:
    """The median of ``runs``' ``field`` over the parse's of the same round."""
    return _round(statistics.median(
        getattr(r, field) / getattr(p, field) if getattr(p, field) else 0.0
        for r, p in zip(runs, parses, strict=True)))


def _share(part: float, whole: float) -> float:
    return _round(part / whole if whole else 0.0)


def make_questions(graph: KnowledgeGraph, count: int, *, seed: int = 0) -> list[str]:
    """Questions naming two random input tags and one or two random output tags.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> g = build_graph([("m.py", "def average_fee(amount, rate):\\n    return amount * rate\\n")],
    ...                 infer_tags=True)
    >>> make_questions(g, 1)
    ['Given the rate and the amount, what is the average fee?']
    """
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise InvalidArgumentError(f"count must be a non-negative integer, got {count!r}")
    tags = list(graph.tags())
    inputs = [t.label for t in tags if graph.consumers(t.id)]
    outputs = [t.label for t in tags if graph.producers(t.id)]
    if not inputs or not outputs:
        return []
    rng = random.Random(seed)
    questions: list[str] = []
    for _ in range(count):
        given = rng.sample(inputs, min(2, len(inputs)))
        asked = rng.sample(outputs, min(rng.choice((1, 2)), len(outputs)))
        questions.append(f"Given the {' and the '.join(given)}, what is the "
                         f"{' and the '.join(asked)}?")
    return questions


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile of ``values`` (0 for none).

    Examples
    --------
    >>> percentile([3.0, 1.0, 2.0, 4.0], 50), percentile(list(range(1, 101)), 99)
    (2.0, 99)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[min(len(ordered), int(rank)) - 1]


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def _timed(work: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def _probe_file(files: Sequence[SourceFile]) -> str:
    """A file of median size: the one the incremental rebuild finds changed."""
    ordered = sorted(files, key=lambda f: (len(f.text), f.path))
    return ordered[len(ordered) // 2].path


def _store_figures(graph: KnowledgeGraph, url: str, questions: Sequence[str],
                   in_memory: Sequence[RetrievalResult], say: Log) -> dict[str, Any]:
    """Push ``graph`` to the store at ``url``; time the questions through it, and compare
    the answers with ``in_memory``, those of the graph in memory."""
    from .stores.falkor import push_graph

    say(f"push to {mask_url(url)}")
    push_s, _ = _timed(lambda: push_graph(graph, url))
    store = Retriever(store=url)
    say(f"{len(questions)} queries through {store.store.url}")
    latencies, results = _answers(store, questions)
    mismatches = sum(a != b for a, b in zip(results, in_memory, strict=True))
    return {"store_url": store.store.url, "push_s": _round(push_s),
            **_latency_figures("store_query", latencies), "store_mismatches": mismatches}


def _answers(retriever: Retriever, questions: Sequence[str]
             ) -> tuple[list[float], list[RetrievalResult]]:
    """The time each question took and its answer, after a warm-up question."""
    if questions:
        retriever.retrieve(questions[0])  # warm-up: first-use costs are not query latency
    latencies: list[float] = []
    results: list[RetrievalResult] = []
    for question in questions:
        started = time.perf_counter()
        results.append(retriever.retrieve(question))
        latencies.append(time.perf_counter() - started)
    return latencies, results


def _latency_figures(name: str, latencies: Sequence[float]) -> dict[str, float]:
    return {f"{name}_p50_ms": _round(percentile(latencies, 50) * 1000),
            f"{name}_p99_ms": _round(percentile(latencies, 99) * 1000),
            f"{name}_max_ms": _round(max(latencies, default=0.0) * 1000)}


def _peak_rss_mb() -> float:
    try:
        import resource
    except ImportError:  # not on Windows
        return 0.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / _RSS_SCALE


def _round(value: float, digits: int = 4) -> float:
    return round(float(value), digits)


#: How the questions are made: from tags, or from functions' docstrings and names.
QUESTIONS = ("tags", "names")


@dataclass(frozen=True)
class LatencyReport:
    """Figures of one ``sgkr bench --graph`` run; times in seconds unless named ``_ms``."""

    graph: str
    functions: int
    tags: int
    questions: str
    load_s: float
    first_query_ms: float
    queries: int
    answered: int
    query_p50_ms: float
    query_p99_ms: float
    query_max_ms: float
    peak_rss_mb: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``sgkr bench --graph ... --json`` prints."""
        return asdict(self)

    def summary(self) -> str:
        """A few human-readable lines."""
        return "\n".join([
            f"{self.graph}: {self.functions} functions, {self.tags} tags",
            f"load {self.load_s:.3f} s; a new retriever's first question "
            f"{self.first_query_ms:.1f} ms",
            f"{self.queries} {self.questions} questions ({self.answered} answered): p50 "
            f"{self.query_p50_ms:.2f} ms, p99 {self.query_p99_ms:.2f} ms, max "
            f"{self.query_max_ms:.2f} ms",
            f"peak memory {self.peak_rss_mb:.0f} MB"])


def run_latency(graph: str | os.PathLike[str], *, queries: int = 200, seed: int = 0,
                questions: str = "tags",
                answers: str | os.PathLike[str] | None = None) -> LatencyReport:
    """Load the graph file ``graph``, then time its first and next questions.

    Raises
    ------
    InvalidArgumentError
        If ``queries`` is negative or ``questions`` is not one of :data:`QUESTIONS`.
    GraphFormatError
        If the graph file cannot be read.
    """
    if not isinstance(queries, int) or isinstance(queries, bool) or queries < 0:
        raise InvalidArgumentError(f"queries must be a non-negative integer, got {queries!r}")
    if questions not in QUESTIONS:
        raise InvalidArgumentError(f"questions must be one of {QUESTIONS}, got {questions!r}")
    started = time.perf_counter()
    loaded = KnowledgeGraph.load(graph)
    load_s = time.perf_counter() - started
    asked = (make_questions if questions == "tags" else name_questions)(loaded, queries,
                                                                          seed=seed)
    retriever = Retriever(loaded)
    latencies: list[float] = []
    found = []
    for question in [*asked[:1], *asked]:  # the first one twice: the first question, then warm
        started = time.perf_counter()
        found.append(retriever.retrieve(question))
        latencies.append(time.perf_counter() - started)
    if answers is not None:
        _write_answers(Path(answers), asked, found[1:])
    stats = loaded.stats()
    timed = latencies[1:]
    return LatencyReport(
        graph=str(graph), functions=stats["functions"], tags=stats["tags"],
        questions=questions, load_s=round(load_s, 4),
        first_query_ms=round(latencies[0] * 1000, 3) if latencies else 0.0,
        queries=len(timed), answered=sum(bool(r.documents) for r in found[1:]),
        query_p50_ms=round(percentile(timed, 50) * 1000, 3),
        query_p99_ms=round(percentile(timed, 99) * 1000, 3),
        query_max_ms=round(max(timed, default=0.0) * 1000, 3),
        peak_rss_mb=_round(_peak_rss_mb(), 1))


def name_questions(graph: KnowledgeGraph, count: int, *, seed: int = 0) -> list[str]:
    """Questions about ``count`` functions drawn (seeded) from those with a docstring:
    in turn, the first line of its docstring, and its name in words with its module's.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> g = build_graph([("fees.py", "def average_fee(amount):\\n"
    ...                  "    '''Average fee of an amount.'''\\n    return amount\\n"
    ...                  "def parse_rate(text):\\n    '''Parse a rate.'''\\n    return text\\n")])
    >>> sorted(name_questions(g, 2))
    ['Parse a rate.', 'Where do we average fee in fees?']
    """
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise InvalidArgumentError(f"count must be a non-negative integer, got {count!r}")
    documented = [f for f in graph.functions() if f.kind != "module" and f.knowledge.strip()]
    picked = random.Random(seed).sample(documented, min(count, len(documented)))
    out = []
    for n, node in enumerate(picked):
        if n % 2 == 0:
            out.append(node.knowledge.strip().split("\n", 1)[0][:200])
        else:
            module = min(node.qualnames, default=node.name).rpartition(".")[0]
            where = f" in {' '.join(words(module))}" if module else ""
            out.append(f"Where do we {' '.join(words(node.name))}{where}?")
    return out


def _write_answers(path: Path, questions: Sequence[str], found: Sequence[Any]) -> None:
    lines = [json.dumps({"question": q, "documents": [[d.id, d.score] for d in r.documents]},
                        ensure_ascii=False) for q, r in zip(questions, found, strict=True)]
    write_atomic(path, "".join(f"{line}\n" for line in lines).encode("utf-8"))


