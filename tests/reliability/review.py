"""The hostile review's reproductions (issue 23), run through the command line, for the campaign.

Every input is given to ``python -m sgkr`` in a child process with a time
limit (a hang is counted, not suffered) and a memory limit (unbounded growth
ends the child and is counted as a crash). An outcome is a *crash* when the
child prints a traceback, dies, or exits with a status the case does not
expect. Files outside the source folders hold a random marker; every byte of
it found in what SGKR wrote or printed counts as *leaked*.
"""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .hostile import HOSTILE

HANG_SECONDS = 60.0
MEMORY_BYTES = 3 * 2**30
MARKER = f"SECRET-{random.Random().getrandbits(64):016x}"


@dataclass
class Tally:
    """What one group of inputs did."""

    inputs: int = 0
    crashes: int = 0
    hangs: int = 0
    leaked: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.inputs += other.inputs
        self.crashes += other.crashes
        self.hangs += other.hangs
        self.leaked += other.leaked
        self.notes += other.notes


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def sgkr(tally: Tally, *argv: str, ok: Sequence[int] = (0,), outputs: Sequence[Path] = (),
         seconds: float = HANG_SECONDS) -> subprocess.CompletedProcess[str] | None:
    """Run ``sgkr argv`` once and count it; None when it hung."""
    tally.inputs += 1
    try:
        done = subprocess.run([sys.executable, "-m", "sgkr", *argv], capture_output=True,
                              text=True, errors="replace", timeout=seconds,
                              preexec_fn=_limits)
    except subprocess.TimeoutExpired:
        tally.hangs += 1
        tally.notes.append(f"hang: sgkr {' '.join(argv)[:80]}")
        return None
    lines = done.stderr.strip().splitlines()
    one_line = len(lines) <= 1 or all(line.startswith("sgkr: warning") for line in lines[:-1])
    if "Traceback" in done.stderr or done.returncode not in ok or (
            done.returncode and not one_line):
        tally.crashes += 1
        tally.notes.append(f"exit {done.returncode}: sgkr {' '.join(argv)[:60]}: "
                           f"{done.stderr.strip()[-160:]}")
    leaked = (done.stdout + done.stderr).count(MARKER) * len(MARKER)
    for path in outputs:
        if path.is_file():
            leaked += path.read_bytes().count(MARKER.encode()) * len(MARKER)
    tally.leaked += leaked
    return done


def _tree(root: Path) -> tuple[Path, Path]:
    src, outside = root / "src", root / "outside"
    src.mkdir()
    outside.mkdir()
    (src / "ok.py").write_text("def ok(amount):\n    '''Adds one.'''\n    return amount + 1\n")
    (outside / "secret.py").write_text(f"def leaked():\n    return '{MARKER}'\n")
    (outside / "secret.txt").write_text(MARKER * 10)
    return src, outside


@dataclass
class Case:
    """One group of reproductions: its issue item and what it runs."""

    item: str
    run: Callable[[Path, Tally], None]


# -- 1-4: which files are read -------------------------------------------------------------


def links_out(root: Path, tally: Tally) -> None:
    src, outside = _tree(root)
    out = root / "g.json"
    for i, target in enumerate([outside / "secret.py", outside / "secret.txt", outside,
                                Path("/etc/passwd"), Path("/etc/hostname")]):
        link = src / f"link{i}.py"
        link.symlink_to(target)
        for cache in (["--no-cache"], []):
            sgkr(tally, "build", str(src), "-o", str(out), *cache, outputs=[out])
        if not target.is_dir():  # a folder named on the command line is a root the user gave
            sgkr(tally, "build", str(link), "-o", str(out), "--no-cache", ok=(3,),
                 outputs=[out])
        link.unlink()


def fifo_and_devices(root: Path, tally: Tally) -> None:
    src, _ = _tree(root)
    out = root / "g.json"
    os.mkfifo(src / "pipe.py")
    sgkr(tally, "build", str(src), "-o", str(out), "--no-cache", outputs=[out])
    sgkr(tally, "build", str(src / "pipe.py"), "-o", str(out), ok=(3,))
    (src / "pipe.py").unlink()
    for device in ("/dev/zero", "/dev/urandom", "/dev/null", "/dev/tty"):
        (src / "dev.py").symlink_to(device)
        sgkr(tally, "build", str(src), "-o", str(out), "--no-cache", outputs=[out])
        (src / "dev.py").unlink()
    knowledge = root / "k.json"
    os.mkfifo(knowledge)
    sgkr(tally, "build", str(src), "--knowledge", str(knowledge), "-o", str(out), ok=(4,))
    graph = root / "fifo-graph.json"
    os.mkfifo(graph)
    sgkr(tally, "query", str(graph), "fee", ok=(5,))
    zero = root / "zero.json"
    zero.symlink_to("/dev/zero")
    sgkr(tally, "inspect", str(zero), ok=(5,))


