"""Dependency paths between input and output tag nodes: bounded breadth-first search.

For each pair of a matched input tag and a matched output tag, a
bidirectional, layer-complete BFS finds the shortest distance; the shortest
paths are then read off the BFS predecessor layers, at most ``max_paths`` of
them. Moves follow ``consumes`` (tag → function), ``produces`` (function →
tag) and ``calls`` (caller → callee) edges, and, when ``reverse_calls`` is
set, calls against their direction (callee → caller). Work is polynomial:
each BFS visits a node once, path enumeration stops at ``max_paths``, and
depth is capped by ``max_depth``, so cycles and hubs cannot make it hang.

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.records import Edge, FunctionNode, TagNode
>>> g = KnowledgeGraph()
>>> for n in ("f", "g"):
...     g.add_function(FunctionNode(f"fn:{n}", n, (n,), "", "", (), "function"))
>>> for t in ("a", "b"):
...     g.add_tag(TagNode(f"tag:{t}", t))
>>> g.add_edge(Edge("tag:a", "fn:g", "consumes"))
>>> g.add_edge(Edge("fn:f", "fn:g", "calls", "exact"))
>>> g.add_edge(Edge("fn:f", "tag:b", "produces"))
>>> find_paths(g, ["tag:a"], ["tag:b"])
[('tag:a', 'fn:g', 'fn:f', 'tag:b')]
>>> find_paths(g, ["tag:a"], ["tag:b"], reverse_calls=False)
[]
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain, filterfalse, islice

from ..errors import InvalidArgumentError, NodeNotFoundError
from ..graph.model import KnowledgeGraph

__all__ = ["find_paths", "connect_paths", "search_pairs", "path_pairs", "connect_pairs",
           "SearchIndex", "Fetch", "DEFAULT_MAX_DEPTH", "DEFAULT_MAX_PATHS", "MAX_DEPTH",
           "MAX_PATHS", "MAX_PATH_ENDS", "check_bounds"]

DEFAULT_MAX_DEPTH = 8
DEFAULT_MAX_PATHS = 32
#: Largest bounds a search accepts: deeper paths explain nothing, and the paths returned
#: (at most ``max_paths`` of at most ``max_depth`` edges) are the search's output.
MAX_DEPTH = 64
MAX_PATHS = 1_000
#: Most nodes a search starts from, and most it ends at (the first ones given, in
#: their order): each pair is a search of its own, so 8,000 tags matched by one alias
#: would be 64 M searches (minutes and gigabytes per question).
MAX_PATH_ENDS = 32
Path = tuple[str, ...]


class SearchIndex:
    """The moves of every node of a graph, computed once and shared by many searches.

    A :class:`~sgkr.retrieval.retriever.Retriever` keeps one, so that each query does
    plain dict and tuple work. The graph must not change while the index is
    in use (a retriever only reads it). Safe to share between threads: each
    table is built whole and then only read.

    Examples
    --------
    >>> from sgkr.graph import KnowledgeGraph
    >>> from sgkr.records import Edge, FunctionNode
    >>> g = KnowledgeGraph()
    >>> for n in ("f", "g"):
    ...     g.add_function(FunctionNode(f"fn:{n}", n, (n,), "", "", (), "function"))
    >>> g.add_edge(Edge("fn:f", "fn:g", "calls", "exact"))
    >>> index = SearchIndex(g)
    >>> index.moves("forward", reverse_calls=False)["fn:f"], index.moves("any")["fn:g"]
    (('fn:g',), ('fn:f',))
    """

    def __init__(self, graph: KnowledgeGraph) -> None:
        if not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
        self.graph = graph
        self._tables: dict[tuple[str, bool], Moves] = {}
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, KnowledgeGraph]:
        # The tables are a cache, remade on first use; a lock cannot be pickled.
        return {"graph": self.graph}

    def __setstate__(self, state: dict[str, KnowledgeGraph]) -> None:
        self.graph = state["graph"]
        self._tables = {}
        self._lock = threading.Lock()

    def moves(self, direction: str, *, reverse_calls: bool = True) -> Moves:
        """Sorted next nodes of every node: ``forward``, ``backward`` or ``any`` direction."""
        if direction not in ("forward", "backward", "any"):
            raise InvalidArgumentError(f"direction must be forward, backward or any, "
                                       f"got {direction!r}")
        key = (direction, reverse_calls and direction != "any")
        table = self._tables.get(key)
        if table is None:
            with self._lock:
                table = self._tables.get(key)
                if table is None:
                    table = self._tables[key] = _table(*self.graph.adjacency(), *key)
        return table

    def prepare(self, *, reverse_calls: bool = True, connect: bool = True) -> None:
        """Build now the tables a retriever with these options will use (first-use cost)."""
        self.moves("forward", reverse_calls=reverse_calls)
        self.moves("backward", reverse_calls=reverse_calls)
        if connect:
            self.moves("any")


def find_paths(
    graph: KnowledgeGraph,
    inputs: Sequence[str],
    outputs: Sequence[str],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_paths: int = DEFAULT_MAX_PATHS,
    reverse_calls: bool = True,
    index: SearchIndex | None = None,
) -> list[Path]:
    """Shortest dependency paths from any of ``inputs`` to any of ``outputs``.

    Parameters
    ----------
    graph
        The knowledge–code graph.
    inputs, outputs
        Node ids (usually tag nodes) to start from and to reach: the first
        :data:`MAX_PATH_ENDS` of each.
    max_depth
        Longest path, in edges.
    max_paths
        Most paths returned, over all pairs.
    reverse_calls
        Whether a call edge may be walked from callee to caller.
    index
        A :class:`SearchIndex` of ``graph`` to reuse (made for this call otherwise).

    Returns
    -------
    list of paths
        Each a tuple of node ids from an input to an output; shortest first,
        then in lexicographic order. Pairs of a node with itself are skipped.
        When more than ``max_paths`` paths have the shortest length, those of
        the first pairs (inputs in their order, then outputs) are kept.

    Raises
    ------
    NodeNotFoundError
        If an input or output is not in the graph.
    InvalidArgumentError
        If ``max_depth`` or ``max_paths`` is not positive.
    """
    _check(graph, (*inputs, *outputs), max_depth, max_paths)
    if index is None or index.graph is not graph:
        index = SearchIndex(graph)
    forward = index.moves("forward", reverse_calls=reverse_calls)
    backward = index.moves("backward", reverse_calls=reverse_calls)
    return _all_pairs(forward, backward, path_pairs(inputs, outputs), max_depth, max_paths)


def connect_paths(
    graph: KnowledgeGraph,
    nodes: Sequence[str],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_paths: int = DEFAULT_MAX_PATHS,
    index: SearchIndex | None = None,
) -> list[Path]:
    """Shortest paths joining every pair of ``nodes``, walking every edge either way.

    The fallback when a question's tags have no input-to-output path (or
    only inputs, or only outputs, match): it connects what the question
    mentions through the functions they share. Same bounds and order as
    :func:`find_paths`.
    """
    _check(graph, nodes, max_depth, max_paths)
    if index is None or index.graph is not graph:
        index = SearchIndex(graph)
    moves = index.moves("any")
    return _all_pairs(moves, moves, connect_pairs(nodes), max_depth, max_paths)


def path_pairs(inputs: Sequence[str], outputs: Sequence[str]) -> list[tuple[str, str]]:
    """The (input, output) pairs :func:`find_paths` searches, in its order.

    The first :data:`MAX_PATH_ENDS` distinct inputs and outputs only.

    Examples
    --------
    >>> len(path_pairs([f"i{n}" for n in range(8000)], [f"o{n}" for n in range(8000)]))
    1024
    """
    return [(s, t) for s in _first(inputs) for t in _first(outputs) if s != t]


def connect_pairs(nodes: Sequence[str]) -> list[tuple[str, str]]:
    """The pairs :func:`connect_paths` searches, in its order.

    The first :data:`MAX_PATH_ENDS` distinct nodes only.
    """
    unique = _first(nodes)
    return [(a, b) for i, a in enumerate(unique) for b in unique[i + 1 :]]


def _first(nodes: Sequence[str]) -> list[str]:
    """The first :data:`MAX_PATH_ENDS` distinct ``nodes``, in their order."""
    return list(islice(dict.fromkeys(nodes), MAX_PATH_ENDS))


#: Fetches the sorted next nodes of two batches of nodes, one forward and one backward,
#: in one call (a graph store's neighbour query); each result maps every known node.
Fetch = Callable[[list[str], list[str]], tuple[Mapping[str, tuple[str, ...]],
                                               Mapping[str, tuple[str, ...]]]]


def search_pairs(fetch: Fetch, pairs: Sequence[tuple[str, str]], *, symmetric: bool = False,
                 max_depth: int = DEFAULT_MAX_DEPTH,
                 max_paths: int = DEFAULT_MAX_PATHS) -> list[Path]:
    """:func:`find_paths` over moves fetched a round at a time, for a graph store.

    The same search and the same paths as over a whole graph in memory, but
    each round of the search calls ``fetch`` once, for the next nodes of
    every node its trees grow from, so a question costs a few batched
    queries and holds only the nodes it reached. ``symmetric``: the forward
    moves are the backward ones (as in :func:`connect_paths`), all asked for
    as forward.

    Examples
    --------
    >>> succ = {"a": ("b",), "b": ("c",), "c": ()}
    >>> pred = {"a": (), "b": ("a",), "c": ("b",)}
    >>> def fetch(ahead, behind):
    ...     return {n: succ[n] for n in ahead}, {n: pred[n] for n in behind}
    >>> search_pairs(fetch, [("a", "c")])
    [('a', 'b', 'c')]
    """
    check_bounds(max_depth, max_paths)
    ahead = _Fetched(fetch, 0)
    behind = ahead if symmetric else _Fetched(fetch, 1)
    return _all_pairs(ahead, behind, pairs, max_depth, max_paths)


def check_bounds(max_depth: int, max_paths: int) -> None:
    """Refuse bounds of a search out of ``1..MAX_DEPTH`` and ``1..MAX_PATHS``.

    Examples
    --------
    >>> check_bounds(8, 10_000)
    Traceback (most recent call last):
    ...
    sgkr.errors.InvalidArgumentError: max_paths must be an integer from 1 to 1000, got 10000
    """
    for name, value, limit in (("max_depth", max_depth, MAX_DEPTH),
                               ("max_paths", max_paths, MAX_PATHS)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= limit:
            raise InvalidArgumentError(
                f"{name} must be an integer from 1 to {limit}, got {value!r}")


def _check(graph: KnowledgeGraph, nodes: Sequence[str], max_depth: int, max_paths: int) -> None:
    check_bounds(max_depth, max_paths)
    for node in nodes:
        if node not in graph:
            raise NodeNotFoundError(f"search endpoint {node!r} is not in the graph")


Moves = dict[str, tuple[str, ...]]
Adjacency = Mapping[str, Mapping[str, Mapping[str, str]]]
# Edges between functions: a call, or a function used as a value (both are walked alike).
_CALLING = ("calls", "references")


class _Fetched(dict[str, tuple[str, ...]]):
    """Moves fetched from a store as a search reaches nodes; ``side`` 0 forward, 1 backward."""

    def __init__(self, fetch: Fetch, side: int) -> None:
        super().__init__()
        self.fetch, self.side = fetch, side

    def missing(self, nodes: Iterable[str]) -> list[str]:
        return [n for n in dict.fromkeys(nodes) if n not in self]

    def store(self, nodes: list[str], found: Mapping[str, tuple[str, ...]]) -> None:
        self.update((n, found.get(n, ())) for n in nodes)

    def __missing__(self, node: str) -> tuple[str, ...]:
        found = self.fetch(*(([node], []) if self.side == 0 else ([], [node])))
        self.store([node], found[self.side])
        return self[node]


def _table(forward: Adjacency, backward: Adjacency, direction: str,
           reverse_calls: bool) -> Moves:
    if direction == "any":
        return {node: tuple(sorted(set(forward[node]) | set(backward[node])))
                for node in forward}
    succ, pred = (backward, forward) if direction == "backward" else (forward, backward)
    table: Moves = {}
    for node, following in succ.items():
        if reverse_calls:
            # The reverse of a call edge, seen from the side we walk on.
            back = [n for n, data in pred[node].items() if data["type"] in _CALLING]
            if back:
                table[node] = tuple(sorted(set(following).union(back)))
                continue
        table[node] = tuple(sorted(following))
    return table


class _Tree:
    """A layer-complete BFS from ``root``, grown one layer at a time on demand.

    Node ``n`` at depth ``d`` has ``dist[n] == d``; its parents are the nodes
    of layer ``d - 1`` with a move to it, in layer order (found from the
    reverse moves ``back`` when a path is read off). Layers list nodes in the
    order the BFS first reaches them. Growing deeper layers never changes the
    shallower ones, so one tree serves every pair of a search that starts (or
    ends) at ``root``.
    """

    __slots__ = ("moves", "back", "dist", "rank", "layers", "_parents", "_below")

    def __init__(self, moves: Moves, back: Moves, root: str) -> None:
        self.moves = moves
        # Fetched moves know only the nodes reached: parents come from the layer above.
        self.back: Moves | None = None if isinstance(moves, _Fetched) else back
        self._below: dict[int, dict[str, list[str]]] = {}
        self.dist: dict[str, int] = {root: 0}
        self.rank: dict[str, int] = {root: 0}
        self.layers: list[list[str]] = [[root]]
        self._parents: dict[str, list[str]] = {root: []}

    def layer(self, depth: int) -> list[str]:
        layers, dist = self.layers, self.dist
        while len(layers) <= depth:
            front = layers[-1]
            if not front:
                return front
            # First-reached order, computed in C: the concatenated moves of the front,
            # first occurrences kept, nodes of earlier layers dropped.
            reached = dict.fromkeys(chain.from_iterable(map(self.moves.__getitem__, front)))
            layer = list(filterfalse(dist.__contains__, reached))
            dist.update(dict.fromkeys(layer, len(layers)))
            self.rank.update(zip(layer, range(len(layer)), strict=True))
            layers.append(layer)
        return layers[depth]

    def parents(self, node: str) -> list[str]:
        found = self._parents.get(node)
        if found is None:
            above, table = self.dist[node] - 1, self.back
            if table is None:
                found = self._children(above).get(node, [])
            else:
                back, layer = table[node], self.layers[above]
                if len(back) <= len(layer):
                    dist = self.dist
                    found = [p for p in back if dist.get(p) == above]
                else:
                    found = list(set(layer).intersection(back))
                found.sort(key=self.rank.__getitem__)
            self._parents[node] = found
        return found

    def _children(self, depth: int) -> dict[str, list[str]]:
        """Nodes of layer ``depth + 1`` and their parents in layer ``depth``, in layer order."""
        below = self._below.get(depth)
        if below is None:
            below = self._below[depth] = {}
            dist, deeper = self.dist, depth + 1
            for parent in self.layers[depth]:
                for child in dict.fromkeys(self.moves[parent]):
                    if dist.get(child) == deeper:
                        below.setdefault(child, []).append(parent)
        return below


def _all_pairs(forward: Moves, backward: Moves, pairs: Sequence[tuple[str, str]],
               max_depth: int, max_paths: int) -> list[Path]:
    trees: dict[tuple[int, str], _Tree] = {}

    def tree(moves: Moves, back: Moves, root: str) -> _Tree:
        key = (id(moves), root)
        grown = trees.get(key)
        if grown is None:
            grown = trees[key] = _Tree(moves, back, root)
        return grown

    searches = [_Meeting(tree(forward, backward, s), tree(backward, forward, t)) for s, t in pairs]
    found: set[Path] = set()
    # Round d grows every open search by one layer, to depth d: a search that meets then
    # has shortest paths of d edges, and one still open has none shorter than d + 1. Once
    # max_paths paths are found, longer ones cannot displace any of them, and the far
    # pairs' searches, whose deepest layers cost the most, stop there. Within a round the
    # pairs come in order, each adding what is left of max_paths: 1,024 pairs joined by
    # the same 2^60 paths read 1,000 paths, not a million.
    for _ in range(max_depth):
        if not searches or len(found) >= max_paths:
            break
        _prefetch(searches)
        still: list[_Meeting] = []
        for search in searches:
            if len(found) >= max_paths:
                break
            middles = search.grow()
            if middles:
                found.update(_pair_paths(search.ftree, search.btree, middles,
                                         max_paths - len(found)))
            elif search.ffront and search.bfront:
                still.append(search)
        searches = still
    return sorted(found, key=lambda p: (len(p), p))[:max_paths]


def _prefetch(searches: Sequence[_Meeting]) -> None:
    """Fetch in one call the moves this round of ``searches`` will use."""
    need: dict[int, tuple[_Fetched, list[str]]] = {}
    for search in searches:
        grows, depth = ((search.ftree, search.i + 1) if len(search.ffront) <= len(search.bfront)
                        else (search.btree, search.j + 1))
        if isinstance(grows.moves, _Fetched) and len(grows.layers) == depth:
            need.setdefault(id(grows.moves), (grows.moves, []))[1].extend(grows.layers[-1])
    asked: list[list[str]] = [[], []]
    tables: list[_Fetched | None] = [None, None]
    for moves, nodes in need.values():
        asked[moves.side], tables[moves.side] = moves.missing(nodes), moves
    if asked[0] or asked[1]:
        found = next(t for t in tables if t is not None).fetch(asked[0], asked[1])
        for side, table in enumerate(tables):
            if table is not None:
                table.store(asked[side], found[side])


class _Meeting:
    """A bidirectional BFS between two trees' roots, grown one layer at a time."""

    __slots__ = ("ftree", "btree", "i", "j", "ffront", "bfront")

    def __init__(self, ftree: _Tree, btree: _Tree) -> None:
        self.ftree, self.btree = ftree, btree
        self.i = self.j = 0
        self.ffront, self.bfront = ftree.layers[0], btree.layers[0]

    def grow(self) -> list[str]:
        """Grow the side with the smaller front; the nodes where shortest paths meet, if any.

        The trees may already be deeper (grown for other pairs): only layers up to
        ``i`` and ``j`` count here, exactly as if this search had grown them itself.
        """
        fdist, bdist = self.ftree.dist, self.btree.dist
        if len(self.ffront) <= len(self.bfront):
            self.i += 1
            self.ffront = self.ftree.layer(self.i)
            meet = [n for n in bdist.keys() & self.ffront if bdist[n] <= self.j]
        else:
            self.j += 1
            self.bfront = self.btree.layer(self.j)
            meet = [n for n in fdist.keys() & self.bfront if fdist[n] <= self.i]
        if not meet:
            return meet
        best = min(fdist[n] + bdist[n] for n in meet)
        return sorted(n for n in meet if fdist[n] + bdist[n] == best)


def _pair_paths(ftree: _Tree, btree: _Tree, middles: list[str], limit: int) -> list[Path]:
    """The shortest paths through ``middles`` (where the two trees meet), at most ``limit``."""
    paths: list[Path] = []
    for middle in middles:
        tails: list[Path] | None = None
        for head in _walk(middle, ftree.parents, limit):
            if tails is None:  # the same walk for every head: walk it once
                tails = list(_walk(middle, btree.parents, limit))
            for tail in tails:
                paths.append(tuple(reversed(head)) + tail[1:])
                if len(paths) >= limit:
                    return paths
    return paths


def _walk(start: str, parents: Callable[[str], list[str]], limit: int) -> Iterator[Path]:
    """Paths from ``start`` back along ``parents`` to the BFS root, at most ``limit``."""
    count = 0
    stack: list[tuple[str, Path]] = [(start, (start,))]
    while stack:
        node, path = stack.pop()
        above = parents(node)
        if not above:
            yield path
            count += 1
            if count >= limit:
                return
            continue
        for parent in reversed(above):
            stack.append((parent, path + (parent,)))
