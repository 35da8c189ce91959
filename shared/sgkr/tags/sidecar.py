"""The sidecar file: knowledge text and I/O tags of named functions, aliases of tags.

A *sidecar* file (JSON, or YAML when PyYAML is installed) names functions
with their knowledge text and I/O tags, and tags with their aliases::

    {"functions": {"calculate_fee": {"knowledge": "fee = fixed + rate * amount / 10000",
                                      "inputs": ["transaction value"],
                                      "outputs": ["fee"]}},
     "tags": {"transaction value": {"aliases": ["transaction amount", "euros"]}}}

Examples
--------
>>> s = parse_sidecar({"functions": {"fee": {"outputs": ["fee"]}},
...                    "tags": {"fee": ["charge"]}})
>>> s.functions["fee"].outputs, s.tags["fee"]
(('fee',), ('charge',))
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import KnowledgeFormatError
from ..ingest.files import check_tree, parse_json, read_side_file
from ..text import fold

__all__ = ["FunctionKnowledge", "Sidecar", "load_sidecar", "parse_sidecar", "yaml_budget",
           "as_mapping", "as_labels"]


@dataclass(frozen=True)
class FunctionKnowledge:
    """What a sidecar says of one function (by bare name or qualname)."""

    knowledge: str | None = None
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sidecar:
    """A parsed sidecar file: knowledge per function and aliases per tag."""

    functions: Mapping[str, FunctionKnowledge]
    tags: Mapping[str, tuple[str, ...]]


def load_sidecar(path: str | os.PathLike[str]) -> Sidecar:
    """Read a sidecar knowledge file (``.json``, ``.yaml`` or ``.yml``).

    The file is read by the rules of :func:`sgkr.ingest.files.read_file` (a regular
    file, at most :data:`~sgkr.ingest.files.MAX_SIDE_FILE_BYTES`), and its content,
    YAML aliases expanded, may hold at most :data:`~sgkr.ingest.files.MAX_EXPANDED_ITEMS`.

    Raises
    ------
    KnowledgeFormatError
        If the file is missing, not valid JSON/YAML, or not of the documented shape.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise KnowledgeFormatError(f"knowledge file must be a path, got {path!r}")
    file = Path(path)
    where = f"knowledge file {file}"
    raw = read_side_file(file, where, KnowledgeFormatError)
    if file.suffix.lower() in (".yaml", ".yml"):
        data = _parse_yaml(raw, where)
        # Aliases share what they name: the tree is walked as if each were
        # copied, and refused as soon as it is much larger than the file.
        check_tree(data, where, KnowledgeFormatError, budget=yaml_budget(len(raw)))
    else:
        data = parse_json(raw, where, KnowledgeFormatError)
    return parse_sidecar(data, where=str(file))


def yaml_budget(size: int) -> int:
    """Most items and characters a YAML file of ``size`` bytes may expand to (aliases used).

    Without aliases a document holds fewer than it has bytes; twice that and a
    million more leaves room for ordinary anchors.
    """
    return 2 * size + 1_000_000


def _parse_yaml(raw: bytes, where: str) -> Any:
    try:
        import yaml
    except ImportError as exc:
        raise KnowledgeFormatError(f"{where} is YAML: install PyYAML, or give it as JSON"
                                   ) from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise KnowledgeFormatError(f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})"
                                   ) from exc
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        raise KnowledgeFormatError(f"{where}: invalid YAML: {exc.problem or exc.context}{at}"
                                   ) from exc
    except yaml.YAMLError as exc:
        raise KnowledgeFormatError(f"{where}: invalid YAML: {' '.join(str(exc).split())}"
                                   ) from exc
    except RecursionError as exc:
        raise KnowledgeFormatError(f"{where}: invalid YAML: nested too deeply") from exc
    except ValueError as exc:  # an integer over the digit limit
        raise KnowledgeFormatError(f"{where}: invalid YAML: {str(exc).splitlines()[0]}"
                                   ) from exc


def parse_sidecar(data: Any, *, where: str = "knowledge") -> Sidecar:
    """Validate the parsed content of a sidecar file (see the module doc for its shape)."""
    if not isinstance(data, dict):
        raise KnowledgeFormatError(f"{where}: top level must be an object")
    unknown = set(data) - {"functions", "tags"}
    if unknown:
        raise KnowledgeFormatError(
            f"{where}: unknown top-level key(s) {sorted(unknown)}; expected functions, tags"
        )
    functions: dict[str, FunctionKnowledge] = {}
    for name, entry in as_mapping(data.get("functions", {}), f"{where}: functions").items():
        at = f"{where}: functions.{name}"
        if isinstance(entry, str):
            functions[name] = FunctionKnowledge(knowledge=entry)
            continue
        entry = as_mapping(entry, at)
        extra = set(entry) - {"knowledge", "inputs", "outputs"}
        if extra:
            raise KnowledgeFormatError(f"{at}: unknown key(s) {sorted(extra)}")
        text = entry.get("knowledge")
        if text is not None and not isinstance(text, str):
            raise KnowledgeFormatError(f"{at}.knowledge must be a string")
        functions[name] = FunctionKnowledge(
            knowledge=text,
            inputs=as_labels(entry.get("inputs", []), f"{at}.inputs"),
            outputs=as_labels(entry.get("outputs", []), f"{at}.outputs"),
        )
    tags: dict[str, tuple[str, ...]] = {}
    for label, entry in as_mapping(data.get("tags", {}), f"{where}: tags").items():
        at = f"{where}: tags.{label}"
        if isinstance(entry, list):
            tags[label] = as_labels(entry, at)
        else:
            entry = as_mapping(entry, at)
            extra = set(entry) - {"aliases"}
            if extra:
                raise KnowledgeFormatError(f"{at}: unknown key(s) {sorted(extra)}")
            tags[label] = as_labels(entry.get("aliases", []), f"{at}.aliases")
        if not fold(label):
            raise KnowledgeFormatError(f"{at}: a tag label needs at least one word")
    return Sidecar(functions, tags)


def as_mapping(value: Any, at: str) -> dict[str, Any]:
    """``value`` if it is an object with string keys; else an error naming ``at``."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise KnowledgeFormatError(f"{at} must be an object with string keys")
    return value


def as_labels(value: Any, at: str) -> tuple[str, ...]:
    """``value`` if it is a list of strings, as a tuple; else an error naming ``at``."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise KnowledgeFormatError(f"{at} must be a list of strings")
    return tuple(value)
