"""Incremental rebuilds: after any edit, the updated graph equals a fresh build of the files."""

from __future__ import annotations

import os
import random
import re
import shutil
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sgkr import Retriever, build_graph
from sgkr.build.incremental import GraphBuilder
from sgkr.errors import SourceError
from sgkr.graph import KnowledgeGraph
from sgkr.tags import FunctionKnowledge, Sidecar

from ..conftest import PAYMENTS

FILES = {
    "pkg/__init__.py": "from pkg.rates import *\n",
    "pkg/rates.py": (
        "def base_rate(card_scheme):\n    return 0.1\n\n"
        "def scaled_rate(card_scheme, volume):\n    return base_rate(card_scheme) * volume\n"
    ),
    "pkg/fees.py": (
        "from pkg import scaled_rate\nfrom pkg.models import Rule\n\n"
        "class FeeRule(Rule):\n    def apply(self, amount):\n        return self.check(amount)\n\n"
        "def total_fee(amount, card_scheme, volume):\n"
        "    return amount * scaled_rate(card_scheme, volume)\n"
    ),
    "pkg/models.py": (
        "class Rule:\n    def __init__(self):\n        self.log = Log()\n\n"
        "    def check(self, amount):\n        return amount > 0\n\n"
        "    def valid(self, amount):\n        return self.check(amount)\n\n"
        "class Log:\n    def write(self, line):\n        return line\n\n"
        "class Audit:\n    def write(self, line):\n        return line\n"
    ),
    "app.py": (
        "import pkg.fees\n\n"
        "def report_fee(amount):\n    return pkg.fees.total_fee(amount, 'visa', 2)\n\n"
        "def audit(rows):\n    return [helper_only_here(r) for r in rows]\n\n"
        "def by_fee(rows):\n    return sorted(rows, key=report_fee)\n"
    ),
    "jobs.py": (
        "from pkg.fees import FeeRule\nimport pkg.models\n\n"
        "def make_rule():\n    return FeeRule()\n\n"
        "def make_checker():\n    return pkg.models.Rule()\n\n"
        "class Job:\n    def __init__(self):\n        self.checker = pkg.models.Rule()\n"
        "    def run(self, amount):\n        rule = make_rule()\n"
        "        return rule.apply(amount) and self.checker.check(amount)\n"
    ),
    # What runner's calls reach is read off jobs and pkg.models, which runner never imports.
    "runner.py": "from jobs import make_rule, make_checker\n\ndef go():\n    r = make_rule()\n"
                 "    c = make_checker()\n    c.log.write('go')\n"
                 "    return r.apply(1) and c.check(2)\n",
    # audit's call of write is read off factory and pkg.models: it imports only factory, which
    # passes no name of pkg.models on.
    "factory.py": "import pkg.models\n\ndef make_checker():\n    return pkg.models.Rule()\n",
    "audit.py": "from factory import make_checker\n\ndef log_check():\n"
                "    c = make_checker()\n    return c.log.write('x')\n",
    "handlers.py": (
        "from pkg.rates import scaled_rate\nimport util\n\n"
        "HANDLERS = {'rate': scaled_rate, 'row': util.helper_only_here}\n"
    ),
    "util.py": "def helper_only_here(row):\n    return row\n",
    # What run_with's parameter holds is read off the modules calling it, which it never
    # imports; which checks Rule.valid reaches, off the subclasses of Rule anywhere.
    "callbacks.py": "def run_with(fn):\n    return fn(1)\n",
    "plugins.py": "from callbacks import run_with\nfrom pkg.rates import base_rate\n\n"
                  "def use():\n    return run_with(base_rate)\n",
    "strict.py": "from pkg.models import Rule\n\nclass StrictRule(Rule):\n"
                 "    def check(self, amount):\n        return amount > 1\n",
    # Which item of RATES pick_rate calls is read off keys, where FIRST is bound.
    "keys.py": "FIRST = 0\n",
    "dispatch.py": "from keys import FIRST\nfrom pkg.rates import base_rate, scaled_rate\n\n"
                   "RATES = [base_rate, scaled_rate]\n\ndef pick_rate(card_scheme):\n"
                   "    return RATES[FIRST](card_scheme)\n",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _append(root: Path, rel: str, text: str) -> None:
    with (root / rel).open("a", encoding="utf-8") as handle:
        handle.write(text)


def _same_as_fresh(builder: GraphBuilder, root: Path, **options: Any) -> KnowledgeGraph:
    graph = builder.update()
    fresh = build_graph([root], root=root, **options)
    assert graph.to_dict() == fresh.to_dict()
    assert graph.report is not None and fresh.report is not None
    assert graph.report.problems == fresh.report.problems
    assert (graph.report.files, graph.report.functions, graph.report.call_edges,
            graph.report.reference_edges, graph.report.tags) == (
        fresh.report.files, fresh.report.functions, fresh.report.call_edges,
        fresh.report.reference_edges, fresh.report.tags)
    return graph


Edit = Callable[[Path], None]
EDITS: dict[str, Edit] = {
    "a function renamed, its importer's call now unresolved": lambda r: _edit(
        r, "pkg/rates.py", "def scaled_rate(", "def scaled_rate_v2("),
    "a function added that a bare-name call now matches": lambda r: _append(
        r, "pkg/models.py", "\ndef helper_only_here(row):\n    return [row]\n"),
    "a function deleted": lambda r: _edit(
        r, "util.py", "def helper_only_here(row):\n    return row\n", "x = 1\n"),
    "a re-export removed from a package": lambda r: _edit(
        r, "pkg/__init__.py", "from pkg.rates import *\n", "\n"),
    "an import aliased": lambda r: _edit(
        r, "pkg/fees.py", "from pkg import scaled_rate\n",
        "from pkg.rates import base_rate as scaled_rate\n"),
    "a base class changed": lambda r: _edit(r, "pkg/fees.py", "class FeeRule(Rule):",
                                            "class FeeRule(object):"),
    "a method added to a base class": lambda r: _append(
        r, "pkg/models.py", "    def apply(self, amount):\n        return amount\n"),
    "a syntax error": lambda r: _edit(r, "app.py", "def audit(rows):", "def audit(rows:"),
    "a file added": lambda r: _write(r, {"pkg/extra.py": "from pkg.rates import base_rate\n"
                                         "def extra_fee(card_scheme):\n"
                                         "    return base_rate(card_scheme) * 2\n"}),
    "a file deleted": lambda r: (r / "pkg/models.py").unlink(),
    "a file emptied": lambda r: (r / "util.py").write_text("", encoding="utf-8"),
    "a copy of a function in another file (merged)": lambda r: _append(
        r, "app.py", "\ndef base_rate(card_scheme):\n    return 0.1\n"),
    "a file touched, text unchanged": lambda r: os.utime(r / "app.py"),
    "a referenced function renamed in its own module": lambda r: _edit(
        r, "app.py", "def report_fee(", "def report_fee_v2("),
    "a reference now called": lambda r: _edit(
        r, "app.py", "key=report_fee)", "key=report_fee(rows))"),
    "a reference added to a dict of another module": lambda r: _edit(
        r, "handlers.py", "HANDLERS = {", "from pkg.rates import base_rate\n"
        "HANDLERS = {'base': base_rate, "),
    "the import a reference goes through removed": lambda r: _edit(
        r, "handlers.py", "import util\n", "\n"),
    "a method reached through a returned instance renamed": lambda r: _edit(
        r, "pkg/fees.py", "def apply(self, amount):", "def apply_v2(self, amount):"),
    "a method reached through a field and a returned instance renamed": lambda r: _edit(
        r, "pkg/models.py", "def check(self, amount):", "def check_v2(self, amount):"),
    "a field's class changed in a module the caller never imports": lambda r: _edit(
        r, "pkg/models.py", "self.log = Log()", "self.log = Audit()"),
    "what a factory returns changed": lambda r: _edit(
        r, "jobs.py", "return FeeRule()", "return pkg.models.Rule()"),
    "a function passed to a parameter changed in a caller": lambda r: _edit(
        r, "plugins.py", "run_with(base_rate)", "run_with(scaled_rate)"),
    "a caller passing a function added in a new file": lambda r: _write(
        r, {"more_plugins.py": "import callbacks\nimport util\n\n"
                               "def use_more():\n"
                               "    return callbacks.run_with(util.helper_only_here)\n"}),
    "a constant indexing a list changed in the module binding it": lambda r: _edit(
        r, "keys.py", "FIRST = 0", "FIRST = 1"),
    "an override removed from a subclass in another module": lambda r: _edit(
        r, "strict.py", "def check(self, amount):", "def check_v2(self, amount):"),
    "a subclass overriding a method added in a new file": lambda r: _write(
        r, {"lenient.py": "import pkg.models\n\nclass LenientRule(pkg.models.Rule):\n"
                          "    def check(self, amount):\n        return True\n"}),
    "a function defined again below, with other parameters": lambda r: _append(
        r, "util.py", "\ndef helper_only_here(record, column):\n    return record\n"),
    # make_checker's output tag is named by its caller: it changes with the caller.
    "a caller names what a callee returns": lambda r: _edit(
        r, "audit.py", "c = make_checker()\n    return c.log", "checker = make_checker()\n"
        "    return checker.log"),
}


@pytest.mark.parametrize("merge", ["auto", "name", "none"])
@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_update_after_an_edit_equals_a_fresh_build(tmp_path: Path, edit: Edit,
                                                   merge: str) -> None:
    _write(tmp_path, FILES)
    options: dict[str, Any] = {"infer_tags": True, "merge": merge}
    builder = GraphBuilder([tmp_path], root=tmp_path, jobs=1, **options)
    builder.build()
    edit(tmp_path)
    _same_as_fresh(builder, tmp_path, **options)
    assert builder.last_update is not None
    # Edits that change text are patched; only the touched file leaves the graph alone.
    assert builder.last_update.patched == bool(builder.last_update.changed
                                               or builder.last_update.added
                                               or builder.last_update.removed)


def test_update_reports_what_changed_and_resolves_only_affected_modules(tmp_path: Path) -> None:
    _write(tmp_path, FILES)
    builder = GraphBuilder([tmp_path], root=tmp_path, jobs=1)
    graph = builder.build()
    _append(tmp_path, "util.py", "\ndef unused_helper(x):\n    return x\n")
    before = graph.to_dict()
    new = builder.update()
    assert new is not graph and new is builder.graph  # a patched copy
    assert graph.to_dict() == before  # the version before the update is left as it was
    update = builder.last_update
    assert update is not None
    assert (update.changed, update.added, update.removed, update.patched) == (
        ("util.py",), (), (), True)
    # handlers.py imports util (for a reference): it is resolved again.
    assert update.resolved_modules == 2
    assert "fn:util.unused_helper" in new
    builder.update()
    assert builder.last_update is not None and builder.last_update.changed == ()


def test_a_rewrite_that_keeps_size_and_mtime_is_still_seen_while_recent(tmp_path: Path) -> None:
    _write(tmp_path, {"m.py": "def f():\n    return 1\n"})
    builder = GraphBuilder([tmp_path], root=tmp_path, jobs=1)
    builder.build()
    path = tmp_path / "m.py"
    stamp = path.stat()
    path.write_text("def g():\n    return 1\n", encoding="utf-8")
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert "fn:m.g" in builder.update()


def test_builds_with_examples_are_assembled_again_and_still_equal(tmp_path: Path) -> None:
    root = tmp_path / "payments"
    shutil.copytree(PAYMENTS, root)
    options: dict[str, Any] = {"knowledge": root / "knowledge.json",
                               "examples": root / "examples.jsonl"}
    builder = GraphBuilder([root / "solutions"], jobs=1, **options)
    builder.build()
    script = sorted((root / "solutions").glob("*.py"))[0]
    _append(script.parent, script.name, "\ndef brand_new_step(fee_rules):\n    return fee_rules\n")
    graph = builder.update()
    fresh = build_graph([root / "solutions"], **options)
    assert graph.to_dict() == fresh.to_dict()
    assert builder.last_update is not None and not builder.last_update.patched


def test_sidecar_links_follow_a_renamed_function(tmp_path: Path) -> None:
    _write(tmp_path, FILES)
    sidecar = Sidecar(tags={}, functions={"scaled_rate": FunctionKnowledge(
        knowledge="The rate grows with the monthly volume.", inputs=("volume",),
        outputs=("scaled rate",))})
    options: dict[str, Any] = {"knowledge": sidecar, "infer_tags": True}
    builder = GraphBuilder([tmp_path], root=tmp_path, jobs=1, **options)
    builder.build()
    _edit(tmp_path, "pkg/rates.py", "def scaled_rate(", "def scaled_rate_v2(")
    graph = _same_as_fresh(builder, tmp_path, **options)
    assert graph.report is not None
    assert any("no function named 'scaled_rate'" in p.reason for p in graph.report.problems)
    _edit(tmp_path, "pkg/rates.py", "def scaled_rate_v2(", "def scaled_rate(")
    graph = _same_as_fresh(builder, tmp_path, **options)
    assert graph.producers("tag:scaled rate") == ["fn:pkg.rates.scaled_rate"]


def test_a_new_retriever_sees_the_update(tmp_path: Path) -> None:
    _write(tmp_path, FILES)
    builder = GraphBuilder([tmp_path], root=tmp_path, jobs=1, infer_tags=True)
    builder.build()
    _append(tmp_path, "util.py", "\ndef interchange_fee(merchant_category):\n    return 0.2\n")
    result = Retriever(builder.update()).retrieve(
        "Given the merchant category, what is the interchange fee?")
    assert "fn:util.interchange_fee" in [d.id for d in result.documents]


def test_update_before_build_builds_and_missing_sources_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, FILES)
    builder = GraphBuilder([tmp_path / "pkg"], root=tmp_path, jobs=1)
    with pytest.raises(Exception, match="build"):
        _ = builder.graph
    assert "fn:pkg.rates.base_rate" in builder.update()
    shutil.rmtree(tmp_path / "pkg")
    with pytest.raises(SourceError, match="does not exist"):
        builder.update()


