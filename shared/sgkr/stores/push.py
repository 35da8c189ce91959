"""``sgkr push``: write a graph to a FalkorDB store, whole, checked, one push at a time.

A push (:func:`push_graph`)

1. takes the store's lock (:class:`~sgkr.stores.lock.PushLock`), waiting up to
   ``wait`` seconds for another push to finish;
2. finds the graph already current (same digest, and every check below holds
   on it): it changes nothing and says ``unchanged``; a current version that
   fails a check is written again (repaired);
3. writes the graph, in batches, to a new version of its own
   (:mod:`sgkr.stores.layout`), its indexes built first, renewing its lock as it
   goes;
4. checks the version: for each :class:`Part` written, the number of its nodes
   or relationships and the characters of its text, counted by the server, are
   those sent; every node key is unique. A version that fails a check is
   deleted and written once more, and the push gives up if that one fails too;
5. makes the version current, in one atomic step fenced by the lock, and
   removes the versions no longer needed: a version stays
   :data:`KEEP_SECONDS` after it stopped being current (questions that began on
   it finish), at most :data:`KEEP_MOST` of them.

A push that fails at any step, or is interrupted, deletes its version and
leaves the current one current; one killed before it could is cleaned up by
the next push. What a push writes is a list of :class:`Part` objects: a new
kind of record (an index, say) is one more part, and its checks come with it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..algorithms.lexical import index_of
from ..errors import InvalidArgumentError, StoreError
from ..graph.jsonrecords import records_of
from ..graph.model import KnowledgeGraph
from .connection import Server, parse_url
from .layout import (
    FORMAT,
    INDEXES,
    RELATIONS,
    current_key,
    key_of,
    pack,
    retired_key,
    version_prefix,
)
from .lock import PushLock
from .memory import MemoryStore

__all__ = ["push_graph", "PushReport", "Part", "Check", "graph_parts", "problems", "KEEP_SECONDS",
           "KEEP_MOST", "DEFAULT_WAIT", "DEFAULT_BATCH"]

#: Seconds a version is kept after it stopped being current.
KEEP_SECONDS = 60.0
#: Most versions kept besides the current one.
KEEP_MOST = 8
#: Seconds a push waits for another push to the same store.
DEFAULT_WAIT = 60.0
#: Rows written per query.
DEFAULT_BATCH = 500
# Characters of text written per query, whatever the number of rows.
_BATCH_CHARS = 8_000_000

Log = Callable[[str], None]


@dataclass(frozen=True)
class Check:
    """A number the server counts on a written version, and the number it must be."""

    what: str
    cypher: str
    expected: int


@dataclass(frozen=True)
class Part:
    """One kind of record a push writes: its rows, written ``batch`` at a time by
    ``cypher`` (``UNWIND $rows AS r ...``), and the checks the written version must pass."""

    what: str
    rows: Sequence[Any]
    cypher: str
    checks: tuple[Check, ...]


@dataclass(frozen=True)
class PushReport:
    """What :func:`push_graph` did."""

    url: str
    version: str
    unchanged: bool
    nodes: int
    edges: int
    phrases: int
    seconds: float

    def summary(self) -> str:
        """One line, as ``sgkr push`` prints it."""
        if self.unchanged:
            return f"{self.url}: unchanged (version {self.version})"
        return (f"{self.url}: pushed version {self.version}: {self.nodes} nodes, {self.edges} "
                f"edges, {self.phrases} tag phrases in {self.seconds:.1f} s")


def push_graph(graph: KnowledgeGraph, url: str, *, batch: int = DEFAULT_BATCH,
               wait: float = DEFAULT_WAIT, log: Log | None = None) -> PushReport:
    """Write ``graph`` to the FalkorDB store at ``url``, replacing its graph atomically.

    See the module docs: one push at a time (another waits up to ``wait``
    seconds), the version checked before it is made current, nothing left
    behind by a push that fails.

    Raises
    ------
    InvalidArgumentError
        If ``graph`` is not a KnowledgeGraph, ``batch`` not a positive integer,
        ``wait`` not seconds from 0 to 86,400, or the URL malformed.
    StoreError
        If the server fails, another push holds the store longer than ``wait``,
        or the version written fails a check; the current version stays current.
    """
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
    if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
        raise InvalidArgumentError(f"batch must be a positive integer, got {batch!r}")
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait <= 86_400:
        raise InvalidArgumentError(f"wait must be seconds from 0 to 86400, got {wait!r}")
    say = log or (lambda _line: None)
    started = time.perf_counter()
    address = parse_url(url)
    server = Server(address)
    parts, digest = graph_parts(graph)
    counts = graph.stats()
    nodes, edges = counts["functions"] + counts["tags"], sum(counts["edges"].values())
    phrases = len(next(p for p in parts if p.what == "tag phrases").rows)
    lock = PushLock(server, address.name)
    lock.acquire(wait)
    try:
        current = server.get(current_key(address.name))
        if current is not None and _holds(server, current, digest, parts):
            return PushReport(address.url, current, True, nodes, edges, phrases,
                              time.perf_counter() - started)
        version = _write_checked(server, address.name, digest, parts, batch, lock, say)
        _clean_up(server, address.name, version, say)
    finally:
        _quietly(lock.release)
    say(f"{version} is current")
    return PushReport(address.url, version, False, nodes, edges, phrases,
                      time.perf_counter() - started)


def graph_parts(graph: KnowledgeGraph) -> tuple[list[Part], str]:
    """What a push of ``graph`` writes, in order, and the digest of the graph."""
    document = records_of(graph)  # what the store keeps, apart from graph.json's form
    digest = hashlib.sha256(json.dumps(document, sort_keys=True, ensure_ascii=False)
                            .encode("utf-8", "surrogatepass")).hexdigest()
    memory = MemoryStore(graph)
    phrases = memory.phrases()
    longest = max((key.count(" ") + 1 for key in phrases), default=0)
    meta = {"format": FORMAT, "digest": digest, "longest": longest,
            "curated": bool(graph.meta.get("curated_tags", True)),
            "calling": memory.calling_count()}
    parts = [_functions(graph, document), _tags(memory, document), *_edges(document),
             _phrases(phrases), _tokens(graph), *_tasks(document),
             Part("meta", [meta], "UNWIND $rows AS r CREATE (:SGKRMeta {format: r.format, "
                  "digest: r.digest, longest: r.longest, curated: r.curated, "
                  "calling: r.calling})",
                  (Check("meta nodes", "MATCH (m:SGKRMeta) RETURN count(m)", 1),))]
    return parts, digest


def _record(node: dict[str, Any]) -> str:
    return json.dumps(node, ensure_ascii=False, separators=(",", ":"))


def _functions(graph: KnowledgeGraph, document: dict[str, Any]) -> Part:
    # What the retriever's fill reads of each function: its callers, its length, and its
    # place among the most-called (ties by id), computed as the graph in memory does.
    callers = {f.id: len(graph.callers(f.id)) for f in graph.functions()}
    central = {n: rank for rank, n in enumerate(sorted(callers, key=lambda n: (-callers[n], n)))}
    rows = [{"key": key_of(item["id"]), "id": pack(item["id"]), "kind": item["kind"],
             "record": _record(item), "name": pack(item["name"]),
             "qualnames": [pack(q) for q in item["qualnames"]], "callers": callers[item["id"]],
             "central": central[item["id"]],
             "size": max(len(graph.function(item["id"]).text), 1)}
            for item in document["nodes"] if item["type"] == "function"]
    return Part("functions", rows,
                "UNWIND $rows AS r CREATE (:Node:Function {key: r.key, id: r.id, kind: r.kind, "
                "record: r.record, name: r.name, qualnames: r.qualnames, callers: r.callers, "
                "central: r.central, size: r.size})",
                (Check("function nodes", "MATCH (n:Function) RETURN count(n)", len(rows)),
                 Check("characters of function records",
                       "MATCH (n:Function) RETURN sum(size(n.id) + size(n.record) + size(n.name) "
                       "+ reduce(t = 0, q IN n.qualnames | t + size(q)))",
                       sum(len(r["id"]) + len(r["record"]) + len(r["name"])
                           + sum(map(len, r["qualnames"])) for r in rows))))


def _tags(memory: MemoryStore, document: dict[str, Any]) -> Part:
    items = [item for item in document["nodes"] if item["type"] == "tag"]
    roles = memory.tags([item["id"] for item in items])
    rows = [{"key": key_of(item["id"]), "id": pack(item["id"]), "role": roles[item["id"]].role,
             "record": _record(item)} for item in items]
    return Part("tags", rows,
                "UNWIND $rows AS r CREATE (:Node:Tag {key: r.key, id: r.id, kind: 'tag', "
                "role: r.role, record: r.record})",
                (Check("tag nodes", "MATCH (n:Tag) RETURN count(n)", len(rows)),
                 Check("characters of tag records",
                       "MATCH (n:Tag) RETURN sum(size(n.id) + size(n.record))",
                       sum(len(r["id"]) + len(r["record"]) for r in rows)),
                 Check("nodes sharing a key",
                       "MATCH (n:Node) RETURN count(n) - count(DISTINCT n.key)", 0)))


def _edges(document: dict[str, Any]) -> list[Part]:
    parts = []
    for kind, relation in RELATIONS.items():
        rows = [[key_of(e["source"]), key_of(e["target"]), e.get("resolution", "")]
                for e in document["edges"] if e["type"] == kind]
        extra = " {resolution: r[2]}" if kind in ("calls", "references") else ""
        parts.append(Part(
            f"{kind} edges", rows,
            f"UNWIND $rows AS r MATCH (a:Node {{key: r[0]}}) MATCH (b:Node {{key: r[1]}}) "
            f"CREATE (a)-[:{relation}{extra}]->(b)",
            (Check(f"{kind} edges", f"MATCH ()-[e:{relation}]->() RETURN count(e)",
                   len(rows)),)))
    return parts


def _tasks(document: dict[str, Any]) -> list[Part]:
    """The solved tasks (a graph built from earlier questions; none else): a node each,
    its record, and a USES relationship to each function its solution uses."""
    items = document.get("tasks", [])
    if not items:
        return []
    rows: list[dict[str, Any]] = [
        {"key": key_of(t["id"]), "id": pack(t["id"]), "record": _record(t), "n": n,
         "uses": [key_of(node) for node in t.get("uses", [])]} for n, t in enumerate(items)]
    return [Part("solved tasks", rows,
                 "UNWIND $rows AS r CREATE (t:Task {key: r.key, id: r.id, record: r.record, "
                 "n: r.n}) "
                 "WITH t, r UNWIND r.uses AS u MATCH (n:Node {key: u}) CREATE (t)-[:USES]->(n)",
                 (Check("task nodes", "MATCH (t:Task) RETURN count(t)", len(rows)),
                  Check("characters of task records",
                        "MATCH (t:Task) RETURN sum(size(t.id) + size(t.record))",
                        sum(len(r["id"]) + len(r["record"]) for r in rows)),
                  Check("functions the tasks use", "MATCH (:Task)-[e:USES]->() RETURN count(e)",
                        sum(len(r["uses"]) for r in rows))))]


def _phrases(phrases: dict[str, Any]) -> Part:
    rows = [{"key": key_of(key), "text": pack(key), "tags": [key_of(t.id) for t in infos]}
            for key, infos in sorted(phrases.items())]
    return Part("tag phrases", rows,
                "UNWIND $rows AS r CREATE (p:Phrase {key: r.key, text: r.text}) WITH p, r "
                "UNWIND r.tags AS t MATCH (n:Node {key: t}) CREATE (p)-[:NAMES]->(n)",
                (Check("phrase nodes", "MATCH (p:Phrase) RETURN count(p)", len(rows)),
                 Check("characters of phrases", "MATCH (p:Phrase) RETURN sum(size(p.text))",
                       sum(len(r["text"]) for r in rows)),
                 Check("tags named by phrases", "MATCH ()-[e:NAMES]->() RETURN count(e)",
                       sum(len(r["tags"]) for r in rows))))


def _tokens(graph: KnowledgeGraph) -> Part:
    # The lexical index's postings, each a JSON list: its floats come back to the bit.
    index = index_of(graph)
    rows = [{"key": key_of(word), "word": pack(word),
             "postings": json.dumps(index.postings(word), ensure_ascii=False)}
            for word in index.words]
    return Part("lexical postings", rows,
                "UNWIND $rows AS r CREATE (:Token {key: r.key, word: r.word, "
                "postings: r.postings})",
                (Check("token nodes", "MATCH (t:Token) RETURN count(t)", len(rows)),
                 Check("characters of postings",
                       "MATCH (t:Token) RETURN sum(size(t.word) + size(t.postings))",
                       sum(len(r["word"]) + len(r["postings"]) for r in rows))))


def _holds(server: Server, version: str, digest: str, parts: Sequence[Part]) -> bool:
    """Whether ``version`` is the graph of ``digest``, whole."""
    if version not in server.graphs():
        return False
    try:
        rows = server.query(version, "MATCH (m:SGKRMeta) RETURN m.format, m.digest")
        return rows == [[FORMAT, digest]] and not problems(server, version, parts)
    except StoreError:  # values a check cannot count (edited by hand): not this graph
        return False


def problems(server: Server, version: str, parts: Sequence[Part]) -> list[str]:
    """What ``version`` holds otherwise than ``parts`` say it must (every check of each)."""
    found = []
    for part in parts:
        for check in part.checks:
            rows = server.query(version, check.cypher)
            value = rows[0][0] if rows and rows[0] else None
            count = int(value) if isinstance(value, (int, float)) else None
            if count != check.expected:
                found.append(f"{check.what}: {count} (expected {check.expected})")
    return found


class _NotWhole(StoreError):
    """The server holds a version otherwise than it was sent."""


def _write_checked(server: Server, name: str, digest: str, parts: Sequence[Part], batch: int,
                   lock: PushLock, say: Log) -> str:
    """Write, check and publish a new version; the version. A version the checks find
    not whole is written once more (a new one) before the push gives up."""
    for attempt in (1, 2):
        version = f"{version_prefix(name)}{digest[:16]}-{lock.id[:7]}{attempt}"
        try:
            _write_version(server, version, parts, batch, lock, say)
            return version
        except _NotWhole as error:
            if attempt == 2:
                raise
            say(f"{error}; writing it once more")
    raise AssertionError("unreachable")


def _write_version(server: Server, version: str, parts: Sequence[Part], batch: int,
                   lock: PushLock, say: Log) -> None:
    """Write, check and publish ``version``; on any failure, delete it and re-raise."""
    try:
        server.drop(version)
        _indexes(server, version)
        for part in parts:
            say(f"{part.what}: {len(part.rows)}")
            for chunk in _chunks(part.rows, batch):
                server.query(version, part.cypher, {"rows": chunk}, write=True)
                lock.renew()
        missing = problems(server, version, parts)
        if missing:
            raise _NotWhole(str(server.error(
                f"version {version} was not written whole ({'; '.join(missing)}); the "
                "current version stays current")))
        lock.publish(version)
    except BaseException:
        _quietly(lambda: server.drop(version))
        raise


def _indexes(server: Server, version: str) -> None:
    """Create the version's indexes, and wait until the server says they are built: FalkorDB
    builds an index in the background, and a lookup may miss nodes until it is."""
    for label, key in INDEXES:
        server.query(version, f"CREATE INDEX FOR (n:{label}) ON (n.{key})", write=True)
    deadline = time.monotonic() + server.address.timeout
    pause = 0.005
    while True:
        states = server.query(version, "CALL db.indexes() YIELD status RETURN status")
        if all(row == ["OPERATIONAL"] for row in states):
            return
        if time.monotonic() > deadline:
            raise server.error(f"the indexes of version {version} were not built in "
                               f"{server.address.timeout:g} s ({states!r:.200})")
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def _clean_up(server: Server, name: str, current: str, say: Log) -> None:
    """Delete the store's versions no longer needed (see the module docs); say why not if
    the server fails (the push itself is done, and the next push tries again)."""
    try:
        now = server.now()
        retired: dict[str, str] = server.call(lambda: server.redis.hgetall(retired_key(name)))
        graphs = {g for g in server.graphs() if g.startswith(version_prefix(name))}
        young = sorted((since, v) for v, since in ((v, _seconds(t)) for v, t in retired.items())
                       if v in graphs and now - since < KEEP_SECONDS)
        keep = {current} | {v for _, v in young[-KEEP_MOST:]}
        for old in sorted(graphs - keep):
            server.drop(old)
        stale = [v for v in retired if v not in keep]
        if stale:
            server.call(lambda: server.redis.hdel(retired_key(name), *stale))
    except StoreError as error:
        say(f"old versions not removed ({error}); the next push removes them")


def _seconds(text: Any) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0  # unreadable: as old as can be


def _quietly(work: Callable[[], Any]) -> None:
    try:
        work()
    except StoreError:
        pass  # the server is gone: the lease expires, the next push cleans up


def _chunks(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """``rows`` in chunks of at most ``size`` rows and about 8 M characters of text."""
    start = 0
    while start < len(rows):
        end, chars = start, 0
        while end < len(rows) and end - start < size and (end == start or chars < _BATCH_CHARS):
            chars += _chars(rows[end])
            end += 1
        yield rows[start:end]
        start = end


def _chars(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_chars(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_chars(v) for v in value)
    return 8
