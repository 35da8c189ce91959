"""Retrieval: question → tags → paths → ranked functions → context.

:class:`~sgkr.retrieval.retriever.Retriever` is the entry point; tag matching is in
:mod:`~sgkr.retrieval.tags`, :mod:`~sgkr.retrieval.tagmatch` and
:mod:`~sgkr.retrieval.tagembed`, metadata filters in :mod:`~sgkr.retrieval.filters`
and the documents and prompt slots in :mod:`~sgkr.retrieval.context`.
"""
