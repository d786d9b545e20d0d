"""Run a query with the extension off and on, and compare rows and read schemas."""
from __future__ import annotations

import base64
import datetime
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pyspark.sql import DataFrame, SparkSession

import pyspark_ext
from pyspark_ext import outcome
# the tests' name for it: confs set for a block, then restored
from pyspark_ext.scoped_confs import scoped_confs as confs  # noqa: F401
from pyspark_ext.session import local_session
from pyspark_ext.settings import ENABLED


def strict_session(app: str, warehouse: str) -> SparkSession:
    """The test session: extension loaded, strict mode, and Spark's own plan-change validation, so
    a rule that breaks plan integrity fails the query that triggers it."""
    return local_session(app, strict=True, confs={
        "spark.sql.planChangeValidation": "true", "spark.sql.warehouse.dir": warehouse, "spark.driver.memory": "2g"})


@dataclass
class Run:
    rows: list[Any]  # sorted reprs (``run``), or rows as ``rows_of`` gives them
    scans: list[dict[str, Any]]

    @property
    def read_schemas(self) -> list[str]:
        return sorted(s["read_schema"] for s in self.scans)

    @property
    def leaves(self) -> int:
        return sum(s["read_leaves"] for s in self.scans)


def run(spark: SparkSession, query: str | DataFrame, enabled: bool) -> Run:
    spark.conf.set(ENABLED, str(enabled).lower())
    try:
        df = spark.sql(query) if isinstance(query, str) else query
        # A fresh DataFrame, so the plan is optimised under the current setting.
        df = DataFrame(df._jdf.alias("q"), spark) if not isinstance(query, str) else df
        rows = sorted(repr(tuple(r)) for r in df.collect())  # names embed expression ids
        return Run(rows, pyspark_ext.explain_read_schema(df))
    finally:
        spark.conf.set(ENABLED, "true")


def compare(spark: SparkSession, query: str | DataFrame) -> tuple[Run, Run]:
    """(stock, extension) runs; fails if their rows differ."""
    stock = run(spark, query, enabled=False)
    ext = run(spark, query, enabled=True)
    assert ext.rows == stock.rows, f"rows differ with the extension on for: {query}"
    assert ext.leaves <= stock.leaves, (
        f"the extension reads more leaves than stock Spark: {ext.read_schemas} vs {stock.read_schemas}")
    return stock, ext


def rows_of(spark: SparkSession, query: str | DataFrame) -> list[Any]:
    """The query's rows (a SQL string, or a DataFrame already built), normalised as
    ``pyspark_ext.outcome`` normalises them; compare two lists with :func:`assert_same_rows`."""
    df = spark.sql(query) if isinstance(query, str) else query
    return [outcome.normalise(r) for r in df.collect()]


def rows_difference(got: list[Any], want: list[Any]) -> str | None:
    """How ``got`` differs from ``want`` by ``pyspark_ext.outcome``'s one definition of the same
    rows (as multisets, doubles to its relative tolerance), or None when they are the same."""
    return outcome.difference(outcome.Outcome(rows=want), outcome.Outcome(rows=got), order=None)


def assert_same_rows(got: list[Any], want: list[Any], what: str = "") -> None:
    """Fails unless ``got`` holds ``want``'s rows (:func:`rows_difference`), naming rows missing
    and unexpected. Equal sorted reprs of rounded rows are no such test: two doubles 7e-13 apart
    can round apart."""
    difference = rows_difference(got, want)
    assert difference is None, f"{difference}: {what}" if what else difference


def stored_rows(rows: list[Any]) -> list[Any]:
    """Rows from :func:`rows_of` as JSON values, for a test that runs its queries in another
    process; :func:`read_stored_rows` gives them back as they were, to compare by
    :func:`assert_same_rows`. Tuples become lists; a value JSON has no type for becomes an object
    of one entry, its type's tag and its text."""
    return [_stored(r) for r in rows]


def read_stored_rows(stored: list[Any]) -> list[Any]:
    """The rows :func:`stored_rows` stored, as :func:`rows_of` gave them."""
    return [_read_stored(r) for r in stored]


#: tag -> (the type, its text, the value of a text); datetime before date, which it extends
_STORED_TYPES: dict[str, tuple[type, Callable[[Any], str], Callable[[str], Any]]] = {
    "float": (float, repr, float),  # not finite only: JSON has no NaN or infinities
    "decimal": (Decimal, str, Decimal),
    "bytes": (bytes, lambda b: base64.b64encode(b).decode(), base64.b64decode),
    "timestamp": (datetime.datetime, datetime.datetime.isoformat, datetime.datetime.fromisoformat),
    "date": (datetime.date, datetime.date.isoformat, datetime.date.fromisoformat),
    "interval": (datetime.timedelta, lambda d: str(d // datetime.timedelta(microseconds=1)),
                 lambda t: datetime.timedelta(microseconds=int(t))),
}


def _stored(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_stored(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    for tag, (kind, text, _) in _STORED_TYPES.items():
        if isinstance(value, kind):
            return {tag: text(value)}
    raise TypeError(f"no stored form for {type(value).__name__}: {value!r}")


def _read_stored(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_read_stored(v) for v in value)
    if isinstance(value, dict):
        [(tag, text)] = value.items()
        return _STORED_TYPES[tag][2](text)
    return value


def same_outcome(spark: SparkSession, sql: str) -> tuple[outcome.Outcome, outcome.Outcome]:
    """(stock, extension) outcomes of ``sql``, the extension's with its read-schema report; fails unless both
    give the same rows by ``pyspark_ext.outcome``'s one definition (doubles to its tolerance)."""
    stock = outcome.run(spark, sql, enabled=False)
    ext = outcome.run(spark, sql, enabled=True, scans=True)
    assert stock.error is None, f"stock Spark fails {sql}: {stock.message}"
    difference = outcome.difference(stock, ext, order=None)
    assert difference is None, f"with the extension on, {difference}: {sql}"
    return stock, ext
