"""``sgkr eval`` on a tiny dataset folder, model-free."""

from __future__ import annotations

import json
from pathlib import Path

from sgkr.cli import main
from sgkr.eval.datasets import write_dataset

from .test_runner_report import _dataset


def test_eval_command_writes_report(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = write_dataset(_dataset(), tmp_path / "toy")
    out = tmp_path / "out"
    status = main(["eval", str(folder), "--embedding", "hash", "--no-ablations",
                   "--out", str(out), "--no-png"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "toy (leave-one-out; budget k=" in printed and "graphsage" in printed
    data = json.loads((out / "results.json").read_text())
    assert data["datasets"][0]["summaries"]["all"]["sgkr"]["questions"] == 4


def test_eval_errors_are_one_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["eval", str(tmp_path / "missing")]) == 3
    assert main(["eval", "finqa", "--data", str(tmp_path), "--no-dense"]) == 3
    err = capsys.readouterr().err
    assert err.count("sgkr: error:") == 2
