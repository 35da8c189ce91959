"""``sgkr mcp`` without the mcp SDK says which extra to install, before building anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sgkr.extras import install_line

WITHOUT_MCP = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("mcp", "jsonschema"):
            raise ModuleNotFoundError("No module named " + repr(name), name=name)
sys.meta_path.insert(0, Block())
import sgkr.build.incremental
def never(*args, **kwargs):
    raise AssertionError("built before the SDK was found missing")
sgkr.build.incremental.GraphBuilder.build = never
from sgkr.cli import main
sys.exit(main(["mcp", sys.argv[1]]))
"""


@pytest.mark.subprocess
def test_without_the_sdk_one_line_names_the_extra(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    return 1\n")
    done = subprocess.run([sys.executable, "-c", WITHOUT_MCP, str(tmp_path)],
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode != 0 and not done.stdout
    # The line to paste, as this sgkr was installed (a clone's folder here), and what is missing.
    assert f"{install_line('mcp')}" in done.stderr and "Traceback" not in done.stderr
    assert "needs the mcp extra of sgkr (jsonschema is not installed)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
