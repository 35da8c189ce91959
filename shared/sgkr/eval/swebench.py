"""Function-level bug localization on real repositories (SWE-bench, as in LocAgent).

A folder holds ``instances.jsonl`` (one bug report per line: ``instance_id``,
``repo``, ``corpus``, ``problem_statement`` and the ``gold`` functions its fix
changed, each ``{"file", "qualname", "line"}``) and, for each instance, the
folder ``corpus`` of the repository's non-test Python files at the bug's commit
(``swebench-dev/`` beside the project, once unpacked: its README says how).

For each report a retriever ranks the repository's functions; **Acc@k** is the
share of reports whose gold functions are *all* in the top ``k`` (``k`` 5 and
10), ``k = 5`` being scored on the retriever's own answer for ``k = 5``.
Tokens are those of the top 10's text (:func:`~sgkr.eval.metrics.count_tokens`).
A retrieved function names a corpus function by its file and qualified name (a
merged node names each of its copies). ``prefix`` says whether the answer for
``k = 5`` was the first five of the answer for ``k = 10``.

Examples
--------
>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "c1" / "pkg").mkdir(parents=True)
>>> _ = (folder / "c1" / "pkg" / "fees.py").write_text(
...     "def parse_rate(text):\\n    return float(text)\\n"
...     "def total_fee(amount, rate):\\n    return amount * rate\\n")
>>> gold = [{"file": "pkg/fees.py", "qualname": "parse_rate", "line": 1}]
>>> _ = (folder / "instances.jsonl").write_text(json.dumps({
...     "instance_id": "x-1", "repo": "o/pkg", "corpus": "c1", "gold": gold,
...     "problem_statement": "parse_rate fails on a rate text with a percent sign"}) + "\\n")
>>> result = evaluate_localization(folder, [Localizer("sgkr")])
>>> result.summary["sgkr"].acc10, result.summary["sgkr"].prefix
(1.0, 1.0)
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from ..build.builder import build_graph
from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..ingest.files import parse_json, read_side_text
from ..ingest.sources import module_name
from ..retrieval.options import RetrieverOptions
from ..retrieval.retriever import Retriever
from .baselines import CodeBM25Retriever, DenseRetriever, EmbeddingModel
from .metrics import count_tokens

__all__ = ["GoldFunction", "Instance", "Localizer", "Localization", "LocalizationSummary",
           "format_localization", "localization_markdown",
           "LocalizationResult", "load_instances", "evaluate_localization",
           "default_localizers", "LOCALIZATION_ABLATIONS"]

LocalizerKind = Literal["sgkr", "sgkr+dense", "bm25s", "dense"]
Progress = Callable[[str, int, int], None]
_DEPTHS = (5, 10)
_SEEDED = 100  # the dense baseline's hits that seed SGKR


@dataclass(frozen=True)
class GoldFunction:
    """A function the fix changed: its file, qualified name inside the module, ``def`` line."""

    file: str
    qualname: str
    line: int


@dataclass(frozen=True)
class Instance:
    """One bug report, the folder of its repository's sources, and its gold functions."""

    id: str
    repo: str
    corpus: Path
    question: str
    gold: tuple[GoldFunction, ...]


@dataclass(frozen=True)
class Localizer:
    """One row of the evaluation: SGKR with some options (``sgkr``; ``sgkr+dense``: seeded by
    the dense baseline), or a baseline (``bm25s``, ``dense``)."""

    name: str
    kind: LocalizerKind = "sgkr"
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in get_args(LocalizerKind):
            raise InvalidArgumentError(
                f"kind must be one of {get_args(LocalizerKind)}, got {self.kind!r}")
        if self.options and not self.kind.startswith("sgkr"):
            raise InvalidArgumentError(f"{self.name}: options apply to sgkr only")
        RetrieverOptions.from_dict(dict(self.options))


