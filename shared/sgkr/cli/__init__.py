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
import importlib
import os
import sys
import traceback
from collections.abc import Sequence
from types import ModuleType

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
from .terminal import error_line, printable_streams

__all__ = ["main", "EXIT_CODES", "COMMANDS", "command_module"]

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
#: Each command: the module of this package that runs it, and its line in ``sgkr --help``.
#: A module is imported only for the command given (its ``register(parser)`` adds the
#: options, ``run(args)`` does the work), so ``sgkr --version`` and ``--help`` import none.
COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("build", "build graph.json from Python sources and notebooks"),
    "push": ("push", "write a graph to a graph store (FalkorDB)"),
    "query": ("query", "retrieve the functions a question needs"),
    "inspect": ("inspect", "summarise a graph.json"),
    "export": ("export", "draw the graph: interactive HTML, Mermaid, DOT or GraphML"),
    "map": ("map", "a map of a graph within a budget of tokens, for a model's context"),
    "demo": ("demo", "build the payments example and answer three questions"),
    "eval": ("evaluate", "evaluate retrieval against baselines"),
    "bench": ("bench", "measure build, rebuild, load and query speed"),
    "mcp": ("mcp", "serve a graph to coding agents (Model Context Protocol, stdio)"),
}
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


def command_module(name: str) -> ModuleType:
    """The module of command ``name`` (``eval`` → :mod:`sgkr.cli.evaluate`)."""
    return importlib.import_module(f".{COMMANDS[name][0]}", __name__)


def _completing(argv: Sequence[str]) -> bool:
    """Whether the command line asks for a completion script (it lists every option)."""
    return any(arg == "--print-completion" or arg.startswith("--print-completion=")
               for arg in argv)


def _wanted(argv: Sequence[str]) -> set[str]:
    """The commands whose options this command line needs: the one it names, or all."""
    if _completing(argv):
        return set(COMMANDS)
    named = next((arg for arg in argv if not arg.startswith("-")), "")
    return {named} & set(COMMANDS)


def _parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    parser = _Parser(prog="sgkr", description="Structure-grounded knowledge retrieval.",
                     epilog=_exit_codes(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"sgkr {__version__}")
    parser.add_argument("--verbose", action="store_true",
                        help="show tracebacks on errors and every skipped file")
    parser.add_argument("--print-completion", choices=("bash", "zsh", "tcsh"),
                        help="print a shell completion script and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    wanted, completing = _wanted(argv), _completing(argv)
    for name, (_module, help_line) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_line)
        if name not in wanted:
            continue
        command_module(name).register(command_parser)
        # Accepted after the command too; SUPPRESS keeps one given before it.
        command_parser.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS,
                                    help="show tracebacks on errors and every skipped file")
        if completing:  # these options name files and folders
            for action in command_parser._actions:
                if action.dest in _PATH_OPTIONS:
                    action.complete = _shtab().FILE  # type: ignore[attr-defined]
    return parser


def _shtab() -> ModuleType:
    import shtab

    return shtab


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
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser(argv)
    args = parser.parse_args(argv)
    if args.print_completion is not None:
        print(_shtab().complete(parser, args.print_completion))
        return 0
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
