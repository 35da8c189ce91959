"""Extracting many files across processes: same results, same graph, as in one process."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgkr import build_graph
from sgkr.batch import extract_files
from sgkr.cache import ExtractCache
from sgkr.errors import InvalidArgumentError
from sgkr.sources import read_sources


def _project(root: Path, count: int = 12) -> Path:
    for i in range(count):
        body = [f"from pkg.m{(i + 1) % count} import step{(i + 1) % count}\n",
                f"class C{i}:\n    def run(self, rows):\n        return self.total(rows)\n",
                "    def total(self, rows):\n        return sum(r['amount'] for r in rows)\n",
                f"def step{i}(value):\n    return step{(i + 1) % count}(value) + C{i}().run([])\n"]
        if i % 5 == 0:
            body.append("def broken(:\n    pass\n")
        path = root / "pkg" / f"m{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(body), encoding="utf-8")
    (root / "pkg" / "__init__.py").write_text("from .m0 import step0\n")
    return root


def test_parallel_extraction_matches_serial_in_order(tmp_path: Path) -> None:
    files, _ = read_sources([_project(tmp_path)])
    pairs = [(f.path, f.text) for f in files]
    serial, one = extract_files(pairs, jobs=1)
    parallel, two = extract_files(pairs, jobs=2)
    assert parallel == serial
    assert [m.path for m in parallel] == [f.path for f in files]
    assert (one.jobs, two.jobs, two.parsed, two.cached) == (1, 2, len(files), 0)


def test_parallel_build_writes_the_same_graph_json_as_a_serial_one(tmp_path: Path) -> None:
    src = _project(tmp_path / "src")
    serial = build_graph([src], infer=True, jobs=1)
    parallel = build_graph([src], infer=True, jobs=2, cache=tmp_path / "cache")
    warm = ExtractCache(tmp_path / "cache")
    cached = build_graph([src], infer=True, jobs=2, cache=warm)
    serial.save(tmp_path / "serial.json")
    parallel.save(tmp_path / "parallel.json")
    cached.save(tmp_path / "cached.json")
    text = (tmp_path / "serial.json").read_text()
    assert (tmp_path / "parallel.json").read_text() == text
    assert (tmp_path / "cached.json").read_text() == text
    assert warm.misses == 0 and warm.hits == 13
    assert serial.stats()["call_edges"]["exact"] > 12
    assert [p.line for p in parallel.report.problems] == [p.line for p in serial.report.problems]


def test_workers_write_cache_entries(tmp_path: Path) -> None:
    files, _ = read_sources([_project(tmp_path / "src", 4)])
    pairs = [(f.path, f.text) for f in files]
    _, stats = extract_files(pairs, jobs=2, cache=tmp_path / "cache")
    assert stats.parsed == 5
    assert len(list((tmp_path / "cache").glob("*/*.json"))) == 5
    again, stats = extract_files(pairs, jobs=2, cache=tmp_path / "cache")
    assert (stats.parsed, stats.cached) == (0, 5)
    assert again == extract_files(pairs, jobs=1)[0]


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_bad_jobs_are_refused(jobs: object) -> None:
    with pytest.raises(InvalidArgumentError, match="jobs"):
        extract_files([("a.py", "x = 1\n")], jobs=jobs)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="jobs"):
        build_graph([("a.py", "x = 1\n")], jobs=jobs)  # type: ignore[arg-type]
