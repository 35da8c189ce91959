"""Analysis: what the extracted facts mean across files.

Call resolution (:mod:`~sgkr.analysis.resolve`), which modules an edit can reach
(:mod:`~sgkr.analysis.affected`), knowledge and I/O tags from sidecars, examples and
code (:mod:`~sgkr.analysis.knowledge`) and the merging of identical functions
(:mod:`~sgkr.analysis.merge`).
"""
