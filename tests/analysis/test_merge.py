"""Merge policies: copies of a helper merge; unrelated same-name methods do not."""

from __future__ import annotations

import pytest

from sgkr.analysis.merge import merge_groups
from sgkr.errors import InvalidArgumentError
from sgkr.ingest.extract import extract_module
from sgkr.records import Definition, SourceSpan

HELPER = "def load_fees():\n    with open('fees.json') as f:\n        return json.load(f)\n"
FILES = {
    "solutions/a.py": HELPER + "def main():\n    return load_fees()\n",
    "solutions/b.py": "# a copy with a comment\n" + HELPER.replace("f:", "f:  # read") +
                      "def main():\n    print(len(load_fees()))\n",
    "lib/x.py": "class Reader:\n    def __init__(self, path):\n        self.path = path\n"
                "    def run(self):\n        return open(self.path).read()\n",
    "lib/y.py": "class Server:\n    def __init__(self, port):\n        self.port = port\n"
                "        self.clients = []\n    def run(self):\n        self.loop.forever()\n",
}


def _groups(policy: str) -> dict[str, list[str]]:
    definitions = [d for path, text in sorted(FILES.items())
                   for d in extract_module(path, text).definitions if d.kind != "module"]
    return {node_id: [d.qualname for d in members]
            for node_id, members in merge_groups(definitions, policy)}


def test_auto_merges_helper_copies_only() -> None:
    groups = _groups("auto")
    assert groups["fn:load_fees"] == ["solutions.a.load_fees", "solutions.b.load_fees"]
    assert "fn:lib.x.Reader.__init__" in groups and "fn:lib.y.Server.__init__" in groups
    assert "fn:lib.x.Reader.run" in groups and "fn:lib.y.Server.run" in groups
    assert "fn:solutions.a.main" in groups and "fn:solutions.b.main" in groups


def test_name_merges_every_same_name() -> None:
    groups = _groups("name")
    assert groups["fn:__init__"] == ["lib.x.Reader.__init__", "lib.y.Server.__init__"]
    assert groups["fn:main"] == ["solutions.a.main", "solutions.b.main"]


def test_qualname_and_none_keep_definitions_apart() -> None:
    for policy in ("qualname", "none"):
        groups = _groups(policy)
        assert all(len(members) == 1 for members in groups.values())
        assert len(groups) == 8


def test_unknown_policy() -> None:
    with pytest.raises(InvalidArgumentError, match="'fuzzy'"):
        merge_groups([], "fuzzy")


def test_copies_differing_only_in_white_space_are_one_node() -> None:
    spaced = ("def total(rows):\n    return  sum(\n        rows)\n",
              "def total(rows):\n\treturn sum(\x0c rows)   \n",
              "def total(rows):\n    return sum(\u00a0rows)\n")
    definitions = [d for i, text in enumerate(spaced)
                   for d in extract_module(f"s{i}.py", text).definitions]
    groups = merge_groups(definitions, "auto")
    assert [[d.qualname for d in members] for _, members in groups] == [
        ["s0.total", "s1.total", "s2.total"]]
    apart = [d for i, text in enumerate(("def run():\n    a = 1\n", "def run():\n    b = 2\n"))
             for d in extract_module(f"r{i}.py", text).definitions]
    assert [node_id for node_id, _ in merge_groups(apart, "auto")] == ["fn:r0.run", "fn:r1.run"]


def test_a_subset_at_the_similarity_threshold_exactly_merges() -> None:
    # 12 of 15 identifiers shared: Jaccard 0.8 exactly. Pairs too different in size are
    # not compared token by token; this one is at the bound and still merges.
    words = [f"t{i}" for i in range(15)]
    defs = [Definition(f"{m}.fee", "fee", "function", code, SourceSpan(m, 1, 2))
            for m, code in (("a", " ".join(words[:12])), ("b", " ".join(words)),
                            ("c", " ".join(words[:11] + ["u1", "u2", "u3"])))]
    groups = merge_groups(defs, "auto")
    assert [[d.qualname for d in g] for _, g in groups] == [["a.fee", "b.fee"], ["c.fee"]]
