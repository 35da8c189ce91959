"""A build's progress on a terminal: drawn from the start, on any terminal, never in a pipe."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sgkr.cli.progress import FIRST_STAGE, ProgressBar


def _read_all(fd: int, until: float, enough: bytes | None = None) -> bytes:
    out = b""
    while time.monotonic() < until and (enough is None or enough not in out):
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:  # the other side closed
            break
        if not data:
            break
        out += data
    return out


def test_a_terminal_that_reports_no_size_still_shows_the_bar() -> None:
    # A pseudo-terminal made without a size reports 0 x 0; tqdm alone draws nothing there.
    master, slave = os.openpty()
    with open(slave, "w", encoding="utf-8", closefd=True) as screen:
        assert os.get_terminal_size(screen.fileno()).columns == 0
        bar = ProgressBar(screen, delay=0)
        bar("parse", 3, 10)
        screen.flush()
        shown = _read_all(master, time.monotonic() + 5, b"3/10").decode("utf-8", "replace")
        bar.close()
    os.close(master)
    assert "parse" in shown and "3/10" in shown


def test_the_first_stage_is_shown_before_the_build_reports_any() -> None:
    master, slave = os.openpty()
    with open(slave, "w", encoding="utf-8", closefd=True) as screen:
        bar = ProgressBar(screen, delay=0, tick=0.02)
        shown = _read_all(master, time.monotonic() + 5, FIRST_STAGE.encode() + b":").decode(
            "utf-8", "replace")
        bar.close()
    os.close(master)
    assert f"{FIRST_STAGE}:" in shown


def test_quiet_draws_nothing_even_on_a_terminal() -> None:
    master, slave = os.openpty()
    with open(slave, "w", encoding="utf-8", closefd=True) as screen:
        bar = ProgressBar(screen, delay=0, enabled=False)
        bar("parse", 3, 10)
        bar.close()
        assert not bar.enabled
        screen.flush()
        shown = _read_all(master, time.monotonic() + 0.3)
    os.close(master)
    assert shown == b""


def _tree(root: Path, files: int) -> Path:
    root.mkdir()
    for i in range(files):
        body = "".join(f"def f{i}_{j}(x):\n    return g{j}(x) + {j}\n" for j in range(20))
        (root / f"m{i}.py").write_text(body, encoding="utf-8")
    return root


def _sgkr_in_a_terminal(*argv: str) -> str:
    """What ``sgkr argv`` writes to a pseudo-terminal (of no size, as ``script`` makes)."""
    master, slave = os.openpty()
    process = subprocess.Popen([sys.executable, "-m", "sgkr", *argv], stdin=slave,
                               stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = _read_all(master, time.monotonic() + 120)
    process.wait(30)
    os.close(master)
    assert process.returncode == 0, out
    return out.decode("utf-8", "replace")


@pytest.mark.subprocess
def test_sgkr_build_in_a_terminal_shows_its_stages_then_the_summary(tmp_path: Path) -> None:
    src = _tree(tmp_path / "src", 100)
    out = tmp_path / "graph.json"
    screen = _sgkr_in_a_terminal("build", str(src), "-o", str(out), "--no-cache", "--jobs", "1")
    summary = screen.index("files: 100")
    assert "parse:" in screen[:summary] and "/100" in screen[:summary]
    quiet = _sgkr_in_a_terminal("build", str(src), "-o", str(out), "--no-cache", "--quiet")
    assert quiet.strip() == ""
    piped = subprocess.run([sys.executable, "-m", "sgkr", "build", str(src), "-o", str(out),
                            "--no-cache"], capture_output=True, text=True, check=True)
    assert piped.stderr == "" and "files: 100" in piped.stdout
