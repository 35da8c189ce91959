"""Answers from a graph of solved tasks: votes of the earlier questions, slots, provenance."""

from __future__ import annotations

import pytest

from sgkr import KnowledgeGraph, Retriever, build_graph
from sgkr.tags import Example

# Two scripts copy a loader with small differences (not merged: their code differs), each
# has its own main, and a helper only it uses.
FEES = '''
def load_rules(path="fees.json"):
    import json
    with open(path) as f:
        return json.load(f)

def average_fee(rules, card_scheme, amount):
    chosen = [r for r in rules if r["card_scheme"] == card_scheme]
    return sum(r["fixed_amount"] + r["rate"] * amount / 10000 for r in chosen) / len(chosen)

def main():
    print(average_fee(load_rules(), "GlobalCard", 10))

main()
'''
FEES_AGAIN = '''
def load_rules(path="fees.json", encoding="utf-8"):
    import json
    with open(path, encoding=encoding) as handle:
        rules = json.load(handle)
    return [r for r in rules if r is not None]

def average_fee(rules, card_scheme, amount):
    chosen = [r for r in rules if r["card_scheme"] == card_scheme]
    return sum(r["fixed_amount"] + r["rate"] * amount / 10000 for r in chosen) / len(chosen)

def main():
    rules = load_rules()
    print(average_fee(rules, "NexPay", 100))

main()
'''
FRAUD = '''
def load_payments(path="payments.csv"):
    import csv
    with open(path) as f:
        return list(csv.DictReader(f))

def fraud_rate(payments, merchant):
    mine = [p for p in payments if p["merchant"] == merchant]
    return sum(p["has_fraudulent_dispute"] == "True" for p in mine) / len(mine)

def run(merchant):
    return fraud_rate(load_payments(), merchant)

def main():
    print(run("Rafa_AI"))

main()
'''


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return build_graph([], examples=[
        Example("1", "What is the average fee of card scheme GlobalCard for 10 euros?",
                "solutions/t1.py", FEES, (), ()),
        Example("2", "What is the average fee of card scheme NexPay for 100 euros?",
                "solutions/t2.py", FEES_AGAIN, (), ()),
        Example("3", "What is the fraud rate of merchant Rafa_AI?", "solutions/t3.py", FRAUD,
                (), ())])


QUESTION = "What is the average fee of card scheme SwiftCharge for 50 euros?"


def test_one_slot_per_function_its_copies_noted(graph: KnowledgeGraph) -> None:
    assert len(graph.find("load_rules")) == 2  # two copies, not merged
    docs = Retriever(graph).retrieve(QUESTION).documents
    names = [d.name for d in docs]
    assert len(names) == len(set(names)) and "load_rules" in names
    loader = docs[names.index("load_rules")]
    assert loader.variants and set(loader.variants) | {loader.id} == set(graph.find("load_rules"))
    assert loader.metadata()["variants"] == list(loader.variants)


def test_drivers_take_one_slot_at_most(graph: KnowledgeGraph) -> None:
    docs = Retriever(graph, k=20).retrieve(QUESTION).documents
    names = [d.name for d in docs]
    assert "main" in names and "run" not in names  # main and run: one slot between them
    asked = [d.name for d in Retriever(graph, k=20).retrieve(
        "Which function should I run for the fraud rate?").documents]
    assert "run" in asked  # unless the question names it
    assert not any(d.kind == "module" for d in docs)  # scripts=0: no module body
    assert sum(d.kind == "module" for d in Retriever(graph, k=20, scripts=1).retrieve(
        QUESTION).documents) == 1


def test_the_nearest_questions_vote_and_are_named(graph: KnowledgeGraph) -> None:
    docs = Retriever(graph, k=3).retrieve(QUESTION).documents
    assert {d.name for d in docs} <= {"average_fee", "load_rules", "main"}
    first = docs[0]
    assert [t for t, _ in first.used_by][:2] in (["task:1", "task:2"], ["task:2", "task:1"])
    assert first.metadata()["used_by"][0]["question"].startswith("What is the average fee")
    fraud = Retriever(graph, k=2).retrieve("Which merchant has the highest fraud rate?")
    assert fraud.documents[0].name == "fraud_rate"
    assert fraud.documents[0].used_by == (("task:3", "What is the fraud rate of merchant "
                                                     "Rafa_AI?"),)


def test_an_answer_is_a_prefix_of_a_longer_one(graph: KnowledgeGraph) -> None:
    for question in (QUESTION, "fraud of a merchant", "Which loader reads the rules?"):
        long = Retriever(graph, k=8).retrieve(question).documents
        for k in (1, 2, 5):
            assert Retriever(graph, k=k).retrieve(question).documents == long[:k]


def test_a_graph_without_solved_tasks_answers_as_before() -> None:
    code = build_graph([("solutions/t1.py", FEES), ("solutions/t3.py", FRAUD)])
    assert not code.tasks
    for question in (QUESTION, "fraud rate of a merchant"):
        default = Retriever(code).retrieve(question)
        assert default == Retriever(code, neighbours=0, boost=0.0).retrieve(question)
        assert all(d.used_by is None and d.variants is None for d in default.documents)
        assert "used_by" not in default.documents[0].metadata()


def test_the_votes_can_be_turned_off(graph: KnowledgeGraph) -> None:
    off = Retriever(graph, neighbours=0).retrieve(QUESTION).documents
    assert all(d.used_by is None for d in off)
    assert Retriever(graph).retrieve(QUESTION).documents != off


def test_a_question_that_only_names_a_function_gets_it_first(graph: KnowledgeGraph) -> None:
    # No tag, no index word: only the name it mentions says what the question is about.
    found = Retriever(graph, lexical=False).retrieve("Why does load_payments() crash?")
    assert found.matched and found.documents[0].name == "load_payments"
    nothing = Retriever(graph, lexical=False).retrieve("zzqx blorp")
    assert not nothing.matched and nothing.documents == ()
