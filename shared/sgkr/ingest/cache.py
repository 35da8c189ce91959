"""A content-hash cache of per-file extraction results, in one SQLite file.

A build looks each source file up by a key made of the cache format, the
SGKR version, the file's relative path and the exact bytes that are parsed
(the decoded text, UTF-8 encoded), so an unchanged file is not parsed again,
and a file that changed while a build was reading it can never be paired
with the extraction of other bytes.

Entries live in ``extract.sqlite`` in the cache folder, one row a key, and
are written many in one transaction: a crash mid-write leaves the entries as
they were before it (SQLite's journal rolls the transaction back), and
processes sharing a folder wait for each other's writes. One file instead of
one file per entry also keeps a build's writes cheap on file systems where
creating a file is slow. An entry that is unreadable or written by another
version is a miss and is rewritten; a file that is not a database is
replaced. The file is not synced to disk after each write (that would double a
build's writes): only an operating system crash or a power cut can damage it,
and then it is replaced too. Entries are JSON and text (never pickle).

Nothing of a cache folder is trusted for being there (a repository may ship
one): the default folder lies outside the sources
(:func:`~sgkr.ingest.cachedir.default_cache_dir`); a folder, database or
journal that is a symlink, or owned or writable by another user, is not used;
a database holding anything but the one table of entries is replaced; and an
entry is read only when its HMAC-SHA256, under this user's secret key
(:func:`~sgkr.ingest.cachedir.secret_key`), matches its content, so an entry
crafted elsewhere, even for the exact bytes of a file, is a miss.

Examples
--------
>>> import tempfile
>>> from sgkr.ingest.extract import extract_module
>>> text = "def f():\\n    return g()\\n"
>>> m = extract_module("m.py", text)
>>> cache = ExtractCache(tempfile.mkdtemp())
>>> key = cache_key("m.py", text)
>>> cache.get(key) is None
True
>>> cache.put(key, m)
>>> cache.get(key) == m, len(cache)
(True, 1)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from ..errors import InvalidArgumentError
from ..records import (
    Argument,
    Arity,
    Binding,
    BindingKind,
    CallKind,
    CallSite,
    ClassInfo,
    Definition,
    FunctionKind,
    ImportBinding,
    Index,
    ModuleExtract,
    NameChange,
    Parameter,
    ParameterKind,
    Position,
    Problem,
    Ref,
    Selector,
    Slice,
    SourceSpan,
    ValueUse,
)
from ..version import __version__
from .cachedir import default_cache_dir, refusal, secret_key

__all__ = [
    "CACHE_FORMAT",
    "DATABASE",
    "ExtractCache",
    "cache_key",
    "entry_bytes",
    "entry_extract",
    "extract_to_json",
    "extract_from_json",
    "default_cache_dir",
    "Shared",
]

#: Bumped whenever the extraction or the entry layout changes meaning.
CACHE_FORMAT = 20
# Bytes of the hex SHA-256 that opens an entry.
_DIGEST = 64
_KIND = "sgkr-extract"
# A definition's derived knowledge is most often its docstring or its comment
# itself: the entry says which instead of repeating the text.
_SAME_AS_DOCSTRING, _SAME_AS_COMMENT = 0, 1
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)
#: The database file in a cache folder.
DATABASE = "extract.sqlite"
# Seconds a writer waits for another process's write to end before giving up.
_BUSY_TIMEOUT = 30.0
# Keys per SELECT: under SQLite's smallest limit on query parameters (999).
_CHUNK = 900
# The one table of a cache database, as SQLite keeps its definition.
_TABLE = "CREATE TABLE entries (key TEXT PRIMARY KEY, data BLOB NOT NULL)"
# What a build keeps beside the entries (:meth:`ExtractCache.put_signed`), made when first
# written: a database of an earlier version, without it, is used as it is.
_RECORDS = "CREATE TABLE records (key TEXT PRIMARY KEY, data BLOB NOT NULL)"
_SCHEMA = {("table", "entries", _TABLE), ("index", "sqlite_autoindex_entries_1", None),
           ("table", "records", _RECORDS), ("index", "sqlite_autoindex_records_1", None)}
# The database and the files SQLite writes beside it.
_SUFFIXES = ("", "-journal", "-wal", "-shm")


def cache_key(path: str, text: str, *, module: str | None = None) -> str:
    """The cache key of a file: a SHA-256 of format, version, path, module and bytes.

    Examples
    --------
    >>> cache_key("a.py", "x = 1\\n") == cache_key("a.py", "x = 1\\n")
    True
    >>> cache_key("a.py", "x = 1\\n") == cache_key("b.py", "x = 1\\n")
    False
    """
    if not isinstance(path, str) or not isinstance(text, str):
        raise InvalidArgumentError(f"cache_key needs a str path and text, got {path!r}")
    digest = hashlib.sha256()
    head = f"{_KIND}/{CACHE_FORMAT}/{__version__}\0{path}\0{module or ''}\0"
    digest.update(head.encode("utf-8"))
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class ExtractCache:
    """Per-file extraction results in ``extract.sqlite`` under a folder, keyed by content hash.

    Parameters
    ----------
    folder
        Where the database lives (created with the first write).

    Attributes
    ----------
    hits, misses, writes
        Counters of this object's look-ups and writes.

    Notes
    -----
    A connection is opened when first needed and kept until :meth:`close`;
    do not carry an open cache into a forked process.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        if not isinstance(folder, (str, os.PathLike)):
            raise InvalidArgumentError(f"cache folder must be a path, got {folder!r}")
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise InvalidArgumentError(f"cache folder {self.folder} is a file, not a folder")
        self.path = self.folder / DATABASE
        self.hits = 0
        self.misses = 0
        self.writes = 0
        #: Why the folder is not used (a symlink, owned by another user, writable by
        #: others, no key to sign entries with), if so.
        self.refused: str | None = None
        self._checked = False
        self._secret = b""
        self._db: sqlite3.Connection | None = None

    def __len__(self) -> int:
        """Number of entries stored (usable or not)."""
        try:
            db = self._existing()
            if db is None:
                return 0
            return int(db.execute("SELECT count(*) FROM entries").fetchone()[0])
        except sqlite3.Error:
            return 0

    def get(self, key: str) -> ModuleExtract | None:
        """The cached extraction of ``key``, or None when absent or unusable."""
        return self.get_many([key]).get(key)

    def get_many(self, keys: Sequence[str]) -> dict[str, ModuleExtract]:
        """The usable cached extractions of ``keys``, by key; the others are misses."""
        wanted = list(dict.fromkeys(keys))
        raw = self._select(wanted)
        found: dict[str, ModuleExtract] = {}
        shared = Shared()  # one object for equal names of all the entries
        for key in wanted:
            data = raw.get(key)
            module = None if data is None else _decode(data, key, self._secret, shared)
            if module is None:
                self.misses += 1
            else:
                self.hits += 1
                found[key] = module
        return found

    def get_signed(self, key: str) -> bytes | None:
        """The payload stored under ``key`` by :meth:`put_signed`, or None when absent or
        not signed by this user's SGKR (a miss, like an entry that fails its check)."""
        raw = self._select([key], "records").get(key)
        if raw is None or not self.usable():
            return None
        digest, payload = raw[:_DIGEST], raw[_DIGEST:]
        expected = hmac.digest(self._secret, payload, "sha256").hex().encode("ascii")
        return payload if self._secret and hmac.compare_digest(expected, digest) else None

    def get_signed_json(self, key: str) -> Any:
        """The JSON value of :meth:`get_signed`'s payload under ``key``, or None on any
        miss: absent, unsigned, unreadable (a database or disk error) or not JSON."""
        try:
            payload = self.get_signed(key)
        except (sqlite3.Error, OSError):
            return None
        try:
            return None if payload is None else json.loads(payload)
        except ValueError:
            return None

    def put_signed(self, key: str, payload: bytes) -> None:
        """Store ``payload`` under ``key``, signed like an entry (see :meth:`get_signed`).

        Raises
        ------
        sqlite3.Error, OSError
            As :meth:`put_many`.
        """
        if not self.usable():
            return
        raw = hashlib.sha256(payload).hexdigest().encode("ascii") + payload
        self._write([(key, _signed(self._secret, raw))], _RECORDS)

    def put(self, key: str, module: ModuleExtract) -> None:
        """Store ``module`` under ``key`` (see :meth:`put_many`)."""
        self.put_many([(key, module)])

    def put_many(self, entries: Iterable[tuple[str, ModuleExtract]]) -> None:
        """Store many entries in one transaction: all of them, or none after a crash.

        Raises
        ------
        sqlite3.Error, OSError
            When the database cannot be written (for example, another process
            held it for more than 30 s, or the folder is read-only).
        """
        # Encoded before the database is locked: processes writing at the same time
        # (two builds sharing a cache) then hold the lock in turn only for their inserts.
        self.put_entries([(key, entry_bytes(key, module)) for key, module in entries])

    def put_entries(self, rows: Iterable[tuple[str, bytes]]) -> None:
        """:meth:`put_many` for entries already encoded by :func:`entry_bytes`.

        A build encodes the entries as its worker processes hand extractions back.

        Raises
        ------
        sqlite3.Error, OSError
            As :meth:`put_many`.
        """
        rows = list(rows)
        if not rows or not self.usable():
            return  # nothing to write: no lock taken on a shared cache
        self._write([(key, _signed(self._secret, raw)) for key, raw in rows], _TABLE)
        self.writes += len(rows)

    def _write(self, rows: list[tuple[str, bytes]], schema: str) -> None:
        """Insert signed ``rows`` into the table of ``schema``, in one transaction."""
        try:
            self._insert(rows, schema)
        except sqlite3.DatabaseError as exc:
            if type(exc) is not sqlite3.DatabaseError:  # locked, read-only, I/O: not damage
                raise
            self._remove_damaged_file()  # not a database, or a damaged one: start afresh
            self._insert(rows, schema)

    def close(self) -> None:
        """Close the connection, if one is open (the cache can still be used afterwards)."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def usable(self) -> bool:
        """Whether the folder may be used, creating it private (0700) when it is missing.

        A folder that is a symlink, owned by another user, or that other users
        may write to (a shared ``/tmp/.sgkr-cache``), a database or journal
        that is a symlink or not a regular file, and a missing key to sign
        entries with (:func:`~sgkr.ingest.cachedir.secret_key`) are reasons not
        to use it: every look-up is a miss and nothing is written;
        :attr:`refused` says why.
        """
        if not self._checked:
            self.refused = self._refusal()
            self._checked = True
        return self.refused is None

    def _refusal(self) -> str | None:
        why = refusal(self.folder, folder=True)  # a link is refused before mkdir
        if why is None:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            files = (Path(f"{self.path}{suffix}") for suffix in _SUFFIXES)
            why = refusal(self.folder, folder=True) or next(
                (r for r in (refusal(f, folder=False) for f in files) if r is not None), None)
        if why is not None:
            return why
        try:
            self._secret = secret_key()
        except OSError as exc:
            return f"no key to sign entries with: {exc}"
        return None

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            if not self.usable():
                raise sqlite3.OperationalError(f"cache folder not used: {self.refused}")
            db = self._connect()
            if _foreign(db):  # tables, views or triggers SGKR does not make: start afresh
                db.close()
                self._remove_damaged_file()
                db = self._connect()
            self._db = db
        return self._db

    def _connect(self) -> sqlite3.Connection:
        # Autocommit mode: transactions are begun and ended explicitly.
        db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT, isolation_level=None)
        # The journal still rolls back a write that a crash cut short; only an
        # operating system crash or a power cut can damage the file, and a
        # damaged file is replaced. Syncing to disk would double a build's writes.
        db.execute("PRAGMA synchronous=OFF")
        db.execute("PRAGMA trusted_schema=OFF")  # no function with side effects in a schema
        return db

    def _existing(self) -> sqlite3.Connection | None:
        """The connection, without creating the database when there is none."""
        if self._db is None and (not self.path.is_file() or not self.usable()):
            return None
        return self._open()

    def _select(self, keys: list[str], table: str = "entries") -> dict[str, bytes]:
        rows: dict[str, bytes] = {}
        try:
            db = self._existing()
            if db is None:
                return rows
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, data in db.execute(
                        f"SELECT key, data FROM {table} WHERE key IN ({marks})", chunk):
                    rows[key] = data
        except sqlite3.Error:
            return {}  # no table yet, or not a database: every key is a miss
        return rows

    def _insert(self, rows: Iterable[tuple[str, bytes]], schema: str) -> None:
        db = self._open()
        db.execute(schema.replace("TABLE", "TABLE IF NOT EXISTS", 1))
        table = schema.split()[2]
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(f"INSERT OR REPLACE INTO {table} (key, data) VALUES (?, ?)", rows)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _remove_damaged_file(self) -> None:
        self.close()
        for suffix in _SUFFIXES:
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)


def _foreign(db: sqlite3.Connection) -> bool:
    """Whether the database holds anything but the table of entries (it may have none yet)."""
    try:
        found = set(db.execute("SELECT type, name, sql FROM sqlite_master"))
    except sqlite3.DatabaseError:
        return True  # not a database: replaced as a damaged one
    return not found <= _SCHEMA


def _signed(secret: bytes, raw: bytes) -> bytes:
    """An entry of :func:`entry_bytes` with its SHA-256 replaced by its HMAC under ``secret``."""
    payload = raw[_DIGEST:]
    return hmac.digest(secret, payload, "sha256").hex().encode("ascii") + payload


def _decode(raw: bytes, key: str, secret: bytes,
            shared: Shared | None = None) -> ModuleExtract | None:
    """The extraction in one stored entry; None for a damaged, edited or foreign entry (a miss).

    The entry's HMAC under this user's ``secret`` must match its content, its
    kind, format, version and key those of this cache, and every field the
    type and range extraction gives it.
    """
    digest, payload = raw[:_DIGEST], raw[_DIGEST:]
    if not secret or not hmac.compare_digest(
            hmac.digest(secret, payload, "sha256").hex().encode("ascii"), digest):
        return None
    try:
        data = _entry_json(payload, shared)
        if (not isinstance(data, dict) or data.get("kind") != _KIND
                or data.get("format") != CACHE_FORMAT or data.get("version") != __version__
                or data.get("key") != key):
            return None
        _check_extract(data["extract"])
        return extract_from_json(data["extract"], shared)
    except (ValueError, KeyError, TypeError, IndexError, RecursionError, OverflowError):
        return None


def entry_bytes(key: str, module: ModuleExtract) -> bytes:
    """The stored form of the entry of ``module`` under ``key``.

    The SHA-256 of what follows, in hex; ASCII JSON (lone surrogates of the
    source come back from their escapes),
    a NUL byte, then the code of the definitions one after another in UTF-8
    (lone surrogates passed through), the JSON giving the length of each in
    characters. Code is most of an entry: stored as it is, it is not escaped
    character by character when written and read. A build's worker processes
    hand their extractions back in this form (:func:`entry_extract`).

    Examples
    --------
    >>> from sgkr.ingest.extract import extract_module
    >>> m = extract_module("m.py", "def f():\\n    return 1\\n")
    >>> entry_bytes("k", m).split(b"\\0")[1]
    b'def f():\\n    return 1'
    """
    extract = extract_to_json(module)
    codes = [raw[_CODE] for raw in extract["defs"]]
    for raw, code in zip(extract["defs"], codes, strict=True):
        raw[_CODE] = len(code)  # the definitions with the length of their code in its place
    head = _ENCODER.encode({"kind": _KIND, "format": CACHE_FORMAT, "version": __version__,
                            "key": key, "extract": extract})
    payload = b"".join((head.encode("ascii"), b"\0",
                        "".join(codes).encode("utf-8", "surrogatepass")))
    return hashlib.sha256(payload).hexdigest().encode("ascii") + payload


def entry_extract(raw: bytes, shared: Shared | None = None) -> ModuleExtract:
    """The extraction in an entry :func:`entry_bytes` made, unchecked.

    For entries made in this build (by its worker processes); a stored entry
    is read by :meth:`ExtractCache.get_many`, which checks it first. ``shared``
    (kept from entry to entry) makes every string, name as written (:class:`Ref`)
    and :class:`Arity` met again the one met first: what a build's files repeat
    is then held once, not once per use.

    Raises
    ------
    ValueError, KeyError, TypeError, IndexError
        When ``raw`` is not of that form.

    Examples
    --------
    >>> from sgkr.ingest.extract import extract_module
    >>> m = extract_module("m.py", "def f():\\n    return 1\\n")
    >>> entry_extract(entry_bytes("k", m)) == m
    True
    """
    return extract_from_json(_entry_json(raw[_DIGEST:], shared)["extract"], shared)


class Shared:
    """The values decoded so far, each held once: equal strings, :class:`Ref` without
    subscripts and :class:`Arity` met again are the ones met first (all immutable).

    Examples
    --------
    >>> shared = Shared()
    >>> shared.ref("fee", False) is shared.ref("fee", False)
    True
    """

    __slots__ = ("strings", "refs", "arities")

    def __init__(self) -> None:
        self.strings: dict[str, str] = {}
        self.refs: dict[tuple[str, bool], Ref] = {}
        self.arities: dict[tuple[int, tuple[str, ...], bool], Arity] = {}

    def ref(self, name: str, called: bool) -> Ref:
        """The :class:`Ref` of ``name`` (called or not), made once."""
        key = (name, called)
        found = self.refs.get(key)
        if found is None:
            found = self.refs[key] = Ref(name, called)
        return found

    def arity(self, positional: int, keywords: tuple[str, ...], unpacked: bool) -> Arity:
        """The :class:`Arity` of these fields, made once."""
        key = (positional, keywords, unpacked)
        found = self.arities.get(key)
        if found is None:
            found = self.arities[key] = Arity(positional, keywords, unpacked)
        return found


def _entry_json(payload: bytes, shared: Shared | None = None) -> Any:
    """The JSON of an entry (less its SHA-256), with the code put back in the definitions;
    its strings those of ``shared`` when given (see :func:`entry_extract`)."""
    head, separator, body = payload.partition(b"\0")
    if not separator:
        raise ValueError("no code after the entry's JSON")
    data = json.loads(head)
    if shared is not None and isinstance(data, dict) and isinstance(data.get("extract"), dict):
        _share(list(data["extract"].values()), shared.strings)  # its lists, changed in place
    _put_code_back(data["extract"]["defs"], body.decode("utf-8", "surrogatepass"))
    return data


def _share(values: list[Any], shared: dict[str, str]) -> None:
    """Replace each string of ``values``, lists in it included, by the equal one of
    ``shared`` (added when new)."""
    for i, value in enumerate(values):
        if type(value) is str:
            values[i] = shared.setdefault(value, value)
        elif type(value) is list:
            _share(value, shared)


def _put_code_back(defs: list[list[Any]], codes: str) -> None:
    """Replace the code lengths in the definitions of an entry by the code they measure."""
    start = 0
    for raw in defs:
        length = raw[_CODE]
        if type(length) is not int or length < 0:
            raise ValueError(f"code length {length!r} is not a count")
        raw[_CODE] = codes[start : start + length]
        start += length
    if start != len(codes):
        raise ValueError("the code lengths do not add up to the code stored")


# -- JSON form of an extraction -------------------------------------------------------


def extract_to_json(module: ModuleExtract) -> dict[str, Any]:
    """The compact JSON form of a :class:`~sgkr.records.ModuleExtract` (lists, not objects)."""
    return {
        "path": module.path,
        "module": module.module,
        "package": module.is_package,
        "defs": [_definition_to_json(d) for d in module.definitions],
        "classes": [[c.qualname, c.name, list(c.bases)] for c in module.classes],
        "imports": [[b.scope, b.alias, b.target] for b in module.imports],
        "problems": [[p.file, p.reason, p.kind, p.line] for p in module.problems],
    }


def extract_from_json(data: dict[str, Any], shared: Shared | None = None) -> ModuleExtract:
    """Rebuild a :class:`~sgkr.records.ModuleExtract` from :func:`extract_to_json`'s form.

    The form is taken as :func:`extract_to_json` made it: kinds and knowledge
    references are checked, the type of each field is not (a stored entry's are
    checked before it is read). ``shared``: see :func:`entry_extract` (default: a
    new one, equal values shared within this extraction).

    Raises
    ------
    ValueError, KeyError, TypeError, IndexError
        When ``data`` is not of that form (a cache treats it as a miss).
    """
    path = data["path"]
    shared = Shared() if shared is None else shared
    return ModuleExtract(
        path=path,
        module=data["module"],
        is_package=data["package"],
        definitions=tuple([_definition_from_json(d, path, shared) for d in data["defs"]]),
        classes=tuple([ClassInfo(q, n, tuple(b)) for q, n, b in data["classes"]]),
        imports=tuple([ImportBinding(s, a, t) for s, a, t in data["imports"]]),
        problems=tuple([Problem(f, r, _PROBLEM_KINDS[k], ln) for f, r, k, ln in data["problems"]]),
    )


# Where a definition's code is in its JSON form.
_CODE = 3
# The kinds a record may have, each one string however many records hold it (an
# unpickled or decoded form has a string of its own for each).
_DEFINITION_KINDS: dict[str, FunctionKind] = {"function": "function", "method": "method",
                                              "module": "module"}
_CALL_KINDS: dict[str, CallKind] = {"plain": "plain", "attribute": "attribute",
                                    "super": "super", "subscript": "subscript",
                                    "result": "result"}
_PARAMETER_KINDS = {kind.value: kind for kind in ParameterKind}
_BINDING_KINDS = {kind.value: kind for kind in BindingKind}
_PROBLEM_KINDS: dict[str, Literal["skipped", "syntax", "knowledge"]] = {
    "skipped": "skipped", "syntax": "syntax", "knowledge": "knowledge"}


def _definition_to_json(d: Definition) -> list[Any]:
    knowledge: str | int | None = d.knowledge
    if knowledge is not None:
        if knowledge == d.docstring:
            knowledge = _SAME_AS_DOCSTRING
        elif knowledge == d.comment:
            knowledge = _SAME_AS_COMMENT
    inputs, outputs = d.inferred_inputs, d.inferred_outputs
    return [d.qualname, d.name, d.kind, d.code, d.span.file, d.span.start_line,
            d.span.end_line, d.docstring, d.comment,
            [[p.name, p.kind.value, p.default, *([list(p.types)] if p.types else [])]
             for p in d.parameters],
            [_site_to_json(c) for c in d.calls],
            list(d.keys_read), d.enclosing_class, d.is_async, knowledge,
            None if inputs is None else list(inputs), None if outputs is None else list(outputs),
            [[_site_to_json(u.site), None if u.argument_of is None
              else _site_to_json(u.argument_of)] for u in d.uses],
            [[b.target, b.value.name, b.value.called, b.kind.value, *_placed(b)]
             for b in d.bindings],
            [[r.name, r.called] for r in d.returns], list(d.decorators),
            [[_site_to_json(a.call), a.slot, a.value.name, a.value.called]
             for a in d.arguments],
            list(d.results), list(d.keys_written), list(d.keywords), list(d.strings),
            [list(pair) for pair in d.attributes], [[c.name, c.integer] for c in d.changes],
            *([[d.span.cell, d.span.end_cell]] if d.span.cell is not None else [])]


def _placed(b: Binding) -> list[Any]:
    """The subscripts of a binding's value and its position, when it has either."""
    if not b.value.index and b.position is None:
        return []
    position = b.position
    return [_selectors_to_json(b.value.index),
            None if position is None else [position.index, position.length]]


