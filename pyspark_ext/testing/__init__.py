"""Differential fuzzing of the extension: random queries, run with it off and on, must agree.

``python -m pyspark_ext.testing.fuzz --queries N --seed S [--kind nested|variant|all]`` generates
its own data (``data``), random queries from one grammar per data shape (``grammar_nested``,
``grammar_variant``, built with sqlglot's expression builder), compares the outcomes
(``outcome``), shrinks a failing query (``reduce``) and saves it as a regression test
(``regressions``).
"""
