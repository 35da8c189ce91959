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
[Expr(dotted='h', called=False)]
>>> tables.passed["apply"]
[Passed(caller='m.f', callee='apply', slot=0, value=Expr(dotted='h', called=False))]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container, Sequence
from typing import NamedTuple, TypeVar

from ..records import Definition, ModuleExtract
from .values import Expr

__all__ = ["Tables", "Passed", "Field", "passed_of"]

_T = TypeVar("_T")


class Passed(NamedTuple):
    """A value passed to a call: in ``caller``, ``callee(..., value)`` at ``slot`` (a
    position, or a keyword's name)."""

    caller: str
    callee: str
    slot: int | str
    value: Expr

    @property
    def last(self) -> str:
        """The callee's last name, by which the definitions it may reach are found."""
        return self.callee.rpartition(".")[2]


class Field(NamedTuple):
    """A ``self.`` attribute given ``value`` in the method ``where``."""

    where: str
    value: Expr


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
    assigned, returns, decorators, fields, passed : dict
        What each scope's names are given, what each function returns, its
        decorators (outermost first), each class's ``self.`` fields, and the values
        passed to calls, by the callee's last name.
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
        self.assigned: dict[str, dict[str, list[Expr]]] = {}
        self.returns: dict[str, list[Expr]] = {}
        self.decorators: dict[str, list[str]] = {}
        self.fields: dict[str, dict[str, list[Field]]] = {}
        self.passed: dict[str, list[Passed]] = defaultdict(list)
        self.by_module: dict[str, ModuleExtract] = {}
        # Which module filled each qualname-keyed entry; keys filled by two modules
        # depend on build order, so they cannot be updated one module at a time.
        self.owner: dict[str, str] = {}
        self.shared: set[str] = set()
        self._exprs: dict[str, Expr] = {}
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
        if self._own(q, module) and d.bindings:
            self._add_bindings(d)
        self.defs.setdefault(q, d)
        if d.kind != "module":
            self.callables_by_name[d.name].append(q)
            if d.kind == "function":
                self.functions_by_name[d.name].append(q)

    def _add_bindings(self, d: Definition) -> None:
        table = self.assigned.setdefault(d.qualname, {})
        cls = d.enclosing_class
        for b in d.bindings:
            if b.kind == "arg":
                slot, _, callee = b.target.partition(":")
                self.passed[callee.rpartition(".")[2]].append(Passed(
                    d.qualname, callee, int(slot) if slot.isdigit() else slot,
                    self._expr(b.value, False)))
                continue
            value = self._expr(b.value, b.kind == "call")
            if b.target == "return":
                self.returns.setdefault(d.qualname, []).append(value)
            elif b.target == "@":
                self.decorators.setdefault(d.qualname, []).append(b.value)
            else:
                table.setdefault(b.target, []).append(value)
            head, _, attr = b.target.partition(".")
            if cls is not None and head == "self" and attr and "." not in attr:
                self.fields.setdefault(cls, {}).setdefault(attr, []).append(
                    Field(d.qualname, value))

    def _expr(self, text: str, called: bool) -> Expr:
        """The expression of a binding's value (one object for each text: a build reads
        tens of thousands, a few thousand apart)."""
        key = text + "()" if called else text
        expr = self._exprs.get(key)
        if expr is None:
            expr = self._exprs[key] = Expr.parse(key)
        return expr

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
        if self.owner.get(q) == module and d.bindings:
            for table in (self.assigned, self.returns, self.decorators):
                table.pop(q, None)
            for passed in passed_of(d):
                _drop(self.passed, passed.last, passed)
            if d.enclosing_class is not None:
                self.fields.pop(d.enclosing_class, None)
        self.owner.pop(q, None)
        self.defs.pop(q, None)
        if d.kind != "module":
            _drop(self.callables_by_name, d.name, q)
            if d.kind == "function":
                _drop(self.functions_by_name, d.name, q)


def passed_of(d: Definition, callees: Container[str] | None = None) -> list[Passed]:
    """The values ``d`` passes to calls (its ``arg`` bindings, written ``slot:callee``);
    only to ``callees`` (last names) when given."""
    found = [_passed(d.qualname, b.target, b.value) for b in d.bindings if b.kind == "arg"]
    return found if callees is None else [p for p in found if p.last in callees]


def _passed(caller: str, target: str, value: str) -> Passed:
    slot, _, callee = target.partition(":")
    return Passed(caller, callee, int(slot) if slot.isdigit() else slot, Expr.parse(value))


def _drop(table: dict[str, list[_T]], key: str, item: _T) -> None:
    found = table.get(key)
    if found is not None:
        if item in found:
            found.remove(item)
        if not found:
            del table[key]
