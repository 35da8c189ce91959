"""Where knowledge and tags come from: sidecar files, examples, docstrings, inference.

A *sidecar* file (JSON, or YAML when PyYAML is installed) names functions
with their knowledge text and I/O tags, and tags with their aliases::

    {"functions": {"calculate_fee": {"knowledge": "fee = fixed + rate * amount / 10000",
                                      "inputs": ["transaction value"],
                                      "outputs": ["fee"]}},
     "tags": {"transaction value": {"aliases": ["transaction amount", "euros"]}}}

An *examples* file is JSONL, one solved question a line::

    {"id": "1273", "question": "...", "file": "solutions/task_1273.py",
     "inputs": ["card scheme", {"tag": "transaction value", "functions": ["calculate_fee"]}],
     "outputs": ["average fee"], "answer": "0.120132"}

``code`` may replace ``file``. A tag given as a plain label is attached to the
functions of that solution whose code mentions it (inputs) or whose name says
it (outputs), else to the solution's entry points.

Examples
--------
>>> from sgkr.analysis.knowledge import mentions_phrase
>>> mentions_phrase(("card", "scheme"), ["card_scheme", "amount"])
True
"""

from __future__ import annotations

import functools
import keyword
import os
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import KnowledgeFormatError
from ..ingest.files import (
    FileRefused,
    check_tree,
    inside,
    parse_json,
    read_file,
    read_side_file,
    read_side_text,
    roots_of,
)
from ..ingest.sources import DEFAULT_MAX_FILE_BYTES, decode_source
from ..ingest.tokens import names_in
from ..records import Definition, ModuleExtract
from ..text import fold, name_phrase, singular, words

__all__ = [
    "FunctionKnowledge",
    "Sidecar",
    "TagRef",
    "Example",
    "load_sidecar",
    "parse_sidecar",
    "load_examples",
    "describe",
    "knowledge_of",
    "infer_tags",
    "annotate",
    "mentions_phrase",
    "mentions_any",
    "code_terms",
]

_IGNORED_PARAMS = frozenset({"self", "cls", "args", "kwargs", "kw", "_"})


@dataclass(frozen=True)
class FunctionKnowledge:
    """What a sidecar says of one function (by bare name or qualname)."""

    knowledge: str | None = None
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sidecar:
    """A parsed sidecar file: knowledge per function and aliases per tag."""

    functions: Mapping[str, FunctionKnowledge]
    tags: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class TagRef:
    """A tag of an example; ``functions`` names the functions it attaches to, if given."""

    label: str
    functions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Example:
    """One solved question: its solution code and its I/O tags."""

    id: str
    question: str
    path: str
    code: str
    inputs: tuple[TagRef, ...]
    outputs: tuple[TagRef, ...]
    answer: str | None = None
    source_file: Path | None = None


