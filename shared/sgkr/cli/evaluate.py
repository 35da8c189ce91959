"""``sgkr eval``: score SGKR, its ablations and the baselines on datasets; report.

A dataset is a folder in the format of :mod:`sgkr.eval.datasets`, or ``finqa``
/ ``convfinqa``, converted on the fly from ``--data`` (the folder holding
``finqa/`` and ``convfinqa/``), or ``swebench``: bug localization on real
repositories (:mod:`sgkr.eval.swebench`) from ``--data`` (the unpacked
``swebench-dev`` folder, or the folder holding it). ``--llm module:object`` adds end-to-end
scoring with a LlamaIndex LLM or a LangChain chat model (FinQA and ConvFinQA).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from ..errors import InvalidArgumentError

__all__ = ["register", "run"]

_BUILTIN = ("finqa", "convfinqa")
# The bundled datasets: payments (DABstep leave-one-out), the same without its knowledge
# file and example tags, and code search over requests.
_BUNDLED = ("payments", "payments-bare", "requests")


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr eval``, on its parser ``p``."""
    p.description = ("Score SGKR, its ablations and baselines (BM25, dense, "
                     "GraphSAGE-style, random) at a matched budget.")
    p.add_argument("datasets", nargs="+", metavar="DATASET",
                   help="a dataset folder; payments, payments-bare or requests (bundled); "
                   "finqa / convfinqa (converted from --data); or swebench (bug "
                   "localization on the repositories in --data)")
    p.add_argument("--data", default=os.environ.get("SGKR_DATA"),
                   help="folder with finqa/ and convfinqa/ (default: $SGKR_DATA)")
    p.add_argument("--questions", help="questions JSONL to score instead of the folder's own")
    p.add_argument("--loo", action="store_true", help="leave-one-out over the examples")
    p.add_argument("--no-ablations", action="store_true", help="SGKR and baselines only")
    p.add_argument("--no-dense", action="store_true", help="skip the dense baselines")
    p.add_argument("--embedding", default="default", metavar="MODEL",
                   help="default (all-MiniLM-L6-v2, offline), hash (model-free), or "
                   "module:object (an embedding model or a zero-argument factory)")
    p.add_argument("--budget", type=int, help="k of the baselines (default: SGKR's mean nodes)")
    p.add_argument("--out", help="write results.json, results.md and recall_vs_tokens.png here")
    p.add_argument("--no-png", action="store_true", help="do not draw the PNG")
    p.add_argument("--write-dataset", metavar="DIR",
                   help="write the (converted) datasets as folders under DIR and stop")
    p.add_argument("--llm", metavar="module:object",
                   help="a LlamaIndex LLM or LangChain chat model (or a zero-argument factory)")
    p.add_argument("--llm-limit", type=int, default=20, help="questions asked per dataset")
    p.add_argument("--solved", action="store_true",
                   help="the solved-tasks setting: build from some of the earlier questions and "
                   "their solutions, ask the others (two folds, and leave-one-out without "
                   "questions of the dataset's own); recall at --ks, all and task-specific")
    p.add_argument("--ks", default="2,5,8", metavar="K,K",
                   help="budgets of --solved (default 2,5,8)")
    p.set_defaults(run=run)


def _load(spec: str, args: argparse.Namespace) -> Any:
    from ..eval.datasets import load_dataset
    from ..eval.finqa import convert_convfinqa, convert_finqa

    if spec in _BUNDLED and not Path(spec).is_dir():
        from .demo import payments_example

        folder = payments_example()
        if spec == "requests":
            folder = folder.parent / "requests"
            if not folder.is_dir():  # an installed sgkr carries the payments example only
                raise InvalidArgumentError(
                    "requests: the requests example comes with a clone of sgkr; give its "
                    "folder (sgkr eval path/to/sgkr/examples/requests)")
        dataset = load_dataset(folder, questions=args.questions, leave_one_out=args.loo)
        return dataset.bare() if spec == "payments-bare" else dataset
    if spec in _BUILTIN and not Path(spec).is_dir():
        if not args.data:
            raise InvalidArgumentError(f"{spec}: give --data (the folder with finqa/ and "
                                       "convfinqa/) or set SGKR_DATA")
        data = Path(args.data)
        dataset = (convert_finqa(data / "finqa") if spec == "finqa"
                   else convert_convfinqa(data / "convfinqa" / "convfinqa_dev.json",
                                          data / "finqa"))
        if args.questions or args.loo:
            raise InvalidArgumentError(f"{spec}: --questions and --loo apply to folders only")
        return dataset
    return load_dataset(spec, questions=args.questions, leave_one_out=args.loo)


def _import(spec: str) -> Any:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise InvalidArgumentError(f"expected module:object, got {spec!r}")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise InvalidArgumentError(f"cannot import {spec}: {exc}") from exc
    return obj() if isinstance(obj, type) or (callable(obj) and _is_factory(obj)) else obj


def _is_factory(obj: Any) -> bool:
    import inspect

    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                   for p in params) and not hasattr(obj, "complete") \
        and not hasattr(obj, "invoke") and not hasattr(obj, "embed_query")


def _embedding(spec: str) -> Any:
    from ..eval.baselines import (
        HashingEmbeddings,
        as_embedding_model,
        default_embedding_model,
    )

    if spec == "default":
        return default_embedding_model()
    if spec == "hash":
        return HashingEmbeddings()
    return as_embedding_model(_import(spec))


