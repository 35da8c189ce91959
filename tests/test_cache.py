"""The content-hash extraction cache: round trip, invalidation, and safety against crashes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sgkr import build_graph
from sgkr.cache import (
    ExtractCache,
    cache_key,
    default_cache_dir,
    extract_from_json,
    extract_to_json,
)
from sgkr.errors import InvalidArgumentError
from sgkr.extract import extract_module

CODE = '''"""Module doc."""
import os
from .b import helper as h

# Adds.
class A(Base):
    def run(self, x):
        """Run it."""
        return self.go(x["key"]) + h(x)

async def f(a, *args, b=1, **kw):
    super().g()
    return os.path.join(a)

print(f(1))
'''


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_json_round_trip_keeps_every_field() -> None:
    module = extract_module("pkg/a.py", CODE)
    again = extract_from_json(json.loads(json.dumps(extract_to_json(module))))
    assert again == module
    assert any(d.is_async for d in again.definitions)
    assert again.imports and again.classes


def test_broken_file_keeps_its_syntax_problem_through_the_cache(tmp_path: Path) -> None:
    module = extract_module("bad.py", "def f(:\n    pass\n\ndef g():\n    f()\n")
    cache = ExtractCache(tmp_path)
    cache.put(cache_key("bad.py", "x"), module)
    assert cache.get(cache_key("bad.py", "x")) == module
    assert module.problems and module.problems[0].kind == "syntax"


def test_key_depends_on_path_and_exact_text() -> None:
    key = cache_key("a.py", "x = 1\n")
    assert key == cache_key("a.py", "x = 1\n")
    assert key != cache_key("a.py", "x = 2\n")
    assert key != cache_key("b.py", "x = 1\n")
    with pytest.raises(InvalidArgumentError):
        cache_key(None, "x")  # type: ignore[arg-type]


def test_corrupt_truncated_and_foreign_entries_are_misses(tmp_path: Path) -> None:
    cache = ExtractCache(tmp_path / "c")
    module = extract_module("a.py", CODE)
    key = cache_key("a.py", CODE)
    cache.put(key, module)
    entry = cache.entry_path(key)
    whole = entry.read_text(encoding="utf-8")
    entry.write_text(whole[: len(whole) // 2], encoding="utf-8")
    assert cache.get(key) is None
    entry.write_text(whole.replace('"version":', '"version_":'), encoding="utf-8")
    assert cache.get(key) is None
    entry.write_text(whole, encoding="utf-8")
    assert cache.get(cache_key("a.py", CODE + "\n")) is None
    assert cache.get(key) == module
    assert (cache.hits, cache.misses) == (1, 3)


def test_a_crash_mid_write_leaves_the_old_entry_and_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ExtractCache(tmp_path)
    key = cache_key("a.py", CODE)
    old = extract_module("a.py", CODE)
    cache.put(key, old)

    def crash(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        cache.put(key, extract_module("a.py", "def other():\n    pass\n"))
    monkeypatch.undo()
    assert cache.get(key) == old
    assert [p.name for p in cache.entry_path(key).parent.iterdir()] == [f"{key}.json"]


def test_folder_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(InvalidArgumentError, match="is a file"):
        ExtractCache(tmp_path / "f")


def test_second_build_parses_only_the_changed_file(tmp_path: Path) -> None:
    src = _tree(tmp_path / "src", {
        "a.py": "from b import g\ndef f():\n    return g()\n",
        "b.py": "def g():\n    return 1\n",
        "c.py": "def h():\n    return 2\n",
    })
    folder = tmp_path / "cache"
    first = build_graph([src], cache=folder, jobs=1)
    warm = ExtractCache(folder)
    second = build_graph([src], cache=warm, jobs=1)
    assert (warm.hits, warm.misses) == (3, 0)
    assert second.to_dict()["nodes"] == first.to_dict()["nodes"]
    assert second.to_dict()["edges"] == first.to_dict()["edges"]
    (src / "b.py").write_text("def g():\n    return k()\ndef k():\n    return 3\n")
    changed = ExtractCache(folder)
    third = build_graph([src], cache=changed, jobs=1)
    assert (changed.hits, changed.misses) == (2, 1)
    assert "fn:b.k" in third and "fn:b.k" not in second
    uncached = build_graph([src], jobs=1)
    assert third.to_dict()["edges"] == uncached.to_dict()["edges"]


def test_an_entry_for_other_bytes_is_never_used(tmp_path: Path) -> None:
    # The key hashes the text that is parsed: a file read while it changes
    # gets the entry of the bytes actually read, not of what was there before.
    src = _tree(tmp_path / "src", {"a.py": "def f():\n    pass\n"})
    folder = tmp_path / "cache"
    build_graph([src], cache=folder, jobs=1)
    (src / "a.py").write_text("def f2():\n    pass\n")
    graph = build_graph([src], cache=folder, jobs=1)
    assert "fn:a.f2" in graph and "fn:a.f" not in graph


def test_default_cache_dir_is_next_to_the_output() -> None:
    assert default_cache_dir(Path("x") / "graph.json") == Path("x") / ".sgkr-cache"


def test_derived_fields_round_trip_without_repeating_the_docstring(tmp_path: Path) -> None:
    from sgkr.knowledge import annotate

    module = annotate(extract_module("pkg/a.py", CODE))
    run = next(d for d in module.definitions if d.name == "run")
    assert run.knowledge == "Run it." and run.inferred_inputs == ("x", "key")
    data = extract_to_json(module)
    assert json.dumps(data).count("Run it.") == 2  # in the code and as the docstring
    again = extract_from_json(json.loads(json.dumps(data)))
    assert again == module
    assert next(d for d in again.definitions if d.name == "run").knowledge == "Run it."
    cache = ExtractCache(tmp_path)
    cache.put(cache_key("pkg/a.py", CODE), module)
    assert cache.get(cache_key("pkg/a.py", CODE)) == module


def test_entries_of_another_format_or_with_bad_references_are_misses(tmp_path: Path) -> None:
    from sgkr.knowledge import annotate

    cache = ExtractCache(tmp_path)
    key = cache_key("a.py", CODE)
    cache.put(key, annotate(extract_module("a.py", CODE)))
    entry = cache.entry_path(key)
    whole = json.loads(entry.read_text(encoding="utf-8"))
    older = dict(whole, format=1)
    older["extract"] = dict(whole["extract"], defs=[d[:15] for d in whole["extract"]["defs"]])
    entry.write_text(json.dumps(older), encoding="utf-8")
    assert cache.get(key) is None
    bad = json.loads(json.dumps(whole))
    bad["extract"]["defs"][1][15] = 7  # neither the docstring's nor the comment's
    entry.write_text(json.dumps(bad), encoding="utf-8")
    assert cache.get(key) is None
    assert cache.misses == 2


def test_a_stale_temporary_file_does_not_stop_a_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import itertools

    from sgkr import cache as cache_module

    cache = ExtractCache(tmp_path)
    key = cache_key("a.py", CODE)
    entry = cache.entry_path(key)
    entry.parent.mkdir(parents=True)
    stale = entry.parent / f".{entry.name}.{os.getpid()}-7.tmp"
    stale.write_text("left by a crash", encoding="utf-8")
    monkeypatch.setattr(cache_module, "_SERIAL", itertools.count(7))
    module = extract_module("a.py", CODE)
    cache.put(key, module)
    assert cache.get(key) == module
    assert stale.read_text(encoding="utf-8") == "left by a crash"


def test_surrogates_survive_the_cache(tmp_path: Path) -> None:
    text = "def f():\n    return '\udcff'\n"
    module = extract_module("s.py", text)
    cache = ExtractCache(tmp_path)
    cache.put(cache_key("s.py", text), module)
    assert cache.get(cache_key("s.py", text)) == module
