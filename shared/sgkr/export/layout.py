"""A layered (Sugiyama-style) layout of a :class:`~sgkr.export.view.View`, computed in Python.

Calls flow one way: callers above callees. Layers come from the longest path
over the call edges (an edge closing a recursion cycle points up); input tags (only
consumed) form a row above the functions and the other tags a row below, so
data enters at the top and leaves at the bottom. The order inside a layer
comes from barycentric sweeps, and x positions from an isotonic regression
that pulls each node toward its neighbours while keeping the order and the
gaps. Every step is linear or ``n log n`` per sweep, so a few thousand nodes
lay out in about a second and the page only draws.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.export.view import subgraph
>>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")])
>>> box = layout(subgraph(g))
>>> [f], [h] = g.find("f"), g.find("g")
>>> box.y[f] < box.y[h]
True
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidArgumentError
from .view import View

__all__ = ["Layout", "layout", "NODE_HEIGHT", "node_width"]

NODE_HEIGHT = 28.0
_LAYER_GAP = 96.0
_NODE_GAP = 24.0
_MARGIN = 24.0
_SWEEPS = 6
_ASPECT = 3.0  # the widest row, relative to the drawing's height
_MIN_ROW = 1200.0


@dataclass(frozen=True)
class Layout:
    """Node centres (``x``, ``y``), widths, layer of each node, and the drawing's size."""

    x: dict[str, float]
    y: dict[str, float]
    width_of: dict[str, float]
    layer: dict[str, int]
    width: float
    height: float


def node_width(label: str) -> float:
    """The width of a node box for ``label`` (12 px sans-serif, roughly).

    Examples
    --------
    >>> node_width("fee") < node_width("calculate_fee")
    True
    """
    return max(48.0, 7.0 * len(label) + 20.0)


def layout(view: View) -> Layout:
    """Place the nodes of ``view`` in layers, callers above callees, tags at the top and bottom.

    Parameters
    ----------
    view
        The nodes and edges to draw.

    Returns
    -------
    Layout
        Centres in pixels, origin top left; deterministic for a given view.

    Raises
    ------
    InvalidArgumentError
        If ``view`` is not a :class:`~sgkr.export.view.View`.

    Examples
    --------
    >>> from sgkr.export.view import View
    >>> layout(View((), ())).width
    48.0
    """
    if not isinstance(view, View):
        raise InvalidArgumentError(f"view must be a View, got {type(view)}")
    widths = {n.id: node_width(n.label) for n in view.nodes}
    layers = _layers(view, widths)
    neighbours: dict[str, list[str]] = defaultdict(list)
    for e in view.edges:
        if e.source != e.target:
            neighbours[e.source].append(e.target)
            neighbours[e.target].append(e.source)
    rows = _initial_order(view, layers)
    x: dict[str, float] = {}
    for row in rows:
        _pack(row, widths, x)
    for sweep in range(_SWEEPS):
        down = sweep % 2 == 0
        order = range(1, len(rows)) if down else range(len(rows) - 2, -1, -1)
        for index in order:
            row = rows[index]
            side = [[m for m in neighbours[n] if (layers[m] < index) == down
                     and layers[m] != index] for n in row]
            bary = [sum(x[m] for m in s) / len(s) if s else x[n]
                    for n, s in zip(row, side, strict=True)]
            keys = zip(bary, [x[n] for n in row], row, strict=True)
            rows[index] = [n for _, _, n in sorted(keys)]
            _pack(rows[index], widths, x)
    for sweep in range(_SWEEPS):
        down = sweep % 2 == 0
        order = range(len(rows)) if down else range(len(rows) - 1, -1, -1)
        for index in order:
            row = rows[index]
            want = [sum(x[m] for m in neighbours[n]) / len(neighbours[n])
                    if neighbours[n] else x[n] for n in row]
            _place(row, want, widths, x)
    left = min((x[n] - widths[n] / 2 for n in x), default=0.0)
    right = max((x[n] + widths[n] / 2 for n in x), default=0.0)
    xs = {n: round(v - left + _MARGIN, 1) for n, v in x.items()}
    ys = {n: _MARGIN + NODE_HEIGHT / 2 + layers[n] * _LAYER_GAP for n in x}
    height = _MARGIN * 2 + NODE_HEIGHT + max(len(rows) - 1, 0) * _LAYER_GAP
    return Layout(xs, ys, widths, dict(layers), round(right - left + 2 * _MARGIN, 1), height)


