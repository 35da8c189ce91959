"""Names an agent gives for functions and tags: what they stand for, how to show a node.

An agent names a function as it would in code: bare (``send``), qualified
(``requests.sessions.Session.send``, ``Session.send``, or ``requests.sessions:Session.send``)
or by node id (``fn:requests.sessions.Session.send``); a tag by its label or an alias,
case and plural folded. :class:`NameTable` finds the nodes a name stands for, offers the
nearest names when none does (fuzzy matching by `rapidfuzz`), and shows each node by the
shortest name that is its alone, so that what an answer shows can be passed back.

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("a.py", "def run():\\n    return 1\\n"),
...                  ("b.py", "def run():\\n    return 2\\ndef fee():\\n    return run()\\n")],
...                 infer_tags=False)
>>> names = NameTable.of(g)
>>> names.resolve("run"), names.resolve("b:run")
(['fn:a.run', 'fn:b.run'], ['fn:b.run'])
>>> names.label("fn:b.run"), names.label("fn:b.fee")
('b.run', 'fee')
>>> names.resolve("fe")
Traceback (most recent call last):
...
sgkr.errors.NodeNotFoundError: no function or tag named 'fe' in the graph; did you mean fee?
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import InvalidArgumentError, NodeNotFoundError
from ..graph.model import KnowledgeGraph, tag_id
from ..stores import NamesReader, listed_phrases
from ..text import fold

__all__ = ["NameTable", "Named", "MAX_NAME_CHARS"]

#: Longest name looked up (a name is an identifier path, not a text).
MAX_NAME_CHARS = 1_000
_SUGGESTIONS = 5
_SCORE_CUTOFF = 70.0


@dataclass(frozen=True)
class Named:
    """A node as names see it: a function (``label`` None) or a tag (its label, aliases)."""

    id: str
    name: str
    qualnames: tuple[str, ...] = ()
    label: str | None = None
    aliases: tuple[str, ...] = ()


class NameTable:
    """The names of a graph's functions and tags, read once (see the module docs).

    Parameters
    ----------
    nodes
        Every function and tag of the graph, as :class:`Named` records.
    """

    def __init__(self, nodes: Iterable[Named]) -> None:
        self._by_suffix: dict[str, list[str]] = defaultdict(list)
        self._tags: dict[str, list[str]] = defaultdict(list)
        self._nodes: dict[str, Named] = {}
        for node in nodes:
            self._nodes[node.id] = node
            # Each name of a node once, without a look into the lists: thousands of
            # nodes may share one (an alias, a method name), and that look was quadratic.
            if node.label is not None:
                for key in dict.fromkeys(tag_id(p) for p in (node.label, *node.aliases)
                                         if fold(p)):
                    self._tags[key].append(node.id)
                continue
            for suffix in dict.fromkeys(_suffixes(node)):
                self._by_suffix[suffix].append(node.id)
        self._choices: list[str] | None = None
        self._owners: list[list[str]] = []

    @classmethod
    def of(cls, graph: KnowledgeGraph) -> NameTable:
        """The table of ``graph``'s functions and tags."""
        functions = (Named(f.id, f.name, f.qualnames) for f in graph.functions())
        tags = (Named(t.id, t.label, label=t.label, aliases=t.aliases) for t in graph.tags())
        return cls([*functions, *tags])

    @classmethod
    def of_reader(cls, reader: NamesReader) -> NameTable:
        """The table of a graph store's functions and tags (a few queries, each linear)."""
        functions = [Named(i, name, qualnames) for i, name, qualnames in reader.function_names()]
        phrases: dict[str, tuple[str, list[str]]] = {}
        for phrase, tags in (listed_phrases(reader) or {}).items():
            for tag in tags:
                phrases.setdefault(tag.id, (tag.label, []))[1].append(phrase)
        functions += [Named(i, label, label=label, aliases=tuple(spelt))
                      for i, (label, spelt) in sorted(phrases.items())]
        return cls(functions)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def is_tag(self, node_id: str) -> bool:
        """Whether ``node_id`` is a tag of the table."""
        node = self._nodes.get(node_id)
        return node is not None and node.label is not None

    def resolve(self, name: str) -> list[str]:
        """The node ids ``name`` stands for, sorted; a bare name may stand for several.

        Raises
        ------
        InvalidArgumentError
            If ``name`` is empty or longer than :data:`MAX_NAME_CHARS`.
        NodeNotFoundError
            If nothing has that name; the message offers the nearest names.
        """
        if not isinstance(name, str) or not name.strip():
            raise InvalidArgumentError("a function or tag name is needed, got an empty one")
        if len(name) > MAX_NAME_CHARS:
            raise InvalidArgumentError(
                f"a function or tag name has at most {MAX_NAME_CHARS} characters, "
                f"got {len(name)}")
        name = name.strip()
        if name in self._nodes:
            return [name]
        dotted = name.removesuffix("()").replace(":", ".")
        found = self._by_suffix.get(dotted) or (self._tags.get(tag_id(name)) if fold(name)
                                                else None)
        if found:
            return sorted(found)
        hint = self.suggest(name)
        raise NodeNotFoundError(f"no function or tag named {name!r} in the graph"
                                + (f"; did you mean {_either(hint)}?" if hint else ""))

    def label(self, node_id: str) -> str:
        """How answers show a node: a function by the shortest dotted tail of a qualified
        name that names it alone, a tag as ``tag 'label'``."""
        node = self._nodes.get(node_id)
        if node is None:  # a node of a newer version of a store's graph
            return node_id
        if node.label is not None:
            return f"tag {node.label!r}"
        for qualname in node.qualnames[:1]:
            parts = qualname.split(".")
            for start in range(len(parts) - 1, -1, -1):
                tail = ".".join(parts[start:])
                if self._by_suffix.get(tail) == [node_id]:
                    return tail
        return node.name if self._by_suffix.get(node.name) == [node_id] else node_id

    def suggest(self, name: str, limit: int = _SUGGESTIONS) -> list[str]:
        """The labels of the nodes whose names are nearest to ``name``, best first."""
        if self._choices is None:
            spelled = {suffix: list(ids) for suffix, ids in self._by_suffix.items()}
            for phrase, ids in self._tags.items():
                for node_id in ids:
                    for text in (self._nodes[node_id].label, *self._nodes[node_id].aliases):
                        spelled.setdefault(text or phrase, []).append(node_id)
            self._choices = list(spelled)
            self._owners = [spelled[text] for text in self._choices]
        from rapidfuzz import fuzz, process  # here: only a misspelt name needs it

        hits = process.extract(name, self._choices, scorer=fuzz.ratio, processor=str.lower,
                               limit=limit * 4, score_cutoff=_SCORE_CUTOFF)
        shown: dict[str, str] = {}  # node id -> the name offered: as spelt, if it is its alone
        for text, _, index in hits:
            for node_id in self._owners[index]:
                alone = self._by_suffix.get(text) == [node_id]
                shown.setdefault(node_id, text if alone else self.label(node_id))
        return list(shown.values())[:limit]


def _suffixes(node: Named) -> Iterable[str]:
    """The bare name and every dotted tail of each qualified name."""
    yield node.name
    for qualname in node.qualnames:
        parts = qualname.split(".")
        for start in range(len(parts)):
            yield ".".join(parts[start:])


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
