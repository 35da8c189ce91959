"""The options of a build, shared by :func:`~sgkr.build.build_graph`, ``GraphBuilder`` and the CLI.

Examples
--------
>>> options = BuildOptions(merge="name", infer_tags=True, exclude="tests")
>>> options.exclude
('tests',)
>>> BuildOptions.from_kwargs(infer=True)
Traceback (most recent call last):
    ...
sgkr.errors.InvalidArgumentError: unknown build option(s): ['infer'] (did you mean 'infer_tags'?)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ..analysis.merge import MERGE_POLICIES
from ..errors import InvalidArgumentError
from ..ingest.cache import ExtractCache
from ..ingest.sources import DEFAULT_MAX_FILE_BYTES
from ..tags.examples import Example
from ..tags.sidecar import Sidecar
from ..text import shown

__all__ = ["BuildOptions", "DEFAULT_MERGE", "MAX_JOBS"]

DEFAULT_MERGE = "auto"
#: The most processes a build may be asked to parse with (each holds its own memory).
MAX_JOBS = 256
_PATH = (str, os.PathLike)


@dataclass(frozen=True)
class BuildOptions:
    """How a graph is built: everything but the sources and progress reporting.

    Attributes
    ----------
    knowledge
        A sidecar file (JSON or YAML) or a parsed :class:`~sgkr.tags.sidecar.Sidecar`.
    examples
        An examples JSONL file, or parsed examples: earlier questions with their
        solutions (``question`` and ``file`` or ``code``; tags optional). Their solution
        code is parsed like any source; each question grounds its I/O tags on it, and
        the graph keeps the questions (:attr:`sgkr.graph.KnowledgeGraph.tasks`).
    solutions, tasks
        Solved tasks as a folder of solution files (``.py`` or notebooks) and a task
        list (JSONL, JSON or CSV of ``id`` and ``question``), matched by id
        (:mod:`sgkr.tags.tasklist`); given together, beside or instead of ``examples``.
    merge
        ``auto`` (default), ``name``, ``qualname`` or ``none`` (see :mod:`sgkr.analysis.merge`).
    infer_tags
        Infer I/O tags from code (parameters, keys and columns read, names
        of returned values, function names, docstrings) for the functions
        that get none from the sidecar or the examples. ``None`` (default):
        infer when the build has no curated tag at all (no tags in the
        sidecar, none in the examples), as for plain code; ``False``: never;
        ``True``: also beside curated tags, which always win.
    root
        Folder that file paths and qualnames are relative to (default: the
        deepest folder holding all sources and the examples file).
    max_file_bytes
        Larger files are skipped and reported.
    exclude
        Glob patterns of files and folders to leave out (see
        :func:`sgkr.ingest.sources.read_sources`); one string is one pattern.
    jobs
        Processes that parse files, this one included; ``None`` (default)
        uses every core for large builds and parses small ones in-process;
        ``1`` never starts a process; at most :data:`MAX_JOBS`. The graph does
        not depend on it.
    cache
        A folder of per-file extraction results keyed by content hash
        (see :mod:`sgkr.ingest.cache`): unchanged files are not parsed again.
        ``None`` (default): no cache.
    gitignore
        Leave out what the ``.gitignore`` files inside the source folders
        ignore (default); a path given by name is read all the same.

    Raises
    ------
    InvalidArgumentError
        An option has a wrong type or value; the message names it.
    """

    knowledge: str | os.PathLike[str] | Sidecar | None = None
    examples: str | os.PathLike[str] | Sequence[Example] | None = None
    solutions: str | os.PathLike[str] | None = None
    tasks: str | os.PathLike[str] | None = None
    merge: str = DEFAULT_MERGE
    infer_tags: bool | None = None
    root: str | os.PathLike[str] | None = None
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    exclude: Sequence[str] = ()
    jobs: int | None = None
    cache: str | os.PathLike[str] | ExtractCache | None = None
    gitignore: bool = True

    def __post_init__(self) -> None:
        if self.knowledge is not None and not isinstance(self.knowledge, (*_PATH, Sidecar)):
            raise InvalidArgumentError(
                f"knowledge must be a path or a Sidecar, got {shown(self.knowledge)}")
        if self.examples is not None and not isinstance(self.examples, _PATH):
            if not isinstance(self.examples, Sequence) or not all(
                    isinstance(e, Example) for e in self.examples):
                raise InvalidArgumentError(
                    f"examples must be a path or a list of Example, got {shown(self.examples)}")
            object.__setattr__(self, "examples", tuple(self.examples))
        _check_task_folder(self.solutions, self.tasks)
        if self.merge not in MERGE_POLICIES:
            raise InvalidArgumentError(f"merge={shown(self.merge)} is not one of {MERGE_POLICIES}")
        if self.infer_tags is not None and not isinstance(self.infer_tags, bool):
            raise InvalidArgumentError(
                f"infer_tags must be True, False or None, got {shown(self.infer_tags)}")
        if self.root is not None and not isinstance(self.root, _PATH):
            raise InvalidArgumentError(f"root must be a path, got {shown(self.root)}")
        if not _whole(self.max_file_bytes) or self.max_file_bytes <= 0:
            raise InvalidArgumentError(
                f"max_file_bytes must be positive, got {shown(self.max_file_bytes)}")
        object.__setattr__(self, "exclude", _patterns(self.exclude))
        if self.jobs is not None and (not _whole(self.jobs) or not 1 <= self.jobs <= MAX_JOBS):
            raise InvalidArgumentError(
                f"jobs must be an integer from 1 to {MAX_JOBS} or None, got {shown(self.jobs)}")
        if not isinstance(self.gitignore, bool):
            raise InvalidArgumentError(
                f"gitignore must be True or False, got {shown(self.gitignore)}")
        if self.cache is not None and not isinstance(self.cache, (*_PATH, ExtractCache)):
            raise InvalidArgumentError(
                f"cache must be a folder or an ExtractCache, got {shown(self.cache)}")

    @classmethod
    def from_kwargs(cls, base: BuildOptions | None = None, /, **kwargs: Any) -> BuildOptions:
        """``base`` (default: the defaults) with the options named in ``kwargs`` changed.

        Unknown names are an error naming them.

        Examples
        --------
        >>> BuildOptions.from_kwargs(BuildOptions(merge="name"), jobs=1).merge
        'name'
        """
        unknown = sorted(set(kwargs) - {f.name for f in fields(cls)})
        if unknown:
            hint = " (did you mean 'infer_tags'?)" if "infer" in unknown else ""
            raise InvalidArgumentError(f"unknown build option(s): {unknown}{hint}")
        if base is not None and not isinstance(base, BuildOptions):
            raise InvalidArgumentError(f"options must be a BuildOptions, got {base!r}")
        return replace(base, **kwargs) if base is not None else cls(**kwargs)


def _check_task_folder(solutions: object, tasks: object) -> None:
    for name, value in (("solutions", solutions), ("tasks", tasks)):
        if value is not None and not isinstance(value, _PATH):
            raise InvalidArgumentError(f"{name} must be a path, got {shown(value)}")
    if (solutions is None) != (tasks is None):
        raise InvalidArgumentError("give solutions (a folder) and tasks (a task list) together")


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _patterns(exclude: object) -> tuple[str, ...]:
    # A string is one pattern, not a sequence of one-letter patterns.
    if isinstance(exclude, str):
        return (exclude,)
    if not isinstance(exclude, Sequence) or not all(isinstance(p, str) for p in exclude):
        raise InvalidArgumentError(f"exclude must be glob patterns (strings), got {shown(exclude)}")
    return tuple(exclude)
