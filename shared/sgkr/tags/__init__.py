"""I/O tags: one stage between the analysis and the graph.

In: the facts of each definition (:mod:`sgkr.analysis`), the sidecar file
(:mod:`~sgkr.tags.sidecar`), the solved tasks (:mod:`~sgkr.tags.examples`), and the
graph being built, read through :class:`~sgkr.tags.protocol.TagGraph` (its functions
and calls). Out: tag nodes and edge rows (:class:`~sgkr.tags.rows.TagRows`), which the
build's assembler writes, and tag weights (:mod:`~sgkr.tags.weights`).

- :mod:`~sgkr.tags.labels`: a label's id, its folded words;
- :mod:`~sgkr.tags.infer`: tags inferred from facts (in the build's workers);
- :mod:`~sgkr.tags.phrases`: whether a tag's phrase stands in code's names;
- :mod:`~sgkr.tags.rows`: the sidecar's, an example's and inferred tags as rows;
- :mod:`~sgkr.tags.stage`: every tag of a fresh build; :mod:`~sgkr.tags.update`: of
  the nodes an update changed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .examples import Example, TagRef, load_examples
    from .labels import tag_id
    from .rows import TagRows
    from .sidecar import FunctionKnowledge, Sidecar, load_sidecar, parse_sidecar

__all__ = ["Example", "TagRef", "load_examples", "FunctionKnowledge", "Sidecar",
           "load_sidecar", "parse_sidecar", "TagRows", "tag_id"]

# Imported on first use (PEP 562): the graph reads a tag's id from tags.labels, and a
# question needs no sidecar, examples or tree-sitter (tags.rows reads code's names).
_LAZY = {"Example": "examples", "TagRef": "examples", "load_examples": "examples",
         "tag_id": "labels", "TagRows": "rows", "FunctionKnowledge": "sidecar",
         "Sidecar": "sidecar", "load_sidecar": "sidecar", "parse_sidecar": "sidecar"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sgkr.tags' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
