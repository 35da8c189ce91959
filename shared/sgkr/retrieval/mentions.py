"""Names of code a question mentions, matched exactly against the graph's functions.

A bug report or a question about code often names what it is about:
``Dataset.chunks``, ```get_chunksizes```, ``prepare_url(``, a traceback's
``in merge_setting``. Each word or dotted chain of the question that reads as
code (in backticks or a code block, dotted, followed by ``(``, or an identifier
with an underscore or a capital inside: ``snake_case``, ``camelCase``,
``CamelCase``) names what follows. Text a reader does not see as code is not
read: HTML comments (an issue template's hidden instructions), web addresses,
and shell command lines (``$ cd docs``, ``$ python -m venv env``: programs,
files and options, not the project's functions); nor is a word that starts
inside another (``325ndteh.log``). A chain names:

- when it has two parts or more, the functions whose qualified name ends with it
  (``Dataset.chunks``; of ``xr.Dataset.chunks``, the longest tail that ends some
  qualified name), or else, when its head is a package or module, that package's
  module-level functions of its last name (``requests.get`` is ``requests.api.get``,
  not ``Session.get``);
- otherwise, the functions whose bare name is the chain's last part: a dotted name
  that resolves does not name its namesakes.

A name shared by ``n`` functions gives each of them ``1 / n`` (``__init__``
and ``get`` say little, ``get_chunksizes`` much), each name counted once;
a function's mention score is the sum over the names that reach it.

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("m.py", "def get_chunksizes(v):\\n    return v\\n"
...                           "class Dataset:\\n    def chunks(self):\\n        return 1\\n")])
>>> mentions("Accessing `Dataset.chunks` calls get_chunksizes() on every variable", g)
{'fn:m.Dataset.chunks': 1.0, 'fn:m.get_chunksizes': 1.0}
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Protocol, runtime_checkable

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..ingest.sources import module_name
from ..records import FunctionNode
from ..stores import GraphReader, as_reader

__all__ = ["mentions", "code_names", "NamedReader"]

_CHAIN = re.compile(r"(?<!\w)[^\W\d]\w*(?:\.[^\W\d]\w*)*")
#: Not read as code: HTML comments, web addresses, shell command lines (a prompt first).
_UNSEEN = re.compile(r"<!--.*?(?:-->|\Z)|\b[A-Za-z][A-Za-z0-9+.-]{0,15}://[^\s<>()\[\]`'\"]*"
                     r"|^[ \t]*(?:\$|\u276f+)[ \t][^\n]*", re.S | re.M)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_TICKS = re.compile(r"`[^`\n]+`")
_INNER_CAPITAL = re.compile(r"[a-z0-9][A-Z]|^[A-Z][a-z0-9]+[A-Z]")
#: Most names of one question looked up (a pasted log can hold thousands).
MAX_NAMES = 512


@runtime_checkable
class NamedReader(Protocol):
    """A reader that finds function nodes by their bare name (both stores offer it)."""

    def named(self, names: Collection[str]) -> dict[str, list[str]]:
        """The ids of the function nodes (module bodies aside) of each bare name, sorted."""
        ...


def code_names(question: str) -> list[tuple[str, ...]]:
    """The dotted chains of ``question`` that read as code, each once, in order.

    Examples
    --------
    >>> code_names("Use `get` on my_dict, then call DataArray.loc[...] or run() here")
    [('get',), ('my_dict',), ('DataArray', 'loc'), ('run',)]
    """
    if not isinstance(question, str):
        raise InvalidArgumentError(f"question must be a string, got {type(question).__name__}")
    question = _UNSEEN.sub(lambda m: " " * len(m.group()), question)
    quoted = [m.span() for m in _FENCE.finditer(question)]
    rest = _FENCE.sub(lambda m: " " * len(m.group()), question)
    quoted += [m.span() for m in _TICKS.finditer(rest)]
    found: dict[tuple[str, ...], None] = {}
    for match in _CHAIN.finditer(question):
        parts = tuple(match.group().split("."))
        code = (len(parts) > 1 or question[match.end():match.end() + 1] == "("
                or any("_" in p.strip("_") or p.startswith("_") or _INNER_CAPITAL.search(p)
                       for p in parts)
                or any(a <= match.start() < b for a, b in quoted))
        if code:
            found.setdefault(parts)
    return list(found)[:MAX_NAMES]


def mentions(question: str, graph: KnowledgeGraph | GraphReader) -> dict[str, float]:
    """Each function the question names, with its mention score (see the module docs).

    Raises
    ------
    InvalidArgumentError
        If ``question`` is not a string, or ``graph`` neither a graph nor a reader.
    """
    reader = as_reader(graph)
    chains = code_names(question)
    if not chains or not isinstance(reader, NamedReader):  # one that cannot finds none
        return {}
    found: Mapping[str, Sequence[str]] = reader.named({c[-1] for c in chains})
    dotted = {n for c in chains if len(c) > 1 for n in found.get(c[-1], ())}
    records = reader.functions(dotted) if dotted else {}
    score: dict[str, float] = {}
    seen: set[tuple[str, ...]] = set()
    # No tail longer than the longest qualified name can name one: the tails tried are
    # bounded by the graph, not by the question (a chain of 50,000 parts is one question).
    longest = max((q.count(".") + 1 for r in records.values() for q in r.qualnames), default=1)
    for chain in chains:
        ids = found.get(chain[-1], ())
        key, named = _resolved(chain, ids, records, longest) or (chain[-1:], ids)
        _add(score, named, key, seen)
    return score


def _resolved(chain: tuple[str, ...], ids: Sequence[str], records: Mapping[str, FunctionNode],
              longest: int) -> tuple[tuple[str, ...], list[str]] | None:
    """The functions a dotted ``chain`` names, and the name they are counted under: those
    whose qualified name ends with its longest tail that ends some (``Dataset.chunks``), or
    else, when its head is a package or module, that package's module-level functions of
    its last name (``requests.get`` is ``requests.api.get``, not ``Session.get``)."""
    for size in range(min(len(chain), longest), 1, -1):
        tail = chain[-size:]
        ends = [i for i in ids if i in records and _ends(records[i], tail)]
        if ends:
            return tail, ends
    head = ".".join(chain[:-1])
    inside = [i for i in ids if i in records and any(
        module == head or module.startswith(head + ".") for module in _homes(records[i]))]
    return (chain, inside) if inside and len(chain) > 1 else None


def _homes(node: FunctionNode) -> set[str]:
    """The modules ``node`` is defined at the top level of (none for a method)."""
    modules = {module_name(s.file) for s in node.sources}
    return {q.rpartition(".")[0] for q in node.qualnames} & modules \
        if node.kind == "function" else set()


def _add(score: dict[str, float], ids: Sequence[str], key: tuple[str, ...],
         seen: set[tuple[str, ...]]) -> None:
    """Give each of ``ids`` its share of the name ``key``, unless the name counted already."""
    if not ids or key in seen:
        return
    seen.add(key)
    for node_id in ids:
        score[node_id] = score.get(node_id, 0.0) + 1.0 / len(ids)


def _ends(node: FunctionNode, chain: tuple[str, ...]) -> bool:
    """Whether a qualified name of ``node`` ends with ``chain``, part by part."""
    return any(tuple(q.split("."))[-len(chain):] == chain for q in node.qualnames)