@dataclass(frozen=True)
class Localization:
    """What one localizer answered for one report, and how it scored."""

    localizer: str
    instance: str
    repo: str
    retrieved: tuple[str, ...]
    hit5: bool
    hit10: bool
    prefix: bool
    tokens: int


@dataclass(frozen=True)
class LocalizationSummary:
    """Means over the reports (``prefix``: the share of prefix-stable answers)."""

    instances: int
    acc5: float
    acc10: float
    tokens: float
    prefix: float


@dataclass(frozen=True)
class LocalizationResult:
    """Every report's localization, and the summary per localizer and per repository."""

    localizers: tuple[str, ...]
    records: tuple[Localization, ...]
    summary: dict[str, LocalizationSummary]
    by_repo: dict[str, dict[str, LocalizationSummary]]
    #: Halves ``A`` and ``B`` of the instances (sorted by id, alternately), for ablations
    #: judged on a half they were not tuned on.
    by_half: dict[str, dict[str, LocalizationSummary]]
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"localizers": list(self.localizers), "seconds": round(self.seconds, 1),
                "summary": {n: vars(s) for n, s in self.summary.items()},
                "by_repo": {r: {n: vars(s) for n, s in rows.items()}
                            for r, rows in self.by_repo.items()},
                "by_half": {h: {n: vars(s) for n, s in rows.items()}
                            for h, rows in self.by_half.items()},
                "records": [vars(r) | {"retrieved": list(r.retrieved)} for r in self.records]}


def load_instances(folder: str | Path) -> list[Instance]:
    """The instances of ``folder/instances.jsonl``, each with its corpus folder.

    Raises
    ------
    InvalidArgumentError
        If the file is missing or malformed, or a corpus folder is missing; the
        message names the file, line and field.
    """
    root = Path(folder)
    file = root / "instances.jsonl"
    text = read_side_text(file, f"{file}: cannot read", InvalidArgumentError)
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            out.append(_instance(parse_json(line, f"{file}:{number}", InvalidArgumentError),
                                 root, f"{file}:{number}"))
    if not out:
        raise InvalidArgumentError(f"{file}: no instances")
    return out


def _instance(raw: Any, root: Path, where: str) -> Instance:
    if not isinstance(raw, dict):
        raise InvalidArgumentError(f"{where}: expected an object")
    for key in ("instance_id", "repo", "corpus", "problem_statement"):
        if not isinstance(raw.get(key), str):
            raise InvalidArgumentError(f"{where}: {key!r} must be a string")
    gold = raw.get("gold")
    if not isinstance(gold, list) or not gold or not all(
            isinstance(g, dict) and isinstance(g.get("file"), str)
            and isinstance(g.get("qualname"), str) and isinstance(g.get("line"), int)
            for g in gold):
        raise InvalidArgumentError(f"{where}: 'gold' must be a list of {{file, qualname, line}}")
    corpus = root / raw["corpus"]
    if Path(raw["corpus"]).is_absolute() or ".." in Path(raw["corpus"]).parts \
            or not corpus.is_dir():
        raise InvalidArgumentError(f"{where}: no corpus folder {raw['corpus']!r} in {root}")
    return Instance(raw["instance_id"], raw["repo"], corpus, raw["problem_statement"],
                    tuple(GoldFunction(g["file"], g["qualname"], g["line"]) for g in gold))


#: SGKR without its graph stage (the first stage alone), and without each of its parts.
LOCALIZATION_ABLATIONS: tuple[Localizer, ...] = (
    Localizer("sgkr no-graph", options={"fill": "none", "mentions": 0.0}),
    Localizer("sgkr mentions=0", options={"mentions": 0.0}),
    Localizer("sgkr walk=0", options={"walk": 0.0}),
    Localizer("sgkr reuse=1.5", options={"reuse": 1.5}),
    Localizer("sgkr evidence=0", options={"evidence": 0.0}),
    Localizer("sgkr centrality=1", options={"centrality": 1.0}),
    Localizer("sgkr brevity=0", options={"brevity": 0.0}),
)


