"""The core imports without LlamaIndex or LangChain, and never imports them."""

from __future__ import annotations

import subprocess
import sys

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("llama_index", "langchain", "langchain_core"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
import sgkr, sgkr.cli
g = sgkr.build_graph([("m.py", "def f():\\n    return 1\\n")])
sgkr.Retriever(g).retrieve("anything")
bad = [m for m in sys.modules if m.split(".")[0] in ("llama_index", "langchain", "langchain_core")]
assert not bad, bad
print("ok")
"""


def test_core_is_framework_free() -> None:
    done = subprocess.run([sys.executable, "-c", BLOCKER], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
