"""The content-hash extraction cache: round trip, invalidation, and safety against crashes."""

from __future__ import annotations

import hmac
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sgkr import build_graph
from sgkr.errors import InvalidArgumentError
from sgkr.ingest import cache as cache_module
from sgkr.ingest.cache import (
    DATABASE,
    ExtractCache,
    cache_key,
    default_cache_dir,
    entry_bytes,
    entry_extract,
    extract_from_json,
    extract_to_json,
)
from sgkr.ingest.cachedir import secret_key, user_cache_root
from sgkr.ingest.extract import extract_module
from sgkr.records import ModuleExtract
from sgkr.tags.infer import annotate

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
FS = [f, h]
K = -1
FS[K]()
x = FS[1:][0]
FS += [f]
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
    body = again.definitions[0]  # positions, subscripts and changes too
    assert body.changes and any(c.index for c in body.calls)
    assert any(b.position for b in body.bindings) and any(b.value.index for b in body.bindings)


def test_entries_encoded_elsewhere_are_stored_as_put_many_stores_them(tmp_path: Path) -> None:
    # A build's process encodes its entries and its workers write them.
    module = annotate(extract_module("pkg/a.py", CODE))
    key = cache_key("pkg/a.py", CODE)
    cache = ExtractCache(tmp_path / "one")
    cache.put_entries([(key, entry_bytes(key, module))])
    assert cache.get(key) == module and cache.writes == 1
    other = ExtractCache(tmp_path / "two")
    other.put_many([(key, module)])
    assert other.get(key) == cache.get(key)


def test_an_entry_made_by_a_worker_reads_back_as_the_same_extraction() -> None:
    # A build's workers hand their extractions back as entries, read without the checks.
    text = CODE + 'def h():\n    """\u00e9t\u00e9"""\n    return "\udcff"\n'
    module = annotate(extract_module("pkg/a.py", text))
    assert entry_extract(entry_bytes("k", module)) == module
    assert entry_extract(entry_bytes("", module)) == module


def test_kinds_are_shared_by_the_records_read_back() -> None:
    module = extract_module("pkg/a.py", CODE)
    again = extract_from_json(json.loads(json.dumps(extract_to_json(module))))
    kinds = [c.kind for d in again.definitions for c in d.calls] + \
        [d.kind for d in again.definitions]
    assert len(kinds) > 3 and len({id(k) for k in kinds}) == len(set(kinds))


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


def _raw(cache: ExtractCache, key: str) -> bytes:
    """An entry as stored, without the HMAC that opens it."""
    with sqlite3.connect(cache.path) as db:
        row = db.execute("SELECT data FROM entries WHERE key = ?", (key,)).fetchone()
    assert row is not None
    return bytes(row[0])[64:]


def _set_raw(cache: ExtractCache, key: str, data: bytes, *, digest: bool = True) -> None:
    """Store ``data`` as the entry, opened by its right HMAC (to test the other checks)."""
    if digest:
        data = hmac.digest(secret_key(), data, "sha256").hex().encode() + data
    db = sqlite3.connect(cache.path)
    with db:
        db.execute("UPDATE entries SET data = ? WHERE key = ?", (data, key))
    db.close()