def _selectors_to_json(selectors: tuple[Selector, ...]) -> list[Any]:
    """An item as its key, a slice as the list of its bounds."""
    return [[s.start, s.stop, s.step] if isinstance(s, Slice) else s.key for s in selectors]


def _selectors_from_json(raw: list[Any]) -> tuple[Selector, ...]:
    return tuple([Slice(*s) if type(s) is list else Index(s) for s in raw])


def _binding_from_json(raw: list[Any], shared: Shared) -> Binding:
    target, name, called, kind, *placed = raw
    if not placed:
        return Binding(target, shared.ref(name, called), _BINDING_KINDS[kind])
    selectors, position = placed
    return Binding(target, Ref(name, called, _selectors_from_json(selectors)),
                   _BINDING_KINDS[kind], None if position is None else Position(*position))


def _site_to_json(site: CallSite) -> list[Any]:
    receiver, arity = site.receiver, site.arity
    raw: list[Any] = [site.kind, site.name, None if receiver is None else receiver.name,
                      receiver is not None and receiver.called, site.line]
    if arity is not None or site.index:  # a call's: what it passes
        raw.append(None if arity is None
                   else [arity.positional, list(arity.keywords), arity.unpacked])
    if site.index:
        raw.append(_selectors_to_json(site.index))
    return raw


