"""Issue 33's input defects, reproduced and varied through the command line, for the campaign.

``python -m tests.reliability.campaign --only "issue 33 inputs"``. Each input
goes to ``python -m sgkr`` in a child process, as in :mod:`tests.reliability.review`
(a crash is a traceback, a death or an unexpected status; a hang a child past its
time limit; bytes leaked count a marker planted outside the code and found in
what SGKR wrote or printed), and its whole-process time is kept: a run over
:data:`SLOW` seconds is counted *slow*. Three classes:

- what lies in the analysed tree is not trusted (H2, M1, L5): caches planted in
  the tree, links at a cache or an output;
- work grows linearly (M3, M4, M6, M7, M8, L7, L8): hostile globs, coding lines,
  notebooks, tags sharing an alias, sidecars, path searches and questions, at
  growing sizes;
- options and filters at their edges (L1, L2).
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from .review import MARKER, Tally, sgkr

#: Seconds of a whole process (about 0.7 of them starting Python) a reproduction may take.
SLOW = 2.0


def timed(tally: Tally, *argv: str, ok: Sequence[int] = (0,), outputs: Sequence[Path] = (),
          seconds: float = 60.0) -> subprocess.CompletedProcess[str] | None:
    """:func:`~tests.reliability.review.sgkr`, its time counted against :data:`SLOW`."""
    started = time.perf_counter()
    done = sgkr(tally, *argv, ok=ok, outputs=outputs, seconds=seconds)
    _took(tally, time.perf_counter() - started, f"sgkr {' '.join(argv)}")
    return done


# The whole-process seconds of each run of the current case.
_TIMES: list[float] = []


def _took(tally: Tally, seconds: float, what: str) -> None:
    _TIMES.append(seconds)
    if seconds > SLOW:
        tally.notes.append(f"slow ({seconds:.1f} s): {what[:80]}")


def _linear(tally: Tally, what: str, sizes: Sequence[int], seconds: Sequence[float]) -> None:
    """Count a crash when the time per unit of the largest size is over 3 times the smallest's.

    The smallest run's time is mostly the process starting, so a linear cost
    gives a ratio under 1; a quadratic one, the ratio of the sizes.
    """
    ratio = (seconds[-1] / sizes[-1]) / (seconds[0] / sizes[0])
    tally.notes.append(f"{what}: " + ", ".join(f"{n:,} in {t:.1f} s" for n, t in
                                               zip(sizes, seconds, strict=True)))
    if ratio > 3:
        tally.crashes += 1
        tally.notes.append(f"{what}: time per unit grows {ratio:.1f} times (superlinear)")


def _repo(root: Path, text: str = "def fee(amount):\n    return amount * 0.1\n") -> Path:
    repo = root / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "fees.py").write_text(text)
    return repo


# -- what lies in the tree ----------------------------------------------------------------------


def planted_caches(root: Path, tally: Tally) -> None:
    """A cache shipped in the repository, its entry's knowledge the marker (H2)."""
    from dataclasses import replace

    from sgkr.ingest.cache import cache_key, entry_bytes
    from sgkr.ingest.extract import extract_module
    from sgkr.tags.infer import annotate

    text = "def fee(amount):\n    '''The fee.'''\n    return amount * 0.1\n"
    module = annotate(extract_module("fees.py", text))
    poisoned = replace(module, definitions=tuple(
        replace(d, knowledge=MARKER, docstring=MARKER) for d in module.definitions))
    key = cache_key("fees.py", text)
    for variant in ("default", "--cache in the tree"):
        case = root / variant.replace(" ", "-")
        case.mkdir()
        repo = _repo(case, text)
        planted = repo / ".sgkr-cache"
        planted.mkdir(mode=0o700)
        db = sqlite3.connect(planted / "extract.sqlite")
        db.execute("CREATE TABLE entries (key TEXT PRIMARY KEY, data BLOB NOT NULL)")
        db.execute("INSERT INTO entries VALUES (?, ?)", (key, entry_bytes(key, poisoned)))
        db.commit()
        db.close()
        out = repo / "graph.json"
        extra = ["--cache", str(planted)] if variant != "default" else []
        for _ in range(2):
            timed(tally, "build", str(repo), "-o", str(out), "--quiet", *extra, outputs=[out])
        timed(tally, "query", str(out), "the fee of an amount", "--json")


