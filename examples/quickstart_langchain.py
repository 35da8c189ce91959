"""Quickstart: SGKR as the retriever of a LangChain (LCEL) chain.

Builds the knowledge-code graph of the bundled payments example, puts
``SGKRRetriever`` where a vector retriever would go, and runs the paper's case
study (DABstep task 1434, not among the solved examples) through the chain
``retriever | format_docs -> prompt -> chat model``.

It runs offline: the chat model is LangChain's ``ParrotFakeChatModel``, which
answers with the prompt it was given, so what you see is exactly the context
SGKR hands the model. Swap in any LangChain chat model for a real answer, e.g.
``from langchain_openai import ChatOpenAI; model = ChatOpenAI(model="gpt-4o-mini")``.

    python examples/quickstart_langchain.py ["another question"]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, format_document
from langchain_core.runnables import RunnablePassthrough

from langchain_sgkr import DOCUMENT_PROMPT, SGKRRetriever

PAYMENTS = Path(__file__).resolve().parent / "payments"
CASE_STUDY = "1434"
PROMPT = ChatPromptTemplate.from_template(
    "You are an expert data analyst. Write Python code that answers the question, "
    "reusing the domain knowledge and the functions below.\n\n"
    "{context}\n\nQuestion: {question}"
)


def held_out(task: str) -> tuple[str, list[str]]:
    """The question of held-out task ``task`` and the functions its solution needs."""
    for line in (PAYMENTS / "heldout.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip() else {}
        if str(entry.get("id")) == task:
            return str(entry["question"]), [str(name) for name in entry["gold"]]
    raise KeyError(f"no held-out task {task}")


def format_docs(docs: list[Document]) -> str:
    """Each function under a heading with its file and lines: knowledge, then code."""
    return "\n\n".join(format_document(doc, DOCUMENT_PROMPT) for doc in docs)


def main(argv: list[str] | None = None) -> int:
    """Build, retrieve, run the chain; print the functions and the start of the prompt."""
    args = sys.argv[1:] if argv is None else argv
    question, gold = held_out(CASE_STUDY)
    if args:
        question, gold = args[0], []

    # 1. Build the graph from the solutions, their tag sidecar and the solved examples.
    retriever = SGKRRetriever.from_sources(
        [PAYMENTS / "solutions"],
        knowledge=PAYMENTS / "knowledge.json",
        examples=PAYMENTS / "examples.jsonl",
        root=PAYMENTS,
        k=8,
    )
    stats = retriever.graph.stats()
    print(f"graph: {stats['functions']} functions, {stats['tags']} tags")

    # 2. Use it like any retriever: here in an LCEL chain.
    model = ParrotFakeChatModel()
    chain = (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | PROMPT
        | model
        | StrOutputParser()
    )
    docs = retriever.invoke(question)
    answer = chain.invoke(question)

    print(f"\nquestion: {question}\n")
    if not docs:
        print("no known tag in the question: nothing retrieved (see retriever_fallback)")
        return 0
    for doc in docs:
        meta = doc.metadata
        print(f"{meta['score']:.3f}  {meta['name']:<28} {meta['file']}:{meta['start_line']}"
              f"  tags={meta['matched_tags']}")
    if gold:
        names = {doc.metadata["name"] for doc in docs}
        found = [name for name in gold if name in names]
        print(f"\nfunctions a solution needs, retrieved: {len(found)}/{len(gold)} {found}")

    print(f"\nthe model was shown {len(answer)} characters; the first lines:\n")
    print("\n".join(answer.splitlines()[:12]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
