"""Fuzzing the reader and the extractor: odd files, broken code, random text.

Every input must give a result (no exception, no RecursionError); what could be
read is in the graph, what could not is reported with the file and the reason.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgkr import build_graph
from sgkr.ingest.codetext import dedent
from sgkr.ingest.extract import extract_module
from sgkr.ingest.sources import read_sources

from .corpus import BREAKS, VALID, broken_variants, oddities

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def odd_build(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("odd")
    corpus = oddities()
    for odd in corpus:
        (folder / odd.name).write_bytes(odd.data)
    return corpus, build_graph([folder], jobs=1)


@pytest.mark.slow
def test_every_readable_oddity_is_in_the_graph(odd_build) -> None:  # type: ignore[no-untyped-def]
    corpus, graph = odd_build
    names = {f.name for f in graph.functions()}
    for odd in corpus:
        if odd.skip is None:
            missing = [e[:40] for e in odd.expect if e not in names]
            assert not missing, f"{odd.name}: functions not found: {missing}"


def test_every_unreadable_oddity_is_reported_with_its_reason(odd_build) -> None:  # type: ignore[no-untyped-def]
    corpus, graph = odd_build
    skipped = {p.file: p.reason for p in graph.report.problems if p.kind == "skipped"}
    for odd in corpus:
        if odd.skip is not None:
            assert odd.name in skipped, f"{odd.name} was neither read nor reported"
            assert odd.skip in skipped[odd.name], (odd.name, skipped[odd.name])
        else:
            assert odd.name not in skipped, (odd.name, skipped.get(odd.name))


def test_broken_files_say_where(odd_build) -> None:  # type: ignore[no-untyped-def]
    _, graph = odd_build
    syntax = {p.file: p for p in graph.report.problems if p.kind == "syntax"}
    for name in ("unterminated_string.py", "unterminated_bracket.py", "deep_unclosed.py"):
        assert syntax[name].line is not None and syntax[name].line >= 1
        assert "syntax error" in syntax[name].reason


@pytest.mark.slow
def test_nesting_ten_thousand_deep_needs_no_recursion() -> None:
    from .corpus import nested

    for kind in ("brackets", "unclosed", "calls", "operators"):
        module = extract_module("deep.py", nested(kind, 10_000))
        assert "after" in [d.name for d in module.definitions], kind


def test_deeply_nested_functions_are_all_found() -> None:
    from .corpus import nested

    module = extract_module("defs.py", nested("defs", 300))
    names = [d.qualname for d in module.definitions]
    assert len(names) == 300 and names[-1].endswith(".f299")
    assert names[-1].count(".") == 300


@pytest.mark.slow
def test_syntax_error_anywhere_in_one_function_keeps_the_others() -> None:
    variants = broken_variants(step=13)
    assert len(variants) > 300
    for position, fragment, text in variants:
        module = extract_module("m.py", text)
        names = {d.name for d in module.definitions}
        assert {"first", "keep", "last"} <= names, (position, fragment, sorted(names))


def test_syntax_error_is_reported_with_a_line() -> None:
    module = extract_module("m.py", VALID.replace("total = 0", "total = (0"))
    assert [p.kind for p in module.problems] == ["syntax"]
    assert module.problems[0].line is not None
    assert {"first", "middle", "keep", "last"} <= {d.name for d in module.definitions}


def test_oversized_file_is_skipped_and_reported(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_text("x = [" + "1, " * 50_000 + "]\n")
    small = tmp_path / "small.py"
    small.write_text("def ok():\n    return 1\n")
    files, problems = read_sources([tmp_path], max_file_bytes=100_000)
    assert [f.path for f in files] == ["small.py"]
    assert problems[0].file == "big.py" and "too large" in problems[0].reason
    files, problems = read_sources([tmp_path], max_file_bytes=1_000_000)
    assert [f.path for f in files] == ["big.py", "small.py"] and not problems


def test_unreadable_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # We run as root, where chmod 000 does not stop reading: make reading fail instead.
    (tmp_path / "locked.py").write_text("def locked():\n    pass\n")
    (tmp_path / "open.py").write_text("def fine():\n    pass\n")
    real = os.open

    def open_file(path: str, flags: int, *args: int) -> int:
        if str(path).endswith("locked.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, flags, *args)

    monkeypatch.setattr(os, "open", open_file)
    graph = build_graph([tmp_path], jobs=1)
    assert [f.name for f in graph.functions()] == ["fine"]
    [problem] = graph.report.problems
    assert problem.file == "locked.py" and "not readable" in problem.reason
    assert "Permission denied" in problem.reason


def test_unreadable_folder_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "shut").mkdir()
    (tmp_path / "shut" / "inner.py").write_text("def inner():\n    pass\n")
    (tmp_path / "top.py").write_text("def top():\n    pass\n")
    real = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if str(path).endswith("shut"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    files, problems = read_sources([tmp_path])
    assert [f.path for f in files] == ["top.py"]
    assert [(p.file, "not readable" in p.reason) for p in problems] == [("shut", True)]


def test_symlinks_up_and_in_loops_are_skipped_and_reported(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("def mod():\n    pass\n")
    (tmp_path / "outside.py").write_text("def outside():\n    pass\n")
    (root / "pkg" / "loop").symlink_to(root / "pkg", target_is_directory=True)
    (root / "up").symlink_to(tmp_path, target_is_directory=True)
    (root / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    files, problems = read_sources([root])
    assert [f.path for f in files] == ["pkg/mod.py"]
    reasons = {p.file: p.reason for p in problems}
    assert set(reasons) == {"pkg/loop", "up", "dangling.py"}
    assert "loop" in reasons["pkg/loop"] and "outside" in reasons["up"]
    assert "broken symlink" in reasons["dangling.py"]


@pytest.mark.slow
@FAST
@given(st.text(max_size=400))
def test_random_text_never_crashes(text: str) -> None:
    module = extract_module("r.py", text)
    for d in module.definitions:
        assert d.span.start_line >= 1 and d.span.end_line >= d.span.start_line


_PIECES = st.sampled_from([*BREAKS, "def f(x):\n", "    return g(x)\n", "class C:\n",
                           "    def m(self):\n", "        pass\n", "x = [1,\n", "async ",
                           "await ", "# comment\n", "'''doc'''\n", "@decorator\n", "\r\n",
                           "import os\n", "from . import y\n", "yield\n", "\x0c", "\u00e9"])


@FAST
@given(st.lists(_PIECES, max_size=40))
def test_random_python_like_text_never_crashes(pieces: list[str]) -> None:
    text = "".join(pieces)
    module = extract_module("pkg/r.py", text)
    assert all(d.qualname.startswith("pkg.r") for d in module.definitions)


@FAST
@given(st.text(alphabet=st.sampled_from(" \t\n\r\x0b\x0cab#\u00a0"), max_size=80))
def test_linear_dedent_matches_textwrap(text: str) -> None:
    assert dedent(text) == textwrap.dedent(text)


@FAST
@given(st.binary(max_size=300))
def test_random_bytes_are_read_or_reported(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "blob.py").write_bytes(data)
        files, problems = read_sources([folder])
    assert len(files) + len(problems) == 1
    for f in files:
        extract_module(f.path, f.text)
