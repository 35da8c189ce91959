"""Root of the test run: adapters' doctests skipped without their framework; caches kept apart;
the benchmark's doctest marked."""

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


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The module doctest of ``sgkr.bench`` runs a whole benchmark: it is marked ``bench``."""
    for item in items:
        if item.nodeid == "shared/sgkr/bench.py::sgkr.bench":
            item.add_marker(pytest.mark.bench)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(config.stash.get(_CACHE_HOME, ""), ignore_errors=True)


_CACHE_HOME = pytest.StashKey[str]()
