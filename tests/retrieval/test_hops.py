"""The relation of each step of a path, from a graph in memory or a store."""

from __future__ import annotations

from sgkr import build_graph
from sgkr.retrieval.hops import Hop, hop_arrow, path_hops, paths_hops
from sgkr.stores import as_reader
from sgkr.tags import FunctionKnowledge, Sidecar

CODE = ("def fee(rule, amount):\n    return rule['fixed'] + rule['rate'] * amount\n"
        "def avg_fee(rules, amount):\n    return sum(fee(r, amount) for r in rules)\n"
        "def report(rules):\n    return apply(avg_fee, rules)\n")


def test_each_step_names_its_relation_and_direction() -> None:
    side = Sidecar({"fee": FunctionKnowledge(inputs=("amount",)),
                    "avg_fee": FunctionKnowledge(outputs=("average fee",))}, {})
    reader = as_reader(build_graph([("fees.py", CODE)], knowledge=side))
    path = ("tag:amount", "fn:fees.fee", "fn:fees.avg_fee", "tag:average fee")
    assert path_hops(reader, path) == (
        Hop("tag:amount", "fn:fees.fee", "consumes"),
        Hop("fn:fees.fee", "fn:fees.avg_fee", "calls", forward=False),
        Hop("fn:fees.avg_fee", "tag:average fee", "produces"))
    assert [hop_arrow(h) for h in path_hops(reader, path)] == [
        "-input of->", "-called by->", "-produces->"]
    used, missing = paths_hops(reader, [("fn:fees.report", "fn:fees.avg_fee"),
                                        ("fn:fees.fee", "fn:fees.report")])
    assert [h.text for h in used] == ["uses"] and [h.text for h in missing] == ["linked to"]