def _progress(stage: str, done: int, total: int) -> None:
    if sys.stderr.isatty() and (done == total or done % 25 == 0):
        print(f"\r{stage}: {done}/{total}   ", end="" if done < total else "\n",
              file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Load or convert the datasets, evaluate, print the table, write the report."""
    from ..eval.datasets import write_dataset
    from ..eval.report import format_table, write_report
    from ..eval.runner import default_specs, evaluate

    if args.budget is not None and args.budget < 1:
        raise InvalidArgumentError(f"--budget must be positive, got {args.budget}")
    if "swebench" in args.datasets and not Path("swebench").is_dir():
        if args.write_dataset or args.llm or args.loo or args.questions:
            raise InvalidArgumentError("swebench: --write-dataset, --llm, --loo and "
                                       "--questions do not apply")
        _localization(args)
        args.datasets = [d for d in args.datasets if d != "swebench"]
        if not args.datasets:
            return 0
    datasets = [_load(spec, args) for spec in args.datasets]
    if args.write_dataset:
        for dataset in datasets:
            print(write_dataset(dataset, Path(args.write_dataset) / dataset.name))
        return 0
    if args.solved:
        return _solved(datasets, args)
    specs = default_specs(ablations=not args.no_ablations, dense=not args.no_dense)
    model = None if args.no_dense else _embedding(args.embedding)
    results = [evaluate(d, specs, embedding_model=model, budget=args.budget,
                        progress=_progress) for d in datasets]
    print(format_table(results))
    meta = {"command": "sgkr eval " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["eval"]
            else "sgkr eval", "python": platform.python_version(),
            "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
            "embedding": "none" if args.no_dense else args.embedding}
    if args.llm:
        meta["llm"] = _end_to_end(datasets, results, args)
    if args.out:
        for path in write_report(results, args.out, meta=meta, png=not args.no_png):
            print(f"wrote {path}")
    return 0


def _solved(datasets: list[Any], args: argparse.Namespace) -> int:
    """``sgkr eval --solved``: the solved-tasks setting, a table per dataset (and --out)."""
    from ..atomic import write_atomic
    from ..eval.solved import evaluate_solved, format_solved, solved_specs

    try:
        ks = tuple(int(k) for k in args.ks.split(","))
    except ValueError:
        raise InvalidArgumentError(f"--ks must be integers joined by commas, got {args.ks!r}"
                                   ) from None
    specs = solved_specs(dense=not args.no_dense, ablations=not args.no_ablations)
    model = None if args.no_dense else _embedding(args.embedding)
    results = [evaluate_solved(d, specs, ks=ks, embedding_model=model, progress=_progress)
               for d in datasets]
    for result in results:
        print(format_solved(result) + "\n")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        doc = {"command": "sgkr eval " + " ".join(sys.argv[2:]),
               "datasets": [r.to_dict() for r in results]}
        text = "\n\n".join(format_solved(r) for r in results)
        for name, body in (("solved.json", json.dumps(doc, indent=1) + "\n"),
                           ("solved.txt", text + "\n")):
            print(f"wrote {write_atomic(out / name, body)}")
    return 0


def _localization(args: argparse.Namespace) -> None:
    """``sgkr eval swebench``: bug localization, its table printed (and written to --out)."""
    from ..atomic import write_atomic
    from ..eval.swebench import (
        default_localizers,
        evaluate_localization,
        format_localization,
        localization_markdown,
    )

    if not args.data:
        raise InvalidArgumentError("swebench: give --data (the unpacked swebench-dev folder)")
    folder = Path(args.data)
    if not (folder / "instances.jsonl").is_file() and (folder / "swebench-dev").is_dir():
        folder = folder / "swebench-dev"
    rows = default_localizers(ablations=not args.no_ablations, dense=not args.no_dense)
    model = None if args.no_dense else _embedding(args.embedding)
    result = evaluate_localization(folder, rows, embedding_model=model, progress=_progress)
    print(format_localization(result))
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        command = "sgkr eval " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["eval"] \
            else "sgkr eval swebench"
        for name, text in (("swebench.json", json.dumps(result.to_dict(), indent=1) + "\n"),
                           ("swebench.md", localization_markdown(result, command))):
            print(f"wrote {write_atomic(out / name, text)}")


def _end_to_end(datasets: list[Any], results: list[Any], args: argparse.Namespace,
                ) -> dict[str, Any]:
    from ..eval.baselines import BM25Retriever
    from ..eval.llm import run_end_to_end
    from ..retrieval.retriever import Retriever

    model = _import(args.llm)
    summary: dict[str, Any] = {}
    for dataset, result in zip(datasets, results, strict=True):
        if dataset.leave_one_out:
            print(f"{dataset.name}: end-to-end scoring needs questions with answers; skipped")
            continue
        budget: int = result.budget

        def bm25(graph: Any, question: str, k: int = budget) -> list[str]:
            return BM25Retriever(graph)(question, k)

        retrievers: dict[str, Any] = {
            "none": lambda g, q: [],
            "sgkr": lambda g, q: [d.id for d in Retriever(g).retrieve(q).documents],
            "bm25": bm25,
        }
        records = run_end_to_end(dataset, retrievers, model, limit=args.llm_limit)
        accuracy = {name: sum(r.correct for r in records if r.retriever == name)
                    / max(1, sum(1 for r in records if r.retriever == name))
                    for name in retrievers}
        summary[dataset.name] = accuracy
        print(f"{dataset.name} end-to-end accuracy: " + json.dumps(accuracy))
    return summary
