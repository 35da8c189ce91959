"""Hypothesis strategies for whole knowledge graphs of hostile text, for round-trip tests.

Every string of a generated graph (ids, names, code, knowledge, labels, aliases,
file names) may hold any character but a lone surrogate: NUL, U+0001, other
controls, whitespace only or at either end, and ids one space apart (``"x"`` and
``"x "``), which index lookups are known to confuse. Spans may be a notebook's
(with ``cell`` and ``end_cell``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from sgkr.graph import KnowledgeGraph

__all__ = ["HOSTILE", "texts", "knowledge_graphs"]

#: Strings that stores have mishandled: control characters, blanks, near duplicates.
HOSTILE = ("x", "x ", " x", "\x00", "\x01", "a\x01", "a\x01b", " ", "\t", "\n", "  ",
           "\x00a", "fn:a\x01b", "\\", "'", '"', "`", "\\u0000", "$x", "{x}", "é", "😀",
           "\u2028", "\ufeff", "a" * 300)

texts = st.one_of(st.sampled_from(HOSTILE),
                  st.text(st.characters(exclude_categories=("Cs",)), max_size=12))
_nonempty = texts.filter(bool)


@st.composite
def _span(draw: st.DrawFn) -> dict[str, Any]:
    span: dict[str, Any] = {"file": draw(texts), "start_line": draw(st.integers(1, 10**6)),
                            "end_line": draw(st.integers(1, 10**6))}
    if draw(st.booleans()):
        span["cell"], span["end_cell"] = draw(st.integers(1, 500)), draw(st.integers(1, 500))
    return span


@st.composite
def knowledge_graphs(draw: st.DrawFn, max_functions: int = 6,
                     max_tags: int = 4) -> KnowledgeGraph:
    """A valid graph with hostile text everywhere (see the module docs)."""
    ids = draw(st.lists(_nonempty, min_size=1, max_size=max_functions + max_tags, unique=True))
    split = draw(st.integers(1, min(len(ids), max_functions)))
    functions, tags = ids[:split], ids[split:split + max_tags]
    nodes: list[dict[str, Any]] = [
        {"id": f, "type": "function", "name": draw(_nonempty),
         "kind": draw(st.sampled_from(["function", "method", "module"])),
         "qualnames": draw(st.lists(texts, max_size=3)), "code": draw(texts),
         "knowledge": draw(texts), "sources": draw(st.lists(_span(), max_size=3))}
        for f in functions]
    nodes += [{"id": t, "type": "tag", "label": draw(_nonempty),
               "aliases": draw(st.lists(_nonempty, max_size=3, unique=True)),
               "weight": draw(st.floats(0, 1))} for t in tags]
    pairs = [(a, b, kind) for a in functions for b in functions if a != b
             for kind in ("calls", "references")]
    pairs += [(t, f, "consumes") for t in tags for f in functions]
    pairs += [(f, t, "produces") for f in functions for t in tags]
    chosen = draw(st.lists(st.sampled_from(pairs), max_size=12,
                           unique_by=lambda p: (p[0], p[1]))) if pairs else []
    edges = [{"source": a, "target": b, "type": kind,
              **({"resolution": draw(st.sampled_from(["exact", "inferred", "name"]))}
                 if kind in ("calls", "references") else {})}
             for a, b, kind in chosen]
    return KnowledgeGraph.from_dict({"schema_version": 2, "meta": {"note": draw(texts)},
                                     "nodes": nodes, "edges": edges})
