"""Derived files are data, never trusted (issue 41, class 1): graph.lexical.npz beside graph.json.

One reader (sgkr.algorithms.npz) checks an archive before it allocates anything;
every problem is one GraphFormatError naming the file, reported as a warning
while the graph loads without it; what the file says is checked against the
graph; a writer vouches only for the bytes it wrote, and a graph file and its
index are replaced as one.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.algorithms import summary
from sgkr.algorithms.lexical import LexicalIndex, index_of
from sgkr.algorithms.lexicalfile import index_path
from sgkr.algorithms.npz import MAX_MEMBERS
from sgkr.cli import main
from sgkr.graph import derived

from .doubling import assert_linear
from .npzcraft import Entry, archive, members, npy

CODE = ("def set_timeout(request, seconds):\n    '''Set the request's timeout.'''\n"
        "    request.timeout = seconds\n"
        "def get_cookie(jar, name):\n    '''A cookie of the jar.'''\n    return jar.get(name)\n"
        "def send(request):\n    set_timeout(request, 3)\n"
        "    return get_cookie(request.jar, 'a')\n")
OTHER = CODE.replace("cookie", "biscuit").replace("timeout", "deadline")
QUESTION = "set the timeout of a request and read a cookie"


def _saved(folder: Path, code: str = CODE) -> Path:
    path = folder / "graph.json"
    build_graph([("m.py", code)]).save(path)
    return path


def _answer(graph: KnowledgeGraph) -> list[tuple[str, float]]:
    return [(d.id, d.score) for d in Retriever(graph, k=3).retrieve(QUESTION).documents]


FRESH = _answer(build_graph([("m.py", CODE)]))


def _loaded(path: Path) -> tuple[KnowledgeGraph, list[str]]:
    said: list[str] = []
    return KnowledgeGraph.load(path, warn=said.append), said


def _rewrite(path: Path, *, header: Any = None, **arrays: bytes) -> None:
    """The index file of ``path`` with members replaced (checksums made right)."""
    found = members(index_path(path))
    if header is not None:
        found["header.npy"] = npy(np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    found.update({f"{name}.npy": data for name, data in arrays.items()})
    index_path(path).write_bytes(archive([Entry(n, d) for n, d in found.items()]))


def _header(path: Path) -> dict[str, Any]:
    data = members(index_path(path))["header.npy"]
    return dict(json.loads(data[data.index(b"\n", 10) + 1:]))


# -- M1: crafted archives -----------------------------------------------------------------


@pytest.mark.parametrize("shape", ["(10**12,)", "(2**62,)", "(-1,)", "(3, 4)", "()", "'x'",
                                   "(1.5,)", "(True,)", "(" * 100 + ")" * 100])
def test_m1_a_declared_shape_is_checked_against_the_bytes_present(tmp_path: Path,
                                                                  shape: str) -> None:
    # Issue 41, M1: a header shape that is huge crashed query with a MemoryError.
    path = _saved(tmp_path)
    _rewrite(path, indices=npy(np.zeros(4, dtype=np.int32), shape=shape))
    graph, said = _loaded(path)
    assert len(said) == 1 and str(index_path(path)) in said[0] and "made again" in said[0]
    assert "\n" not in said[0]
    assert _answer(graph) == FRESH


@pytest.mark.parametrize("flags", [0x1, 0x8, 0x40, 0x2000])
def test_m1_flagged_members_are_refused(tmp_path: Path, flags: int) -> None:
    path = _saved(tmp_path)
    found = members(index_path(path))
    index_path(path).write_bytes(archive([Entry(n, d, flags=flags if n == "data.npy" else 0)
                                          for n, d in found.items()]))
    graph, said = _loaded(path)
    assert len(said) == 1 and "flagged" in said[0]
    assert _answer(graph) == FRESH


@pytest.mark.slow
def test_m1_every_interface_warns_in_one_line_and_answers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _saved(tmp_path)
    found = members(index_path(path))  # an encrypted member: zipfile's RuntimeError before
    index_path(path).write_bytes(archive([Entry(n, d, flags=1) for n, d in found.items()]))
    assert main(["query", str(path), QUESTION, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("sgkr: warning: ") and "Traceback" not in err
    assert [d["id"] for d in json.loads(out)["documents"]][:3] == [i for i, _ in FRESH]
    llama = pytest.importorskip("llama_index_sgkr")
    with pytest.warns(UserWarning, match="lexical.npz"):
        retriever = llama.SGKRRetriever.from_defaults(graph_path=path, similarity_top_k=3)
    assert [n.node.id_ for n in retriever.retrieve(QUESTION)] == [i for i, _ in FRESH]


def test_m1_a_checksum_that_differs_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    raw = bytearray(index_path(path).read_bytes())
    with zipfile.ZipFile(index_path(path)) as archive:  # the impacts' bytes, wherever they are
        member = archive.getinfo("data.npy")
    raw[member.header_offset + 30 + len(member.filename) + len(member.extra) + 140] ^= 0x40
    index_path(path).write_bytes(bytes(raw))
    graph, said = _loaded(path)
    assert len(said) == 1 and ("checksum" in said[0] or "not a lexical index" in said[0])
    assert _answer(graph) == FRESH


# -- M3: duplicate and overlapping members ------------------------------------------------


def test_m3_duplicate_and_overlapping_members_are_refused(tmp_path: Path) -> None:
    # Issue 41, M3: duplicate entries pointing at one member were each read: 4.3 MB, 7 s.
    path = _saved(tmp_path)
    found = members(index_path(path))
    for entries in ([Entry(n, d, copies=2 if n == "data.npy" else 1) for n, d in found.items()],
                    [*(Entry(n, d) for n, d in found.items()), Entry("data.npy", b"x")]):
        index_path(path).write_bytes(archive(entries))
        graph, said = _loaded(path)
        assert len(said) == 1 and "members" in said[0], said
        assert _answer(graph) == FRESH


def test_m3_overlapping_members_are_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    found = members(index_path(path))
    # The data member's bytes hold the lengths member whole, header and all; the
    # directory names both: the lengths would be read twice.
    inner = archive([Entry("lengths.npy", found.pop("lengths.npy"))])
    inner = inner[:inner.index(b"PK\x01\x02")]
    raw = archive([*(Entry(n, d) for n, d in found.items() if n != "data.npy"),
                   Entry("data.npy", found["data.npy"] + inner)])
    start = raw.index(found["data.npy"] + inner) + len(found["data.npy"])
    directory = raw.index(b"PK\x01\x02")
    end = raw.index(b"PK\x05\x06")
    extra = archive([Entry("lengths.npy", inner[30 + len("lengths.npy"):])])
    entry = extra[extra.index(b"PK\x01\x02"):extra.index(b"PK\x05\x06")]
    entry = entry[:42] + start.to_bytes(4, "little") + entry[46:]
    count = int.from_bytes(raw[end + 8:end + 10], "little") + 1
    tail = (raw[end:end + 8] + count.to_bytes(2, "little") * 2
            + (end - directory + len(entry)).to_bytes(4, "little") + raw[end + 16:])
    index_path(path).write_bytes(raw[:end] + entry + tail)
    graph, said = _loaded(path)
    assert len(said) == 1 and "overlap" in said[0], said
    assert _answer(graph) == FRESH


def _many_entries(count: int) -> bytes:
    data = npy(np.zeros(1000, dtype=np.int64))
    return archive([Entry("data.npy", data, copies=count)])


@pytest.mark.slow
def test_m3_reading_grows_linearly_with_the_entries(tmp_path: Path) -> None:
    from sgkr.algorithms.npz import read_npz
    from sgkr.errors import GraphFormatError

    def read(raw: bytes) -> None:
        with pytest.raises(GraphFormatError, match="members"):
            read_npz(raw, "x.npz", {"data": np.int64})

    assert_linear(_many_entries, read, 4 * MAX_MEMBERS)


# -- M2: what the file says is checked against the graph ----------------------------------


def test_m2_a_summary_of_another_graph_is_not_trusted_for_its_digest(tmp_path: Path) -> None:
    # Issue 41, M2: a summary whose declared graph_sha256 matched was used unchecked: a
    # KeyError, or every question failing with "no tag node".
    path = _saved(tmp_path)
    other = _saved(tmp_path / "other", OTHER)
    header = _header(other)
    header["graph_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    _rewrite(path, header=header, **{n[:-4]: d for n, d in members(index_path(other)).items()
                                     if n != "header.npy"})
    graph, said = _loaded(path)
    assert len(said) == 1 and "other" in said[0] and str(index_path(path)) in said[0]
    assert _answer(graph) == FRESH


def test_m2_index_ids_are_checked_even_with_the_right_fingerprint(tmp_path: Path) -> None:
    # An index naming functions the graph lacks, its fingerprint copied: push copied its
    # postings into the store.
    path = _saved(tmp_path)
    header = _header(path)
    header.pop("graph_sha256")
    header["ids"] = [i.replace("set_timeout", "nowhere") for i in header["ids"]]
    header["ids"].sort()
    _rewrite(path, header=header)
    graph, said = _loaded(path)
    assert len(said) == 1 and "other functions" in said[0]
    assert index_of(graph).ids == sorted(f.id for f in graph.functions() if f.kind != "module")


@pytest.mark.parametrize("place", [("words", "timeout"), ("phrases", "timeout"),
                                   ("named", "send")])
def test_empty_lists_in_the_summary_are_refused(tmp_path: Path, place: tuple[str, str]) -> None:
    # Found by the fuzz below: a word of no phrase weighed 1 / 0 at the first question.
    path = _saved(tmp_path)
    header = _header(path)
    header["summary"][place[0]][place[1]] = []
    _rewrite(path, header=header)
    graph, said = _loaded(path)
    assert len(said) == 1 and "non-empty" in said[0]
    assert _answer(graph) == FRESH


def test_any_failure_of_a_derived_file_is_one_warning_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A fault no check foresaw (here, injected) is still no reason to refuse the graph.
    path = _saved(tmp_path)

    def broken(*args: object) -> None:
        raise MemoryError("injected")

    monkeypatch.setattr(derived.registered()[0], "attach", broken)
    graph, said = _loaded(path)
    assert len(said) == 1 and str(index_path(path)) in said[0] and "MemoryError" in said[0]
    assert _answer(graph) == FRESH


# -- H1: two writers ----------------------------------------------------------------------


def test_h1_a_writer_vouches_only_for_the_bytes_it_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 41, H1: the digest was taken by reading graph.json back, so a writer whose
    # graph file another had replaced paired that file with its own summary.
    path = tmp_path / "graph.json"
    first, second = build_graph([("m.py", OTHER)]), build_graph([("m.py", CODE)])
    write = derived.registered()[0].write

    def interleaved(graph: KnowledgeGraph, file: Path, digest: str) -> None:
        if graph is first:  # the other writer saves whole between this one's two files
            monkeypatch.setattr(derived.registered()[0], "write", write)
            second.save(path)
        write(graph, file, digest)

    monkeypatch.setattr(derived, "pair_lock", _no_lock)  # the digest alone, as without locks
    monkeypatch.setattr(derived.registered()[0], "write", interleaved)
    first.save(path)
    graph, said = _loaded(path)  # graph.json is the second's, its index the first's
    assert said == [] and _answer(graph) == FRESH


def _no_lock(*args: object, **kwargs: object) -> Any:
    import contextlib

    return contextlib.nullcontext(False)


def _save_many(path: str, code: str, rounds: int) -> None:
    graph = build_graph([("m.py", code)])
    for _ in range(rounds):
        graph.save(path)


def _load_many(path: str, seconds: float, queue: Any) -> None:
    found: list[str] = []

    def unmade(graph: KnowledgeGraph) -> Any:
        found.append("the summary was not the graph file's")
        return real(graph)

    real, summary.summarize = summary.summarize, unmade  # this process only
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            graph, said = _loaded(Path(path))
            found += said
            if not Retriever(graph).retrieve(QUESTION).documents:
                found.append("no answer")
        except Exception as exc:  # noqa: BLE001 - any failure is what the test counts
            found.append(repr(exc))
    queue.put(found)


@pytest.mark.subprocess
def test_h1_two_writers_leave_a_graph_file_with_its_own_index(tmp_path: Path) -> None:
    # Issue 41, H1: 9 to 18 of 40 two-process rounds ended with graph.json B beside A's
    # summary, trusted, and every question failing until a rebuild.
    context = multiprocessing.get_context("fork")
    path = str(tmp_path / "graph.json")
    _save_many(path, CODE, 1)
    queue = context.Queue()
    reader = context.Process(target=_load_many, args=(path, 3.0, queue))
    reader.start()
    for turn in range(6):
        writers = [context.Process(target=_save_many, args=(path, code, 4))
                   for code in (CODE, OTHER)]
        for w in writers:
            w.start()
        for w in writers:
            w.join(60)
        header = _header(Path(path))
        assert header["graph_sha256"] == hashlib.sha256(Path(path).read_bytes()).hexdigest(), \
            turn
    assert queue.get(timeout=60) == []
    reader.join(10)
    assert reader.exitcode == 0


# -- generated: any corruption loads whole or is reported ---------------------------------


def _corrupt(raw: bytes, cuts: list[tuple[int, int]], truncate: int | None) -> bytes:
    data = bytearray(raw)
    for place, value in cuts:
        data[place % len(data)] = value
    return bytes(data[:truncate] if truncate is not None else data)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    path = _saved(tmp_path_factory.mktemp("fuzz"))
    return path, index_path(path).read_bytes()


FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture])


@pytest.mark.slow
@FUZZ
@given(cuts=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), max_size=4),
       truncate=st.none() | st.integers(0, 1 << 16))
def test_any_corruption_of_the_bytes_loads_whole_or_is_reported(
        saved: tuple[Path, bytes], cuts: list[tuple[int, int]], truncate: int | None) -> None:
    path, raw = saved
    index_path(path).write_bytes(_corrupt(raw, cuts, truncate))
    graph, said = _loaded(path)
    assert len(said) <= 1 and all("\n" not in s and str(index_path(path)) in s for s in said)
    assert _answer(graph) == FRESH


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**20) | st.floats(allow_nan=True)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=8)


def _places(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _places(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc[:3]):
            found += _places(value, (*prefix, index))
    return found


@pytest.mark.slow
@FUZZ
@given(data=st.data(), value=_JSON)
def test_any_change_of_the_header_loads_whole_or_is_reported(
        saved: tuple[Path, bytes], data: st.DataObject, value: Any) -> None:
    path, raw = saved
    index_path(path).write_bytes(raw)
    header = _header(path)
    place = data.draw(st.sampled_from(_places(header)[1:]))
    target = header
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    _rewrite(path, header=header)
    graph, said = _loaded(path)
    assert len(said) <= 1 and all("\n" not in s for s in said)
    # A file crafted whole (its checksums right) may rank otherwise, never name a node
    # the graph lacks nor fail.
    assert {i for i, _ in _answer(graph)} <= {f.id for f in graph.functions()}


def test_a_rewritten_file_that_is_whole_is_used(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path)
    _rewrite(path, header=_header(path))  # the helper above writes archives that hold
    graph, said = _loaded(path)

    def refuse(*args: object) -> None:
        raise AssertionError("the index was made again instead of read")

    monkeypatch.setattr(LexicalIndex, "__init__", refuse)
    assert said == [] and _answer(graph) == FRESH
