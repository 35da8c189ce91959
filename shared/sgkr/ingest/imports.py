"""The names an import statement binds, relative imports made absolute.

Examples
--------
>>> from .syntax import Source
>>> source = Source("pkg/mod.py", "pkg.mod", "from .util import fee as f\\nimport os.path\\n")
>>> root = source.parse()
>>> [b for node in root.named_children for b in imports_of(source, node, "pkg.mod")]
[ImportBinding(scope='pkg.mod', alias='f', target='pkg.util.fee'), \
ImportBinding(scope='pkg.mod', alias='os', target='os'), \
ImportBinding(scope='pkg.mod', alias='os.path', target='os.path')]
"""

from __future__ import annotations

from tree_sitter import Node

from ..records import ImportBinding
from .syntax import Source

__all__ = ["imports_of", "absolute"]


def imports_of(source: Source, node: Node, scope: str) -> list[ImportBinding]:
    """What an ``import`` or ``from ... import`` statement ``node`` binds in ``scope``."""
    if node.type == "import_statement":
        return _plain_imports(source, node, scope)
    module_node = node.child_by_field_name("module_name")
    if module_node is None:
        return []
    base = absolute(source, source.text_of(module_node))
    if base is None:
        return []
    if any(c.type == "wildcard_import" for c in node.children):
        return [ImportBinding(scope, "*", base)]
    found: list[ImportBinding] = []
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            name = source.text_of(child.child_by_field_name("name"))
            alias = source.text_of(child.child_by_field_name("alias"))
        else:
            name = alias = source.text_of(child)
        found.append(ImportBinding(scope, alias, f"{base}.{name}" if base else name))
    return found


def _plain_imports(source: Source, node: Node, scope: str) -> list[ImportBinding]:
    """``import a.b as c`` binds c; ``import a.b`` binds a (and a.b for calls of it)."""
    found: list[ImportBinding] = []
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            target = source.text_of(child.child_by_field_name("name"))
            alias = source.text_of(child.child_by_field_name("alias"))
            found.append(ImportBinding(scope, alias, target))
            continue
        dotted = source.text_of(child)
        head = dotted.split(".")[0]
        found.append(ImportBinding(scope, head, head))
        if "." in dotted:
            found.append(ImportBinding(scope, dotted, dotted))
    return found


def absolute(source: Source, module_text: str) -> str | None:
    """The absolute name of a module as an import in ``source`` writes it (``..util``);
    None when it climbs above the top package."""
    level = len(module_text) - len(module_text.lstrip("."))
    rest = module_text[level:].strip()
    if level == 0:
        return rest
    parts = source.module.split(".")
    package = parts if source.is_package else parts[:-1]
    if level - 1 > len(package):
        return None
    package = package[: len(package) - (level - 1)]
    return ".".join([*package, rest] if rest else package)
