"""Items of lists and tuples written out, picked by subscripts whose keys syntax tells.

``fs = [f, g]`` binds ``fs`` to ``f`` at position 0 and ``g`` at 1 (of 2)
(:class:`~sgkr.records.Position`); ``fs[1]`` then holds what ``g`` holds, ``fs[-1]``
too, ``fs[1:][0]`` as well (a slice is the sequence it cuts, ``gs = fs[1:]`` too). A key
is an integer literal, or a name bound once to one in a module of the sources (by
scoping, or by an import: :meth:`Sequences.constant`).

Anything else leaves the items as one: :meth:`Sequences.picked` answers None, and the
subscript holds what all the items hold. So do a key no syntax tells, an index past
the end of every list the name is given (the list grew in a way not seen), and a name
its module changes or lets escape (:meth:`Sequences.changed`): given anything but a
list written out or a slice, changed in place (``fs.append(h)``, ``fs[0] = h``,
``fs += [h]``, ``del fs[0]``), passed to a call, stored, returned or given to another
name. A change made in another module is not seen.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> from sgkr.analysis.resolve import CallResolver
>>> m = extract_module("m.py", "def f():\\n    pass\\ndef g():\\n    pass\\n"
...                            "fs = [f, g]\\nLAST = -1\\nfs[LAST]()\\n")
>>> CallResolver([m]).resolve_modules([m])
{'m': {'m.g': 'inferred'}}
"""

from __future__ import annotations

from ..records import Index, Ref, Selector, Slice
from .classes import MAX_ALIASES
from .context import Context
from .scopes import Names
from .tables import Tables
from .values import Frame

__all__ = ["Sequences", "pick", "READING_METHODS"]

#: Methods that read a list and change nothing of it.
READING_METHODS = frozenset({"index", "count", "copy"})


def pick(length: int, selectors: tuple[Selector, ...]) -> int | range | None:
    """The positions that integer ``selectors`` pick of a sequence of ``length`` items: one
    (an item), a range (a slice), None when out of range or an item's item is asked.

    Examples
    --------
    >>> pick(3, (Slice(1, 3), Index(0))), pick(3, (Index(-1),)), pick(2, (Index(2),))
    (1, 2, None)
    """
    picked: int | range = range(length)
    for selector in selectors:
        key = _key(selector)
        if isinstance(picked, int) or key is None:
            return None
        try:
            picked = picked[key]
        except (IndexError, ValueError):  # past the end, a step of 0
            return None
    return picked


def _key(selector: Selector) -> int | slice | None:
    """A subscript of integers as Python's key; None when a name is left."""
    if isinstance(selector, Index):
        return selector.key if isinstance(selector.key, int) else None
    start, stop, step = selector.start, selector.stop, selector.step
    if isinstance(start, str) or isinstance(stop, str) or isinstance(step, str):
        return None
    return slice(start, stop, step)


