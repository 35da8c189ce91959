"""The retrieval options as command-line flags, made from their one declaration.

Every option of :mod:`sgkr.retrieval.options` is a flag of ``query``, ``demo``,
``export`` and ``mcp``: ``max_depth`` is ``--max-depth N``, a switch such as
``reverse_calls`` is ``--reverse-calls`` / ``--no-reverse-calls``, ``filter``
takes JSON. A value is checked as the option declares (its type, bounds and
choices), so a bad one is a usage error naming the flag; a flag not given
leaves the option at its default.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_retrieval_options(parser)
>>> args = parser.parse_args(["--k", "3", "--no-reverse-calls", "--filter", '{"kind": "function"}'])
>>> retrieval_options(args)
{'k': 3, 'reverse_calls': False, 'filter': {'kind': 'function'}}
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from ..errors import InvalidArgumentError
from ..retrieval.options import OPTIONS, Option
from ..text import shown

__all__ = ["add_retrieval_options", "retrieval_options", "flag"]


def flag(name: str) -> str:
    """The flag of option ``name`` (``max_depth`` → ``--max-depth``)."""
    return "--" + name.replace("_", "-")


def add_retrieval_options(parser: argparse.ArgumentParser) -> None:
    """Add a flag for every retrieval option, in a group of their own."""
    group = parser.add_argument_group(
        "retrieval options", "See docs/options.md; a flag not given keeps the default.")
    for spec in OPTIONS.values():
        shown = "off" if spec.default is None else json.dumps(spec.default)
        kwargs: dict[str, Any] = {"dest": spec.name, "default": None,
                                  "help": f"{spec.help} (default: {shown})"}
        if spec.kind == "boolean":
            kwargs["action"] = argparse.BooleanOptionalAction
        else:
            kwargs["type"] = _parse(spec)
            kwargs["metavar"] = spec.metavar or ("N" if spec.kind == "integer" else
                                                 "X" if spec.kind == "number" else None)
            if spec.choices:
                kwargs["choices"] = spec.choices
        group.add_argument(flag(spec.name), **kwargs)


def retrieval_options(args: argparse.Namespace) -> dict[str, Any]:
    """The retriever keyword arguments of the flags given (the others keep their default)."""
    return {name: value for name in OPTIONS
            if (value := getattr(args, name, None)) is not None}


def _parse(spec: Option) -> Callable[[str], Any]:
    """Text → a valid value of ``spec``; argparse reports the ``ArgumentTypeError``."""

    def parse(text: str) -> Any:
        try:
            value = _convert(spec, text)
            spec.validate(value)
        except (ValueError, InvalidArgumentError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return value

    parse.__name__ = spec.kind  # argparse names it in "invalid <name> value"
    return parse


def _convert(spec: Option, text: str) -> Any:
    if spec.kind in ("integer", "number"):
        try:
            return int(text) if spec.kind == "integer" else float(text)
        except ValueError:
            what = "an integer" if spec.kind == "integer" else "a number"
            raise ValueError(
                f"{spec.name} must be {what}{spec.range_text()}, got {shown(text)}") from None
    if spec.kind == "object":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{spec.name} must be JSON ({exc})") from None
    return text
