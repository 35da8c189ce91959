"""Work in a forked child: the same result as in this process, whatever happens to the child."""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from sgkr.forked import Background, can_fork

PARENT = os.getpid()
forking = pytest.mark.skipif(not can_fork(), reason="processes are not started by forking here")


def _where() -> str:
    return "parent" if os.getpid() == PARENT else "child"


@forking
def test_the_work_runs_in_a_child_that_sees_this_process_memory() -> None:
    table = {"rows": list(range(1000))}  # made here, read there: nothing is sent
    job = Background(lambda: (_where(), sum(table["rows"])))
    assert job.result() == ("child", 499500)
    assert not multiprocessing.active_children()


def test_without_fork_the_work_runs_here_when_asked() -> None:
    calls: list[str] = []
    job = Background(lambda: calls.append(_where()) or len(calls), fork=False)
    assert calls == []
    assert job.result() == 1 and calls == ["parent"]


@forking
def test_a_child_that_dies_leaves_the_work_to_this_process() -> None:
    def work() -> str:
        if _where() == "child":
            os._exit(3)
        return "parent"

    assert Background(work).result() == "parent"


@forking
def test_an_error_is_raised_here_with_its_own_traceback() -> None:
    def work() -> int:
        raise ValueError(f"bad input in the {_where()}")

    with pytest.raises(ValueError, match="bad input in the parent"):
        Background(work).result()


@forking
def test_a_result_that_cannot_be_pickled_is_computed_here() -> None:
    job = Background(lambda: (lambda: _where()))
    assert job.result()() == "parent"


@forking
def test_cancel_stops_the_child() -> None:
    def work() -> str:
        if _where() == "child":
            time.sleep(60)
        return "parent"

    job = Background(work)
    started = time.monotonic()
    job.cancel()
    assert time.monotonic() - started < 30
    assert not multiprocessing.active_children()
    assert job.result() == "parent"
