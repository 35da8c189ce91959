"""The core's stages import one way (docs/architecture.md) and no module imports itself back."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

CORE = Path(__file__).resolve().parent.parent / "shared" / "sgkr"
# A package may import only from packages of a lower layer (and from itself).
LAYERS = {
    "errors": 0, "records": 0, "text": 0, "version": 0, "gcpause": 0, "atomic": 0,
    "masking": 0, "extras": 0,
    "ingest": 1, "analysis": 2, "tags": 3, "graph": 4, "build": 5, "algorithms": 6,
    "stores": 7, "retrieval": 8, "agents": 9, "export": 9, "eval": 10, "bench": 10, "cli": 11,
    "__init__": 12, "__main__": 12,
}


def _module(path: Path) -> tuple[str, str]:
    """The dotted module of a file and the package its relative imports start from."""
    parts = ["sgkr", *path.relative_to(CORE).with_suffix("").parts]
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), ".".join(parts[:-1])
    return ".".join(parts), ".".join(parts[:-1])


def _imports(path: Path) -> set[str]:
    """The sgkr modules a file imports, at the top or inside a function."""
    module, package = _module(path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] \
                if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            found.update([target] if node.module else [f"{target}.{a.name}" for a in node.names])
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {t for t in found if t.split(".")[0] == "sgkr" and t != module}


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for path in CORE.rglob("*.py"):
        module, _ = _module(path)
        g.add_node(module)
        g.add_edges_from((module, t) for t in _imports(path))
    return g


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_stage_has_a_layer() -> None:
    assert {_stage(m) for m in _graph()} <= set(LAYERS)


def test_stages_import_only_lower_layers() -> None:
    upward = sorted((a, b) for a, b in _graph().edges
                    if _stage(a) != _stage(b) and LAYERS[_stage(b)] >= LAYERS[_stage(a)]
                    and not LAYERS[_stage(a)] == LAYERS[_stage(b)] == 0)
    assert upward == []


def test_no_import_cycle() -> None:
    g = _graph()
    modules = nx.DiGraph(g.subgraph([m for m in g if m not in ("sgkr",)]))
    # A package's __init__ re-exporting its modules is not a cycle of the code.
    modules.remove_edges_from([(a, b) for a, b in g.edges if b.startswith(a + ".")])
    assert list(nx.simple_cycles(modules)) == []
