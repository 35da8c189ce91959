"""The values a FalkorDB version returns, checked as they become SGKR's records.

A store can hold anything: a version written by another tool, or edited by
hand. Every value a reader takes from it goes through a :class:`Rows` of that
version, which checks its type and range and raises a
:class:`~sgkr.errors.StoreError` naming the store, the version and the node
(``push the graph again``), never another exception. A node's record is its object
in the record form, validated by :func:`sgkr.graph.jsonrecords.read_node`.
"""

from __future__ import annotations

from typing import Any

from ..errors import GraphFormatError, StoreError
from ..graph.jsonrecords import read_node, read_task
from ..ingest.files import parse_json
from ..records import FunctionNode, Role, SolvedTask, TagNode
from .base import NodeKind, TagInfo
from .connection import Server
from .layout import unpack

_ESCAPE = "\x01"  # in a text that pack changed

__all__ = ["Rows"]

_KINDS: tuple[NodeKind, ...] = ("tag", "function", "method", "module")
_ROLES: tuple[Role, ...] = ("input", "output", "both")


class Rows:
    """Checks of the values of ``version`` on ``server`` (see the module docs)."""

    def __init__(self, server: Server, version: str) -> None:
        self.server, self.version = server, version

    def error(self, what: str) -> StoreError:
        """A StoreError: ``what`` is wrong in this version."""
        return self.server.error(f"version {self.version}: {what} (push the graph again)")

    def text(self, value: Any, what: str) -> str:
        """A packed text, unpacked."""
        if not isinstance(value, str):
            raise self.error(f"{what} is {type(value).__name__} {value!r:.80}, not text")
        return unpack(value)

    def texts(self, value: Any, what: str) -> list[str]:
        """A list of packed texts (node ids, qualified names), unpacked."""
        if not isinstance(value, list):
            raise self.error(f"{what} is {type(value).__name__}, not a list")
        try:
            joined = "".join(value)  # every item text: one pass in C
        except TypeError:
            joined = _ESCAPE
        return value if _ESCAPE not in joined else [self.text(item, what) for item in value]

    def count(self, value: Any, what: str) -> int:
        """A non-negative integer."""
        if type(value) is not int or value < 0:
            raise self.error(f"{what} is {value!r:.80}, not a count")
        return value

    def number(self, value: Any, what: str) -> float:
        """A finite number."""
        if type(value) not in (int, float) or value != value or abs(value) == float("inf"):
            raise self.error(f"{what} is {value!r:.80}, not a number")
        return float(value)

    def kind(self, value: Any, node: str) -> NodeKind:
        """A node's kind."""
        for kind in _KINDS:
            if value == kind:
                return kind
        raise self.error(f"node {node!r:.80} has kind {value!r:.80}")

    def json(self, value: Any, what: str) -> Any:
        """A JSON text, parsed."""
        if not isinstance(value, str):
            raise self.error(f"{what} is {type(value).__name__}, not JSON text")
        try:
            return parse_json(value, f"graph store {self.server.address.url}: version "
                                     f"{self.version}: {what}", StoreError)
        except StoreError as error:
            raise StoreError(f"{error} (push the graph again)") from None

    def record(self, node: str, value: Any) -> FunctionNode | TagNode:
        """The record of the node ``node``: its graph.json object, checked."""
        raw = self.json(value, f"the record of node {node!r:.80}")
        try:
            record = read_node(raw, f"graph store {self.server.address.url}: version "
                                    f"{self.version}", repr(node)[:80])
        except GraphFormatError as error:
            raise StoreError(f"{error} (push the graph again)") from None
        if record.id != node:
            raise self.error(f"node {node!r:.80} holds the record of {record.id!r:.80}")
        return record

    def function(self, node: Any, value: Any) -> FunctionNode:
        """A function node's record."""
        record = self.record(self.text(node, "a node id"), value)
        if not isinstance(record, FunctionNode):
            raise self.error(f"node {record.id!r:.80} is a tag where a function was expected")
        return record

    def task(self, task: Any, value: Any) -> SolvedTask:
        """A solved task's record: its graph.json object, checked."""
        name = self.text(task, "a task id")
        raw = self.json(value, f"the record of task {name!r:.80}")
        try:
            found = read_task(raw, (f"graph store {self.server.address.url}: version "
                                    f"{self.version}", "tasks", repr(name)[:80]))
        except GraphFormatError as error:
            raise StoreError(f"{error} (push the graph again)") from None
        if found.id != name:
            raise self.error(f"task {name!r:.80} holds the record of {found.id!r:.80}")
        return found

    def tag(self, node: Any, value: Any, role: Any) -> TagInfo:
        """A tag node as retrieval sees it."""
        record = self.record(self.text(node, "a node id"), value)
        if not isinstance(record, TagNode):
            raise self.error(f"node {record.id!r:.80} is a function where a tag was expected")
        for known in _ROLES:
            if role == known:
                return TagInfo(record.id, record.label, known, record.weight)
        raise self.error(f"tag {record.id!r:.80} has role {role!r:.80}")

    def postings(self, value: Any, word: str) -> list[tuple[str, float]]:
        """A word's postings: (node id, impact) pairs (raw text: JSON carries any)."""
        hits = self.json(value, f"the postings of {word!r:.80}")
        if isinstance(hits, list) and all(
                type(hit) is list and len(hit) == 2 and type(hit[0]) is str
                and type(hit[1]) in (int, float) for hit in hits):
            return [(node, float(impact)) for node, impact in hits]
        raise self.error(f"the postings of {word!r:.80} are not a list of [node id, impact]")
