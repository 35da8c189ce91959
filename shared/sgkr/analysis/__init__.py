"""Analysis: what the extracted facts mean across files.

Call resolution (:mod:`~sgkr.analysis.resolve`, over the build's tables
(:mod:`~sgkr.analysis.tables`), what names mean by scoping (:mod:`~sgkr.analysis.scopes`,
:mod:`~sgkr.analysis.classes`), what they hold (:mod:`~sgkr.analysis.values`,
:mod:`~sgkr.analysis.flow`, :mod:`~sgkr.analysis.parameters`), each call site
(:mod:`~sgkr.analysis.calls`) and each function used as a value
(:mod:`~sgkr.analysis.references`)), which modules an edit can reach
(:mod:`~sgkr.analysis.affected`), the knowledge text of a definition
(:mod:`~sgkr.analysis.knowledge`; its I/O tags are the next stage's, :mod:`sgkr.tags`) and
the merging of identical functions
(:mod:`~sgkr.analysis.merge`).
"""