def links(root: Path, tally: Tally) -> None:
    """Links at the cache's database, journal and folder (M1), and at outputs (L5)."""
    repo = _repo(root)
    victim = root / "victim.sqlite"
    db = sqlite3.connect(victim)
    db.execute("CREATE TABLE precious (x)")
    db.commit()
    db.close()
    before = victim.read_bytes()
    for name in ("extract.sqlite", "extract.sqlite-journal", "extract.sqlite-wal"):
        cache = root / f"cache-{name}"
        cache.mkdir(mode=0o700)
        (cache / name).symlink_to(victim)
        timed(tally, "build", str(repo), "-o", str(root / "g.json"), "--cache", str(cache))
    (root / "cache-link").symlink_to(root)
    timed(tally, "build", str(repo), "-o", str(root / "g.json"), "--cache",
          str(root / "cache-link"))
    if victim.read_bytes() != before or (root / "extract.sqlite").exists():
        tally.crashes += 1
        tally.notes.append("a build wrote through a link at its cache")
    graph = root / "g.json"
    for argv in (["export", str(graph), "-o"], ["export", str(graph), "-f", "dot", "-o"],
                 ["build", str(repo), "--quiet", "--no-cache", "-o"]):
        text = root / "victim.txt"
        text.write_text("precious\n")
        out = root / f"out-{len(argv)}.html"
        out.unlink(missing_ok=True)
        out.symlink_to(text)
        timed(tally, *argv, str(out))
        if text.read_text() != "precious\n" or out.is_symlink():
            tally.crashes += 1
            tally.notes.append(f"sgkr {argv[0]} wrote through a link at its output")


# -- work that grows faster than the input ------------------------------------------------------

_GLOB_PIECES = ["a*", "*", "?", "[a-b]", "**/", "a/", "*a*", "[!b]", "\\*", "**"]


def globs(root: Path, tally: Tally, count: int = 40) -> None:
    """Hostile .gitignore patterns (many stars, classes, globstars) against long names (M3)."""
    rng = random.Random(33)
    repo = _repo(root)
    deep = repo.joinpath(*["a" * 20] * 30)
    deep.mkdir(parents=True)
    (deep / ("a" * 200 + ".py")).write_text("x = 1\n")
    for i in range(40):
        (repo / ("a" * 150 + f"{i}.py")).write_text("x = 1\n")
    for n in range(count):
        pieces = rng.choices(_GLOB_PIECES, k=rng.randint(30, 1500))
        lines = ["".join(pieces)[:4000] + "b", "a*" * rng.randint(10, 2000) + "b"]
        (repo / ".gitignore").write_text("\n".join(lines) + "\n")
        timed(tally, "build", str(repo), "-o", str(root / f"g{n}.json"), "--quiet", "--no-cache")


_REFUSED_CODECS = ["punycode", "idna", "utf-7", "unicode_escape", "raw_unicode_escape",
                   "rot13", "zlib", "base64", "hex", "uu", "bz2", "quopri", "undefined",
                   "charmap", "mbcs", "nonesuch"]


