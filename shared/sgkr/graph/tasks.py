"""The solved tasks a graph keeps: their checks and their form in graph.json.

A graph built from earlier questions with their solutions keeps one
:class:`~sgkr.records.SolvedTask` for each: the question, the function nodes its
solution uses, the tags it gives and asks for. graph.json holds them after the
edges, one a line (version 4; a graph without solved tasks is written as version 3)::

    "tasks":[
    {"id":"task:1273","question":"...","uses":["mod:solutions.task_1273","fn:load_fees"],
     "inputs":["tag:card scheme"],"outputs":["tag:average fee"],"source":"solutions/task_1273.py"}
    ]

Their JSON form is read and written by :func:`sgkr.graph.jsonrecords.task_object` and
:func:`~sgkr.graph.jsonrecords.read_task`.

Examples
--------
>>> t = SolvedTask("task:1", "Average fee?", ("fn:fee",), (), ("tag:fee",), "s.py")
>>> without((t,), {"fn:fee"})[0].uses
()
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..errors import GraphFormatError
from ..records import SolvedTask

__all__ = ["check_tasks", "without", "TASK_PREFIX", "task_id"]

TASK_PREFIX = "task:"
_LISTS = ("uses", "inputs", "outputs")


def task_id(example_id: str) -> str:
    """The id of the solved task of an example: ``task:`` and the example's id."""
    return TASK_PREFIX + example_id


def check_tasks(tasks: Iterable[SolvedTask], nodes: Mapping[str, Mapping[str, Any]],
                where: str) -> tuple[SolvedTask, ...]:
    """``tasks`` if their ids are distinct, ``uses`` name function nodes and ``inputs`` and
    ``outputs`` tag nodes (``nodes``: each node's attributes, its ``type`` among them).

    Raises
    ------
    GraphFormatError
        Naming ``where``, the task and the node.
    """
    seen: set[str] = set()
    checked = tuple(tasks)
    for number, task in enumerate(checked):
        at = f"{where}: tasks[{number}] ({task.id})"
        if task.id in seen:
            raise GraphFormatError(f"{at}: duplicate task id")
        seen.add(task.id)
        for key, wanted in (("uses", "function"), ("inputs", "tag"), ("outputs", "tag")):
            for node in getattr(task, key):
                if node not in nodes or nodes[node]["type"] != wanted:
                    raise GraphFormatError(f"{at}: '{key}' names {node!r}, not a {wanted} "
                                           "node of the graph")
    return checked


def without(tasks: tuple[SolvedTask, ...], gone: set[str]) -> tuple[SolvedTask, ...]:
    """``tasks`` with the nodes ``gone`` left out of their ``uses``, ``inputs`` and ``outputs``.

    Examples
    --------
    >>> without((SolvedTask("task:1", "q", ("fn:a", "fn:b")),), {"fn:a"})[0].uses
    ('fn:b',)
    """
    if not gone or not tasks:
        return tasks
    def kept(ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(n for n in ids if n not in gone)

    return tuple(replace(t, uses=kept(t.uses), inputs=kept(t.inputs), outputs=kept(t.outputs))
                 for t in tasks)
