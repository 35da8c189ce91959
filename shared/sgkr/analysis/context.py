"""What one inference works with: the answers it keeps, what it read, how deep it may go.

An inference of what names hold reads the tables of other modules. So that an
update re-resolves every module whose calls a change can alter, each inference notes
what it read (:data:`Read`): a module's tables, the subclasses of a class of some
name, or the calls passing values to a function of some name. A
:class:`Context` gathers those reads and keeps the inference's answers; answers
kept for the whole build (:func:`kept`) are computed in a context of their own, so
that they are the same whichever definition asks first, and an update equals a
fresh build.

Examples
--------
>>> table: dict[str, tuple[int, frozenset[Read]]] = {}
>>> def compute(ctx: Context) -> int:
...     ctx.reading.add("lib")
...     return 42
>>> ctx = Context()
>>> kept(table, "answer", ctx, compute), sorted(ctx.reading)
(42, ['lib'])
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar

from ..records import Ref
from .values import Value

__all__ = ["Context", "Read", "Subclasses", "Arguments", "Memo", "TOP", "kept"]

_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")

#: A definition's own inference reads parameters two calls deep: what its function's
#: callers pass (kept for the build), and what their callers pass to those.
TOP = 2


@dataclass(frozen=True, slots=True)
class Subclasses:
    """Read: the classes deriving from a class whose last name is ``name``."""

    name: str


@dataclass(frozen=True, slots=True)
class Arguments:
    """Read: the values passed to calls whose callee's last name is ``name``."""

    name: str


#: What an inference read: a module (by name), subclasses or arguments.
Read = str | Subclasses | Arguments
#: What each expression holds, seen from a definition (its qualname and class).
Memo = dict[tuple[str, str | None, Ref], frozenset[Value]]


class Context:
    """The working state of one inference.

    Parameters
    ----------
    parameters
        How many levels of parameters' values it may still read (:data:`TOP` for a
        definition's own; 0 reads none).
    reading
        Where it notes what it reads (shared with the contexts it makes).
    memo
        The answers it keeps (shared likewise).
    """

    __slots__ = ("parameters", "reading", "memo")

    def __init__(self, parameters: int = TOP, reading: set[Read] | None = None,
                 memo: Memo | None = None) -> None:
        self.parameters = parameters
        self.reading: set[Read] = set() if reading is None else reading
        self.memo: Memo = {} if memo is None else memo

    def deeper(self) -> Context:
        """The same inference, one level of parameters further."""
        return Context(self.parameters - 1, self.reading, self.memo)


def kept(table: dict[_K, tuple[_V, frozenset[Read]]], key: _K, ctx: Context,
         compute: Callable[[Context], _V], parameters: int = TOP) -> _V:
    """``compute`` in a context of its own (``parameters`` deep), kept in ``table`` for the
    build with what it read, which counts as read by ``ctx`` whenever it asks."""
    known = table.get(key)
    if known is None:
        inner = Context(parameters)
        known = table[key] = (compute(inner), frozenset(inner.reading))
    ctx.reading |= known[1]
    return known[0]
