"""What a name means by scoping and imports alone: the static half of call resolution.

A name used in a definition is looked up in the scopes around it, innermost first
(classes left out, as Python does); what it is bound to there (a definition, a
class, an import) is an absolute dotted name, and :meth:`Names.lookup` tells which
definitions calling that name reaches. A name a function assigns or takes as a
parameter is local: scoping says nothing of it.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> a = extract_module("a.py", "from b import g as h\\ndef f():\\n    h()\\n")
>>> b = extract_module("b.py", "def g():\\n    pass\\n")
>>> tables = Tables([a, b])
>>> names = Names(tables, Hierarchy(tables))
>>> f = tables.defs["a.f"]
>>> names.scopes_of(f, "a"), names.target_of(["a"], "h"), names.lookup("b.g")
(['a'], 'b.g', ['b.g'])
"""

from __future__ import annotations

from ..records import Definition
from .classes import MAX_ALIASES, Hierarchy
from .tables import Tables

__all__ = ["Names"]


class Names:
    """Look-ups of names over :class:`~sgkr.analysis.tables.Tables`, kept until the
    tables change (:meth:`forget`)."""

    def __init__(self, tables: Tables, hierarchy: Hierarchy) -> None:
        self.tables = tables
        self.hierarchy = hierarchy
        self._bound: dict[tuple[str, str], str | None] = {}
        self._found: dict[str, list[str] | None] = {}
        self._chains: dict[str, tuple[str, ...]] = {}
        self._locals: dict[tuple[str, str], bool] = {}

    def forget(self) -> None:
        """Drop the answers kept: the tables changed."""
        for memo in (self._bound, self._found, self._chains, self._locals):
            memo.clear()

    # -- scopes --------------------------------------------------------------------

    def scopes_of(self, d: Definition, module: str) -> list[str]:
        """The scopes a name used in ``d`` is looked up in, innermost first.

        Classes are left out, and so are the functions that bind no name.
        """
        binders, classes = self.tables.binders, self.tables.classes
        scopes: list[str] = []
        qualname = d.qualname
        while qualname and qualname != module:
            if qualname in binders and qualname not in classes:
                scopes.append(qualname)
            qualname = qualname.rpartition(".")[0]
        scopes.append(module)
        return scopes

    def chain(self, qualname: str) -> tuple[str, ...]:
        """The scopes whose assignments a name used in ``qualname`` may come from:
        itself, then the functions and the module around it."""
        known = self._chains.get(qualname)
        if known is not None:
            return known
        modules, classes = self.tables.modules, self.tables.classes
        chain = [qualname]
        current = qualname
        while current and current not in modules:
            current = current.rpartition(".")[0]
            if current and current not in classes:
                chain.append(current)
        found = self._chains[qualname] = tuple(chain)
        return found

    def binding_scopes(self, chain: tuple[str, ...]) -> list[str]:
        """The scopes of ``chain`` that bind names of their own."""
        binders, classes = self.tables.binders, self.tables.classes
        return [s for s in chain if s in binders and s not in classes]

    # -- names ---------------------------------------------------------------------

    def target_of(self, scopes: list[str], name: str) -> str | None:
        """The absolute dotted name ``name`` is bound to, looked up in ``scopes``."""
        bound = self._bound
        for scope in scopes:
            key = (scope, name)
            if key in bound:
                target = bound[key]
            else:
                target = bound[key] = self.bound_in(scope, name)
            if target is not None:
                return target
        return None

    def bound_in(self, scope: str, name: str) -> str | None:
        """What ``name`` is bound to in ``scope`` itself."""
        tables = self.tables
        local = f"{scope}.{name}"
        found = tables.defs.get(local)
        if found is not None and found.kind != "module" or local in tables.classes:
            return local
        bound = tables.imports[scope].get(name) if scope in tables.imports else None
        if bound is not None:
            return bound
        for wildcard in tables.wildcards.get(scope, ()):
            candidate = f"{wildcard}.{name}"
            if self.lookup(candidate):
                return candidate
        return None

    def name_in_scope(self, scopes: list[str], name: str) -> list[str] | None:
        """The definitions calling ``name`` reaches by scoping: None when scoping does not
        tell, none when it is bound to something outside the sources."""
        target = self.target_of(scopes, name)
        if target is None:
            return None
        found = self.lookup(target)
        if found is None and not self.tables.is_internal(target):
            return []
        return found

    def is_local(self, chain: tuple[str, ...], name: str) -> bool:
        """Whether ``name`` is a parameter of a function of ``chain`` or assigned in one,
        before a scope binding it by a definition or an import."""
        key = (chain[0], name)
        known = self._locals.get(key)
        if known is None:
            known = self._locals[key] = self._find_local(chain, name)
        return known

    def _find_local(self, chain: tuple[str, ...], name: str) -> bool:
        tables = self.tables
        for scope in chain:
            d = tables.defs.get(scope)
            if d is None or d.kind == "module":
                return False
            if name in tables.params[scope] or name in tables.assigned.get(scope, ()):
                return True
            if scope in tables.binders and self.bound_in(scope, name) is not None:
                return False
        return False

    def enclosing_class(self, d: Definition) -> str | None:
        """The class a definition's ``self`` and ``cls`` are of (of a nested function too)."""
        return d.enclosing_class or self.hierarchy.enclosing(d.qualname)

    # -- definitions reached -------------------------------------------------------

    def lookup(self, target: str) -> list[str] | None:
        """Definitions that calling the absolute ``target`` reaches; None when not in the
        sources. The list is shared by the calls that reach ``target``: it is only read."""
        found = self._found
        if target in found:
            return found[target]
        result = found[target] = self._reached(target, 0)
        return result

    def _reached(self, target: str, depth: int) -> list[str] | None:
        if depth > MAX_ALIASES:
            return None
        tables, hierarchy = self.tables, self.hierarchy
        d = tables.defs.get(target)
        if d is not None and d.kind != "module":
            return [target]
        if target in tables.classes:
            init = hierarchy.method(target, "__init__")
            return [init] if init else []
        if target in tables.modules:
            return []
        prefix, _, last = target.rpartition(".")
        if not prefix:
            return None
        if prefix in tables.classes:
            method = hierarchy.method(prefix, last)
            return [method] if method else None
        if prefix not in tables.modules:
            return None
        bound = tables.imports.get(prefix, {}).get(last)
        if bound is not None and bound != target:
            return self._reached(bound, depth + 1)
        for wildcard in tables.wildcards.get(prefix, ()):
            found = self._reached(f"{wildcard}.{last}", depth + 1)
            if found:
                return found
        return None