def growing_file(root: Path, tally: Tally) -> None:
    """A file written while builds read it, past the limit: never read beyond it."""
    src, _ = _tree(root)
    out = root / "g.json"
    grow = src / "grow.py"
    grow.write_text("x = 1\n")
    stop = threading.Event()

    def writer() -> None:
        with open(grow, "a") as handle:
            while not stop.is_set() and handle.tell() < 50_000_000:
                handle.write("y = 2\n" * 10_000)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(5):
            done = sgkr(tally, "build", str(src), "-o", str(out), "--no-cache",
                        "--max-file-bytes", "100000", outputs=[out])
            if done is not None and done.returncode == 0 and out.is_file():
                code = json.loads(out.read_text())["nodes"]
                biggest = max((len(n.get("code", "")) for n in code), default=0)
                if biggest > 100_000:
                    tally.crashes += 1
                    tally.notes.append(f"read past the limit: {biggest} characters")
    finally:
        stop.set()
        thread.join()


def example_files(root: Path, tally: Tally) -> None:
    src, outside = _tree(root)
    out = root / "g.json"
    folder = src / "examples"
    folder.mkdir()
    (folder / "sol.py").write_text("def sol(amount):\n    return amount\n")
    (folder / "in.py").symlink_to(outside / "secret.py")
    names = [str(outside / "secret.py"), "../../outside/secret.py", "../../../../../dev/zero",
             "/dev/zero", "/etc/passwd", "in.py", "../" * 40 + "etc/hostname", "", ".",
             "sol.py\u0000x", str(folder)]
    for name in names:
        path = folder / "examples.jsonl"
        path.write_text(json.dumps({"id": "1", "question": "q?", "file": name}) + "\n")
        sgkr(tally, "build", str(src), "--examples", str(path), "-o", str(out), "--no-cache",
             ok=(4,), outputs=[out])


# -- 5-8: ordinary bad input -----------------------------------------------------------------


def names_and_text(root: Path, tally: Tally) -> None:
    src, _ = _tree(root)
    out = root / "g.json"
    for name in (b"caf\xe9.py", b"\xff\xfe.py", b"a\x1b]0;PWNED\x07.py", b"new\nline.py"):
        path = src / os.fsdecode(name)
        path.write_text("def other():\n    return 1\n")
        for cache in (["--no-cache"], []):
            sgkr(tally, "build", str(src), "-o", str(out), *cache)
        sgkr(tally, "inspect", str(out))
        path.unlink()
    for text in ('{"functions": {"ok": "\\ud800"}}', '{"tags": {"fee\\udfff": []}}'):
        knowledge = root / "k.json"
        knowledge.write_text(text)
        sgkr(tally, "build", str(src), "--knowledge", str(knowledge), "-o", str(out), ok=(4,))
    sgkr(tally, "build", str(src), "-o", str(out), "--no-cache")
    doc = json.loads(out.read_text())
    doc["nodes"][0]["knowledge"] = "\ud800"
    bad = root / "bad.json"
    bad.write_text(json.dumps(doc))
    for argv in (["query", str(bad), "fee"], ["inspect", str(bad)],
                 ["export", str(bad), "-o", str(root / "x.html")]):
        sgkr(tally, *argv, ok=(5,))


def deep_and_long(root: Path, tally: Tally) -> None:
    src, _ = _tree(root)
    out = root / "g.json"
    texts = {"deep": "[" * 100_000 + "]" * 100_000, "long int": "[" + "9" * 5000 + "]",
             "nan": '{"schema_version": 1, "nodes": [], "edges": [], "meta": {"x": NaN}}',
             "bom": "\ufeff[]"}
    for name, text in texts.items():
        graph = root / f"{name}.json"
        graph.write_text(text)
        for argv in (["query", str(graph), "fee"], ["inspect", str(graph), "--json"],
                     ["export", str(graph), "-o", str(root / "x.dot")]):
            sgkr(tally, *argv, ok=(5,))
        for suffix in (".json", ".yaml"):
            knowledge = root / f"k{suffix}"
            knowledge.write_text(text if suffix == ".json" else
                                 "a: " + ("[" * 5000 if name == "deep" else "9" * 5000))
            sgkr(tally, "build", str(src), "--knowledge", str(knowledge), "-o", str(out),
                 ok=(4,))
        examples = root / "e.jsonl"
        examples.write_text(text.replace("\n", " ") + "\n")
        sgkr(tally, "build", str(src), "--examples", str(examples), "-o", str(out), ok=(4,))


