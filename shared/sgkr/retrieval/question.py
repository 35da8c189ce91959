"""What a question may be: a string of at most :data:`MAX_QUESTION_CHARS` characters.

Every question reaches the retriever through :func:`check_question` (the API,
both adapters, the CLI and the MCP server ask :meth:`~sgkr.retrieval.retriever.Retriever.retrieve`).
Matching a question costs time linear in its length; the bound keeps one
question's cost bounded too (a 32,000-word question took 16 s).

Examples
--------
>>> check_question("Which merchant pays the most fees?")
'Which merchant pays the most fees?'
>>> check_question("word " * 30_000)
Traceback (most recent call last):
...
sgkr.errors.InvalidArgumentError: question is 150,000 characters long; at most 100,000 are read
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
from ..tags.examples import MAX_QUESTION_CHARS

__all__ = ["MAX_QUESTION_CHARS", "check_question"]

def check_question(question: object) -> str:
    """``question`` when it is a string of at most :data:`MAX_QUESTION_CHARS` characters.

    Raises
    ------
    InvalidArgumentError
        If it is not a string, or is longer; the message says so.
    """
    if not isinstance(question, str):
        raise InvalidArgumentError(f"question must be a string, got {type(question).__name__}")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidArgumentError(f"question is {len(question):,} characters long; at most "
                                   f"{MAX_QUESTION_CHARS:,} are read")
    return question