def load_sidecar(path: str | os.PathLike[str]) -> Sidecar:
    """Read a sidecar knowledge file (``.json``, ``.yaml`` or ``.yml``).

    The file is read by the rules of :func:`sgkr.ingest.files.read_file` (a regular
    file, at most :data:`~sgkr.ingest.files.MAX_SIDE_FILE_BYTES`), and its content,
    YAML aliases expanded, may hold at most :data:`~sgkr.ingest.files.MAX_EXPANDED_ITEMS`.

    Raises
    ------
    KnowledgeFormatError
        If the file is missing, not valid JSON/YAML, or not of the documented shape.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise KnowledgeFormatError(f"knowledge file must be a path, got {path!r}")
    file = Path(path)
    where = f"knowledge file {file}"
    raw = read_side_file(file, where, KnowledgeFormatError)
    if file.suffix.lower() in (".yaml", ".yml"):
        data = _parse_yaml(raw, where)
        # Aliases share what they name: the tree is walked as if each were
        # copied, and refused as soon as it is much larger than the file.
        check_tree(data, where, KnowledgeFormatError, budget=yaml_budget(len(raw)))
    else:
        data = parse_json(raw, where, KnowledgeFormatError)
    return parse_sidecar(data, where=str(file))


def yaml_budget(size: int) -> int:
    """Most items and characters a YAML file of ``size`` bytes may expand to (aliases used).

    Without aliases a document holds fewer than it has bytes; twice that and a
    million more leaves room for ordinary anchors.
    """
    return 2 * size + 1_000_000


def _parse_yaml(raw: bytes, where: str) -> Any:
    try:
        import yaml
    except ImportError as exc:
        raise KnowledgeFormatError(f"{where} is YAML: install PyYAML, or give it as JSON"
                                   ) from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise KnowledgeFormatError(f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})"
                                   ) from exc
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        raise KnowledgeFormatError(f"{where}: invalid YAML: {exc.problem or exc.context}{at}"
                                   ) from exc
    except yaml.YAMLError as exc:
        raise KnowledgeFormatError(f"{where}: invalid YAML: {' '.join(str(exc).split())}"
                                   ) from exc
    except RecursionError as exc:
        raise KnowledgeFormatError(f"{where}: invalid YAML: nested too deeply") from exc
    except ValueError as exc:  # an integer over the digit limit
        raise KnowledgeFormatError(f"{where}: invalid YAML: {str(exc).splitlines()[0]}"
                                   ) from exc


def parse_sidecar(data: Any, *, where: str = "knowledge") -> Sidecar:
    """Validate the parsed content of a sidecar file (see the module doc for its shape)."""
    if not isinstance(data, dict):
        raise KnowledgeFormatError(f"{where}: top level must be an object")
    unknown = set(data) - {"functions", "tags"}
    if unknown:
        raise KnowledgeFormatError(
            f"{where}: unknown top-level key(s) {sorted(unknown)}; expected functions, tags"
        )
    functions: dict[str, FunctionKnowledge] = {}
    for name, entry in _mapping(data.get("functions", {}), f"{where}: functions").items():
        at = f"{where}: functions.{name}"
        if isinstance(entry, str):
            functions[name] = FunctionKnowledge(knowledge=entry)
            continue
        entry = _mapping(entry, at)
        extra = set(entry) - {"knowledge", "inputs", "outputs"}
        if extra:
            raise KnowledgeFormatError(f"{at}: unknown key(s) {sorted(extra)}")
        text = entry.get("knowledge")
        if text is not None and not isinstance(text, str):
            raise KnowledgeFormatError(f"{at}.knowledge must be a string")
        functions[name] = FunctionKnowledge(
            knowledge=text,
            inputs=_labels(entry.get("inputs", []), f"{at}.inputs"),
            outputs=_labels(entry.get("outputs", []), f"{at}.outputs"),
        )
    tags: dict[str, tuple[str, ...]] = {}
    for label, entry in _mapping(data.get("tags", {}), f"{where}: tags").items():
        at = f"{where}: tags.{label}"
        if isinstance(entry, list):
            tags[label] = _labels(entry, at)
        else:
            entry = _mapping(entry, at)
            extra = set(entry) - {"aliases"}
            if extra:
                raise KnowledgeFormatError(f"{at}: unknown key(s) {sorted(extra)}")
            tags[label] = _labels(entry.get("aliases", []), f"{at}.aliases")
        if not fold(label):
            raise KnowledgeFormatError(f"{at}: a tag label needs at least one word")
    return Sidecar(functions, tags)


def load_examples(path: str | os.PathLike[str], *, roots: Sequence[str] = (),
                  max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> list[Example]:
    """Read an examples JSONL file; ``file`` entries are read relative to it.

    Parameters
    ----------
    path
        The JSONL file.
    roots
        Real folder paths, besides the examples file's folder, that solution
        files may lie in (a build gives its source folders).
    max_file_bytes
        Largest solution file read.

    Raises
    ------
    KnowledgeFormatError
        Naming the file and line of the first malformed entry, or a solution
        file that is missing, too large, not a regular file, or outside the
        examples file's folder and ``roots``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise KnowledgeFormatError(f"examples file must be a path, got {path!r}")
    file = Path(path)
    where = f"examples file {file}"
    text = read_side_text(file, where, KnowledgeFormatError)
    allowed = (*roots_of([file]), *roots)
    examples: list[Example] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        at = f"{file}:{number}"
        entry = parse_json(line, at, KnowledgeFormatError)
        example = _example(entry, at, file, number, allowed, max_file_bytes)
        if example.id in seen:
            raise KnowledgeFormatError(f"{at}: duplicate example id {example.id!r}")
        seen.add(example.id)
        examples.append(example)
    return examples


