"""Development tools, importable from a source checkout and not shipped in the wheel
(``pyproject.toml`` packages ``pyspark_ext`` only; nothing in ``pyspark_ext`` imports them).

``python -m devtools.fuzz --queries N --seed S [--kind nested|variant|all]``, the differential
fuzzer, generates its own data (``data``), random queries from one grammar per data shape
(``grammar_nested``, ``grammar_variant``, built with sqlglot's expression builder), compares the
outcomes (``pyspark_ext.outcome``), shrinks a failing query (``reduce``) and saves it as a
regression test (``regressions``). ``python -m devtools.scala_suites`` runs the Scala rule suites;
``maven`` and ``table_formats`` fetch the jars the tests need beside Spark's; ``deep_queries`` is
the deep ad-tech battery's queries with their expected read schemas.
"""
