"""The facts of one build's modules, indexed by qualified name, to resolve calls against.

:class:`Tables` holds what each name of the sources is (definitions, classes,
modules, imports), what each definition binds (its names, its ``self.`` fields, its
return value, its decorators) and which values each call passes, by the called
name. Tables change a module at a time (:meth:`Tables.replace`) so that an update
reads only the modules that changed.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> m = extract_module("m.py", "def apply(fn):\\n    fn()\\ndef f():\\n    h = f\\n"
...                            "    apply(h)\\n    return h\\n")
>>> tables = Tables([m])
>>> tables.returns["m.f"]
(Ref(name='h', called=False, index=()),)
>>> [(p.caller, p.argument.slot, str(p.argument.value)) for p in tables.passed["apply"]]
[('m.f', 0, 'h')]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple, TypeVar

from ..records import Argument, Definition, ModuleExtract, Position, Ref

__all__ = ["Tables", "Passed", "Field"]

_T = TypeVar("_T")


class Passed(NamedTuple):
    """A value passed to a call in ``caller``."""

    caller: str
    argument: Argument


class Field(NamedTuple):
    """A ``self.`` attribute given ``value`` in the method ``where``."""

    where: str
    value: Ref


class Tables:
    """The look-up tables of one build's modules.

    Attributes
    ----------
    defs : dict
        Each definition by qualified name (the first module's, when two give it).
    classes : dict
        Each class's bases, as written; ``class_module`` the module defining it.
    modules : set
        The modules of the build.
    imports, wildcards : dict
        By scope, the names its imports bind (alias to absolute target), and the
        modules it imports ``*`` from.
    functions_by_name, callables_by_name : dict
        The functions, and the functions and methods, of each bare name.
    binders : set
        The scopes that bind a name of their own (modules, and the definitions
        holding a definition, a class or an import).
    params : dict
        The names of each definition's parameters.
    assigned, returns, decorators, fields, passed : dict
        What each scope's names are given (``positions``: those given where they stand
        in a list or tuple written out), what each function returns, its
        decorators (innermost last), each class's ``self.`` fields, and the values
        passed to calls, by the called name.
    """

    def __init__(self, modules: Sequence[ModuleExtract]) -> None:
        self.defs: dict[str, Definition] = {}
        self.classes: dict[str, tuple[str, ...]] = {}
        self.class_module: dict[str, str] = {}
        self.modules: set[str] = set()
        self.imports: dict[str, dict[str, str]] = defaultdict(dict)
        self.wildcards: dict[str, list[str]] = defaultdict(list)
        self.functions_by_name: dict[str, list[str]] = defaultdict(list)
        self.callables_by_name: dict[str, list[str]] = defaultdict(list)
        self.binders: set[str] = set()
        self.params: dict[str, frozenset[str]] = {}
        self.assigned: dict[str, dict[str, list[Ref]]] = {}
        self.positions: dict[str, dict[str, list[tuple[Position, Ref]]]] = {}
        self.returns: dict[str, tuple[Ref, ...]] = {}
        self.decorators: dict[str, tuple[str, ...]] = {}
        self.fields: dict[str, dict[str, list[Field]]] = {}
        self.passed: dict[str, list[Passed]] = defaultdict(list)
        self.by_module: dict[str, ModuleExtract] = {}
        # Which module filled each qualname-keyed entry; keys filled by two modules
        # depend on build order, so they cannot be updated one module at a time.
        self.owner: dict[str, str] = {}
        self.shared: set[str] = set()
        for module in modules:
            self._add(module)

    def replace(self, old: Sequence[ModuleExtract], new: Sequence[ModuleExtract]) -> bool:
        """Swap the tables of ``old`` modules for those of ``new`` ones.

        Returns False, changing nothing, when a module or key is shared with
        another module of the build (build order would decide between them).
        """
        names = {m.module for m in old}
        for module in (*old, *new):
            keys = [module.module, *(d.qualname for d in module.definitions),
                    *(c.qualname for c in module.classes), *(b.scope for b in module.imports)]
            if any(k in self.shared or self.owner.get(k, module.module) != module.module
                   and self.owner.get(k) not in names for k in keys):
                return False
            if module in new and module.module in self.by_module and module.module not in names:
                return False
        for module in old:
            self._remove(module)
        for module in new:
            self._add(module)
        return True

    def module_of(self, qualname: str) -> str:
        """The module holding ``qualname`` (its owner, or its longest module prefix)."""
        module = self.owner.get(qualname)
        if module is not None:
            return module
        head = qualname
        while head and head not in self.modules:
            head = head.rpartition(".")[0]
        return head or qualname.partition(".")[0]

    def is_internal(self, target: str) -> bool:
        """Whether the dotted ``target`` names a module of the sources or something in one."""
        head = target
        while head:
            if head in self.modules:
                return True
            head = head.rpartition(".")[0]
        return False

    # -- changes -------------------------------------------------------------------

    def _add(self, module: ModuleExtract) -> None:
        name = module.module
        if name in self.by_module:
            self.shared.add(name)
        self.by_module.setdefault(name, module)
        self.modules.add(name)
        self.binders.add(name)
        for d in module.definitions:
            self._add_definition(d, name)
        for c in module.classes:
            self.binders.add(c.qualname.rpartition(".")[0])
            self._own(c.qualname, name)
            self.classes.setdefault(c.qualname, c.bases)
            self.class_module[c.qualname] = name
        for b in module.imports:
            self.binders.add(b.scope)
            self._own(b.scope, name)
            if b.alias == "*":
                self.wildcards[b.scope].append(b.target)
            else:
                self.imports[b.scope].setdefault(b.alias, b.target)

    def _own(self, key: str, module: str) -> bool:
        """Note ``module`` fills ``key``; whether it is the first to."""
        if self.owner.setdefault(key, module) != module:
            self.shared.add(key)
            return False
        return True

    def _add_definition(self, d: Definition, module: str) -> None:
        q = d.qualname
        self.binders.add(q.rpartition(".")[0])
        if self._own(q, module):
            self._add_bindings(d)
        if q not in self.defs:
            self.defs[q] = d
            self.params[q] = frozenset(p.name for p in d.parameters)
        if d.kind != "module":
            self.callables_by_name[d.name].append(q)
            if d.kind == "function":
                self.functions_by_name[d.name].append(q)

    def _add_bindings(self, d: Definition) -> None:
        q = d.qualname
        for a in d.arguments:
            self.passed[a.call.name].append(Passed(q, a))
        if d.returns:
            self.returns[q] = d.returns
        if d.decorators:
            self.decorators[q] = d.decorators
        if not d.bindings:
            return
        table = self.assigned.setdefault(q, {})
        cls = d.enclosing_class
        for b in d.bindings:
            table.setdefault(b.target, []).append(b.value)
            if b.position is not None:
                self.positions.setdefault(q, {}).setdefault(b.target, []).append(
                    (b.position, b.value))
            head, _, attr = b.target.partition(".")
            if cls is not None and head == "self" and attr and "." not in attr:
                self.fields.setdefault(cls, {}).setdefault(attr, []).append(
                    Field(q, b.value))

    def _remove(self, module: ModuleExtract) -> None:
        name = module.module
        del self.by_module[name]
        self.modules.discard(name)
        for d in module.definitions:
            self._remove_definition(d, name)
        for c in module.classes:
            self.owner.pop(c.qualname, None)
            self.classes.pop(c.qualname, None)
            self.class_module.pop(c.qualname, None)
        for b in module.imports:
            self.owner.pop(b.scope, None)
            self.imports.pop(b.scope, None)
            self.wildcards.pop(b.scope, None)

    def _remove_definition(self, d: Definition, module: str) -> None:
        q = d.qualname
        if self.owner.get(q) == module:
            for table in (self.assigned, self.positions, self.returns, self.decorators):
                table.pop(q, None)
            for a in d.arguments:
                _drop(self.passed, a.call.name, Passed(q, a))
            if d.enclosing_class is not None:
                self.fields.pop(d.enclosing_class, None)
        self.owner.pop(q, None)
        self.defs.pop(q, None)
        self.params.pop(q, None)
        if d.kind != "module":
            _drop(self.callables_by_name, d.name, q)
            if d.kind == "function":
                _drop(self.functions_by_name, d.name, q)


def _drop(table: dict[str, list[_T]], key: str, item: _T) -> None:
    found = table.get(key)
    if found is not None:
        if item in found:
            found.remove(item)
        if not found:
            del table[key]
