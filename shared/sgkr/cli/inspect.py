"""``sgkr inspect``: counts, the most-called functions, the tags and the solved tasks of a
graph."""

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
    p.add_argument("--top", type=_count, default=10, metavar="N",
                   help="how many most-called functions and tags (the most used) are listed; "
                        "0: all (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def _count(text: str) -> int:
    """An argparse type: a whole number of at least 0 (``--top``)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    """Print the summary."""
    graph = KnowledgeGraph.load(args.graph, index=False)
    stats = graph.stats()
    every = stats["functions"] + stats["tags"]
    top = graph.most_called(args.top or every)
    used = {t.id: (len(graph.consumers(t.id)), len(graph.producers(t.id))) for t in graph.tags()}
    # The most used first (functions taking or giving it), then by label; --top of them.
    listed = sorted(graph.tags(), key=lambda t: (-sum(used[t.id]), t.label))[:args.top or every]
    tags = [{"label": t.label, "aliases": list(t.aliases), "role": tag_role(graph, t.id),
             "consumers": used[t.id][0], "producers": used[t.id][1], "weight": t.weight}
            for t in listed]
    tasks = [{"id": t.id, "question": t.question, "uses": len(t.uses),
              "inputs": [i.removeprefix("tag:") for i in t.inputs],
              "outputs": [o.removeprefix("tag:") for o in t.outputs], "source": t.source}
             for t in graph.tasks]
    if args.json:
        print(json_text({**stats, "meta": graph.meta,
                         "most_called": [{"id": i, "callers": n} for i, n in top],
                         "tag_list": tags, "tasks": tasks}))
        return 0
    print(f"functions: {stats['functions']} {stats['kinds']}")
    print(f"edges: {stats['edges']}; calls by resolution: {stats['call_edges']}; "
          f"references by resolution: {stats['reference_edges']}")
    curated, origin = graph.meta.get("curated_tags"), ""
    if stats["tags"] and curated is not None:  # graphs of earlier builds do not say
        origin = " (inferred from the code)" if not curated else (
            " (curated and inferred)" if graph.meta.get("infer_tags") else " (curated)")
    if graph.meta.get("question_tags"):
        origin = " (grounded by the earlier questions)"
    print(f"tags: {stats['tags']}{origin}")
    if graph.tasks:
        print(f"solved tasks: {len(graph.tasks)} (earlier questions with their solutions)")
        for task in graph.tasks[: args.top]:
            given = ", ".join(i.removeprefix("tag:") for i in task.inputs) or "-"
            asked = ", ".join(o.removeprefix("tag:") for o in task.outputs) or "-"
            print(f"  {task.id}: {task.question[:70]!r} uses {len(task.uses)}, tags {given} "
                  f"-> {asked}")
    if top:
        print("most called:")
        for node_id, callers in top:
            print(f"  {callers:5d}  {node_id}")
    if tags:
        more = stats["tags"] - len(tags)
        print(f"tags, the {len(tags)} most used (label: role, consumers/producers, weight)"
              f"{f'; {more} more: --top 0 lists all' if more else ''}:")
        for t in tags:
            print(f"  {t['label']}: {t['role']}, {t['consumers']}/{t['producers']}, "
                  f"{t['weight']:.3f}")
    return 0
