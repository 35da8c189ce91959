"""The fingerprint of the code that makes a build's results: what a result kept from an
earlier build must have been made by.

Examples
--------
>>> len(code_fingerprint())
64
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import metadata
from pathlib import Path

__all__ = ["code_fingerprint", "LIBRARIES"]

#: The libraries whose results a build's results hold: the parser and its Python grammar,
#: the stemmer of the lexical index, the arrays it is counted with, the graph.
LIBRARIES = ("tree-sitter", "tree-sitter-python", "PyStemmer", "numpy", "networkx")


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The SHA-256 of SGKR's own source files and the versions of :data:`LIBRARIES`:
    another version of either may make other results."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".scm") and path.is_file():
            digest.update(f"\0{path.relative_to(package).as_posix()}\0".encode())
            digest.update(path.read_bytes())
    for name in LIBRARIES:
        try:
            found = metadata.version(name)
        except metadata.PackageNotFoundError:
            found = "-"
        digest.update(f"\0{name}={found}".encode())
    return digest.hexdigest()
