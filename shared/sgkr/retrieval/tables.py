"""What a retriever makes once of a graph in memory: its tag matcher, its lexical index.

Both are made on first use (or by :meth:`Tables.prepare`) and shared by the
retriever's clones.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.stores import MemoryStore
>>> tables = Tables(MemoryStore(build_graph([("m.py", "def f():\\n    return 1\\n")])))
>>> tables.matcher() is tables.matcher()
True
"""

from __future__ import annotations

import threading

from ..algorithms.lexical import index_of
from ..stores import MemoryStore
from .tagmatch import WeightedMatcher

__all__ = ["Tables"]


class Tables:
    """The tag matcher and lexical index of the graph of ``store``, made once."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._matcher: WeightedMatcher | None = None

    def __getstate__(self) -> dict[str, MemoryStore]:
        # A copy (pickle, deepcopy) remakes the tables on first use; a lock is not copied.
        return {"store": self.store}

    def __setstate__(self, state: dict[str, MemoryStore]) -> None:
        self.__init__(state["store"])  # type: ignore[misc]

    def prepare(self, *, lexical: bool) -> None:
        """Make now what a query with these options reads."""
        self.matcher().prepare()
        if lexical:
            index_of(self.store.graph)

    def matcher(self) -> WeightedMatcher:
        """The default tag extractor over this graph (its vocabulary read once)."""
        if self._matcher is None:
            with self._lock:
                if self._matcher is None:
                    self._matcher = WeightedMatcher(self.store)
        return self._matcher
