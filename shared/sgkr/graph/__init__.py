"""The knowledge–code graph: the model, its graph.json document and its I/O tags.

:class:`KnowledgeGraph` (in :mod:`~sgkr.graph.model`) is the one place that knows
networkx; :mod:`~sgkr.graph.jsonfile` reads and writes graph.json and
:mod:`~sgkr.graph.tagging` puts tag nodes on a graph.
"""

from .model import EdgeRow, KnowledgeGraph, tag_id

__all__ = ["KnowledgeGraph", "EdgeRow", "tag_id"]
