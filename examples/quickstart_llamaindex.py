"""Quickstart: SGKR as the retriever of a LlamaIndex query engine.

Builds the knowledge-code graph of the bundled payments example, puts
``SGKRRetriever`` where a vector retriever would go, and asks the paper's case
study (DABstep task 1434, not among the solved examples) through a query engine.

It runs offline: the LLM is LlamaIndex's ``MockLLM``, which answers with the
prompt it was given, so what you see is exactly the context SGKR hands the
model. Swap in any LlamaIndex LLM for a real answer, e.g.
``from llama_index.llms.openai import OpenAI; llm = OpenAI(model="gpt-4o-mini")``.

    python examples/quickstart_llamaindex.py ["another question"]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine

from llama_index_sgkr import SGKRRetriever

PAYMENTS = Path(__file__).resolve().parent / "payments"
CASE_STUDY = "1434"


def held_out(task: str) -> tuple[str, list[str]]:
    """The question of held-out task ``task`` and the functions its solution needs."""
    for line in (PAYMENTS / "heldout.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip() else {}
        if str(entry.get("id")) == task:
            return str(entry["question"]), [str(name) for name in entry["gold"]]
    raise KeyError(f"no held-out task {task}")


def main(argv: list[str] | None = None) -> int:
    """Build, ask, print the retrieved functions and the start of the prompt."""
    args = sys.argv[1:] if argv is None else argv
    question, gold = held_out(CASE_STUDY)
    if args:
        question, gold = args[0], []

    # 1. Build the graph from the solutions, their tag sidecar and the solved examples.
    retriever = SGKRRetriever.from_defaults(
        sources=[PAYMENTS / "solutions"],
        knowledge=PAYMENTS / "knowledge.json",
        examples=PAYMENTS / "examples.jsonl",
        root=PAYMENTS,
        similarity_top_k=8,
    )
    stats = retriever.graph.stats()
    print(f"graph: {stats['functions']} functions, {stats['tags']} tags")

    # 2. Use it like any retriever: here in a query engine.
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = engine.query(question)

    print(f"\nquestion: {question}\n")
    if not response.source_nodes:
        print("no known tag in the question: nothing retrieved (see retriever_fallback)")
        return 0
    for hit in response.source_nodes:
        meta = hit.node.metadata
        print(f"{hit.score:.3f}  {meta['name']:<28} {meta['file']}:{meta['start_line']}"
              f"  tags={meta['matched_tags']}")
    if gold:
        names = {hit.node.metadata["name"] for hit in response.source_nodes}
        found = [name for name in gold if name in names]
        print(f"\nfunctions a solution needs, retrieved: {len(found)}/{len(gold)} {found}")

    prompt = str(response)
    print(f"\nthe LLM was shown {len(prompt)} characters; the first lines:\n")
    print("\n".join(prompt.splitlines()[:12]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
