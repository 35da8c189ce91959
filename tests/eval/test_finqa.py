"""FinQA conversion: program parsing, the safe interpreter, patterns, solutions, datasets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgkr import InvalidArgumentError, build_graph
from sgkr.eval.datasets import solution_functions
from sgkr.eval.finqa import (
    OUTPUT_TAGS,
    convert_convfinqa,
    convert_finqa,
    execute,
    mine_patterns,
    parse_program,
    parse_tokens,
    question_tags,
    solution_code,
)


def _record(ident: str, question: str, program: str, answer: float) -> dict[str, object]:
    return {"id": ident, "pre_text": ["text"], "post_text": [], "filename": ident,
            "table": [["", "2019", "2020"], ["net sales", "$ 100", "$ 120"]],
            "qa": {"question": question, "program": program, "exe_ans": answer}}


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    finqa = tmp_path / "finqa"
    finqa.mkdir()
    train = [
        _record("t1", "what was the percent change in revenue from 2019 to 2020?",
                "subtract(120, 100), divide(#0, 100)", 0.2),
        _record("t2", "what is the growth rate of net income in 2020?",
                "subtract(50, 40), divide(#0, 40)", 0.25),
        _record("t3", "what is the total of cash and debt?", "add(5, 7)", 12),
    ]
    dev = [_record("d1", "what was the percentage increase in sales from 2019 to 2020?",
                   "subtract(120, 100), divide(#0, 100)", 0.2),
           _record("d2", "what was the average net sales?", "table_average(net sales, none)",
                   110.0)]
    (finqa / "train_100.json").write_text(json.dumps(train))
    (finqa / "dev_200.json").write_text(json.dumps(dev))
    (finqa / "dev_352.json").write_text(json.dumps(dev[:1]))
    conv = {"dev": [{"id": "Single_x", "doc": {"pre_text": "", "post_text": "",
                                                "table": {"2020": {"net sales": "120"}}},
                     "dialogue": {"conv_questions": ["what were sales in 2020?",
                                                     "and the percent change from 2019?"],
                                  "turn_program": ["120", "subtract(120, 100), divide(#0, 100)"],
                                  "executed_answers": [120, 0.2]}}]}
    (tmp_path / "conv.json").write_text(json.dumps(conv))
    return tmp_path


def test_parse_and_execute_programs() -> None:
    steps = parse_program("add(500, 350), divide(#0, 2248), multiply(#1, const_100)")
    assert [s.op for s in steps] == ["add", "divide", "multiply"]
    assert execute(steps) == pytest.approx(37.81138)
    assert execute(parse_program("divide(62%, const_m1)")) == pytest.approx(-0.62)
    assert execute(parse_program("greater(3, 2)")) == 1.0
    table = [["", "2019", "2020"], ["net sales", "$ 100", "$ 120"]]
    assert execute(parse_program("table_average(net sales, none)"), table) == 110.0


@pytest.mark.parametrize("program", ["", "foo(1, 2)", "add(1, 2", "divide(1, 0)",
                                     "add(#3, 1)", "add(1)"])
def test_bad_programs_are_refused(program: str) -> None:
    with pytest.raises(InvalidArgumentError):
        execute(parse_program(program))


def test_parse_tokens_refuses_malformed_answers() -> None:
    with pytest.raises(InvalidArgumentError):
        parse_tokens(["divide(", "1", "EOF"])
    with pytest.raises(InvalidArgumentError):
        parse_tokens(["os.system(", "1", ")"])


def test_patterns_need_support_and_become_functions() -> None:
    a = parse_program("subtract(120, 100), divide(#0, 100)")
    b = parse_program("subtract(5, 4), divide(#0, 4)")
    assert mine_patterns([a]) == {}
    library = mine_patterns([a, b])
    assert [p.name for p in library.values()] == ["percentage_change"]
    code = solution_code(a, library)
    assert solution_functions("s.py", code) == ("divide", "subtract", "percentage_change")
    graph = build_graph([("s.py", code)])
    assert graph.callees("fn:s.percentage_change") == ["fn:s.divide", "fn:s.subtract"]


def test_solution_passes_earlier_results() -> None:
    steps = parse_program("add(500, 350), divide(#0, 2248)")
    code = solution_code(steps, {})
    assert code.rstrip().splitlines()[-2:] == ["result0 = add(500, 350)",
                                               "answer = divide(result0, 2248)"]


def test_question_tags_longest_phrases() -> None:
    assert question_tags("what is the average of sales?", OUTPUT_TAGS) == ["average"]
    assert question_tags("list the names", OUTPUT_TAGS) == []


def test_convert_finqa(data_dir: Path) -> None:
    ds = convert_finqa(data_dir / "finqa")
    assert len(ds.examples) == 3
    assert [q.id for q in ds.questions] == ["d1", "d2"]  # dev files de-duplicated
    d1, d2 = ds.questions
    assert d1.level == "hard" and d2.level == "easy"
    assert set(d1.gold) == {"percentage_change", "subtract", "divide"}
    t1 = ds.examples[0]
    assert [r.label for r in t1.outputs] == ["percentage change", "change"]
    assert t1.outputs[0].functions == ("percentage_change",)
    graph, question = next(ds.folds())
    assert question.gold == d1.gold
    assert "table_average" not in d2.gold or not any(
        f.name == "table_average" for f in graph.functions())


def test_convert_convfinqa_scores_turns_with_operations(data_dir: Path) -> None:
    ds = convert_convfinqa(data_dir / "conv.json", data_dir / "finqa")
    (question,) = ds.questions
    assert question.id == "Single_x#1"
    assert question.question.startswith("what were sales in 2020?")
    assert question.level == "hard" and question.answer == "0.2"
