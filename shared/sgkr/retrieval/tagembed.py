"""An embedding tag extractor, for questions that paraphrase the tags.

:class:`EmbeddingMatcher` first matches as :class:`~sgkr.retrieval.tagmatch.WeightedMatcher`
does; then each run of one to three content words that no tag names is
embedded, and the nearest tag phrase (label or alias, embedded once) is a match
when the cosine similarity is at least ``threshold``. Its score is that
similarity, so a near paraphrase (0.9 and above) anchors paths like a named tag
and a looser one only seeds the walk.

The model is any embedding model :func:`sgkr.retrieval.embeddings.as_embedding_model`
accepts (a LlamaIndex or LangChain embedding model, a sentence-transformers
model, a callable ``texts -> vectors``); without one, the offline
all-MiniLM-L6-v2 of the ``eval`` extra. Nothing here imports torch: the model
does, if it needs it.

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.records import TagNode
>>> g = KnowledgeGraph()
>>> g.add_tag(TagNode("tag:fee", "fee"))
>>> g.add_tag(TagNode("tag:country", "country"))
>>> vectors = {"fee": [1.0, 0.0], "country": [0.0, 1.0], "charge": [0.95, 0.3]}
>>> model = lambda texts: [vectors.get(t, [0.5, 0.5]) for t in texts]
>>> [(m.label, m.text, m.score) for m in EmbeddingMatcher(g, model)("the charge?")]
[('fee', 'charge', 0.953583)]
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import TagMatch
from ..stores import GraphReader, TagInfo, as_reader, listed_phrases
from ..text import fold
from .embeddings import as_embedding_model, default_embedding_model
from .tagmatch import WeightedMatcher
from .tags import FUNCTION_WORDS

__all__ = ["EmbeddingMatcher", "DEFAULT_THRESHOLD"]

#: Least cosine similarity of a question's phrase and a tag phrase that makes a match.
DEFAULT_THRESHOLD = 0.7
_MAX_MATCHES = 4
_LONGEST = 3
_TOKEN = re.compile(r"[A-Za-z0-9]+")


class EmbeddingMatcher:
    """Weighted matching, then the tags nearest to the words it left, by an embedding model.

    Parameters
    ----------
    source
        The graph, or a reader of a graph store that lists its phrases.
    model
        An embedding model (see the module docs); ``None``: the ``eval`` extra's default.
    threshold
        Least cosine similarity of a match, in (0, 1].

    Raises
    ------
    InvalidArgumentError
        If ``threshold`` is out of range or the model is not an embedding model.
    SGKRError
        If no model is given and the ``eval`` extra is not installed.
    """

    def __init__(self, source: KnowledgeGraph | GraphReader, model: Any = None, *,
                 threshold: float = DEFAULT_THRESHOLD) -> None:
        if not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
            raise InvalidArgumentError(f"threshold must be in (0, 1], got {threshold!r}")
        self._reader: GraphReader = as_reader(source)
        self.model = default_embedding_model() if model is None else as_embedding_model(model)
        self.threshold = float(threshold)
        self._words = WeightedMatcher(self._reader)
        self._table: tuple[list[list[TagInfo]], list[list[float]]] | None = None
        self._lock = threading.Lock()

    def _vocabulary(self) -> tuple[list[list[TagInfo]], list[list[float]]]:
        if self._table is None:
            table = listed_phrases(self._reader) or {}
            keys = sorted(table)
            vectors = [_unit(v) for v in self.model.embed_documents(keys)] if keys else []
            with self._lock:
                self._table = ([table[k] for k in keys], vectors)
        return self._table

    def __call__(self, question: str) -> list[TagMatch]:
        """The weighted matches of ``question``, then its nearest tags by embedding."""
        matches = self._words(question)
        covered = [(m.start, m.end) for m in matches]
        runs: list[list[tuple[str, int, int]]] = [[]]
        for m in _TOKEN.finditer(question):
            folded = fold(m.group())
            if (any(s <= m.start() < e for s, e in covered) or not folded
                    or all(w in FUNCTION_WORDS for w in folded)):
                runs.append([])
                continue
            runs[-1].append((m.group(), m.start(), m.end()))
        spans = {(run[i][1], run[j][2]): question[run[i][1]:run[j][2]]
                 for run in runs for i in range(len(run))
                 for j in range(i, min(i + _LONGEST, len(run)))}
        tags, vectors = self._vocabulary()
        if not spans or not vectors:
            return matches
        order = list(spans)
        embedded = self.model.embed_documents([spans[s] for s in order])
        seen = {m.tag_id for m in matches}
        found: list[tuple[float, int, int, TagInfo]] = []
        for (start, end), vector in zip(order, embedded, strict=True):
            unit = _unit(vector)
            sims = [sum(a * b for a, b in zip(unit, v, strict=False)) for v in vectors]
            best = max(range(len(sims)), key=sims.__getitem__)
            if sims[best] >= self.threshold:
                found.extend((sims[best], start, end, tag) for tag in tags[best])
        found.sort(key=lambda f: (-f[0], f[1], f[3].id))
        added: list[TagMatch] = []
        for score, start, end, tag in found:
            if tag.id in seen or len(added) >= _MAX_MATCHES:
                continue
            seen.add(tag.id)
            added.append(TagMatch(tag.id, tag.label, question[start:end], start, end,
                                  tag.role, round(min(score, 1.0), 6)))
        return sorted(matches + added, key=lambda m: (m.start, -m.score, m.tag_id))


def _unit(vector: Sequence[float]) -> list[float]:
    values = [float(x) for x in vector]
    norm = math.sqrt(sum(x * x for x in values))
    return [x / norm for x in values] if norm else values
