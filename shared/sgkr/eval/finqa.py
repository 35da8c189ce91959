"""FinQA and ConvFinQA as SGKR datasets: gold programs become Python solutions.

As in the paper, each FinQA operation (``add``, ``subtract``, ..., ``table_average``)
becomes a Python function carrying its financial knowledge; the operation
patterns that recur in the *build* split (percentage change, average of two
values, percent of a total, ...) become named functions that call them; and
each question's solution is a script whose module body calls those. Patterns
are mined from the build split only: a contiguous, self-contained run of steps
whose shape (operations, ``#n`` references, constants, repeated arguments)
occurs in at least ``min_support`` build programs. Known shapes get a financial
name and knowledge (:data:`KNOWN_PATTERNS`); others an operation-derived name.

I/O tags come from the question by a fixed lexicon written for this converter
(:data:`INPUT_TAGS`: the entities and periods a question gives;
:data:`OUTPUT_TAGS`: the quantity it asks for). Input tags attach to the
functions the solution calls with the report's numbers, output tags to the
function whose result is the answer.

The gold functions of a scored question are the functions of its own
solution, converted with the build split's pattern library. "Hard" questions
(the paper's subset) have more than one operation.

Examples
--------
>>> steps = parse_program("subtract(153.7, 139.9), divide(#0, 139.9)")
>>> [s.op for s in steps], round(execute(steps), 5)
(['subtract', 'divide'], 0.09864)
>>> lib = mine_patterns([steps, parse_program("subtract(5, 4), divide(#0, 4)")])
>>> print(solution_code(steps, lib).splitlines()[-1])
answer = percentage_change(153.7, 139.9)
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidArgumentError, KnowledgeFormatError, SourceError
from ..tags.examples import Example, TagRef
from ..tags.sidecar import Sidecar
from ..text import fold
from .datasets import Dataset, Question

__all__ = [
    "OPERATIONS",
    "KNOWN_PATTERNS",
    "INPUT_TAGS",
    "OUTPUT_TAGS",
    "Step",
    "Pattern",
    "parse_program",
    "parse_tokens",
    "execute",
    "mine_patterns",
    "solution_code",
    "solution_plan",
    "question_tags",
    "convert_finqa",
    "convert_convfinqa",
]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"

#: Each FinQA operation: (parameters, body, financial knowledge).
OPERATIONS: dict[str, tuple[str, str, str]] = {
    "add": ("a, b", "return a + b",
            "Sum of two amounts: the total of two line items, segments or periods."),
    "subtract": ("a, b", "return a - b",
                 "Difference a - b: the change of an amount between two periods (later minus "
                 "earlier: positive is an increase), or what remains of a total after a part."),
    "multiply": ("a, b", "return a * b",
                 "Product of two numbers: scale a value (a rate times a base, a price times a "
                 "number of shares), or turn a fraction into a percentage with 100."),
    "divide": ("a, b", "return a / b",
               "Quotient a / b: a ratio, the portion of a total (part / total), a per-unit "
               "value, or a change relative to its base value."),
    "exp": ("a, b", "return a ** b",
            "Power a ** b: compounding a growth factor over b periods, or the inverse for a "
            "compound annual growth rate."),
    "greater": ("a, b", "return a > b",
                "Whether a is greater than b (the answer is yes or no)."),
    "table_sum": ("row", "values = table_row(row)\n    return sum(values)",
                  "Total of a table row over its columns (usually the years reported)."),
    "table_average": ("row", "values = table_row(row)\n    return sum(values) / len(values)",
                      "Average of a table row over its columns (usually the years reported)."),
    "table_max": ("row", "values = table_row(row)\n    return max(values)",
                  "Largest value of a table row over its columns."),
    "table_min": ("row", "values = table_row(row)\n    return min(values)",
                  "Smallest value of a table row over its columns."),
}

#: Named operation patterns: canonical shape -> (function name, financial knowledge).
KNOWN_PATTERNS: dict[str, tuple[str, str]] = {
    "subtract(a, b), divide(#0, b)": (
        "percentage_change",
        "Percentage change (growth rate) from the earlier value b to the later value a: "
        "(a - b) / b, as a fraction (0.12 means 12%)."),
    "subtract(a, b), divide(#0, b), multiply(#1, const_100)": (
        "percentage_change_in_percent",
        "Percentage change from the earlier value b to the later value a, in percent: "
        "(a - b) / b * 100."),
    "divide(a, b), multiply(#0, const_100)": (
        "percent_of",
        "a as a percentage of b (a share of a total, in percent): a / b * 100."),
    "add(a, b), divide(#0, const_2)": (
        "average_of_two",
        "Average of two values, e.g. the balances at the beginning and the end of a year: "
        "(a + b) / 2."),
    "add(a, b), add(#0, c), divide(#1, const_3)": (
        "average_of_three", "Average of three values (three years): (a + b + c) / 3."),
    "add(a, b), add(#0, c)": ("sum_of_three", "Total of three amounts: a + b + c."),
    "add(a, b), divide(#0, c)": (
        "share_of_combined", "Combined share of two parts in a total: (a + b) / c."),
    "subtract(a, b), divide(#0, c)": (
        "change_relative_to",
        "Change between two values relative to a third amount (e.g. the change of a line "
        "item as a share of a total): (a - b) / c."),
    "divide(a, b), subtract(#0, const_1)": (
        "growth_rate_from_ratio", "Growth rate from the ratio of the later to the earlier "
        "value: a / b - 1."),
    "subtract(a, b), multiply(#0, const_100)": (
        "change_in_points", "Change between two rates, in percentage points: (a - b) * 100."),
}

#: Entities and periods a question gives: label -> aliases.
INPUT_TAGS: dict[str, tuple[str, ...]] = {
    "fiscal year": ("year", "years", "quarter", "annual", "annually",
                    *(str(y) for y in range(1990, 2031))),
    "revenue": ("revenues", "sales", "net sales", "net revenue", "turnover"),
    "net income": ("earnings", "net earnings", "profit", "net profit", "net loss"),
    "operating income": ("operating profit", "operating earnings", "segment income"),
    "expense": ("expenses", "cost", "costs", "expenditure", "expenditures", "spending"),
    "cash": ("cash flow", "cash flows", "cash and cash equivalents", "liquidity"),
    "debt": ("borrowings", "notes", "loan", "loans", "long-term debt", "obligations"),
    "asset": ("assets", "total assets", "property", "equipment"),
    "liability": ("liabilities", "payable", "payables", "accrued"),
    "equity": ("stockholders equity", "shareholders equity", "capital"),
    "share": ("shares", "stock", "common stock", "options", "units"),
    "dividend": ("dividends", "payout"),
    "interest": ("interest expense", "interest income"),
    "tax": ("taxes", "income tax", "tax rate"),
    "price": ("stock price", "share price", "exercise price", "fair value", "value"),
    "amortization": ("depreciation", "depreciation and amortization", "impairment"),
    "pension": ("retirement", "benefit", "benefits", "postretirement"),
    "lease": ("leases", "rent", "rental"),
    "acquisition": ("acquisitions", "purchase price", "goodwill"),
    "employee": ("employees", "headcount", "compensation"),
    "segment": ("segments", "division", "business unit"),
}

#: The quantity a question asks for: label -> aliases.
OUTPUT_TAGS: dict[str, tuple[str, ...]] = {
    "percentage change": (
        "percent change", "percentage increase", "percent increase", "percentage decrease",
        "percent decrease", "growth rate", "rate of growth", "percent growth",
        "percentage growth", "change in percent", "increase in percent", "percent of the "
        "increase", "percent of the decrease", "percent of the change", "percentual change",
        "percentage of change", "grow", "growth", "decline", "rate of change"),
    "change": ("net change", "difference", "increase", "decrease", "variation", "variance",
               "reduction", "how much more", "how much less"),
    "average": ("mean", "avg", "on average"),
    "total": ("sum", "combined", "in total", "altogether", "aggregate", "overall"),
    "portion": ("ratio", "proportion", "fraction", "share of", "percent of",
                "percentage of", "what percent", "what percentage", "as a percentage",
                "in relation to", "relative to", "portion of", "represent"),
    "margin": ("operating margin", "profit margin", "gross margin"),
    "maximum": ("max", "highest", "largest", "biggest", "peak"),
    "minimum": ("min", "lowest", "smallest"),
    "comparison": ("greater", "greater than", "more than", "exceed", "exceeds", "higher than",
                   "less than", "larger than"),
    "per unit": ("per share", "per unit", "each", "per employee", "per year"),
}


@dataclass(frozen=True)
class Step:
    """One operation of a program; arguments as written (numbers, ``#n``, ``const_x``, rows)."""

    op: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Pattern:
    """A named operation pattern: its shape, function name, knowledge and build support."""

    shape: str
    name: str
    knowledge: str
    support: int
    length: int


def parse_program(text: str) -> tuple[Step, ...]:
    """Parse a FinQA program such as ``subtract(5, 3), divide(#0, 3)``.

    Raises
    ------
    InvalidArgumentError
        If ``text`` is not a well-formed program of FinQA operations.

    Examples
    --------
    >>> parse_program("table_average(net sales ( in millions ), none)")
    (Step(op='table_average', args=('net sales ( in millions )', 'none')),)
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"program must be a string, got {type(text).__name__}")
    steps: list[Step] = []
    rest = text.strip()
    while rest:
        match = re.match(r"([a-z_]+)\(", rest)
        if match is None or match.group(1) not in OPERATIONS:
            raise InvalidArgumentError(f"program {text!r}: expected an operation at {rest!r}")
        depth, index = 1, match.end()
        while index < len(rest) and depth:
            depth += {"(": 1, ")": -1}.get(rest[index], 0)
            index += 1
        if depth:
            raise InvalidArgumentError(f"program {text!r}: unbalanced parentheses")
        inner = rest[match.end(): index - 1]
        args = tuple(a.strip() for a in re.split(r",\s*(?![^()]*\))", inner))
        steps.append(Step(match.group(1), args))
        rest = rest[index:].lstrip().removeprefix(",").lstrip()
    if not steps:
        raise InvalidArgumentError("program is empty")
    return tuple(steps)


def parse_tokens(tokens: Sequence[str]) -> tuple[Step, ...]:
    """Parse program tokens as a model returns them: ``["divide(", "8.1", "56", ")", "EOF"]``.

    Examples
    --------
    >>> parse_tokens(["add(", "1", "2", ")", "multiply(", "#0", "const_100", ")", "EOF"])
    (Step(op='add', args=('1', '2')), Step(op='multiply', args=('#0', 'const_100')))
    """
    steps: list[Step] = []
    op: str | None = None
    args: list[str] = []
    for raw in tokens:
        token = str(raw).strip()
        if token == "EOF":
            break
        if token.endswith("("):
            if op is not None or token[:-1] not in OPERATIONS:
                raise InvalidArgumentError(f"unexpected token {token!r}")
            op, args = token[:-1], []
        elif token == ")":
            if op is None:
                raise InvalidArgumentError("')' without an operation")
            steps.append(Step(op, tuple(args)))
            op = None
        elif op is None:
            raise InvalidArgumentError(f"argument {token!r} outside an operation")
        else:
            args.append(token)
    if op is not None or not steps:
        raise InvalidArgumentError("program tokens are incomplete")
    return tuple(steps)


def _number(text: str) -> float:
    value = text.strip().replace(",", "").replace("$", "")
    if value.startswith("const_"):
        value = value[6:].replace("m", "-", 1) if value[6:].startswith("m") else value[6:]
    scale = 1.0
    if value.endswith("%"):
        value, scale = value[:-1], 0.01
    if value.startswith("(") and value.endswith(")"):
        value = "-" + value[1:-1]
    return float(value) * scale


def _row_values(table: Sequence[Sequence[str]], row: str) -> list[float]:
    for cells in table:
        if cells and fold(cells[0]) == fold(row):
            values = []
            for cell in cells[1:]:
                try:
                    values.append(_number(cell.replace("$", " ").split()[0]))
                except (ValueError, IndexError):
                    continue
            if values:
                return values
    raise InvalidArgumentError(f"no table row named {row!r} with numbers")


def execute(steps: Sequence[Step], table: Sequence[Sequence[str]] = ()) -> float:
    """Run a program with a small interpreter of the FinQA operations (no ``eval``).

    ``greater`` yields 1.0 or 0.0; table operations read the row of ``table``
    whose first cell names it.

    Raises
    ------
    InvalidArgumentError
        On an unknown operation, a bad argument, a reference to a later step,
        or a division by zero.
    """
    results: list[float] = []
    for step in steps:
        if step.op not in OPERATIONS:
            raise InvalidArgumentError(f"unknown operation {step.op!r}")
        if step.op.startswith("table_"):
            values = _row_values(table, step.args[0])
            results.append(sum(values) if step.op == "table_sum" else max(values)
                           if step.op == "table_max" else min(values)
                           if step.op == "table_min" else sum(values) / len(values))
            continue
        if len(step.args) != 2:
            raise InvalidArgumentError(f"{step.op} takes 2 arguments, got {len(step.args)}")
        a, b = (_argument(arg, results) for arg in step.args)
        try:
            results.append(_apply(step.op, a, b))
        except (ZeroDivisionError, OverflowError) as exc:
            raise InvalidArgumentError(f"{step.op}({a}, {b}): {exc}") from exc
    return results[-1]


def _argument(arg: str, results: Sequence[float]) -> float:
    if arg.startswith("#"):
        index = int(arg[1:]) if arg[1:].isdigit() else -1
        if not 0 <= index < len(results):
            raise InvalidArgumentError(f"reference {arg} to no earlier step")
        return results[index]
    try:
        return _number(arg)
    except ValueError as exc:
        raise InvalidArgumentError(f"not a number: {arg!r}") from exc


def _apply(op: str, a: float, b: float) -> float:
    if op == "add":
        return a + b
    if op == "subtract":
        return a - b
    if op == "multiply":
        return a * b
    if op == "divide":
        return a / b
    if op == "exp":
        return float(a**b)
    return 1.0 if a > b else 0.0


# -- patterns ------------------------------------------------------------------------


def _shape(steps: Sequence[Step], start: int, end: int) -> str:
    """Canonical shape of steps[start:end]: given values (numbers, rows, earlier results) as
    letters in order of first use, references inside as ``#i`` from the window start."""
    letters: dict[str, str] = {}
    parts = []
    for step in steps[start:end]:
        args = []
        for arg in step.args:
            if _inside(arg, start, end):
                args.append(f"#{int(arg[1:]) - start}")
            elif arg.startswith("const_") or arg == "none":
                args.append(arg)
            else:
                args.append(letters.setdefault(arg, _LETTERS[min(len(letters), 25)]))
        parts.append(f"{step.op}({', '.join(args)})")
    return ", ".join(parts)


def _inside(arg: str, start: int, end: int) -> bool:
    return arg.startswith("#") and arg[1:].isdigit() and start <= int(arg[1:]) < end


def _closed(steps: Sequence[Step], start: int, end: int) -> bool:
    """Whether no step after the window uses an intermediate result of it."""
    inner = {f"#{i}" for i in range(start, end - 1)}
    return not any(a in inner for s in steps[end:] for a in s.args)


def mine_patterns(programs: Sequence[Sequence[Step]], *, min_support: int = 2,
                  max_length: int = 4) -> dict[str, Pattern]:
    """The operation patterns of at least two steps found in ``min_support`` programs or more.

    Raises
    ------
    InvalidArgumentError
        If ``min_support`` or ``max_length`` is below 1 or 2.
    """
    if min_support < 1 or max_length < 2:
        raise InvalidArgumentError("min_support must be >= 1 and max_length >= 2")
    counts: Counter[str] = Counter()
    for steps in programs:
        seen = set()
        for start in range(len(steps)):
            for end in range(start + 2, min(len(steps), start + max_length) + 1):
                if _closed(steps, start, end):
                    seen.add(_shape(steps, start, end))
        counts.update(seen)
    library: dict[str, Pattern] = {}
    taken = set(OPERATIONS)
    for shape, support in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if support < min_support:
            continue
        name, knowledge = KNOWN_PATTERNS.get(shape, (None, None))
        if name is None:
            ops = [part.split("(")[0] for part in shape.split(", ") if "(" in part]
            name = "_then_".join(ops)
            knowledge = f"Operation pattern: {shape} (arguments a, b, ... in order)."
        base, number = name, 2
        while name in taken:
            name, number = f"{base}_{number}", number + 1
        taken.add(name)
        library[shape] = Pattern(shape, name, str(knowledge), support, shape.count("("))
    return library


def solution_plan(steps: Sequence[Step], library: Mapping[str, Pattern],
                  ) -> list[tuple[Pattern | None, int, int]]:
    """Cover the steps left to right by the longest library pattern, else single operations."""
    plan: list[tuple[Pattern | None, int, int]] = []
    start = 0
    while start < len(steps):
        chosen: tuple[Pattern | None, int, int] = (None, start, start + 1)
        for end in range(len(steps), start + 1, -1):
            shape = _shape(steps, start, end)
            if _closed(steps, start, end) and shape in library:
                chosen = (library[shape], start, end)
                break
        plan.append(chosen)
        start = chosen[2]
    return plan


def _literal(arg: str) -> str:
    if arg.startswith("const_"):
        return str(_number(arg)).removesuffix(".0")
    try:
        value = _number(arg)
    except ValueError:
        return repr(arg)
    return repr(value) if arg.endswith("%") else arg.replace(",", "").replace("$", "")


def _op_source(op: str) -> str:
    params, body, knowledge = OPERATIONS[op]
    return f'def {op}({params}):\n    """{knowledge}"""\n    {body}\n'


def _pattern_source(pattern: Pattern) -> str:
    letters = sorted({a for a in re.findall(r"\b([a-z])\b", pattern.shape)})
    lines = []
    for index, part in enumerate(pattern.shape.split("), ")):
        op, _, args = part.rstrip(")").partition("(")
        call_args = [f"step{a[1:]}" if a.startswith("#") else
                     (_literal(a) if a.startswith("const_") else a)
                     for a in args.split(", ") if a != "none"]
        lines.append(f"    step{index} = {op}({', '.join(call_args)})")
    last = len(lines) - 1
    return (f'def {pattern.name}({", ".join(letters)}):\n    """{pattern.knowledge}"""\n'
            + "\n".join(lines) + f"\n    return step{last}\n")


def solution_code(steps: Sequence[Step], library: Mapping[str, Pattern]) -> str:
    """The Python solution of a program: its functions, then the module body calling them."""
    plan = solution_plan(steps, library)
    ops = sorted({steps[i].op for _, s, e in plan for i in range(s, e)})
    parts = [_op_source(op) for op in ops]
    parts += [_pattern_source(p) for p in dict.fromkeys(p for p, _, _ in plan if p)]
    body: list[str] = []
    result_of: dict[int, str] = {}
    for number, (pattern, start, end) in enumerate(plan):
        var = "answer" if number == len(plan) - 1 else f"result{number}"
        values: dict[str, str] = {}
        for step in steps[start:end]:
            for position, arg in enumerate(step.args):
                if arg == "none" or _inside(arg, start, end) or (
                        pattern is not None and arg.startswith("const_")):
                    continue
                value = result_of.get(int(arg[1:]), "None") if arg.startswith("#") \
                    else _literal(arg)
                values[arg if pattern is not None else f"{position}:{arg}"] = value
        name = pattern.name if pattern else steps[start].op
        body.append(f"{var} = {name}({', '.join(values.values())})")
        result_of[end - 1] = var
    return "\n\n".join(parts) + "\n\n" + "\n".join(body) + "\n"


def _entry_names(steps: Sequence[Step], library: Mapping[str, Pattern],
                 ) -> tuple[list[str], str]:
    """Functions called with the report's numbers, and the one whose result is the answer."""
    plan = solution_plan(steps, library)
    names = [p.name if p else steps[s].op for p, s, _ in plan]
    given = [n for (p, s, e), n in zip(plan, names, strict=True)
             if any(not a.startswith("#") for st in steps[s:e] for a in st.args)]
    return list(dict.fromkeys(given)), names[-1]


def question_tags(question: str, vocabulary: Mapping[str, Sequence[str]]) -> list[str]:
    """Labels of ``vocabulary`` whose label or an alias occurs in ``question`` (folded words).

    Examples
    --------
    >>> question_tags("What was the percent change in net sales?", OUTPUT_TAGS)
    ['percentage change', 'change']
    """
    words = fold(question)
    found = []
    for label, aliases in vocabulary.items():
        for phrase in (label, *aliases):
            target = fold(phrase)
            if target and any(words[i: i + len(target)] == target
                              for i in range(len(words) - len(target) + 1)):
                found.append(label)
                break
    return found


def _example(ident: str, question: str, steps: Sequence[Step], library: Mapping[str, Pattern],
             answer: Any) -> Example:
    code = solution_code(steps, library)
    given, result = _entry_names(steps, library)
    inputs = tuple(TagRef(label, tuple(given)) for label in question_tags(question, INPUT_TAGS))
    outputs = tuple(TagRef(label, (result,)) for label in question_tags(question, OUTPUT_TAGS))
    safe = re.sub(r"[^A-Za-z0-9]+", "_", ident).strip("_")
    return Example(ident, question, f"train/q_{safe}.py", code, inputs, outputs,
                   answer=None if answer is None else str(answer))


def _gold(steps: Sequence[Step], library: Mapping[str, Pattern]) -> tuple[str, ...]:
    plan = solution_plan(steps, library)
    names = [p.name for p, _, _ in plan if p]
    names += sorted({steps[i].op for _, s, e in plan for i in range(s, e)})
    return tuple(dict.fromkeys(names))


def _sidecar() -> Sidecar:
    tags = {label: tuple(aliases) for label, aliases in {**INPUT_TAGS, **OUTPUT_TAGS}.items()}
    return Sidecar({}, tags)


def _load(path: Path) -> Any:
    if not path.exists():
        raise SourceError(f"data file does not exist: {path}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise KnowledgeFormatError(f"{path}: invalid JSON: {exc.msg}") from exc


def _build_side(finqa_dir: Path, build: str, min_support: int,
                ) -> tuple[list[Example], dict[str, Pattern]]:
    records = _load(finqa_dir / build)
    parsed = [(r, parse_program(r["qa"]["program"])) for r in records]
    library = mine_patterns([steps for _, steps in parsed], min_support=min_support)
    examples = [_example(str(r["id"]), r["qa"]["question"], steps, library, r["qa"].get("exe_ans"))
                for r, steps in parsed]
    return examples, library


def _text(value: Any) -> str:
    return " ".join(value) if isinstance(value, list) else str(value or "")


def _report(pre: Any, table: Sequence[Sequence[str]], post: Any) -> str:
    rows = "\n".join(" | ".join(row) for row in table)
    return f"{_text(pre)}\n\n{rows}\n\n{_text(post)}".strip()


def _level(steps: Sequence[Step]) -> str:
    return "hard" if len(steps) > 1 else "easy"


def convert_finqa(finqa_dir: str | os.PathLike[str], *, build: str = "train_100.json",
                  score: Sequence[str] = ("dev_200.json", "dev_352.json"),
                  min_support: int = 2) -> Dataset:
    """FinQA as a dataset: the graph from ``build``, the questions of ``score``.

    Records of the score files are de-duplicated by id (dev_200 and dev_352 overlap).

    Raises
    ------
    SourceError
        If a data file is missing.
    """
    base = Path(finqa_dir)
    examples, library = _build_side(base, build, min_support)
    questions: dict[str, Question] = {}
    for name in score:
        for r in _load(base / name):
            if r["id"] in questions:
                continue
            steps = parse_program(r["qa"]["program"])
            table = tuple(tuple(str(c) for c in row) for row in r.get("table", []))
            questions[r["id"]] = Question(
                str(r["id"]), r["qa"]["question"], _gold(steps, library), _level(steps),
                answer=str(r["qa"].get("exe_ans")), program=r["qa"]["program"],
                report=_report(r.get("pre_text"), table, r.get("post_text")), table=table)
    return Dataset("finqa", knowledge=_sidecar(), examples=tuple(examples),
                   questions=tuple(questions.values()),
                   meta={"patterns": {p.name: p.shape for p in library.values()}})


def _conv_table(table: Any) -> tuple[tuple[str, ...], ...]:
    if not isinstance(table, dict):
        return tuple(tuple(str(c) for c in row) for row in table or [])
    columns = list(table)
    rows = list(dict.fromkeys(r for col in columns for r in table[col]))
    return ((("",) + tuple(columns)),) + tuple(
        (r, *(str(table[c].get(r, "")) for c in columns)) for r in rows)


def convert_convfinqa(convfinqa_file: str | os.PathLike[str],
                      finqa_dir: str | os.PathLike[str], *, build: str = "train_100.json",
                      min_support: int = 2) -> Dataset:
    """ConvFinQA dev as a dataset, scored against the graph of FinQA's ``build`` split.

    Each turn whose program has an operation is a question; its text is the
    conversation up to and including that turn (the turn's program computes
    what the whole conversation so far asked).

    Raises
    ------
    SourceError
        If a data file is missing.
    """
    examples, library = _build_side(Path(finqa_dir), build, min_support)
    data = _load(Path(convfinqa_file))
    conversations = data["dev"] if isinstance(data, dict) else data
    questions = []
    for conv in conversations:
        dialogue = conv["dialogue"]
        table = _conv_table(conv["doc"].get("table"))
        report = _report(conv["doc"].get("pre_text"), table, conv["doc"].get("post_text"))
        for turn, program in enumerate(dialogue["turn_program"]):
            if "(" not in program:
                continue
            steps = parse_program(program)
            text = " ".join(dialogue["conv_questions"][: turn + 1])
            answer = dialogue["executed_answers"][turn]
            questions.append(Question(
                f"{conv['id']}#{turn}", text, _gold(steps, library), _level(steps),
                answer=str(answer), program=program, report=report, table=table))
    return Dataset("convfinqa", knowledge=_sidecar(), examples=tuple(examples),
                   questions=tuple(questions),
                   meta={"patterns": {p.name: p.shape for p in library.values()}})


def close_enough(predicted: float, gold: float, *, rel: float = 1e-3, abs_: float = 1e-4,
                 ) -> bool:
    """Numeric match within a small tolerance (a percent-scale answer does not match).

    Examples
    --------
    >>> close_enough(0.098671, 0.09867), close_enough(9.867, 0.09867)
    (True, False)
    """
    return math.isclose(predicted, gold, rel_tol=rel, abs_tol=abs_)
