"""The earlier questions' index: nearest questions, and each function's questions."""

from __future__ import annotations

from sgkr.algorithms.neighbours import TaskIndex
from sgkr.records import SolvedTask

TASKS = [SolvedTask("task:1", "Which merchant had the most fraudulent disputes in March?",
                    ("fn:a.load", "fn:a.fraud_count")),
         SolvedTask("task:2", "What is the average fee of card scheme NexPay?",
                    ("fn:b.load", "fn:b.average_fee")),
         SolvedTask("task:3", "What is the average fee of card scheme GlobalCard?",
                    ("fn:c.load", "fn:c.average_fee"))]
# The copies of one helper in each solution are one group, as the retriever's slots are;
# a node in no group (a module body) is in no document.
GROUPS = {"fn:a.load": "load", "fn:b.load": "load", "fn:c.load": "load",
          "fn:b.average_fee": "average_fee", "fn:c.average_fee": "average_fee",
          "fn:a.fraud_count": "fraud_count"}


def test_a_function_is_found_by_the_questions_of_the_solutions_using_it() -> None:
    index = TaskIndex(TASKS, GROUPS)
    found = index.asked("fraudulent disputes of a merchant")
    assert max(found, key=lambda g: found[g]) == "fraud_count"
    assert set(found) == {"fraud_count", "load"}  # load: every solution's loader
    assert index.members("load") == ("fn:a.load", "fn:b.load", "fn:c.load")
    assert index.members("nothing") == ()


def test_a_group_is_one_document_of_all_its_questions() -> None:
    grouped = TaskIndex(TASKS, GROUPS).asked("the average fee")
    apart = TaskIndex(TASKS).asked("the average fee")
    assert set(grouped) == {"average_fee", "load"}
    assert {"fn:b.average_fee", "fn:c.average_fee"} <= set(apart)
    # The same as BM25 over the groups' questions written out as documents.
    written = TaskIndex([SolvedTask(g, "\n".join(t.question for t in TASKS
                                                 if any(GROUPS[n] == g for n in t.uses)),
                                    ()) for g in sorted(set(GROUPS.values()))])
    expected = dict(written.neighbours("the average fee", 3))
    assert grouped == {g: expected[g] for g in grouped}


def test_no_tasks_no_answer() -> None:
    assert TaskIndex([]).asked("anything") == {}
    assert TaskIndex(TASKS, {}).asked("the average fee") == {}  # no function grouped