def codecs(root: Path, tally: Tally, size: int = 4_000_000) -> None:
    """4 MB files declaring each encoding SGKR does not read, and some it does (M4)."""
    repo = root / "repo"
    repo.mkdir()
    body = "x = '\u00e9'\n" * (size // 10)
    for i, name in enumerate(_REFUSED_CODECS):
        data = (f"# coding: {name}\n" + body).encode("punycode" if name == "punycode"
                                                      else "utf-8")
        (repo / f"m{i}.py").write_bytes(data)
    for name in ("latin-1", "cp1252", "euc-jp", "utf-8-unix"):
        stem = name.replace("-", "_")
        (repo / f"ok_{stem}.py").write_bytes(
            f"# coding: {name}\ndef read_{stem}():\n    return 1\n".encode("ascii"))
    done = timed(tally, "build", str(repo), "-o", str(root / "g.json"), "--quiet",
                 "--no-cache", "--json")
    if done is not None and done.returncode == 0:
        report = json.loads(done.stdout)
        skipped = sum(1 for p in report.get("problems", []) if "encoding" in str(p)
                      or "not decodable" in str(p))
        if skipped < len(_REFUSED_CODECS) or report.get("functions", 0) < 4:
            tally.crashes += 1
            tally.notes.append(f"codecs: {skipped} refused, {report.get('functions')} read")


def notebooks(root: Path, tally: Tally, sizes: Sequence[int] = (2_000, 20_000, 60_000)) -> None:
    """Notebooks of growing numbers of cells (M6): time grows with the cells, not their square."""
    times = []
    for cells in sizes:
        repo = root / f"nb{cells}"
        repo.mkdir()
        nb = {"nbformat": 4, "cells": [
            {"cell_type": "markdown" if i % 3 == 0 else "code",
             "source": f"Step {i}." if i % 3 == 0 else f"def f{i}(x):\n    return x + {i}\n"}
            for i in range(cells)]}
        (repo / "n.ipynb").write_text(json.dumps(nb))
        timed(tally, "build", str(repo), "-o", str(root / f"nb{cells}.json"), "--quiet",
              "--no-cache", "--max-file-bytes", "50000000", seconds=120)
        times.append(_TIMES[-1])
    _linear(tally, "cells", sizes, times)


def _sidecar_tags(root: Path, tags: int, alias: str = "amount") -> Path:
    repo = root / f"tags{tags}"
    repo.mkdir()
    (repo / "m.py").write_text("".join(f"def f{i}(x):\n    return x\n" for i in range(tags)))
    (repo / "k.json").write_text(json.dumps({
        "functions": {f"f{i}": {"inputs": [f"in {i}"], "outputs": [f"out {i}"]}
                      for i in range(tags)},
        "tags": {**{f"in {i}": {"aliases": [alias]} for i in range(tags)},
                 **{f"out {i}": {"aliases": ["fee"]} for i in range(tags)}}}))
    return repo


def shared_aliases(root: Path, tally: Tally, sizes: Sequence[int] = (500, 2_000, 8_000)) -> None:
    """Tags sharing an alias (M7) and sidecars of many entries (M8), built and asked."""
    builds, asks = [], []
    for tags in sizes:
        repo = _sidecar_tags(root, tags)
        out = root / f"tags{tags}.json"
        timed(tally, "build", str(repo / "m.py"), "--knowledge", str(repo / "k.json"), "-o",
              str(out), "--quiet", "--no-cache", seconds=120)
        builds.append(_TIMES[-1])
        timed(tally, "query", str(out), "What is the fee of an amount?")
        asks.append(_TIMES[-1])
        timed(tally, "query", str(out), "fee amount " * 2000, "--max-paths", "1000",
              "--max-depth", "64")
        code = ("import sys; from sgkr import KnowledgeGraph; from sgkr.agents.answer import "
                "explain_path; print(explain_path(KnowledgeGraph.load(sys.argv[1]), 'amount', "
                "'fee')[:200])")
        _python(tally, code, str(out))
    _linear(tally, "sidecar entries, built", sizes, builds)
    _linear(tally, "tags sharing an alias, asked", sizes, asks)


def _python(tally: Tally, code: str, *argv: str) -> None:
    """A Python child (for what the CLI does not offer), counted as :func:`timed` counts."""
    tally.inputs += 1
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                              text=True, timeout=60)
    except subprocess.TimeoutExpired:
        tally.hangs += 1
        return
    if done.returncode != 0:
        tally.crashes += 1
        tally.notes.append(done.stderr.strip()[-200:])
    else:
        _took(tally, time.perf_counter() - started, f"python -c {code[:60]}")


