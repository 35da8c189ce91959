"""Jupyter notebooks as sources: code cells read as one module, markdown as knowledge.

A notebook's text is its JSON (nbformat 4). Its code cells, in order, are
read as one module: IPython magics (``%``, ``%%``), shell lines (``!``,
``x = !ls``) and help lines (``f?``) are left out, and so is the whole of a
cell whose cell magic runs something other than Python (``%%bash``,
``%%sql``). Lines of the extraction are mapped back to their cell and line
(:class:`~sgkr.records.SourceSpan` ``cell``). The markdown cells right above a
code cell are knowledge of the functions defined in it, before their own
comment and docstring. A notebook that is not valid JSON or not a notebook
is reported and skipped; the notebook is never run.

Examples
--------
>>> import json
>>> raw = json.dumps({"nbformat": 4, "cells": [
...     {"cell_type": "markdown", "source": "Fees are charged in cents."},
...     {"cell_type": "code", "source": ["%matplotlib inline\\n", "def fee(amount):\\n",
...                                      "    return 2 * amount\\n"]}]})
>>> code = notebook_code(raw)
>>> code.text.splitlines()[:2], code.place(2)
(['', 'def fee(amount):'], (2, 2))
"""

from __future__ import annotations

import bisect
import json
import string
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .files import parse_json

__all__ = ["NOTEBOOK_SUFFIX", "NOTEBOOK_READ_FACTOR", "MAX_NOTEBOOK_CONTAINERS", "containers",
           "NotebookCode", "CodeCell", "notebook_code", "without_outputs", "is_magic", "is_help"]

NOTEBOOK_SUFFIX = ".ipynb"
#: A notebook is read up to this many times the file size limit; the limit
#: applies to it without its outputs (:func:`without_outputs`).
NOTEBOOK_READ_FACTOR = 10
#: Most braces and brackets a notebook's JSON may hold (its outputs' included): each
#: object or array costs memory while it is read (a 24 MB notebook of 8 million empty
#: outputs took 690 MB). Counted in the text, before it is parsed.
MAX_NOTEBOOK_CONTAINERS = 2_000_000
# Cell magics whose body is Python: the magic line alone is left out.
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
_MAGIC_NAME_STARTS = frozenset(string.ascii_letters + "_")


@dataclass(frozen=True)
class CodeCell:
    """One code cell in a notebook's code: its number and where its lines are."""

    #: The 1-based number of the cell among all cells of the notebook.
    number: int
    #: Its first line in the code of the notebook (1-based).
    first_line: int
    #: How many lines it has there.
    lines: int
    #: The markdown cells right above it, joined; None when there are none.
    markdown: str | None


@dataclass(frozen=True)
class NotebookCode:
    """The code of a notebook as one module, and the cells its lines come from."""

    text: str
    cells: tuple[CodeCell, ...]

    @cached_property
    def _starts(self) -> list[int]:
        # Made once: a notebook of n cells asks for the place of every definition.
        return [c.first_line for c in self.cells]

    def place(self, line: int) -> tuple[int, int]:
        """The cell number and the line in that cell of a line of :attr:`text`."""
        if not self.cells:
            return 1, line
        cell = self.cells[max(0, bisect.bisect_right(self._starts, line) - 1)]
        return cell.number, max(1, min(line - cell.first_line + 1, cell.lines))

    def markdown_at(self, line: int) -> str | None:
        """The markdown above the cell that a line of :attr:`text` is in."""
        index = bisect.bisect_right(self._starts, line) - 1
        return self.cells[index].markdown if index >= 0 else None


def notebook_code(raw: str) -> NotebookCode:
    """The code cells of a notebook's JSON text as one module.

    Raises
    ------
    ValueError
        If ``raw`` is not the JSON of an nbformat 4 notebook; the message says why.

    Examples
    --------
    >>> code = notebook_code('{"nbformat": 4, "cells": [{"cell_type": "code", '
    ...                      '"source": "!pip install x\\\\nx = 1"}]}')
    >>> code.text, code.place(2)
    ('\\nx = 1\\n', (1, 2))
    """
    # Refuses deep nesting, long integers, NaN and lone surrogates as ValueError.
    document = parse_json(raw, "JSON text", ValueError)
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise ValueError("no list of cells")
    version = document.get("nbformat")
    if version != 4:
        raise ValueError(f"nbformat {version!r} is not supported (only 4)")
    lines: list[str] = []
    cells: list[CodeCell] = []
    markdown: list[str] = []
    for number, cell in enumerate(document["cells"], start=1):
        kind, source = _cell(cell, number)
        if kind == "markdown":
            if source.strip():
                markdown.append(source.strip())
            continue
        if kind != "code":
            markdown = []
            continue
        code = _python_lines(source)
        cells.append(CodeCell(number, len(lines) + 1, len(code),
                              "\n\n".join(markdown) if markdown else None))
        lines.extend(code)
        markdown = []
    return NotebookCode("".join(line + "\n" for line in lines), tuple(cells))


