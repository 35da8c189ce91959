"""``sgkr build``: sources, knowledge and examples → graph.json, with a one-paragraph summary."""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import NoReturn, TextIO

from tqdm import tqdm

from ..algorithms.lexicalfile import index_path, save_graph
from ..analysis.merge import MERGE_POLICIES
from ..build.builder import Progress, build_prepared, prepare_build
from ..build.incremental import GraphBuilder
from ..build.options import DEFAULT_MERGE, BuildOptions
from ..build.record import build_key, find_record, store_record
from ..errors import InvalidArgumentError, SGKRError
from ..gcpause import paused_gc
from ..ingest.cache import ExtractCache, default_cache_dir
from ..ingest.sources import DEFAULT_MAX_FILE_BYTES, SOURCE_SUFFIXES
from ..records import BuildReport
from .terminal import error_line, json_text

__all__ = ["register", "run", "ProgressBar", "positive_int", "positive_float", "watch",
           "add_build_options", "build_options", "build_file"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``build`` command."""
    p = sub.add_parser("build", help="build graph.json from Python sources and notebooks",
                       description="Build a knowledge-code graph from Python sources and Jupyter "
                                   "notebooks.")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="Python files, notebooks (.ipynb) or folders")
    add_build_options(p)
    p.add_argument("-o", "--output", default="graph.json", help="graph file to write")
    p.add_argument("--cache", metavar="DIR", default=None,
                   help="content-hash cache of parsed files (default: a folder for the "
                        "output's folder under ~/.cache/sgkr)")
    p.add_argument("--no-cache", action="store_true", help="parse every file, keep no cache")
    p.add_argument("--watch", type=positive_float, default=None, metavar="SECONDS",
                   help="keep running: after sources change (changes gathered for SECONDS), "
                        "update the graph from the files that changed and write it again "
                        "(Ctrl-C stops)")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object (counts and every problem)")
    p.set_defaults(run=run)


def add_build_options(p: argparse._ActionsContainer) -> None:
    """The options of a build from sources, shared by ``build`` and ``mcp``."""
    p.add_argument("--knowledge", metavar="FILE", help="sidecar knowledge file (JSON or YAML)")
    p.add_argument("--examples", metavar="FILE",
                   help="examples JSONL of solved tasks: earlier questions with their solutions "
                        "(question and file or code; tags optional)")
    p.add_argument("--solutions", metavar="DIR",
                   help="solved tasks as a folder of solution files (.py, .ipynb) matched by id "
                        "to --tasks")
    p.add_argument("--tasks", metavar="FILE",
                   help="the task list of --solutions: JSONL, JSON or CSV of id and question")
    p.add_argument("--merge", choices=MERGE_POLICIES, default=DEFAULT_MERGE,
                   help=f"how identical functions merge (default: {DEFAULT_MERGE})")
    infer = p.add_mutually_exclusive_group()
    infer.add_argument("--infer-tags", dest="infer_tags", action="store_true", default=None,
                       help="infer I/O tags from code also beside curated tags (default: "
                            "inferred only when the knowledge and examples give no tag)")
    infer.add_argument("--no-infer-tags", dest="infer_tags", action="store_false",
                       help="never infer I/O tags from code")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="leave out files or folders matching GLOB (repeatable)")
    p.add_argument("--no-gitignore", action="store_true",
                   help="read what .gitignore files ignore too")
    p.add_argument("--max-file-bytes", type=int, default=DEFAULT_MAX_FILE_BYTES,
                   help="skip larger files; a notebook counts without its outputs "
                        "(default: %(default)s)")
    p.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                   help="processes that parse files (default: all cores; small builds: 1)")


def build_options(args: argparse.Namespace, cache: str | os.PathLike[str] | None) -> BuildOptions:
    """The :class:`BuildOptions` of the flags :func:`add_build_options` added."""
    return BuildOptions(
        knowledge=args.knowledge, examples=args.examples, solutions=args.solutions,
        tasks=args.tasks, merge=args.merge,
        infer_tags=args.infer_tags, exclude=args.exclude, max_file_bytes=args.max_file_bytes,
        jobs=args.jobs, gitignore=not args.no_gitignore, cache=cache)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (``--jobs``, ``--max-files``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


MAX_WATCH_SECONDS = 86_400.0


def positive_float(text: str) -> float:
    """An argparse type: a number of seconds greater than 0, at most a day (``--watch``)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= MAX_WATCH_SECONDS:  # NaN and infinity fail too
        raise argparse.ArgumentTypeError(
            f"expected a positive number of seconds, at most {MAX_WATCH_SECONDS:g}, "
            f"got {text!r}")
    return value


class ProgressBar:
    """A build's ``progress(stage, done, total)`` drawn as a bar, on a terminal only.

    Nothing is written when ``stream`` (default: standard error) is not a
    terminal, nor for a stage that ends within ``delay`` seconds. A stage that
    runs longer is shown from then on, its clock ticking while no file is
    done (workers parsing their first files, calls being resolved), so the
    screen is never blank while a build works.

    Examples
    --------
    >>> import io
    >>> bar = ProgressBar(io.StringIO())  # not a terminal: silent
    >>> bar("parse", 10, 20); bar.close()
    >>> bar.enabled
    False
    """

    def __init__(self, stream: TextIO | None = None, *, delay: float = 0.5,
                 tick: float = 0.5) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.delay = delay
        self.tick = tick
        self._bar: tqdm[NoReturn] | None = None
        self._stage: str | None = None
        self._lock = threading.Lock()
        self._ticking: threading.Thread | None = None
        self._stop = threading.Event()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        with self._lock:
            if stage != self._stage or self._bar is None:
                self._close_bar()
                self._stage = stage
                self._bar = tqdm(total=total, desc=stage, unit="file", file=self.stream,
                                 delay=self.delay, leave=False, dynamic_ncols=True)
            self._bar.update(done - self._bar.n)
        if self._ticking is None:
            self._ticking = threading.Thread(target=self._tick, name="sgkr-progress",
                                             daemon=True)
            self._ticking.start()

    def _tick(self) -> None:
        """Redraw the open bar now and then: its elapsed time moves while nothing is done."""
        while not self._stop.wait(self.tick):
            with self._lock:
                bar = self._bar
                if bar is not None and time.time() - bar.start_t >= self.delay:
                    bar.refresh()

    def close(self) -> None:
        """Take the bar off the screen and stop redrawing it."""
        self._stop.set()
        if self._ticking is not None:
            self._ticking.join()
        with self._lock:
            self._close_bar()
        self._stop.clear()
        self._ticking = None

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
        self._bar, self._stage = None, None


def _say_if_cache_unused(cache: ExtractCache) -> None:
    """One warning on stderr when the cache folder will not be used (the build goes on)."""
    try:
        why = None if cache.usable() else cache.refused
    except OSError as exc:
        why = error_line(exc)
    if why is not None:
        print(f"sgkr: warning: cache not used: {why}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Build and save the graph; print the summary (and, with ``--watch``, keep updating)."""
    options = build_options(
        args, None if args.no_cache else (args.cache or default_cache_dir(args.output)))
    if args.json and args.watch is not None:
        raise InvalidArgumentError("--json prints one summary: it does not go with --watch")
    if isinstance(options.cache, (str, os.PathLike)):
        _say_if_cache_unused(ExtractCache(options.cache))
    if args.watch is not None:
        builder = GraphBuilder(args.paths, options)
        graph = builder.build()
        save_graph(graph, args.output)
        report, wrote = graph.report, True
    else:
        bar = ProgressBar()
        try:
            report, wrote = build_file(args.paths, options, args.output, progress=bar)
        finally:
            bar.close()
    if args.json and report is not None:
        print(json_text({"output": args.output, **report.to_dict()}))
    elif not args.quiet and report is not None:
        print(report.summary(verbose=getattr(args, "verbose", False)))
        print(f"wrote {args.output}" if wrote else f"{args.output} is up to date")
    if args.watch is not None:
        try:
            watch(builder, args.paths, args.output, args.watch, quiet=args.quiet)
        except KeyboardInterrupt:
            pass
    return 0


def build_file(paths: Sequence[str], options: BuildOptions, output: str, *,
               progress: Progress | None = None) -> tuple[BuildReport | None, bool]:
    """Build the graph of ``paths`` into ``output`` (and its lexical index beside it);
    its report, and whether the files were written.

    With a cache (``options.cache``), a build whose inputs, output and code are
    those of the last one recorded there (:mod:`sgkr.build.record`), and whose files
    are still as that build wrote them, writes nothing: the files are up to date.
    """
    with paused_gc(long_lived=True):
        prepared = prepare_build(paths, options, progress=progress)
        cache = options.cache
        store = None if cache is None else (
            cache if isinstance(cache, ExtractCache) else ExtractCache(cache))
        key = build_key(prepared, output) if store is not None else ""
        found = find_record(store, key) if store is not None else None
        if found is not None and found.current():
            seconds = time.perf_counter() - prepared.started
            return replace(found.report, seconds=seconds), False
        graph = build_prepared(prepared, options, progress=progress)
    save_graph(graph, output)
    if store is not None and graph.report is not None:
        store_record(store, key, [output, index_path(output)], graph.report)
        store.close()
    return graph.report, True


def watch(builder: GraphBuilder, paths: Sequence[str], output: str, interval: float, *,
          quiet: bool = False, rounds: int | None = None,
          changes: Iterable[Collection[str]] | None = None) -> None:
    """After each batch of changed sources, update ``builder``'s graph and save it.

    Changes to the sources under ``paths`` (those ``builder`` was made with)
    come from ``watchfiles``: the operating system's notifications. A batch
    gathers the changes of ``interval`` seconds, so a checkout that touches many
    files makes one update. ``changes`` replaces the watcher with any iterable
    of batches of paths; ``rounds`` bounds the updates (None: until interrupted).
    An update that fails (sources missing for a moment, during a ``git
    checkout``) is reported once on stderr; the last graph written stays and the
    next batch tries again.
    """
    batches = _changes(paths, output, interval) if changes is None else changes
    failing = False
    for done, _batch in enumerate(batches, start=1):
        failing = _update(builder, output, quiet=quiet, failing=failing)
        if rounds is not None and done >= rounds:
            return


def _changes(paths: Sequence[str], output: str, interval: float) -> Iterator[set[str]]:
    """Batches of changed sources under ``paths`` (not the graph file's own writes)."""
    import watchfiles

    out_dir, out_name = os.path.split(os.path.abspath(output))

    def relevant(_change: watchfiles.Change, path: str) -> bool:
        folder, name = os.path.split(path)
        if folder == out_dir and out_name in name:  # the graph file and its temporary copy
            return False
        return name.endswith(SOURCE_SUFFIXES) or name == ".gitignore"

    for batch in watchfiles.watch(*paths, watch_filter=relevant,
                                  debounce=int(interval * 1000), step=50):
        yield {path for _, path in batch}


def _update(builder: GraphBuilder, output: str, *, quiet: bool, failing: bool) -> bool:
    """One update, saved if anything changed; whether it failed."""
    try:
        graph = builder.update()
    except (SGKRError, OSError) as exc:
        # A checkout or a save in progress can leave the sources missing for a
        # moment: the last graph written stays, and the next change tries again.
        if not failing:
            print(f"sgkr: warning: {error_line(exc)}; keeping {output}, trying again "
                  f"after the next change", file=sys.stderr, flush=True)
        return True
    if failing and not quiet:
        print("sources readable again", file=sys.stderr, flush=True)
    update = builder.last_update
    if update is None or not (update.changed or update.added or update.removed):
        return False
    save_graph(graph, output)
    if not quiet:
        print(f"updated in {update.seconds:.3f} s ({len(update.changed)} changed, "
              f"{len(update.added)} added, {len(update.removed)} removed); wrote {output}",
              flush=True)
    return False