"""Tags inferred from plain code, their weights, and retrieval over code nobody annotated."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgkr import GraphBuilder, KnowledgeGraph, Retriever, build_graph

from ..conftest import FIXTURES

PLAIN = FIXTURES / "plain"
ANALYSIS = '''\
def fees_by_merchant(df, rules):
    """Return the total fees of each merchant."""
    df["fee"] = df["eur_amount"] * rules.get("rate")
    return df.groupby("merchant").agg(total=("fee", "sum"))


def card_share(payments):
    counts = payments.card_scheme.value_counts()
    return counts / len(payments)


totals = fees_by_merchant(load(), {"rate": 0.1})
share = card_share(load())
'''


@pytest.fixture(scope="module")
def plain() -> KnowledgeGraph:
    return build_graph([PLAIN], jobs=1)


def _tags(graph: KnowledgeGraph, node: str, kind: str) -> set[str]:
    return {t.removeprefix("tag:") for s, t, k, _ in graph.edges_of([node], "both")
            for t in ((s,) if k == "consumes" else (t,)) if k == kind}


def test_inputs_and_outputs_are_read_off_what_the_code_handles() -> None:
    graph = build_graph([("m.py", ANALYSIS)])
    fees = "fn:m.fees_by_merchant"
    # Parameters, keys read, .get keys, columns passed, keyword names.
    assert {"rule", "eur amount", "rate", "merchant", "total"} <= _tags(graph, fees, "consumes")
    # Its name, the key it writes, its docstring's noun phrase, the name its value is bound to.
    assert {"fee by merchant", "fee", "total fee", "total"} <= _tags(graph, fees, "produces")
    assert "fee" not in _tags(graph, fees, "consumes")  # written, not read
    assert {"payment", "card scheme"} <= _tags(graph, "fn:m.card_share", "consumes")
    assert {"card share", "share"} <= _tags(graph, "fn:m.card_share", "produces")


def test_a_scripts_steps_get_the_tags_of_what_they_read_but_not_its_file_name() -> None:
    script = ("from lib import load\ndf = load()\n"
              "print(df[df['card_scheme'] == 'NexPay'].groupby('merchant')['eur_amount'].mean())\n")
    graph = build_graph([("task_12.py", script)])
    assert _tags(graph, "mod:task_12", "consumes") == {"card scheme", "merchant", "eur amount"}
    assert _tags(graph, "mod:task_12", "produces") == set()


def test_keywords_given_data_are_inputs_and_option_settings_are_not() -> None:
    code = ("def send(session, url, timeout):\n"
            "    return session.get(url, timeout=timeout, stream=False, verify='yes', retries=3)\n")
    assert _tags(build_graph([("m.py", code)]), "fn:m.send", "consumes") == {
        "session", "url", "timeout"}


def test_labels_are_lemmas_and_one_letter_names_are_not_tags() -> None:
    graph = build_graph([("m.py", "def eat(cookies, x):\n    return cookies['batches']\n")])
    assert _tags(graph, "fn:m.eat", "consumes") == {"cookie", "batch"}


def test_words_every_function_shares_weigh_less_than_specific_ones() -> None:
    code = "".join(f"def step_{i}(data, value):\n    return data[value]\n" for i in range(6))
    code += "def card_fee(data, card_scheme):\n    return data[card_scheme]\n"
    graph = build_graph([("m.py", code)])
    weight = {t.label: t.weight for t in graph.tags()}
    assert weight["data"] < weight["value"] < weight["card scheme"] <= 1.0
    assert weight["data"] == 0.0  # on every function: says nothing


def test_weights_survive_graph_json_and_equal_a_fresh_build_after_an_update(
        tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(ANALYSIS, encoding="utf-8")
    builder = GraphBuilder([src], root=src, jobs=1)
    graph = builder.build()
    graph.save(tmp_path / "g.json")
    again = KnowledgeGraph.load(tmp_path / "g.json")
    assert {t.id: t.weight for t in again.tags()} == {t.id: t.weight for t in graph.tags()}
    assert all(0 < t.weight < 1 for t in graph.tags())
    (src / "b.py").write_text("def total(rows):\n    return sum(r['fee'] for r in rows)\n",
                              encoding="utf-8")
    updated = builder.update()
    assert updated.to_dict() == build_graph([src], root=src, jobs=1).to_dict()
    assert updated.tag("tag:fee").weight < graph.tag("tag:fee").weight


@pytest.mark.parametrize(("question", "first"), [
    ("What was the revenue of each month?", "monthly_revenue"),
    ("Which customers spent the most?", "top_customers"),
    ("What share of sales were refunded?", "refund_rate"),
    ("What is the average temperature at a station?", "average_temperature"),
    ("How much rain fell in each region?", "rainfall_by_region"),
])
def test_plain_code_answers_a_plain_question_with_the_right_function_first(
        plain: KnowledgeGraph, question: str, first: str) -> None:
    assert plain.meta["curated_tags"] is False and plain.stats()["tags"] > 0
    documents = Retriever(plain).retrieve(question).documents
    assert documents and documents[0].name == first


def test_plain_code_without_inferred_tags_still_answers(plain: KnowledgeGraph) -> None:
    bare = build_graph([PLAIN], jobs=1, infer_tags=False)
    assert bare.stats()["tags"] == 0
    documents = Retriever(bare).retrieve("What was the revenue of each month?").documents
    assert documents and documents[0].name == "monthly_revenue"


def test_a_definition_gets_at_most_24_input_and_24_output_tags() -> None:
    code = "def fill(row, other):\n" + "".join(
        f"    row['out_{i}'] = other['in_{i}']\n" for i in range(100)) + "    return row\n"
    graph = build_graph([("m.py", code)])
    inputs, outputs = _tags(graph, "fn:m.fill", "consumes"), _tags(graph, "fn:m.fill", "produces")
    assert len(inputs) == len(outputs) == 24
    assert {"row", "other"} <= inputs and "fill" in outputs  # parameters and name come first
