"""Extraction of definitions, calls and imports from Python source with tree-sitter.

This is the only module of the core that knows tree-sitter. One query, run
in C, captures every definition, call, import and string subscript of a
file; the captures are then assigned to their innermost enclosing function
by byte offset. Nothing is imported or executed.

Examples
--------
>>> m = extract_module("pkg/mod.py", "def f():\\n    g()\\n\\ndef g():\\n    pass\\n")
>>> [(d.qualname, [c.name for c in d.calls]) for d in m.definitions]
[('pkg.mod.f', ['g']), ('pkg.mod.g', [])]
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from operator import itemgetter

import tree_sitter_python
from tree_sitter import Language, Node, Parser, Query, QueryCursor

from ..errors import InvalidArgumentError
from ..records import (
    Argument,
    Binding,
    BindingKind,
    CallSite,
    ClassInfo,
    Definition,
    FunctionKind,
    ImportBinding,
    ModuleExtract,
    Parameter,
    ParameterKind,
    Problem,
    Ref,
    SourceSpan,
    ValueUse,
)
from .sources import module_name

__all__ = ["extract_module", "parse_only"]

_LANGUAGE = Language(tree_sitter_python.language())
_QUERY = Query(
    _LANGUAGE,
    """
    (function_definition name: (identifier) @def.name) @def
    (class_definition name: (identifier) @class.name) @class
    (call function: (identifier) @call.plain)
    (call function: (attribute attribute: (identifier)) @call.attr)
    (import_statement) @import
    (import_from_statement) @import
    (subscript subscript: (string (string_content) @key))
    (call arguments: (argument_list) @use.args)
    (pair value: [(identifier) (attribute)] @use)
    (list) @use.items
    (tuple) @use.items
    (set) @use.items
    (return_statement [(identifier) (attribute)] @use)
    (yield [(identifier) (attribute)] @use)
    (expression_list) @use.items
    (assignment right: [(identifier) (attribute)] @use)
    (decorator [(identifier) (attribute)] @call.deco)
    (call function: (subscript value: [(identifier) (attribute)] @call.sub))
    (assignment left: [(identifier) (attribute)]
                right: [(identifier) (attribute) (call) (list) (tuple) (set) (dictionary)]) @bind
    (assignment left: [(identifier) (attribute)] right: [(assignment) (subscript)]) @bind
    (assignment left: [(pattern_list) (tuple_pattern) (subscript)]) @bind
    (return_statement [(identifier) (attribute) (call) (expression_list) (list) (tuple)]
        @bind.return)
    (yield [(identifier) (attribute) (call) (list) (tuple)] @bind.return)
    (for_statement left: [(identifier) (pattern_list) (tuple_pattern)]
                   right: [(identifier) (attribute) (call)]) @bind.for
    (as_pattern alias: (as_pattern_target (identifier))) @bind.as
    (default_parameter value: [(identifier) (attribute)]) @bind.default
    (typed_default_parameter value: [(identifier) (attribute)]) @bind.default
    (raise_statement (identifier) @call.raise)
    (call function: (call function: [(identifier) (attribute)] @call.result))
    """,
)
# A called attribute written as plain dotted names (``self.rows.append``): its receiver
# and name are read off its text. The literals parse as other nodes than names.
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_NOT_RECEIVERS = ("None.", "True.", "False.")
_LOCAL = threading.local()
_MAX_SYNTAX_REPORTS = 3
# First bytes of a string literal: a quote or a prefix letter (a keyword may start so too).
_STRING_STARTS = frozenset(bytes([c]) for c in b"\"'rRuUbBfF")
# Line breaks of str.splitlines other than "\n" (in ASCII text).
_OTHER_BREAKS = "\r\v\f\x1c\x1d\x1e"
_TOP_LEVEL_DEF = re.compile(r"(?:async[ \t]+def|def|class)\b")
# The margin of each line holding more than spaces and tabs; lines of only spaces and tabs.
_INDENTS = re.compile(r"^([ \t]*)(?=[^ \t\n])", re.MULTILINE)
_BLANK_LINE = re.compile(r"^[ \t]+$", re.MULTILINE)
# Compiled once per margin width: the widths met in real code are few.
_SHORT_OF: dict[int, re.Pattern[str]] = {}
_CUT: dict[int, re.Pattern[str]] = {}


def _parser() -> Parser:
    parser: Parser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = Parser(_LANGUAGE)
        _LOCAL.parser = parser
    return parser


def parse_only(text: str) -> bool:
    """Parse ``text`` with tree-sitter and nothing else; return whether it had errors.

    Used by benchmarks as the reference cost of reading a file.
    """
    return bool(_parser().parse(text.encode("utf-8", "surrogatepass")).root_node.has_error)


@dataclass(slots=True)
class _Scope:
    start: int
    end: int
    name: str
    node: Node
    is_class: bool
    parent: _Scope | None = None
    qualname: str = ""
    calls: list[CallSite] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    uses: list[ValueUse] = field(default_factory=list)
    bindings: list[Binding] = field(default_factory=list)
    returns: list[Ref] = field(default_factory=list)
    decorators: list[str] = field(default_factory=list)
    arguments: list[Argument] = field(default_factory=list)


def extract_module(path: str, text: str, *, module: str | None = None) -> ModuleExtract:
    """Extract the definitions, classes, calls and imports of one Python file.

    Parameters
    ----------
    path
        The file's path relative to the build root (``pkg/mod.py``).
    text
        The decoded source text.
    module
        The dotted module name; by default derived from ``path``.

    Returns
    -------
    ModuleExtract
        Function, method and module-body definitions with their calls; a file
        with syntax errors is read as far as tree-sitter recovers, and the
        error is reported in ``problems`` with its line.

    Raises
    ------
    InvalidArgumentError
        If ``path`` is empty or ``text`` is not a string.
    """
    if not path:
        raise InvalidArgumentError("extract_module needs a non-empty path")
    if not isinstance(text, str):
        raise InvalidArgumentError(f"source text of {path!r} must be str, got {type(text)}")
    return _Extractor(path, text, module if module is not None else module_name(path)).run()


class _Extractor:
    def __init__(self, path: str, text: str, module: str) -> None:
        self.path = path
        self.text = text
        self.src = text.encode("utf-8", "surrogatepass")
        # Byte offsets are character offsets in ASCII text: slice the str, decode nothing.
        self.ascii = len(self.src) == len(text)
        self.module = module
        self.is_package = path.rsplit("/", 1)[-1] == "__init__.py"
        self.has_error = True  # until a parse says otherwise: the careful paths
        self._lines: list[str] | None = None
        # Whether lines end with "\n" only, and characters are bytes: found when needed.
        self._plain_lines: bool | None = None

    def run(self) -> ModuleExtract:
        root = _parser().parse(self.src).root_node
        self.has_error = root.has_error
        if not self.has_error:
            return self._extract(root)
        # Error recovery can swallow the definitions after a broken one; reading
        # each top-level definition on its own keeps them.
        whole = self._extract(root)
        pieces = self._extract_chunks()
        if len(pieces.definitions) > len(whole.definitions):
            return replace(pieces, problems=whole.problems)
        return whole

    def _extract_chunks(self) -> ModuleExtract:
        lines = self.text.splitlines(keepends=True)
        starts = [0]
        for number, line in enumerate(lines):
            if number and _TOP_LEVEL_DEF.match(line):
                start = number
                while start > starts[-1] + 1 and lines[start - 1].lstrip().startswith(("@", "#")) \
                        and not lines[start - 1][:1].isspace():
                    start -= 1
                if start > starts[-1]:
                    starts.append(start)
        starts.append(len(lines))
        definitions: list[Definition] = []
        classes: list[ClassInfo] = []
        imports: list[ImportBinding] = []
        body: list[Definition] = []
        for begin, end in zip(starts, starts[1:], strict=False):
            chunk = "\n" * begin + "".join(lines[begin:end])
            part = _Extractor(self.path, chunk, self.module)
            found = part._extract(_parser().parse(part.src).root_node)
            body.extend(d for d in found.definitions if d.kind == "module")
            definitions.extend(d for d in found.definitions if d.kind != "module")
            classes.extend(found.classes)
            imports.extend(found.imports)
        if body:
            last = max(d.span.end_line for d in body)
            definitions.insert(0, replace(
                body[0], code="\n".join(d.code for d in body),
                calls=tuple(c for d in body for c in d.calls),
                uses=tuple(u for d in body for u in d.uses),
                bindings=tuple(b for d in body for b in d.bindings),
                returns=tuple(r for d in body for r in d.returns),
                arguments=tuple(a for d in body for a in d.arguments),
                span=SourceSpan(self.path, 1, last)))
        return ModuleExtract(self.path, self.module, self.is_package, tuple(definitions),
                             tuple(classes), tuple(imports))

    def _extract(self, root: Node) -> ModuleExtract:
        captures = QueryCursor(_QUERY).captures(root)
        scopes = self._scopes(captures, "def", False) + self._scopes(captures, "class", True)
        scopes.sort(key=lambda s: (s.start, -s.end))
        self._nest(scopes)
        text, ascii_text, string = self.text, self.ascii, self._str
        # (start, end, kind, payload): sorted by where they start, then end, so that of
        # two calls starting together (``f().g()``) the inner one comes first.
        items: list[tuple[int, int, str, object]] = []
        add = items.append
        # Each call by where its function ends: a name passed to it finds it so (calls
        # chained as ``f(x).g()`` start together, but their functions end apart).
        calls_at: dict[int, CallSite] = {}
        for node in captures.get("call.plain", ()):
            start, end = node.start_byte, node.end_byte
            name = text[start:end] if ascii_text else string(node)
            call = calls_at[end] = CallSite("plain", name, None, node.start_point[0] + 1)
            add((start, end, "call", call))
        for node in captures.get("call.attr", ()):
            call = calls_at[node.end_byte] = self._attribute_call(node)
            add((node.start_byte, node.end_byte, "call", call))
        for node in captures.get("call.deco", ()):
            deco = self._named_call(node)
            if deco is not None:
                add((node.start_byte, node.end_byte, "call", deco))
                for at, what, fact in self._decorated(node, deco):
                    add((at, at, what, fact))
        for node in captures.get("call.raise", ()):
            name = self._str(node)
            if name[:1].isupper():  # ``raise E`` makes an E; a lower-case name holds one
                add((node.start_byte, node.end_byte, "call",
                     CallSite("plain", name, None, node.start_point[0] + 1)))
        for node in captures.get("call.result", ()):
            dotted = self._dotted(node)
            if dotted is not None:
                add((node.start_byte, node.end_byte, "call",
                     CallSite("result", dotted, None, node.start_point[0] + 1)))
        for node in captures.get("call.sub", ()):
            dotted = self._dotted(node)
            if dotted is not None:
                add((node.start_byte, node.end_byte, "call",
                     CallSite("subscript", dotted, None, node.start_point[0] + 1)))
        for node in captures.get("bind.return", ()):
            for ref, _ in self._given(node):
                add((node.start_byte, node.end_byte, "return", ref))
        for kind in ("bind", "bind.for", "bind.as", "bind.default"):
            for node in captures.get(kind, ()):
                for binding in self._bindings(node, kind):
                    add((node.start_byte, node.end_byte, "bind", binding))
        for node in captures.get("use.args", ()):
            if node.named_child_count:
                start, end = node.start_byte, node.end_byte
                for what, payload in self._arguments(node, calls_at):
                    add((start, end, what, payload))
        for node in captures.get("key", ()):
            add((node.start_byte, node.end_byte, "key", string(node)))
        for nodes in (captures.get("use", ()), _named_items(captures.get("use.items", ()))):
            for node in nodes:
                site = self._named_call(node)
                if site is not None:
                    add((node.start_byte, node.end_byte, "use", ValueUse(site)))
        for node in captures.get("import", ()):
            add((node.start_byte, node.end_byte, "import", node))
        items.sort(key=_START_END)
        imports = self._assign(scopes, items)
        definitions = [self._definition(s) for s in scopes if not s.is_class]
        module_def = self._module_definition(root, self._module_scope)
        if module_def is not None:
            definitions.insert(0, module_def)
        classes = [
            ClassInfo(s.qualname, s.name, self._bases(s.node)) for s in scopes if s.is_class
        ]
        problems = self._syntax_problems(root) if root.has_error else []
        return ModuleExtract(self.path, self.module, self.is_package, tuple(definitions),
                             tuple(classes), tuple(imports), tuple(problems))

    def _scopes(self, captures: dict[str, list[Node]], kind: str, is_class: bool) -> list[_Scope]:
        """The scopes of the definitions captured as ``kind``, paired with their names."""
        # Captures are not in source order; a definition's name comes before anything
        # nested in it, so the definitions and the names sort alike.
        nodes = sorted(captures.get(kind, ()), key=_start_byte)
        names = sorted(captures.get(kind + ".name", ()), key=_start_byte)
        string = self._str
        return [_Scope(node.start_byte, node.end_byte, string(name), node, is_class)
                for node, name in zip(nodes, names, strict=True)]

    # -- structure -------------------------------------------------------------

    def _nest(self, scopes: list[_Scope]) -> None:
        stack: list[_Scope] = []
        for scope in scopes:
            while stack and stack[-1].end <= scope.start:
                stack.pop()
            scope.parent = stack[-1] if stack else None
            prefix = scope.parent.qualname if scope.parent else self.module
            scope.qualname = f"{prefix}.{scope.name}" if prefix else scope.name
            stack.append(scope)

    def _assign(
        self, scopes: list[_Scope], items: list[tuple[int, int, str, object]]
    ) -> list[ImportBinding]:
        """Give each item (sorted) to its innermost enclosing function; return the imports."""
        self._module_scope = _Scope(0, len(self.src), self.module, None, False)  # type: ignore[arg-type]
        self._module_scope.qualname = self.module
        functions = [s for s in scopes if not s.is_class]
        stack: list[_Scope] = []
        index = 0
        imports: list[ImportBinding] = []
        for pos, _, what, payload in items:
            while stack and stack[-1].end <= pos:
                stack.pop()
            while index < len(functions) and functions[index].start <= pos:
                scope = functions[index]
                index += 1
                while stack and stack[-1].end <= scope.start:
                    stack.pop()
                if scope.end > pos:
                    stack.append(scope)
            owner = stack[-1] if stack else self._module_scope
            if what == "call":
                owner.calls.append(payload)  # type: ignore[arg-type]
            elif what == "key":
                owner.keys.append(payload)  # type: ignore[arg-type]
            elif what == "use":
                owner.uses.append(payload)  # type: ignore[arg-type]
            elif what == "bind":
                owner.bindings.append(payload)  # type: ignore[arg-type]
            elif what == "return":
                owner.returns.append(payload)  # type: ignore[arg-type]
            elif what == "arg":
                owner.arguments.append(payload)  # type: ignore[arg-type]
            elif what == "decorator":
                owner.decorators.append(payload)  # type: ignore[arg-type]
            else:
                imports.extend(self._imports(payload, owner.qualname))  # type: ignore[arg-type]
        return imports

    # -- records ---------------------------------------------------------------

    def _definition(self, scope: _Scope) -> Definition:
        node = scope.node
        parent = node.parent
        outer = parent if parent is not None and parent.type == "decorated_definition" else node
        first_row, column = outer.start_point
        code = _dedent_at(self._str(outer), column)
        body = node.child_by_field_name("body")
        enclosing = scope.parent.qualname if scope.parent and scope.parent.is_class else None
        kind: FunctionKind = "method" if enclosing else "function"
        parameters = self._params(node.child_by_field_name("parameters"))
        uses, bindings = _kept(scope, tuple([p.name for p in parameters]))
        return Definition(
            qualname=scope.qualname,
            name=scope.name,
            kind=kind,
            code=code,
            span=SourceSpan(self.path, first_row + 1, node.end_point[0] + 1),
            docstring=self._docstring(body),
            comment=self._comment_above(first_row, outer.start_byte - column),
            parameters=parameters,
            calls=tuple(scope.calls),
            subscript_keys=tuple(dict.fromkeys(scope.keys)),
            uses=uses,
            bindings=bindings,
            returns=tuple(scope.returns),
            decorators=tuple(scope.decorators),
            arguments=tuple(scope.arguments),
            enclosing_class=enclosing,
            is_async=self._is_async(node),
        )

    def _module_definition(self, root: Node, scope: _Scope) -> Definition | None:
        statements: list[str] = []
        has_code = False
        docstring = None
        for index, child in enumerate(root.named_children):
            kind = child.type
            if kind == "comment":
                continue
            if index == 0 and kind == "expression_statement" and _is_string_stmt(child):
                docstring = _clean_docstring(self._str(child.named_child(0)))
                continue
            if kind in ("function_definition", "class_definition", "decorated_definition"):
                continue
            if kind not in ("import_statement", "import_from_statement",
                            "future_import_statement"):
                has_code = True
            statements.append(self._code(child))
        if not has_code and not scope.calls:
            return None
        last_line = root.end_point[0] + (1 if root.end_point[1] else 0)
        name = self.module.rsplit(".", 1)[-1] or self.path
        return Definition(
            qualname=self.module,
            name=name,
            kind="module",
            code="\n".join(statements),
            span=SourceSpan(self.path, 1, max(1, last_line)),
            docstring=docstring,
            calls=tuple(scope.calls),
            subscript_keys=tuple(dict.fromkeys(scope.keys)),
            uses=_kept(scope, (), local=False)[0],
            bindings=tuple(scope.bindings),
            returns=tuple(scope.returns),
            arguments=tuple(scope.arguments),
        )

    def _dotted(self, node: Node) -> str | None:
        """The text of a name or a dotted name (``a.b.c``); None for other expressions."""
        if node.type == "identifier":
            return self._str(node)
        if node.type != "attribute":
            return None
        text = self._str(node)
        if _DOTTED.fullmatch(text):
            return text
        parts = [p.strip() for p in text.split(".")]
        return ".".join(parts) if all(map(str.isidentifier, parts)) else None

    def _named_call(self, node: Node) -> CallSite | None:
        """A name or dotted name called (a decorator), as a call site."""
        if node.type == "identifier":
            return CallSite("plain", self._str(node), None, node.start_point[0] + 1)
        site = self._attribute_call(node)
        return site if site.receiver is not None else None

    def _bindings(self, node: Node, kind: str) -> list[Binding]:
        """What an assignment, a ``for`` loop, an ``as`` name or a parameter's default
        (``kind``, the capture's) gives which name."""
        if kind == "bind.as":
            alias = node.child_by_field_name("alias")
            value = node.named_children[0] if node.named_child_count else None
            target = self._str(alias.named_children[0]) if alias is not None \
                and alias.named_child_count else None
            if target is None or value is None:
                return []
            if value.type == "call":  # ``with A() as a``: a is what A() made (or returns)
                return self._holding(target, value)
            # ``except (E, F) as e``: e is an E or an F
            classes = value.named_children if value.type == "tuple" else [value]
            return [Binding(target, Ref(dotted, called=True), BindingKind.ASSIGNED)
                    for dotted in map(self._dotted, classes) if dotted is not None]
        if kind == "bind.default":
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            return [] if name is None or value is None else self._bound(self._str(name), value)
        left = node.child_by_field_name("left")
        value = node.child_by_field_name("right")
        while value is not None and value.type == "assignment":  # ``a = b = f``
            value = value.child_by_field_name("right")
        if left is None or value is None:
            return []
        if kind == "bind.for":  # each item of a container, or what a generator yields
            return [b for target in self._targets(left) for b in self._holding(target, value)]
        if left.type == "subscript":  # ``d[k] = f``: d holds f
            held = left.child_by_field_name("value")
            target = self._dotted(held) if held is not None else None
            return [] if target is None else self._bound(target, value)
        if left.type in ("pattern_list", "tuple_pattern"):
            return self._unpacked(left, value)
        target = self._dotted(left)
        return [] if target is None else self._bound(target, value)

    def _bound(self, target: str, value: Node) -> list[Binding]:
        """The bindings of ``target`` to the expression ``value`` by an assignment."""
        return [Binding(target, ref, kind) for ref, kind in self._given(value)]

    def _holding(self, target: str, value: Node) -> list[Binding]:
        """``target`` holds what ``value`` gives, not assigned: ``with A() as a``."""
        return [Binding(target, ref) for ref, _ in self._given(value)]

    def _targets(self, left: Node) -> list[str]:
        """The names a ``for`` loop's or an assignment's target binds (``x`` or ``a, *b``)."""
        if left.type in ("identifier", "attribute"):
            dotted = self._dotted(left)
            return [] if dotted is None else [dotted]
        found: list[str] = []
        for child in left.named_children:
            if child.type == "list_splat_pattern" and child.named_child_count:
                child = child.named_children[0]
            dotted = self._dotted(child)
            if dotted is not None:
                found.append(dotted)
        return found

    def _unpacked(self, left: Node, value: Node) -> list[Binding]:
        """``a, *b = f, g, h``: item by item when the right side is written out (a starred
        target takes the rest); otherwise each target may hold any item."""
        targets = left.named_children
        if value.type not in ("expression_list", "tuple", "list") or any(
                c.type in ("list_splat", "parenthesized_list_splat") for c in value.named_children):
            return [b for target in self._targets(left) for b in self._bound(target, value)]
        items = value.named_children
        found: list[Binding] = []
        for index, target in enumerate(targets):
            starred = target.type == "list_splat_pattern"
            if starred and target.named_child_count:
                target = target.named_children[0]
            name = self._dotted(target)
            if name is None:
                continue
            rest = len(targets) - index - 1
            for item in items[index:len(items) - rest] if starred else items[index:index + 1]:
                found.extend(self._bound(name, item))
        return found

    def _given(self, value: Node) -> list[tuple[Ref, BindingKind]]:
        """What the expression ``value`` gives: a name, what a named call returns (an
        assignment of it), what a container holds."""
        kind = value.type
        if kind == "call":
            function = value.child_by_field_name("function")
            callee = self._dotted(function) if function is not None else None
            if callee is None:
                return []
            if callee in _ITEM_OF:  # ``next(it)``, ``list(xs)``: items of it
                args = value.child_by_field_name("arguments")
                first = args.named_children[0] if args is not None \
                    and args.named_child_count else None
                item = self._dotted(first) if first is not None else None
                return [] if item is None else [(Ref(item), BindingKind.HOLDS)]
            return [(Ref(callee, called=True), BindingKind.ASSIGNED)]
        if kind in ("identifier", "attribute"):
            dotted = self._dotted(value)
            return [] if dotted is None else [(Ref(dotted), BindingKind.HOLDS)]
        if kind == "subscript":  # an item of a container holds what the container holds
            container = value.child_by_field_name("value")
            dotted = self._dotted(container) if container is not None else None
            return [] if dotted is None else [(Ref(dotted), BindingKind.HOLDS)]
        found: list[tuple[Ref, BindingKind]] = []
        if kind not in _CONTAINERS:
            return found
        for child in value.named_children:  # a container: the names it holds
            held = child.child_by_field_name("value") if child.type == "pair" else child
            dotted = self._dotted(held) if held is not None else None
            if dotted is not None:
                found.append((Ref(dotted), BindingKind.HOLDS))
        return found

    def _arguments(self, arguments: Node, calls_at: dict[int, CallSite]
                   ) -> list[tuple[str, ValueUse | Binding | Argument]]:
        """What a call's ``arguments`` pass: each name as a value use of the call, and
        each name, container of names or named call's result as an :class:`Argument`;
        a name added to a container (``xs.append(f)``) is held by it. ``calls_at``: the
        calls by where their function ends."""
        call = calls_at.get(arguments.start_byte)
        if call is None:  # a space before the parenthesis, or a call of no name
            parent = arguments.parent
            function = parent.child_by_field_name("function") if parent is not None else None
            call = calls_at.get(function.end_byte) if function is not None else None
        told = call is not None and call.kind != "super" and _may_call(call)
        holder = call.receiver if told and call is not None and call.name in _ADDERS else None
        found: list[tuple[str, ValueUse | Binding | Argument]] = []
        position: int | None = 0
        for child in arguments.named_children:
            kind = child.type
            slot: int | str | None
            if kind == "keyword_argument":
                value = child.child_by_field_name("value")
                name = child.child_by_field_name("name")
                slot = self._str(name) if name is not None else None
            elif kind in ("list_splat", "dictionary_splat"):
                position = None  # later positions are not known
                continue
            else:
                value, slot = child, position
                if position is not None:
                    position += 1
            if value is None:
                continue
            if value.type in _NAMES:
                site = self._named_call(value)
                if site is None:
                    continue
                found.append(("use", ValueUse(site, call)))
                refs = [Ref(site.callee)]
            elif not told or slot is None:
                continue
            else:
                refs = self._passed(value)
            if not told or slot is None or call is None:
                continue
            for ref in refs:
                if holder is not None:  # a list's, or a method of the sources: both kept
                    found.append(("bind", Binding(holder.name, ref)))
                found.append(("arg", Argument(call, slot, ref)))
        return found

    def _passed(self, value: Node) -> list[Ref]:
        """What an argument passes: a name, the items of a container written out, or what a
        named function returns (``A()``)."""
        kind = value.type
        if kind in _NAMES:
            dotted = self._dotted(value)
            return [] if dotted is None else [Ref(dotted)]
        if kind == "call":
            function = value.child_by_field_name("function")
            dotted = self._dotted(function) if function is not None else None
            return [] if dotted is None or dotted in _TAKES_NO_FUNCTION else [
                Ref(dotted, called=True)]
        if kind in _CONTAINERS:
            return [ref for ref, _ in self._given(value)]
        return []

    def _decorated(self, node: Node, site: CallSite) -> list[tuple[int, str, object]]:
        """A decorator ``node`` (a name, called at ``site``) of a function: the function
        passed to it, where it is written, and the decorator noted in the function."""
        decorator = node.parent
        decorated = decorator.parent if decorator is not None else None
        definition = decorated.child_by_field_name("definition") \
            if decorated is not None and decorated.type == "decorated_definition" else None
        name = definition.child_by_field_name("name") if definition is not None else None
        dotted = self._dotted(node)
        if definition is None or name is None or dotted is None \
                or definition.type != "function_definition":
            return []
        # The function as the enclosing scope names it: through the classes around it.
        path = [self._str(name)]
        holder = decorated.parent if decorated is not None else None
        while holder is not None and holder.type not in ("function_definition", "module"):
            if holder.type == "class_definition":
                path.insert(0, self._str(holder.child_by_field_name("name")))
            holder = holder.parent
        return [(node.start_byte, "arg", Argument(site, 0, Ref(".".join(path)))),
                (definition.start_byte + 1, "decorator", dotted)]

    def _attribute_call(self, function: Node) -> CallSite:
        """The call site of a called attribute, ``function``."""
        if self.ascii and not self.has_error:
            dotted = self.text[function.start_byte : function.end_byte]
            if _DOTTED.fullmatch(dotted) and not dotted.startswith(_NOT_RECEIVERS):
                receiver, _, name = dotted.rpartition(".")
                return CallSite("attribute", name, Ref(receiver), function.start_point[0] + 1)
        obj = function.child_by_field_name("object")
        attr = function.child_by_field_name("attribute")
        line = attr.start_point[0] + 1 if attr is not None else function.start_point[0] + 1
        name = self._str(attr)
        kind = obj.type if obj is not None else ""
        if kind == "call":
            assert obj is not None
            func = obj.child_by_field_name("function")
            if func is not None and func.type == "identifier" and self._str(func) == "super":
                return CallSite("super", name, None, line)
            made = self._dotted(func) if func is not None else None  # ``A().m()``
            return CallSite("attribute", name, None if made is None else Ref(made, called=True),
                            line)
        if kind == "identifier" or kind == "attribute":
            receiver = self._str(obj)
            if all(map(str.isidentifier, receiver.split("."))):
                return CallSite("attribute", name, Ref(receiver), line)
        return CallSite("attribute", name, None, line)

    def _imports(self, node: Node, scope: str) -> list[ImportBinding]:
        found: list[ImportBinding] = []
        if node.type == "import_statement":
            for child in node.children_by_field_name("name"):
                if child.type == "aliased_import":
                    target = self._str(child.child_by_field_name("name"))
                    alias = self._str(child.child_by_field_name("alias"))
                    found.append(ImportBinding(scope, alias, target))
                else:
                    dotted = self._str(child)
                    found.append(ImportBinding(scope, dotted.split(".")[0], dotted.split(".")[0]))
                    if "." in dotted:
                        found.append(ImportBinding(scope, dotted, dotted))
            return found
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return found
        base = self._absolute(self._str(module_node))
        if base is None:
            return found
        if any(c.type == "wildcard_import" for c in node.children):
            return [ImportBinding(scope, "*", base)]
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name = self._str(child.child_by_field_name("name"))
                alias = self._str(child.child_by_field_name("alias"))
            else:
                name = alias = self._str(child)
            target = f"{base}.{name}" if base else name
            found.append(ImportBinding(scope, alias, target))
        return found

    def _absolute(self, module_text: str) -> str | None:
        level = len(module_text) - len(module_text.lstrip("."))
        rest = module_text[level:].strip()
        if level == 0:
            return rest
        package = self.module.split(".") if self.is_package else self.module.split(".")[:-1]
        if level - 1 > len(package):
            return None
        package = package[: len(package) - (level - 1)]
        return ".".join([*package, rest] if rest else package)

    def _bases(self, node: Node) -> tuple[str, ...]:
        supers = node.child_by_field_name("superclasses")
        if supers is None:
            return ()
        return tuple(
            self._str(c) for c in supers.named_children if c.type in ("identifier", "attribute")
        )

    def _params(self, node: Node | None) -> tuple[Parameter, ...]:
        """The parameters of a signature's ``parameters`` node, with their kinds."""
        if node is None:
            return ()
        found: list[Parameter] = []
        kind = ParameterKind.POSITIONAL
        for child in node.named_children:
            what = child.type
            if what == "positional_separator":  # ``/``: those before are positional only
                found = [Parameter(p.name, ParameterKind.POSITIONAL_ONLY, p.default)
                         for p in found]
                continue
            if what == "keyword_separator":  # ``*``: those after are keyword only
                kind = ParameterKind.KEYWORD_ONLY
                continue
            if what == "typed_parameter" and child.named_child_count:
                inner = child.named_children[0]  # ``*args: int``, ``**kw: str``
                if inner.type in _SPLATS:
                    what, child = inner.type, inner
            parameter = self._parameter(child, what, kind)
            if parameter is not None:
                found.append(parameter)
                if parameter.kind is ParameterKind.VAR_POSITIONAL:
                    kind = ParameterKind.KEYWORD_ONLY
        return tuple(found)

    def _parameter(self, node: Node, what: str, kind: ParameterKind) -> Parameter | None:
        """One parameter node of type ``what``, in a part of the signature of ``kind``."""
        if what in _SPLATS:
            kind = _SPLATS[what]
        named = node if what == "identifier" else node.child_by_field_name("name")
        if named is None:
            named = next((c for c in node.named_children if c.type == "identifier"), None)
        if named is None or named.type != "identifier":
            return None
        return Parameter(self._str(named), kind,
                         what in ("default_parameter", "typed_default_parameter"))

    def _is_async(self, node: Node) -> bool:
        if not self.has_error:  # the definition's first token is ``async`` or ``def``
            return self.src.startswith(b"async", node.start_byte)
        # The keyword is the first child (or the second, after what error recovery kept).
        for index in range(min(2, node.child_count)):
            child = node.child(index)
            if child is not None and child.type == "async":
                return True
        return False

    def _docstring(self, body: Node | None) -> str | None:
        if body is None:
            return None
        # Most bodies do not open with a string literal: tell from its first byte.
        if not self.has_error and self.src[body.start_byte : body.start_byte + 1] \
                not in _STRING_STARTS:
            return None
        if not body.named_child_count:
            return None
        first = body.named_child(0)
        if first is not None and first.type == "expression_statement" and _is_string_stmt(first):
            return _clean_docstring(self._str(first.named_child(0)))
        return None

    def _comment_above(self, row: int, line_start: int) -> str | None:
        """The comment lines right above line ``row``, which starts at byte ``line_start``."""
        if self._plain_lines is None:
            text = self.text
            self._plain_lines = self.ascii and not any(c in text for c in _OTHER_BREAKS)
        if self._plain_lines:
            # Most definitions have no comment above: the line above tells.
            if not line_start:
                return None
            above = self.text.rfind("\n", 0, line_start - 1) + 1
            if not self.text[above : line_start - 1].lstrip().startswith("#"):
                return None
        if self._lines is None:
            self._lines = self.text.splitlines()
        if not 0 < row <= len(self._lines) or not self._lines[row - 1].lstrip().startswith("#"):
            return None
        lines: list[str] = []
        index = row - 1
        while index >= 0 and index < len(self._lines):
            stripped = self._lines[index].strip()
            if not stripped.startswith("#") or stripped.startswith("#!"):
                break
            lines.append(stripped.lstrip("#").strip())
            index -= 1
        text = "\n".join(reversed(lines)).strip()
        return text or None

    def _syntax_problems(self, root: Node) -> list[Problem]:
        errors: list[Node] = []
        stack = [root]
        while stack and len(errors) < _MAX_SYNTAX_REPORTS:
            node = stack.pop()
            if node.type == "ERROR" or node.is_missing:
                errors.append(node)
                continue
            stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
        if not errors:
            return []
        first = errors[0]
        what = f"missing {first.type}" if first.is_missing else "invalid syntax"
        return [Problem(self.path, f"syntax error: {what}; read as far as the parser could",
                        kind="syntax", line=first.start_point[0] + 1)]

    # -- text ------------------------------------------------------------------

    def _str(self, node: Node | None) -> str:
        if node is None:
            return ""
        if self.ascii:
            return self.text[node.start_byte : node.end_byte]
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _str_range(self, start: int, end: int) -> str:
        if self.ascii:
            return self.text[start:end]
        return self.src[start:end].decode("utf-8", "replace")

    def _code(self, node: Node) -> str:
        return _dedent_at(self._str(node), node.start_point[1])


def _kept(scope: _Scope, params: tuple[str, ...], *, local: bool = True
          ) -> tuple[tuple[ValueUse, ...], tuple[Binding, ...]]:
    """The value uses and bindings of ``scope`` that can tell anything.

    A name that is a parameter or is assigned in the scope is a local variable:
    its uses are no function of the sources by scoping. A local (``local``) name's
    binding is kept only when the scope calls it, calls through it, returns it or
    passes it, or is given something so.
    """
    assigned = {b.target for b in scope.bindings}
    locals_ = assigned.union(params)
    uses = tuple([u for u in scope.uses
                  if u.site.kind != "plain" or u.site.name not in locals_])
    if not local:
        return uses, tuple(scope.bindings)
    used = {r.name.partition(".")[0] for r in scope.returns}
    for call in scope.calls:
        used.add(call.name if call.receiver is None else call.receiver.name.partition(".")[0])
    bindings = scope.bindings
    keep = [False] * len(bindings)
    more = [i for i, b in enumerate(bindings) if b.target in used or "." in b.target]
    while more:  # what a kept binding is given is used too
        for i in more:
            keep[i] = True
            used.add(bindings[i].value.name.partition(".")[0])
        more = [i for i, b in enumerate(bindings) if not keep[i] and b.target in used]
    # A name given another name and passed on (``h = fee; apply(h)``); not what a call
    # returns, which would name the callee's output (tag inference reads those).
    passed = {a.value.name.partition(".")[0] for a in scope.arguments}
    return uses, tuple([b for b, k in zip(bindings, keep, strict=True)
                        if k or b.kind is BindingKind.HOLDS and b.target in passed])


def _may_call(call: CallSite) -> bool:
    """Whether what is passed to ``call`` may be called by it: not a builtin known never
    to call its arguments, nor a method of a builtin type (but for those adding to a
    container), nor a method of an unknown receiver."""
    if call.kind != "plain":
        return call.receiver is not None and call.name not in _BUILTIN_METHODS
    return call.name not in _TAKES_NO_FUNCTION


def _start_byte(node: Node) -> int:
    return node.start_byte


# Containers and argument lists are captured whole and their names picked here: a query
# pattern with a child inside them keeps a state open per enclosing container, which
# made deeply nested calls or literals quadratic (10,000 nested calls took seconds).
_NAMES = ("identifier", "attribute")
_SPLATS = {"list_splat_pattern": ParameterKind.VAR_POSITIONAL,
           "dictionary_splat_pattern": ParameterKind.VAR_KEYWORD}
_CONTAINERS = frozenset({"list", "tuple", "set", "dictionary", "expression_list"})
# Calls whose result is an item of their first argument.
_ITEM_OF = frozenset({"next", "iter", "reversed", "list", "tuple", "set", "frozenset",
                      "sorted", "enumerate"})
# Methods that add their arguments to the container they are called on.
_ADDERS = frozenset({"append", "add", "insert", "appendleft", "setdefault", "put", "extend",
                     "update"})
_START_END = itemgetter(0, 1)
# Methods of builtin types: the calls of them are too many to tell a parameter anything,
# but for those that add to a container.
_BUILTIN_METHODS = frozenset(
    name for kind in (str, bytes, list, dict, set) for name in dir(kind)) - _ADDERS
# Builtins that never call what they are given: what is passed to them tells nothing.
_TAKES_NO_FUNCTION = frozenset({
    "isinstance", "issubclass", "len", "print", "str", "int", "float", "bool", "repr",
    "getattr", "hasattr", "setattr", "delattr", "type", "id", "hash", "super", "format",
    "range", "open", "vars", "callable", "list", "tuple", "set", "frozenset", "dict",
    "next", "iter", "reversed", "enumerate", "zip", "bytes", "ord", "chr", "abs"})


def _named_items(containers: Iterable[Node]) -> Iterator[Node]:
    """The names that are direct items of list, tuple and set literals."""
    for container in containers:
        for child in container.named_children:
            if child.type in _NAMES:
                yield child


def _is_string_stmt(node: Node) -> bool:
    if node.named_child_count != 1:
        return False
    only = node.named_child(0)
    return only is not None and only.type in ("string", "concatenated_string")


def _clean_docstring(literal: str) -> str | None:
    text = literal
    for prefix_len in range(0, 3):
        if text[prefix_len : prefix_len + 1] in ('"', "'"):
            text = text[prefix_len:]
            break
    for quote in ('"""', "'''", '"', "'"):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            text = text[len(quote) : -len(quote)]
            break
    # After _indent_rest no margin is common to all lines and no line is only
    # spaces: dedenting again would change nothing.
    cleaned = _indent_rest(text).strip()
    return cleaned or None


def _indent_rest(text: str) -> str:
    # A docstring's first line has no indentation of its own; inspect.cleandoc's rule.
    lines = text.expandtabs().splitlines()
    if len(lines) <= 1:
        return text.strip()
    # _dedent of the other lines, line by line: a docstring has few lines, and three
    # regex passes over them cost more. Without tabs a margin is spaces only.
    rest = lines[1:]
    margin = min((len(line) - len(line.lstrip(" ")) for line in rest if line.strip(" ")),
                 default=0)
    return lines[0].strip() + "\n" + "\n".join(
        [line[margin:] if line.strip(" ") else "" for line in rest])


def _dedent_at(text: str, column: int) -> str:
    """The code of a node cut out at ``column`` of its first line, dedented, blank-trimmed.

    The same as ``_dedent(" " * column + text).strip("\\n")`` (for one line,
    without the margin), but when every line of the node keeps the margin of its
    first line, as the lines of a definition nearly always do, the margin is
    removed with one ``str.replace`` after one regex scan that finds no line
    short of it.
    """
    if not text or text[0] in " \t\n":
        return _dedent(" " * column + text if "\n" in text else text).strip("\n")
    if "\n" not in text:  # one line, starting with code: nothing to dedent or trim
        return text
    if column:
        if _short_of(column).search(text):
            return _dedent(" " * column + text).strip("\n")
        text = text.replace("\n" + " " * column, "\n")
    if " \n" in text or "\t\n" in text or text[-1] in " \t":
        text = _BLANK_LINE.sub("", text)
    return text.strip("\n")


def _short_of(column: int) -> re.Pattern[str]:
    """A line that is not blank and does not start with ``column`` spaces."""
    pattern = _SHORT_OF.get(column)
    if pattern is None:
        pattern = _SHORT_OF[column] = re.compile(f"\n(?! {{{column}}})(?![ \t]*(?:\n|\\Z))")
    return pattern


def _cut(width: int) -> re.Pattern[str]:
    """The first ``width`` spaces or tabs of every line."""
    pattern = _CUT.get(width)
    if pattern is None:
        pattern = _CUT[width] = re.compile(f"^[ \t]{{{width}}}", re.MULTILINE)
    return pattern


def _dedent(text: str) -> str:
    """:func:`textwrap.dedent`, in linear time, with the line work done by regexes in C.

    textwrap compiles a regular expression of the common margin on every call,
    which costs seconds per call on the margins of deeply nested code. Lines
    of spaces and tabs only are emptied and do not count towards the margin.
    """
    indents = _INDENTS.findall(text)
    text = _BLANK_LINE.sub("", text)
    if not indents:
        return text
    cut = _common_length(indents)
    if not cut:
        return text
    return _cut(cut).sub("", text)


def _common_length(strings: list[str]) -> int:
    """The length of the longest common prefix of ``strings`` (not empty).

    :func:`os.path.commonprefix` without its ``os.fspath`` call per string,
    which costs more than the comparison on long docstrings.
    """
    first, last = min(strings), max(strings)
    for index, char in enumerate(first):
        if char != last[index]:
            return index
    return len(first)