def containers(text: str) -> int:
    """How many JSON objects and arrays ``text`` may hold: its braces and brackets (those
    inside strings too), counted without parsing it.

    Examples
    --------
    >>> containers('{"cells": [{"source": "{"}]}')
    4
    """
    return text.count("{") + text.count("[")


def without_outputs(text: str) -> str:
    """A notebook's JSON text with only what is read of it: the cells' types and sources.

    Outputs (plots, tables) make most of a notebook's bytes; the size limit
    applies to the rest. Text that is not a notebook is returned unchanged
    (extraction reports it).

    Examples
    --------
    >>> without_outputs('{"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "code", '
    ...                 '"source": "x = 1", "outputs": [{"data": "..."}]}]}')
    '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "x = 1"}]}'
    """
    try:
        document = parse_json(text, "notebook", ValueError)
    except ValueError:
        return text
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        return text
    cells = [{k: v for k, v in cell.items() if k in ("cell_type", "source")}
             if isinstance(cell, dict) else cell for cell in document["cells"]]
    # ASCII: a lone surrogate stays an escape, which notebook_code refuses.
    return json.dumps({"nbformat": document.get("nbformat"), "cells": cells})


def _cell(cell: Any, number: int) -> tuple[str, str]:
    if not isinstance(cell, dict):
        raise ValueError(f"cell {number} is not an object")
    kind, source = cell.get("cell_type"), cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        source = "".join(source)
    if not isinstance(kind, str) or not isinstance(source, str):
        raise ValueError(f"cell {number} has no cell_type or source text")
    return kind, source


def _python_lines(source: str) -> list[str]:
    """The lines of a code cell, magic and shell lines blank so that lines keep their place."""
    lines = source.splitlines()
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("%%"):
        name = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
        if name not in _PYTHON_CELL_MAGICS:
            return [""] * len(lines)
    return ["" if is_magic(line) or is_help(line) else line for line in lines]


def is_magic(line: str) -> bool:
    """Whether a line is an IPython magic or shell line, alone or assigned.

    A ``%`` not followed by a name is the modulo operator on a continued line.

    Examples
    --------
    >>> is_magic("files = !ls"), is_magic("  %timeit f()"), is_magic("x = a % b")
    (True, True, False)
    """
    rest = line.lstrip()
    if _opens_magic(rest):
        return True
    end = 0
    while end < len(rest) and _is_name_char(rest[end]):
        end += 1
    after = rest[end:].lstrip()
    return end > 0 and after.startswith("=") and _opens_magic(after[1:].lstrip())


def is_help(line: str) -> bool:
    """Whether a line is IPython's help on a name: ``pd.read_csv?``, ``??fee``.

    Examples
    --------
    >>> is_help("pd.read_csv?"), is_help(" ??fee "), is_help("x = y?")
    (True, True, False)
    """
    core = line.strip()
    if core.startswith("?"):
        name = core[2:] if core.startswith("??") else core[1:]
    else:
        name = core[:-2] if core.endswith("??") else core[:-1] if core.endswith("?") else ""
    return bool(name) and all(map(_is_name_char, name))


def _opens_magic(text: str) -> bool:
    """Whether ``text`` opens with ``%name``, ``%%name`` or ``!`` (not ``!=``)."""
    if text.startswith("!"):
        return text[1:2] != "="
    if not text.startswith("%"):
        return False
    name = text[2:3] if text.startswith("%%") else text[1:2]
    return name in _MAGIC_NAME_STARTS


def _is_name_char(char: str) -> bool:
    return char.isalnum() or char in "_."
