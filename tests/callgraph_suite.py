"""A micro-suite of small programs, by language feature, with the call graph each one has.

Written from Python's semantics (what runs when the program runs), in the categories
of PyCG's micro-benchmark. Nodes are SGKR's: ``main`` is the module's own code,
``main.f`` a function, ``main.C.m`` a method; a lambda is no node of its own (its
calls are its enclosing definition's). Edges are between the program's own
functions (builtins and the standard library left out); ``references`` edges count
as edges (a function used as a value depends on it as much as one calling it).
``missed`` holds the expected edges SGKR is known not to find, ``extra`` the edges it
is known to add that the run does not make: the suite's test asserts that exactly
``expected - missed | extra`` is found.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Program", "PROGRAMS"]


@dataclass(frozen=True)
class Program:
    """One program: its files, the edges its run makes, those SGKR misses."""

    category: str
    files: dict[str, str]
    expected: frozenset[tuple[str, str]]
    missed: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    extra: frozenset[tuple[str, str]] = field(default_factory=frozenset)


def _p(category: str, source: str, expected: set[tuple[str, str]],
       missed: set[tuple[str, str]] | None = None,
       extra: set[tuple[str, str]] | None = None, **more: str) -> Program:
    files = {"main.py": source, **{f"{k}.py": v for k, v in more.items()}}
    return Program(category, files, frozenset(expected), frozenset(missed or ()),
                   frozenset(extra or ()))


PROGRAMS: list[Program] = [
    # -- direct calls -------------------------------------------------------------------
    _p("direct_calls", "def a():\n    b()\ndef b():\n    pass\na()\n",
       {("main", "main.a"), ("main.a", "main.b")}),
    _p("direct_calls", "def outer():\n    def inner():\n        leaf()\n    inner()\n"
       "def leaf():\n    pass\nouter()\n",
       {("main", "main.outer"), ("main.outer", "main.outer.inner"),
        ("main.outer.inner", "main.leaf")}),
    _p("direct_calls", "def rec(n):\n    if n:\n        rec(n - 1)\nrec(3)\n",
       {("main", "main.rec"), ("main.rec", "main.rec")}),
    # -- assignments --------------------------------------------------------------------
    _p("assignments", "def f():\n    pass\ng = f\ng()\n", {("main", "main.f")}),
    _p("assignments", "def f():\n    pass\ndef g():\n    pass\na = b = f\nb()\n",
       {("main", "main.f")}),
    _p("assignments", "def f():\n    pass\ndef g():\n    pass\nx, y = f, g\nx()\ny()\n",
       {("main", "main.f"), ("main", "main.g")},
       missed={("main", "main.f"), ("main", "main.g")}),
    _p("assignments", "def f():\n    pass\ndef g():\n    pass\nfirst, *rest = [f, g]\n"
       "first()\n",
       {("main", "main.f"), ("main", "main.g")}),
    # -- functions ----------------------------------------------------------------------
    _p("functions", "def f():\n    pass\ndef g():\n    h = f\n    h()\ng()\n",
       {("main", "main.g"), ("main.g", "main.f")}),
    _p("functions", "def f():\n    pass\ndef g():\n    return f\ng()()\n",
       {("main", "main.g"), ("main", "main.f"), ("main.g", "main.f")},
       missed={("main", "main.f")}),
    # -- args / kwargs --------------------------------------------------------------------
    _p("args", "def apply(fn):\n    fn()\ndef f():\n    pass\napply(f)\n",
       {("main", "main.apply"), ("main.apply", "main.f")},
       missed={("main.apply", "main.f")}),
    _p("kwargs", "def apply(fn=None):\n    fn()\ndef f():\n    pass\napply(fn=f)\n",
       {("main", "main.apply"), ("main.apply", "main.f")},
       missed={("main.apply", "main.f")}),
    # -- returns ------------------------------------------------------------------------
    _p("returns", "class A:\n    def run(self):\n        pass\ndef make():\n    return A()\n"
       "a = make()\na.run()\n",
       {("main", "main.make"), ("main", "main.A.run")}),
    _p("returns", "def f():\n    pass\ndef pick():\n    g = f\n    return g\nh = pick()\nh()\n",
       {("main", "main.pick"), ("main", "main.f"), ("main.pick", "main.f")}),
    # -- classes ------------------------------------------------------------------------
    _p("classes", "class A:\n    def __init__(self):\n        self.x = 1\n"
       "    def m(self):\n        self.n()\n    def n(self):\n        pass\na = A()\na.m()\n",
       {("main", "main.A.__init__"), ("main", "main.A.m"), ("main.A.m", "main.A.n")}),
    _p("classes", "class Tok:\n    def next(self):\n        pass\nclass P:\n"
       "    def __init__(self):\n        self.tok = Tok()\n    def run(self):\n"
       "        self.tok.next()\nP().run()\n",
       {("main", "main.P.__init__"), ("main", "main.P.run"), ("main.P.run", "main.Tok.next")},
       missed={("main", "main.P.run")}),
    _p("classes", "class A:\n    @staticmethod\n    def s():\n        pass\n"
       "    @classmethod\n    def c(cls):\n        cls.s()\nA.c()\n",
       {("main", "main.A.c"), ("main.A.c", "main.A.s")}),
    _p("classes", "class A:\n    def __call__(self):\n        pass\na = A()\na()\n",
       {("main", "main.A.__call__")}, missed={("main", "main.A.__call__")}),
    # -- mro ----------------------------------------------------------------------------
    _p("mro", "class A:\n    def m(self):\n        pass\nclass B(A):\n    pass\nB().m()\n",
       {("main", "main.A.m")}),
    _p("mro", "class A:\n    def m(self):\n        pass\nclass B(A):\n    def m(self):\n"
       "        super().m()\nb = B()\nb.m()\n",
       {("main", "main.B.m"), ("main.B.m", "main.A.m")}),
    _p("mro", "class A:\n    def m(self):\n        pass\nclass B:\n    def m(self):\n"
       "        pass\nclass C(B, A):\n    pass\nc = C()\nc.m()\n",
       {("main", "main.B.m")}),
    _p("mro", "class Base:\n    def run(self):\n        self.step()\n    def step(self):\n"
       "        pass\nclass Job(Base):\n    def step(self):\n        pass\nj = Job()\nj.run()\n",
       {("main", "main.Base.run"), ("main.Base.run", "main.Job.step")},
       missed={("main.Base.run", "main.Job.step")},
       extra={("main.Base.run", "main.Base.step")}),
    # -- dicts and lists ----------------------------------------------------------------
    _p("dicts", "def f():\n    pass\ndef g():\n    pass\nd = {'a': f, 'b': g}\nd['a']()\n",
       {("main", "main.f"), ("main", "main.g")}),
    _p("dicts", "def f():\n    pass\nd = {}\nd['k'] = f\nd['k']()\n",
       {("main", "main.f")}),
    _p("dicts", "def f():\n    pass\nd = {'a': f}\nd.get('a')()\n",
       {("main", "main.f")}),
    _p("lists", "def f():\n    pass\ndef g():\n    pass\nfs = [f, g]\nfs[1]()\n",
       {("main", "main.f"), ("main", "main.g")}),
    _p("lists", "def f():\n    pass\ndef g():\n    pass\nfor fn in [f, g]:\n    fn()\n",
       {("main", "main.f"), ("main", "main.g")}),
    # -- decorators ---------------------------------------------------------------------
    _p("decorators", "def dec(fn):\n    return fn\n@dec\ndef f():\n    pass\nf()\n",
       {("main", "main.dec"), ("main", "main.f")}),
    _p("decorators", "def dec(fn):\n    def wrapper():\n        fn()\n    return wrapper\n"
       "@dec\ndef f():\n    pass\nf()\n",
       {("main", "main.dec"), ("main", "main.dec.wrapper"), ("main.dec.wrapper", "main.f"),
        ("main.dec", "main.dec.wrapper")},
       missed={("main", "main.dec.wrapper"), ("main.dec.wrapper", "main.f")},
       extra={("main", "main.f")}),
    # -- lambdas ------------------------------------------------------------------------
    _p("lambdas", "def f(x):\n    return x\ng = lambda y: f(y)\ng(1)\n",
       {("main", "main.f")}),
    # -- generators ---------------------------------------------------------------------
    _p("generators", "def f():\n    pass\ndef gen():\n    yield f\nfor fn in gen():\n    fn()\n",
       {("main", "main.gen"), ("main", "main.f"), ("main.gen", "main.f")},
       missed={("main", "main.f"), ("main.gen", "main.f")}),
    # -- exceptions ---------------------------------------------------------------------
    _p("exceptions", "class MyError(Exception):\n    def __init__(self):\n        pass\n"
       "def f():\n    raise MyError()\ntry:\n    f()\nexcept MyError:\n    pass\n",
       {("main", "main.f"), ("main.f", "main.MyError.__init__")}),
    # -- builtins -----------------------------------------------------------------------
    _p("builtins", "def f(x):\n    return x\nys = list(map(f, [1, 2]))\n",
       {("main", "main.f")}),
    _p("builtins", "def key(x):\n    return x\nys = sorted([2, 1], key=key)\n",
       {("main", "main.key")}),
    # -- imports ------------------------------------------------------------------------
    _p("imports", "import lib\nlib.f()\n", {("main", "lib.f")},
       lib="def f():\n    pass\n"),
    _p("imports", "from lib import f as g\ng()\n", {("main", "lib.f")},
       lib="def f():\n    pass\n"),
    _p("imports", "from lib import make\nx = make()\nx.run()\n",
       {("main", "lib.make"), ("main", "lib.A.run")},
       lib="class A:\n    def run(self):\n        pass\ndef make():\n    return A()\n"),
]