def bad_arguments(root: Path, tally: Tally) -> None:
    src, _ = _tree(root)
    folder = root / "a_folder"
    folder.mkdir()
    for value in ("inf", "-inf", "nan", "1e999", "0", "-1", "x", "1e400"):
        sgkr(tally, "build", str(src), f"--watch={value}", ok=(2,))
    sgkr(tally, "build", str(src), "-o", str(folder), ok=(6,))
    knowledge = root / "k.yaml"
    knowledge.write_text("functions:\n  ok: [unclosed\n  other: 1\n")
    sgkr(tally, "build", str(src), "--knowledge", str(knowledge), "-o", str(root / "g.json"),
         ok=(4,))
    bom = root / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + b'{"functions": {"ok": "With a BOM."}}')
    sgkr(tally, "build", str(src), "--knowledge", str(bom), "-o", str(root / "g.json"))


# -- 9-11: amplification -------------------------------------------------------------------


def yaml_bombs(root: Path, tally: Tally) -> None:
    src, _ = _tree(root)
    lines = ['a0: &a0 ["' + "x" * 100 + '"]']
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 30)]
    bombs = {
        "aliases doubling 29 times": "\n".join(lines) + "\ntags:\n  fee:\n    aliases: *a29\n",
        "a loop": "tags: &t\n  fee:\n    aliases: *t\n",
        "wide aliases": "l: &l [" + ", ".join(f'"{"w" * 50}{i}"' for i in range(3000)) + "]\n"
                        "tags:\n" + "".join(f"  t{i}:\n    aliases: *l\n" for i in range(3000)),
    }
    for name, text in bombs.items():
        path = root / "k.yaml"
        path.write_text(text)
        started = time.perf_counter()
        sgkr(tally, "build", str(src), "--knowledge", str(path), "-o", str(root / "g.json"),
             ok=(4,))
        tally.notes.append(f"{name}: refused in {time.perf_counter() - started:.1f} s")


def many_aliases(root: Path, tally: Tally) -> None:
    src = root / "src"
    src.mkdir()
    body = "".join(f"def f{i}(amount_{i}, rate_{i}):\n    return amount_{i} * rate_{i} + "
                   f"'value {i}'\n" for i in range(3000))  # about 200 KB
    (src / "solution.py").write_text(body)
    examples = root / "e.jsonl"
    examples.write_text(json.dumps({"id": "1", "question": "q?", "file": "src/solution.py",
                                    "inputs": ["transaction value"]}) + "\n")
    for count in (300, 3000):
        knowledge = root / "k.json"
        knowledge.write_text(json.dumps({"tags": {"transaction value": {
            "aliases": [f"alias number {i}" for i in range(count)]}}}))
        started = time.perf_counter()
        sgkr(tally, "build", str(src), "--examples", str(examples), "--knowledge",
             str(knowledge), "-o", str(root / "g.json"), "--no-cache")
        tally.notes.append(f"{count} aliases x {len(body) // 1000} KB solution: "
                           f"{time.perf_counter() - started:.1f} s")


def sparse_graph(root: Path, tally: Tally) -> None:
    for head in (b"", b'{"schema_version": 1, "nodes": ['):
        graph = root / "sparse.json"
        with open(graph, "wb") as handle:
            handle.write(head)
            handle.truncate(1_900_000_000)
        started = time.perf_counter()
        sgkr(tally, "inspect", str(graph), ok=(5,))
        tally.notes.append(f"1.9 GB sparse graph ({'opening an object' if head else 'NULs'}):"
                           f" refused in {time.perf_counter() - started:.1f} s")
        graph.unlink()


# -- 12-15: concurrency and long-running use -------------------------------------------------


