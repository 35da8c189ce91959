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
    assert slots["retrieved_knowledge"] == "- fee (m.py:1): fee = fixed + rate * v / 10000"
    assert slots["retrieved_functions"] == (
        "```python\n# fee (m.py:1)\ndef fee(rule, v):\n    return 1\n```")


def test_a_model_reads_qualified_names_and_places() -> None:
    """Issue 40: an LLM reads ``Flask.dispatch_request (src/flask/app.py:870)``, not a bare
    ``dispatch_request`` it cannot tell from the abstract ``View.dispatch_request``."""
    from sgkr import build_graph
    from sgkr.retrieval.context import make_documents

    g = build_graph([("src/flask/app.py", "class Flask:\n    def dispatch_request(self):\n"
                                          "        return self.view()\n"),
                     ("src/flask/views.py", "class View:\n    def dispatch_request(self):\n"
                                            "        raise NotImplementedError\n")])
    docs = make_documents(g, [("fn:flask.app.Flask.dispatch_request", 1.0),
                              ("fn:flask.views.View.dispatch_request", 0.5)], ())
    assert [(d.label, d.location) for d in docs] == [
        ("Flask.dispatch_request", "src/flask/app.py:2"),
        ("View.dispatch_request", "src/flask/views.py:2")]
    code = render_context(RetrievalResult("q", docs))["retrieved_functions"]
    assert "# Flask.dispatch_request (src/flask/app.py:2)" in code


def test_templates() -> None:
    dab = format_prompt(DABSTEP_PROMPT, RESULT, ctx_path="/data", guidelines="a number",
                        authorized_imports="pandas")
    assert "What fee?" in dab and "fee = fixed + rate" in dab and "/data" in dab
    fin = format_prompt(FINQA_PROMPT, RESULT, report="table")
    assert fin.index("fee = fixed") < fin.index("def fee(")
    with pytest.raises(InvalidArgumentError, match="'ctx_path'"):
        format_prompt(DABSTEP_PROMPT, RESULT)


def test_documents_list_the_paths_and_end_tags_through_each_function() -> None:
    from sgkr import build_graph
    from sgkr.records import TagNode
    from sgkr.retrieval.context import make_documents

    g = build_graph([("m.py", "def a(x):\n    return b(x)\ndef b(y):\n    return y\n"
                              "def c(z):\n    return z\n")])
    for label in ("in", "out"):
        g.add_tag(TagNode(f"tag:{label}", label))
    paths = [("tag:in", "fn:m.a", "fn:m.b", "tag:out"), ("fn:m.c", "fn:m.a"), ("fn:m.b", "fn:m.b")]
    docs = make_documents(g, [("fn:m.b", 1.0), ("fn:m.a", 0.5), ("fn:m.c", 0.2)], paths)
    assert [d.paths for d in docs] == [
        (paths[0], paths[2]), (paths[0], paths[1]), (paths[1],)]
    assert [d.matched_tags for d in docs] == [("in", "out"), ("in", "out"), ()]