def _stdlib_copy(root: Path, packages: tuple[str, ...]) -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in packages:
        shutil.copytree(stdlib / name, root / name,
                        ignore=shutil.ignore_patterns("__pycache__", "test*"))


@pytest.mark.slow
def test_random_edits_of_real_code_keep_the_graph_equal_to_a_fresh_build(tmp_path: Path) -> None:
    _stdlib_copy(tmp_path, ("json", "email"))
    options: dict[str, Any] = {"infer_tags": True}
    builder = GraphBuilder([tmp_path], root=tmp_path, jobs=1, **options)
    builder.build()
    rng = random.Random(7)
    patched = 0
    for _ in range(12):
        files = sorted(tmp_path.rglob("*.py"))
        path = rng.choice(files)
        text = path.read_text(encoding="utf-8")
        names = re.findall(r"^def (\w+)\(", text, re.M)
        other = rng.choice(files).relative_to(tmp_path).with_suffix("").as_posix()
        module = other.replace("/", ".").removesuffix(".__init__")
        choice = rng.randrange(5)
        if choice == 0 and names:
            name = rng.choice(names)
            text = text.replace(f"def {name}(", f"def {name}_renamed(")
        elif choice == 1:
            text = f"from {module} import *\n" + text
        elif choice == 2 and names:
            text += f"\nimport {module}\ndef calls_{len(text)}(x):\n    return {module}.x(x)\n"
        elif choice == 3:
            text += "\ndef split_fee_value(fee_rows, merchant):\n    return fee_rows\n"
        else:
            text = text.replace("def ", "def (", 1)
        path.write_text(text, encoding="utf-8")
        _same_as_fresh(builder, tmp_path, **options)
        assert builder.last_update is not None
        patched += builder.last_update.patched
    assert patched >= 10
