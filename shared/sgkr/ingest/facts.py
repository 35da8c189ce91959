"""A source file's facts: a Python module, or a notebook's code cells, in one extraction.

Examples
--------
>>> import json
>>> raw = json.dumps({"nbformat": 4, "cells": [
...     {"cell_type": "markdown", "source": "Fees are charged in cents."},
...     {"cell_type": "code", "source": ["%matplotlib inline\\n", "def fee(amount):\\n",
...                                      "    return 2 * amount\\n"]}]})
>>> d = extract_source("fees.ipynb", raw).definitions[0]
>>> d.qualname, d.span.cell, d.span.start_line, d.comment
('fees.fee', 2, 2, 'Fees are charged in cents.')
"""

from __future__ import annotations

from dataclasses import replace

from ..records import Definition, ModuleExtract, Problem, SourceSpan
from .extract import extract_module
from .notebook import NOTEBOOK_SUFFIX, NotebookCode, notebook_code
from .sources import module_name

__all__ = ["extract_source"]


def extract_source(path: str, text: str) -> ModuleExtract:
    """Extract a Python file, or a notebook (by its ``.ipynb`` suffix) from its JSON text.

    A malformed notebook gives an extraction without definitions and with the
    problem that skipped it.
    """
    if not path.endswith(NOTEBOOK_SUFFIX):
        return extract_module(path, text)
    try:
        code = notebook_code(text)
    except ValueError as exc:
        return ModuleExtract(path, module_name(path), False, (), (), (),
                             (Problem(path, f"not a notebook: {exc}"),))
    return _mapped(extract_module(path, code.text), code)


def _mapped(module: ModuleExtract, code: NotebookCode) -> ModuleExtract:
    """The extraction with lines mapped to cells and the markdown above made knowledge."""
    definitions = tuple(_definition(d, code) for d in module.definitions)
    problems = tuple(_problem(p, code) for p in module.problems)
    return replace(module, definitions=definitions, problems=problems)


def _definition(d: Definition, code: NotebookCode) -> Definition:
    cell, start = code.place(d.span.start_line)
    end_cell, end = code.place(d.span.end_line)
    span = SourceSpan(d.span.file, start, end, cell, end_cell)
    markdown = code.markdown_at(d.span.start_line) if d.kind != "module" else None
    if markdown is None:
        return replace(d, span=span)
    return replace(d, span=span, comment=f"{markdown}\n\n{d.comment}" if d.comment else markdown)


def _problem(problem: Problem, code: NotebookCode) -> Problem:
    if problem.line is None:
        return problem
    cell, line = code.place(problem.line)
    return replace(problem, reason=f"cell {cell}: {problem.reason}", line=line)
