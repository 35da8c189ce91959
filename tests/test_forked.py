"""Resolving calls in two processes: the same maps, in the same order, as in one."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

import pytest

from sgkr import forked
from sgkr.errors import InvalidArgumentError
from sgkr.extract import extract_module
from sgkr.forked import MIN_FORKED_MODULES, resolve_all
from sgkr.records import ModuleExtract
from sgkr.resolve import CallResolver

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="forks on Linux only")


def _modules(count: int = MIN_FORKED_MODULES + 6) -> list[ModuleExtract]:
    """Modules calling each other: by import, through what a name holds, and as values."""
    modules = []
    for i in range(count):
        n = (i + 1) % count
        text = (f"from pkg.m{n} import step{n}, Parser{n}\n"
                f"class Parser{i}:\n    def feed(self, rows):\n        return len(rows)\n"
                f"def step{i}(rows):\n    p = Parser{n}()\n    p.feed(rows)\n"
                f"    return list(map(step{n}, rows)) + sorted(rows, key=helper)\n"
                "def helper(row):\n    return row\n")
        modules.append(extract_module(f"pkg/m{i}.py", text))
    return modules


def _spy_on_fork(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The children forked from here on; threads other tests left running are not counted."""
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    forks: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(forked.os, "fork", fork)
    return forks


def _serial(modules: list[ModuleExtract]) -> tuple[object, object, object]:
    resolver = CallResolver(modules)
    refs: forked.Calls = {}
    calls = resolver.resolve_modules(modules, refs)
    return list(calls.items()), list(refs.items()), resolver.depends


def test_two_processes_make_the_maps_one_makes(monkeypatch: pytest.MonkeyPatch) -> None:
    modules = _modules()
    forks = _spy_on_fork(monkeypatch)
    resolver = CallResolver(modules)
    refs: forked.Calls = {}
    calls, meanwhile = resolve_all(resolver, modules, refs, jobs=2, meanwhile=lambda: 7)
    assert len(forks) == 1 and meanwhile == 7
    assert (list(calls.items()), list(refs.items()), resolver.depends) == _serial(modules)
    assert calls["pkg.m69.step69"] == {"pkg.m0.Parser0.feed": "inferred"}
    assert refs["pkg.m69.step69"] == {"pkg.m0.step0": "exact", "pkg.m69.helper": "exact"}


def test_modules_sharing_a_name_are_resolved_here(monkeypatch: pytest.MonkeyPatch) -> None:
    # The last module is read twice (from two roots): build order decides between them,
    # and only one process sees the order.
    modules = _modules()
    twin = extract_module(modules[-1].path, "def step69(rows):\n    return helper(rows)\n"
                          "def helper(rows):\n    return rows\n")
    modules.append(twin)
    resolver = CallResolver(modules)
    assert forked._split(resolver, modules) == len(modules)
    refs: forked.Calls = {}
    calls, _ = resolve_all(resolver, modules, refs, jobs=2, meanwhile=lambda: None)
    assert (list(calls.items()), list(refs.items()), resolver.depends) == _serial(modules)


@pytest.mark.parametrize("jobs, count", [(1, 100), (2, MIN_FORKED_MODULES - 1)])
def test_one_job_or_few_modules_stay_in_one_process(
        monkeypatch: pytest.MonkeyPatch, jobs: int, count: int) -> None:
    modules = _modules(count)
    forks = _spy_on_fork(monkeypatch)
    calls, _ = resolve_all(CallResolver(modules), modules, {}, jobs=jobs,
                           meanwhile=lambda: None)
    assert forks == [] and list(calls.items()) == _serial(modules)[0]


def test_no_child_is_forked_beside_other_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    # A lock another thread holds at the fork would be held forever in the child.
    modules = _modules()
    forks = _spy_on_fork(monkeypatch)
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    calls, _ = resolve_all(CallResolver(modules), modules, {}, jobs=2, meanwhile=lambda: None)
    assert forks == [] and list(calls.items()) == _serial(modules)[0]


@pytest.mark.parametrize("child", [
    lambda resolver, tail, write: os._exit(3),  # dies before answering
    lambda resolver, tail, write: os._exit(0),  # leaves without an answer
])
def test_a_child_that_fails_leaves_the_maps_whole(
        monkeypatch: pytest.MonkeyPatch, child: Callable[..., None]) -> None:
    modules = _modules()
    forks = _spy_on_fork(monkeypatch)
    monkeypatch.setattr(forked, "_child", child)
    resolver = CallResolver(modules)
    refs: forked.Calls = {}
    calls, _ = resolve_all(resolver, modules, refs, jobs=2, meanwhile=lambda: None)
    assert len(forks) == 1
    assert (list(calls.items()), list(refs.items()), resolver.depends) == _serial(modules)


@pytest.mark.parametrize("jobs", [0, -1, 1.5, "2", True])
def test_bad_jobs_are_refused(jobs: object) -> None:
    modules = _modules(2)
    with pytest.raises(InvalidArgumentError, match="jobs"):
        resolve_all(CallResolver(modules), modules, {}, jobs=jobs,  # type: ignore[arg-type]
                    meanwhile=lambda: None)
