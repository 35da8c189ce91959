"""Every user error of the command line: one readable stderr line, a distinct status;
``--verbose`` adds the traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sgkr.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's own usage errors
        status = int(exc.code or 0)
    err = capsys.readouterr().err
    return status, err


@pytest.fixture()
def graph_file(tmp_path: Path) -> Path:
    from sgkr import build_graph

    path = tmp_path / "graph.json"
    build_graph([("m.py", "def f():\n    return 1\n")]).save(path)
    return path


def test_each_user_error_is_one_line_and_its_own_status(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, graph_file: Path) -> None:
    bad_graph = tmp_path / "bad.json"
    bad_graph.write_text('{"schema_version": 1, "nodes": [')
    bad_knowledge = tmp_path / "k.json"
    bad_knowledge.write_text("{not json")
    src = tmp_path / "src.py"
    src.write_text("def f():\n    pass\n")
    cases = {
        "missing graph": (("query", str(tmp_path / "none.json"), "fee?"), 5),
        "corrupt graph": (("inspect", str(bad_graph)), 5),
        "bad option": (("query", str(graph_file), "fee", "--k", "many"), 2),
        "unknown command": (("frobnicate",), 2),
        "bad k": (("query", str(graph_file), "fee", "--k", "0"), 2),
        "missing source": (("build", str(tmp_path / "nowhere"), "-o",
                            str(tmp_path / "o.json")), 3),
        "bad knowledge": (("build", str(src), "--knowledge", str(bad_knowledge), "-o",
                           str(tmp_path / "o.json")), 4),
        "unwritable output": (("build", str(src), "--no-cache", "-o", str(tmp_path)), 6),
    }
    for name, (argv, status) in cases.items():
        got, err = _run(capsys, *argv)
        assert got == status, (name, got, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("sgkr: error: "), (name, err)
        assert "Traceback" not in err


def test_verbose_gives_the_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, err = _run(capsys, "--verbose", "inspect", str(tmp_path / "none.json"))
    assert status == 5
    assert "Traceback (most recent call last)" in err
    assert err.strip().splitlines()[-1].startswith("sgkr: error: ")


def test_a_good_query_still_works(capsys: pytest.CaptureFixture[str], graph_file: Path) -> None:
    assert main(["query", str(graph_file), "f", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["question"] == "f"


@pytest.mark.subprocess
def test_the_real_entry_point_prints_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "sgkr", "inspect", str(tmp_path / "x.json")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 5
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("sgkr: error: ")
    assert done.stdout == ""


def test_a_build_that_skips_every_source_names_them_and_why(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # Issue 41, L2: the error said only "found no Python source to read in DIR".
    src = tmp_path / "src"
    src.mkdir()
    (src / "latin.py").write_bytes(b'x = "\xff\xfe"\n')
    (src / "big.py").write_text("x = 1\n" * 400)
    for name in range(7):
        (src / f"more{name}.py").write_text("y = 2\n" * 400)
    status, err = _run(capsys, "build", str(src), "-o", str(tmp_path / "g.json"),
                       "--max-file-bytes", "1000", "--no-cache")
    assert status != 0 and err.count("\n") == 1
    assert "9 files skipped" in err and "latin.py: not decodable" in err
    assert "big.py: file too large" in err and "and 4 more" in err
