"""Evaluation of SGKR against baselines at the retrieval level, and end to end.

Modules: :mod:`~sgkr.eval.datasets` (the dataset folder format, leave-one-out),
:mod:`~sgkr.eval.finqa` (FinQA and ConvFinQA converters),
:mod:`~sgkr.eval.baselines` (BM25, dense, GraphSAGE-style, random, fixed nodes),
:mod:`~sgkr.eval.metrics`, :mod:`~sgkr.eval.runner`, :mod:`~sgkr.eval.report`
and :mod:`~sgkr.eval.llm` (end-to-end scoring with a language model).
Heavy dependencies (bm25s, numpy, matplotlib, sentence-transformers) are
imported only where used.
"""

from __future__ import annotations

from .datasets import Dataset, Question, load_dataset, load_questions, write_dataset
from .metrics import count_tokens, score_question
from .runner import EvalResult, RetrieverSpec, default_specs, evaluate

__all__ = ["Dataset", "Question", "load_dataset", "load_questions", "write_dataset",
           "count_tokens", "score_question", "EvalResult", "RetrieverSpec", "default_specs",
           "evaluate"]
