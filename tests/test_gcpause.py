"""Pausing the garbage collector: restored after; long-lived objects moved to the oldest one."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from sgkr.gcpause import paused_gc


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


def _in_generation(obj: object, generation: int) -> bool:
    return any(o is obj for o in gc.get_objects(generation=generation))


def test_the_collector_is_off_inside_and_back_on_after_even_on_error() -> None:
    gc.enable()
    with pytest.raises(ValueError), paused_gc():
        assert not gc.isenabled()
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_the_program_turned_off_stays_off() -> None:
    gc.disable()
    with paused_gc(long_lived=True):
        pass
    assert not gc.isenabled()


def test_long_lived_objects_go_straight_to_the_oldest_generation() -> None:
    gc.enable()
    with paused_gc(long_lived=True):
        kept = [[n] for n in range(100)]
    assert _in_generation(kept, 2)
    assert gc.get_freeze_count() == 0  # moved, not left frozen


def test_long_lived_cycles_are_still_collected_by_a_full_collection() -> None:
    gc.enable()
    with paused_gc(long_lived=True):
        first, second = _Node(), _Node()
        first.other, second.other = second, first
    gone = weakref.ref(first)
    del first, second
    gc.collect()
    assert gone() is None


def test_objects_the_program_froze_stay_frozen() -> None:
    gc.enable()
    before = [[n] for n in range(100)]
    gc.freeze()
    frozen = gc.get_freeze_count()
    with paused_gc(long_lived=True):
        kept = [[n] for n in range(100)]
    # A frozen object that another thread lets go leaves the count: count none made.
    assert gc.get_freeze_count() <= frozen
    assert not any(_in_generation(before, g) for g in range(3))  # still frozen
    assert not _in_generation(kept, 2)  # left to the collector's usual course
