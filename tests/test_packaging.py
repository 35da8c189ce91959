"""The distribution's metadata: licence, version in one place, extras."""

from __future__ import annotations

import importlib.metadata
import re
from typing import Any

import pytest

import sgkr

from .conftest import ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11+


@pytest.fixture(scope="module")
def project() -> dict[str, Any]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return dict(data)


def test_mit_licence_in_the_spdx_form(project: dict[str, Any]) -> None:
    meta = project["project"]
    assert meta["license"] == "MIT" and meta["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Permission is hereby granted" in text
    assert not any(c.startswith("License ::") for c in meta["classifiers"])  # SPDX replaces it
    assert meta["authors"] and "Typing :: Typed" in meta["classifiers"]
    versions = {m.group(1) for c in meta["classifiers"]
                if (m := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c))}
    assert versions == {"3.10", "3.11", "3.12", "3.13"}


def test_the_version_has_one_source(project: dict[str, Any]) -> None:
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    dynamic = project["tool"]["setuptools"]["dynamic"]
    assert dynamic["version"] == {"attr": "sgkr.version.__version__"}
    assert importlib.metadata.version("sgkr") == sgkr.__version__


def test_all_is_what_users_run_without_dev_or_torch(project: dict[str, Any]) -> None:
    extras = project["project"]["optional-dependencies"]
    [combined] = extras["all"]
    named = set(re.fullmatch(r"sgkr\[(.*)\]", combined).group(1).split(","))  # type: ignore[union-attr]
    assert {"llama-index", "langchain", "mcp"} <= named
    assert not named & {"dev", "eval"}
    assert named <= set(extras) - {"all"}
    assert not any(r.startswith("torch") for extra in named for r in extras[extra])
    assert any(r.startswith("mcp") for r in extras["dev"])  # CI installs dev: it tests the server


def test_no_requirement_is_pinned_exactly(project: dict[str, Any]) -> None:
    # An exact pin (torch==...) breaks the environments sgkr is installed into.
    lists = {"dependencies": project["project"]["dependencies"],
             **project["project"]["optional-dependencies"]}
    pinned = [(where, r) for where, reqs in lists.items() for r in reqs
              if re.search(r"===?\s*[\w.]+\s*(;|$)", r)]
    assert not pinned, pinned
    assert any(r.startswith("torch>=") for r in lists["eval"])


def test_every_error_is_a_top_level_name() -> None:
    import sgkr.errors

    assert set(sgkr.errors.__all__) <= set(sgkr.__all__)
    assert sgkr.StoreError is sgkr.errors.StoreError


def test_dev_installs_what_every_user_extra_needs(project: dict[str, Any]) -> None:
    # CI installs only dev: a requirement of a user extra missing there goes untested.
    extras = project["project"]["optional-dependencies"]

    def names(requirements: list[str]) -> set[str]:
        return {re.split(r"[\[<>=!~;\s]", r, maxsplit=1)[0].lower() for r in requirements}

    for extra in ("llama-index", "langchain", "falkordb", "mcp"):
        missing = names(extras[extra]) - names(extras["dev"])
        assert not missing, f"dev lacks {sorted(missing)} of the {extra} extra"
