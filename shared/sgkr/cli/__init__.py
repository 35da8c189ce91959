"""The ``sgkr`` command line: one module per command, errors as one line on stderr.

Exit statuses (listed by ``sgkr --help``): 0 success; 1 an unexpected SGKR
error; 2 a bad option or argument (and bare ``sgkr``, which prints the usage);
3 a source problem (missing path, no Python found); 4 a malformed knowledge or
examples file; 5 a malformed graph file; 6 a file that cannot be written or
read; 7 a function or node name that is not in the graph; 8 a graph store
that is down, too slow, or holds no graph under the name; 130 interrupted;
141 standard output closed early (a pipe's reader stopped), quietly.
``sgkr --print-completion bash`` (or zsh, tcsh) prints a shell completion script.

Examples
--------
>>> main(["inspect", "/no/such/graph.json"])  # prints one line on stderr
5
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence

import shtab

from ..errors import (
    GraphFormatError,
    InvalidArgumentError,
    KnowledgeFormatError,
    NodeNotFoundError,
    SGKRError,
    SourceError,
    StoreError,
)
from ..masking import mask_secrets
from ..version import __version__
from . import bench, build, demo, evaluate, export, inspect, mcp, push, query
from .terminal import error_line, printable_streams

__all__ = ["main", "EXIT_CODES"]

EXIT_CODES: dict[type[BaseException], int] = {
    InvalidArgumentError: 2,
    SourceError: 3,
    KnowledgeFormatError: 4,
    GraphFormatError: 5,
    OSError: 6,
    NodeNotFoundError: 7,
    StoreError: 8,
    SGKRError: 1,
}
_COMMANDS = (build, push, query, inspect, export, demo, evaluate, bench, mcp)
_PATH_OPTIONS = frozenset({"graph", "paths", "output", "knowledge", "examples", "cache", "out"})


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"sgkr: error: {message}\n")


def _exit_codes() -> str:
    """The exit statuses, as the epilog of ``sgkr --help``."""
    meanings = {
        0: "success", 1: "an unexpected SGKR error", 2: "a bad option or argument",
        3: "a source problem (missing path, no Python found)",
        4: "a malformed knowledge or examples file", 5: "a malformed graph file",
        6: "a file that cannot be written or read",
        7: "a function or node name that is not in the graph",
        8: "a graph store that is down, too slow, or holds no graph under the name",
        130: "interrupted",
        141: "standard output closed early (sgkr ... | head): nothing more is printed",
    }
    return "exit statuses:\n" + "\n".join(f"  {code:<4} {text}" for code, text in meanings.items())


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="sgkr", description="Structure-grounded knowledge retrieval.",
                     epilog=_exit_codes(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"sgkr {__version__}")
    parser.add_argument("--verbose", action="store_true",
                        help="show tracebacks on errors and every skipped file")
    shtab.add_argument_to(parser, ["--print-completion"],
                          help="print a shell completion script and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for command in _COMMANDS:
        command.register(sub)
    for command_parser in sub.choices.values():
        # Accepted after the command too; SUPPRESS keeps one given before it.
        command_parser.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS,
                                    help="show tracebacks on errors and every skipped file")
        for action in command_parser._actions:  # completion: these name files and folders
            if action.dest in _PATH_OPTIONS:
                action.complete = shtab.FILE  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``sgkr`` command line; return the exit status."""
    try:
        with printable_streams():  # nothing printed can act on the terminal
            return _main(argv)
    except BrokenPipeError:
        # The reader went away (``sgkr ... | head``): stop quietly, as a pipeline expects;
        # standard output goes nowhere so that the interpreter's last flush cannot fail.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 141


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare ``sgkr``: what it can do
        parser.print_help()
        return 2
    try:
        status = args.run(args)
        return int(status or 0)
    except KeyboardInterrupt:
        print("sgkr: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise
    except (SGKRError, OSError) as exc:
        if args.verbose:
            print(mask_secrets(traceback.format_exc()), end="", file=sys.stderr)
        print(f"sgkr: error: {error_line(exc)}", file=sys.stderr)
        return next(code for kind, code in EXIT_CODES.items() if isinstance(exc, kind))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
