"""End-to-end scoring with a language model: the paper's FinQA prompt, answers executed safely.

The model is duck-typed so the core imports neither framework: a LlamaIndex
LLM (``.complete(prompt).text``), a LangChain chat model
(``.invoke(prompt).content``) or a plain callable ``prompt -> str``. The
returned program tokens are run by :func:`sgkr.eval.finqa.execute`, a small
interpreter of the FinQA operations (never ``eval``), and compared with the
gold answer within a small tolerance.

DABstep answers need the generated code to run in an agent's sandbox, which
SGKR does not do: end-to-end scoring covers FinQA and ConvFinQA.

Examples
--------
>>> complete(lambda prompt: '["divide(", "8.1", "56", ")", "EOF"]', "q")
'["divide(", "8.1", "56", ")", "EOF"]'
>>> score_answer('Answer: ["subtract(", "5", "3", ")", "EOF"]', "2.0")
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidArgumentError, SGKRError
from ..graph.model import KnowledgeGraph
from ..records import RetrievalResult
from ..retrieval.context import FINQA_PROMPT, format_prompt, make_documents
from .datasets import Dataset, Question
from .finqa import close_enough, execute, parse_tokens

__all__ = ["complete", "parse_program_tokens", "score_answer", "LLMRecord", "run_end_to_end"]

_LIST = re.compile(r"\[[^\[\]]*\]", re.S)
Retrieve = Callable[[KnowledgeGraph, str], Sequence[str]]


def complete(model: Any, prompt: str) -> str:
    """The model's text answer to ``prompt``, whatever the framework.

    Raises
    ------
    InvalidArgumentError
        If ``model`` has neither ``.complete`` nor ``.invoke`` and is not callable.
    """
    if not isinstance(prompt, str):
        raise InvalidArgumentError("prompt must be a string")
    if hasattr(model, "complete"):
        response = model.complete(prompt)
        return str(getattr(response, "text", response))
    if hasattr(model, "invoke"):
        response = model.invoke(prompt)
        content = getattr(response, "content", response)
        return content if isinstance(content, str) else json.dumps(content)
    if callable(model):
        return str(model(prompt))
    raise InvalidArgumentError(
        f"not a language model: {type(model).__name__} (give a LlamaIndex LLM, a LangChain "
        "chat model or a callable prompt -> text)")


def parse_program_tokens(text: str) -> list[str]:
    """The last JSON list of strings in ``text`` (the paper's answer format).

    Raises
    ------
    InvalidArgumentError
        If ``text`` holds no such list.
    """
    for candidate in reversed(_LIST.findall(text)):
        try:
            tokens = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(tokens, list) and tokens:
            return [str(t) for t in tokens]
    raise InvalidArgumentError("no JSON list of program tokens in the answer")


def score_answer(text: str, gold: str | None, table: Sequence[Sequence[str]] = ()) -> bool:
    """Whether the program in the model's answer computes ``gold`` (``yes``/``no`` = 1/0)."""
    if gold is None:
        return False
    try:
        value = execute(parse_tokens(parse_program_tokens(text)), table)
    except SGKRError:
        return False
    wanted = {"yes": 1.0, "no": 0.0}.get(gold.strip().lower())
    if wanted is None:
        try:
            wanted = float(gold)
        except ValueError:
            return False
    return close_enough(value, wanted)


@dataclass(frozen=True)
class LLMRecord:
    """One end-to-end answer: the retriever, the question, the answer text and its score."""

    retriever: str
    question_id: str
    level: str | None
    answer: str
    correct: bool

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"retriever": self.retriever, "question_id": self.question_id,
                "level": self.level, "answer": self.answer, "correct": self.correct}


def run_end_to_end(dataset: Dataset, retrievers: Mapping[str, Retrieve], model: Any, *,
                   limit: int | None = None, template: str = FINQA_PROMPT,
                   ) -> list[LLMRecord]:
    """Ask ``model`` each question of ``dataset`` with each retriever's context.

    Parameters
    ----------
    dataset
        A FinQA-style dataset (questions with ``answer`` and ``report``).
    retrievers
        Name -> ``retrieve(graph, question) -> node ids``.
    model
        See :func:`complete`.
    limit
        Ask only the first ``limit`` questions.
    template
        The prompt (default: the paper's FinQA prompt, appendix A.2).

    Raises
    ------
    InvalidArgumentError
        If the dataset has no questions (leave-one-out datasets are not supported).
    """
    if dataset.leave_one_out:
        raise InvalidArgumentError(
            f"dataset {dataset.name!r}: end-to-end scoring needs questions with answers")
    if limit is not None and limit < 1:
        raise InvalidArgumentError(f"limit must be positive, got {limit!r}")
    records: list[LLMRecord] = []
    graph: KnowledgeGraph | None = None
    for index, (fold_graph, question) in enumerate(dataset.folds()):
        if limit is not None and index >= limit:
            break
        graph = fold_graph
        for name, retrieve in retrievers.items():
            prompt = _prompt(graph, question, retrieve(graph, question.question), template)
            text = complete(model, prompt)
            records.append(LLMRecord(name, question.id, question.level, text,
                                     score_answer(text, question.answer, question.table)))
    return records


def _prompt(graph: KnowledgeGraph, question: Question, ids: Sequence[str], template: str) -> str:
    ranked = [(node_id, round(1.0 / (rank + 1), 6)) for rank, node_id in enumerate(ids)]
    result = RetrievalResult(question.question, make_documents(graph, ranked, ()))
    return format_prompt(template, result, report=question.report)
