"""A graph on a FalkorDB server: pushed once, read by many retrievers, never loaded whole.

``falkor://[[user]:password@]host:port/name[?timeout=seconds]`` names a graph on a
FalkorDB server (``falkors://`` over TLS; ``falkordb://`` is the same as
``falkor://``; see :mod:`sgkr.stores.connection`; its Python client:
sgkr's ``falkordb`` extra). :func:`~sgkr.stores.push.push_graph`
(``sgkr push``) writes a graph there; :class:`FalkorDBStore` reads it for a
:class:`~sgkr.retrieval.retriever.Retriever`, a question costing a few batched
openCypher queries: one for the tags of its phrases, one per round of the path
search, a few for the records it returns.

Versions: each push writes the graph, whole, to a graph of its own, checks it,
and only then points the key ``name@current`` at it, one push at a time
(:mod:`sgkr.stores.push`, :mod:`sgkr.stores.layout`). A reader reads that key
once per question, so a question reads one version from start to end while a
push writes the next, and a version stays a minute after it was replaced. Every
value read is checked (:mod:`sgkr.stores.rows`): a malformed store is a
:class:`~sgkr.errors.StoreError`, never a wrong answer or another exception.

The Cypher is kept to what Neo4j also runs (``UNWIND``, ``MATCH ... WHERE
n.key IN $keys``, ``OPTIONAL MATCH``, ``collect``, ``UNION ALL``, ``CREATE INDEX
FOR ... ON``); the versions and the lock, kept as Redis keys, are FalkorDB's
alone (docs/scale.md says what a Neo4j user changes). What the retriever's fill
reads is pushed with the graph: the lexical scorer's postings (``:Token``
nodes) and each function's callers, length and rank among the most-called.

Every call has a timeout; a server that is down, too slow, or drops the
connection raises :class:`~sgkr.errors.StoreError`, one line naming the URL.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ..algorithms.lexical import add_up, best_hits
from ..algorithms.paths import Fetch, connect_pairs, path_pairs, search_pairs
from ..algorithms.summary import PhraseWords
from ..algorithms.tokens import code_tokens
from ..errors import StoreError
from ..records import EdgeType, FunctionNode, SolvedTask
from .base import EdgeKind, FunctionName, NodeKind, Path, Side, TagInfo
from .connection import DEFAULT_TIMEOUT, SCHEMES, Server, StoreAddress, parse_url
from .layout import FORMAT, RELATIONS, current_key, key_of, pack
from .push import PushReport, push_graph
from .rows import Rows

__all__ = ["FalkorDBStore", "FalkorDBReader", "PushReport", "push_graph", "parse_url",
           "StoreAddress", "DEFAULT_TIMEOUT", "FORMAT", "SCHEMES"]

_EDGES = "CALLS|REFERENCES|CONSUMES|PRODUCES"
# Edges between functions, which the search may walk against their direction.
_CALLING = "CALLS|REFERENCES"
# The next nodes of the path search (sgkr.algorithms.paths) from the nodes ``n`` with keys
# in ``$keys``, for (direction, reverse_calls): as two patterns, twice as fast in FalkorDB
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
_BY_KEY = "MATCH (n:Node) WHERE n.key IN $keys"
# The edge type of each relationship type, and the resolutions it may have ('' for none).
_EDGE_TYPES: dict[str, EdgeType] = {relation: kind for kind, relation in RELATIONS.items()}
_RESOLUTIONS = {"calls": ("exact", "inferred", "name"), "references": ("exact", "inferred", "name"),
                "consumes": ("", None), "produces": ("", None)}
# Whether a node of each kind has the label Tag.
_LABELLED = {"tag": True, "function": False, "method": False, "module": False}
_Meta = tuple[int, bool, int]


def _keys(texts: Collection[str]) -> list[str]:
    return [key_of(text) for text in texts if isinstance(text, str)]


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
        self._url = url  # with its password: a pickled copy connects again
        self._server = Server(self.address)
        self._meta: dict[str, _Meta] = {}
        self._phrases: dict[str, dict[str, list[TagInfo]]] = {}  # version -> vocabulary
        self._tasks: dict[str, tuple[SolvedTask, ...]] = {}  # version -> solved tasks

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
        version = self._server.get(current_key(self.address.name))
        if version is None:
            raise StoreError(f"graph store {self.url}: no graph pushed under "
                             f"{self.address.name!r} (run sgkr push)")
        meta = self._meta.get(version)
        if meta is None:
            meta = self._read_meta(version)
            if len(self._meta) > 8:  # versions come and go; keep a few
                self._meta.clear()
            self._meta[version] = meta
        if len(self._phrases) > 8 or len(self._tasks) > 8:
            self._phrases.clear()
            self._tasks.clear()
        return FalkorDBReader(self._server, version, *meta, phrases=self._phrases,
                              tasks=self._tasks)

    def _read_meta(self, version: str) -> _Meta:
        if version not in self._server.graphs():
            raise StoreError(f"graph store {self.url}: {current_key(self.address.name)!r} "
                             f"names {version!r:.80}, which is not there (push the graph again)")
        rows = self._server.query(version, "MATCH (m:SGKRMeta) "
                                  "RETURN m.format, m.longest, m.curated, m.calling")
        found = rows[0][0] if len(rows) == 1 and len(rows[0]) == 4 else None
        if found != FORMAT:
            raise StoreError(f"graph store {self.url}: graph {version!r:.80} is of format "
                             f"{found!r:.20}, not {FORMAT} (push it again with this sgkr)")
        check = Rows(self._server, version)
        curated = rows[0][2]
        if not isinstance(curated, bool):
            raise check.error(f"its meta 'curated' is {curated!r:.20}, not a boolean")
        return (check.count(rows[0][1], "its meta 'longest'"), curated,
                check.count(rows[0][3], "its meta 'calling'"))


class FalkorDBReader:
    """One version of a graph on a FalkorDB server (:class:`~sgkr.stores.base.GraphReader`).

    Every value read is checked (:class:`~sgkr.stores.rows.Rows`); a malformed
    one raises :class:`~sgkr.errors.StoreError`.
    """

    def __init__(self, server: Server, version: str, longest: int, curated: bool,
                 calling: int = 0, *,
                 phrases: dict[str, dict[str, list[TagInfo]]] | None = None,
                 tasks: dict[str, tuple[SolvedTask, ...]] | None = None) -> None:
        self._server, self.version, self._longest = server, version, longest
        self._curated, self._calling = curated, calling
        self._vocabularies = {} if phrases is None else phrases
        self._solved = {} if tasks is None else tasks
        self._check = Rows(server, version)

    def curated_tags(self) -> bool:
        """Whether the graph's tags may be curated (its meta ``curated_tags``, default true)."""
        return self._curated

    def calling_count(self) -> int:
        """How many function nodes call some function (the reuse prior's denominator)."""
        return self._calling

    def _rows(self, cypher: str, **params: Any) -> list[list[Any]]:
        # The server gives every row the query's columns; their values are checked.
        return self._server.query(self.version, cypher, params)

    def _nodes(self, ids: Collection[str], values: str, *, kind: str = "any",
               match: str = "") -> list[tuple[str, list[Any]]]:
        """(id, ``values``) of the nodes among ``ids`` of ``kind`` (``tag``, ``function`` or
        ``any``, by the label ``Tag``; ``match``: more of the pattern from ``n``).

        Each node is checked to be one asked for, and an id not found by its key is
        looked for once more, unindexed: retrieval asks for nodes the store itself
        named, so one stored under another key is a :class:`~sgkr.errors.StoreError`,
        not a node left out.
        """
        asked = {i for i in ids if isinstance(i, str)}
        if not asked:
            return []
        labels = kind != "any"  # a value parsed per row: only when it is needed
        rows = self._rows(f"{_BY_KEY}{match} RETURN n.id AS i_, "
                          f"{'n:Tag AS g_, ' if labels else ''}{values}",
                          keys=[key_of(i) for i in asked])
        found: dict[str, tuple[Any, list[Any]]] = {}
        for node, *rest in rows:
            labelled = rest.pop(0) if labels else None
            name = node if type(node) is str and "\x01" not in node else self._check.text(
                node, "a node id")
            if name not in asked:
                raise self._check.error(f"node {name!r:.80} is stored under another key")
            found[name] = (labelled, rest)
        if len(found) < len(asked):
            self._not_under_their_keys([i for i in asked if i not in found])
        return [(name, rest) for name, (labelled, rest) in found.items()
                if kind == "any" or labelled is (kind == "tag")]

    def _not_under_their_keys(self, missing: list[str]) -> None:
        for (node,) in self._rows("MATCH (n:Node) WHERE n.id IN $ids RETURN n.id",
                                  ids=[pack(i) for i in missing]):
            raise self._check.error(f"node {self._check.text(node, 'a node id')!r:.80} "
                                    "is stored under another key")

    def longest_phrase(self) -> int:
        """Most words in a folded tag label or alias."""
        return self._longest

    def phrase_tags(self, phrases: Collection[str]) -> dict[str, list[TagInfo]]:
        """The tags each phrase names, sorted by id."""
        asked = {key_of(p): p for p in phrases if isinstance(p, str)}
        if not asked:
            return {}
        rows = self._rows("UNWIND $keys AS k MATCH (p:Phrase {key: k})-[:NAMES]->(t:Node) "
                          "RETURN k, t.id, t.record, t.role", keys=sorted(asked))
        found: dict[str, list[TagInfo]] = {}
        for key, tag, record, role in rows:
            if key in asked:
                found.setdefault(asked[key], []).append(self._check.tag(tag, record, role))
        return {p: sorted(tags, key=lambda t: t.id) for p, tags in sorted(found.items())}

    def phrases(self) -> dict[str, list[TagInfo]]:
        """Every folded phrase of a tag label or alias, with the tags it names (read once a
        version: partial tag matching weighs a phrase's words by the whole vocabulary)."""
        table = self._vocabularies.get(self.version)
        if table is None:
            table = {}
            rows = self._rows("MATCH (p:Phrase)-[:NAMES]->(t:Node) "
                              "RETURN p.text, t.id, t.record, t.role")
            for text, tag, record, role in rows:
                phrase = self._check.text(text, "a phrase")
                table.setdefault(phrase, []).append(self._check.tag(tag, record, role))
            table = {p: sorted(tags, key=lambda t: t.id) for p, tags in sorted(table.items())}
            self._vocabularies[self.version] = table
        return {p: list(tags) for p, tags in table.items()}

    def phrase_words(self) -> PhraseWords:
        """Each word of the folded phrases, with the phrases holding it."""
        return PhraseWords.of(self.phrases())

    def tasks(self) -> tuple[SolvedTask, ...]:
        """The graph's solved tasks, in their order (read once a version)."""
        found = self._solved.get(self.version)
        if found is None:
            rows = self._rows("MATCH (t:Task) RETURN t.n, t.id, t.record ORDER BY t.n")
            found = tuple(self._check.task(task, record) for _, task, record in rows)
            self._solved[self.version] = found
        return found

    def tags(self, ids: Collection[str]) -> dict[str, TagInfo]:
        """The tag nodes among ``ids``."""
        found = [self._check.tag(tag, record, role) for tag, (record, role)
                 in self._nodes(ids, "n.record, n.role", kind="tag")]
        return {info.id: info for info in found}

    def function_count(self) -> int:
        """The number of function nodes (the retriever's tag specificity)."""
        rows = self._rows("MATCH (n:Node) WHERE n.kind <> 'tag' RETURN count(n)")
        return self._check.count(rows[0][0], "the number of functions") if rows else 0

    def most_called(self, n: int) -> list[str]:
        """The ``n`` function ids with the most callers, ties by id (the retriever's fill)."""
        rows = self._rows("MATCH (n:Node) WHERE n.central < $n RETURN n.id, n.central", n=n)
        ranked = [(self._check.count(rank, "a function's rank"),
                   self._check.text(node, "a node id")) for node, rank in rows]
        return [node for _, node in sorted(ranked)]

    def callers_and_sizes(self, ids: Collection[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Each function's number of callers and its text's length (the fill's prior)."""
        callers, sizes = {}, {}
        for name, (count, size) in self._nodes(ids, "n.callers, n.size", kind="function"):
            if type(count) is not int or type(size) is not int or count < 0 or size < 0:
                self._check.count(count, f"the callers of {name!r:.80}")
                self._check.count(size, f"the size of {name!r:.80}")
            callers[name], sizes[name] = count, size
        return callers, sizes

    def lexical_search(self, question: str, k: int, *,
                       scaled: bool = True) -> list[tuple[str, float]]:
        """:meth:`~sgkr.algorithms.lexical.LexicalIndex.search` over the pushed postings."""
        said = code_tokens(question)  # a word said twice counts twice
        words = {key_of(word): word for word in said}
        rows = self._rows("MATCH (t:Token) WHERE t.key IN $keys RETURN t.key, t.postings",
                          keys=sorted(words)) if words else []
        postings = {words[key]: self._check.postings(hits, words[key])
                    for key, hits in rows if key in words}
        return best_hits(add_up(said, postings), k, scaled=scaled)

    def named(self, names: Collection[str]) -> dict[str, list[str]]:
        """The ids of the function nodes (module bodies aside) of each bare name, sorted."""
        asked = {pack(n) for n in names if isinstance(n, str)}
        rows = self._rows("MATCH (n:Function) WHERE n.name IN $names AND n.kind <> 'module' "
                          "RETURN n.name, n.id", names=sorted(asked)) if asked else []
        found: dict[str, list[str]] = {}
        for name, node in rows:
            found.setdefault(self._check.text(name, "a name"), []).append(
                self._check.text(node, "a node id"))
        return {name: sorted(ids) for name, ids in sorted(found.items())}

    def around(self, ids: Collection[str]) -> dict[str, tuple[str, ...]]:
        """Sorted nodes one edge of any type away from each of ``ids``, either way."""
        return dict(self._fetch("any", "any", False)(list(ids), [])[0]) if ids else {}

    def kinds(self, ids: Collection[str]) -> dict[str, NodeKind]:
        """``tag`` or the function kind of each node among ``ids``."""
        found: dict[str, NodeKind] = {}
        for node, (kind, labelled) in self._nodes(ids, "n.kind AS k_, n:Tag AS t_"):
            if type(kind) is not str or _LABELLED.get(kind) is not labelled:
                checked = self._check.kind(kind, node)
                raise self._check.error(f"node {node!r:.80} has kind {checked!r} and "
                                        f"{'the' if labelled else 'not the'} label Tag")
            found[node] = kind  # type: ignore[assignment]  # checked: one of _LABELLED
        return found

    def functions(self, ids: Collection[str]) -> dict[str, FunctionNode]:
        """The function records among ``ids``."""
        found = [self._check.function(node, record) for node, (record,)
                 in self._nodes(ids, "n.record", kind="function")]
        return {record.id: record for record in found}

    def function_names(self) -> list[FunctionName]:
        """The id, bare name and qualified names of every function node, sorted by id."""
        rows = self._rows("MATCH (n:Function) RETURN n.id, n.name, n.qualnames")
        return sorted((self._check.text(node, "a node id"), self._check.text(name, "a name"),
                       tuple(self._check.texts(qualnames, "qualified names")))
                      for node, name, qualnames in rows)

    def edge_kinds(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], EdgeKind]:
        """The type and resolution of the edge ``a -> b`` of each pair that is an edge."""
        asked = {(key_of(a), key_of(b)): (a, b) for a, b in pairs
                 if isinstance(a, str) and isinstance(b, str)}
        rows = self._rows("UNWIND $pairs AS p MATCH (a:Node {key: p[0]})-[r]->(b:Node {key: p[1]}) "
                          "RETURN a.key, b.key, type(r), r.resolution",
                          pairs=[list(p) for p in asked]) if asked else []
        found: dict[tuple[str, str], EdgeKind] = {}
        for a, b, relation, resolution in rows:
            kind = _EDGE_TYPES.get(relation) if isinstance(relation, str) else None
            if kind is None or (a, b) not in asked or resolution not in _RESOLUTIONS[kind]:
                raise self._check.error(f"an edge of type {relation!r:.40} and resolution "
                                        f"{resolution!r:.40} where a pair was asked for")
            found[asked[a, b]] = (kind, resolution or None)
        return found

    def neighbours(self, ids: Collection[str], edge_type: EdgeType,
                   side: Side) -> dict[str, tuple[str, ...]]:
        """Sorted nodes one ``edge_type`` edge away from each of ``ids``."""
        if not ids:
            return {}
        relation = RELATIONS[edge_type]
        arrow = f"-[:{relation}]->" if side == "out" else f"<-[:{relation}]-"
        return {node: tuple(sorted(set(self._check.texts(found, "a node's neighbours"))))
                for node, (found,) in self._nodes(ids, "collect(m.id)",
                                                  match=f" OPTIONAL MATCH (n){arrow}(m)")}

    def _fetch(self, ahead: str, behind: str, reverse_calls: bool) -> Fetch:
        """The search's fetch: both directions' moves in one query (a round trip a round)."""
        parts = [f"MATCH (n:Node) WHERE n.key IN ${name} "
                 f"{_MOVES[direction, reverse_calls and direction != 'any']} AS b "
                 f"RETURN {side} AS side, n.id AS id, a, b"
                 for side, (name, direction) in enumerate((("f", ahead), ("b", behind)))]
        cypher = " UNION ALL ".join(parts)
        check = self._check

        def fetch(forward: list[str], backward: list[str]) -> tuple[
                dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
            found: tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]] = ({}, {})
            for side, node, following, back in self._rows(cypher, f=_keys(forward),
                                                          b=_keys(backward)):
                if side not in (0, 1):
                    raise check.error(f"the path search returned side {side!r:.20}")
                found[side][check.text(node, "a node id")] = tuple(sorted(
                    {*check.texts(following, "a node's neighbours"),
                     *check.texts(back, "a node's callers")}))
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
