"""Prompt context: the paper's two slots and its templates."""

from __future__ import annotations

import pytest

from sgkr import DABSTEP_PROMPT, FINQA_PROMPT, format_prompt, render_context
from sgkr.errors import InvalidArgumentError
from sgkr.records import RetrievalResult, RetrievedFunction, SourceSpan

DOC = RetrievedFunction("fn:fee", "fee", ("m.fee",), "fee = fixed + rate * v / 10000",
                        "def fee(rule, v):\n    return 1", (SourceSpan("m.py", 1, 2),),
                        "function", 1.0)
RESULT = RetrievalResult("What fee?", (DOC,))


def test_slots() -> None:
    slots = render_context(RESULT)
    assert slots["retrieved_knowledge"] == "- fee: fee = fixed + rate * v / 10000"
    assert slots["retrieved_functions"] == "```python\ndef fee(rule, v):\n    return 1\n```"


def test_templates() -> None:
    dab = format_prompt(DABSTEP_PROMPT, RESULT, ctx_path="/data", guidelines="a number",
                        authorized_imports="pandas")
    assert "What fee?" in dab and "fee = fixed + rate" in dab and "/data" in dab
    fin = format_prompt(FINQA_PROMPT, RESULT, report="table")
    assert fin.index("fee = fixed") < fin.index("def fee(")
    with pytest.raises(InvalidArgumentError, match="'ctx_path'"):
        format_prompt(DABSTEP_PROMPT, RESULT)
