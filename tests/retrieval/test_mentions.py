"""Names of code in a question, matched exactly against the graph's functions."""

from __future__ import annotations

import pytest

from sgkr import Retriever, build_graph
from sgkr.errors import InvalidArgumentError
from sgkr.graph.model import KnowledgeGraph
from sgkr.retrieval.mentions import code_names, mentions

CODE = {
    "xr/core/dataset.py": "class Dataset:\n    def chunks(self):\n"
                          "        return get_chunksizes(self)\n"
                          "    def __init__(self):\n        pass\n",
    "xr/core/common.py": "def get_chunksizes(variables):\n    return {}\n",
    "xr/core/array.py": "class DataArray:\n    def chunks(self):\n        return 1\n"
                        "    def __init__(self):\n        pass\n",
}


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return build_graph(list(CODE.items()))


@pytest.mark.parametrize(("question", "names"), [
    ("calls `get` then my_dict", [("get",), ("my_dict",)]),
    ("see Dataset.chunks and run()", [("Dataset", "chunks"), ("run",)]),
    ("a CamelCase name and a camelCase one", [("CamelCase",), ("camelCase",)]),
    ("```\nx = load(path)\n```", [("x",), ("load",), ("path",)]),
    ("plain words only, Nothing Here", []),
    ('File "xr/core/common.py", line 3, in get_chunksizes', [("common", "py"),
                                                              ("get_chunksizes",)]),
])
def test_what_reads_as_code(question: str, names: list[tuple[str, ...]]) -> None:
    assert code_names(question) == names


@pytest.mark.parametrize(("question", "names"), [
    # An issue template's hidden comment opens no code block: the prose after it stays
    # prose and the code block stays code.
    ("<!-- use triple backticks (```) around code -->\nIt fails badly.\n```\nrun(x)\n```",
     [("run",), ("x",)]),
    # A shell command line names programs, files and options, not functions.
    ("```\n$ cd docs\n$ python -m venv env\n\u276f\u276f\u276f mkdir out\nbuild(x)\n```",
     [("build",), ("x",)]),
    # A web address is not code.
    ("see https://github.com/org/some_repo.git#L4 for `log_it`", [("log_it",)]),
    # Nor is a word that starts inside another (a file name after digits).
    ("attached [err-325ndteh.log](x), `log_it` fails", [("log_it",)]),
])
def test_what_is_not_read_as_code(question: str, names: list[tuple[str, ...]]) -> None:
    assert code_names(question) == names


def test_a_dotted_name_finds_its_method_and_shares_are_split(graph: KnowledgeGraph) -> None:
    found = mentions("Accessing `Dataset.chunks` is slow", graph)
    # Dataset.chunks by its dotted name, not its namesake DataArray.chunks.
    assert found == {"fn:xr.core.dataset.Dataset.chunks": 1.0}
    # The bare name, shared by two methods, gives each half.
    assert mentions("Accessing `chunks` is slow", graph) == {
        "fn:xr.core.dataset.Dataset.chunks": 0.5, "fn:xr.core.array.DataArray.chunks": 0.5}
    # The longest tail that names something: xr.Dataset.chunks is Dataset.chunks.
    assert mentions("`xr.Dataset.chunks`", graph) == found


def test_each_name_counts_once(graph: KnowledgeGraph) -> None:
    once = mentions("get_chunksizes() is called", graph)
    assert once == {"fn:xr.core.common.get_chunksizes": 1.0}
    assert mentions("get_chunksizes() then get_chunksizes() again", graph) == once


def test_nothing_named(graph: KnowledgeGraph) -> None:
    assert mentions("why is it slow?", graph) == {}
    assert mentions("`unknown_function()`", graph) == {}
    with pytest.raises(InvalidArgumentError, match="question must be a string"):
        mentions(b"x", graph)  # type: ignore[arg-type]


SHARED = {
    "web/api.py": "def get(url, params=None):\n    return request('get', url, params)\n",
    "web/sessions.py": "class Session:\n    def get(self, url):\n        return self.send(url)\n",
    "web/cookies.py": "class CookieJar:\n    def get(self, name, default=None):\n"
                      "        return self.find(name) or default\n",
    "web/structures.py": "class LookupDict:\n    def get(self, key, default=None):\n"
                         "        return self.__dict__.get(key, default)\n",
    "web/adapters.py": "class Adapter:\n    def get(self, url):\n        return self.pool(url)\n",
    "web/models.py": "class Request:\n    def prepare_url(self, url):\n"
                     "        host = url.host\n"
                     "        try:\n            host = host.encode('idna')\n"
                     "        except UnicodeError:\n"
                     "            raise InvalidURL('invalid host label')\n"
                     "        return host\n",
}


def test_a_module_qualified_name_is_its_function_not_its_namesakes() -> None:
    """A report calling `web.get(...)` names the package's function `get`, not the four
    methods named `get`: they do not crowd out the function the report is about."""
    retriever = Retriever(build_graph(list(SHARED.items())))
    question = ("web.get('http://.example.com') raises UnicodeError: encoding the host "
                "with the idna codec fails (label empty) instead of InvalidURL")
    assert mentions(question, retriever.store.reader()) == {"fn:web.api.get": 1.0}
    ranked = [d.id for d in retriever.retrieve(question, 6).documents]
    methods = [n for n, i in enumerate(ranked) if i.endswith(".get") and i != "fn:web.api.get"]
    assert ranked.index("fn:web.models.Request.prepare_url") < min(methods)
    # A method named by its class is that method.
    named = question.replace("web.get", "Session.get")
    assert retriever.retrieve(named, 1).documents[0].id == "fn:web.sessions.Session.get"
