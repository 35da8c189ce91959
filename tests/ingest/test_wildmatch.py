"""``.gitignore`` patterns: what git ignores, in time linear in the path (issue 33, M3)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgkr.ingest.ignore import MAX_GITIGNORE_GLOBS, GitIgnore, IgnoreRules
from sgkr.ingest.sources import read_sources
from sgkr.ingest.wildmatch import MAX_PATTERN_CHARS, GitPattern

# (pattern, path, is a folder, ignored): git's documented examples and the odd corners.
CASES = [
    ("*.log", "a/b/x.log", False, True), ("*.log", "x.log.txt", False, False),
    ("/build", "build", True, True), ("/build", "src/build", True, False),
    ("build/", "src/build", True, True), ("build/", "src/build", False, False),
    ("doc/frotz", "doc/frotz", True, True), ("doc/frotz", "a/doc/frotz", True, False),
    ("**/foo", "foo", False, True), ("**/foo", "a/b/foo", False, True),
    ("**/foo/bar", "x/foo/bar", False, True), ("abc/**", "abc/x/y", False, True),
    ("abc/**", "abc", True, False), ("a/**/b", "a/b", False, True),
    ("a/**/b", "a/x/y/b", False, True), ("a/**/b", "a/x/y/c", False, False),
    ("a**b", "a/b", False, False), ("a**b", "axxb", False, True),
    ("***/x", "p/q/x", False, True), ("x?", "x/", False, False),
    ("[a-c]at", "bat", False, True), ("[!a-c]at", "bat", False, False),
    ("[^a-c]at", "rat", False, True), ("[]x]", "]", False, True),
    ("[[:digit:]]*", "9lives", False, True), ("[[:upper:]]", "a", False, False),
    ("\\#x", "#x", False, True), ("#x", "#x", False, False), ("\\!x", "!x", False, True),
    ("x\\ ", "x ", False, True), ("x  ", "x", False, True), ("x\\", "x", False, False),
    ("[x", "[x", False, True), ("a*a*a*a*b", "a" * 50, False, False),
]


@pytest.mark.parametrize(("pattern", "path", "is_dir", "ignored"), CASES)
def test_patterns_match_as_git_reads_them(pattern: str, path: str, is_dir: bool,
                                          ignored: bool) -> None:
    assert _walk_ignored(IgnoreRules().with_gitignore("", [pattern]), path, is_dir) is ignored


def test_the_last_pattern_decides_literals_and_globs_alike() -> None:
    rules = GitIgnore(["*.py", "!keep.py", "keep.py", "!*.py", "/top.py"])
    assert rules.verdict("a.py", is_dir=False) is False
    assert rules.verdict("top.py", is_dir=False) is True
    assert rules.verdict("x/top.py", is_dir=False) is False
    assert GitIgnore(["a/", "!a"]).verdict("a", is_dir=True) is False


@pytest.mark.parametrize("line", ["x" * (MAX_PATTERN_CHARS + 1), "[[:bogus:]]"])
def test_a_pattern_git_cannot_read_is_refused_with_its_line(line: str) -> None:
    with pytest.raises(ValueError, match="line 2"):
        GitIgnore(["ok", line])


@pytest.mark.slow
def test_too_many_wildcard_patterns_are_refused_literal_ones_are_not() -> None:
    GitIgnore([f"file{i}.py" for i in range(10 * MAX_GITIGNORE_GLOBS)])
    with pytest.raises(ValueError, match="patterns with wildcards"):
        GitIgnore([f"*{i}.py" for i in range(MAX_GITIGNORE_GLOBS + 1)])


def _walk_ignored(rules: IgnoreRules, path: str, is_dir: bool) -> bool:
    """Whether a walk leaves ``path`` out: a folder above it is, or it is."""
    parts = path.split("/")
    return any(rules.ignored("/".join(parts[:i]), is_dir=True) for i in range(1, len(parts))) \
        or rules.ignored(path, is_dir=is_dir)


# -- hostile patterns: each path is matched in time linear in it ----------------------------

STAR_RUNS = st.lists(st.sampled_from(["a", "a*", "*", "?", "[a-b]", "**", "a/", "**/", "*a*"]),
                     min_size=50, max_size=400)


@settings(max_examples=40, deadline=None)
@given(STAR_RUNS, st.integers(50, 250))
def test_hostile_patterns_match_long_names_without_backtracking(pieces: list[str],
                                                                 length: int) -> None:
    # 'a*a*...*b' against 'aaa...': a backtracking matcher tries every split (hours).
    pattern = GitPattern.parse("".join(pieces) + "b")
    assert pattern is not None
    for name in ("a" * length, "/".join(["a" * 40] * 20), "ab" * (length // 2)):
        pattern.matches(name, is_dir=False)


def test_m3_a_gitignore_with_many_stars_is_applied_in_a_moment(tmp_path: Path) -> None:
    # Issue 33, M3: "a*" * 30 + "b" hung the walk (over 120 s for one file name).
    (tmp_path / ".gitignore").write_text("a*" * 2000 + "b\n" + "**/" * 1300 + "x\n")
    for i in range(50):
        (tmp_path / ("a" * 200 + f"{i}.py")).write_text("x = 1\n")
    deep = tmp_path.joinpath(*["a" * 20] * 40)
    deep.mkdir(parents=True)
    (deep / "m.py").write_text("x = 1\n")
    files, problems = read_sources([tmp_path])
    assert len(files) == 51 and not problems


# -- the same verdicts as git's own walk ----------------------------------------------------

# Patterns of real .gitignore files, and paths they are about (a folder ends with '/').
PATTERNS = [
    "__pycache__/", "*.py[cod]", "build/", "*.egg-info/", "/site", "docs/_build/", ".env",
    "**/generated", "a/**/b.py", "data/*.csv", "[Tt]emp*.py", r"\#notes.py", "logs", "trail.py  ",
    "nested/deep/", "*~", "x?.py", "!keep.pyc",
]
PATHS = [
    "main.py", "pkg/mod.pyc", "keep.pyc", "build/", "src/build/", "lib.egg-info/", "site",
    "sub/site", "docs/_build/", "docs/_build/x.py", ".env", "p/.env", "generated",
    "q/generated/", "a/b.py", "a/x/y/b.py", "ab.py", "data/t.csv", "data/sub/t.csv", "Temp1.py",
    "temp.py", "#notes.py", "logs/", "z/logs/", "trail.py", "nested/deep/", "nested/", "f.py~",
    "x1.py", "x12.py",
]


@pytest.mark.subprocess
@pytest.mark.skipif(shutil.which("git") is None, reason="git is the reference")
@pytest.mark.parametrize("lines", [[p] for p in PATTERNS] + [PATTERNS[::2], PATTERNS])
def test_real_patterns_leave_out_what_git_ignores(tmp_path: Path, lines: list[str]) -> None:
    files = [p + "f.py" if p.endswith("/") else p for p in PATHS]
    _same_as_git(tmp_path, lines, [], _make_tree(tmp_path, files))

ATOMS = ["a", "b", "*", "**", "?", "/", "[ab]", "[!a]", "\\*", "!", " ", "\\ ", "[a-b]", "[]a]",
         "c", "#", "\\", "[[:alpha:]]", "[a-]", "[", "]"]
NAMES = ["a", "b", "ab", "ba", "c", "*", "a b", "aa", "a ", "]", "!a", "#", "\\"]
LINES = st.lists(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=6).map("".join)
                 .filter(lambda line: "\\/" not in line), min_size=1, max_size=3)
TREES = st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map("/".join),
                 min_size=1, max_size=12)


@pytest.mark.subprocess
@pytest.mark.skipif(shutil.which("git") is None, reason="git is the reference")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(LINES, LINES, TREES)
def test_a_walk_leaves_out_what_git_ignores(tmp_path_factory: pytest.TempPathFactory,
                                            top: list[str], nested: list[str],
                                            paths: list[str]) -> None:
    root = tmp_path_factory.mktemp("repo")
    _same_as_git(root, top, nested, _make_tree(root, paths))


def _same_as_git(root: Path, top: list[str], nested: list[str], files: list[str]) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("\n".join(top) + "\n")
    if (root / "a").is_dir():  # a deeper .gitignore decides for what is under it
        (root / "a" / ".gitignore").write_text("\n".join(nested) + "\n")
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "-o", "-i",
                             "--exclude-standard"], capture_output=True, check=True).stdout
    git_ignored = {p.decode() for p in listed.split(b"\0") if p}
    for path in files:
        rules = IgnoreRules().with_gitignore("", top)
        if path.startswith("a/") and (root / "a").is_dir():
            rules = rules.with_gitignore("a/", nested)
        assert _walk_ignored(rules, path, False) is (path in git_ignored), (top, nested, path)


def _make_tree(root: Path, paths: list[str]) -> list[str]:
    made: list[str] = []
    for path in paths:
        if any(f.startswith(path + "/") or path.startswith(f + "/") or f == path for f in made):
            continue
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("")
        made.append(path)
    return made
