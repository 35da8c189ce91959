"""The typed values call resolution reasons about.

What a name may hold (:class:`Value`): a function, a class, an instance of a class, or a
module of the sources (:class:`Kind`); what a binding gives it is a
:class:`~sgkr.records.Ref` (what a dotted name holds, or what calling it gives). Where a
definition looks names up (:class:`Frame`), and the call edges found (:class:`Reach`,
ranked by :data:`RANK`).

Examples
--------
>>> function("m.f") == Value(Kind.FUNCTION, "m.f"), function("m.f") == class_("m.f")
(True, False)
>>> bounded(["m.a", "m.b"])
Reach(targets=('m.a', 'm.b'), how='inferred')
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from ..records import Resolution

__all__ = ["Kind", "Value", "function", "class_", "instance", "module", "external", "Frame",
           "Reach", "RANK", "FANOUT_LIMIT", "NOTHING", "NO_EDGE", "NO_GUESS", "bounded"]

#: An inferred call reaching more definitions than this gives ``name`` edges (at most
#: twice as many; beyond, none).
FANOUT_LIMIT = 4
#: How sure each resolution is: a call found twice keeps its surest edge.
RANK: dict[Resolution, int] = {"exact": 3, "inferred": 2, "name": 1}


class Kind(IntEnum):
    """What a value is."""

    #: A function or method of the sources (calling it runs it).
    FUNCTION = 1
    #: A class of the sources (calling it makes an instance, running ``__init__``).
    CLASS = 2
    #: An object made by a class of the sources (calling it runs ``__call__``).
    INSTANCE = 3
    #: A module of the sources (its attributes are its names).
    MODULE = 4
    #: An object of a class outside the sources, by the class's dotted name (as an
    #: annotation names it): calling its methods reaches nothing of the sources.
    EXTERNAL = 5


class Value(NamedTuple):
    """What a name, an attribute, a parameter or a return may hold: a ``kind`` of thing
    of the sources, by its qualified name."""

    kind: Kind
    qualname: str


#: No value: nothing known.
NOTHING: frozenset[Value] = frozenset()


def function(qualname: str) -> Value:
    """A function or method."""
    return Value(Kind.FUNCTION, qualname)


def class_(qualname: str) -> Value:
    """A class."""
    return Value(Kind.CLASS, qualname)


def instance(qualname: str) -> Value:
    """An instance of a class."""
    return Value(Kind.INSTANCE, qualname)


def module(qualname: str) -> Value:
    """A module."""
    return Value(Kind.MODULE, qualname)


def external(qualname: str) -> Value:
    """An object of a class outside the sources."""
    return Value(Kind.EXTERNAL, qualname)


class Frame(NamedTuple):
    """Where a definition's names are looked up: the scopes whose bindings it sees
    (``chain``: itself, then its enclosing functions and module) and its class."""

    chain: tuple[str, ...]
    cls: str | None


class Reach(NamedTuple):
    """The definitions a call reaches and how surely."""

    targets: tuple[str, ...]
    how: Resolution


#: A call known to reach nothing of the sources (a builtin, a library).
NO_EDGE = Reach((), "exact")
#: A call guessed to reach nothing of the sources.
NO_GUESS = Reach((), "name")


def bounded(found: list[str]) -> Reach:
    """Targets found by inference: ``name`` edges above :data:`FANOUT_LIMIT`, none above
    twice as many."""
    if len(found) <= FANOUT_LIMIT:
        return Reach(tuple(found), "inferred")
    return Reach(tuple(found) if len(found) <= 2 * FANOUT_LIMIT else (), "name")