def _example(entry: Any, at: str, file: Path, number: int, allowed: Sequence[str],
             max_file_bytes: int) -> Example:
    entry = _mapping(entry, at)
    known = {"id", "question", "code", "file", "inputs", "outputs", "answer", "level"}
    extra = set(entry) - known
    if extra:
        raise KnowledgeFormatError(f"{at}: unknown key(s) {sorted(extra)}")
    question = entry.get("question")
    if not isinstance(question, str) or not question.strip():
        raise KnowledgeFormatError(f"{at}: 'question' must be a non-empty string")
    ident = str(entry.get("id", number))
    if ("code" in entry) == ("file" in entry):
        raise KnowledgeFormatError(f"{at}: give exactly one of 'code' and 'file'")
    source_file: Path | None = None
    if "file" in entry:
        if not isinstance(entry["file"], str) or not entry["file"].strip():
            raise KnowledgeFormatError(f"{at}: 'file' must be a non-empty string")
        source_file, code = _solution(entry["file"], at, file, allowed, max_file_bytes)
        path = entry["file"]
    else:
        code = entry["code"]
        if not isinstance(code, str):
            raise KnowledgeFormatError(f"{at}: 'code' must be a string")
        safe = re.sub(r"[^A-Za-z0-9_]", "_", ident)
        path = f"{file.stem}/example_{safe}.py"
    answer = entry.get("answer")
    return Example(
        id=ident,
        question=question,
        path=path,
        code=code,
        inputs=_tag_refs(entry.get("inputs", []), f"{at}: inputs"),
        outputs=_tag_refs(entry.get("outputs", []), f"{at}: outputs"),
        answer=None if answer is None else str(answer),
        source_file=source_file,
    )


def _solution(name: str, at: str, file: Path, allowed: Sequence[str],
              max_file_bytes: int) -> tuple[Path, str]:
    """The real path and text of an example's solution file, read inside ``allowed`` only."""
    if "\x00" in name:
        raise KnowledgeFormatError(f"{at}: solution file {name!r}: a NUL byte in the name")
    real = os.path.realpath(file.parent / name)
    if not inside(real, allowed):
        raise KnowledgeFormatError(f"{at}: solution file {name!r} is outside the examples "
                                   "file's folder and the source folders")
    try:
        code = decode_source(read_file(real, max_file_bytes, roots=allowed))
    except FileRefused as exc:
        raise KnowledgeFormatError(f"{at}: solution file {name!r}: {exc}") from exc
    except OSError as exc:
        raise KnowledgeFormatError(f"{at}: solution file {name!r}: {exc.strerror or exc}"
                                   ) from exc
    except (UnicodeDecodeError, LookupError) as exc:
        raise KnowledgeFormatError(f"{at}: solution file {name!r}: {exc}") from exc
    return Path(real), code


def _tag_refs(value: Any, at: str) -> tuple[TagRef, ...]:
    if not isinstance(value, list):
        raise KnowledgeFormatError(f"{at} must be a list")
    refs: list[TagRef] = []
    for item in value:
        if isinstance(item, str) and fold(item):
            refs.append(TagRef(item))
        elif isinstance(item, dict) and isinstance(item.get("tag"), str) and fold(item["tag"]):
            extra = set(item) - {"tag", "functions"}
            if extra:
                raise KnowledgeFormatError(f"{at}: unknown key(s) {sorted(extra)}")
            refs.append(TagRef(item["tag"], _labels(item.get("functions", []), at)))
        else:
            raise KnowledgeFormatError(
                f"{at}: each tag is a label or {{'tag': label, 'functions': [...]}}, got {item!r}"
            )
    return tuple(refs)


