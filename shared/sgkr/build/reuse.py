"""BuildCalls kept from one build to the next: after a change, only what it can reach is
resolved again.

A build with a cache keeps, beside the extractions, what its resolution found module by
module (:class:`KeptCalls`: each module's call and reference maps, what its inferences
read, and the cache key of the file it came from), one per plan (:func:`resolved_key`:
the root, the merge policy, how tags are made, what is left out, and the code). The next
build with that plan finds the files whose text changed, came or went, takes the tables
of the last build, changes those modules in them and asks which modules the change can
reach (:func:`~sgkr.analysis.affected.affected_modules`, as an update of
:class:`~sgkr.build.incremental.GraphBuilder` does); only those are resolved again, the
others keep their maps. The maps are those a fresh resolution makes, since a
definition's inferences do not depend on which definitions were resolved before it.

Examples
--------
>>> import tempfile
>>> from sgkr.ingest.cache import cache_key
>>> from sgkr.ingest.extract import extract_module
>>> store = ExtractCache(tempfile.mkdtemp())
>>> texts = {"a.py": "def f():\\n    return g()\\ndef g():\\n    pass\\n",
...          "b.py": "def h():\\n    pass\\n"}
>>> keys = {p: cache_key(p, t) for p, t in texts.items()}
>>> modules = [extract_module(p, t) for p, t in sorted(texts.items())]
>>> store.put_many([(keys[m.path], m) for m in modules])
>>> first = resolve(modules, keys, None, store)
>>> first.calls, sorted(first.redone)
({'a.f': {'a.g': 'exact'}}, ['a', 'b'])
>>> kept = first.kept(modules, keys)
>>> texts["b.py"] = "def h():\\n    return 1\\n"
>>> keys["b.py"] = cache_key("b.py", texts["b.py"])
>>> modules[1] = extract_module("b.py", texts["b.py"])
>>> again = resolve(modules, keys, kept, store)
>>> again.calls == first.calls, sorted(again.redone)
(True, ['b'])
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..analysis.affected import ImportIndex, affected_modules
from ..analysis.context import Arguments, Read, Subclasses
from ..analysis.resolve import CallMap, CallResolver
from ..ingest.cache import ExtractCache
from ..records import ModuleExtract
from ..records import Resolution as How
from ..version import __version__
from .fingerprint import code_fingerprint

__all__ = ["KeptCalls", "BuildCalls", "resolve", "resolved_key", "find_resolved",
           "store_resolved", "RESOLVED_FORMAT"]

#: Bumped whenever the layout of what is kept changes.
RESOLVED_FORMAT = 1
_KIND = "sgkr-resolved"
_RESOLUTIONS: dict[str, How] = {"exact": "exact", "inferred": "inferred", "name": "name"}
# How each kind of read is written: a module's tables, subclasses, arguments.
_MODULE, _SUBCLASSES, _ARGUMENTS = "m", "s", "a"


@dataclass(frozen=True)
class KeptCalls:
    """What a build's resolution found, by module name.

    Attributes
    ----------
    files : dict
        Each file's cache key and module name, by path.
    calls, refs : dict
        Each module's call maps and reference maps (``{caller: {callee: resolution}}``).
    depends : dict
        What each module's inferences read (:attr:`CallResolver.depends`).
    """

    files: Mapping[str, tuple[str, str]]
    calls: Mapping[str, CallMap]
    refs: Mapping[str, CallMap]
    depends: Mapping[str, frozenset[Read]]


@dataclass(frozen=True)
class BuildCalls:
    """The call and reference maps of a build, the resolver that made them, and which
    modules were resolved in this build (the others' maps were kept)."""

    resolver: CallResolver
    calls: CallMap
    refs: CallMap
    redone: frozenset[str]

    def kept(self, modules: Sequence[ModuleExtract], keys: Mapping[str, str]) -> KeptCalls:
        """What a later build keeps of this one: the maps of each module of ``modules``
        (whose files have the cache ``keys``, by path)."""
        calls: dict[str, CallMap] = {}
        refs: dict[str, CallMap] = {}
        for module in modules:
            quals = dict.fromkeys(d.qualname for d in module.definitions)
            calls[module.module] = {q: self.calls[q] for q in quals if q in self.calls}
            refs[module.module] = {q: self.refs[q] for q in quals if q in self.refs}
        depends = {name: frozenset(read) for name, read in self.resolver.depends.items()}
        return KeptCalls({m.path: (keys[m.path], m.module) for m in modules}, calls, refs,
                        depends)


def resolve(modules: Sequence[ModuleExtract], keys: Mapping[str, str],
            previous: KeptCalls | None, store: ExtractCache | None) -> BuildCalls:
    """The call and reference maps of ``modules`` (in build order), keeping those of the
    ``previous`` build for the modules a change cannot reach.

    ``keys`` are the cache keys of the modules' files, by path; ``store`` the cache
    holding the previous build's extractions (the changed files' old versions are read
    from it). Everything is resolved when there is no previous build, when an old version
    is missing, or when the change cannot be followed module by module.
    """
    if previous is not None and store is not None:
        found = _resolve_again(modules, keys, previous, store)
        if found is not None:
            return found
    resolver = CallResolver(modules)
    refs: CallMap = {}
    calls = resolver.resolve_modules(modules, refs)
    return BuildCalls(resolver, calls, refs, frozenset(m.module for m in modules))


def _resolve_again(modules: Sequence[ModuleExtract], keys: Mapping[str, str],
                   previous: KeptCalls, store: ExtractCache) -> BuildCalls | None:
    """:func:`resolve` from the previous build; None when it cannot be followed."""
    names = [m.module for m in modules]
    if len(set(names)) < len(names) or len({n for _, n in previous.files.values()}) < len(
            previous.files):
        return None  # two files of one module: build order decides, not one module
    now = {m.path: m for m in modules}
    changed = [p for p in now if p in previous.files and previous.files[p][0] != keys[p]]
    added = [p for p in now if p not in previous.files]
    removed = [p for p in previous.files if p not in now]
    wanted = [previous.files[p][0] for p in (*changed, *removed)]
    try:
        found = store.get_many(wanted) if wanted else {}
    except (sqlite3.Error, OSError):
        return None
    if len(found) < len(wanted):
        return None  # an old version is no longer in the cache
    old = [found[key] for key in wanted]
    before = sorted([*(m for p, m in now.items() if p not in changed and p not in added),
                     *old], key=lambda m: m.path)
    resolver = CallResolver(before)
    resolver.depends = {name: set(read) for name, read in previous.depends.items()}
    fresh = [now[p] for p in (*changed, *added)]
    redo = affected_modules(resolver, ImportIndex(before), old, fresh)
    if redo is None:
        return None
    refs: CallMap = {}
    calls = resolver.resolve_modules([resolver.by_module[n] for n in sorted(redo)], refs)
    for name in names:
        if name not in redo:
            calls.update(previous.calls.get(name, {}))
            refs.update(previous.refs.get(name, {}))
    return BuildCalls(resolver, calls, refs, frozenset(redo))


def resolved_key(base: str, settings: Sequence[object]) -> str:
    """Where the resolution of builds of root ``base`` with ``settings`` (what else decides
    the resolution: merge policy, exclusions, ...) is kept in a cache."""
    head = json.dumps([_KIND, RESOLVED_FORMAT, __version__, code_fingerprint(), base,
                       [repr(s) for s in settings]])
    return hashlib.sha256(head.encode("utf-8", "surrogatepass")).hexdigest()


def find_resolved(store: ExtractCache, key: str) -> KeptCalls | None:
    """The resolution kept under ``key``; None when there is none usable."""
    value = store.get_signed_json(key)
    if value is None:
        return None
    try:
        return _from_json(value, key)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def store_resolved(store: ExtractCache, key: str, resolved: KeptCalls) -> None:
    """Keep ``resolved`` under ``key`` (a cache that cannot be written is left as it is)."""
    data = {"kind": _KIND, "format": RESOLVED_FORMAT, "version": __version__, "key": key,
            "files": [[p, k, m] for p, (k, m) in resolved.files.items()],
            "calls": resolved.calls, "refs": resolved.refs,
            "depends": {name: sorted(_read_to_json(r) for r in read)
                        for name, read in resolved.depends.items()}}
    try:
        store.put_signed(key, json.dumps(data, separators=(",", ":")).encode("utf-8"))
    except (sqlite3.Error, OSError):
        pass


def _read_to_json(read: Read) -> list[str]:
    if isinstance(read, Subclasses):
        return [_SUBCLASSES, read.name]
    if isinstance(read, Arguments):
        return [_ARGUMENTS, read.name]
    return [_MODULE, read]


def _read_from_json(raw: Any) -> Read:
    kind, name = raw
    _text(name)
    if kind == _MODULE:
        return str(name)
    if kind == _SUBCLASSES:
        return Subclasses(name)
    if kind == _ARGUMENTS:
        return Arguments(name)
    raise ValueError(f"not a read: {raw!r}")


def _from_json(data: Any, key: str) -> KeptCalls | None:
    if (not isinstance(data, dict) or data.get("kind") != _KIND
            or data.get("format") != RESOLVED_FORMAT or data.get("version") != __version__
            or data.get("key") != key):
        return None
    files = {_text(p): (_text(k), _text(m)) for p, k, m in data["files"]}
    depends = {_text(name): frozenset(_read_from_json(r) for r in read)
               for name, read in data["depends"].items()}
    return KeptCalls(files, _maps(data["calls"]), _maps(data["refs"]), depends)


def _maps(data: Any) -> dict[str, CallMap]:
    """Each module's maps, checked: names to names to a resolution."""
    return {_text(module): {_text(caller): {_text(callee): _RESOLUTIONS[how]
                                            for callee, how in targets.items()}
                            for caller, targets in maps.items()}
            for module, maps in data.items()}


def _text(value: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"expected a string, got {value!r}")
    return value
