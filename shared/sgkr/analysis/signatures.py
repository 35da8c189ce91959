"""Whether a definition can take what a call passes, by the kinds of its parameters.

A call ``f(a, b, key=k)`` cannot run a function that takes one argument, or none named
``key``, or that needs one more: Python would raise ``TypeError``. Read off the
parameters' kinds (:class:`~sgkr.records.ParameterKind`) and defaults, this tells the
definitions a call guessed by name cannot reach. A call unpacking ``*xs`` or ``**kw``
may pass anything.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> m = extract_module("m.py", "def f(a, b=1, *, key):\\n    pass\\n")
>>> f = m.definitions[-1]
>>> accepts(f, Arity(1, ("key",)), 0), accepts(f, Arity(3, ("key",)), 0)
(True, False)
>>> accepts(f, Arity(1), 0), accepts(f, Arity(1, ("other",)), 0)
(False, False)
"""

from __future__ import annotations

from ..records import Arity, Definition, ParameterKind

__all__ = ["accepts", "bound_arguments"]

_BY_POSITION = (ParameterKind.POSITIONAL_ONLY, ParameterKind.POSITIONAL)


def bound_arguments(d: Definition) -> int:
    """How many arguments a call of ``d`` through an object passes before its own: one
    (``self`` or ``cls``) for a method, none for a static method or a function."""
    if d.kind != "method" or "staticmethod" in d.decorators:
        return 0
    return 1


def accepts(d: Definition, arity: Arity, bound: int) -> bool:
    """Whether ``d`` can take what a call passing ``arity`` gives it after ``bound``
    arguments filled first (``self``)."""
    if arity.unpacked:
        return True
    params = d.parameters
    by_position = [p for p in params if p.kind in _BY_POSITION]
    given = bound + arity.positional
    if given > len(by_position) and not any(
            p.kind is ParameterKind.VAR_POSITIONAL for p in params):
        return False
    filled = {p.name for p in by_position[:given]}
    named = {p.name for p in params if p.kind in (ParameterKind.POSITIONAL,
                                                   ParameterKind.KEYWORD_ONLY)}
    open_keywords = any(p.kind is ParameterKind.VAR_KEYWORD for p in params)
    for keyword in arity.keywords:
        if keyword in filled or keyword not in named and not open_keywords:
            return False
    keywords = set(arity.keywords)
    return all(p.default or p.name in filled or p.name in keywords for p in params
               if p.kind in (*_BY_POSITION, ParameterKind.KEYWORD_ONLY))
