"""The one small hierarchy of errors SGKR raises.

Every public function validates its input and raises one of these, with a
message that names the offending input.

Examples
--------
>>> from sgkr.errors import SGKRError, GraphFormatError
>>> issubclass(GraphFormatError, SGKRError)
True
"""

from __future__ import annotations

__all__ = [
    "SGKRError",
    "InvalidArgumentError",
    "SourceError",
    "KnowledgeFormatError",
    "GraphFormatError",
    "NodeNotFoundError",
    "StoreError",
]


class SGKRError(Exception):
    """Base class of every error SGKR raises on purpose."""


class InvalidArgumentError(SGKRError, ValueError):
    """An argument has a wrong type, value or combination with another one."""


class SourceError(SGKRError):
    """Sources cannot be used: a path does not exist, or no Python was found."""


class KnowledgeFormatError(SGKRError):
    """A sidecar knowledge file or an examples file is malformed."""


class GraphFormatError(SGKRError):
    """A graph file is truncated, malformed, or of a schema this version does not know."""


class NodeNotFoundError(SGKRError, KeyError):
    """A node id or name is not in the graph."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class StoreError(SGKRError):
    """A graph store cannot answer: it is down, timed out, dropped the connection, or holds
    no graph under the name asked for. The message names the store's URL (less any password).
    """