def default_localizers(*, ablations: bool = True, dense: bool = True) -> list[Localizer]:
    """SGKR, its ablations (optional), bm25s, and (optional) the dense baseline and SGKR
    seeded by it."""
    rows = [Localizer("sgkr")]
    rows += list(LOCALIZATION_ABLATIONS) if ablations else [LOCALIZATION_ABLATIONS[0]]
    rows.append(Localizer("bm25s", "bm25s"))
    if dense:
        rows += [Localizer("dense", "dense"), Localizer("sgkr seeded by dense", "sgkr+dense")]
    return rows


def evaluate_localization(folder: str | Path, localizers: Sequence[Localizer], *,
                          embedding_model: EmbeddingModel | None = None,
                          instances: Sequence[str] | None = None,
                          progress: Progress | None = None) -> LocalizationResult:
    """Score each localizer on the instances of ``folder`` (see the module documentation).

    Parameters
    ----------
    folder
        The folder of ``instances.jsonl`` and the corpus folders.
    localizers
        The rows, names distinct.
    embedding_model
        For ``dense`` rows (default: :func:`~sgkr.retrieval.embeddings.default_embedding_model`).
    instances
        Only these instance ids (default: all).
    progress
        Called as ``progress(stage, done, total)``.

    Raises
    ------
    InvalidArgumentError
        If the folder or a row is malformed, names repeat, or an instance id is unknown.
    """
    started = time.perf_counter()
    names = [r.name for r in localizers]
    if not localizers or len(set(names)) != len(names):
        raise InvalidArgumentError(f"give localizers with distinct names, got {names}")
    chosen = _chosen(load_instances(folder), instances)
    if any(r.kind in ("dense", "sgkr+dense") for r in localizers) and embedding_model is None:
        from ..retrieval.embeddings import default_embedding_model

        embedding_model = default_embedding_model()
    records: list[Localization] = []
    with tempfile.TemporaryDirectory(prefix="sgkr-localize-") as cache:
        for done, instance in enumerate(chosen, 1):
            graph = build_graph([instance.corpus], cache=cache)
            base = Retriever(graph)  # its tables serve every row of SGKR (with_options)
            records += [_localize(row, graph, base, instance, embedding_model)
                        for row in localizers]
            if progress is not None:
                progress("swebench", done, len(chosen))
    repos = sorted({i.repo for i in chosen})
    ordered = sorted(i.id for i in chosen)
    halves = {"A": set(ordered[0::2]), "B": set(ordered[1::2])}
    return LocalizationResult(
        tuple(names), tuple(records), _summaries(records, names),
        {repo: _summaries([r for r in records if r.repo == repo], names) for repo in repos},
        {half: _summaries([r for r in records if r.instance in ids], names)
         for half, ids in halves.items()},
        time.perf_counter() - started)


def _chosen(found: list[Instance], ids: Sequence[str] | None) -> list[Instance]:
    if ids is None:
        return found
    known = {i.id: i for i in found}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise InvalidArgumentError(f"unknown instance id(s): {unknown}")
    return [known[i] for i in ids]


def _localize(row: Localizer, graph: KnowledgeGraph, base: Retriever, instance: Instance,
              model: EmbeddingModel | None) -> Localization:
    rank = _ranker(row, graph, base, model)
    answers = {k: rank(instance.question, k) for k in _DEPTHS}
    keys = _gold_keys(graph)
    gold = [(g.file, g.qualname) for g in instance.gold]

    def hit(ids: Sequence[str]) -> bool:
        found = {key for i in ids for key in keys.get(i, ())}
        return all(g in found for g in gold)

    top = answers[10]
    return Localization(row.name, instance.id, instance.repo, tuple(top), hit(answers[5]),
                        hit(top), answers[5] == top[:5] and len(set(top)) == len(top),
                        sum(count_tokens(graph.function(i).text) for i in top))


