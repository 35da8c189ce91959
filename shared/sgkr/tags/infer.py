"""I/O tags inferred from a definition's facts, for code that comes with no tags.

:func:`annotate` runs where a file is parsed (the build's worker processes): each
definition gets its knowledge text and its inferred tags there, so that the
graph is assembled from precomputed values. :func:`bound_outputs` names a
function's output where its callers bind its value (``fee = calculate_fee(...)``).

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> d = extract_module("m.py", "def average_fee(rows):\\n    return 1\\n").definitions[0]
>>> infer_tags(d)
(('row',), ('average fee',))
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace

from ..analysis.knowledge import IGNORED_PARAMS, knowledge_of
from ..records import BindingKind, Definition, ModuleExtract
from ..text import fold, name_phrase, singular
from .labels import label_ok, name_tag_phrase, tag_labels, tag_phrase

__all__ = ["infer_tags", "annotate", "bound_outputs", "MOST_TAGS"]


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
    functions share them (:func:`sgkr.tags.weights.tag_weights`), not by a list.

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
    names: list[str] = [p for p in d.params if p not in IGNORED_PARAMS]
    names += d.keys_read
    names += d.keywords
    names += d.strings
    names += [attribute for name, attribute in d.attributes if name not in IGNORED_PARAMS]
    inputs = tag_labels(n for n in names if n not in written)
    # A module's name says where code is, not what it makes.
    phrase = "" if d.name.startswith("_") or d.kind == "module" else name_tag_phrase(d.name)
    outs = [phrase, *(tag_phrase(n) for n in d.results),
            *(tag_phrase(k) for k in written), _doc_phrase(d.docstring)]
    outputs = tuple(o for o in dict.fromkeys(outs) if label_ok(o))
    return inputs[:MOST_TAGS], outputs[:MOST_TAGS]


#: Most input tags, and most output tags, inferred for one definition (the first ones:
#: parameters first, the name's phrase first), so that a script writing thousands of keys
#: is not tied to thousands of tags.
MOST_TAGS = 24
# The words that end the noun phrase opening a docstring ("the fee rules of a merchant").
_PHRASE_ENDS = frozenset({
    "of", "for", "from", "in", "on", "to", "with", "by", "as", "at", "into", "per", "and",
    "or", "that", "which", "whether", "if", "when", "where", "is", "are", "was", "be",
    "using", "given", "between", "over", "under", "after", "before", "than", "it", "its",
    "who", "whom", "whose"})
_ARTICLES = frozenset({"a", "an", "the", "all", "each", "every", "one", "some", "any"})
_DOC_WORD = re.compile(r"[a-z][a-z_\-]*")
_SENTENCE_END = re.compile(r"[.:;!?\n]")


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
    return tag_phrase(" ".join(phrase[:3])) if phrase else ""


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


def bound_outputs(d: Definition, resolved: Mapping[str, object] | None,
                  qual_to_id: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """``(node id, label)`` of each function whose value ``d`` binds to a name.

    ``fee = calculate_fee(rule, amount)`` in ``d`` gives ``calculate_fee`` the
    output ``fee``: the caller names what the callee returns. ``resolved`` is
    the map of ``d``'s resolved calls (callee qualified name -> resolution);
    ``x = Parser()`` names what the class's ``__init__`` makes.

    Examples
    --------
    >>> from sgkr.ingest.extract import extract_module
    >>> m = extract_module("m.py", "def f(rule):\\n    fee = calc_fee(rule)\\n    return fee\\n")
    >>> list(bound_outputs(m.definitions[0], {"lib.calc_fee": "name"},
    ...                    {"lib.calc_fee": "fn:lib.calc_fee"}))
    [('fn:lib.calc_fee', 'fee')]
    """
    if not resolved:
        return
    for b in d.bindings:
        if b.kind is not BindingKind.ASSIGNED:
            continue
        name = b.value.name.rpartition(".")[2]
        label = " ".join(fold(b.target.rpartition(".")[2]))
        if len(label) < 2:
            continue
        for callee in resolved:
            head, _, last = callee.rpartition(".")
            if (last == name or last == "__init__" and head.rpartition(".")[2] == name) \
                    and callee in qual_to_id:
                yield qual_to_id[callee], label
