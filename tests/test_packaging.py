"""The distribution's metadata: licence, version in one place, extras."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
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


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_wheel_carries_the_demo_and_no_other_example(tmp_path: Path) -> None:
    # A copy of what the build reads: building in the tree would write build/ into it.
    source = tmp_path / "src"
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name if source.is_dir() else _mkdir(source) / name)
    for folder in ("shared", "llama_index_sgkr", "langchain_sgkr", "examples"):
        shutil.copytree(ROOT / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    wheels = tmp_path / "wheels"
    _pip("wheel", str(source), "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels))
    [wheel] = wheels.glob("sgkr-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    examples = [n for n in names if n.startswith("sgkr/examples/")]
    assert "sgkr/examples/payments/heldout.jsonl" in examples
    assert all(n.startswith("sgkr/examples/payments/") for n in examples), examples
    assert not [n for n in names if "requests" in n or "quickstart" in n]
    # Installed from the wheel, not the clone: sgkr demo finds its data in the install.
    target = tmp_path / "site"
    _pip("install", "--no-deps", "-q", "--target", str(target), str(wheel))
    env = {**os.environ, "PYTHONPATH": str(target)}
    probe = "import sgkr, sys; from sgkr.cli import main; print(sgkr.__file__); main(['demo'])"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(target)) and "task 1434" in done.stdout
    assert "get_mcc_code" in done.stdout


def _mkdir(folder: Path) -> Path:
    folder.mkdir(parents=True)
    return folder


def _pip(*argv: str) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *argv], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