def _mapping(value: Any, at: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise KnowledgeFormatError(f"{at} must be an object with string keys")
    return value


def _labels(value: Any, at: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise KnowledgeFormatError(f"{at} must be a list of strings")
    return tuple(value)


# -- knowledge of a definition ---------------------------------------------------


def describe(d: Definition) -> str:
    """A one-line description of a definition that comes with no knowledge.

    Examples
    --------
    >>> from sgkr.records import Definition, Parameter, SourceSpan
    >>> describe(Definition("m.compute_avg_fee", "compute_avg_fee", "function", "",
    ...                     SourceSpan("m.py", 1, 2), parameters=(Parameter("fees"),
    ...                                                           Parameter("amount"))))
    'compute_avg_fee(fees, amount): compute avg fee from fees, amount.'
    """
    if d.kind == "module":
        called = sorted({c.name for c in d.calls})[:8]
        tail = f"; calls {', '.join(called)}" if called else ""
        return f"Module-level code of {d.span.file}{tail}."
    params = [p for p in d.params if p not in _IGNORED_PARAMS]
    action = _phrase(d.name) or d.name
    owner = f"{d.enclosing_class.rsplit('.', 1)[-1]}." if d.enclosing_class else ""
    source = f" from {', '.join(params)}" if params else ""
    return f"{owner}{d.name}({', '.join(d.params)}): {action}{source}."


def knowledge_of(d: Definition, sidecar_text: str | None = None) -> str:
    """Knowledge of a definition: sidecar text, comment above, docstring; else a description.

    Without sidecar text, the knowledge :func:`annotate` derived is returned when present.

    Examples
    --------
    >>> from sgkr.records import Definition, SourceSpan
    >>> d = Definition("m.fee", "fee", "function", "", SourceSpan("m.py", 1, 2),
    ...                docstring="fee = rate * amount", comment="In cents.")
    >>> knowledge_of(d)
    'In cents.\\n\\nfee = rate * amount'
    >>> knowledge_of(d, "From the manual.").splitlines()[0]
    'From the manual.'
    """
    if not sidecar_text and d.knowledge is not None:
        return d.knowledge
    parts = [t for t in (sidecar_text, d.comment, d.docstring) if t]
    return "\n\n".join(dict.fromkeys(parts)) if parts else describe(d)


def infer_tags(d: Definition) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Tags inferred from a definition's facts alone: what it reads in, what it gives out.

    Inputs: parameters, the string keys it reads (``row["card_scheme"]``,
    ``rule.get("aci")``), the keywords it passes data to (``timeout=timeout``;
    not ``ascending=False``, an option setting), the strings it passes that read
    like names (``groupby("merchant")``, ``agg(total=("amount", "sum"))``) and
    the attributes it reads of its parameters (``df.amount``; not ``self.``: the
    object's state is not what one method takes in); a key it writes is no input.
    Outputs: the noun phrase of its name (``compute_average_fee`` gives
    ``average fee``), the names it returns (``return fee``), the keys it
    writes (``row["fee"] = ...``) and the noun phrase opening its docstring
    (``Return the monthly fraud level.``). A module body (a script's steps)
    has no parameters and no name phrase, the rest alike. Every fact comes from
    the syntax tree (:mod:`sgkr.ingest.extract`): a comment or a docstring that
    looks like code gives no tag. The labels are folded (:func:`sgkr.text.fold`),
    as the labels of tags are; common words are weighed down by how many
    functions share them (:func:`sgkr.graph.tagging.tag_weights`), not by a list.

    Examples
    --------
    >>> from sgkr.records import Parameter, SourceSpan
    >>> infer_tags(Definition("m.get_average_fees", "get_average_fees", "function", "",
    ...            SourceSpan("m.py", 1, 2),
    ...            parameters=tuple(map(Parameter, ("self", "merchant", "rows"))),
    ...            keys_read=("card_scheme", "row")))
    (('merchant', 'row', 'card scheme'), ('average fee',))
    >>> from sgkr.ingest.extract import extract_module
    >>> code = ("def shares(df, by):\\n    '''Return the total amounts per merchant.'''\\n"
    ...         "    # out = df.groupby(by).agg(ignored=('in_a_comment', 'sum'))\\n"
    ...         "    out = df.groupby(by).agg(total=('eur_amount', 'sum'))\\n"
    ...         "    out['share'] = out.total / df.amount.sum()\\n    return out\\n")
    >>> infer_tags(extract_module("m.py", code).definitions[0])
    (('df', 'by', 'total', 'eur amount', 'sum', 'amount'), ('share', 'out', 'total amount'))
    """
    if d.inferred_inputs is not None and d.inferred_outputs is not None:
        return d.inferred_inputs, d.inferred_outputs
    written = d.keys_written
    names: list[str] = [p for p in d.params if p not in _IGNORED_PARAMS]
    names += d.keys_read
    names += d.keywords
    names += d.strings
    names += [attribute for name, attribute in d.attributes if name not in _IGNORED_PARAMS]
    inputs = _tag_labels(n for n in names if n not in written)
    # A module's name says where code is, not what it makes.
    phrase = "" if d.name.startswith("_") or d.kind == "module" else _name_tag_phrase(d.name)
    outs = [phrase, *(_tag_phrase(n) for n in d.results),
            *(_tag_phrase(k) for k in written), _doc_phrase(d.docstring)]
    outputs = tuple(o for o in dict.fromkeys(outs) if _label_ok(o))
    return inputs[:_MOST_TAGS], outputs[:_MOST_TAGS]


#: Most input tags, and most output tags, inferred for one definition (the first ones:
#: parameters first, the name's phrase first), so that a script writing thousands of keys
#: is not tied to thousands of tags.
_MOST_TAGS = 24
# The words that end the noun phrase opening a docstring ("the fee rules of a merchant").
_PHRASE_ENDS = frozenset({
    "of", "for", "from", "in", "on", "to", "with", "by", "as", "at", "into", "per", "and",
    "or", "that", "which", "whether", "if", "when", "where", "is", "are", "was", "be",
    "using", "given", "between", "over", "under", "after", "before", "than", "it", "its",
    "who", "whom", "whose"})
_ARTICLES = frozenset({"a", "an", "the", "all", "each", "every", "one", "some", "any"})
_DOC_WORD = re.compile(r"[a-z][a-z_\-]*")
_SENTENCE_END = re.compile(r"[.:;!?\n]")


def _tag_labels(names: Iterable[str]) -> tuple[str, ...]:
    found = (_tag_phrase(n) for n in names if not n.startswith("__"))
    return tuple(label for label in dict.fromkeys(found) if _label_ok(label))


def _label_ok(label: str) -> bool:
    """A label of at least two letters, not a number alone."""
    return len(label) >= 2 and not label.replace(" ", "").isdigit()


def _doc_phrase(docstring: str | None) -> str:
    """The noun phrase after the verb opening a docstring: ``Load the fee rules.`` -> fee rule.

    Only a docstring that opens with a verb that opens function names too
    (``Return``, ``Computes``, ``Load``, see :func:`sgkr.text.name_phrase`)
    has one; it ends before a preposition, a conjunction or a Python keyword.

    Examples
    --------
    >>> _doc_phrase("Return the average fee of the rules, in euros.")
    'average fee'
    >>> _doc_phrase("Returns True if the rule applies."), _doc_phrase("Use this method.")
    ('', '')
    """
    if not docstring:
        return ""
    tokens = _SENTENCE_END.split(docstring.strip(), maxsplit=1)[0].split()
    if len(tokens) < 2 or name_phrase(singular(tokens[0].lower())):
        return ""  # not a verb that opens function names
    phrase: list[str] = []
    for token in tokens[1:]:
        bare = token.strip("`'\"(),*")
        word = bare.lower()
        if not phrase and word in _ARTICLES:
            continue
        if word in _PHRASE_ENDS or keyword.iskeyword(bare) or not _DOC_WORD.fullmatch(word):
            break
        phrase.append(word)
    return _tag_phrase(" ".join(phrase[:3])) if phrase else ""


def annotate(module: ModuleExtract) -> ModuleExtract:
    """The extraction with the knowledge and inferred tags of each definition derived.

    Builds run it where a file is parsed, in the worker processes, so that the
    graph is assembled from precomputed values (see :class:`~sgkr.records.Definition`).

    Examples
    --------
    >>> from sgkr.ingest.extract import extract_module
    >>> m = annotate(extract_module("m.py", "def average_fee(rows):\\n    return 1\\n"))
    >>> d = m.definitions[0]
    >>> d.knowledge, d.inferred_inputs, d.inferred_outputs
    ('average_fee(rows): average fee from rows.', ('row',), ('average fee',))
    """
    return replace(module, definitions=tuple(_annotated(d) for d in module.definitions))


def _annotated(d: Definition) -> Definition:
    inputs, outputs = infer_tags(d)
    return replace(d, knowledge=knowledge_of(d), inferred_inputs=inputs,
                   inferred_outputs=outputs)


@functools.lru_cache(maxsize=65_536)
def _phrase(name: str) -> str:
    # The same parameter and function names recur across a code base: split each one once.
    return " ".join(words(name))


@functools.lru_cache(maxsize=65_536)
def _tag_phrase(name: str) -> str:
    return " ".join(fold(name))


@functools.lru_cache(maxsize=65_536)
def _name_tag_phrase(name: str) -> str:
    return " ".join(fold(name_phrase(name)))


def code_terms(d: Definition) -> list[str]:
    """Parameters, keys read and the names and short strings of a definition's code (read
    off its syntax tree: not its comments or docstring)."""
    return list(dict.fromkeys([*d.params, *d.keys_read, *names_in(d.code)]))


def mentions_phrase(phrase: Sequence[str], terms: Iterable[str]) -> bool:
    """Whether the folded ``phrase`` stands, contiguously, inside one of ``terms`` folded."""
    return bool(phrase) and mentions_any({tuple(phrase)}, terms)


def mentions_any(phrases: Collection[tuple[str, ...]], terms: Iterable[str]) -> bool:
    """Whether any of the folded ``phrases`` stands, contiguously, inside one of ``terms``.

    Each term is folded once and its word runs looked up in the set of
    phrases: the cost grows with the terms plus the phrases, not their product
    (a tag with thousands of aliases against a large solution).

    Examples
    --------
    >>> mentions_any({("card", "scheme"), ("fee",)}, ["get_card_scheme", "amount"])
    True
    """
    wanted = (phrases if isinstance(phrases, (set, frozenset)) and () not in phrases
              else {p for p in phrases if p})
    if not wanted:
        return False
    longest = max(map(len, wanted))
    for term in terms:
        folded = fold(term)
        count = len(folded)
        for start in range(count):
            for end in range(start + 1, min(count, start + longest) + 1):
                if folded[start:end] in wanted:
                    return True
    return False
