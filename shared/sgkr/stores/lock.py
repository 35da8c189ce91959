"""One push at a time per store: a lease on the server, renewed while the push writes.

A push takes the store's lock (``name@lock``, see :mod:`sgkr.stores.layout`)
with ``SET NX PX``: the key holds the push's token, and expires after a lease
unless the push renews it, so a push that was killed frees the store by
itself. Another push waits for the lock, up to a limit, then gives up with a
:class:`~sgkr.errors.StoreError` saying who holds it.

Making a version current is fenced by the lock: one script checks that the
token is still the push's and moves ``name@current`` in the same atomic step,
so a push that lost its lock (paused past its lease while another took over)
can never make its version current.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import time

from ..errors import StoreError
from .connection import Server
from .layout import current_key, lock_key, retired_key

__all__ = ["PushLock", "LEASE"]

#: Seconds a lock is held without being renewed (at least; three call timeouts if longer).
LEASE = 30.0
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
# KEYS: lock, current, retired; ARGV: token, version. Returns the version that was current
# ('' if none), or -1 if the lock is not the push's. The one that was current is retired
# at the server's time.
_PUBLISH = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return -1
end
local previous = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
if previous and previous ~= ARGV[2] then
  local now = redis.call('TIME')
  redis.call('HSET', KEYS[3], previous, now[1] .. '.' .. string.format('%06d', now[2]))
end
return previous or ''
"""


class PushLock:
    """The lock of the store ``name`` on ``server``, for one push (see the module docs)."""

    def __init__(self, server: Server, name: str) -> None:
        self.server, self.name = server, name
        self.lease = max(LEASE, 3 * server.address.timeout)
        self.token = json.dumps({"push": secrets.token_hex(8), "pid": os.getpid(),
                                 "host": socket.gethostname()[:100]})
        self._renewed = 0.0

    @property
    def id(self) -> str:
        """16 hex digits naming this push."""
        return str(json.loads(self.token)["push"])

    def acquire(self, wait: float) -> None:
        """Take the lock, waiting up to ``wait`` seconds for another push to finish.

        Raises
        ------
        StoreError
            If another push still holds it after ``wait`` seconds, saying which.
        """
        deadline = time.monotonic() + wait
        pause = 0.02
        while not self._take():
            if time.monotonic() >= deadline:
                raise self._busy()
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.5)

    def renew(self) -> None:
        """Extend the lease, at most a few times a lease.

        Raises
        ------
        StoreError
            If the lock is no longer this push's (its lease ran out).
        """
        if time.monotonic() - self._renewed < self.lease / 4:
            return
        if not self.server.script(_RENEW, [lock_key(self.name)],
                                  [self.token, int(self.lease * 1000)]):
            raise self._lost()
        self._renewed = time.monotonic()

    def publish(self, version: str) -> str | None:
        """Make ``version`` current if this push still holds the lock; the version that was.

        Raises
        ------
        StoreError
            If the lock is no longer this push's (nothing is changed then).
        """
        previous = self.server.script(
            _PUBLISH, [lock_key(self.name), current_key(self.name), retired_key(self.name)],
            [self.token, version])
        if previous == -1:
            raise self._lost()
        return str(previous) or None

    def release(self) -> None:
        """Give the lock back, if it is still this push's."""
        self.server.script(_RELEASE, [lock_key(self.name)], [self.token])

    def _take(self) -> bool:
        taken = self.server.call(lambda: self.server.redis.set(
            lock_key(self.name), self.token, nx=True, px=int(self.lease * 1000)))
        if taken:
            self._renewed = time.monotonic()
        return bool(taken)

    def _busy(self) -> StoreError:
        holder = self.server.get(lock_key(self.name))
        left = self.server.call(lambda: self.server.redis.pttl(lock_key(self.name)))
        try:
            who = json.loads(holder or "{}")
            by = f" by process {int(who['pid'])} on {str(who['host'])!r}"
        except (ValueError, TypeError, KeyError):
            by = ""
        return self.server.error(
            f"another push to {self.name!r} is under way{by} (its lock expires in "
            f"{max(0, int(left)) / 1000:.0f} s unless renewed); try again when it ends, "
            "or wait longer (--wait)")

    def _lost(self) -> StoreError:
        return self.server.error(
            f"this push lost the lock of {self.name!r} (it made no progress for "
            f"{self.lease:.0f} s and another push took over); nothing of it was made current")