def _site_from_json(raw: list[Any], shared: Shared) -> CallSite:
    kind, name, receiver, called, line, *passes = raw
    told = passes[0] if passes else None
    arity = None if told is None else shared.arity(told[0], tuple(told[1]), told[2])
    return CallSite(_CALL_KINDS[kind], name,
                    None if receiver is None else shared.ref(receiver, called), line, arity,
                    _selectors_from_json(passes[1]) if len(passes) > 1 else ())


def _definition_from_json(raw: list[Any], path: str, shared: Shared) -> Definition:
    (qualname, name, kind, code, file, start, end, docstring, comment, params,
     calls, keys, enclosing, is_async, knowledge, inputs, outputs, uses, bindings,
     returns, decorators, arguments, results, written, keywords, strings, attributes,
     changes, *cells) = raw
    if type(knowledge) is int:
        if knowledge not in (_SAME_AS_DOCSTRING, _SAME_AS_COMMENT):
            raise ValueError(f"unknown knowledge reference {knowledge!r}")
        knowledge = docstring if knowledge == _SAME_AS_DOCSTRING else comment
    return Definition(
        qualname=qualname, name=name, kind=_DEFINITION_KINDS[kind], code=code,
        span=SourceSpan(path if file == path else file, start, end, *(cells[0] if cells else ())),
        docstring=docstring, comment=comment,
        parameters=tuple([Parameter(n, _PARAMETER_KINDS[k], f, tuple(t[0]) if t else ())
                          for n, k, f, *t in params]),
        calls=tuple([_site_from_json(c, shared) for c in calls]),
        results=tuple(results), keys_read=tuple(keys), keys_written=tuple(written),
        keywords=tuple(keywords),
        strings=tuple(strings), attributes=tuple([(n, a) for n, a in attributes]),
        uses=tuple([ValueUse(_site_from_json(s, shared),
                             None if c is None else _site_from_json(c, shared))
                    for s, c in uses]),
        bindings=tuple([_binding_from_json(b, shared) for b in bindings]),
        changes=tuple([NameChange(n, i) for n, i in changes]),
        returns=tuple([shared.ref(n, c) for n, c in returns]), decorators=tuple(decorators),
        arguments=tuple([Argument(_site_from_json(s, shared), slot, shared.ref(n, c))
                         for s, slot, n, c in arguments]),
        enclosing_class=enclosing, is_async=is_async, knowledge=knowledge,
        inferred_inputs=None if inputs is None else tuple(inputs),
        inferred_outputs=None if outputs is None else tuple(outputs),
    )