def test_corrupt_truncated_and_foreign_entries_are_misses(tmp_path: Path) -> None:
    cache = ExtractCache(tmp_path / "c")
    module = extract_module("a.py", CODE)
    key = cache_key("a.py", CODE)
    cache.put(key, module)
    whole = _raw(cache, key)
    _set_raw(cache, key, whole[: len(whole) // 2])
    assert cache.get(key) is None
    _set_raw(cache, key, whole.replace(b'"version":', b'"version_":'))
    assert cache.get(key) is None
    _set_raw(cache, key, whole)
    assert cache.get(cache_key("a.py", CODE + "\n")) is None
    assert cache.get(key) == module
    assert (cache.hits, cache.misses) == (1, 3)


@pytest.mark.parametrize("stage", ["encoding", "inserting"])
def test_an_error_mid_write_stores_none_of_the_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    cache = ExtractCache(tmp_path)
    key, other = cache_key("a.py", CODE), cache_key("b.py", CODE)
    old = extract_module("a.py", CODE)
    cache.put(key, old)
    if stage == "encoding":
        encode = cache_module.entry_bytes
        calls = iter(range(10))

        def interrupted(k: str, m: ModuleExtract) -> bytes:
            if next(calls) == 1:
                raise KeyboardInterrupt
            return encode(k, m)

        monkeypatch.setattr(cache_module, "entry_bytes", interrupted)
    else:  # the first new row is inserted, then the write is interrupted
        insert = ExtractCache._insert

        def interrupted_insert(self: ExtractCache, rows: list[tuple[str, bytes]],
                               schema: str) -> None:
            def first_then_stop() -> Iterator[tuple[str, bytes]]:
                yield rows[0]
                raise KeyboardInterrupt

            insert(self, first_then_stop(), schema)

        monkeypatch.setattr(ExtractCache, "_insert", interrupted_insert)
    new = extract_module("a.py", "def other():\n    pass\n")
    with pytest.raises(KeyboardInterrupt):
        cache.put_many([(key, new), (other, new)])
    monkeypatch.undo()
    assert cache.get(key) == old and cache.get(other) is None
    assert len(cache) == 1 and cache.writes == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [DATABASE]


@pytest.mark.subprocess
def test_a_process_killed_mid_write_leaves_the_old_entries(tmp_path: Path) -> None:
    cache = ExtractCache(tmp_path)
    key = cache_key("a.py", CODE)
    old = extract_module("a.py", CODE)
    cache.put(key, old)
    cache.close()
    # The writer dies (no cleanup, no exit handlers) after its first new row is inserted.
    script = f"""
import os
from sgkr.ingest import cache as c
from sgkr.ingest.extract import extract_module
insert = c.ExtractCache._insert
def dying(self, rows, schema):
    def first_then_die():
        yield rows[0]
        os._exit(9)
    insert(self, first_then_die(), schema)
c.ExtractCache._insert = dying
new = extract_module("a.py", "def other():\\n    pass\\n")
c.ExtractCache({str(tmp_path)!r}).put_many([({key!r}, new), ("k2", new)])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 9, done.stderr
    again = ExtractCache(tmp_path)
    assert again.get(key) == old and len(again) == 1


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
    # Two files found, one parsed, and b.py's old version read: what its change reaches.
    assert (changed.hits, changed.misses) == (3, 1)
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


def test_default_cache_dir_is_in_the_users_cache_one_per_output_folder(tmp_path: Path) -> None:
    here = default_cache_dir(Path("x") / "graph.json")
    assert here.parent == user_cache_root() / "builds"
    assert here == default_cache_dir(Path("x") / "other.json") == default_cache_dir(
        Path("x").resolve() / "graph.json")
    assert here != default_cache_dir(Path("y") / "graph.json")


def test_derived_fields_round_trip_without_repeating_the_docstring(tmp_path: Path) -> None:
    from sgkr.tags.infer import annotate

    module = annotate(extract_module("pkg/a.py", CODE))
    run = next(d for d in module.definitions if d.name == "run")
    assert run.knowledge == "Run it." and run.inferred_inputs == ("key",)
    data = extract_to_json(module)
    assert json.dumps(data).count("Run it.") == 2  # in the code and as the docstring
    again = extract_from_json(json.loads(json.dumps(data)))
    assert again == module
    assert next(d for d in again.definitions if d.name == "run").knowledge == "Run it."
    cache = ExtractCache(tmp_path)
    cache.put(cache_key("pkg/a.py", CODE), module)
    assert cache.get(cache_key("pkg/a.py", CODE)) == module


def test_entries_of_another_format_or_with_bad_references_are_misses(tmp_path: Path) -> None:
    from sgkr.tags.infer import annotate

    cache = ExtractCache(tmp_path)
    key = cache_key("a.py", CODE)
    cache.put(key, annotate(extract_module("a.py", CODE)))
    head, code = _raw(cache, key).split(b"\0", 1)
    whole = json.loads(head)
    older = dict(whole, format=1)
    older["extract"] = dict(whole["extract"], defs=[d[:15] for d in whole["extract"]["defs"]])
    _set_raw(cache, key, json.dumps(older).encode() + b"\0" + code)
    assert cache.get(key) is None
    bad = json.loads(json.dumps(whole))
    bad["extract"]["defs"][1][14] = 7  # neither the docstring's nor the comment's
    _set_raw(cache, key, json.dumps(bad).encode() + b"\0" + code)
    assert cache.get(key) is None
    bad = json.loads(json.dumps(whole))
    bad["extract"]["defs"][1][10] = [["spawned", "f", None, False, 3]]  # no such kind of call
    _set_raw(cache, key, json.dumps(bad).encode() + b"\0" + code)
    assert cache.get(key) is None
    assert cache.misses == 3


@pytest.mark.parametrize("field, value", [
    ((0,), 7),  # a qualified name that is a number
    ((5,), True),  # a line that is a flag
    ((6,), 0),  # no line 0
    ((9, 0, 0), None),  # a parameter without a name
    ((9, 0, 1), "star"),  # no such kind of parameter
    ((10, 0, 4), "3"),  # a call's line as text
    ((10, 0, 3), 0),  # a receiver called given as a number
    ((13,), 1),  # async given as a number
    ((15, 0), 1.5),  # an inferred tag that is a number
    ((17, 0, 1, 1), ["f"]),  # the callee of a value use named by a list
    ((18, 0, 1), None),  # a binding without a value
    ((18, 0, 3), "call"),  # no such kind of binding
    ((21, 0, 1), -1),  # an argument at no position
])
def test_entries_with_a_field_of_the_wrong_type_are_misses(
        tmp_path: Path, field: tuple[int, ...], value: object) -> None:
    # Even under a matching SHA-256 (an entry edited on purpose): never a traceback later.
    cache = ExtractCache(tmp_path)
    key = cache_key("a.py", CODE)
    module = annotate(extract_module("a.py", CODE))
    cache.put(key, module)
    head, code = _raw(cache, key).split(b"\0", 1)
    whole = json.loads(head)
    run = next(d for d in whole["extract"]["defs"] if d[1] == "run")
    run[17] = [[["plain", "h", None, False, 9], ["plain", "g", None, False, 9]]]
    run[18] = [["p", "Parser", True, "assigned"]]
    run[21] = [[["plain", "g", None, False, 9], 0, "h", False]]
    _set_raw(cache, key, json.dumps(whole).encode() + b"\0" + code)
    assert cache.get(key) is not None  # the form edited, still right
    *path, last = field
    place = run
    for step in path:
        place = place[step]
    place[last] = value
    _set_raw(cache, key, json.dumps(whole).encode() + b"\0" + code)
    assert cache.get(key) is None


@pytest.mark.parametrize("damage", [
    lambda head, code: head + b"\0" + code[:-1],  # code cut short
    lambda head, code: head + b"\0" + code + b"x",  # code left over
    lambda head, code: head + b"\0" + b"\xff" + code,  # not UTF-8
    lambda head, code: head + code,  # no separator
])
def test_entries_whose_code_does_not_match_its_lengths_are_misses(
        tmp_path: Path, damage: Callable[[bytes, bytes], bytes]) -> None:
    cache = ExtractCache(tmp_path)
    key = cache_key("a.py", CODE)
    cache.put(key, extract_module("a.py", CODE))
    head, code = _raw(cache, key).split(b"\0", 1)
    _set_raw(cache, key, damage(head, code))
    assert cache.get(key) is None


def test_code_is_stored_as_text_and_comes_back_exactly(tmp_path: Path) -> None:
    text = ('def f():\n    """\u00e9t\u00e9 \U0001f600"""\n    return "\udcff"\n\n'
            'def g():\n    return 1\n')
    module = extract_module("a.py", text)
    cache = ExtractCache(tmp_path)
    key = cache_key("a.py", text)
    cache.put(key, module)
    head, code = _raw(cache, key).split(b"\0", 1)
    assert b"return 1" in code and b"return 1" not in head
    assert ExtractCache(tmp_path).get(key) == module


def test_a_file_that_is_not_a_database_is_a_miss_and_replaced(tmp_path: Path) -> None:
    (tmp_path / DATABASE).write_bytes(b"left by something else" * 100)
    cache = ExtractCache(tmp_path)
    key = cache_key("a.py", CODE)
    assert cache.get(key) is None and len(cache) == 0
    module = extract_module("a.py", CODE)
    cache.put(key, module)
    assert ExtractCache(tmp_path).get(key) == module


def test_a_cache_held_by_another_process_only_costs_speed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path / "src", {"a.py": "def f():\n    return g()\ndef g():\n    pass\n"})
    folder = tmp_path / "cache"
    build_graph([src], cache=folder, jobs=1)
    monkeypatch.setattr(cache_module, "_BUSY_TIMEOUT", 0.05)
    holder = sqlite3.connect(folder / DATABASE, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            ExtractCache(folder).put(cache_key("b.py", CODE), extract_module("b.py", CODE))
        (src / "a.py").write_text("def f():\n    pass\n")
        graph = build_graph([src], cache=folder, jobs=1)  # reads miss, the write is skipped
        assert "fn:a.f" in graph and "fn:a.g" not in graph
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(ExtractCache(folder)) == 1


def test_surrogates_survive_the_cache(tmp_path: Path) -> None:
    text = "def f():\n    return '\udcff'\n"
    module = extract_module("s.py", text)
    cache = ExtractCache(tmp_path)
    cache.put(cache_key("s.py", text), module)
    assert cache.get(cache_key("s.py", text)) == module
