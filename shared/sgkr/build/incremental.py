"""Incremental rebuilds: a build kept in memory and patched when source files change.

:class:`GraphBuilder` makes the graph :func:`~sgkr.build.build_graph` makes,
and keeps what it needs to update it. :meth:`GraphBuilder.update` looks at
the files again (one ``stat`` each; a file is read only when its size,
modification time or inode changed), extracts only the files whose text
changed, and patches a copy of the graph (:meth:`sgkr.build.assembly.Assembly.replace`),
which it then returns: the graph an update started from is never changed, so
threads retrieving from it while another one updates keep a consistent version.

The patched graph equals a fresh build of the same files. When a change
cannot be patched (the build has examples, or two files fill the same
module or qualified name, so that build order decides), the graph is
assembled again from the extractions in memory: no file is parsed again.

An update is a transaction: the texts, stamps and extractions it read become
the builder's only once it has succeeded. One that fails (a file unreadable, a
parsing process killed, the cache folder gone, memory short) leaves the builder
as it was, so the next update sees the same changes again and makes the graph
a fresh build would; an assembly left half-patched is assembled again then.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "fees.py").write_text("def fee(amount):\\n    return rate() * amount\\n"
...                                     "def rate():\\n    return 0.2\\n")
>>> builder = GraphBuilder(folder, infer_tags=False)
>>> [(e.source, e.target) for e in builder.build().edges()]
[('fn:fees.fee', 'fn:fees.rate')]
>>> _ = (folder / "rates.py").write_text("def rate():\\n    return 0.3\\n")
>>> _ = (folder / "fees.py").write_text("from rates import rate\\n"
...                                     "def fee(amount):\\n    return rate() * amount\\n")
>>> [(e.source, e.target) for e in builder.update().edges()]
[('fn:fees.fee', 'fn:rates.rate')]
>>> builder.last_update.changed, builder.last_update.added, builder.last_update.patched
(('fees.py',), ('rates.py',), True)
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidArgumentError
from ..gcpause import paused_gc
from ..graph import jsonlines
from ..graph.model import KnowledgeGraph
from ..ingest.files import roots_of
from ..ingest.sources import (
    SourceInput,
    list_sources,
    memory_files,
    nothing_read,
    read_source,
    split_sources,
)
from ..records import ModuleExtract, Problem
from .assembly import Assembly, make_plan, report
from .batch import extract_files
from .builder import assemble
from .options import BuildOptions

__all__ = ["GraphBuilder", "UpdateReport"]

# A file modified this recently may change again within the resolution of its
# file system's clock without its stamp changing: its stamp is not trusted.
_RACY_NS = 100_000_000
_RACY_COARSE_NS = 2_000_000_000
_Stamp = tuple[int, int, int]


@dataclass(frozen=True)
class UpdateReport:
    """What :meth:`GraphBuilder.update` found and did.

    Attributes
    ----------
    changed, added, removed
        Relative paths of files whose text changed, that appeared, that went.
    patched
        True when the graph was patched; False when it was assembled again
        from the extractions in memory (or nothing changed).
    resolved_modules
        Modules whose calls were resolved again.
    seconds
        Time taken.
    """

    changed: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    patched: bool
    resolved_modules: int
    seconds: float


class GraphBuilder:
    """Builds a graph once, then makes its next version as files change.

    Parameters
    ----------
    sources, options, **kwargs
        As for :func:`~sgkr.build.build_graph`.

    Attributes
    ----------
    options : BuildOptions
        The options of the build.
    last_update : UpdateReport or None
        What the last :meth:`update` did.

    Notes
    -----
    :meth:`update` returns a new graph when files changed and leaves the one
    it started from as it was: a :class:`~sgkr.retrieval.retriever.Retriever` made
    before keeps retrieving from that version, even while an update runs in
    another thread. Make a new retriever from the new graph to see the change.
    """

    def __init__(self, sources: Iterable[SourceInput] = (),
                 options: BuildOptions | None = None, **kwargs: Any) -> None:
        self.options = BuildOptions.from_kwargs(options, **kwargs)
        self._plan = make_plan(sources, self.options)
        self._jobs = self.options.jobs
        self._cache = self.options.cache
        self._state: Assembly | None = None
        # The version readers get: replaced, in one assignment, once an update is whole.
        self._published: KnowledgeGraph | None = None
        self._updating = threading.Lock()  # one update at a time
        # What the last build or update read, committed only once it succeeded.
        self._texts: dict[str, str] = {}
        self._read: dict[str, tuple[_Stamp, str | Problem]] = {}
        self._read_problems: list[Problem] = []
        self._modules: dict[str, ModuleExtract] = {}
        self._spent = False  # an update failed while patching: assemble again
        self.last_update: UpdateReport | None = None

    @property
    def graph(self) -> KnowledgeGraph:
        """The graph of the last :meth:`build` or :meth:`update`."""
        if self._state is None:
            raise InvalidArgumentError("GraphBuilder: call build() before reading the graph")
        return self._published or self._state.graph

    def build(self) -> KnowledgeGraph:
        """Read, extract and assemble every file (as :func:`~sgkr.build.build_graph` does).

        Raises
        ------
        SourceError
            A source path went missing, or no Python source was found.
        """
        with paused_gc(long_lived=True):
            started = time.perf_counter()
            texts, problems, read = self._scan()
            state = assemble(self._plan, sorted(texts.items()), problems, self.options,
                             started=started)
            self._commit(state, texts, read, problems, state.modules)
            return state.graph

    def update(self) -> KnowledgeGraph:
        """Bring the graph up to date with the files, re-extracting only changed ones.

        Returns
        -------
        KnowledgeGraph
            The new version when files changed (the previous one is left as it
            was), else the same graph (see Notes).

        Raises
        ------
        SourceError
            A source path went missing, or no Python source is left.
        """
        with self._updating:
            if self._state is None:
                return self.build()
            with paused_gc(long_lived=True):
                return self._update()

    # -- reading -----------------------------------------------------------------

    def _commit(self, state: Assembly, texts: dict[str, str],
                read: dict[str, tuple[_Stamp, str | Problem]], problems: list[Problem],
                modules: list[ModuleExtract]) -> None:
        """Make what a build or an update read and made the builder's, all at once."""
        self._state, self._texts, self._read = state, texts, read
        self._read_problems = problems
        self._modules = {m.path: m for m in modules}
        self._spent = False
        # Its saves keep their lines: the save after the next update encodes what changed.
        jsonlines.keep_lines(state.graph, self._published)
        self._published = state.graph

    def _scan(self) -> tuple[dict[str, str], list[Problem],
                             dict[str, tuple[_Stamp, str | Problem]]]:
        plan = self._plan
        memory, disk = split_sources(plan.inputs)
        files, problems = memory_files(memory)
        texts = {rel: file.text for rel, file in files.items()}
        found, walk_problems = list_sources(disk, plan.base, exclude=plan.exclude, skip=texts,
                                            gitignore=plan.gitignore)
        problems.extend(walk_problems)
        roots = roots_of(disk)
        now = time.time_ns()
        read: dict[str, tuple[_Stamp, str | Problem]] = {}
        for path, rel in found:
            try:
                st = os.stat(path)
                stamp: _Stamp | None = (st.st_size, st.st_mtime_ns, st.st_ino)
            except OSError:
                stamp = None
            known = self._read.get(rel)
            if stamp is not None and known is not None and known[0] == stamp:
                outcome = known[1]
            else:
                text, problem = read_source(path, rel, plan.max_file_bytes, roots=roots)
                outcome = problem if problem is not None else text or ""
                if stamp is not None and now - stamp[1] < _racy_window(stamp[1]):
                    stamp = None
            if stamp is not None:
                read[rel] = (stamp, outcome)
            if isinstance(outcome, Problem):
                problems.append(outcome)
            else:
                texts[rel] = outcome
        if not texts:
            raise nothing_read(plan.where, problems)
        return texts, problems, read

    # -- updating ----------------------------------------------------------------

    def _update(self) -> KnowledgeGraph:
        started = time.perf_counter()
        state = self._state
        assert state is not None
        texts, problems, read = self._scan()
        old = self._texts
        changed = tuple(p for p in sorted(texts) if p in old and texts[p] != old[p])
        added = tuple(p for p in sorted(texts) if p not in old)
        removed = tuple(p for p in sorted(old) if p not in texts)
        if not (changed or added or removed or self._spent):
            if problems != self._read_problems:
                state.problems = [*problems, *state.problems[len(self._read_problems):]]
                state.graph.report = report(state.graph, len(state.modules), state.problems,
                                            started)
            self._commit(state, texts, read, problems, state.modules)
            self.last_update = UpdateReport((), (), (), False, 0, time.perf_counter() - started)
            return state.graph
        fresh, _ = extract_files([(p, texts[p]) for p in (*changed, *added)],
                                 jobs=self._jobs, cache=self._cache)
        by_path = dict(self._modules)
        old_mods = [by_path[p] for p in (*changed, *removed)]
        by_path.update((m.path, m) for m in fresh)
        for path in removed:
            del by_path[path]
        modules = [by_path[p] for p in sorted(by_path)]
        resolved = None
        if not self._spent:
            try:  # patches the assembly in place: a failure leaves it spent
                resolved = state.replace(old_mods, fresh, modules, problems, started=started)
            except BaseException:
                self._spent = True
                raise
        if resolved is None:
            state = Assembly.add(self._plan, modules, problems, started=started)
        self._commit(state, texts, read, problems, modules)
        self.last_update = UpdateReport(changed, added, removed, resolved is not None,
                                        resolved if resolved is not None else len(modules),
                                        time.perf_counter() - started)
        return state.graph


def _racy_window(mtime_ns: int) -> int:
    """How recent a modification time is too recent to trust, in nanoseconds."""
    # Whole seconds suggest a file system that keeps only seconds (FAT, some network ones).
    return _RACY_COARSE_NS if mtime_ns % 1_000_000_000 == 0 else _RACY_NS
