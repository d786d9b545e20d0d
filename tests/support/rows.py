"""One way to turn query results into comparable, sorted strings."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyspark.sql import Row, SparkSession
from pyspark.sql.types import VariantVal


def comparable(x: Any, *, round_floats: bool = False) -> Any:
    """A cell (or row) as a value that compares by meaning.

    VARIANT cells compare by their JSON: binaries of equal values may differ in dictionary order.
    Rows of structs become plain tuples. With ``round_floats``, doubles keep 12 significant
    digits: plans that reach an aggregate differently (one scan, or a Union of scans) may sum
    doubles in another order.
    """
    if isinstance(x, VariantVal):
        return ("variant", x.toJson())
    if isinstance(x, list):
        return [comparable(i, round_floats=round_floats) for i in x]
    if isinstance(x, tuple):  # Rows too (a generator's Row(...) is one field)
        return tuple(comparable(i, round_floats=round_floats) for i in x)
    if round_floats and isinstance(x, float):
        return float(f"{x:.12g}")
    return x


def row_strings(rows: Iterable[Row], *, round_floats: bool = False) -> list[str]:
    """Rows as a sorted list of reprs of their comparable values (a multiset)."""
    return sorted(repr(comparable(tuple(r), round_floats=round_floats)) for r in rows)


def query_rows(spark: SparkSession, query: str) -> list[str]:
    """The query's rows, as :func:`row_strings`."""
    return row_strings(spark.sql(query).collect())


def query_rows_rounded(spark: SparkSession, query: str) -> list[str]:
    """The query's rows, as :func:`row_strings` with doubles rounded."""
    return row_strings(spark.sql(query).collect(), round_floats=True)