def _check_extract(data: dict[str, Any]) -> None:
    """Raise TypeError or ValueError unless every field of an extraction's JSON form has
    the type and range extraction gives it (kinds are checked as the records are made)."""
    _strings(data["path"], data["module"])
    _flag(data["package"])
    for raw in data["defs"]:
        _check_definition(raw)
    for qualname, name, bases in data["classes"]:
        _strings(qualname, name, *bases)
    for scope, alias, target in data["imports"]:
        _strings(scope, alias, target)
    for file, reason, kind, line in data["problems"]:
        _strings(file, reason, kind)
        if line is not None:
            _lines(line)


def _check_definition(raw: list[Any]) -> None:
    (qualname, name, kind, code, file, start, end, docstring, comment, params,
     calls, keys, enclosing, is_async, knowledge, inputs, outputs, uses, bindings,
     returns, decorators, arguments, results, written, keywords, strings, attributes,
     changes, *cells) = raw
    _strings(qualname, name, kind, code, file, *keys, *decorators, *results, *written,
             *keywords, *strings)
    for pair in attributes:
        _strings(*pair)
        if len(pair) != 2:
            raise ValueError("an attribute read is a name and an attribute")
    _texts(docstring, comment, enclosing, None if type(knowledge) is int else knowledge)
    _lines(start, end, *(cells[0] if cells else ()))
    _flag(is_async)
    for tags in (inputs, outputs):
        if tags is not None:
            _strings(*tags)
    for param, param_kind, default, *types in params:
        if len(types) > 1 or types and type(types[0]) is not list:
            raise ValueError(f"expected the classes of an annotation, got {types!r}")
        _strings(*(types[0] if types else ()))
        _strings(param, param_kind)
        _flag(default)
    for changed, integer in changes:
        _strings(changed)
        if integer is not None:
            _integers(integer)
    _check_facts(calls, uses, bindings, returns, arguments)


