"""A graph on a FalkorDB server: pushed once, read by many retrievers, never loaded whole.

``falkor://[[user]:password@]host:port/name[?timeout=seconds]`` names a graph on a
FalkorDB server (``falkors://`` over TLS; ``falkordb://`` is the same as
``falkor://``; its Python client: ``pip install 'sgkr[falkordb]'``).
:func:`push_graph` (``sgkr push``) writes a graph there; :class:`FalkorDBStore`
reads it for a :class:`~sgkr.retrieval.retriever.Retriever`, a question costing a few
batched openCypher queries: one for the tags of its phrases, one per round of
the path search, a few for the records it returns.

Versions: each push writes the graph, whole, to a graph of its own named
``name@<digest>`` (the digest of its content), and only then points the
string key ``name@current`` at it, in one atomic ``SET``. A reader reads that
key once per question, so a question reads one version from start to end
while a push writes the next; the version before the current one is kept
(a question that began on it finishes), older ones are deleted. Pushing the
same graph again finds its version current and changes nothing.

The Cypher is kept to what Neo4j also runs (``UNWIND``, ``MATCH ... WHERE
n.id IN $ids``, ``OPTIONAL MATCH``, ``collect``, ``UNION ALL``, ``CREATE INDEX
FOR ... ON``); the versions, kept as Redis keys, are FalkorDB's alone
(docs/scale.md says what a Neo4j user changes). What the retriever's fill
reads is pushed with the graph: the lexical scorer's postings (``:Token``
nodes) and each function's callers, length and rank among the most-called.

Every call has a timeout; a server that is down, too slow, or drops the
connection raises :class:`~sgkr.errors.StoreError`, one line naming the URL.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from ..algorithms.lexical import add_up, best_hits, index_of
from ..algorithms.paths import Fetch, connect_pairs, path_pairs, search_pairs
from ..algorithms.tokens import code_tokens
from ..errors import InvalidArgumentError, StoreError
from ..graph.model import KnowledgeGraph
from ..masking import mask_secrets, mask_url
from ..records import EdgeType, FunctionKind, FunctionNode, Role, SourceSpan
from .base import EdgeKind, FunctionName, NodeKind, Path, Side, TagInfo
from .memory import MemoryStore

__all__ = ["FalkorDBStore", "PushReport", "push_graph", "parse_url", "StoreAddress",
           "DEFAULT_TIMEOUT", "FORMAT", "SCHEMES"]

#: The URL schemes of a FalkorDB graph: FalkorDB's own (``falkors``: TLS) and ``falkordb``.
SCHEMES = ("falkor", "falkors", "falkordb")
#: Seconds any one call to the server may take.
DEFAULT_TIMEOUT = 10.0
#: The layout of a pushed graph; a reader refuses another.
FORMAT = 6
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,200}")
_KINDS = ("tag", "function", "method", "module")
_REL = {"calls": "CALLS", "references": "REFERENCES", "consumes": "CONSUMES",
        "produces": "PRODUCES"}
_EDGES = "CALLS|REFERENCES|CONSUMES|PRODUCES"
# Edges between functions, which the search may walk against their direction.
_CALLING = "CALLS|REFERENCES"
# The next nodes of the path search (sgkr.algorithms.paths) from the nodes ``n`` with ids in
# ``$ids``, for (direction, reverse_calls): as two patterns, twice as fast in FalkorDB
# as one undirected pattern filtered on startNode(r).
_MOVES = {
    ("forward", False): f"OPTIONAL MATCH (n)-[:{_EDGES}]->(m) WITH n, collect(m.id) AS a, []",
    ("backward", False): f"OPTIONAL MATCH (n)<-[:{_EDGES}]-(m) WITH n, collect(m.id) AS a, []",
    ("any", False): f"OPTIONAL MATCH (n)-[:{_EDGES}]-(m) WITH n, collect(m.id) AS a, []",
    ("forward", True): f"OPTIONAL MATCH (n)-[:{_EDGES}]->(m) WITH n, collect(m.id) AS a "
                       f"OPTIONAL MATCH (n)<-[:{_CALLING}]-(c) WITH n, a, collect(c.id)",
    ("backward", True): f"OPTIONAL MATCH (n)<-[:{_EDGES}]-(m) WITH n, collect(m.id) AS a "
                        f"OPTIONAL MATCH (n)-[:{_CALLING}]->(c) WITH n, a, collect(c.id)",
}
_BY_ID = "MATCH (n:Node) WHERE n.id IN $ids"
_BATCH = 500


@dataclass(frozen=True)
class StoreAddress:
    """A parsed store URL (``falkordb://``, ``falkor://`` or ``falkors://``)."""

    host: str
    port: int
    name: str
    password: str | None = field(repr=False)  # never shown
    timeout: float
    scheme: str = "falkordb"
    username: str | None = None
    ca: str | None = None

    @property
    def tls(self) -> bool:
        """Whether the connection is TLS (``falkors://``)."""
        return self.scheme == "falkors"

    @property
    def url(self) -> str:
        """The URL without its password, for messages."""
        return f"{self.scheme}://{self.host}:{self.port}/{self.name}"


def parse_url(url: str) -> StoreAddress:
    """Parse ``SCHEME://[[user]:password@]host[:port]/name[?timeout=seconds][&ca=file]``.

    The schemes are FalkorDB's own: ``falkor`` (or ``falkordb``) connects in
    the clear, ``falkors`` over TLS, checking the server's certificate and
    host name against the system's certificate authorities, or those of the
    PEM file ``ca``.

    Examples
    --------
    >>> parse_url("falkordb://localhost:6380/stdlib?timeout=2")  # doctest: +NORMALIZE_WHITESPACE
    StoreAddress(host='localhost', port=6380, name='stdlib', timeout=2.0,
                 scheme='falkordb', username=None, ca=None)
    >>> parse_url("falkors://db.example.com/payments").tls
    True

    Raises
    ------
    InvalidArgumentError
        If the URL is not of that form, naming it (less a password).
    """
    if not isinstance(url, str):
        raise InvalidArgumentError(f"store URL must be a string, got {type(url)}")
    parts = urlsplit(url)
    shown = _shown(url)
    name = parts.path.lstrip("/")
    try:
        port = parts.port or 6379
    except ValueError:
        raise InvalidArgumentError(f"store URL {shown!r}: the port is not a number") from None
    if parts.scheme not in SCHEMES or not parts.hostname or not _NAME.fullmatch(name):
        raise InvalidArgumentError(
            f"store URL {shown!r}: expected falkor://host:port/name (or falkors:// for TLS, "
            "falkordb://), the name of letters, digits, '_', '.' or '-'")
    timeout, ca = _query_options(parts.query, shown)
    password = unquote(parts.password) if parts.password else None
    username = unquote(parts.username) if parts.username else None
    return StoreAddress(parts.hostname, port, name, password, timeout, parts.scheme,
                        username, ca)


def _shown(url: str) -> str:
    """``url`` as an error shows it: its secrets masked, at most 200 characters."""
    masked = mask_url(url)
    return masked if len(masked) <= 200 else masked[:200] + "..."


def _query_options(text: str, shown: str) -> tuple[float, str | None]:
    """``timeout`` and ``ca`` of a URL's query, checked."""
    query = parse_qs(text)
    unknown = set(query) - {"timeout", "ca"}
    if unknown:
        raise InvalidArgumentError(f"store URL {shown!r}: unknown option(s) {sorted(unknown)}")
    timeout = DEFAULT_TIMEOUT
    if "timeout" in query:
        try:
            timeout = float(query["timeout"][-1])
        except ValueError:
            timeout = -1.0
        if not 0 < timeout <= 3600:
            raise InvalidArgumentError(
                f"store URL {shown!r}: timeout must be seconds in (0, 3600]")
    ca = query["ca"][-1] if "ca" in query else None
    if ca is not None and not shown.startswith("falkors:"):
        raise InvalidArgumentError(f"store URL {shown!r}: ca is for falkors:// (TLS) only")
    return timeout, ca


class _Server:
    """One connection pool to a FalkorDB server; every failure a :class:`StoreError`."""

    def __init__(self, address: StoreAddress) -> None:
        try:
            import falkordb
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError:
            raise InvalidArgumentError(
                f"{address.url}: the FalkorDB client is not installed "
                "(pip install 'sgkr[falkordb]')") from None
        self.address = address
        self.timeout_ms = max(1, int(address.timeout * 1000))
        # No retries: a call that fails fails at once, within its timeout.
        tls: dict[str, Any] = ({"ssl": True, "ssl_check_hostname": True,
                                "ssl_ca_certs": address.ca} if address.tls else {})
        self.db = self.call(lambda: falkordb.FalkorDB(
            host=address.host, port=address.port, username=address.username,
            password=address.password, socket_timeout=address.timeout,
            socket_connect_timeout=address.timeout, retry=Retry(NoBackoff(), 0), **tls))
        self.call(self.db.connection.ping)

    def call(self, work: Callable[[], Any]) -> Any:
        """Run ``work``, turning what the client or the network raise into StoreError."""
        try:
            return work()
        except StoreError:
            raise
        except Exception as exc:  # the client raises redis, OS and its own errors
            reason = mask_secrets(" ".join(str(exc).split())) or type(exc).__name__
            raise StoreError(f"graph store {self.address.url}: {reason}") from None

    def query(self, graph: str, cypher: str, params: Mapping[str, Any] | None = None, *,
              write: bool = False) -> list[list[Any]]:
        """The rows of one Cypher query on ``graph``."""
        handle = self.db.select_graph(graph)
        run = handle.query if write else handle.ro_query
        result = self.call(lambda: run(cypher, dict(params) if params else None,
                                       timeout=self.timeout_ms))
        return list(result.result_set)

    def current(self) -> str | None:
        """The graph the name points to, if any."""
        value = self.call(lambda: self.db.connection.get(_pointer(self.address.name)))
        return None if value is None else str(value)


def _pointer(name: str) -> str:
    return f"{name}@current"


class FalkorDBStore:
    """A :class:`~sgkr.stores.base.GraphStore` on a FalkorDB server.

    Parameters
    ----------
    url
        ``falkor://[[user]:password@]host:port/name[?timeout=seconds]`` (or
        ``falkors://`` over TLS, ``falkordb://``; see :func:`parse_url`), a graph
        pushed there by ``sgkr push`` (or :func:`push_graph`).

    Raises
    ------
    InvalidArgumentError
        If the URL is malformed, or the client is not installed.
    StoreError
        If the server cannot be reached.

    Examples
    --------
    >>> FalkorDBStore("falkordb://127.0.0.1:1/g?timeout=1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sgkr.errors.StoreError: graph store falkordb://127.0.0.1:1/g: Error 111 connecting to ...
    """

    def __init__(self, url: str) -> None:
        self.address = parse_url(url)
        self._url = url
        self._server = _Server(self.address)
        self._meta: dict[str, tuple[int, bool]] = {}
        self._phrases: dict[str, dict[str, list[TagInfo]]] = {}  # version -> vocabulary

    @property
    def url(self) -> str:
        """The store's URL, less any password."""
        return self.address.url

    def __reduce__(self) -> tuple[Any, ...]:
        return (FalkorDBStore, (self._url,))  # a copy connects anew

    def __repr__(self) -> str:
        return f"FalkorDBStore({self.url!r})"

    def reader(self) -> FalkorDBReader:
        """The version of the graph current now, for one question.

        Raises
        ------
        StoreError
            If the server fails, or holds no graph under this name.
        """
        version = self._server.current()
        if version is None:
            raise StoreError(f"graph store {self.url}: no graph pushed under "
                             f"{self.address.name!r} (run sgkr push)")
        meta = self._meta.get(version)
        if meta is None:
            rows = self._server.query(version, "MATCH (m:SGKRMeta) "
                                      "RETURN m.format, m.longest, m.curated, m.calling")
            if not rows or rows[0][0] != FORMAT:
                found = rows[0][0] if rows else None
                raise StoreError(f"graph store {self.url}: graph {version!r} is of format "
                                 f"{found!r}, not {FORMAT} (push it again with this sgkr)")
            meta = (int(rows[0][1]), bool(rows[0][2]), int(rows[0][3]))
            if len(self._meta) > 8:  # versions come and go; keep a few
                self._meta.clear()
            self._meta[version] = meta
        if len(self._phrases) > 8:
            self._phrases.clear()
        return FalkorDBReader(self._server, version, *meta, phrases=self._phrases)


class FalkorDBReader:
    """One version of a graph on a FalkorDB server (:class:`~sgkr.stores.base.GraphReader`)."""

    def __init__(self, server: _Server, version: str, longest: int, curated: bool,
                 calling: int = 0, *,
                 phrases: dict[str, dict[str, list[TagInfo]]] | None = None) -> None:
        self._server, self.version, self._longest = server, version, longest
        self._curated, self._calling = curated, calling
        self._vocabularies = {} if phrases is None else phrases

    def curated_tags(self) -> bool:
        """Whether the graph's tags may be curated (its meta ``curated_tags``, default true)."""
        return self._curated

    def calling_count(self) -> int:
        """How many function nodes call some function (pushed with the graph)."""
        return self._calling

    def _rows(self, cypher: str, **params: Any) -> list[list[Any]]:
        return self._server.query(self.version, cypher, params)

    def longest_phrase(self) -> int:
        """Most words in a folded tag label or alias."""
        return self._longest

    def phrase_tags(self, phrases: Collection[str]) -> dict[str, list[TagInfo]]:
        """The tags each phrase names, sorted by id."""
        if not phrases:
            return {}
        rows = self._rows("UNWIND $keys AS k MATCH (p:Phrase {key: k})-[:NAMES]->(t:Node) "
                          "RETURN k, t.id, t.label, t.role, t.weight", keys=sorted(phrases))
        found: dict[str, list[TagInfo]] = {}
        for key, tag_id, label, role, weight in sorted(rows, key=lambda r: (r[0], r[1])):
            found.setdefault(key, []).append(TagInfo(tag_id, label, _role(role), float(weight)))
        return found

    def phrases(self) -> dict[str, list[TagInfo]]:
        """Every folded phrase of a tag label or alias, with the tags it names (read once a
        version: partial tag matching weighs a phrase's words by the whole vocabulary)."""
        table = self._vocabularies.get(self.version)
        if table is None:
            table = {}
            rows = self._rows("MATCH (p:Phrase)-[:NAMES]->(t:Node) "
                              "RETURN p.key, t.id, t.label, t.role, t.weight")
            for key, tag_id, label, role, weight in sorted(rows, key=lambda r: (r[0], r[1])):
                table.setdefault(key, []).append(TagInfo(tag_id, label, _role(role),
                                                         float(weight)))
            self._vocabularies[self.version] = table
        return {p: list(tags) for p, tags in table.items()}

    def tags(self, ids: Collection[str]) -> dict[str, TagInfo]:
        """The tag nodes among ``ids``."""
        if not ids:
            return {}
        rows = self._rows(f"{_BY_ID} AND n.kind = 'tag' RETURN n.id, n.label, n.role, n.weight",
                          ids=list(ids))
        return {i: TagInfo(i, label, _role(role), float(weight))
                for i, label, role, weight in rows}

    def function_count(self) -> int:
        """The number of function nodes (the retriever's tag specificity)."""
        rows = self._rows("MATCH (n:Node) WHERE n.kind <> 'tag' RETURN count(n)")
        return int(rows[0][0]) if rows else 0

    def most_called(self, n: int) -> list[str]:
        """The ``n`` function ids with the most callers, ties by id (the retriever's fill)."""
        rows = self._rows("MATCH (n:Node) WHERE n.central < $n RETURN n.id, n.central", n=n)
        return [node for node, _ in sorted(rows, key=lambda row: row[1])]

    def callers_and_sizes(self, ids: Collection[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Each function's number of callers and its text's length (the fill's prior)."""
        rows = self._rows(f"{_BY_ID} AND n.kind <> 'tag' RETURN n.id, n.callers, n.size",
                          ids=list(ids)) if ids else []
        return {i: int(c) for i, c, _ in rows}, {i: int(z) for i, _, z in rows}

    def lexical_search(self, question: str, k: int, *,
                       scaled: bool = True) -> list[tuple[str, float]]:
        """:meth:`~sgkr.algorithms.lexical.LexicalIndex.search` over the pushed postings."""
        words = code_tokens(question)
        rows = self._rows("MATCH (t:Token) WHERE t.key IN $words RETURN t.key, t.postings",
                          words=sorted(set(words))) if words else []
        postings = {word: [(node, float(impact)) for node, impact in json.loads(hits)]
                    for word, hits in rows}
        return best_hits(add_up(words, postings), k, scaled=scaled)

    def named(self, names: Collection[str]) -> dict[str, list[str]]:
        """The ids of the function nodes (module bodies aside) of each bare name, sorted."""
        rows = self._rows("MATCH (n:Node) WHERE n.name IN $names AND n.kind <> 'tag' "
                          "AND n.kind <> 'module' RETURN n.name, n.id",
                          names=sorted(names)) if names else []
        found: dict[str, list[str]] = {}
        for name, node_id in rows:
            found.setdefault(name, []).append(node_id)
        return {name: sorted(ids) for name, ids in found.items()}

    def around(self, ids: Collection[str]) -> dict[str, tuple[str, ...]]:
        """Sorted nodes one edge of any type away from each of ``ids``, either way."""
        return dict(self._fetch("any", "any", False)(list(ids), [])[0]) if ids else {}

    def kinds(self, ids: Collection[str]) -> dict[str, NodeKind]:
        """``tag`` or the function kind of each node among ``ids``."""
        if not ids:
            return {}
        rows = self._rows(f"{_BY_ID} RETURN n.id, n.kind", ids=list(ids))
        return {i: _kind(kind) for i, kind in rows}

    def functions(self, ids: Collection[str]) -> dict[str, FunctionNode]:
        """The function records among ``ids``."""
        if not ids:
            return {}
        rows = self._rows(
            f"{_BY_ID} AND n.kind <> 'tag' "
            "RETURN n.id, n.name, n.qualnames, n.code, n.knowledge, n.sources, n.kind",
            ids=list(ids))
        return {row[0]: _function(row) for row in rows}

    def function_names(self) -> list[FunctionName]:
        """The id, bare name and qualified names of every function node, sorted by id."""
        rows = self._rows("MATCH (n:Node) WHERE n.kind <> 'tag' RETURN n.id, n.name, n.qualnames")
        return sorted((i, name, tuple(qualnames)) for i, name, qualnames in rows)

    def edge_kinds(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], EdgeKind]:
        """The type and resolution of the edge ``a -> b`` of each pair that is an edge."""
        rows = self._rows("UNWIND $pairs AS p MATCH (a:Node {id: p[0]})-[r]->(b:Node {id: p[1]}) "
                          "RETURN a.id, b.id, type(r), r.resolution",
                          pairs=[list(p) for p in pairs]) if pairs else []
        kinds = {rel: kind for kind, rel in _REL.items()}
        return {(a, b): (kinds[rel], resolution or None)  # type: ignore[misc]
                for a, b, rel, resolution in rows if rel in kinds}

    def neighbours(self, ids: Collection[str], edge_type: EdgeType,
                   side: Side) -> dict[str, tuple[str, ...]]:
        """Sorted nodes one ``edge_type`` edge away from each of ``ids``."""
        if not ids:
            return {}
        arrow = f"-[:{_REL[edge_type]}]->" if side == "out" else f"<-[:{_REL[edge_type]}]-"
        rows = self._rows(f"{_BY_ID} OPTIONAL MATCH (n){arrow}(m) RETURN n.id, collect(m.id)",
                          ids=list(ids))
        return {i: tuple(sorted(set(found))) for i, found in rows}

    def _fetch(self, ahead: str, behind: str, reverse_calls: bool) -> Fetch:
        """The search's fetch: both directions' moves in one query (a round trip a round)."""
        parts = [f"MATCH (n:Node) WHERE n.id IN ${name} "
                 f"{_MOVES[direction, reverse_calls and direction != 'any']} AS b "
                 f"RETURN {side} AS side, n.id AS id, a, b"
                 for side, (name, direction) in enumerate((("f", ahead), ("b", behind)))]
        cypher = " UNION ALL ".join(parts)

        def fetch(forward: list[str], backward: list[str]) -> tuple[
                dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
            found: tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]] = ({}, {})
            for side, node, following, back_calls in self._rows(cypher, f=forward, b=backward):
                found[side][node] = tuple(sorted({*following, *back_calls}))
            return found
        return fetch

    def find_paths(self, inputs: Sequence[str], outputs: Sequence[str], *, max_depth: int,
                   max_paths: int, reverse_calls: bool) -> list[Path]:
        """The search of :func:`sgkr.algorithms.paths.find_paths`, a query per round."""
        return search_pairs(self._fetch("forward", "backward", reverse_calls),
                            path_pairs(inputs, outputs), max_depth=max_depth,
                            max_paths=max_paths)

    def connect_paths(self, nodes: Sequence[str], *, max_depth: int,
                      max_paths: int) -> list[Path]:
        """The search of :func:`sgkr.algorithms.paths.connect_paths`, a query per round."""
        return search_pairs(self._fetch("any", "any", False), connect_pairs(nodes),
                            symmetric=True, max_depth=max_depth, max_paths=max_paths)


def _role(value: Any) -> Role:
    if value not in ("input", "output", "both"):
        raise StoreError(f"graph store: a tag has role {value!r}")
    return value  # type: ignore[no-any-return]


def _kind(value: Any) -> NodeKind:
    if value not in _KINDS:
        raise StoreError(f"graph store: a node has kind {value!r}")
    return value  # type: ignore[no-any-return]


def _function(row: list[Any]) -> FunctionNode:
    node_id, name, qualnames, code, knowledge, sources, kind = row
    spans = tuple(SourceSpan(f, int(a), int(b)) for f, a, b in json.loads(sources))
    function_kind: FunctionKind = _kind(kind)  # type: ignore[assignment]
    return FunctionNode(node_id, name, tuple(qualnames), code, knowledge, spans, function_kind)


# -- pushing ------------------------------------------------------------------------


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


def push_graph(graph: KnowledgeGraph, url: str, *, batch: int = _BATCH,
               log: Callable[[str], None] | None = None) -> PushReport:
    """Write ``graph`` to the FalkorDB store at ``url``, replacing its graph atomically.

    The graph is written whole to a new version, in batches of ``batch``
    rows; readers keep reading the previous version until the name points
    to the new one. Pushing the graph that is already current changes nothing.

    Raises
    ------
    InvalidArgumentError
        If ``graph`` is not a KnowledgeGraph, or the URL is malformed.
    StoreError
        If the server fails; the version being written is then never current.
    """
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
    if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
        raise InvalidArgumentError(f"batch must be a positive integer, got {batch!r}")
    say = log or (lambda _line: None)
    started = time.perf_counter()
    address = parse_url(url)
    server = _Server(address)
    document = graph.to_dict()
    digest = hashlib.sha256(json.dumps(document, sort_keys=True, ensure_ascii=False)
                            .encode("utf-8", "surrogatepass")).hexdigest()
    version = f"{address.name}@{digest[:20]}"
    nodes, edges = len(document["nodes"]), len(document["edges"])
    memory = MemoryStore(graph)
    phrases = memory.phrases()
    if server.current() == version and _complete(server, version):
        return PushReport(address.url, version, True, nodes, edges, len(phrases),
                          time.perf_counter() - started)
    graphs = set(server.call(server.db.list_graphs))
    if version in graphs:  # left by a push that did not finish
        server.call(server.db.select_graph(version).delete)
    for label, key in (("Node", "id"), ("Node", "central"), ("Node", "name"), ("Phrase", "key"),
                       ("Token", "key")):
        server.query(version, f"CREATE INDEX FOR (n:{label}) ON (n.{key})", write=True)
    roles = memory.tags([item["id"] for item in document["nodes"] if item["type"] == "tag"])
    # What the retriever's fill reads of each function: its callers, its length, and its
    # place among the most-called (ties by id), computed as the graph in memory does.
    callers = {f.id: len(graph.callers(f.id)) for f in graph.functions()}
    central = {n: rank for rank, n in enumerate(sorted(callers, key=lambda n: (-callers[n], n)))}
    rows: list[dict[str, Any]] = []
    for item in document["nodes"]:
        if item["type"] == "function":
            node_id = item["id"]
            rows.append({"id": node_id, "kind": item["kind"], "name": item["name"],
                         "qualnames": item["qualnames"], "code": item["code"],
                         "knowledge": item["knowledge"], "sources": json.dumps(
                             [[s["file"], s["start_line"], s["end_line"]]
                              for s in item["sources"]], ensure_ascii=False),
                         "callers": callers[node_id], "central": central[node_id],
                         "size": max(len(graph.function(node_id).text), 1)})
    _write(server, version, say, "functions", rows, batch,
           "UNWIND $rows AS r CREATE (:Node:Function {id: r.id, kind: r.kind, name: r.name, "
           "qualnames: r.qualnames, code: r.code, knowledge: r.knowledge, sources: r.sources, "
           "callers: r.callers, central: r.central, size: r.size})")
    rows = [{"id": item["id"], "label": item["label"], "aliases": item["aliases"],
             "role": roles[item["id"]].role, "weight": item["weight"]}
            for item in document["nodes"] if item["type"] == "tag"]
    _write(server, version, say, "tags", rows, batch,
           "UNWIND $rows AS r CREATE (:Node:Tag {id: r.id, kind: 'tag', label: r.label, "
           "aliases: r.aliases, role: r.role, weight: r.weight})")
    for kind, rel in _REL.items():
        typed = [[e["source"], e["target"], e.get("resolution", "")]
                 for e in document["edges"] if e["type"] == kind]
        extra = " {resolution: r[2]}" if kind in ("calls", "references") else ""
        _write(server, version, say, f"{kind} edges", typed, batch,
               f"UNWIND $rows AS r MATCH (a:Node {{id: r[0]}}) MATCH (b:Node {{id: r[1]}}) "
               f"CREATE (a)-[:{rel}{extra}]->(b)")
    rows = [{"key": key, "tags": [t.id for t in infos]} for key, infos in sorted(phrases.items())]
    _write(server, version, say, "tag phrases", rows, batch,
           "UNWIND $rows AS r CREATE (p:Phrase {key: r.key}) WITH p, r UNWIND r.tags AS t "
           "MATCH (n:Node {id: t}) CREATE (p)-[:NAMES]->(n)")
    # The lexical index's postings, each a JSON list: its floats come back to the bit.
    index = index_of(graph)
    rows = [{"key": word, "postings": json.dumps(index.postings(word), ensure_ascii=False)}
            for word in index.words]
    _write(server, version, say, "lexical postings", rows, batch,
           "UNWIND $rows AS r CREATE (:Token {key: r.key, postings: r.postings})")
    longest = max((key.count(" ") + 1 for key in phrases), default=0)
    server.query(version, "CREATE (:SGKRMeta {format: $format, digest: $digest, "
                 "longest: $longest, nodes: $nodes, edges: $edges, curated: $curated, "
                 "calling: $calling})",
                 {"format": FORMAT, "digest": digest, "longest": longest, "nodes": nodes,
                  "edges": edges, "curated": bool(graph.meta.get("curated_tags", True)),
                  "calling": memory.calling_count()},
                 write=True)
    if not _complete(server, version):
        raise StoreError(f"graph store {address.url}: version {version} was not written whole")
    previous = server.current()
    server.call(lambda: server.db.connection.set(_pointer(address.name), version))
    keep = {version, previous}
    prefix = f"{address.name}@"
    for old in sorted(graphs):
        if old.startswith(prefix) and old not in keep:
            server.call(server.db.select_graph(old).delete)
    say(f"{version} is current")
    return PushReport(address.url, version, False, nodes, edges, len(phrases),
                      time.perf_counter() - started)


def _complete(server: _Server, version: str) -> bool:
    if version not in set(server.call(server.db.list_graphs)):
        return False
    rows = server.query(version, "MATCH (m:SGKRMeta) RETURN m.format")
    return bool(rows) and rows[0][0] == FORMAT


def _write(server: _Server, version: str, say: Callable[[str], None], what: str,
           rows: Sequence[Any], batch: int, cypher: str) -> None:
    for done, chunk in enumerate(_chunks(rows, batch)):
        if done == 0:
            say(f"{what}: {len(rows)}")
        server.query(version, cypher, {"rows": chunk}, write=True)


def _chunks(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start:start + size]

