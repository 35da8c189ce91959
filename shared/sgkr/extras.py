"""The line that installs one of sgkr's extras, as this sgkr was installed.

sgkr installed from a folder (a clone: ``pip install .`` or ``pip install -e .``)
gets its extras from that folder again; installed from a package index, by name;
run from a source tree that pip did not install, from that tree. A missing
extra's message (:func:`missing_extra`) names the missing module and this line,
so it can be pasted as it is.

Examples
--------
>>> install_line("mcp", origin=("folder", "/src/sgkr", True))
'pip install -e "/src/sgkr[mcp]"'
>>> install_line("mcp", origin=("index", "", False))
'pip install "sgkr[mcp]"'
"""

from __future__ import annotations

import json
import shlex
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

__all__ = ["install_line", "missing_extra", "Origin"]

#: How sgkr was installed: ``index`` (by name), ``folder`` (the path of its folder or file,
#: and whether editable) or ``tree`` (not installed by pip: its source tree's path).
Origin = tuple[str, str, bool]
_TREE = Path(__file__).resolve().parents[2]  # the clone: shared/sgkr/extras.py


def install_line(extra: str, *, origin: Origin | None = None) -> str:
    """The ``pip install`` line that adds ``extra`` (``mcp``, ``langchain``, ...)."""
    kind, folder, editable = origin if origin is not None else _origin()
    if kind == "index":
        return f'pip install "sgkr[{extra}]"'
    target = shlex.quote(f"{folder}[{extra}]") if " " in folder or "'" in folder \
        else f'"{folder}[{extra}]"'
    return f"pip install {'-e ' if editable else ''}{target}"


def missing_extra(what: str, extra: str, error: ImportError) -> str:
    """One line: ``what`` needs ``extra``, which module is missing, and how to install it.

    Examples
    --------
    >>> missing_extra("the MCP server", "mcp", ModuleNotFoundError(name="jsonschema"),
    ...               ).split(": pip")[0]
    'the MCP server needs the mcp extra of sgkr (jsonschema is not installed)'
    """
    module = error.name or str(error)
    return (f"{what} needs the {extra} extra of sgkr ({module} is not installed): "
            f"{install_line(extra)}")


def _origin() -> Origin:
    try:
        dist = metadata.distribution("sgkr")
    except metadata.PackageNotFoundError:
        return "tree", str(_TREE), False
    found = dist.read_text("direct_url.json")
    if not found:
        return "index", "", False
    try:
        direct = json.loads(found)
        url = urlparse(direct["url"])
    except (ValueError, KeyError, TypeError):
        return "index", "", False
    if url.scheme != "file":  # from a repository or an index's file: by name
        return "index", "", False
    dir_info = direct.get("dir_info")  # a folder; else a wheel or sdist file, named again
    editable = isinstance(dir_info, dict) and bool(dir_info.get("editable", False))
    return "folder", unquote(url.path), editable
