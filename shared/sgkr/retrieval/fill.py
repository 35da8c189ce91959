"""The graph stage's functions after the path functions, until an answer has ``k``.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.stores import MemoryStore
>>> code = "def f():\\n    return g()\\ndef g():\\n    return 1\\n"
>>> store = MemoryStore(build_graph([("m.py", code)]))
>>> fill_ranking(store, {"fn:m.g": 2.0, "fn:m.f": 1.0}, [], 5, scripts=1)
[('fn:m.g', 1.0), ('fn:m.f', 0.5)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..stores import GraphReader, NodeKind
from .pathrank import Keep

__all__ = ["fill_ranking", "FILL_WEIGHT"]

#: The filled functions score at most this share of the lowest path function's score.
FILL_WEIGHT = 0.5


def fill_ranking(reader: GraphReader, scored: Mapping[str, float],
                 ranked: Sequence[tuple[str, float]], limit: int, *, scripts: int,
                 keep: Keep | None = None,
                 most_called: Callable[[int], list[str]] | None = None,
                 best: float = 1.0) -> list[tuple[str, float]]:
    """``ranked`` and, after it, the functions of ``scored`` best first (ties by id), then
    those of ``most_called`` (if given), up to ``limit``.

    Module bodies count against ``scripts`` (with those of ``ranked``); only what passes
    ``keep`` is taken. A filled function scores ``FILL_WEIGHT`` times the lowest score of
    ``ranked`` (``best`` when it is empty: how sure the retriever is of the question) times
    its score over the best, at least 1e-6.
    """
    out = list(ranked)
    if len(out) >= limit:
        return out
    taken = {n for n, _ in ranked}
    kinds: dict[str, NodeKind] = dict(reader.kinds(taken))
    scripts_left = [scripts - sum(1 for n in taken if kinds.get(n) == "module")]
    kinds.update(reader.kinds([n for n in scored if n not in kinds]))
    order = sorted((n for n in scored if n not in taken and kinds.get(n, "tag") != "tag"),
                   key=lambda n: (-scored[n], n))
    if most_called is not None:  # the most-called functions, when the walk reached too few
        order += [n for n in most_called(4 * limit + len(taken) + len(scored))
                  if n not in scored]
    floor = min(s for _, s in ranked) * FILL_WEIGHT if ranked else best
    top = max((scored[n] for n in order if n in scored), default=1.0) or 1.0
    for start in range(0, len(order), limit):  # read the filter's records in batches
        batch = [n for n in order[start : start + limit] if n not in taken]
        passing = set(batch) if keep is None else keep(batch)
        kinds.update(reader.kinds([n for n in batch if n not in kinds]))
        for node in batch:
            if node in passing and _slot(kinds.get(node), scripts_left):
                out.append((node, max(round(floor * scored.get(node, 0.0) / top, 6), 1e-6)))
                taken.add(node)
                if len(out) >= limit:
                    return out
    return out


def _slot(kind: NodeKind | None, scripts_left: list[int]) -> bool:
    """Whether a node of ``kind`` may be taken (a module body takes one of the scripts left)."""
    if kind != "module":
        return True
    if scripts_left[0] <= 0:
        return False
    scripts_left[0] -= 1
    return True
