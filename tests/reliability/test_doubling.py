"""No work that multiplies two input sizes (issue 41, class 3): doubling tests per input class.

Each test doubles one input and asserts the time at most :data:`LINEAR` times
as long (:func:`~tests.reliability.doubling.growth`: medians of interleaved
runs, in CPU seconds). docs/reliability.md lists the classes.
"""

from __future__ import annotations

import pytest

from sgkr.ingest.extract import extract_module

from .doubling import assert_linear


def _lines(line: str) -> object:
    return lambda n: "".join(line.format(i=i) for i in range(n))


def _extract(text: str) -> None:
    extract_module("m.py", text)


def test_m4_a_long_run_of_constant_assignments_is_read_in_linear_time() -> None:
    # Issue 41, M4: two query patterns over one assignment (a binding, waiting for its
    # right side, and a change) kept every earlier assignment open: 80k lines, 26 s.
    assert_linear(_lines("NAME_{i} = {i}\n"), _extract, 2000)


@pytest.mark.slow
@pytest.mark.parametrize("line", [
    "x{i}: int = {i}\n", "x{i} = f(a)\n", "self.y{i} = 'a'\n", "a{i}, b = 1, 2\n",
    "k[{i}] = 1\n", "x{i} += 1\n", "x{i} = y = {i}\n", "(x{i} := {i})\n"])
def test_long_runs_of_one_statement_are_read_in_linear_time(line: str) -> None:
    assert_linear(_lines(line), _extract, 500)
