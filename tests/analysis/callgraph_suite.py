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


_FGH = "def f():\n    pass\ndef g():\n    pass\ndef h():\n    pass\n"
# The module's code using f, g and h as values (in a list or a tuple).
_MODULE_FGH = {("main", "main.f"), ("main", "main.g"), ("main", "main.h")}

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
       {("main", "main.f"), ("main", "main.g")}),
    _p("assignments", "def f():\n    pass\ndef g():\n    pass\nfirst, *rest = [f, g]\n"
       "first()\n",
       {("main", "main.f"), ("main", "main.g")}),
    # -- functions ----------------------------------------------------------------------
    _p("functions", "def f():\n    pass\ndef g():\n    h = f\n    h()\ng()\n",
       {("main", "main.g"), ("main.g", "main.f")}),
    _p("functions", "def f():\n    pass\ndef g():\n    return f\ng()()\n",
       {("main", "main.g"), ("main", "main.f"), ("main.g", "main.f")}),
    # -- args / kwargs --------------------------------------------------------------------
    _p("args", "def apply(fn):\n    fn()\ndef f():\n    pass\napply(f)\n",
       {("main", "main.apply"), ("main.apply", "main.f")}),
    _p("kwargs", "def apply(fn=None):\n    fn()\ndef f():\n    pass\napply(fn=f)\n",
       {("main", "main.apply"), ("main.apply", "main.f")}),
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
       {("main", "main.P.__init__"), ("main", "main.P.run"), ("main.P.run", "main.Tok.next")}),
    _p("classes", "class A:\n    @staticmethod\n    def s():\n        pass\n"
       "    @classmethod\n    def c(cls):\n        cls.s()\nA.c()\n",
       {("main", "main.A.c"), ("main.A.c", "main.A.s")}),
    _p("classes", "class A:\n    def __call__(self):\n        pass\na = A()\na()\n",
       {("main", "main.A.__call__")}),
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
       extra={("main.Base.run", "main.Base.step")}),  # Base.step is never run
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
        ("main.dec", "main.dec.wrapper")}),
    # -- lambdas ------------------------------------------------------------------------
    _p("lambdas", "def f(x):\n    return x\ng = lambda y: f(y)\ng(1)\n",
       {("main", "main.f")}),
    # -- generators ---------------------------------------------------------------------
    _p("generators", "def f():\n    pass\ndef gen():\n    yield f\nfor fn in gen():\n    fn()\n",
       {("main", "main.gen"), ("main", "main.f"), ("main.gen", "main.f")}),
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
    # -- added with the points-to inference: one feature per program ---------------------
    _p("args", "def apply(fn, x):\n    return fn(x)\ndef f(x):\n    return x\napply(f, 1)\n",
       {("main", "main.apply"), ("main.apply", "main.f")}),
    _p("args", "def run(cb):\n    cb()\ndef outer(cb):\n    run(cb)\ndef f():\n    pass\n"
       "outer(f)\n",
       {("main", "main.outer"), ("main.outer", "main.run"), ("main.run", "main.f")}),
    _p("args", "def call_all(*fns):\n    for fn in fns:\n        fn()\ndef f():\n    pass\n"
       "def g():\n    pass\ncall_all(f, g)\n",
       {("main", "main.call_all"), ("main.call_all", "main.f"), ("main.call_all", "main.g")}),
    _p("args", "class Runner:\n    def __init__(self, fn):\n        self.fn = fn\n"
       "    def run(self):\n        self.fn()\ndef f():\n    pass\nr = Runner(f)\nr.run()\n",
       {("main", "main.Runner.__init__"), ("main", "main.Runner.run"),
        ("main.Runner.run", "main.f")}),
    _p("args", "class A:\n    def call(self, fn):\n        fn()\ndef f():\n    pass\n"
       "A().call(f)\n",
       {("main", "main.A.call"), ("main.A.call", "main.f")}),
    _p("args", "def f():\n    pass\ndef g():\n    pass\ndef first(a, b):\n    a()\n"
       "first(f, g)\n",
       {("main", "main.first"), ("main.first", "main.f")}),
    _p("args", "def fn():\n    pass\ndef other():\n    pass\ndef apply(fn):\n    fn()\n"
       "apply(other)\n",
       {("main", "main.apply"), ("main.apply", "main.other")}),
    _p("kwargs", "def apply(x, fn=None):\n    return fn(x)\ndef f(x):\n    return x\n"
       "apply(1, fn=f)\n",
       {("main", "main.apply"), ("main.apply", "main.f")}),
    _p("kwargs", "def f():\n    pass\ndef apply(fn=f):\n    fn()\napply()\n",
       {("main", "main.apply"), ("main.apply", "main.f")}),
    _p("kwargs", "def apply(**kw):\n    kw['fn']()\ndef f():\n    pass\napply(fn=f)\n",
       {("main", "main.apply"), ("main.apply", "main.f")}),
    _p("kwargs", "def apply(a, b):\n    b()\ndef f():\n    pass\ndef g():\n    pass\n"
       "apply(b=g, a=f)\n",
       {("main", "main.apply"), ("main.apply", "main.g")}),
    _p("functions", "def f():\n    pass\ndef g():\n    return f\ndef h():\n    g()()\nh()\n",
       {("main", "main.h"), ("main.h", "main.g"), ("main.h", "main.f"), ("main.g", "main.f")}),
    _p("functions", "def make():\n    def inner():\n        leaf()\n    return inner\n"
       "def leaf():\n    pass\nfn = make()\nfn()\n",
       {("main", "main.make"), ("main", "main.make.inner"), ("main.make", "main.make.inner"),
        ("main.make.inner", "main.leaf")}),
    _p("assignments", "def f():\n    pass\ndef run():\n    a = b = f\n    a()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.f")}),
    _p("assignments", "def f():\n    pass\ndef g():\n    pass\ndef run():\n    x, y = f, g\n"
       "    y()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.g"), ("main.run", "main.f")}),
    _p("assignments", "def f():\n    pass\ndef g():\n    pass\ndef h():\n    pass\n"
       "def run():\n    first, *rest = f, g, h\n    for fn in rest:\n        fn()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.g"), ("main.run", "main.h"),
        ("main.run", "main.f")}),
    _p("assignments", "def f():\n    pass\ndef g():\n    pass\ndef pair():\n    return f, g\n"
       "def run():\n    a, b = pair()\n    b()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.pair"), ("main.pair", "main.f"),
        ("main.pair", "main.g"), ("main.run", "main.g")},
       extra={("main.run", "main.f")}),  # the items of a returned tuple are not told apart
    _p("dicts", "def f():\n    pass\ndef g():\n    pass\nHANDLERS = {'f': f, 'g': g}\n"
       "def run(name):\n    HANDLERS[name]()\nrun('f')\nrun('g')\n",
       {("main", "main.run"), ("main", "main.f"), ("main", "main.g"), ("main.run", "main.f"),
        ("main.run", "main.g")}),
    _p("dicts", "def f():\n    pass\nT = {'k': f}\ndef dispatch(table, key):\n"
       "    table.get(key)()\ndispatch(T, 'k')\n",
       {("main", "main.dispatch"), ("main", "main.f"), ("main.dispatch", "main.f")}),
    _p("dicts", "class Reg:\n    def __init__(self):\n        self.table = {}\n"
       "    def add(self, k, fn):\n        self.table[k] = fn\n    def call(self, k):\n"
       "        self.table[k]()\ndef f():\n    pass\nr = Reg()\nr.add('k', f)\nr.call('k')\n",
       {("main", "main.Reg.__init__"), ("main", "main.Reg.add"), ("main", "main.Reg.call"),
        ("main.Reg.call", "main.f")}),
    _p("dicts", "def f():\n    pass\ndef run():\n    d = dict(a=f)\n    for k, fn in d.items():\n"
       "        fn()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.f")}),
    _p("lists", "def f():\n    pass\ndef run():\n    fs = []\n    fs.append(f)\n"
       "    for fn in fs:\n        fn()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.f")}),
    _p("lists", "def f():\n    pass\ndef g():\n    pass\ndef fns():\n    return [f, g]\n"
       "def run():\n    for fn in fns():\n        fn()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.fns"), ("main.fns", "main.f"),
        ("main.fns", "main.g"), ("main.run", "main.f"), ("main.run", "main.g")}),
    _p("lists", "def f():\n    pass\ndef run(fs):\n    fs[0]()\nrun([f])\n",
       {("main", "main.run"), ("main", "main.f"), ("main.run", "main.f")}),
    _p("generators", "def f():\n    pass\ndef gen():\n    yield f\ndef run():\n    it = gen()\n"
       "    fn = next(it)\n    fn()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.gen"), ("main.gen", "main.f"),
        ("main.run", "main.f")}),
    _p("generators", "class A:\n    def go(self):\n        pass\ndef gen():\n    yield A()\n"
       "for a in gen():\n    a.go()\n",
       {("main", "main.gen"), ("main", "main.A.go")}),
    _p("generators", "def f():\n    pass\ndef inner():\n    yield f\ndef outer():\n"
       "    yield from inner()\nfor fn in outer():\n    fn()\n",
       {("main", "main.outer"), ("main.outer", "main.inner"), ("main.inner", "main.f"),
        ("main", "main.f")}),
    _p("decorators", "def dec(fn):\n    def wrapper(*a):\n        return fn(*a)\n"
       "    return wrapper\nclass A:\n    @dec\n    def m(self):\n        pass\nA().m()\n",
       {("main", "main.dec"), ("main", "main.dec.wrapper"), ("main.dec", "main.dec.wrapper"),
        ("main.dec.wrapper", "main.A.m")}),
    _p("decorators", "import functools\ndef logged(fn):\n    @functools.wraps(fn)\n"
       "    def wrapper():\n        return fn()\n    return wrapper\n@logged\ndef f():\n"
       "    pass\n@logged\ndef g():\n    pass\ndef run():\n    f()\nrun()\n",
       {("main", "main.logged"), ("main", "main.run"), ("main.logged", "main.logged.wrapper"),
        ("main.run", "main.logged.wrapper"), ("main.logged.wrapper", "main.f"),
        ("main.logged.wrapper", "main.g")}),
    _p("decorators", "REGISTRY = []\ndef register(fn):\n    REGISTRY.append(fn)\n"
       "    return fn\n@register\ndef f():\n    pass\ndef run():\n    for fn in REGISTRY:\n"
       "        fn()\nrun()\n",
       {("main", "main.register"), ("main", "main.run"), ("main.run", "main.f")},
       missed={("main.run", "main.f")}),  # a module's list filled in a function
    _p("lambdas", "def f(x):\n    return x\ndef run():\n    g = lambda: f(1)\n    return g()\n"
       "run()\n",
       {("main", "main.run"), ("main.run", "main.f")}),
    _p("lambdas", "def f():\n    pass\nops = {'a': lambda: f()}\nops['a']()\n",
       {("main", "main.f")}),
    _p("exceptions", "class E(Exception):\n    def describe(self):\n        pass\n"
       "def run():\n    try:\n        raise E()\n    except E as e:\n        e.describe()\n"
       "run()\n",
       {("main", "main.run"), ("main.run", "main.E.describe")}),
    _p("exceptions", "class E(Exception):\n    def __init__(self):\n        pass\n"
       "def f():\n    raise E\nf()\n",
       {("main", "main.f"), ("main.f", "main.E.__init__")}),
    _p("exceptions", "class A(Exception):\n    def info(self):\n        pass\n"
       "class B(Exception):\n    def info(self):\n        pass\ndef run():\n    try:\n"
       "        pass\n    except (A, B) as e:\n        e.info()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.A.info"), ("main.run", "main.B.info")}),
    _p("classes", "class Ctx:\n    def __enter__(self):\n        return self\n"
       "    def __exit__(self, *a):\n        pass\n    def go(self):\n        pass\n"
       "def run():\n    with Ctx() as c:\n        c.go()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.Ctx.go"), ("main.run", "main.Ctx.__enter__"),
        ("main.run", "main.Ctx.__exit__")},
       # the protocol's methods hold little knowledge: they would crowd out what does
       missed={("main.run", "main.Ctx.__enter__"), ("main.run", "main.Ctx.__exit__")}),
    _p("classes", "class A:\n    def m(self):\n        pass\na = A()\ndef run():\n    a.m()\n"
       "run()\n",
       {("main", "main.run"), ("main.run", "main.A.m")}),
    _p("classes", "class A:\n    def m(self):\n        pass\nclass B:\n    def m(self):\n"
       "        pass\ndef run(x):\n    x.m()\nrun(A())\n",
       {("main", "main.run"), ("main.run", "main.A.m")}),
    _p("mro", "class A:\n    def __init__(self):\n        pass\nclass B(A):\n"
       "    def __init__(self):\n        super().__init__()\nB()\n",
       {("main", "main.B.__init__"), ("main.B.__init__", "main.A.__init__")}),
    _p("mro", "class Base:\n    def run(self):\n        self.hook()\n    def hook(self):\n"
       "        pass\nclass A(Base):\n    def hook(self):\n        pass\nclass B(A):\n"
       "    def hook(self):\n        pass\nB().run()\nA().run()\n",
       {("main", "main.Base.run"), ("main.Base.run", "main.A.hook"),
        ("main.Base.run", "main.B.hook")},
       extra={("main.Base.run", "main.Base.hook")}),
    _p("builtins", "def apply_all(fn, xs):\n    return list(map(fn, xs))\n"
       "def f(x):\n    return x\napply_all(f, [1])\n",
       {("main", "main.apply_all"), ("main.apply_all", "main.f")}),
    _p("builtins", "class S:\n    def key(self, x):\n        return x\n    def run(self, xs):\n"
       "        return sorted(xs, key=self.key)\nS().run([1])\n",
       {("main", "main.S.run"), ("main.S.run", "main.S.key")}),
    _p("builtins", "import functools\ndef f(a, b):\n    pass\np = functools.partial(f, 1)\n"
       "p(2)\n",
       {("main", "main.f")}),
    _p("builtins", "import threading\ndef work():\n    pass\n"
       "t = threading.Thread(target=work)\nt.start()\n",
       {("main", "main.work")}),
    _p("builtins", "def keep(x):\n    return x\ndef run(xs, pred):\n"
       "    return [x for x in filter(pred, xs)]\nrun([1], keep)\n",
       {("main", "main.run"), ("main.run", "main.keep")}),
    _p("external", "import ext\ndef f():\n    pass\next.register(f)\n",
       {("main", "main.f")}),
    _p("external", "from ext import thing\nclass A:\n    def go(self):\n        pass\n"
       "def run():\n    a = A()\n    a.go()\n    thing.go()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.A.go")}),
    _p("external", "import ext\nclass A(ext.Base):\n    def m(self):\n        self.helper()\n"
       "    def helper(self):\n        pass\nA().m()\n",
       {("main", "main.A.m"), ("main.A.m", "main.A.helper")}),
    # -- more, in the style of the categories above --------------------------------------
    _p("direct_calls", "from lib import make\nmake()()\n",
       {("main", "lib.make"), ("main", "lib.f"), ("lib.make", "lib.f")},
       lib="def f():\n    pass\ndef make():\n    return f\n"),
    _p("direct_calls", "def f(a):\n    a()\ndef g():\n    pass\nf(g)\n",
       {("main", "main.f"), ("main.f", "main.g")}),
    _p("classes", "def f():\n    pass\nclass A:\n    run = f\nA.run()\n", {("main", "main.f")}),
    _p("classes", "class A:\n    def m(self):\n        pass\nobjs = [A(), A()]\n"
       "for o in objs:\n    o.m()\n",
       {("main", "main.A.m")}),
    _p("classes", "class A:\n    def __init__(self, cb):\n        self.cb = cb\n"
       "    def fire(self):\n        self.cb()\nclass B:\n    def handler(self):\n        pass\n"
       "    def setup(self):\n        self.a = A(self.handler)\n        self.a.fire()\n"
       "B().setup()\n",
       {("main", "main.B.setup"), ("main.B.setup", "main.A.__init__"),
        ("main.B.setup", "main.A.fire"), ("main.A.fire", "main.B.handler")}),
    _p("dicts", "def f():\n    pass\ndef g():\n    pass\ndef run():\n    d = {'a': f}\n"
       "    d.update({'b': g})\n    d['b']()\nrun()\n",
       {("main", "main.run"), ("main.run", "main.f"), ("main.run", "main.g")}),
    _p("lists", "def f():\n    pass\ndef g():\n    pass\nREG = []\ndef run(fns):\n"
       "    REG.extend(fns)\n    for h in REG:\n        h()\nrun([f, g])\n",
       {("main", "main.run"), ("main", "main.f"), ("main", "main.g"), ("main.run", "main.f"),
        ("main.run", "main.g")}),
    _p("dicts", "class A:\n    def __init__(self):\n        pass\nkinds = {'a': A}\nkinds['a']()\n",
       {("main", "main.A.__init__")}),
    _p("mro", "class A:\n    def m(self):\n        pass\nclass B(A):\n    def m(self):\n"
       "        super(B, self).m()\nB().m()\n",
       {("main", "main.B.m"), ("main.B.m", "main.A.m")}),
    _p("exceptions", "class E(Exception):\n    def __init__(self):\n        pass\ndef f():\n"
       "    err = E()\n    raise err\nf()\n",
       {("main", "main.f"), ("main.f", "main.E.__init__")}),
    _p("exceptions", "import errs\ndef f():\n    raise errs.Bad()\nf()\n",
       {("main", "main.f"), ("main.f", "errs.Bad.__init__")},
       errs="class Bad(Exception):\n    def __init__(self):\n        pass\n"),
    _p("lambdas", "def f():\n    pass\nx = lambda fn: fn()\nx(f)\n", {("main", "main.f")}),
    _p("lambdas", "def f():\n    pass\ndef make():\n    return lambda: f()\nmake()()\n",
       {("main", "main.make"), ("main.make", "main.f")}),
    _p("returns", "class A:\n    def m(self):\n        return self\n    def n(self):\n"
       "        pass\nA().m().n()\n",
       {("main", "main.A.m"), ("main", "main.A.n")}),
    _p("functions", "def f():\n    pass\ndef g(x=f):\n    return x\ng()()\n",
       {("main", "main.g"), ("main", "main.f")}),
    _p("args", "def apply(fn):\n    fn()\ndef f():\n    pass\ndef run():\n    h = f\n"
       "    apply(h)\nrun()\n",
       {("main", "main.run"), ("main.run", "main.apply"), ("main.apply", "main.f"),
        ("main.run", "main.f")}),
    _p("args", "def f():\n    pass\ndef call(*args):\n    args[0]()\ncall(f)\n",
       {("main", "main.call"), ("main.call", "main.f")}),
    _p("kwargs", "def f():\n    pass\ndef call(**kw):\n    for k, v in kw.items():\n"
       "        v()\ncall(a=f)\n",
       {("main", "main.call"), ("main.call", "main.f")}),
    _p("builtins", "def f(x):\n    return x\nfor y in map(f, [1]):\n    pass\n"
       "ys = sorted([1], key=lambda x: f(x))\n",
       {("main", "main.f")}),
    # -- with the C3 order, stacked decorators and fields of derived classes -------------
    _p("mro", "class A:\n    def m(self):\n        pass\nclass B(A):\n    pass\nclass C:\n"
       "    def m(self):\n        pass\nclass D(B, C):\n    pass\nD().m()\n",
       {("main", "main.A.m")}),  # D, B, A, C: A comes before the unrelated C
    _p("mro", "class A:\n    def m(self):\n        pass\nclass B(A):\n    pass\n"
       "class C(A):\n    def m(self):\n        pass\nclass D(B, C):\n    def m(self):\n"
       "        super().m()\nD().m()\n",
       {("main", "main.D.m"), ("main.D.m", "main.C.m")}),  # D, B, C, A: C before A
    _p("decorators", "def outer(fn):\n    def wrap_o():\n        fn()\n    return wrap_o\n"
       "def inner(fn):\n    def wrap_i():\n        fn()\n    return wrap_i\n@outer\n@inner\n"
       "def f():\n    pass\n",
       {("main", "main.outer"), ("main", "main.inner"), ("main.outer.wrap_o", "main.inner.wrap_i"),
        ("main.inner.wrap_i", "main.f"), ("main.outer", "main.outer.wrap_o"),
        ("main.inner", "main.inner.wrap_i")}),
    _p("classes", "class Base:\n    def run(self):\n        self.handler()\nclass A(Base):\n"
       "    def __init__(self):\n        self.handler = self.on_a\n    def on_a(self):\n"
       "        pass\nA().run()\n",
       {("main", "main.A.__init__"), ("main", "main.Base.run"), ("main.Base.run", "main.A.on_a"),
        ("main.A.__init__", "main.A.on_a")}),
    # -- a method of an object nothing is known of: by name, among those that can run ----
    _p("external", "import net\nclass Sock:\n    def send_all(self, data, flags):\n"
       "        pass\nclass Log:\n    def send_all(self):\n        pass\ndef handle(conn):\n"
       "    conn.send_all(b'x', 2)\nhandle(net.connect())\n",
       {("main", "main.handle"), ("main.handle", "main.Sock.send_all")}),  # Log's takes none
    _p("external", "import web\ndef url():\n    pass\ndef page(app):\n    return app.url()\n"
       "page(web.App())\n",
       {("main", "main.page")}),  # app is no module: app.url() is no call of the function url
    _p("external", "import web\nclass Router:\n    def url(self, name, *, external=False):\n"
       "        pass\ndef page(app):\n    return app.url('home', external=True)\n"
       "page(web.App())\n",
       {("main", "main.page"), ("main.page", "main.Router.url")}),
    # -- what an annotation says a parameter holds -----------------------------------------
    _p("classes", "import ext\nclass Parser:\n    def option(self, k):\n        pass\n"
       "class Group:\n    def option(self, k):\n        pass\ndef setup(parser: Parser):\n"
       "    parser.option('x')\nsetup(ext.make())\n",
       {("main", "main.setup"), ("main.setup", "main.Parser.option")}),  # a Parser, no Group
    _p("external", "from pathlib import Path\nclass Finder:\n    def exists(self):\n"
       "        pass\ndef check(p: Path):\n    return p.exists()\ncheck(Path('.'))\n",
       {("main", "main.check")}),  # a Path's method: none of the program's
    _p("mro", "from typing import Optional\nimport ext\nclass Node:\n    def collect(self):\n"
       "        pass\nclass Item(Node):\n    def collect(self):\n        pass\n"
       "def run(node: Optional[Node]):\n    node.collect()\nrun(ext.find())\n",
       {("main", "main.run"), ("main.run", "main.Node.collect"),
        ("main.run", "main.Item.collect")}),  # a Node, or an object of a class derived
    _p("direct_calls", "def outer():\n    def helper():\n        pass\n    helper()\n"
       "def run(helper):\n    helper()\nouter()\nrun(print)\n",
       {("main", "main.outer"), ("main.outer", "main.outer.helper"), ("main", "main.run")}),
    _p("generators", "class A:\n    def __iter__(self):\n        yield 1\nfor x in A():\n"
       "    pass\n",
       {("main", "main.A.__iter__")}, missed={("main", "main.A.__iter__")}),
    # -- items of lists and tuples picked by subscripts syntax tells --------------------
    # An index past the end of the list, a key bound twice, a list changed: all its items.
    _p("lists", _FGH + "FS = [f, g, h]\ndef run():\n    FS[1]()\ndef local():\n"
       "    fs = [f, g]\n    fs[0]()\nrun()\nlocal()\n",
       _MODULE_FGH | {("main", "main.run"), ("main", "main.local"), ("main.run", "main.g"),
                      ("main.local", "main.f"), ("main.local", "main.g")}),
    _p("lists", _FGH + "FS = [f, g, h]\ndef run():\n    FS[-1]()\n    FS[-3]()\nrun()\n",
       _MODULE_FGH | {("main", "main.run"), ("main.run", "main.h"), ("main.run", "main.f")}),
    _p("lists", _FGH + "FS = [f, g]\ndef run():\n    FS[1]()\ndef past():\n    FS[2]()\n"
       "run()\n",
       {("main", "main.f"), ("main", "main.g"), ("main", "main.run"), ("main.run", "main.g")},
       extra={("main.past", "main.f"), ("main.past", "main.g")}),  # IndexError: all items
    _p("lists", _FGH + "FS = [f, g, h]\nLAST = -1\nFIRST = 0\nFIRST = 1\ndef run():\n"
       "    FS[LAST]()\ndef twice():\n    FS[FIRST]()\nrun()\ntwice()\n",
       _MODULE_FGH | {("main", "main.run"), ("main", "main.twice"), ("main.run", "main.h"),
                      ("main.twice", "main.g")},
       extra={("main.twice", "main.f"), ("main.twice", "main.h")}),  # FIRST bound twice
    _p("lists", _FGH + "from ext import KEY\nimport ext\nFS = [f, g, h]\ndef run():\n"
       "    FS[KEY]()\n    FS[ext.ZERO]()\nrun()\n",
       _MODULE_FGH | {("main", "main.run"), ("main.run", "main.g"), ("main.run", "main.f")},
       ext="KEY = 1\nZERO = 0\n"),
    _p("lists", _FGH + "FS = [f, g, h]\nGS = FS[1:3]\ndef run():\n    GS[0]()\n"
       "    FS[::-1][0]()\n    FS[-2:][1]()\nrun()\n",
       _MODULE_FGH | {("main", "main.run"), ("main.run", "main.g"), ("main.run", "main.h")}),
    _p("lists", _FGH + "FS = [f, g]\nGS = [f, g]\nGS.insert(0, h)\nHS = [f, g]\n"
       "def grow():\n    HS[0] = g\ndef first():\n    FS[0]()\ndef run():\n    GS[0]()\n"
       "    HS[0]()\ngrow()\nfirst()\nrun()\n",
       _MODULE_FGH | {("main", "main.grow"), ("main", "main.first"), ("main", "main.run"),
                      ("main.grow", "main.g"), ("main.first", "main.f"), ("main.run", "main.h"),
                      ("main.run", "main.g")},
       extra={("main.run", "main.f")}),  # GS and HS changed: all their items
    _p("lists", _FGH + "TS = (f, g, h)\na, b = (g, h)\ndef run():\n    TS[1]()\n    b()\n"
       "run()\n",
       _MODULE_FGH | {("main", "main.run"), ("main.run", "main.g"), ("main.run", "main.h")}),
]
