"""Algorithms over a graph that every store shares.

The lexical index (:mod:`~sgkr.algorithms.lexical`), bounded dependency paths between
tags (:mod:`~sgkr.algorithms.paths`) and personalized PageRank
(:mod:`~sgkr.algorithms.walk`).
"""
