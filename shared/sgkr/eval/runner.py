"""Running retrievers over a dataset: the same graph, the same questions, a matched budget.

SGKR and its ablations run first; every budgeted retriever (the baselines and
the fixed-nodes ablation) then gets ``k`` = SGKR's mean number of retrieved
nodes on the dataset, rounded (at least 1), as in the paper.

Examples
--------
>>> from sgkr.tags import Example, TagRef
>>> code = "def fee(amount):\\n    return rate() * amount\\ndef rate():\\n    return 0.1\\n"
>>> ex = tuple(Example(str(i), "What is the fee for an amount?", f"s{i}.py", code,
...                    (TagRef("amount", ("fee",)),), (TagRef("fee", ("fee",)),))
...            for i in range(2))
>>> from sgkr.eval.datasets import Dataset
>>> result = evaluate(Dataset("toy", examples=ex), [RetrieverSpec("sgkr"),
...                   RetrieverSpec("random", "random")])
>>> result.budget, round(result.summaries["all"]["sgkr"].recall, 2)
(2, 1.0)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..retrieval.retriever import Retriever, RetrieverOptions
from .baselines import (
    BM25Retriever,
    DenseRetriever,
    EmbeddingModel,
    FixedNodesRetriever,
    GraphSageRetriever,
    RandomRetriever,
)
from .datasets import Dataset, Question
from .metrics import Summary, count_tokens, score_question, summarize

__all__ = ["RetrieverSpec", "QuestionRecord", "EvalResult", "evaluate", "default_specs",
           "ABLATIONS", "BASELINES"]

Kind = Literal["sgkr", "fixed", "bm25", "dense", "graphsage", "random"]
Progress = Callable[[str, int, int], None]
_BUDGETED = frozenset({"fixed", "bm25", "dense", "graphsage", "random"})
_NEEDS_MODEL = frozenset({"dense", "graphsage"})


@dataclass(frozen=True)
class RetrieverSpec:
    """One retriever to evaluate.

    Attributes
    ----------
    name
        Its row in the report.
    kind
        ``sgkr`` or one of the budgeted kinds ``fixed``, ``bm25``, ``dense``,
        ``graphsage``, ``random``.
    options
        :class:`~sgkr.retrieval.retriever.RetrieverOptions` fields (``sgkr`` only).
    merge
        The merge policy the graph is built with.
    infer_tags
        Whether the graph is built with inferred tags (``None``: the build's
        default, inferred when none are curated).
    modules
        Whether a baseline may retrieve module-body nodes (SGKR always may).
    tag_extractor
        SGKR's built-in tag extractor (``weighted``, ``keyword``, ``embedding``);
        ``None``: the default.
    """

    name: str
    kind: Kind = "sgkr"
    options: Mapping[str, Any] = field(default_factory=dict)
    merge: str = "auto"
    infer_tags: bool | None = None
    modules: bool = True
    tag_extractor: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in get_args(Kind):
            raise InvalidArgumentError(f"kind must be one of {get_args(Kind)}, got {self.kind!r}")
        if self.options and self.kind != "sgkr":
            raise InvalidArgumentError(f"{self.name}: options apply to sgkr retrievers only")
        RetrieverOptions.from_dict(dict(self.options))

    @property
    def budgeted(self) -> bool:
        """Whether it gets the budget matched to SGKR's retrieved nodes."""
        return self.kind in _BUDGETED


#: SGKR's ablations: the paper's (no merging, no knowledge), the paper's retriever, each
#: part added since (inferred tags, weighted matching, the walk's fill, the lexical seed,
#: the centrality prior, the price of length) and the traversal options.
ABLATIONS: tuple[RetrieverSpec, ...] = (
    RetrieverSpec("sgkr paper", options={"fill": "none", "lexical": False, "scripts": 1,
                                         "mentions": 0.0},
                  tag_extractor="keyword"),
    RetrieverSpec("sgkr no-inferred-tags", infer_tags=False),
    RetrieverSpec("sgkr keyword-tags", tag_extractor="keyword"),
    RetrieverSpec("sgkr embedding-tags", tag_extractor="embedding"),
    RetrieverSpec("sgkr fill=none", options={"fill": "none"}),
    RetrieverSpec("sgkr no-lexical", options={"lexical": False}),
    RetrieverSpec("sgkr centrality=1", options={"centrality": 1.0}),
    RetrieverSpec("sgkr mentions=0", options={"mentions": 0.0}),
    RetrieverSpec("sgkr walk=0", options={"walk": 0.0}),
    RetrieverSpec("sgkr reuse=1.5", options={"reuse": 1.5}),
    RetrieverSpec("sgkr evidence=0", options={"evidence": 0.0}),
    RetrieverSpec("sgkr brevity=0", options={"brevity": 0.0}),
    RetrieverSpec("sgkr inferred=paths", options={"inferred": "paths"}),
    RetrieverSpec("sgkr no-merge", merge="none"),
    RetrieverSpec("sgkr no-knowledge", options={"include_knowledge": False}),
    RetrieverSpec("sgkr fixed-nodes", "fixed"),
    RetrieverSpec("sgkr callees=0", options={"callees": 0}),
    RetrieverSpec("sgkr callees=1", options={"callees": 1}),
    RetrieverSpec("sgkr callees=3", options={"callees": 3}),
    RetrieverSpec("sgkr no-reverse-calls", options={"reverse_calls": False}),
    RetrieverSpec("sgkr partial=nearest", options={"partial": "nearest"}),
    RetrieverSpec("sgkr partial=none", options={"partial": "none"}),
    RetrieverSpec("sgkr k=4", options={"k": 4}),
    RetrieverSpec("sgkr k=12", options={"k": 12}),
)
#: The baselines, all at the matched budget.
BASELINES: tuple[RetrieverSpec, ...] = (
    RetrieverSpec("bm25", "bm25"),
    RetrieverSpec("dense", "dense"),
    RetrieverSpec("graphsage", "graphsage"),
    RetrieverSpec("random", "random"),
    RetrieverSpec("bm25 -modules", "bm25", modules=False),
    RetrieverSpec("dense -modules", "dense", modules=False),
)


