"""Root of the test run: adapters' doctests skipped without their framework; caches kept apart."""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile

import pytest

collect_ignore_glob = [
    f"{package}/*.py"
    for package, framework in (("llama_index_sgkr", "llama_index.core"),
                               ("langchain_sgkr", "langchain_core"))
    if importlib.util.find_spec(framework.split(".")[0]) is None
]


def pytest_configure(config: pytest.Config) -> None:
    """Keep the tests' caches (and the key signing them) out of the user's cache folder."""
    folder = tempfile.mkdtemp(prefix="sgkr-tests-cache-")
    config.stash[_CACHE_HOME] = folder
    os.environ["SGKR_CACHE_DIR"] = folder  # child processes (the CLI's tests) inherit it


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(config.stash.get(_CACHE_HOME, ""), ignore_errors=True)


_CACHE_HOME = pytest.StashKey[str]()
