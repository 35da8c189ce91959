"""Classes of the sources: their bases, their methods by inheritance, their subclasses.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> m = extract_module("m.py", "class A:\\n    def run(self):\\n        pass\\n"
...                            "class B(A):\\n    pass\\nclass C(B):\\n    pass\\n")
>>> hierarchy = Hierarchy(Tables([m]))
>>> hierarchy.method("m.C", "run"), hierarchy.lineage("m.C"), hierarchy.descendants("m.A")
('m.A.run', ['m.C', 'm.B', 'm.A'], ['m.B', 'm.C'])

A method is looked up along the class's method resolution order (C3, as Python does):
in ``class D(B, C)`` with ``B(A)`` and ``C(A)``, ``D``'s order is ``D, B, C, A``, and with
``B(A)`` and an unrelated ``C``, ``D, B, A, C``.
"""

from __future__ import annotations

from collections import defaultdict

from .tables import Tables

__all__ = ["Hierarchy", "MAX_ALIASES"]

#: How many imports a look-up follows, one naming the next.
MAX_ALIASES = 8


class Hierarchy:
    """Look-ups of classes over :class:`~sgkr.analysis.tables.Tables`, kept until the
    tables change (:meth:`forget`)."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self._bases: dict[str, list[str]] = {}
        self._methods: dict[tuple[str, str], str | None] = {}
        self._orders: dict[str, list[str]] = {}
        self._subclasses: dict[str, list[str]] | None = None

    def forget(self) -> None:
        """Drop the answers kept: the tables changed."""
        self._bases.clear()
        self._methods.clear()
        self._orders.clear()
        self._subclasses = None

    def class_alias(self, target: str, depth: int = 0) -> str | None:
        """The class the dotted ``target`` names, through imports; None: no class."""
        if target in self.tables.classes:
            return target
        if depth > MAX_ALIASES:
            return None
        prefix, _, last = target.rpartition(".")
        bound = self.tables.imports.get(prefix, {}).get(last)
        if bound is not None and bound != target:
            return self.class_alias(bound, depth + 1)
        return None

    def bases(self, cls: str) -> list[str]:
        """The classes ``cls`` derives from, found in the sources (a list only read)."""
        found = self._bases.get(cls)
        if found is None:
            found = self._bases[cls] = self._find_bases(cls)
        return found

    def _find_bases(self, cls: str) -> list[str]:
        tables = self.tables
        module = tables.class_module.get(cls, "")
        scope = cls.rpartition(".")[0]
        found: list[str] = []
        for base in tables.classes.get(cls, ()):
            head, _, rest = base.partition(".")
            candidates = [f"{module}.{base}"]
            bound = tables.imports.get(module, {}).get(head)
            if bound is not None:
                candidates.insert(0, ".".join(p for p in (bound, rest) if p))
            if scope != module:
                candidates.append(f"{scope}.{base}")
            resolved = next(filter(None, map(self.class_alias, candidates)), None)
            if resolved is not None:
                found.append(resolved)
        return found

    def method(self, cls: str, name: str) -> str | None:
        """The method ``name`` of ``cls``, its own or the nearest base's; None: none."""
        key = (cls, name)
        if key in self._methods:
            return self._methods[key]
        found = self._methods[key] = self._find_method(cls, name)
        return found

    def _find_method(self, cls: str, name: str) -> str | None:
        defs = self.tables.defs
        for current in self.lineage(cls):
            candidate = f"{current}.{name}"
            d = defs.get(candidate)
            if d is not None and d.kind == "method":
                return candidate
        return None

    def lineage(self, cls: str) -> list[str]:
        """``cls`` and the classes it derives from in the sources, in its method
        resolution order (C3; nearest first where the bases disagree on an order)."""
        found = self._orders.get(cls)
        if found is None:
            self._orders[cls] = [cls]  # a cycle of bases ends here
            found = self._orders[cls] = self._linearized(cls)
        return found

    def _linearized(self, cls: str) -> list[str]:
        bases = self.bases(cls)
        merged = _c3([*(list(self.lineage(b)) for b in bases), list(bases)])
        if merged is None or cls in merged:  # no C3 order: nearest first
            merged = []
            for current in [*bases]:
                merged.extend(c for c in self.lineage(current) if c not in merged)
            merged = [c for c in merged if c != cls]
        return [cls, *merged]

    def descendants(self, cls: str) -> list[str]:
        """The classes of the sources derived from ``cls``, nearest first."""
        subclasses = self._subclasses
        if subclasses is None:
            subclasses = self._subclasses = defaultdict(list)
            for name in self.tables.classes:
                for base in self.bases(name):
                    subclasses[base].append(name)
        order: list[str] = []
        frontier = [cls]
        for current in frontier:
            for sub in subclasses.get(current, ()):
                if sub not in order and sub != cls:
                    order.append(sub)
                    frontier.append(sub)
        return order

    def enclosing(self, qualname: str) -> str | None:
        """The innermost class holding ``qualname``; None: none."""
        qualname = qualname.rpartition(".")[0]
        while qualname:
            if qualname in self.tables.classes:
                return qualname
            qualname = qualname.rpartition(".")[0]
        return None


def _c3(sequences: list[list[str]]) -> list[str] | None:
    """The C3 merge of ``sequences`` (each base's order, then the bases); None when
    they admit no order (Python would refuse the class).

    Examples
    --------
    >>> _c3([["B", "A"], ["C", "A"], ["B", "C"]])
    ['B', 'C', 'A']
    >>> _c3([["B", "A"], ["A", "B"], ["B", "A"]]) is None
    True
    """
    pending = [list(s) for s in sequences if s]
    merged: list[str] = []
    while pending:
        head = next((s[0] for s in pending
                     if not any(s[0] in other[1:] for other in pending)), None)
        if head is None:
            return None
        merged.append(head)
        pending = [rest for s in pending if (rest := [c for c in s if c != head])]
    return merged
