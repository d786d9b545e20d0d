"""A query in three modes: the extension on, one of its features switched off, and stock Spark
(the extension off). A feature's tests check that all three return the same rows, and that the
feature's node is in the first plan only."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pyspark.sql import Row, SparkSession

import pyspark_ext
from pyspark_ext.outcome import normalise
from tests.support.differential import ENABLED, confs

T = TypeVar("T")


@dataclass(frozen=True)
class Modes(Generic[T]):
    on: T  # the extension on, every feature at its default
    off: T  # the feature under test switched off
    stock: T  # the extension switched off


def in_modes(spark: SparkSession, feature: str | dict[str, str], measure: Callable[[], T]) -> Modes[T]:
    """``measure()`` with the extension on, with ``feature`` off (a conf key set to ``false``, or
    several settings), and with the extension off; in that order."""
    off = {feature: "false"} if isinstance(feature, str) else feature
    on_value = measure()
    with confs(spark, off):
        off_value = measure()
    with confs(spark, {ENABLED: "false"}):
        stock_value = measure()
    return Modes(on_value, off_value, stock_value)


@dataclass(frozen=True)
class Outcome:
    collected: list[Row]
    plan: str  # the executed plan, after the rows were computed
    scans: list[dict[str, Any]]  # explain_read_schema's report, when asked for (else empty)

    @property
    def rows(self) -> list[str]:
        """Sorted reprs of the Rows (field names included)."""
        return sorted(map(repr, self.collected))

    @property
    def normalised(self) -> list[Any]:
        """The rows as ``tests.support.differential.rows_of`` gives them: compare two modes' with
        ``assert_same_rows`` where doubles may differ in their last bits."""
        return [normalise(r) for r in self.collected]


def outcome(spark: SparkSession, sql: str, scans: bool = False) -> Outcome:
    """Run ``sql`` under the current settings: its rows, its executed plan and, with ``scans``,
    the read-schema report (run-time row counts included, since the query has run)."""
    df = spark.sql(sql)
    collected = df.collect()
    plan = df._jdf.queryExecution().executedPlan().toString()
    return Outcome(collected, plan, pyspark_ext.explain_read_schema(df) if scans else [])


def same_rows_in_modes(spark: SparkSession, sql: str, feature: str | dict[str, str],
                       scans: bool = False) -> Modes[Outcome]:
    """The three modes' outcomes of ``sql``; fails unless their rows are equal."""
    modes = in_modes(spark, feature, lambda: outcome(spark, sql, scans))
    assert modes.on.rows == modes.off.rows == modes.stock.rows, f"rows differ between modes for: {sql}"
    return modes
