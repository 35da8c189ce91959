"""Giving freed memory back: asked on glibc, a no-op elsewhere, never an error."""

from __future__ import annotations

import sys

from sgkr.freemem import give_back


def test_give_back_asks_the_c_library_on_linux_and_never_fails() -> None:
    kept = [bytes(1000) for _ in range(10_000)]
    del kept
    asked = give_back()
    assert isinstance(asked, bool)
    if not sys.platform.startswith("linux"):
        assert not asked  # nothing to ask elsewhere
    assert give_back() is asked  # asking again is as safe
