"""The README's framework sections run as written (offline, from a copy of its examples)."""

from __future__ import annotations

import importlib
import json
import os
import re
from pathlib import Path

import pytest

from .conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _first_block(section: str, language: str = "python") -> str:
    body = README.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(rf"```{language}\n(.*?)```", body, flags=re.S)
    assert found is not None, f"no {language} block under '## {section}'"
    return found.group(1)


@pytest.fixture()
def in_checkout_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_python_llamaindex_and_langchain_sections_run(
        in_checkout_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(_first_block("Python"), "README: Python", "exec"), {})
    assert (in_checkout_copy / "graph.json").is_file()
    exec(compile(_first_block("LlamaIndex"), "README: LlamaIndex", "exec"), {})
    names = capsys.readouterr().out.strip().splitlines()[-1]
    assert "filter_fee_rules" in names
    exec(compile(_first_block("LangChain"), "README: LangChain", "exec"), {})
    prompt = capsys.readouterr().out
    assert "def filter_fee_rules(" in prompt and "most expensive MCC" in prompt


def test_the_agent_configuration_is_json_naming_the_mcp_command() -> None:
    config = json.loads(_first_block("Coding agents (MCP)", "json"))
    server = config["mcpServers"]["sgkr"]
    assert server["command"] == "sgkr" and server["args"][0] == "mcp"


def test_the_readme_mentions_every_command() -> None:
    from sgkr.cli import COMMANDS

    for name in COMMANDS:
        assert f"sgkr {name}" in README, name


def _resolves(dotted: str) -> bool:
    """Whether ``a.b.C.d`` names a module, or an attribute reached from the longest module."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if not hasattr(found, part):
                return False
            found = getattr(found, part)
        return True
    return False


def test_the_docs_name_only_what_exists() -> None:
    named = {(page.name, m.group(1))
             for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
             for m in re.finditer(r"`((?:sgkr|llama_index_sgkr|langchain_sgkr)(?:\.\w+)+)",
                                  page.read_text(encoding="utf-8"))}
    missing = sorted((page, name) for page, name in named if not _resolves(name))
    assert not missing, f"named in the docs but not importable: {missing}"


def _user_docs() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted((ROOT / "examples").glob("*/README.md"))]


def test_the_docs_name_no_folder_of_a_development_machine() -> None:
    # A reader has none of these: datasets are named by where they come from (evaluation.md).
    machine = re.compile(r"/work/|/root/|/home/\w|/Users/\w|\.\./shared|[A-Z]:\\\\Users")
    found = [(page.name, m.group()) for page in _user_docs()
             for m in machine.finditer(page.read_text(encoding="utf-8"))]
    assert not found, found


def test_install_lines_work_from_a_clone() -> None:
    # sgkr is not on the package index yet: an extra is installed from the clone (".[x]"),
    # and "sgkr[x]" is only named as what to type once it is published.
    for page in _user_docs():
        for line in page.read_text(encoding="utf-8").splitlines():
            if re.search(r"pip install ['\"]sgkr\[", line):
                assert "PyPI" in line or "published" in line, (page.name, line)