def _check_facts(calls: list[Any], uses: list[Any], bindings: list[Any], returns: list[Any],
                 arguments: list[Any]) -> None:
    for site in calls:
        _check_site(site)
    for site, callee in uses:
        _check_site(site)
        if callee is not None:
            _check_site(callee)
    for target, value, called, binding_kind, *placed in bindings:
        _strings(target, value, binding_kind)
        _flag(called)
        if placed:
            selectors, position = placed
            _check_selectors(selectors)
            if position is not None:
                index, length = position
                _lines(index + 1, length)
    for value, called in returns:
        _strings(value)
        _flag(called)
    for site, slot, value, called in arguments:
        _check_site(site)
        if type(slot) is int:
            _lines(slot + 1)
        else:
            _strings(slot)
        _strings(value)
        _flag(called)


def _check_site(site: list[Any]) -> None:
    kind, name, receiver, called, line, *passes = site
    _strings(kind, name)
    _texts(receiver)
    _flag(called)
    _lines(line)
    if len(passes) > 2 or passes and passes[0] is not None and (
            type(passes[0]) is not list or len(passes[0]) != 3):
        raise ValueError(f"expected what a call passes, got {passes!r}")
    if len(passes) > 1:
        _check_selectors(passes[1])
    for positional, keywords, unpacked in passes[:1] if passes and passes[0] else ():
        if type(keywords) is not list:
            raise ValueError(f"expected keywords, got {keywords!r}")
        _lines(positional + 1)
        _strings(*keywords)
        _flag(unpacked)


