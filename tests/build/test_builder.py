"""The build pipeline: knowledge, example tags, merging, inference and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgkr import build_graph
from sgkr.errors import InvalidArgumentError, SourceError
from sgkr.tags import FunctionKnowledge, Sidecar
from sgkr.tags.update import tags_of

from ..conftest import FIXTURES

MINI = FIXTURES / "mini"


@pytest.fixture(scope="module")
def mini():  # type: ignore[no-untyped-def]
    return build_graph([MINI], knowledge=MINI / "knowledge.json",
                       examples=MINI / "examples.jsonl")


def test_knowledge_sources(mini) -> None:  # type: ignore[no-untyped-def]
    fee = mini.function("fn:lib.fees.fee")
    assert fee.knowledge.startswith("fee = fixed_amount + rate * amount / 10000")
    matches = mini.function("fn:lib.fees.matches")
    assert matches.knowledge.startswith("Null or empty list in a fee rule means")
    assert "A rule field that is null or empty applies to every value." in matches.knowledge
    init = mini.function("fn:lib.fees.Schedule.__init__")
    assert init.knowledge == "Schedule.__init__(self, rules): init from rules."


def test_example_tags_attach_to_solution_functions(mini) -> None:  # type: ignore[no-untyped-def]
    rule = "fn:solutions.max_fee.most_expensive_rule"
    assert mini.producers("tag:most expensive rule") == [rule]
    # "functions" may name a helper the solution calls rather than defines.
    assert "fn:lib.fees.fee" in mini.consumers("tag:transaction value")
    # A plain label attaches where the code mentions it (the alias "scheme" here) ...
    assert mini.consumers("tag:card scheme") == ["fn:solutions.avg_fee.average_fee"]
    # ... or, failing that, to the solution's entry point.
    assert "mod:solutions.avg_fee" in mini.consumers("tag:transaction value")
    assert mini.producers("tag:average fee") == ["fn:solutions.avg_fee.average_fee"]
    assert mini.tag("tag:transaction value").aliases == ("transaction amount", "euros")
    assert mini.report is not None and not mini.report.problems


def test_sidecar_naming_unknown_functions_is_reported(tmp_path: Path) -> None:
    side = tmp_path / "k.json"
    side.write_text('{"functions": {"nowhere": "text"}}', encoding="utf-8")
    graph = build_graph([("m.py", "def f():\n    pass\n")], knowledge=side)
    assert graph.report is not None
    reasons = [p.reason for p in graph.report.problems]
    assert reasons == ["no function named 'nowhere' in the sources"]


def test_merge_policy_changes_node_count() -> None:
    copies = [(f"s{i}.py", "def helper(x):\n    return x + 1\n\nprint(helper(1))\n")
              for i in range(3)]
    assert build_graph(copies).stats()["functions"] == 4  # 3 scripts + 1 merged helper
    assert build_graph(copies, merge="none").stats()["functions"] == 6
    merged = build_graph(copies).function("fn:helper")
    assert merged.qualnames == ("s0.helper", "s1.helper", "s2.helper")
    assert [s.file for s in merged.sources] == ["s0.py", "s1.py", "s2.py"]


def test_inferred_tags() -> None:
    src = "def get_average_fee(fees, merchant):\n    return fees[merchant]\n"
    graph = build_graph([("m.py", src)], infer_tags=True)
    assert graph.consumers("tag:merchant") == ["fn:m.get_average_fee"]
    assert graph.producers("tag:average fee") == ["fn:m.get_average_fee"]
    assert build_graph([("m.py", src)], infer_tags=False).stats()["tags"] == 0


def test_plain_code_gets_inferred_tags_by_default_and_curated_tags_turn_that_off() -> None:
    src = [("m.py", "def get_average_fee(fees, merchant):\n    return fees[merchant]\n")]
    plain = build_graph(src)
    assert plain.producers("tag:average fee") == ["fn:m.get_average_fee"]
    assert plain.meta["infer_tags"] is True and plain.meta["curated_tags"] is False
    side = Sidecar({"get_average_fee": FunctionKnowledge(outputs=("mean fee",))}, {})
    curated = build_graph(src, knowledge=side)
    assert [t.id for t in curated.tags()] == ["tag:mean fee"]
    assert curated.meta["infer_tags"] is False and curated.meta["curated_tags"] is True
    # Knowledge text without tags is not curation: tags are still inferred.
    told = build_graph(src, knowledge=Sidecar({"get_average_fee": FunctionKnowledge("Fee.")}, {}))
    assert "tag:average fee" in told and told.meta["curated_tags"] is False


def test_curated_tags_win_over_inferred_ones_when_both_are_asked_for() -> None:
    src = [("m.py", "def get_average_fee(fees, merchant):\n    return fees[merchant]\n"
                    "def total(rows):\n    return sum(rows)\n")]
    side = Sidecar({"get_average_fee": FunctionKnowledge(outputs=("mean fee",))},
                   {"Merchant": ("shop",)})
    graph = build_graph(src, knowledge=side, infer_tags=True)
    assert tags_of(graph, ["fn:m.get_average_fee"]) == {"tag:mean fee"}
    assert graph.consumers("tag:row") == ["fn:m.total"]
    assert graph.tag("tag:merchant").label == "Merchant"
    assert graph.meta["curated_tags"] is True


def test_broken_files_are_reported_and_the_rest_is_built(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("def f():\n    g()\n\ndef g():\n    pass\n", encoding="utf-8")
    (tmp_path / "broken.py").write_text("def h(:\n    pass\n\ndef later():\n    pass\n",
                                        encoding="utf-8")
    (tmp_path / "blob.py").write_bytes(b"\x00\x00binary")
    graph = build_graph([tmp_path])
    assert {"f", "g", "later"} <= {f.name for f in graph.functions()}
    assert graph.report is not None
    kinds = {p.file: p.kind for p in graph.report.problems}
    assert kinds == {"broken.py": "syntax", "blob.py": "skipped"}


def test_bad_input_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        build_graph([tmp_path / "missing"])
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(SourceError, match="found no Python"):
        build_graph([tmp_path])
    with pytest.raises(SourceError, match="nothing to build"):
        build_graph([])
    with pytest.raises(InvalidArgumentError, match="merge='fuzzy'"):
        build_graph([("m.py", "x = 1\n")], merge="fuzzy")


def test_builds_a_real_package() -> None:
    import json

    folder = Path(json.__file__).parent
    graph = build_graph([folder])
    stats = graph.stats()
    assert stats["functions"] > 20 and stats["call_edges"].get("exact", 0) > 10
    assert "fn:decoder.JSONDecoder.decode" in graph
    assert "fn:decoder.JSONDecoder.raw_decode" in graph.callees("fn:decoder.JSONDecoder.decode")
