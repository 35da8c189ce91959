"""Frozen records passed between the stages of the pipeline.

Extraction produces :class:`ModuleExtract` records; the graph stores
:class:`FunctionNode`, :class:`TagNode` and :class:`Edge`; retrieval returns a
:class:`RetrievalResult` of :class:`RetrievedFunction` documents. The adapters
convert these records and nothing else.

Examples
--------
>>> from sgkr.records import SourceSpan
>>> SourceSpan("pkg/mod.py", 3, 9).to_dict()
{'file': 'pkg/mod.py', 'start_line': 3, 'end_line': 9}
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Literal

from .text import without_docstring

__all__ = [
    "SourceSpan",
    "Problem",
    "ParameterKind",
    "Parameter",
    "Ref",
    "Index",
    "Slice",
    "Selector",
    "Position",
    "NameChange",
    "CallSite",
    "ValueUse",
    "Binding",
    "BindingKind",
    "Argument",
    "ImportBinding",
    "ClassInfo",
    "Definition",
    "ModuleExtract",
    "FunctionNode",
    "TagNode",
    "SolvedTask",
    "Edge",
    "BuildReport",
    "TagMatch",
    "RetrievedFunction",
    "RetrievalResult",
    "FunctionKind",
    "CallKind",
    "Arity",
    "EdgeType",
    "EdgeRow",
    "Resolution",
    "Role",
]


FunctionKind = Literal["function", "method", "module"]
CallKind = Literal["plain", "attribute", "super", "subscript", "result"]
#: The relations of the graph. Every edge points the way a dependency path walks it, from
#: what a question gives to what it asks for: ``calls`` and ``references`` from the caller
#: to the callee, ``consumes`` from a tag to the function that takes it as input (read it
#: "tag is input of function": the edge is stored tag → function), ``produces`` from a
#: function to the tag it outputs.
EdgeType = Literal["calls", "references", "consumes", "produces"]
#: How an edge between functions was found: ``exact`` (syntax alone), ``inferred``
#: (an analysis of what names hold) or ``name`` (a bare-name guess).
Resolution = Literal["exact", "inferred", "name"]
#: An edge as a plain tuple: source, target, type, and resolution (calls and references).
EdgeRow = tuple[str, str, EdgeType, Resolution | None]
Role = Literal["input", "output", "both"]


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """Where a definition stands: a file relative to the build root, 1-based lines.

    In a notebook, ``cell`` and ``end_cell`` are the 1-based numbers of the
    cells (counting every cell) that the first and the last line are in, and
    the lines count from the top of their cell; ``None`` in other files.
    """

    file: str
    start_line: int
    end_line: int
    cell: int | None = None
    end_cell: int | None = None

    @property
    def location(self) -> str:
        """``file:line`` of the first line, or ``file, cell N, line L`` in a notebook.

        Examples
        --------
        >>> SourceSpan("a.py", 3, 9).location, SourceSpan("n.ipynb", 2, 4, 5, 5).location
        ('a.py:3', 'n.ipynb, cell 5, line 2')
        """
        if self.cell is not None:
            return f"{self.file}, cell {self.cell}, line {self.start_line}"
        return f"{self.file}:{self.start_line}"

    def to_dict(self) -> dict[str, str | int]:
        """Return the JSON form used in graph.json and in document metadata."""
        form: dict[str, str | int] = {
            "file": self.file, "start_line": self.start_line, "end_line": self.end_line}
        if self.cell is not None and self.end_cell is not None:
            form["cell"] = self.cell
            form["end_cell"] = self.end_cell
        return form


@dataclass(frozen=True, slots=True)
class Problem:
    """Something in the input that was skipped or only partly read.

    ``kind`` is ``skipped`` (the file was not read), ``syntax`` (read as far as
    the parser could), or ``knowledge`` (a sidecar or example entry not applied).
    """

    file: str
    reason: str
    kind: Literal["skipped", "syntax", "knowledge"] = "skipped"
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.reason}"


class ParameterKind(enum.Enum):
    """How arguments reach a parameter, as :class:`inspect.Parameter` names the kinds."""

    #: Before ``/``: by position only.
    POSITIONAL_ONLY = "positional_only"
    #: By position or by keyword (the common case).
    POSITIONAL = "positional"
    #: ``*args``: the positional arguments left over.
    VAR_POSITIONAL = "var_positional"
    #: After ``*`` or ``*args``: by keyword only.
    KEYWORD_ONLY = "keyword_only"
    #: ``**kwargs``: the keyword arguments left over.
    VAR_KEYWORD = "var_keyword"


@dataclass(frozen=True, slots=True)
class Parameter:
    """A parameter of a definition, read off its signature's syntax tree.

    ``def f(a, /, b=1, *args, c, **kw)`` has ``a`` (positional only), ``b``
    (positional, with a default), ``args`` (var positional), ``c`` (keyword only)
    and ``kw`` (var keyword).

    Examples
    --------
    >>> Parameter("rows")
    Parameter(name='rows', kind=<ParameterKind.POSITIONAL: 'positional'>, default=False, \
types=())
    """

    name: str
    kind: ParameterKind = ParameterKind.POSITIONAL
    #: Whether the signature gives it a default value.
    default: bool = False
    #: The classes its annotation names, dotted as written (``x: Foo | None`` and
    #: ``x: Optional["Foo"]`` give ``("Foo",)``); none when it tells no class.
    types: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Index:
    """A subscript picking one item: ``xs[1]``, ``xs[-1]`` (``key`` an integer literal),
    ``xs[K]`` (``key`` the dotted name standing for it, as written)."""

    key: int | str

    def __str__(self) -> str:
        return str(self.key)


@dataclass(frozen=True, slots=True)
class Slice:
    """A subscript slicing a sequence: ``xs[1:3]`` is ``Slice(1, 3)``; each bound an
    integer literal, a dotted name, or None when left out."""

    start: int | str | None = None
    stop: int | str | None = None
    step: int | str | None = None

    def __str__(self) -> str:
        bounds = ["" if b is None else str(b) for b in (self.start, self.stop, self.step)]
        return ":".join(bounds if self.step is not None else bounds[:2])


#: One subscript told by syntax: an item, or a slice.
Selector = Index | Slice


@dataclass(frozen=True, slots=True)
class Ref:
    """A name or dotted name as written (``fee``, ``self.parser``), what calling it
    gives (``called``: ``Parser()``, ``make()``), or an item or slice of it picked by
    subscripts whose keys syntax tells (``index``: ``handlers[0]``, ``xs[1:3][0]``).

    Examples
    --------
    >>> str(Ref("self.parser")), str(Ref("Parser", called=True))
    ('self.parser', 'Parser()')
    >>> str(Ref("xs", index=(Slice(1, 3), Index(-1))))
    'xs[1:3][-1]'
    """

    name: str
    called: bool = False
    #: The subscripts applied to the name, in the order applied (none: the name itself).
    index: tuple[Selector, ...] = ()

    def __str__(self) -> str:
        text = f"{self.name}()" if self.called else self.name
        return text + "".join(f"[{s}]" for s in self.index)


@dataclass(frozen=True, slots=True)
class Position:
    """Where an item stands in a list or tuple written out: ``xs = [f, g]`` binds ``xs``
    to ``g`` at ``Position(1, 2)`` (the second of two items)."""

    index: int
    length: int


@dataclass(frozen=True, slots=True)
class NameChange:
    """A name given a value no :class:`Binding` records: an integer literal
    (``K = 2``: ``integer`` 2), or anything else, in place or from another scope
    (``K += 1``, ``xs[0] = f``, ``del xs[0]``, ``global K``, ``K = a + b``:
    ``integer`` None). Read by the resolver to tell constants and lists left as written."""

    name: str
    integer: int | None = None


@dataclass(frozen=True, slots=True)
class Arity:
    """What a call passes: how many arguments by position, the keywords it names, and
    whether it unpacks ``*xs`` or ``**kw`` (then what it passes is not known).

    Examples
    --------
    >>> Arity(1, ("key",))  # f(x, key=k)
    Arity(positional=1, keywords=('key',), unpacked=False)
    """

    positional: int = 0
    keywords: tuple[str, ...] = ()
    unpacked: bool = False


@dataclass(frozen=True, slots=True)
class CallSite:
    """One call expression inside a definition.

    ``kind`` is ``plain`` for ``f()``, ``attribute`` for ``x.f()`` (``receiver``
    is ``x``, a dotted name, or ``A()`` for ``A().f()``; ``None`` when it is neither),
    ``super`` for ``super().f()`` and ``subscript`` for ``x[k]()`` (``name`` holds
    the dotted text of ``x``), ``result`` for ``g()()`` (``name`` holds ``g``). A
    decorator ``@d`` is a call of ``d``, and so is ``raise E``. ``arity`` tells what a
    call passes (None: not told, as for a name used as a value).
    """

    kind: CallKind
    name: str
    receiver: Ref | None
    line: int
    arity: Arity | None = None
    #: The subscripts of a ``subscript`` call whose keys syntax tells (``fs[0]()``).
    index: tuple[Selector, ...] = ()

    @property
    def callee(self) -> str:
        """The called expression as written: ``f``, ``x.f``, ``A().f``."""
        return self.name if self.receiver is None else f"{self.receiver}.{self.name}"


@dataclass(frozen=True, slots=True)
class ValueUse:
    """A name used as a value in a definition, not called there.

    ``map(f, xs)``, ``sorted(rows, key=f)``, ``{"fee": f}``, ``[f, g]``, ``x = f``,
    ``return f``. ``site`` holds the name as a call site would (``plain`` for ``f``,
    ``attribute`` for ``self.f`` or ``mod.f``); ``argument_of`` is the call it is
    passed to, None when it is stored or returned.
    """

    site: CallSite
    argument_of: CallSite | None = None


class BindingKind(enum.Enum):
    """How a name is given a value."""

    #: ``x = f(...)``: an assignment of what a call returns (the caller names the callee's
    #: output: ``fee = calculate_fee()``); also ``except E as e``.
    ASSIGNED = "assigned"
    #: The name holds what the value holds: ``h = fee``, ``for x in xs``, ``with A() as a``,
    #: ``xs.append(x)`` (a container holds what is put in it), a parameter's default.
    HOLDS = "holds"


@dataclass(frozen=True, slots=True)
class Binding:
    """A name, or a dotted name such as ``self.parser``, given a value in a definition.

    ``x = Parser(path)`` is ``Binding("x", Ref("Parser", called=True), ASSIGNED)``,
    ``h = fee`` is ``Binding("h", Ref("fee"))``, ``HANDLERS = {"fee": fee, "tax": tax}``
    two bindings of ``HANDLERS``; ``for x in xs``, ``x = xs[k]`` and ``xs.append(x)``
    bind what the container holds; ``with A() as a`` and ``for x in f()`` hold what a
    call gives (``Ref("A", called=True)``); a parameter's default binds the parameter.
    Read by the resolver to infer what a receiver, a called name or a parameter holds.
    """

    target: str
    value: Ref
    kind: BindingKind = BindingKind.HOLDS
    #: Where ``value`` stands in the list or tuple written out that ``target`` is given.
    position: Position | None = None


@dataclass(frozen=True, slots=True)
class Argument:
    """A value passed to a call: ``apply(fee, key=tax)`` passes ``fee`` at ``slot`` 0
    and ``tax`` at ``slot`` ``"key"``. A container written out passes each name it
    holds; ``A()`` passes what A gives. A decorator ``@d`` of ``f`` passes ``f`` to ``d``
    at slot 0. Read by the resolver to infer what a parameter holds.
    """

    call: CallSite
    #: The position (0 for the first argument) or the keyword.
    slot: int | str
    value: Ref


@dataclass(frozen=True, slots=True)
class ImportBinding:
    """A name bound by an import statement within ``scope`` (a qualname).

    ``target`` is the absolute dotted name it refers to; relative imports are
    already resolved against the importing module. ``alias`` ``*`` stands for a
    wildcard import of the module ``target``.
    """

    scope: str
    alias: str
    target: str


@dataclass(frozen=True, slots=True)
class ClassInfo:
    """A class definition: its qualname and the dotted text of its bases."""

    qualname: str
    name: str
    bases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Definition:
    """A function, method or module body as extracted from one file.

    The last three fields are derived from the others where files are
    extracted for a build (:func:`sgkr.tags.infer.annotate`, run by the worker
    that parsed the file, and cached with it); ``None`` when not derived, in
    which case :func:`sgkr.analysis.knowledge.knowledge_of` and
    :func:`sgkr.tags.infer.infer_tags` compute them when asked.
    """

    qualname: str
    name: str
    kind: FunctionKind
    code: str
    span: SourceSpan
    docstring: str | None = None
    comment: str | None = None
    parameters: tuple[Parameter, ...] = ()
    calls: tuple[CallSite, ...] = ()
    #: Names used as values (functions passed, stored, returned): ``references`` edges.
    uses: tuple[ValueUse, ...] = ()
    #: What names and ``self.`` attributes are given (``inferred`` edges).
    bindings: tuple[Binding, ...] = ()
    #: Names given an integer literal, or changed in ways no binding records.
    changes: tuple[NameChange, ...] = ()
    #: What it returns or yields.
    returns: tuple[Ref, ...] = ()
    #: The names a ``return`` statement gives back alone (``return fee``): what its
    #: result is called.
    results: tuple[str, ...] = ()
    #: The dotted names of its decorators, the innermost last.
    decorators: tuple[str, ...] = ()
    #: The values it passes to calls.
    arguments: tuple[Argument, ...] = ()
    #: String keys it reads and does not write: ``row["fee"]``, ``row.get("fee")``.
    keys_read: tuple[str, ...] = ()
    #: String keys it writes: ``row["fee"] = ...``.
    keys_written: tuple[str, ...] = ()
    #: Keywords it passes a value that is not a literal (``timeout=timeout``; not
    #: ``ascending=False``, an option setting).
    keywords: tuple[str, ...] = ()
    #: Strings that read like names, passed to calls or listed (``groupby("merchant")``).
    strings: tuple[str, ...] = ()
    #: Attributes it reads, and does not call, of its parameters (but ``self`` and
    #: ``cls``): ``df.amount`` is ``("df", "amount")``.
    attributes: tuple[tuple[str, str], ...] = ()
    enclosing_class: str | None = None
    is_async: bool = False
    #: The knowledge of the definition alone: ``knowledge_of(self)``.
    knowledge: str | None = None
    #: The I/O tags inferred from its code alone: ``infer_tags(self)``.
    inferred_inputs: tuple[str, ...] | None = None
    inferred_outputs: tuple[str, ...] | None = None

    @property
    def params(self) -> tuple[str, ...]:
        """The names of its parameters, in order."""
        return tuple([p.name for p in self.parameters])


@dataclass(frozen=True, slots=True)
class ModuleExtract:
    """Everything extracted from one source file."""

    path: str
    module: str
    is_package: bool
    definitions: tuple[Definition, ...]
    classes: tuple[ClassInfo, ...]
    imports: tuple[ImportBinding, ...]
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True, slots=True)
class FunctionNode:
    """A knowledge unit: one function (possibly merged from copies) with its knowledge."""

    id: str
    name: str
    qualnames: tuple[str, ...]
    code: str
    knowledge: str
    sources: tuple[SourceSpan, ...]
    kind: FunctionKind

    @property
    def shown_code(self) -> str:
        """The code as a model is shown it: less a docstring that the knowledge repeats."""
        return without_docstring(self.code, self.knowledge) if self.knowledge else self.code

    @property
    def text(self) -> str:
        """Knowledge first, then :attr:`shown_code`."""
        return f"{self.knowledge}\n\n{self.shown_code}" if self.knowledge else self.code


@dataclass(frozen=True, slots=True)
class TagNode:
    """A semantic I/O tag: a data entity, attribute or target quantity.

    ``weight`` in [0, 1] says how specific the tag is: an inverse document
    frequency over the graph's functions, computed by the build
    (:func:`sgkr.tags.weights.tag_weights`); a tag that every function shares
    (``data``, ``value``, ``self``) weighs near 0, one that a single function
    handles near 1.
    """

    id: str
    label: str
    aliases: tuple[str, ...] = ()
    weight: float = 1.0


@dataclass(frozen=True)
class SolvedTask:
    """An earlier question the graph was built with, and what its solution uses.

    ``id`` is ``task:`` and the example's id; ``uses`` the function nodes its
    solution defines or calls (its entry code first); ``inputs`` and ``outputs``
    the ids of the tags the question gives and asks for, attached to those
    functions; ``source`` the solution's file, as the build read it.
    """

    id: str
    question: str
    uses: tuple[str, ...]
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    source: str = ""
    answer: str | None = None


@dataclass(frozen=True)
class Edge:
    """A directed edge; ``resolution`` is set on ``calls`` and ``references`` edges only.

    ``references``: the source uses the target function as a value (passes,
    stores or returns it) without calling it there.
    """

    source: str
    target: str
    type: EdgeType
    resolution: Resolution | None = None


@dataclass(frozen=True)
class BuildReport:
    """What a build read, made and skipped."""

    files: int
    functions: int
    call_edges: dict[str, int]
    tags: int
    problems: tuple[Problem, ...]
    seconds: float
    #: ``references`` edges by resolution.
    reference_edges: dict[str, int] = field(default_factory=dict)
    #: Functions of test files (pytest's and unittest's conventions): answers leave them out
    #: unless asked (the retrieval option ``tests``).
    test_functions: int = 0

    def to_dict(self) -> dict[str, object]:
        """The JSON form ``sgkr build --json`` prints: counts, seconds and every problem.

        Examples
        --------
        >>> BuildReport(1, 2, {"exact": 1}, 0, (Problem("a.py", "empty file"),), 0.5).to_dict()[
        ...     "problems"]
        [{'file': 'a.py', 'reason': 'empty file', 'kind': 'skipped', 'line': None}]
        """
        return {
            "files": self.files, "functions": self.functions,
            "call_edges": dict(sorted(self.call_edges.items())),
            "reference_edges": dict(sorted(self.reference_edges.items())), "tags": self.tags,
            "test_functions": self.test_functions,
            "seconds": round(self.seconds, 3),
            "problems": [{"file": p.file, "reason": p.reason, "kind": p.kind, "line": p.line}
                         for p in self.problems],
        }

    def summary(self, *, verbose: bool = False) -> str:
        """One human-readable paragraph, as ``sgkr build`` prints it.

        Problems are grouped by reason, each with its count and three examples;
        ``verbose`` lists every one.

        Examples
        --------
        >>> report = BuildReport(3, 5, {"exact": 4}, 0, tuple(
        ...     Problem(f"p{i}/__init__.py", "empty file") for i in range(5)), 0.25)
        >>> print(report.summary())
        files: 3, functions: 5, call edges: 4 exact, reference edges: 0, tags: 0, 0.25 s
        skipped: 5
          empty file: 5 (p0/__init__.py, p1/__init__.py, p2/__init__.py, ...)
        """
        edges = ", ".join(f"{n} {r}" for r, n in sorted(self.call_edges.items())) or "0"
        refs = ", ".join(f"{n} {r}" for r, n in sorted(self.reference_edges.items())) or "0"
        tests = (f" ({self.test_functions} in tests, left out of answers unless asked)"
                 if self.test_functions else "")
        lines = [
            f"files: {self.files}, functions: {self.functions}{tests}, call edges: {edges}, "
            f"reference edges: {refs}, tags: {self.tags}, {self.seconds:.2f} s",
        ]
        for kind, title in _PROBLEM_TITLES.items():
            problems = [p for p in self.problems if p.kind == kind]
            if not problems:
                continue
            lines.append(f"{title}: {len(problems)}")
            if verbose:
                lines.extend(f"  {p}" for p in problems)
                continue
            groups: dict[str, list[Problem]] = {}
            for problem in problems:
                groups.setdefault(_reason_group(problem.reason), []).append(problem)
            for reason, members in groups.items():
                if len(members) == 1:
                    lines.append(f"  {members[0]}")
                    continue
                labels = [_where(p) for p in members]
                if len(set(labels)) < len(labels):  # one file: what differs is the reason
                    labels = [p.reason for p in members]
                more = ", ..." if len(members) > 3 else ""
                lines.append(f"  {reason}: {len(members)} ({', '.join(labels[:3])}{more})")
        return "\n".join(lines)


_PROBLEM_TITLES = {"skipped": "skipped", "syntax": "syntax errors (read as far as possible)",
                   "knowledge": "knowledge not applied"}


def _where(problem: Problem) -> str:
    return f"{problem.file}:{problem.line}" if problem.line is not None else problem.file


def _reason_group(reason: str) -> str:
    """The reason without what varies from file to file (numbers, names, details)."""
    general = re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", reason)
    return re.split(r"[:(;]", general, maxsplit=1)[0].strip() or reason


@dataclass(frozen=True)
class TagMatch:
    """A tag found in a question: which tag, which words, its role in the graph, how sure.

    ``score`` in (0, 1]: 1 for a label or alias named word for word, less for
    another form of a word or part of a phrase (see :mod:`sgkr.retrieval.tagmatch`).
    """

    tag_id: str
    label: str
    text: str
    start: int
    end: int
    role: Role
    score: float = 1.0


@dataclass(frozen=True)
class RetrievedFunction:
    """One retrieved knowledge unit, ready to become a framework document.

    ``qualname`` is its qualified name inside its module, as a developer says it
    (``Flask.dispatch_request``; :attr:`label` falls back to the bare ``name``).
    """

    id: str
    name: str
    qualnames: tuple[str, ...]
    knowledge: str
    code: str
    sources: tuple[SourceSpan, ...]
    kind: FunctionKind
    score: float
    matched_tags: tuple[str, ...] = ()
    paths: tuple[tuple[str, ...], ...] = ()
    #: The earlier questions whose solutions used it (task id, question), the most like
    #: the new question first; None on a graph without solved tasks
    #: (:mod:`sgkr.retrieval.solved`).
    used_by: tuple[tuple[str, str], ...] | None = None
    #: Other copies of the same helper (node ids) that this document stands for; None on
    #: a graph without solved tasks.
    variants: tuple[str, ...] | None = None
    qualname: str = ""

    @property
    def text(self) -> str:
        """Knowledge first, then the code."""
        return f"{self.knowledge}\n\n{self.code}" if self.knowledge else self.code

    @property
    def label(self) -> str:
        """How a person is shown the function: its qualified name in its module, else its
        bare name."""
        return self.qualname or self.name

    @property
    def location(self) -> str | None:
        """``file:line`` of its first place (:attr:`SourceSpan.location`), if it has one."""
        return self.sources[0].location if self.sources else None

    def metadata(self) -> dict[str, object]:
        """Flat metadata as the adapters attach it to their documents."""
        first = self.sources[0] if self.sources else None
        cell = {"cell": first.cell} if first is not None and first.cell is not None else {}
        return {
            "id": self.id,
            "name": self.name,
            "qualname": self.label,
            "location": self.location,
            "qualnames": list(self.qualnames),
            "kind": self.kind,
            "file": first.file if first else None,
            "start_line": first.start_line if first else None,
            "end_line": first.end_line if first else None,
            **cell,
            "sources": [s.to_dict() for s in self.sources],
            "score": self.score,
            "matched_tags": list(self.matched_tags),
            "path": list(self.paths[0]) if self.paths else [],
            **({"used_by": [{"task": t, "question": q} for t, q in self.used_by]}
               if self.used_by is not None else {}),
            **({"variants": list(self.variants)} if self.variants is not None else {}),
        }


@dataclass(frozen=True)
class RetrievalResult:
    """The answer to one question: documents, the tags matched and the paths found."""

    question: str
    documents: tuple[RetrievedFunction, ...]
    tags: tuple[TagMatch, ...] = ()
    paths: tuple[tuple[str, ...], ...] = ()
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    fallback_used: bool = False
    #: False when the question matched nothing in the graph (no tag, no word of the index,
    #: or it was empty): then there are no documents, and a caller may abstain.
    matched: bool = True

    def to_dict(self) -> dict[str, object]:
        """The JSON object printed by ``sgkr query --json``."""
        return {
            "question": self.question,
            "tags": {"inputs": list(self.inputs), "outputs": list(self.outputs)},
            "matches": [
                {"tag": m.label, "text": m.text, "role": m.role} for m in self.tags
            ],
            "documents": [
                {
                    "id": d.id,
                    "name": d.name,
                    "qualname": d.label,
                    "location": d.location,
                    "qualnames": list(d.qualnames),
                    "kind": d.kind,
                    "knowledge": d.knowledge,
                    "code": d.code,
                    "score": d.score,
                    "sources": [s.to_dict() for s in d.sources],
                    # Only what there is: no empty list for a function no tag led to.
                    **({"matched_tags": list(d.matched_tags)} if d.matched_tags else {}),
                    **{k: v for k, v in d.metadata().items() if k in ("used_by", "variants")},
                }
                for d in self.documents
            ],
            "paths": [list(p) for p in self.paths],
            "fallback_used": self.fallback_used,
            "matched": self.matched,
        }
