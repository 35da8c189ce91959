"""A build: sources, knowledge and examples → a knowledge–code graph.

:func:`build_graph` (in :mod:`~sgkr.build.builder`) builds once;
:class:`GraphBuilder` (in :mod:`~sgkr.build.incremental`) keeps a build in memory
and updates it after files change; :class:`BuildOptions` says how.
"""

from .builder import build_graph
from .incremental import GraphBuilder, UpdateReport
from .options import BuildOptions

__all__ = ["build_graph", "GraphBuilder", "UpdateReport", "BuildOptions"]
