"""One way to turn query results into comparable, sorted strings.

The normaliser itself is the fuzzer's, ``pyspark_ext.outcome.normalise``: one function
for both. Tests compare exactly by default (its ``exact`` mode); ``fuzzer=True`` compares as the
fuzzer does.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession

from pyspark_ext.outcome import normalise


def comparable(x: Any, *, round_floats: bool = False) -> Any:
    """A cell (or row) as a value that compares by meaning, exactly.

    VARIANT cells compare by their JSON: binaries of equal values may differ in dictionary order.
    Rows of structs become plain tuples. With ``round_floats``, doubles keep 12 significant
    digits: plans that reach an aggregate differently (one scan, or a Union of scans) may sum
    doubles in another order.
    """
    return normalise(x, exact=True, round_floats=round_floats)


def row_strings(rows: Iterable[Row], *, round_floats: bool = False, fuzzer: bool = False) -> list[str]:
    """Rows as a sorted list of reprs of their comparable values (a multiset).

    With ``fuzzer``, the values are compared as the fuzzer compares them (``normalise``'s
    default: VARIANT values by meaning, maps by their entries, doubles rounded), not exactly.
    """
    if fuzzer:
        return sorted(repr(normalise(tuple(r))) for r in rows)
    return sorted(repr(comparable(tuple(r), round_floats=round_floats)) for r in rows)


def query_rows(spark: SparkSession, query: str) -> list[str]:
    """The query's rows, as :func:`row_strings`."""
    return row_strings(spark.sql(query).collect())


def query_rows_rounded(spark: SparkSession, query: str | DataFrame) -> list[str]:
    """The query's rows (a SQL string, or a DataFrame already built), as :func:`row_strings` with
    doubles rounded."""
    df = spark.sql(query) if isinstance(query, str) else query
    return row_strings(df.collect(), round_floats=True)
