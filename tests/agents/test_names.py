"""Names agents give: bare, qualified, module:qualname, node ids, tags; did-you-mean."""

from __future__ import annotations

import pytest

from sgkr import KnowledgeGraph, build_graph
from sgkr.agents.names import MAX_NAME_CHARS, NameTable
from sgkr.errors import InvalidArgumentError, NodeNotFoundError


@pytest.fixture(scope="module")
def names() -> NameTable:
    return NameTable.of(build_graph([
        ("pkg/sessions.py", "class Session:\n    def send(self):\n        return 1\n"
                            "    def request(self):\n        return self.send()\n"),
        ("pkg/adapters.py", "class Adapter:\n    def send(self):\n        return 2\n"),
        ("pkg/utils.py", "def get_environ_proxies(url):\n    return url\n")], infer_tags=False))


@pytest.mark.parametrize("name", [
    "request", "Session.request", "sessions.Session.request", "pkg.sessions.Session.request",
    "pkg.sessions:Session.request", "fn:pkg.sessions.Session.request", " Session.request() "])
def test_every_way_of_naming_a_function(names: NameTable, name: str) -> None:
    assert names.resolve(name) == ["fn:pkg.sessions.Session.request"]


def test_a_bare_name_may_stand_for_several_and_labels_tell_them_apart(names: NameTable) -> None:
    ids = names.resolve("send")
    assert ids == ["fn:pkg.adapters.Adapter.send", "fn:pkg.sessions.Session.send"]
    assert [names.label(i) for i in ids] == ["Adapter.send", "Session.send"]
    assert names.label("fn:pkg.utils.get_environ_proxies") == "get_environ_proxies"


@pytest.mark.parametrize(("name", "nearest"), [
    ("get_enviroment_proxies", "get_environ_proxies"), ("Sesion.request", "Session.request"),
    ("Adaptor.send", "Adapter.send")])
def test_a_misspelt_name_gets_the_nearest(names: NameTable, name: str, nearest: str) -> None:
    with pytest.raises(NodeNotFoundError, match=f"did you mean {nearest}"):
        names.resolve(name)


def test_nothing_near_offers_nothing(names: NameTable) -> None:
    with pytest.raises(NodeNotFoundError) as caught:
        names.resolve("zzzzqqqq")
    assert "did you mean" not in str(caught.value)


@pytest.mark.parametrize("name", ["", "   ", "x" * (MAX_NAME_CHARS + 1)])
def test_empty_and_huge_names_are_refused(names: NameTable, name: str) -> None:
    with pytest.raises(InvalidArgumentError):
        names.resolve(name)


def test_tags_by_label_or_alias_folded(payments_graph: KnowledgeGraph) -> None:
    names = NameTable.of(payments_graph)
    aliased = next(t for t in payments_graph.tags() if t.aliases)
    assert names.resolve(aliased.aliases[0].upper()) == [aliased.id]
    assert names.resolve(aliased.label.title()) == [aliased.id]
    assert names.label(aliased.id) == f"tag {aliased.label!r}"
