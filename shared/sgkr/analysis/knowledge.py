"""Knowledge of a definition: the text a function node shows besides its code.

Sidecar text first, then the comment block above the ``def`` and the docstring;
a definition with none gets a one-line description of what it does. Tags live
in :mod:`sgkr.tags`.

Examples
--------
>>> from sgkr.records import Definition, SourceSpan
>>> knowledge_of(Definition("m.fee", "fee", "function", "", SourceSpan("m.py", 1, 2)))
'fee(): fee.'
"""

from __future__ import annotations

import functools

from ..records import Definition
from ..text import words

__all__ = ["describe", "knowledge_of", "IGNORED_PARAMS"]

#: Parameters that say nothing of what a function takes in.
IGNORED_PARAMS = frozenset({"self", "cls", "args", "kwargs", "kw", "_"})


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
    params = [p for p in d.params if p not in IGNORED_PARAMS]
    action = _phrase(d.name) or d.name
    owner = f"{d.enclosing_class.rsplit('.', 1)[-1]}." if d.enclosing_class else ""
    source = f" from {', '.join(params)}" if params else ""
    return f"{owner}{d.name}({', '.join(d.params)}): {action}{source}."


def knowledge_of(d: Definition, sidecar_text: str | None = None) -> str:
    """Knowledge of a definition: sidecar text, comment above, docstring; else a description.

    Without sidecar text, the knowledge :func:`sgkr.tags.infer.annotate` derived is
    returned when present.

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


@functools.lru_cache(maxsize=65_536)
def _phrase(name: str) -> str:
    # The same parameter and function names recur across a code base: split each one once.
    return " ".join(words(name))
