"""``sgkr inspect``: counts, the most-called functions and the tags of a graph."""

from __future__ import annotations

import argparse

from ..graph.model import KnowledgeGraph
from ..retrieval.tags import tag_role
from .terminal import json_text

__all__ = ["register", "run"]


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``sgkr inspect``, on its parser ``p``."""
    p.description = "Counts, most-called functions and tags of a graph."
    p.add_argument("graph", help="graph.json made by sgkr build")
    p.add_argument("--top", type=int, default=10, help="how many most-called functions")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the summary."""
    graph = KnowledgeGraph.load(args.graph, index=False)
    stats = graph.stats()
    top = graph.most_called(args.top)
    tags = [{"label": t.label, "aliases": list(t.aliases), "role": tag_role(graph, t.id),
             "consumers": len(graph.consumers(t.id)), "producers": len(graph.producers(t.id)),
             "weight": t.weight}
            for t in graph.tags()]
    if args.json:
        print(json_text({**stats, "meta": graph.meta,
                         "most_called": [{"id": i, "callers": n} for i, n in top],
                         "tag_list": tags}))
        return 0
    print(f"functions: {stats['functions']} {stats['kinds']}")
    print(f"edges: {stats['edges']}; calls by resolution: {stats['call_edges']}; "
          f"references by resolution: {stats['reference_edges']}")
    curated, origin = graph.meta.get("curated_tags"), ""
    if stats["tags"] and curated is not None:  # graphs of earlier builds do not say
        origin = " (inferred from the code)" if not curated else (
            " (curated and inferred)" if graph.meta.get("infer_tags") else " (curated)")
    print(f"tags: {stats['tags']}{origin}")
    if top:
        print("most called:")
        for node_id, callers in top:
            print(f"  {callers:5d}  {node_id}")
    if tags:
        print("tags (label: role, consumers/producers, weight):")
        for t in tags:
            print(f"  {t['label']}: {t['role']}, {t['consumers']}/{t['producers']}, "
                  f"{t['weight']:.3f}")
    return 0
