"""Ingest: finding and reading sources, and one syntax pass per file into typed facts.

The only stage that knows tree-sitter. Files are read by :mod:`~sgkr.ingest.files`
rules, walked by :mod:`~sgkr.ingest.sources` (``.gitignore`` by
:mod:`~sgkr.ingest.ignore`), notebooks read by :mod:`~sgkr.ingest.notebook`, and each
module extracted by :mod:`~sgkr.ingest.extract`, through the content-hash cache of
:mod:`~sgkr.ingest.cache`.
"""
