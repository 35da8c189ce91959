"""The core imports without LlamaIndex, LangChain or pydantic, and never imports them;
an adapter without its framework says which extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sgkr.extras import install_line

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("llama_index", "langchain", "langchain_core", "pydantic"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
import sgkr, sgkr.cli
g = sgkr.build_graph([("m.py", "def f():\\n    return 1\\n")])
sgkr.Retriever(g).retrieve("anything")
bad = [m for m in sys.modules
       if m.split(".")[0] in ("llama_index", "langchain", "langchain_core", "pydantic")]
assert not bad, bad
print("ok")
"""


@pytest.mark.subprocess
def test_core_is_framework_free() -> None:
    done = subprocess.run([sys.executable, "-c", BLOCKER], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


ADAPTER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == {framework!r}:
            raise ModuleNotFoundError("No module named " + repr(name), name=name)
sys.meta_path.insert(0, Block())
import {adapter}
"""


@pytest.mark.parametrize("adapter,framework,extra", [
    ("llama_index_sgkr", "llama_index", "llama-index"),
    ("langchain_sgkr", "langchain_core", "langchain"),
])
@pytest.mark.subprocess
def test_an_adapter_without_its_framework_names_the_extra(adapter: str, framework: str,
                                                         extra: str) -> None:
    code = ADAPTER.format(framework=framework, adapter=adapter)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ") and install_line(extra) in last, last
    assert f"needs the {extra} extra of sgkr ({framework} is not installed)" in last, last
