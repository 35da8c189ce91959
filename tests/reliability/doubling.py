"""Doubling tests: work that grows linearly with an input, measured robustly on a busy machine.

:func:`growth` times one piece of work at a size and at twice that size, the
runs interleaved (``n, 2n, n, 2n, ...``) so that a machine slowing down for a
while slows both alike, in CPU seconds of this process (what other processes
do costs this one little), and returns the ratio of the medians. Linear work
gives about 2 (less when a fixed cost dominates), quadratic work about 4.
:func:`assert_linear` asserts at most :data:`LINEAR` (2.5): it first doubles the
size until one run takes :data:`LEAST_SECONDS` (shorter runs are mostly noise),
then measures up to three times: on a machine shared with other work one ratio
may be off, three in a row are not, and quadratic work fails every time.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["LINEAR", "LEAST_SECONDS", "growth", "assert_linear"]

#: The largest ratio of times per doubling of the input counted as linear.
LINEAR = 2.5
#: The CPU seconds the smaller of the two runs takes at least.
LEAST_SECONDS = 0.05

T = TypeVar("T")


def _seconds(work: Callable[[T], object], given: T) -> float:
    started = time.process_time()
    work(given)
    return time.process_time() - started


def growth(make: Callable[[int], T], work: Callable[[T], object], size: int, *,
           repeats: int = 5) -> float:
    """Median CPU time of ``work(make(2 * size))`` over that of ``work(make(size))``.

    The inputs are made once, outside the timing; one warm-up run of each comes first.
    """
    inputs = {n: make(n) for n in (size, 2 * size)}
    times: dict[int, list[float]] = {n: [] for n in inputs}
    for round_ in range(repeats + 1):
        for n, given in inputs.items():
            seconds = _seconds(work, given)
            if round_:
                times[n].append(seconds)
    return statistics.median(times[2 * size]) / max(statistics.median(times[size]), 1e-6)


def assert_linear(make: Callable[[int], T], work: Callable[[T], object], size: int, *,
                  repeats: int = 5, attempts: int = 3, most: int = 1 << 24) -> int:
    """Assert that doubling the input from ``size`` (or more) takes at most :data:`LINEAR`
    times as long; return the size measured.

    ``size`` is doubled, up to ``most``, until one run takes :data:`LEAST_SECONDS`;
    :func:`growth` is then measured up to ``attempts`` times, and one ratio of at most
    :data:`LINEAR` passes.
    """
    while size < most and _seconds(work, make(size)) < LEAST_SECONDS:
        size *= 2
    ratios = []
    for _ in range(attempts):
        ratios.append(growth(make, work, size, repeats=repeats))
        if ratios[-1] <= LINEAR:
            return size
    raise AssertionError(f"time per doubling of the input from {size}: "
                         f"{', '.join(f'{r:.2f}x' for r in ratios)} (at most {LINEAR}x expected)")