def _ranker(row: Localizer, graph: KnowledgeGraph, base: Retriever,
            model: EmbeddingModel | None) -> Callable[[str, int], list[str]]:
    if row.kind.startswith("sgkr"):
        retriever = base.with_options(**dict(row.options))
        if row.kind == "sgkr+dense":
            assert model is not None
            dense = DenseRetriever(graph, model, modules=False)
            retriever = Retriever(graph, seed_retriever=lambda q: dense(q, _SEEDED),
                                  **dict(row.options))
        return lambda q, k: [d.id for d in retriever.retrieve(q, k).documents]
    if row.kind == "bm25s":
        baseline: Callable[[str, int], Sequence[str]] = CodeBM25Retriever(graph)
    else:
        assert model is not None
        baseline = DenseRetriever(graph, model, modules=False)
    return lambda q, k: list(baseline(q, k))


def _gold_keys(graph: KnowledgeGraph) -> dict[str, set[tuple[str, str]]]:
    """Each function node's (file, qualified name inside its module) pairs."""
    keys: dict[str, set[tuple[str, str]]] = {}
    for f in graph.functions():
        for span in f.sources:
            module = module_name(span.file)
            prefix = f"{module}." if module else ""
            keys.setdefault(f.id, set()).update(
                (span.file, q[len(prefix):]) for q in f.qualnames if q.startswith(prefix))
    return keys


def _summaries(records: Iterable[Localization], names: Sequence[str],
               ) -> dict[str, LocalizationSummary]:
    rows = list(records)
    out = {}
    for name in names:
        mine = [r for r in rows if r.localizer == name]
        n = max(len(mine), 1)
        out[name] = LocalizationSummary(
            len(mine), sum(r.hit5 for r in mine) / n, sum(r.hit10 for r in mine) / n,
            sum(r.tokens for r in mine) / n, sum(r.prefix for r in mine) / n)
    return out


_HEAD = ("localizer", "n", "Acc@5", "Acc@10", "tokens@10", "prefix-stable", "half A",
         "half B")


def _rows(result: LocalizationResult) -> list[tuple[str, ...]]:
    """One row per localizer; a half's cell is its Acc@5 / Acc@10."""
    return [(n, str(s.instances), f"{s.acc5:.3f}", f"{s.acc10:.3f}", f"{s.tokens:.0f}",
             f"{100 * s.prefix:.0f} %",
             *(f"{result.by_half[h][n].acc5:.3f} / {result.by_half[h][n].acc10:.3f}"
               for h in ("A", "B"))) for n, s in result.summary.items()]


def localization_markdown(result: LocalizationResult, command: str) -> str:
    """The summary as Markdown tables (the command that made it first), as the docs show it."""
    repos = list(result.by_repo)
    first = result.localizers[0]
    lines = [f"`{command}`", "", "| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(result)]
    counts = [f"{r} ({result.by_repo[r][first].instances})" for r in repos]
    lines += ["", "Acc@10 by repository (instances):", "",
              "| localizer | " + " | ".join(counts) + " |", "|" + "---|" * (len(repos) + 1)]
    lines += [f"| {n} | " + " | ".join(f"{result.by_repo[r][n].acc10:.2f}" for r in repos)
              + " |" for n in result.localizers]
    return "\n".join(lines) + "\n"


def format_localization(result: LocalizationResult) -> str:
    """The summary as a plain-text table (and Acc@10 per repository)."""
    rows = [_HEAD, *_rows(result)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEAD))]
    lines = ["swebench (function-level localization; half A / B: Acc@5 / Acc@10)"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
              for r in rows]
    repos = list(result.by_repo)
    lines += ["", "Acc@10 by repository: " + ", ".join(
        f"{repo} ({result.by_repo[repo][result.localizers[0]].instances})" for repo in repos)]
    for name in result.localizers:
        lines.append(f"  {name}: " + " ".join(f"{result.by_repo[r][name].acc10:.2f}"
                                              for r in repos))
    return "\n".join(lines)
