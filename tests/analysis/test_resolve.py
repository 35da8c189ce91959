"""Call extraction, table-driven: source files in, expected call edges out."""

from __future__ import annotations

import pytest

from sgkr.analysis.resolve import CallResolver, resolve_calls
from sgkr.ingest.extract import extract_module

CASES = {
    "plain call in the same module": (
        {"m.py": "def f():\n    g()\n\ndef g():\n    pass\n"},
        {("m.f", "m.g", "exact")},
    ),
    "same-name functions in two modules stay apart": (
        {"a.py": "def f():\n    helper()\n\ndef helper():\n    pass\n",
         "b.py": "def g():\n    helper()\n\ndef helper():\n    return 2\n"},
        {("a.f", "a.helper", "exact"), ("b.g", "b.helper", "exact")},
    ),
    "self method": (
        {"m.py": "class A:\n    def f(self):\n        self.g()\n    def g(self):\n        pass\n"},
        {("m.A.f", "m.A.g", "exact")},
    ),
    "cls method": (
        {"m.py": "class A:\n    @classmethod\n    def f(cls):\n        cls.g()\n"
                 "    @classmethod\n    def g(cls):\n        pass\n"},
        {("m.A.f", "m.A.g", "exact")},
    ),
    "self method of a base class in another module": (
        {"base.py": "class Base:\n    def g(self):\n        pass\n",
         "m.py": "from base import Base\nclass A(Base):\n    def f(self):\n        self.g()\n"},
        {("m.A.f", "base.Base.g", "exact")},
    ),
    "super call": (
        {"m.py": "class B:\n    def f(self):\n        pass\n"
                 "class A(B):\n    def f(self):\n        super().f()\n"},
        {("m.A.f", "m.B.f", "exact")},
    ),
    "import module as alias": (
        {"pkg/__init__.py": "", "pkg/mod.py": "def f():\n    pass\n",
         "main.py": "import pkg.mod as m\ndef run():\n    m.f()\n"},
        {("main.run", "pkg.mod.f", "exact")},
    ),
    "import dotted module": (
        {"pkg/mod.py": "def f():\n    pass\n",
         "main.py": "import pkg.mod\ndef run():\n    pkg.mod.f()\n"},
        {("main.run", "pkg.mod.f", "exact")},
    ),
    "from import with alias": (
        {"pkg/mod.py": "def f():\n    pass\n",
         "main.py": "from pkg.mod import f as g\ndef run():\n    g()\n"},
        {("main.run", "pkg.mod.f", "exact")},
    ),
    "relative import": (
        {"pkg/util.py": "def f():\n    pass\n",
         "pkg/main.py": "from .util import f\ndef run():\n    f()\n"},
        {("pkg.main.run", "pkg.util.f", "exact")},
    ),
    "relative import from a package __init__": (
        {"pkg/util.py": "def f():\n    pass\n",
         "pkg/__init__.py": "from .util import f\ndef run():\n    f()\n"},
        {("pkg.run", "pkg.util.f", "exact")},
    ),
    "parent-relative import": (
        {"pkg/util.py": "def f():\n    pass\n",
         "pkg/sub/main.py": "from ..util import f\ndef run():\n    f()\n"},
        {("pkg.sub.main.run", "pkg.util.f", "exact")},
    ),
    "re-export through a package": (
        {"pkg/util.py": "def f():\n    pass\n",
         "pkg/__init__.py": "from .util import f\n",
         "main.py": "from pkg import f\ndef run():\n    f()\n"},
        {("main.run", "pkg.util.f", "exact")},
    ),
    "import inside a function": (
        {"lib.py": "def f():\n    pass\n",
         "main.py": "def run():\n    from lib import f\n    f()\n"},
        {("main.run", "lib.f", "exact")},
    ),
    "class instantiation calls __init__": (
        {"m.py": "class A:\n    def __init__(self):\n        pass\n"
                 "def make():\n    return A()\n"},
        {("m.make", "m.A.__init__", "exact")},
    ),
    "class without __init__ in the sources is not an edge": (
        {"m.py": "class A:\n    pass\ndef make():\n    return A()\n"},
        set(),
    ),
    "inherited __init__": (
        {"m.py": "class B:\n    def __init__(self):\n        pass\n"
                 "class A(B):\n    pass\ndef make():\n    return A()\n"},
        {("m.make", "m.B.__init__", "exact")},
    ),
    "nested function": (
        {"m.py": "def outer():\n    def inner():\n        pass\n    inner()\n"},
        {("m.outer", "m.outer.inner", "exact")},
    ),
    "async and decorated functions": (
        {"m.py": "import functools\n@functools.cache\nasync def f():\n    await g()\n"
                 "@staticmethod\ndef g():\n    pass\n"},
        {("m.f", "m.g", "exact")},
    ),
    "module body calls": (
        {"script.py": "def f():\n    pass\n\nresult = f()\nprint(result)\n"},
        {("script", "script.f", "exact")},
    ),
    "builtins and stdlib are not nodes": (
        {"m.py": "import os\nimport json as j\ndef f(x):\n    print(len(x))\n"
                 "    os.path.join('a')\n    j.dumps(x)\n"},
        set(),
    ),
    "external package shadowing a source name is not resolved to it": (
        {"m.py": "from pandas import merge\ndef f():\n    merge()\n",
         "other.py": "def merge():\n    pass\n"},
        set(),
    ),
    "bare name only: a call nothing imports": (
        {"a.py": "from b import *\ndef f():\n    helper()\n",
         "c.py": "def helper():\n    pass\n"},
        {("a.f", "c.helper", "name")},
    ),
    "wildcard import resolved exactly": (
        {"a.py": "from b import *\ndef f():\n    helper()\n", "b.py": "def helper():\n    pass\n"},
        {("a.f", "b.helper", "exact")},
    ),
    "method on an unknown receiver by unique name": (
        {"m.py": "class Rules:\n    def match_fee_rule(self):\n        pass\n"
                 "def f(r):\n    r.match_fee_rule()\n"},
        {("m.f", "m.Rules.match_fee_rule", "name")},
    ),
    "common method names on unknown receivers are not guessed": (
        {"m.py": "class Box:\n    def append(self, x):\n        pass\n"
                 "def f(items):\n    items.append(1)\n"},
        set(),
    ),
    "recursion": (
        {"m.py": "def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n"},
        {("m.fact", "m.fact", "exact")},
    ),
    "mutual recursion": (
        {"m.py": "def even(n):\n    return n == 0 or odd(n - 1)\n"
                 "def odd(n):\n    return n != 0 and even(n - 1)\n"},
        {("m.even", "m.odd", "exact"), ("m.odd", "m.even", "exact")},
    ),
    "Class.method call": (
        {"m.py": "class A:\n    @staticmethod\n    def s():\n        pass\n"
                 "def f():\n    A.s()\n"},
        {("m.f", "m.A.s", "exact")},
    ),
}