def _layers(view: View, widths: dict[str, float]) -> dict[str, int]:
    """Layers: callers above callees, rows no wider than about three times the height.

    Longest-path layering over the calls (less the edges closing a cycle), but
    a node moves down while its row is full, like list scheduling: without
    this, the scripts of a solution folder would make one very wide first row.
    """
    calls: dict[str, list[str]] = {n.id: [] for n in view.nodes if not n.is_tag}
    for e in view.edges:
        if e.type in ("calls", "references") and e.source != e.target:
            calls[e.source].append(e.target)
    dag = _acyclic(calls)
    limit = max(_MIN_ROW, math.sqrt(_ASPECT * _LAYER_GAP * sum(widths.values())))
    fill: dict[int, float] = defaultdict(float)
    lowest = dict.fromkeys(dag, 0)
    waiting = dict.fromkeys(dag, 0)
    for children in dag.values():
        for child in children:
            waiting[child] += 1
    ready = [(0, n) for n in dag if waiting[n] == 0]
    heapq.heapify(ready)
    depth: dict[str, int] = {}
    while ready:
        low, node = heapq.heappop(ready)
        row = low
        while fill[row] and fill[row] + widths[node] > limit:
            row += 1
        depth[node] = row
        fill[row] += widths[node] + _NODE_GAP
        for child in dag[node]:
            lowest[child] = max(lowest[child], row + 1)
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(ready, (lowest[child], child))
    produced = {e.target for e in view.edges if e.type == "produces"}
    tags = sorted(n.id for n in view.nodes if n.is_tag)
    top = _pack_rows([t for t in tags if t not in produced], widths, limit)
    bottom = _pack_rows([t for t in tags if t in produced], widths, limit)
    layers = {n: d + len(top) for n, d in depth.items()}
    below = max(layers.values(), default=len(top) - 1) + 1
    for index, row_tags in enumerate(top):
        layers.update((t, index) for t in row_tags)
    for index, row_tags in enumerate(bottom):
        layers.update((t, below + index) for t in row_tags)
    return layers


def _acyclic(calls: dict[str, list[str]]) -> dict[str, list[str]]:
    """The call graph without the edges that close a cycle (found by depth-first search)."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    back: set[tuple[str, str]] = set()
    callers = {c for children in calls.values() for c in children}
    for start in sorted(calls, key=lambda n: (n in callers, n)):
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(sorted(set(calls[start]))))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                back.add((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(sorted(set(calls[child])))))
    return {n: sorted({c for c in cs if (n, c) not in back}) for n, cs in calls.items()}


def _pack_rows(nodes: Sequence[str], widths: dict[str, float], limit: float) -> list[list[str]]:
    rows: list[list[str]] = []
    used = limit
    for node in nodes:
        if used + widths[node] > limit:
            rows.append([])
            used = 0.0
        rows[-1].append(node)
        used += widths[node] + _NODE_GAP
    return rows


def _initial_order(view: View, layers: dict[str, int]) -> list[list[str]]:
    """Rows in depth-first order from the roots, so that related nodes start close."""
    children: dict[str, list[str]] = defaultdict(list)
    for e in view.edges:
        children[e.source].append(e.target)
    seen: dict[str, None] = {}
    starts = sorted(layers, key=lambda n: (layers[n], n))
    for start in starts:
        stack = [start]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen[node] = None
            stack.extend(sorted(children[node], reverse=True))
    rows: list[list[str]] = [[] for _ in range(max(layers.values(), default=-1) + 1)]
    for node in seen:
        rows[layers[node]].append(node)
    return rows


def _pack(row: Sequence[str], widths: dict[str, float], x: dict[str, float]) -> None:
    """Place ``row`` side by side, centred on 0."""
    pos = 0.0
    for i, node in enumerate(row):
        if i:
            pos += (widths[row[i - 1]] + widths[node]) / 2 + _NODE_GAP
        x[node] = pos
    for node in row:
        x[node] -= pos / 2


def _place(row: Sequence[str], want: Sequence[float], widths: dict[str, float],
           x: dict[str, float]) -> None:
    """The positions nearest ``want`` (least squares) that keep ``row``'s order and gaps.

    With ``s_i`` the least offset of node ``i`` from node 0, ``x_i - s_i`` must not
    decrease: an isotonic regression of ``want_i - s_i``, solved by pooling
    adjacent violators in one pass.
    """
    offsets = [0.0]
    for a, b in zip(row, row[1:], strict=False):
        offsets.append(offsets[-1] + (widths[a] + widths[b]) / 2 + _NODE_GAP)
    blocks: list[list[float]] = []  # [mean, count]
    for target in (w - s for w, s in zip(want, offsets, strict=True)):
        blocks.append([target, 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean, count = blocks.pop()
            prev = blocks[-1]
            prev[0] = (prev[0] * prev[1] + mean * count) / (prev[1] + count)
            prev[1] += count
    i = 0
    for mean, count in blocks:
        for _ in range(int(count)):
            x[row[i]] = mean + offsets[i]
            i += 1