def _check_selectors(selectors: Any) -> None:
    if type(selectors) is not list:
        raise TypeError(f"expected subscripts, got {selectors!r}")
    for selector in selectors:
        if type(selector) is list:
            if len(selector) != 3:
                raise ValueError(f"expected a slice's three bounds, got {selector!r}")
            _keys(*(b for b in selector if b is not None))
        else:
            _keys(selector)


def _keys(*values: Any) -> None:
    # A subscript's key or bound: an integer literal or a dotted name.
    for value in values:
        if type(value) is not str:
            _integers(value)


def _integers(*values: Any) -> None:
    for value in values:
        if type(value) is not int:
            raise TypeError(f"expected an integer, got {value!r}")


def _strings(*values: Any) -> None:
    for value in values:
        if type(value) is not str:
            raise TypeError(f"expected a string, got {type(value).__name__}")


def _texts(*values: Any) -> None:
    _strings(*(v for v in values if v is not None))


def _lines(*values: Any) -> None:
    # Line numbers, cell numbers and counts as extraction makes them: no float, no bool.
    for value in values:
        if type(value) is not int or not 0 < value < 1 << 31:
            raise ValueError(f"expected a line number, got {value!r}")


def _flag(value: Any) -> None:
    if type(value) is not bool:
        raise TypeError(f"expected true or false, got {value!r}")