def default_specs(*, ablations: bool = True, dense: bool = True) -> list[RetrieverSpec]:
    """SGKR, its ablations (optional) and the baselines (dense ones optional)."""
    specs = [RetrieverSpec("sgkr")]
    specs += list(ABLATIONS) if ablations else []
    specs += BASELINES
    return [s for s in specs if dense or not _needs_model(s)]


def _needs_model(spec: RetrieverSpec) -> bool:
    """Whether ``spec`` embeds text: a dense baseline, or SGKR matching tags by embedding."""
    return spec.kind in _NEEDS_MODEL or spec.tag_extractor == "embedding"


@dataclass(frozen=True)
class QuestionRecord:
    """What one retriever retrieved for one question, and its score."""

    retriever: str
    question_id: str
    level: str | None
    gold: tuple[str, ...]
    retrieved: tuple[str, ...]
    recall: float
    precision: float
    full_cover: bool
    tokens: int
    latency_ms: float

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"retriever": self.retriever, "question_id": self.question_id,
                "level": self.level, "gold": list(self.gold), "retrieved": list(self.retrieved),
                "recall": self.recall, "precision": self.precision,
                "full_cover": self.full_cover, "tokens": self.tokens,
                "latency_ms": round(self.latency_ms, 3)}


@dataclass(frozen=True)
class EvalResult:
    """The evaluation of one dataset.

    ``summaries[subset][retriever]``: subsets ``all`` and, when questions carry
    levels, ``hard``. ``skipped``: ids of questions with no gold function in the graph.
    """

    dataset: str
    mode: str
    budget: int
    retrievers: tuple[str, ...]
    summaries: dict[str, dict[str, Summary]]
    records: tuple[QuestionRecord, ...]
    skipped: tuple[str, ...]
    graph: dict[str, Any]
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: summaries, then every per-question record."""
        return {
            "dataset": self.dataset, "mode": self.mode, "budget": self.budget,
            "graph": self.graph, "seconds": round(self.seconds, 2),
            "skipped": list(self.skipped),
            "summaries": {subset: {name: s.to_dict() for name, s in rows.items()}
                          for subset, rows in self.summaries.items()},
            "records": [r.to_dict() for r in self.records],
        }


def evaluate(dataset: Dataset, specs: Sequence[RetrieverSpec], *,
             embedding_model: EmbeddingModel | None = None, budget: int | None = None,
             seed: int = 0, progress: Progress | None = None) -> EvalResult:
    """Score each retriever of ``specs`` on ``dataset``.

    Parameters
    ----------
    dataset
        Questions with gold, or leave-one-out over its examples.
    specs
        The retrievers; the first ``sgkr`` one is the reference for the budget.
    embedding_model
        For ``dense`` and ``graphsage`` (default: :func:`default_embedding_model`).
    budget
        ``k`` of the budgeted retrievers; default: SGKR's mean retrieved nodes, rounded.
    seed
        Of the random baseline.
    progress
        Called as ``progress(stage, done, total)``.

    Raises
    ------
    InvalidArgumentError
        If ``specs`` is empty, names repeat, or no spec is ``sgkr`` and no budget is given.
    """
    started = time.perf_counter()
    specs = list(specs)
    names = [s.name for s in specs]
    if not specs or len(set(names)) != len(names):
        raise InvalidArgumentError(f"give retrievers with distinct names, got {names}")
    reference = next((s for s in specs if s.kind == "sgkr"), None)
    if reference is None and budget is None:
        raise InvalidArgumentError("without an sgkr retriever, give the budget")
    if budget is not None and (not isinstance(budget, int) or budget < 1):
        raise InvalidArgumentError(f"budget must be a positive integer, got {budget!r}")
    if any(_needs_model(s) for s in specs) and embedding_model is None:
        from .baselines import default_embedding_model

        embedding_model = default_embedding_model()
    folds = {build: list(dataset.folds(merge=build[0], infer_tags=build[1]))
             for build in dict.fromkeys((s.merge, s.infer_tags) for s in specs)}
    first = next(iter(folds.values()))
    skipped = tuple(q.id for _, q in first if not q.gold)
    records: dict[str, list[QuestionRecord]] = {}
    for spec in [s for s in specs if not s.budgeted]:
        records[spec.name] = _run(spec, folds[spec.merge, spec.infer_tags], 0,
                                  embedding_model, seed, progress)
    if budget is None:
        ref = records[reference.name] if reference is not None else []
        budget = max(1, round(sum(len(r.retrieved) for r in ref) / max(len(ref), 1)))
    for spec in [s for s in specs if s.budgeted]:
        records[spec.name] = _run(spec, folds[spec.merge, spec.infer_tags], budget,
                                  embedding_model, seed, progress)
    all_records = tuple(r for s in specs for r in records[s.name])
    return EvalResult(
        dataset=dataset.name,
        mode="leave-one-out" if dataset.leave_one_out else "questions",
        budget=budget,
        retrievers=tuple(names),
        summaries=_summaries(specs, records),
        records=all_records,
        skipped=skipped,
        graph=_graph_info(first[0][0] if first else None, len(first)),
        seconds=time.perf_counter() - started,
    )


def _run(spec: RetrieverSpec, folds: Sequence[tuple[KnowledgeGraph, Question]], budget: int,
         model: EmbeddingModel | None, seed: int, progress: Progress | None,
         ) -> list[QuestionRecord]:
    out: list[QuestionRecord] = []
    built: dict[int, Any] = {}
    for index, (graph, question) in enumerate(folds):
        if not question.gold:
            continue
        key = id(graph)
        if key not in built:
            built[key] = _make(spec, graph, model, seed)
        retrieve = built[key]
        began = time.perf_counter()
        ids, with_knowledge = retrieve(question.question, budget)
        latency = (time.perf_counter() - began) * 1000
        nodes = [graph.function(i) for i in ids]
        names = [f.name for f in nodes]
        # Without knowledge a document is the code less the docstring that carried it.
        tokens = sum(count_tokens(f.text if with_knowledge else f.shown_code) for f in nodes)
        score = score_question(question.gold, names)
        out.append(QuestionRecord(spec.name, question.id, question.level, question.gold,
                                  tuple(names), score.recall, score.precision,
                                  score.full_cover, tokens, latency))
        if progress is not None:
            progress(spec.name, index + 1, len(folds))
    return out


RetrieveFn = Callable[[str, int], tuple[list[str], bool]]


def _make(spec: RetrieverSpec, graph: KnowledgeGraph, model: EmbeddingModel | None,
          seed: int) -> RetrieveFn:
    if spec.kind == "sgkr":
        retriever = Retriever(graph, tag_extractor=spec.tag_extractor,  # type: ignore[arg-type]
                              embedding_model=model, **dict(spec.options))
        knowledge = retriever.options.include_knowledge

        def sgkr(question: str, _budget: int) -> tuple[list[str], bool]:
            return [d.id for d in retriever.retrieve(question).documents], knowledge

        return sgkr
    baseline: Callable[[str, int], Sequence[str]]
    if spec.kind == "fixed":
        baseline = FixedNodesRetriever(graph)
    elif spec.kind == "bm25":
        baseline = BM25Retriever(graph, modules=spec.modules)
    elif spec.kind == "random":
        baseline = RandomRetriever(graph, seed, modules=spec.modules)
    else:
        assert model is not None
        baseline = (DenseRetriever(graph, model, modules=spec.modules) if spec.kind == "dense"
                    else GraphSageRetriever(graph, model, modules=spec.modules))

    def run(question: str, budget: int) -> tuple[list[str], bool]:
        return list(baseline(question, budget)), True

    return run


def _summaries(specs: Sequence[RetrieverSpec], records: Mapping[str, Sequence[QuestionRecord]],
               ) -> dict[str, dict[str, Summary]]:
    subsets: dict[str, Callable[[QuestionRecord], bool]] = {"all": lambda r: True}
    if any(r.level == "hard" for rs in records.values() for r in rs):
        subsets["hard"] = lambda r: r.level == "hard"
    out: dict[str, dict[str, Summary]] = {}
    for subset, keep in subsets.items():
        out[subset] = {}
        for spec in specs:
            rows = [r for r in records[spec.name] if keep(r)]
            scores = [score_question(r.gold, r.retrieved) for r in rows]
            out[subset][spec.name] = summarize(scores, [len(r.retrieved) for r in rows],
                                               [r.tokens for r in rows],
                                               [r.latency_ms for r in rows])
    return out


def _graph_info(graph: KnowledgeGraph | None, folds: int) -> dict[str, Any]:
    if graph is None:
        return {"folds": folds}
    stats = graph.stats()
    return {"functions": stats["functions"], "tags": stats["tags"],
            "call_edges": sum(stats["call_edges"].values()), "questions": folds}
