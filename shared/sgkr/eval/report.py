"""Reports of evaluation results: a text table, JSON, Markdown and one PNG.

Examples
--------
>>> from sgkr.eval.metrics import Summary
>>> from sgkr.eval.runner import EvalResult
>>> s = Summary(3, 0.5, 0.25, 0.0, 4.0, 120.0, 1.5)
>>> r = EvalResult("toy", "questions", 4, ("sgkr",), {"all": {"sgkr": s}}, (), (), {}, 0.1)
>>> print(format_table([r]).splitlines()[2])
sgkr       all     3  0.500   0.250      0.000       4.0    120     1.50
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import InvalidArgumentError
from .runner import EvalResult

__all__ = ["format_table", "to_json", "to_markdown", "plot", "write_report"]

_HEAD = ("retriever", "subset", "n", "recall", "precision", "full cover", "nodes", "tokens",
         "p50 ms")


def _rows(result: EvalResult) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for subset, summaries in result.summaries.items():
        for name in result.retrievers:
            s = summaries[name]
            rows.append((name, subset, str(s.questions), f"{s.recall:.3f}", f"{s.precision:.3f}",
                         f"{s.full_cover:.3f}", f"{s.nodes:.1f}", f"{s.tokens:.0f}",
                         f"{s.latency_ms_p50:.2f}"))
    return rows


def format_table(results: Sequence[EvalResult]) -> str:
    """A plain-text table per dataset, for the terminal."""
    blocks = []
    for result in results:
        rows = [_HEAD, *_rows(result)]
        widths = [max(len(r[i]) for r in rows) for i in range(len(_HEAD))]
        lines = [f"{result.dataset} ({result.mode}; budget k={result.budget})"]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                  for r in rows]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def to_json(results: Sequence[EvalResult], meta: dict[str, Any] | None = None) -> str:
    """All results as one JSON document (summaries and per-question records)."""
    return json.dumps({"meta": meta or {}, "datasets": [r.to_dict() for r in results]},
                      indent=1, ensure_ascii=False)


def to_markdown(results: Sequence[EvalResult], meta: dict[str, Any] | None = None) -> str:
    """A Markdown section per dataset with its table."""
    out = ["# SGKR evaluation", ""]
    for key, value in (meta or {}).items():
        out.append(f"- {key}: {value}")
    for result in results:
        info = ", ".join(f"{k} {v}" for k, v in result.graph.items())
        out += ["", f"## {result.dataset}", "",
                f"{result.mode}; baseline budget k = {result.budget}; graph: {info}; "
                f"{len(result.skipped)} question(s) without gold in the graph skipped.", "",
                "| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
        out += ["| " + " | ".join(row) + " |" for row in _rows(result)]
    return "\n".join(out) + "\n"


def plot(results: Sequence[EvalResult], path: str | os.PathLike[str], *,
         subset: str = "hard") -> Path:
    """One PNG: recall against mean context tokens, a panel per dataset, a point per retriever.

    ``subset`` is used where a dataset has it, else ``all``.
    """
    if not results:
        raise InvalidArgumentError("nothing to plot: no results")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 5), squeeze=False)
    for ax, result in zip(axes[0], results, strict=True):
        chosen = subset if subset in result.summaries else "all"
        for name in result.retrievers:
            s = result.summaries[chosen][name]
            base = name.startswith("sgkr")
            ax.scatter(s.tokens, s.recall, marker="o" if base else "s",
                       color="tab:blue" if base else "tab:orange")
            ax.annotate(name, (s.tokens, s.recall), fontsize=7, xytext=(3, 3),
                        textcoords="offset points")
        ax.set_title(f"{result.dataset} ({chosen}, k={result.budget})")
        ax.set_xlabel("mean context tokens")
        ax.set_ylabel("recall of gold functions")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, dpi=110, format="png")
    plt.close(fig)
    return write_atomic(path, image.getvalue())


def write_report(results: Sequence[EvalResult], folder: str | os.PathLike[str], *,
                 meta: dict[str, Any] | None = None, png: bool = True) -> list[Path]:
    """Write results.json, results.md and (optionally) recall_vs_tokens.png into ``folder``."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "results.json", out / "results.md"]
    write_atomic(written[0], to_json(results, meta) + "\n")
    write_atomic(written[1], to_markdown(results, meta))
    if png:
        written.append(plot(results, out / "recall_vs_tokens.png"))
    return written
