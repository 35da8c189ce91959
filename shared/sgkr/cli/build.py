"""``sgkr build``: sources, knowledge and examples → graph.json, with a one-paragraph summary."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import replace

from ..analysis.merge import MERGE_POLICIES
from ..build.builder import Progress, build_prepared, prepare_build
from ..build.incremental import GraphBuilder
from ..build.options import DEFAULT_MERGE, BuildOptions
from ..build.record import build_key, find_record, store_record
from ..build.watch import changes
from ..errors import InvalidArgumentError, SGKRError
from ..gcpause import paused_gc
from ..ingest.cache import ExtractCache, default_cache_dir
from ..ingest.sources import DEFAULT_MAX_FILE_BYTES, SOURCE_SUFFIXES
from ..records import BuildReport
from .progress import ProgressBar
from .terminal import error_line, json_text

__all__ = ["register", "run", "positive_int", "positive_float", "watch",
           "add_build_options", "build_options", "build_file"]


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr build``, on its parser ``p``."""
    p.description = ("Build a knowledge-code graph from Python sources and Jupyter "
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
        graph.save(args.output)
        report, wrote = graph.report, True
    else:
        bar = ProgressBar(enabled=not args.quiet)
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
    if progress is not None:  # graph.json, its lexical index and summary
        progress("save", 0, 1)
    if store is None:
        graph.save(output)
        return graph.report, True
    from ..algorithms import keptindex
    from ..algorithms.lexicalfile import index_path

    # The index is patched from the counts the last build into this file kept.
    keptindex.reuse_index(graph, store, output)
    graph.save(output)
    keptindex.keep_index(graph, store, output)
    if graph.report is not None:
        store_record(store, key, [output, index_path(output)], graph.report)
    store.close()
    return graph.report, True


#: Seconds between tries while an update or a save keeps failing and nothing changes.
RETRY_SECONDS = 5.0


def watch(builder: GraphBuilder, paths: Sequence[str], output: str, interval: float, *,
          quiet: bool = False, rounds: int | None = None,
          changes: Iterable[Collection[str]] | None = None) -> None:
    """After each batch of changed sources, update ``builder``'s graph and save it.

    Changes to the sources under ``paths`` (those ``builder`` was made with)
    come from :func:`sgkr.build.watch.changes`: the operating system's
    notifications, files followed through their folders. A batch gathers the
    changes of ``interval`` seconds, so a checkout that touches many files
    makes one update. ``changes`` replaces the watcher with any iterable of
    batches of paths (an empty batch: nothing changed, try again what failed);
    ``rounds`` bounds the updates (None: until interrupted).

    Any failure of an update or of the save (sources missing for a moment during
    a ``git checkout``, a parsing process killed, a full disk) is reported once on
    stderr; the last graph written stays, nothing read is lost (an update commits
    only once it succeeds, :class:`~sgkr.build.incremental.GraphBuilder`), and the
    work is tried again at the next change, or after :data:`RETRY_SECONDS`.
    """
    batches = _changes(paths, output, interval) if changes is None else changes
    state = _WatchState()
    done = 0
    for batch in batches:
        if not (batch or state.failing):
            continue  # quiet, and nothing to try again
        _update(builder, output, state, quiet=quiet)
        done += 1
        if rounds is not None and done >= rounds:
            return


def _changes(paths: Sequence[str], output: str, interval: float) -> Iterator[set[str]]:
    """Batches of changed sources under ``paths`` (not the graph file's own writes)."""
    out_dir, out_name = os.path.split(os.path.abspath(output))

    def relevant(path: str) -> bool:
        folder, name = os.path.split(path)
        if folder == out_dir and out_name in name:  # the graph file and its temporary copy
            return False
        return name.endswith(SOURCE_SUFFIXES) or name == ".gitignore"

    return changes(paths, keep=relevant, debounce=interval,
                   retry=max(RETRY_SECONDS, interval))


class _WatchState:
    """Whether the last round failed, and whether a graph made is not saved yet."""

    def __init__(self) -> None:
        self.failing = False
        self.unsaved = False


def _update(builder: GraphBuilder, output: str, state: _WatchState, *, quiet: bool) -> None:
    """One update, saved if anything changed (or a save is owed)."""
    try:
        graph = builder.update()
        update = builder.last_update
        if update is not None and (update.changed or update.added or update.removed):
            state.unsaved = True
        if state.unsaved:
            graph.save(output)
    except Exception as exc:  # every failure: the watch goes on (KeyboardInterrupt stops it)
        if not state.failing:
            line = error_line(exc) if isinstance(exc, (SGKRError, OSError)) \
                else f"{type(exc).__name__}: {exc}"
            print(f"sgkr: warning: {line}; keeping {output}, trying again after the next "
                  f"change", file=sys.stderr, flush=True)
        state.failing = True
        return
    if state.failing and not quiet:
        print("sgkr: the update worked again", file=sys.stderr, flush=True)
    state.failing = False
    if state.unsaved and update is not None and not quiet:
        print(f"updated in {update.seconds:.3f} s ({len(update.changed)} changed, "
              f"{len(update.added)} added, {len(update.removed)} removed); wrote {output}",
              flush=True)
    state.unsaved = False