def race(root: Path, tally: Tally) -> None:
    """Six threads retrieve while one updates, in-process (a crash is an exception)."""
    from sgkr.build.incremental import GraphBuilder
    from sgkr.retrieval.retriever import Retriever

    payments = Path(__file__).parents[2] / "examples" / "payments"
    src = root / "src"
    src.mkdir()
    for path in (payments / "solutions").glob("*.py"):
        (src / path.name).write_text(path.read_text())
    builder = GraphBuilder([src], knowledge=payments / "knowledge.json", jobs=1)
    builder.build()
    stop = threading.Event()
    errors: list[str] = []
    counts = [0] * 6

    def read(i: int) -> None:
        while not stop.is_set():
            try:
                Retriever(builder.graph).retrieve("What is the average fee for card scheme?")
                counts[i] += 1
            except Exception as exc:  # noqa: BLE001 - counting crashes is the point
                errors.append(repr(exc))

    threads = [threading.Thread(target=read, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    files = sorted(src.glob("*.py"))
    for turn in range(30):
        path = files[turn % len(files)]
        path.write_text(path.read_text() + f"\ndef extra_{turn}(amount):\n    return {turn}\n")
        try:
            builder.update()
        except Exception as exc:  # noqa: BLE001
            errors.append(repr(exc))
    stop.set()
    for thread in threads:
        thread.join()
    tally.inputs += sum(counts) + 30
    tally.crashes += len(errors)
    tally.notes.append(f"{sum(counts)} retrievals during 30 updates")


def watch_gaps(root: Path, tally: Tally) -> None:
    src, _ = _tree(root)
    out = root / "g.json"
    child = subprocess.Popen([sys.executable, "-m", "sgkr", "build", str(src), "-o", str(out),
                              "--watch", "0.2", "--no-cache", "--quiet"],
                             stderr=subprocess.PIPE, text=True, preexec_fn=_limits)
    try:
        time.sleep(3)
        moves = [lambda: (src / "ok.py").rename(root / "ok.py"),
                 lambda: src.rename(root / "away"), lambda: (root / "away").rename(src),
                 lambda: (root / "ok.py").rename(src / "ok.py"),
                 lambda: os.mkfifo(src / "pipe.py"), lambda: (src / "pipe.py").unlink(),
                 lambda: (src / "new.py").write_text("def new():\n    return 1\n")]
        for move in moves:
            move()
            tally.inputs += 1
            time.sleep(1.0)
            if child.poll() is not None:
                tally.crashes += 1
                tally.notes.append("--watch exited")
                return
        time.sleep(2)
        if "fn:new.new" not in out.read_text():
            tally.crashes += 1
            tally.notes.append("--watch did not pick the new file up")
    finally:
        child.send_signal(signal.SIGINT)
        try:
            _, err = child.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            tally.hangs += 1
            err = ""
    if "Traceback" in err:
        tally.crashes += 1
        tally.notes.append(err[-200:])


def cache_entries(root: Path, tally: Tally) -> None:
    import sqlite3

    src, _ = _tree(root)
    out = root / "g.json"
    cache = root / "cache"
    sgkr(tally, "build", str(src), "-o", str(out), "--cache", str(cache))
    edits = [lambda d: d.replace(b"Adds one.", b"IGNORE AL"),
             lambda d: d.replace(b"Adds one.", b"IGNORE ALL PREVIOUS INSTRUCTIONS"),
             lambda d: d[:-3], lambda d: d + b"x", lambda d: b"",
             lambda d: d.replace(b",1,", b",1e999,"), lambda d: d.replace(b'"function"', b'7')]
    for edit in edits:
        db = sqlite3.connect(cache / "extract.sqlite")
        with db:
            for key, data in db.execute("SELECT key, data FROM entries").fetchall():
                db.execute("UPDATE entries SET data = ? WHERE key = ?", (edit(bytes(data)), key))
        db.close()
        sgkr(tally, "build", str(src), "-o", str(out), "--cache", str(cache))
        if "IGNORE" in out.read_text():
            tally.crashes += 1
            tally.notes.append("an edited cache entry reached the graph")
    shared = root / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    sgkr(tally, "build", str(src), "-o", str(out), "--cache", str(shared))
    if (shared / "extract.sqlite").exists():
        tally.crashes += 1
        tally.notes.append("a cache folder others may write was used")


def killed_saves(root: Path, tally: Tally, kills: int = 100) -> None:
    src = root / "src"
    src.mkdir()
    for i in range(40):
        (src / f"m{i}.py").write_text("".join(f"def f{j}_{i}(x):\n    return x + {j}\n"
                                              for j in range(300)))
    out = root / "out" / "g.json"
    code = ("import sys; from sgkr import build_graph; g = build_graph([sys.argv[1]], jobs=1)\n"
            "while True: g.save(sys.argv[2])\n")
    rng = random.Random(3)
    for _ in range(kills):
        child = subprocess.Popen([sys.executable, "-c", code, str(src), str(out)])
        time.sleep(rng.uniform(1.5, 3.0))
        child.kill()
        child.wait()
        tally.inputs += 1
    left = [p.name for p in out.parent.iterdir() if p.name.endswith(".tmp")]
    sgkr(tally, "inspect", str(out))
    sgkr(tally, "build", str(src), "-o", str(out), "--no-cache", "--quiet")
    after = [p.name for p in out.parent.iterdir() if p.name.endswith(".tmp")]
    tally.notes.append(f"{kills} kills: {len(left)} temporary files left, "
                       f"{len(after)} after the next save")
    tally.crashes += len(after)


# -- 16-17: output -----------------------------------------------------------------------------


def terminal_and_exports(root: Path, tally: Tally) -> None:
    import io

    import networkx as nx

    from sgkr.export import render_view
    from sgkr.export.view import View, ViewNode

    src = root / "src"
    src.mkdir()
    for i, text in enumerate(HOSTILE):
        clean = text.replace("'", "").replace("\\", "").replace("\r", "")
        (src / f"m{i}.py").write_text(f"def fee(amount):\n    '''{clean}'''\n"
                                      f"    return amount  # {clean}\n")
    out = root / "g.json"
    sgkr(tally, "build", str(src), "-o", str(out), "--no-cache", "--infer-tags")
    for argv in (["query", str(out), "fee of an amount", "--k", "40"],
                 ["query", str(out), "fee of an amount", "--json"], ["inspect", str(out)],
                 ["inspect", str(out), "--json"]):
        done = sgkr(tally, *argv)
        if done is not None and any(c in done.stdout for c in "\x1b\x07\x9b\u202e"):
            tally.crashes += 1
            tally.notes.append(f"terminal control reached stdout: {argv[0]}")
    rng = random.Random(4)
    for _ in range(300):
        texts = [rng.choice(HOSTILE) + rng.choice(HOSTILE) for _ in range(4)]
        view = View(tuple(ViewNode(f"n{i}{t}", rng.choice(["function", "tag", "module"]),
                                   t or "-", code=t, knowledge=t)
                          for i, t in enumerate(texts)), (), question=texts[0])
        for fmt in ("mermaid", "dot", "graphml", "html"):
            tally.inputs += 1
            try:
                text = render_view(view, fmt)
                if fmt == "graphml":
                    nx.read_graphml(io.StringIO(text))
                elif fmt in ("mermaid", "dot") and any(
                        c in text for c in "\x00\x1b\x07\x0b\x0c\x9b"):
                    raise ValueError(f"control character in {fmt}")
            except Exception as exc:  # noqa: BLE001
                tally.crashes += 1
                tally.notes.append(f"{fmt}: {exc!r}"[:120])


CASES = [
    Case("1 file symlinks out", links_out),
    Case("2-3 FIFOs, devices", fifo_and_devices),
    Case("3 a file growing while read", growing_file),
    Case("4 examples 'file' entries", example_files),
    Case("5-6 file names, lone surrogates", names_and_text),
    Case("7 deep JSON, long integers, NaN", deep_and_long),
    Case("8 bad arguments", bad_arguments),
    Case("9 YAML aliases", yaml_bombs),
    Case("10 aliases x code size", many_aliases),
    Case("11 sparse 1.9 GB graph.json", sparse_graph),
    Case("12 update racing retrieval", race),
    Case("13 --watch through gaps", watch_gaps),
    Case("14 edited cache entries", cache_entries),
    Case("15 killed saves", killed_saves),
    Case("16-17 terminal output, exports", terminal_and_exports),
]


def review(quick: bool) -> Iterator[tuple[str, Tally, float]]:
    """Run every case in its own temporary folder; yield its tally and seconds."""
    for case in CASES:
        tally = Tally()
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            run = case.run
            if quick and run is killed_saves:
                killed_saves(Path(folder), tally, kills=10)
            else:
                try:
                    run(Path(folder), tally)
                except Exception as exc:  # noqa: BLE001 - the harness's own failure, counted
                    tally.crashes += 1
                    tally.notes.append(f"harness: {exc!r}"[:200])
        yield case.item, tally, time.perf_counter() - started