@pytest.mark.parametrize("files,expected", list(CASES.values()), ids=list(CASES))
def test_call_edges(files: dict[str, str], expected: set[tuple[str, str, str]]) -> None:
    modules = [extract_module(path, text) for path, text in sorted(files.items())]
    assert set(resolve_calls(modules)) == expected


def test_exact_wins_over_name() -> None:
    modules = [extract_module("m.py", "def f(o):\n    g()\n    o.g()\n\ndef g():\n    pass\n")]
    assert resolve_calls(modules) == [("m.f", "m.g", "exact")]


def test_nested_definitions_and_local_imports_shadow_module_names() -> None:
    source = ("import os\ndef g():\n    pass\n"
              "def f():\n    def g():\n        pass\n    g()\n"
              "def h():\n    from os import path as g\n    g()\n    os.getcwd()\n"
              "def k():\n    g()\n")
    assert resolve_calls([extract_module("m.py", source)]) == [
        ("m.f", "m.f.g", "exact"), ("m.k", "m.g", "exact")]


# The resolver keeps answers read off its tables (names, look-ups, methods, bases):
# after a replace they must be those of a resolver made afresh.
REPLACED = {
    "a method moved to the base class": (
        "class A(B):\n    def run(self):\n        self.step()\n    def step(self):\n        pass\n",
        "class A(B):\n    def run(self):\n        self.step()\n"),
    "a function renamed": ("def g():\n    pass\n", "def g2():\n    pass\n"),
    "a base class changed": ("class A(B):\n    def run(self):\n        self.step()\n",
                             "class A(C):\n    def run(self):\n        self.step()\n"),
}
BASES = ("class B:\n    def step(self):\n        pass\n"
         "class C:\n    def step(self):\n        pass\n")


@pytest.mark.parametrize("before,after", list(REPLACED.values()), ids=list(REPLACED))
def test_answers_after_a_replace_are_those_of_a_fresh_resolver(before: str, after: str) -> None:
    caller = extract_module("main.py", "from mod import *\nimport mod\n"
                                       "def use():\n    g()\n    mod.g()\n    A().run()\n")
    bases = extract_module("bases.py", BASES)
    old = extract_module("mod.py", "from bases import B, C\n" + before)
    new = extract_module("mod.py", "from bases import B, C\n" + after)
    resolver = CallResolver([bases, caller, old])
    resolver.resolve_modules([bases, caller, old])
    assert resolver.replace([old], [new])
    modules = [bases, caller, new]
    assert resolver.resolve_modules(modules) == CallResolver(modules).resolve_modules(modules)
