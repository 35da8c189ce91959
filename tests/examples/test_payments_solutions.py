"""The bundled payments knowledge base: solutions run, metadata is consistent.

Every solution script of examples/payments/solutions is run in a subprocess; the
answers that do not depend on the (synthetic) payments file are checked against
examples.jsonl, whose answers for dev tasks come from DABstep's dev.jsonl.
"""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PAYMENTS = Path(__file__).resolve().parents[2] / "examples" / "payments"
SOLUTIONS = sorted((PAYMENTS / "solutions").glob("task_*.py"))
CASE_STUDY_FAMILY = {str(task_id) for task_id in range(1433, 1443)}

# DABstep dev.jsonl answers that the solutions reproduce from the context files alone.
DEV_ANSWERS = {
    "1273": "0.120132",
    "1305": "0.123217",
}


def read_jsonl(path):
    """The records of a JSON Lines file."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def module_tree(path):
    """The parsed module of a solution script (never executed here)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def defined_functions(path):
    """Names of the top-level functions defined in a script."""
    return {node.name for node in module_tree(path).body if isinstance(node, ast.FunctionDef)}


def imported_modules(path):
    """Top-level names of the modules a script imports."""
    names = set()
    for node in ast.walk(module_tree(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def run_solution(path, tmp_path):
    """Run a solution script on the bundled data, from an unrelated working directory."""
    if "pandas" in imported_modules(path):
        pytest.importorskip("pandas", reason="this solution reads the payments with pandas")
    env = {key: value for key, value in os.environ.items() if key != "SGKR_PAYMENTS_CSV"}
    return subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
        check=False,
    )


EXAMPLES = read_jsonl(PAYMENTS / "examples.jsonl")
HELDOUT = read_jsonl(PAYMENTS / "heldout.jsonl")
KNOWLEDGE = json.loads((PAYMENTS / "knowledge.json").read_text(encoding="utf-8"))


def test_there_are_enough_solutions():
    assert len(SOLUTIONS) >= 32
    assert len(EXAMPLES) == len(SOLUTIONS)


@pytest.mark.subprocess
@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda path: path.stem)
def test_solution_runs(path, tmp_path):
    result = run_solution(path, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), "the solution printed no answer"


@pytest.mark.parametrize(
    "example",
    [example for example in EXAMPLES if "answer" in example],
    ids=lambda example: f"task_{example['id']}",
)
@pytest.mark.subprocess
def test_context_only_answers_are_reproduced(example, tmp_path):
    path = PAYMENTS / example["file"]
    if "pandas" in imported_modules(path):
        pytest.skip("answer from the real payments.csv; the bundled payments are synthetic")
    result = run_solution(path, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == example["answer"]


@pytest.mark.subprocess
@pytest.mark.parametrize("task_id", sorted(DEV_ANSWERS))
def test_dev_answers_are_reproduced(task_id, tmp_path):
    result = run_solution(PAYMENTS / "solutions" / f"task_{task_id}.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == DEV_ANSWERS[task_id]


@pytest.mark.subprocess
def test_dev_fee_ids_1464_are_reproduced(tmp_path):
    result = run_solution(PAYMENTS / "solutions" / "task_1464.py", tmp_path)
    assert result.returncode == 0, result.stderr
    ids = [int(value) for value in result.stdout.split(",")]
    assert len(ids) == 416
    assert ids[:5] == [1, 2, 5, 6, 8]
    assert ids[-3:] == [998, 999, 1000]


def test_examples_are_well_formed():
    ids = [example["id"] for example in EXAMPLES]
    assert len(ids) == len(set(ids)), "duplicate example ids"
    for example in EXAMPLES:
        assert set(example) <= {"id", "question", "file", "inputs", "outputs", "answer", "level"}, (
            example["id"]
        )
        assert isinstance(example["id"], str) and example["id"].isdigit()
        assert example["question"].strip()
        assert example["level"] in {"hard", "easy"}
        assert example["file"] == f"solutions/task_{example['id']}.py"
        path = PAYMENTS / example["file"]
        assert path.is_file(), example["file"]
        assert example["inputs"] and example["outputs"], example["id"]
        if "answer" in example:
            assert isinstance(example["answer"], str)
        functions = defined_functions(path)
        for entry in example["inputs"] + example["outputs"]:
            if isinstance(entry, str):
                assert entry.strip()
                continue
            assert set(entry) == {"tag", "functions"}, example["id"]
            assert entry["functions"], (example["id"], entry["tag"])
            missing = set(entry["functions"]) - functions
            assert not missing, f"task {example['id']}: {sorted(missing)} not defined"


def test_every_solution_is_an_example():
    files = {example["file"] for example in EXAMPLES}
    assert files == {f"solutions/{path.name}" for path in SOLUTIONS}


def test_case_study_family_is_not_an_example():
    assert not CASE_STUDY_FAMILY & {example["id"] for example in EXAMPLES}


def tag_labels(example):
    """The tag labels of an example's inputs and outputs."""
    return {
        entry if isinstance(entry, str) else entry["tag"]
        for entry in example["inputs"] + example["outputs"]
    }


def test_every_tag_has_knowledge():
    tags = KNOWLEDGE["tags"]
    used = set().union(*(tag_labels(example) for example in EXAMPLES))
    assert used <= set(tags), sorted(used - set(tags))
    for label, entry in tags.items():
        assert entry["aliases"], label
        assert all(isinstance(alias, str) and alias.strip() for alias in entry["aliases"])


def test_heldout_is_well_formed():
    solved = {example["id"] for example in EXAMPLES}
    functions = set().union(*(defined_functions(path) for path in SOLUTIONS))
    heldout_ids = {record["id"] for record in HELDOUT}
    assert heldout_ids >= CASE_STUDY_FAMILY
    for record in HELDOUT:
        assert set(record) == {"id", "question", "gold"}
        assert record["id"] not in solved
        assert record["question"].strip()
        assert record["gold"], record["id"]
        assert set(record["gold"]) <= functions, set(record["gold"]) - functions


def test_shared_helpers_are_copied_unchanged():
    """A helper defined in several solutions has the same code everywhere."""
    sources = {}
    for path in SOLUTIONS:
        text = path.read_text(encoding="utf-8")
        for node in module_tree(path).body:
            if isinstance(node, ast.FunctionDef):
                sources.setdefault(node.name, set()).add(ast.get_source_segment(text, node))
    shared = [
        "load_fees",
        "matches_field",
        "fee_rule_matches",
        "calculate_fee",
        "average_fee",
        "merchant_matches_fee",
        "transaction_matches_fee",
        "check_intracountry",
        "capture_delay_matches",
        "monthly_volume_bucket",
        "fraud_level_bucket",
        "compute_fraud_rate",
        "compute_total_fees",
    ]
    for name in shared:
        assert len(sources[name]) == 1, f"{name} differs between solutions"


@pytest.mark.subprocess
def test_synthetic_payments_are_regenerated_identically(tmp_path):
    output = tmp_path / "payments.csv"
    result = subprocess.run(
        [sys.executable, str(PAYMENTS / "data" / "make_synthetic.py"), "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert output.read_bytes() == (PAYMENTS / "data" / "payments_synthetic.csv").read_bytes()


def test_synthetic_payments_have_the_readme_columns():
    readme = (PAYMENTS / "context" / "payments-readme.md").read_text(encoding="utf-8")
    documented = [
        line.split("`")[1] for line in readme.splitlines() if line.strip().startswith("- `")
    ]
    with open(PAYMENTS / "data" / "payments_synthetic.csv", encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    assert header == documented