def diamonds(root: Path, tally: Tally, levels: Sequence[int] = (20, 60)) -> None:
    """32 x 32 tags joined by chains of diamonds (2^levels paths), at the largest bounds (L7)."""
    for n in levels:
        out = root / f"d{n}.json"
        code = ("import sys\nfrom tests.reliability.test_linear_inputs import _diamonds\n"
                "_diamonds(int(sys.argv[1]), 32).save(sys.argv[2])\n")
        _python(tally, code, str(n), str(out))
        for extra in (["--no-reverse-calls"], ["--reverse-calls"],
                      ["--no-reverse-calls", "--partial", "connect", "--fill", "none"]):
            timed(tally, "query", str(out), "fee of an amount", "--max-depth", "64",
                  "--max-paths", "1000", *extra)


def questions(root: Path, tally: Tally) -> None:
    """Long questions against a long alias (L8): read up to the limit, refused beyond."""
    repo = root / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("def fee(amount):\n    return amount\n")
    alias = " ".join(f"w{i}" for i in range(300))
    (repo / "k.json").write_text(json.dumps({
        "functions": {"fee": {"inputs": ["amount"], "outputs": ["fee"]}},
        "tags": {"fee": {"aliases": [alias]}, "amount": {"aliases": ["sum", "total"]}}}))
    out = root / "g.json"
    timed(tally, "build", str(repo / "m.py"), "--knowledge", str(repo / "k.json"), "-o",
          str(out), "--quiet", "--no-cache")
    rng = random.Random(8)
    # An argument holds at most 128 KiB on Linux: the longest question is just past the limit.
    for chars in (1_000, 30_000, 99_000, 100_001, 120_000):
        words = [rng.choice(["w1", "w2", "amount", "fee", "sum", "of", "the", "which"])
                 for _ in range(chars // 3)]
        question = " ".join(words)[:chars]
        timed(tally, "query", str(out), question, ok=(0,) if chars <= 100_000 else (2,))


# -- options and filters at their edges ----------------------------------------------------------


def options(root: Path, tally: Tally) -> None:
    """Every retrieval option at and past its bounds, and filters nested deep (L1, L2)."""
    from sgkr.retrieval.options import OPTIONS

    graph = root / "g.json"
    timed(tally, "build", str(_repo(root)), "-o", str(graph), "--quiet", "--no-cache")
    values = ["0", "-1", "1e999", "nan", "inf", "1e308", "9" * 5000, "100", "64", "65", "x", ""]
    for spec in OPTIONS.values():
        flag = "--" + spec.name.replace("_", "-")
        if spec.kind == "boolean":
            continue
        tries = values if spec.kind in ("integer", "number") else ["x", "{}", "[]", "null"]
        for value in tries:
            timed(tally, "query", str(graph), "fee", f"{flag}={value}", ok=(0, 2))
    for levels in (31, 32, 400, 5000):
        deep = '{"$not": ' * levels + '{"kind": "function"}' + "}" * levels
        timed(tally, "query", str(graph), "fee", "--filter", deep, ok=(0, 2))


CASES: list[tuple[str, Callable[[Path, Tally], None]]] = [
    ("H2 caches planted in the tree", planted_caches),
    ("M1 L5 links at caches and outputs", links),
    ("M3 hostile .gitignore globs", globs),
    ("M4 coding lines", codecs),
    ("M6 notebooks of many cells", notebooks),
    ("M7 M8 tags sharing an alias, big sidecars", shared_aliases),
    ("L7 diamonds at the largest bounds", diamonds),
    ("L8 long questions, a long alias", questions),
    ("L1 L2 options and filters at their edges", options),
]


def review(quick: bool) -> Iterator[tuple[str, Tally, float, list[float]]]:
    """Run every case in its own folder; yield its tally, seconds and each run's seconds."""
    for item, run in CASES:
        tally = Tally()
        _TIMES.clear()
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            try:
                if quick and run is globs:
                    globs(Path(folder), tally, count=8)
                elif quick and run is notebooks:
                    notebooks(Path(folder), tally, sizes=(2_000, 10_000))
                elif quick and run is shared_aliases:
                    shared_aliases(Path(folder), tally, sizes=(500, 2_000))
                else:
                    run(Path(folder), tally)
            except Exception as exc:  # noqa: BLE001 - the harness's own failure, counted
                tally.crashes += 1
                tally.notes.append(f"harness: {exc!r}"[:200])
        yield item, tally, time.perf_counter() - started, list(_TIMES)
