"""``sgkr bench``: it runs, reports every figure, and leaves the measured sources alone."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sgkr import build_graph
from sgkr.bench import (
    make_questions,
    name_questions,
    percentile,
    run_bench,
    run_latency,
    run_process,
)
from sgkr.cli import main
from sgkr.errors import InvalidArgumentError, SGKRError, SourceError
from sgkr.ingest.cache import ExtractCache, default_cache_dir

pytestmark = pytest.mark.bench

REQUIRED = ("files", "lines", "functions", "call_edges", "parse_only_s", "build_s",
            "build_over_parse", "build_cpu_over_parse", "build_peak_over_parse",
            "build_peak_mb", "parse_only_peak_mb", "incremental_s", "cached_rebuild_s", "load_s",
            "unchanged_rebuild_s", "unchanged_rebuild_over_parse", "cached_rebuild_over_build",
            "cached_rebuild_cpu_over_build", "query_p50_ms",
            "query_p99_ms", "peak_rss_mb")


def _code(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(3):
        (root / f"m{i}.py").write_text(
            f"def compute_total_fee_{i}(amount, rate):\n    return scale_{i}(amount) * rate\n"
            f"def scale_{i}(amount):\n    return amount / 100\n", encoding="utf-8")
    return root


def test_run_bench_reports_every_figure_and_leaves_sources_untouched(tmp_path: Path) -> None:
    src = _code(tmp_path)
    before = {p.name: p.read_bytes() for p in src.iterdir()}
    report = run_bench(src, queries=20, jobs=1, repeat=3)
    assert {p.name: p.read_bytes() for p in src.iterdir()} == before
    assert (report.files, report.lines, report.functions, report.call_edges) == (3, 12, 6, 3)
    assert report.queries == 20 and report.answered == 20
    assert report.incremental_parsed == 1
    assert report.graph_bytes > 0 and report.peak_rss_mb > 0
    assert 0 < report.query_p50_ms <= report.query_p99_ms <= report.query_max_ms
    assert all(v >= 0 for v in (report.parse_only_s, report.build_s, report.load_s))
    assert len(report.parse_only_runs_s) == len(report.build_runs_s) == report.repeat == 3
    assert report.build_s == sorted(report.build_runs_s)[1]
    assert report.parse_only_s == sorted(report.parse_only_runs_s)[1]
    # Whole processes: a build imports and does more than the parse-only script.
    assert report.build_cpu_s > report.parse_only_cpu_s > 0
    assert report.build_peak_mb > report.parse_only_peak_mb > 0
    assert report.build_over_parse > 1 and report.build_peak_over_parse > 1
    assert report.cached_rebuild_s >= 0 and report.cached_rebuild_over_build >= 0
    assert report.cached_rebuild_cpu_over_build > 0 and report.cached_rebuild_over_parse > 0
    assert report.unchanged_rebuild_s > 0 and report.unchanged_rebuild_over_parse > 0
    assert report.unchanged_rebuild_cpu_over_parse > 0
    assert "nothing changed" in report.summary()
    assert "update, 1 file changed" in report.summary()
    assert "new build from the cache" in report.summary()


def test_run_process_times_a_whole_process_and_reports_failure(tmp_path: Path) -> None:
    grow = "x = bytearray(64 * 1024 * 1024); x[::4096] = b'1' * len(x[::4096])"
    small = run_process([sys.executable, "-c", "pass"], log_file=tmp_path / "log")
    large = run_process([sys.executable, "-c", grow], log_file=tmp_path / "log")
    assert large.peak_mb > small.peak_mb + 50
    with pytest.raises(SGKRError, match="exit 3.*boom"):
        run_process([sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"],
                    log_file=tmp_path / "log")


def test_cli_bench_json_has_the_required_keys(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    src = _code(tmp_path / "src")
    code = main(["bench", str(src), "--queries", "5", "--jobs", "2", "--repeat", "2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(REQUIRED) <= set(data)
    assert data["files"] == 3 and data["queries"] == 5
    assert data["repeat"] == 2 and len(data["build_runs_s"]) == 2


def test_max_files_and_no_questions_without_tags(tmp_path: Path) -> None:
    report = run_bench(_code(tmp_path), queries=4, jobs=1, max_files=2, infer_tags=False)
    assert report.files == 2
    assert (report.queries, report.query_p99_ms) == (0, 0.0)


def test_bad_input_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InvalidArgumentError, match="queries"):
        run_bench(tmp_path, queries=-1)
    with pytest.raises(InvalidArgumentError, match="repeat"):
        run_bench(tmp_path, repeat=0)
    with pytest.raises(SourceError, match="no Python"):
        run_bench(tmp_path)
    assert main(["bench", str(tmp_path / "missing")]) == 3
    assert "does not exist" in capsys.readouterr().err


def test_questions_name_input_and_output_tags() -> None:
    graph = build_graph([("m.py", "def average_fee(amount, rate):\n    return amount * rate\n")],
                        infer_tags=True)
    questions = make_questions(graph, 3, seed=1)
    assert len(questions) == 3
    assert all("average fee" in q and "amount" in q and "rate" in q for q in questions)
    assert make_questions(build_graph([("m.py", "x = 1\n")]), 3) == []


def test_percentile_nearest_rank() -> None:
    assert percentile([], 99) == 0.0
    assert percentile([5.0], 99) == 5.0
    assert percentile([float(i) for i in range(1, 1001)], 99) == 990.0


def test_cli_build_uses_jobs_and_a_cache_outside_the_sources(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _code(tmp_path / "src")
    out = tmp_path / "out" / "graph.json"
    assert main(["build", str(src), "-o", str(out), "--jobs", "2", "--quiet"]) == 0
    assert len(ExtractCache(default_cache_dir(out))) == 3
    assert sorted(p.name for p in out.parent.iterdir()) == ["graph.json", "graph.lexical.npz"]
    other = tmp_path / "c2"
    assert main(["build", str(src), "-o", str(out), "--cache", str(other), "--quiet"]) == 0
    assert len(ExtractCache(other)) == 3
    plain = tmp_path / "plain" / "graph.json"
    assert main(["build", str(src), "-o", str(plain), "--no-cache", "--quiet"]) == 0
    assert not default_cache_dir(plain).exists()
    with pytest.raises(SystemExit) as exit_info:
        main(["build", str(src), "--jobs", "0"])
    assert exit_info.value.code == 2
    assert "positive integer" in capsys.readouterr().err


def test_cli_bench_markdown_is_a_table_of_one_row(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    src = _code(tmp_path)
    assert main(["bench", str(src), "--queries", "3", "--jobs", "1", "--repeat", "1",
                 "--markdown"]) == 0
    header, rule, row = capsys.readouterr().out.strip().splitlines()
    assert header.count("|") == rule.count("|") == row.count("|")
    assert row.startswith(f"| {src} | ")


def test_bench_of_a_graph_file_times_its_load_and_questions_and_writes_answers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(_code(tmp_path / "s").glob("*.py"))
    graph = build_graph([(p.name, p.read_text()) for p in files], infer_tags=True)
    graph.save(tmp_path / "graph.json")
    report = run_latency(tmp_path / "graph.json", queries=4, questions="tags",
                         answers=tmp_path / "answers.jsonl")
    assert report.functions == 6 and report.queries == 4 and report.load_s > 0
    assert report.first_query_ms > 0 and 0 < report.query_p50_ms <= report.query_p99_ms
    lines = [json.loads(line) for line in (tmp_path / "answers.jsonl").read_text().splitlines()]
    assert [line["question"] for line in lines] == make_questions(graph, 4)
    assert all(isinstance(d[0], str) and d[1] > 0 for line in lines for d in line["documents"])
    names = run_latency(tmp_path / "graph.json", queries=3, questions="names")
    assert names.questions == "names" and names.queries == names.answered == 3
    assert main(["bench", "--graph", str(tmp_path / "graph.json"), "--queries", "2",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["queries"] == 2
    assert main(["bench"]) == 2 and "either PATH" in capsys.readouterr().err
    with pytest.raises(InvalidArgumentError, match="questions"):
        run_latency(tmp_path / "graph.json", questions="random")


def test_name_questions_are_docstrings_and_names_drawn_by_the_seed() -> None:
    graph = build_graph([("fees.py", "".join(
        f"def parse_rate_{n}(text):\n    '''Parse rate number {n}.'''\n    return text\n"
        for n in range(6)))])
    asked = name_questions(graph, 4, seed=3)
    assert asked == name_questions(graph, 4, seed=3) != name_questions(graph, 4, seed=4)
    assert asked[0].startswith("Parse rate number") and asked[1].startswith("Where do we parse")