class Sequences:
    """What subscripts of names pick, over a build's tables, kept until they change.

    Parameters
    ----------
    tables, names
        The build's tables and its name look-ups.
    """

    def __init__(self, tables: Tables, names: Names) -> None:
        self.tables = tables
        self.names = names
        self._changed: dict[str, frozenset[str]] = {}
        self._constants: dict[str, dict[str, int]] = {}

    def forget(self) -> None:
        """Drop the answers kept: the tables changed."""
        self._changed.clear()
        self._constants.clear()

    def picked(self, ctx: Context, frame: Frame, scope: str, name: str,
               index: tuple[Selector, ...]) -> list[Ref] | None:
        """What ``name[index]`` holds, written in ``frame``, ``name`` being assigned in
        ``scope``: the items picked (read in ``scope``), or None when the subscripts pick
        no item told apart (then it holds what every item holds)."""
        tables = self.tables
        module = tables.module_of(scope)
        ctx.reading.add(module)
        selectors = self._concrete(ctx, frame, index)
        if selectors is None or name in self.changed(module):
            return None
        bound = tables.assigned[scope][name]
        placed = tables.positions.get(scope, {}).get(name, [])
        sliced = [r for r in bound if r.index and isinstance(r.index[-1], Slice)]
        if len(placed) + len(sliced) != len(bound):
            return None
        found = [Ref(r.name, index=r.index + selectors) for r in sliced]
        told = bool(sliced)
        for length in sorted({p.length for p, _ in placed}):
            positions = pick(length, selectors)
            if positions is None:
                continue  # past this list's end: not this list
            told = True
            found += [r for p, r in placed if p.length == length and (
                p.index == positions if isinstance(positions, int) else p.index in positions)]
        return found if told else None

    def _concrete(self, ctx: Context, frame: Frame,
                  index: tuple[Selector, ...]) -> tuple[Selector, ...] | None:
        """``index`` with each name replaced by the integer it stands for (None: one is
        not told)."""
        found: list[Selector] = []
        for selector in index:
            if isinstance(selector, Index):
                key = self._integer(ctx, frame, selector.key)
                if key is None:
                    return None
                found.append(Index(key))
                continue
            written = (selector.start, selector.stop, selector.step)
            bounds = [None if b is None else self._integer(ctx, frame, b) for b in written]
            if any(v is None and b is not None for v, b in zip(bounds, written, strict=True)):
                return None
            found.append(Slice(*bounds))
        return tuple(found)

    def _integer(self, ctx: Context, frame: Frame, key: int | str) -> int | None:
        return key if isinstance(key, int) else self.constant(ctx, frame, key)

    def constant(self, ctx: Context, frame: Frame, dotted: str) -> int | None:
        """The integer the dotted name ``dotted`` stands for in ``frame``: a name of a
        module bound once, to an integer literal (there, or imported from there)."""
        head, _, rest = dotted.partition(".")
        tables = self.tables
        for scope in frame.chain[:-1]:  # a function's own name is none of a module's
            if head in tables.params.get(scope, ()) or head in tables.assigned.get(scope, ()) \
                    or any(c.name == head for c in tables.defs[scope].changes):
                return None
        target = self.names.target_of(self.names.binding_scopes(frame.chain), head)
        if target is None:
            return None if rest else self._module_constant(ctx, frame.chain[-1], head, 0)
        module, _, last = ".".join(p for p in (target, rest) if p).rpartition(".")
        return self._module_constant(ctx, module, last, 0)

    def _module_constant(self, ctx: Context, module: str, name: str, depth: int) -> int | None:
        tables = self.tables
        if module not in tables.modules or depth > MAX_ALIASES:
            return None
        ctx.reading.add(module)
        found = self._constants_of(module).get(name)
        if found is not None:
            return found
        target = tables.imports.get(module, {}).get(name)
        if target is None:
            return None
        source, _, last = target.rpartition(".")
        return self._module_constant(ctx, source, last, depth + 1)

    def _constants_of(self, module: str) -> dict[str, int]:
        """The names of ``module`` bound once, to an integer literal, and never changed."""
        known = self._constants.get(module)
        if known is not None:
            return known
        tables = self.tables
        extract = tables.by_module.get(module)
        counts: dict[str, int] = {}
        found: dict[str, int] = {}
        for d in extract.definitions if extract is not None else ():
            for change in d.changes:
                counts[change.name] = counts.get(change.name, 0) + 1
                if d.qualname == module and change.integer is not None:
                    found[change.name] = change.integer
        bound = tables.assigned.get(module, {})
        imported = tables.imports.get(module, {})
        known = self._constants[module] = {
            name: value for name, value in found.items()
            if counts[name] == 1 and name not in bound and name not in imported}
        return known

    def changed(self, module: str) -> frozenset[str]:
        """The names ``module`` changes or lets escape anywhere (see the module)."""
        known = self._changed.get(module)
        if known is not None:
            return known
        extract = self.tables.by_module.get(module)
        found: set[str] = set()
        for d in extract.definitions if extract is not None else ():
            found.update(c.name for c in d.changes if c.integer is None)
            for b in d.bindings:
                value = b.value
                if b.position is None and not (value.index
                                               and isinstance(value.index[-1], Slice)):
                    found.add(b.target)
                if not value.index and not value.called:
                    found.add(value.name)  # another name holds it: ``gs = fs``, ``[fs]``
            found.update(a.value.name for a in d.arguments)
            found.update(u.site.name for u in d.uses
                         if u.argument_of is None and u.site.kind == "plain")
            found.update(c.receiver.name for c in d.calls
                         if c.kind == "attribute" and c.receiver is not None
                         and not c.receiver.called and c.name not in READING_METHODS)
        known = self._changed[module] = frozenset(found)
        return known
