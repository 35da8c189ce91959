"""Root of the test run: skip an adapter's doctests when its framework is not installed."""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [
    f"{package}/*.py"
    for package, framework in (("llama_index_sgkr", "llama_index.core"),
                               ("langchain_sgkr", "langchain_core"))
    if importlib.util.find_spec(framework.split(".")[0]) is None
]
