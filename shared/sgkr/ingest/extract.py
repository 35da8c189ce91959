"""Extraction of a Python file's typed facts, in one pass over its syntax tree.

One tree-sitter query (``python.scm``), run in C, captures every definition,
call, binding, import and key of a file; each capture is read as a typed fact
(:mod:`sgkr.ingest.calls`, :mod:`sgkr.ingest.values`) and given to the
innermost function around it (:mod:`sgkr.ingest.scopes`). Nothing is imported
or executed, and no code text is searched: docstrings and comments are read as
text, never as code.

Examples
--------
>>> m = extract_module("pkg/mod.py", "def f():\\n    g()\\n\\ndef g():\\n    pass\\n")
>>> [(d.qualname, [c.name for c in d.calls]) for d in m.definitions]
[('pkg.mod.f', ['g']), ('pkg.mod.g', [])]
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypedDict

from tree_sitter import Node, Range

from ..errors import InvalidArgumentError
from ..records import (
    ClassInfo,
    Definition,
    FunctionKind,
    ImportBinding,
    ModuleExtract,
    Problem,
    SourceSpan,
)
from .calls import call_facts
from .codetext import code_of, comment_above, dedent_at, docstring_of, module_docstring
from .imports import imports_of
from .scopes import Fact, Scope, kept, place, scopes_of
from .signature import parameters_of
from .sources import module_name
from .syntax import MAX_DEPTH, Source, captures_of, deeper_than, parse_only, parser, syntax_problems
from .values import value_facts

__all__ = ["extract_module", "parse_only"]

_DEFINITIONS = ("function_definition", "class_definition", "decorated_definition")
_IMPORTS = ("import_statement", "import_from_statement", "future_import_statement")
_NOT_READ = frozenset({"self", "cls"})


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
        Function, method and module-body definitions with their facts; a file
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
    source = Source(path, module if module is not None else module_name(path), text)
    root = source.parse()
    whole = _extract(source, root)
    if not source.has_error:
        return whole
    # Error recovery can swallow the definitions after a broken one; reading
    # each top-level definition on its own keeps them.
    pieces = _extract_chunks(source)
    if len(pieces.definitions) > len(whole.definitions):
        return replace(pieces, problems=whole.problems)
    return whole


def _extract(source: Source, root: Node) -> ModuleExtract:
    """The facts of a parsed file (or of the part of it ``root`` covers)."""
    captures = captures_of(root)
    scopes = scopes_of(source, captures)
    items = call_facts(source, captures)
    items += value_facts(source, captures)
    items += [(node.start_byte, node.end_byte, Fact.IMPORT, node)
              for node in captures.get("import", ())]
    body = place(source, scopes, items)
    definitions = [_definition(source, s) for s in scopes if not s.is_class]
    module_def = _module_definition(source, root, body)
    if module_def is not None:
        definitions.insert(0, module_def)
    classes = [ClassInfo(s.qualname, s.name, _bases(source, s.node)) for s in scopes
               if s.is_class and s.node is not None]
    statements = sorted(((node, s) for s in (body, *scopes) for node in s.imports),
                        key=lambda pair: pair[0].start_byte)
    imports = [b for node, s in statements for b in imports_of(source, node, s.qualname)]
    problems = syntax_problems(root, source.path) if root.has_error else []
    if root.descendant_count > MAX_DEPTH and deeper_than(root):
        problems.append(Problem(source.path, f"code nested more than {MAX_DEPTH} levels deep: "
                                "what lies deeper was not read", kind="syntax"))
    return ModuleExtract(source.path, source.module, source.is_package, tuple(definitions),
                         tuple(classes), tuple(imports), tuple(problems))


def _definition(source: Source, scope: Scope) -> Definition:
    node = scope.node
    assert node is not None
    parent = node.parent
    outer = parent if parent is not None and parent.type == "decorated_definition" else node
    first_row, column = outer.start_point
    enclosing = scope.parent.qualname if scope.parent and scope.parent.is_class else None
    kind: FunctionKind = "method" if enclosing else "function"
    parameters = parameters_of(source, node)
    names = {p.name for p in parameters}
    uses, bindings = kept(scope, names)
    return Definition(
        qualname=scope.qualname,
        name=scope.name,
        kind=kind,
        code=dedent_at(source.text_of(outer), column),
        span=SourceSpan(source.path, first_row + 1, node.end_point[0] + 1),
        docstring=docstring_of(source, node.child_by_field_name("body")),
        comment=comment_above(source, first_row, outer.start_byte - column),
        parameters=parameters,
        calls=tuple(scope.calls),
        uses=uses,
        bindings=bindings,
        changes=tuple(dict.fromkeys(scope.changes)),
        returns=tuple(scope.returns),
        decorators=tuple(scope.decorators),
        arguments=tuple(scope.arguments),
        **_tag_facts(scope, names - _NOT_READ),
        enclosing_class=enclosing,
        is_async=_is_async(source, node),
    )


class _TagFacts(TypedDict):
    results: tuple[str, ...]
    keys_read: tuple[str, ...]
    keys_written: tuple[str, ...]
    keywords: tuple[str, ...]
    strings: tuple[str, ...]
    attributes: tuple[tuple[str, str], ...]


def _tag_facts(scope: Scope, params: set[str]) -> _TagFacts:
    """The keys, keywords, strings and attributes of parameters a scope reads."""
    written = tuple(dict.fromkeys(scope.keys_written))
    return {
        "results": tuple(dict.fromkeys(scope.results)),
        "keys_read": tuple([k for k in dict.fromkeys(scope.keys_read) if k not in written]),
        "keys_written": written,
        "keywords": tuple(dict.fromkeys(scope.keywords)),
        "strings": tuple(dict.fromkeys(scope.strings)),
        "attributes": tuple(dict.fromkeys(r for r in scope.reads if r[0] in params))
        if params else (),
    }


def _module_definition(source: Source, root: Node, scope: Scope) -> Definition | None:
    """The module body (its statements but definitions), or None when it has no code."""
    statements: list[str] = []
    has_code = False
    docstring = None
    for index, child in enumerate(root.named_children):
        kind = child.type
        if kind == "comment" or kind in _DEFINITIONS:
            continue
        if index == 0:
            found = module_docstring(source, child)
            if found is not None:
                docstring = found or None
                continue
        if kind not in _IMPORTS:
            has_code = True
        statements.append(code_of(source, child))
    if not has_code and not scope.calls:
        return None
    last_line = root.end_point[0] + (1 if root.end_point[1] else 0)
    return Definition(
        qualname=source.module,
        name=source.module.rsplit(".", 1)[-1] or source.path,
        kind="module",
        code="\n".join(statements),
        span=SourceSpan(source.path, 1, max(1, last_line)),
        docstring=docstring,
        calls=tuple(scope.calls),
        uses=kept(scope, (), local=False)[0],
        bindings=tuple(scope.bindings),
        changes=tuple(dict.fromkeys(scope.changes)),
        returns=tuple(scope.returns),
        arguments=tuple(scope.arguments),
        **_tag_facts(scope, set()),
    )


def _bases(source: Source, node: Node | None) -> tuple[str, ...]:
    supers = node.child_by_field_name("superclasses") if node is not None else None
    if supers is None:
        return ()
    return tuple(source.text_of(c) for c in supers.named_children
                 if c.type in ("identifier", "attribute"))


def _is_async(source: Source, node: Node) -> bool:
    if not source.has_error:  # the definition's first token is ``async`` or ``def``
        return source.src.startswith(b"async", node.start_byte)
    # The keyword is the first child (or the second, after what error recovery kept).
    for index in range(min(2, node.child_count)):
        child = node.child(index)
        if child is not None and child.type == "async":
            return True
    return False


# -- files with syntax errors ------------------------------------------------------


def _extract_chunks(source: Source) -> ModuleExtract:
    """The facts of a broken file read one top-level definition at a time, each chunk
    parsed in place (positions and lines stay those of the file)."""
    definitions: list[Definition] = []
    classes: list[ClassInfo] = []
    imports: list[ImportBinding] = []
    body: list[Definition] = []
    for chunk in _chunks(source):
        parser().included_ranges = [chunk]
        try:
            root = parser().parse(source.src).root_node
        finally:
            parser().included_ranges = []
        found = _extract(source, root)
        body.extend(d for d in found.definitions if d.kind == "module")
        definitions.extend(d for d in found.definitions if d.kind != "module")
        classes.extend(found.classes)
        imports.extend(found.imports)
    source.has_error = True
    if body:
        definitions.insert(0, _joined(source, body))
    return ModuleExtract(source.path, source.module, source.is_package, tuple(definitions),
                         tuple(classes), tuple(imports))


def _chunks(source: Source) -> list[Range]:
    """The ranges of the file that each hold one top-level definition (or the start)."""
    lines = source.text.splitlines(keepends=True)
    starts = _chunk_starts(lines)
    offsets = [0]  # the byte at which each line starts
    for line in lines:
        offsets.append(offsets[-1] + (len(line) if source.ascii
                                      else len(line.encode("utf-8", "surrogatepass"))))
    bounds = [offsets[i] for i in starts]
    points = _points(source.src, bounds)
    return [Range(points[i], points[i + 1], bounds[i], bounds[i + 1])
            for i in range(len(bounds) - 1)]


def _points(src: bytes, offsets: list[int]) -> list[tuple[int, int]]:
    """Tree-sitter's (row, column) of each of the increasing byte ``offsets`` (its rows
    count ``\\n`` only), in one pass."""
    points: list[tuple[int, int]] = []
    row = line_start = previous = 0
    for offset in offsets:
        row += src.count(b"\n", previous, offset)
        newline = src.rfind(b"\n", previous, offset)
        if newline >= 0:
            line_start = newline + 1
        points.append((row, offset - line_start))
        previous = offset
    return points


def _chunk_starts(lines: list[str]) -> list[int]:
    """The first line of each top-level definition (its decorators and comments above
    included), after line 0, and the end."""
    starts = [0]
    for number, line in enumerate(lines):
        if number and _opens_definition(line):
            start = number
            while start > starts[-1] + 1 and lines[start - 1].lstrip().startswith(("@", "#")) \
                    and not lines[start - 1][:1].isspace():
                start -= 1
            if start > starts[-1]:
                starts.append(start)
    starts.append(len(lines))
    return starts


def _opens_definition(line: str) -> bool:
    """Whether a line starts a top-level ``def``, ``async def`` or ``class``."""
    for keyword in ("def", "class", "async"):
        if line.startswith(keyword):
            rest = line[len(keyword):]
            if keyword == "async":
                return rest[:1] in (" ", "\t") and _opens_definition(rest.lstrip(" \t"))
            return not rest[:1].isalnum() and rest[:1] != "_"
    return False


def _joined(source: Source, body: list[Definition]) -> Definition:
    """The module body of a broken file: its pieces joined."""
    last = max(d.span.end_line for d in body)
    return replace(
        body[0], code="\n".join(d.code for d in body),
        calls=tuple(c for d in body for c in d.calls),
        uses=tuple(u for d in body for u in d.uses),
        bindings=tuple(b for d in body for b in d.bindings),
        changes=tuple(dict.fromkeys(c for d in body for c in d.changes)),
        returns=tuple(r for d in body for r in d.returns),
        arguments=tuple(a for d in body for a in d.arguments),
        results=tuple(dict.fromkeys(r for d in body for r in d.results)),
        keys_read=tuple(dict.fromkeys(k for d in body for k in d.keys_read)),
        keys_written=tuple(dict.fromkeys(k for d in body for k in d.keys_written)),
        keywords=tuple(dict.fromkeys(k for d in body for k in d.keywords)),
        strings=tuple(dict.fromkeys(s for d in body for s in d.strings)),
        span=SourceSpan(source.path, 1, last))
