"""Context for a language model: retrieved documents and the paper's prompt slots.

Each retrieved function becomes one document, knowledge first, then code.
:func:`render_context` fills the paper's two slots, ``{retrieved_knowledge}``
and ``{retrieved_functions}``; :data:`DABSTEP_PROMPT` and
:data:`FINQA_PROMPT` are its prompt templates (appendix A.1, A.2).

Examples
--------
>>> from sgkr.records import RetrievalResult, RetrievedFunction
>>> from sgkr.records import SourceSpan
>>> doc = RetrievedFunction("fn:fee", "fee", ("m.fee",), "fee = fixed + rate * v / 10000",
...                         "def fee(rule, v): ...", (SourceSpan("m.py", 3, 4),), "function",
...                         1.0, qualname="fee")
>>> slots = render_context(RetrievalResult("q", (doc,)))
>>> print(slots["retrieved_knowledge"])
- fee (m.py:3): fee = fixed + rate * v / 10000
>>> print(slots["retrieved_functions"])
```python
# fee (m.py:3)
def fee(rule, v): ...
```
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from ..errors import InvalidArgumentError, NodeNotFoundError
from ..graph.model import KnowledgeGraph
from ..ingest.sources import name_in_module
from ..records import FunctionNode, RetrievalResult, RetrievedFunction, SolvedTask
from ..stores import GraphReader, as_reader

__all__ = [
    "make_documents",
    "function_document",
    "render_context",
    "format_prompt",
    "DABSTEP_PROMPT",
    "FINQA_PROMPT",
    "USED_BY",
]

#: Earlier questions a document names as having used it (the most like the new one first).
USED_BY = 3


def make_documents(
    source: KnowledgeGraph | GraphReader,
    ranked: Sequence[tuple[str, float]],
    paths: Sequence[tuple[str, ...]],
    *,
    include_knowledge: bool = True,
    tasks: Sequence[SolvedTask] = (),
) -> tuple[RetrievedFunction, ...]:
    """One document per ranked function id, with the tags and paths that reach it.

    ``source`` is the graph, or the reader of a graph store (one batch of
    records is read from it). With ``tasks`` (a graph's solved tasks), each document
    names the first few of them whose solutions used it (``used_by``).

    Raises
    ------
    NodeNotFoundError
        If a ranked id is not a function node.
    """
    reader = as_reader(source)
    # One pass over the paths finds the paths through every ranked node, in path order
    # (a test per node and path would cost paths x documents).
    through_of: dict[str, list[tuple[str, ...]]] = {node_id: [] for node_id, _ in ranked}
    for p in paths:
        for n in dict.fromkeys(p):
            found = through_of.get(n)
            if found is not None:
                found.append(p)
    records = reader.functions(through_of)
    ends = reader.tags({n for p in paths for n in (p[0], p[-1])}) if paths else {}
    used = _used_by(tasks, through_of) if tasks else None
    docs: list[RetrievedFunction] = []
    for node_id, score in ranked:
        f = records.get(node_id)
        if f is None:
            raise NodeNotFoundError(f"no function node {node_id!r} in the graph")
        through = tuple(through_of[node_id])
        tags = tuple(dict.fromkeys(
            ends[n].label for p in through for n in (p[0], p[-1]) if n in ends))
        doc = function_document(f, score, include_knowledge=include_knowledge,
                                matched_tags=tags, paths=through)
        if used is not None:
            doc = replace(doc, used_by=used.get(node_id, ()), variants=())
        docs.append(doc)
    return tuple(docs)


def _used_by(tasks: Sequence[SolvedTask], ids: Collection[str]
             ) -> dict[str, tuple[tuple[str, str], ...]]:
    """The first :data:`USED_BY` tasks whose solutions use each of ``ids``, in task order."""
    found: dict[str, list[tuple[str, str]]] = {}
    for task in tasks:
        for node in task.uses:
            if node in ids and len(found.setdefault(node, [])) < USED_BY:
                found[node].append((task.id, task.question))
    return {node: tuple(pairs) for node, pairs in found.items()}


def function_document(
    function: FunctionNode,
    score: float = 0.0,
    *,
    include_knowledge: bool = True,
    matched_tags: tuple[str, ...] = (),
    paths: tuple[tuple[str, ...], ...] = (),
) -> RetrievedFunction:
    """The document of one function node: its knowledge, the code a model is shown.

    Examples
    --------
    >>> doc = function_document(FunctionNode("fn:f", "f", ("m.f",), "def f(): ...", "Does f.",
    ...                                      (), "function"))
    >>> doc.text, doc.score
    ('Does f.\\n\\ndef f(): ...', 0.0)
    """
    f = function
    return RetrievedFunction(
        id=f.id, name=f.name, qualnames=f.qualnames,
        knowledge=f.knowledge if include_knowledge else "",
        code=f.shown_code,
        sources=f.sources, kind=f.kind, score=score,
        matched_tags=matched_tags, paths=paths,
        qualname=name_in_module(f.qualnames, [s.file for s in f.sources], f.name),
    )


def render_context(result: RetrievalResult) -> dict[str, str]:
    """The paper's two prompt slots, from a retrieval result.

    Returns
    -------
    dict
        ``retrieved_knowledge``: one ``- name (file:line): knowledge`` item per document;
        ``retrieved_functions``: the code of each, in a fenced block headed by a comment
        with its qualified name and place.
    """
    knowledge = "\n".join(
        f"- {_heading(d)}: {d.knowledge.strip()}{_asked_by(d)}" for d in result.documents
        if d.knowledge.strip()
    )
    functions = "\n\n".join(f"```python\n# {_heading(d)}\n{d.code.strip()}\n```"
                             for d in result.documents)
    return {"retrieved_knowledge": knowledge, "retrieved_functions": functions}


def _heading(d: RetrievedFunction) -> str:
    """``Flask.dispatch_request (src/flask/app.py:870)``: the name and place a reader is shown."""
    return f"{d.label} ({d.location})" if d.location else d.label


def _asked_by(document: RetrievedFunction) -> str:
    """The earlier questions that used a document, as a line of its knowledge item."""
    if not document.used_by:
        return ""
    asked = "; ".join(repr(q) for _, q in document.used_by)
    return f"\n  (used to answer: {asked})"


def format_prompt(template: str, result: RetrievalResult, **fields: str) -> str:
    """Fill ``template`` with the context slots of ``result`` and ``fields``.

    Raises
    ------
    InvalidArgumentError
        If the template has a slot that neither the result nor ``fields`` fills.
    """
    values: Mapping[str, str] = {"question": result.question, **render_context(result), **fields}
    try:
        return template.format_map(values)
    except KeyError as exc:
        raise InvalidArgumentError(f"prompt template needs a value for {exc.args[0]!r}") from exc


DABSTEP_PROMPT = """\
You are an expert data analyst who can solve any task using code blobs. You will be given a \
task to solve as best as you can. In the environment there exists data which will help you \
solve your data analyst task. This data is spread out across files in the directory \
{ctx_path}.
For each task you will follow a hierarchy of workflows: a root-level task workflow and a \
leaf-level step workflow. There is one root-level workflow per task which consists of \
multiple leaf-level step workflows.

Root Task Workflow: Explore -> Plan -> Execute -> Conclude
Explore: Perform data exploration in the directory {ctx_path} and understand what data is \
available and its limitations.
Plan: Draft a high-level plan based on the results of the Explore step.
Execute: Execute the drafted plan. If the plan fails, restart from the Explore step.
Conclude: Based on the executed plan, summarize the findings into an answer for the task.

Step Workflow: Thought -> Code -> Observation
Thought: Explain your reasoning and the code you will use.
Code: Write Python code in the following format:
Code:
```py
your_python_code
```<end_code>
Use print() to retain important outputs.
Observation: Review the printed outputs before continuing.

Rules
Always check the directory {ctx_path} for relevant documentation or data before assuming \
information is unavailable.
Validate assumptions using the available documentation before executing code.
If all possible solution plans fail, output "Not Applicable" as the final answer.
Use only defined variables and valid Python statements.
Avoid long unpredictable code snippets in a single step.
Use Python only when necessary and avoid repeating code that previously failed.
Do not create notional variables.
Imports and variables persist between executions.
Solve the task directly instead of giving instructions.
Allowed imports: {authorized_imports}.
Never import final_answer; it is already available.

Available Tool
final_answer(): provides the final answer to the task.
Example:
```py
answer = df["result"].mean()
final_answer(answer)
```<end_code>

Task Instruction
{question}

You must follow these guidelines when producing your final answer:
{guidelines}

Context and Hints
Following domain knowledge and context should be helpful:
{retrieved_knowledge}

Here are some example functions that you may refer to:
{retrieved_functions}
"""

FINQA_PROMPT = """\
You are an expert in financial reasoning.

Output Requirement
Return ONLY the program tokens as a JSON list, ending with "EOF".
Format: ["operation(", "val1", "val2", ")", "EOF"]

Multi-step Calculation Rules
Write operations sequentially (not nested).
Use #0, #1, #2, etc. to reference previous results.
#0 = result of first operation, #1 = result of second operation.

Token Format Rules
Each token must be a separate string in the JSON list.
Numbers must appear as plain numbers (e.g., "123").
Operations must end with parentheses: "add(", "subtract(", "multiply(", "divide(", "greater(".
Closing parentheses must be separate tokens: ")".
Always end with "EOF".
For percentages, do not convert decimals to percent format (e.g., use "0.123" for 12.3%).
For constants, use predefined tokens (e.g., const_100).

Supported Operations
Basic math: add(val1, val2), subtract(val1, val2), multiply(val1, val2), divide(val1, val2)
Comparison: greater(val1, val2) - returns 1 if val1 > val2, else 0
Constants: const_2, const_10, const_100, const_1000, const_1000000, const_m1

Examples
Single-step: ["divide(", "8.1", "56.0", ")", "EOF"]
Multi-step: ["subtract(", "153.7", "139.9", ")", "divide(", "#0", "139.9", ")", "EOF"]
With constants: ["multiply(", "#1", "const_100", ")", "EOF"]

Financial report
{report}

Question
{question}

Context and Hints
Following domain knowledge and context should be helpful:
{retrieved_knowledge}

Here are some example functions that you may refer to:
{retrieved_functions}
"""
