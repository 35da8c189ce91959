"""Extracting many files across processes: same results, same graph, as in one process."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from sgkr import build_graph
from sgkr.build import batch
from sgkr.build.batch import extract_files
from sgkr.errors import InvalidArgumentError
from sgkr.ingest.cache import ExtractCache, cache_key
from sgkr.ingest.sources import read_sources
from sgkr.records import ModuleExtract


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


def test_workers_hand_back_any_text_exactly(tmp_path: Path) -> None:
    # Handed back as plain data: lone surrogates, non-ASCII text and the knowledge
    # that repeats a docstring come back as the worker extracted them.
    pairs = [(f"m{i}.py", f'def f{i}(rows):\n    """S\u00e9lection \U0001f600 {i}."""\n'
              f'    return g(rows, "\udcff")\n') for i in range(6)]
    serial, _ = extract_files(pairs, jobs=1, cache=tmp_path / "one")
    parallel, stats = extract_files(pairs, jobs=2, cache=tmp_path / "two")
    assert stats.jobs == 2 and parallel == serial
    assert parallel[5].definitions[0].knowledge == "S\u00e9lection \U0001f600 5."
    again, stats = extract_files(pairs, jobs=2, cache=tmp_path / "two")
    assert stats.cached == 6 and again == serial


def test_parallel_build_writes_the_same_graph_json_as_a_serial_one(tmp_path: Path) -> None:
    src = _project(tmp_path / "src")
    serial = build_graph([src], infer_tags=True, jobs=1)
    parallel = build_graph([src], infer_tags=True, jobs=2, cache=tmp_path / "cache")
    warm = ExtractCache(tmp_path / "cache")
    cached = build_graph([src], infer_tags=True, jobs=2, cache=warm)
    serial.save(tmp_path / "serial.json")
    parallel.save(tmp_path / "parallel.json")
    cached.save(tmp_path / "cached.json")
    text = (tmp_path / "serial.json").read_text()
    assert (tmp_path / "parallel.json").read_text() == text
    assert (tmp_path / "cached.json").read_text() == text
    assert warm.misses == 0 and warm.hits == 13
    assert serial.stats()["call_edges"]["exact"] > 12
    assert [p.line for p in parallel.report.problems] == [p.line for p in serial.report.problems]


def test_a_parallel_extraction_fills_the_cache(tmp_path: Path) -> None:
    files, _ = read_sources([_project(tmp_path / "src", 4)])
    pairs = [(f.path, f.text) for f in files]
    _, stats = extract_files(pairs, jobs=2, cache=tmp_path / "cache")
    assert stats.parsed == 5
    assert len(ExtractCache(tmp_path / "cache")) == 5
    again, stats = extract_files(pairs, jobs=2, cache=tmp_path / "cache")
    assert (stats.parsed, stats.cached) == (0, 5)
    assert again == extract_files(pairs, jobs=1)[0]


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_bad_jobs_are_refused(jobs: object) -> None:
    with pytest.raises(InvalidArgumentError, match="jobs"):
        extract_files([("a.py", "x = 1\n")], jobs=jobs)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="jobs"):
        build_graph([("a.py", "x = 1\n")], jobs=jobs)  # type: ignore[arg-type]


def _sized(root: Path, count: int = 40) -> list[tuple[str, str]]:
    # Files of very different sizes: the batches of the largest come first.
    files, _ = read_sources([_project(root, count)])
    pairs = [(f.path, f.text) for f in files]
    return [(path, text + "def pad():\n    return 1\n" * (i % 7 * 30)) for i, (path, text)
            in enumerate(pairs)]


@pytest.mark.slow
def test_any_number_of_workers_gives_the_same_extractions(tmp_path: Path) -> None:
    pairs = _sized(tmp_path)
    serial, _ = extract_files(pairs, jobs=1)
    for jobs in (2, 3):
        parallel, stats = extract_files(pairs, jobs=jobs)
        assert parallel == serial
        assert (stats.jobs, stats.parsed) == (jobs, len(pairs))


def test_extractions_carry_their_derived_knowledge_and_tags(tmp_path: Path) -> None:
    from sgkr.analysis.knowledge import knowledge_of
    from sgkr.ingest.extract import extract_module
    from sgkr.tags.infer import infer_tags

    pairs = _sized(tmp_path, 8)
    for module in extract_files(pairs, jobs=2)[0]:
        plain = extract_module(module.path, dict(pairs)[module.path])
        for d, bare in zip(module.definitions, plain.definitions, strict=True):
            assert bare.knowledge is None and d.knowledge == knowledge_of(bare)
            assert (d.inferred_inputs, d.inferred_outputs) == infer_tags(bare)


def test_cache_entries_are_written_when_extraction_returns(tmp_path: Path) -> None:
    pairs = _sized(tmp_path / "src")
    modules, stats = extract_files(pairs, jobs=2, cache=tmp_path / "cache")
    assert len(modules) == stats.parsed == len(pairs)
    assert len(ExtractCache(tmp_path / "cache")) == len(pairs)
    warm = ExtractCache(tmp_path / "cache")
    again, stats = extract_files(pairs, jobs=2, cache=warm)
    assert (stats.parsed, warm.misses) == (0, 0) and again == modules


def test_an_interrupt_during_extraction_leaves_no_worker_behind(tmp_path: Path) -> None:
    pairs = _sized(tmp_path / "src")

    def interrupt(stage: str, done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        extract_files(pairs, jobs=2, cache=tmp_path / "cache", progress=interrupt)
    assert not multiprocessing.active_children()
    # Nothing half-written: whatever the cache holds is whole and usable.
    cache = ExtractCache(tmp_path / "cache")
    keys = [cache_key(path, text) for path, text in pairs]
    assert len(cache.get_many(keys)) == len(cache) <= len(pairs)


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                    reason="the failure is planted in this process, which workers must copy")
def test_a_failure_in_a_worker_is_raised_in_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = _sized(tmp_path)
    largest = max(pairs, key=lambda pair: len(pair[1]))[0]  # a worker parses it
    real = batch.extract_source

    def failing(path: str, text: str) -> ModuleExtract:
        if path == largest:
            raise ValueError(f"cannot read {path}")
        return real(path, text)

    monkeypatch.setattr(batch, "extract_source", failing)
    with pytest.raises(ValueError, match="cannot read"):
        extract_files(pairs, jobs=2)
    assert not multiprocessing.active_children()
