"""The knowledge–code graph: the model and its graph.json document.

:class:`KnowledgeGraph` (in :mod:`~sgkr.graph.model`) keeps its nodes and edges in a
networkx graph and hands out none of networkx's internals: :mod:`~sgkr.graph.batch`
writes what a build adds, :mod:`~sgkr.graph.queries` answers questions over every
node or edge, :mod:`~sgkr.graph.views` gives read-only views of the adjacency.
:mod:`~sgkr.graph.jsonfile` reads and writes graph.json. The tag nodes and their
edges come from the tag stage, :mod:`sgkr.tags`.
"""

from .model import EdgeRow, KnowledgeGraph, tag_id

__all__ = ["KnowledgeGraph", "EdgeRow", "tag_id"]
