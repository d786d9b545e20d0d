"""One way to turn query results into comparable, sorted strings, for exact comparisons.

The normaliser itself is the fuzzer's, ``pyspark_ext.outcome.normalise``: one function
for both. Tests compare exactly by default (its ``exact`` mode); ``fuzzer=True`` compares as the
fuzzer does. Rows whose doubles may differ in their last bits (a sum whose order the plan decides)
are compared by ``tests.support.differential``'s ``rows_of`` and ``assert_same_rows`` instead:
equal strings are no test of doubles within a tolerance.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyspark.sql import Row, SparkSession

from pyspark_ext.outcome import normalise


def comparable(x: Any) -> Any:
    """A cell (or row) as a value that compares by meaning, exactly.

    VARIANT cells compare by their JSON: binaries of equal values may differ in dictionary order.
    Rows of structs become plain tuples.
    """
    return normalise(x, exact=True)


def row_strings(rows: Iterable[Row], *, fuzzer: bool = False) -> list[str]:
    """Rows as a sorted list of reprs of their comparable values (a multiset).

    With ``fuzzer``, the values are compared as the fuzzer compares them (``normalise``'s
    default: VARIANT values by meaning, maps by their entries, doubles rounded), not exactly.
    """
    if fuzzer:
        return sorted(repr(normalise(tuple(r))) for r in rows)
    return sorted(repr(comparable(tuple(r))) for r in rows)


def query_rows(spark: SparkSession, query: str) -> list[str]:
    """The query's rows, as :func:`row_strings`."""
    return row_strings(spark.sql(query).collect())
