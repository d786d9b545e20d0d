"""Runs each query with the extension off and on in one process, alternating, warmed, and keeps
medians. Results must match between the two on every run; a mismatch fails the run."""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field

from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext import settings

from .alternating import ResultMismatch, alternate, canonical_rows
from .metrics import InputBytes, scan_totals

__all__ = ["MODES", "QueryResult", "ResultMismatch", "plan_ms", "run_query"]

MODES = {"stock": "false", "extension": "true"}


@dataclass
class QueryResult:
    suite: str
    query: str
    rows: int
    seconds: dict[str, float] = field(default_factory=dict)
    plan_ms: dict[str, float] = field(default_factory=dict)
    input_bytes: dict[str, int] = field(default_factory=dict)
    task_input_bytes: dict[str, int] = field(default_factory=dict)
    column_bytes: dict[str, int] = field(default_factory=dict)
    read_leaves: dict[str, int] = field(default_factory=dict)
    row_groups_read: dict[str, int | None] = field(default_factory=dict)
    row_groups_skipped: dict[str, int | None] = field(default_factory=dict)
    limit_bytes: int | None = None

    @property
    def time_ratio(self) -> float:
        return self.seconds["extension"] / self.seconds["stock"]

    @property
    def bytes_ratio(self) -> float:
        return self.input_bytes["extension"] / max(1, self.input_bytes["stock"])

    def as_dict(self) -> dict:
        d = asdict(self)
        d["time_ratio"] = self.time_ratio
        d["bytes_ratio"] = self.bytes_ratio
        return d


def _set(spark: SparkSession, mode: str) -> None:
    spark.conf.set(settings.ENABLED, MODES[mode])


def plan_ms(spark: SparkSession, sql: str, mode: str, repeat: int = 5) -> float:
    """Median milliseconds to analyse and optimise ``sql``."""
    _set(spark, mode)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        spark.sql(sql)._jdf.queryExecution().optimizedPlan()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def run_query(spark: SparkSession, metrics: InputBytes, suite: str, name: str, sql: str,
              repeat: int) -> QueryResult:
    def one(mode: str):
        _set(spark, mode)
        df = spark.sql(sql)
        rows, elapsed, nbytes = metrics.measure(df.collect, f"bench-{suite}-{name}-{mode}")
        return canonical_rows(rows), elapsed, nbytes

    reference, seconds, nbytes = alternate(list(MODES), repeat, one, f"{suite}/{name}")
    result = QueryResult(suite, name, len(reference or []))
    for mode in MODES:
        result.seconds[mode] = seconds[mode]
        result.input_bytes[mode] = nbytes[mode]["storage"]
        result.task_input_bytes[mode] = nbytes[mode]["task_input"]
        result.plan_ms[mode] = plan_ms(spark, sql, mode)
        _set(spark, mode)
        totals = scan_totals(pyspark_ext.explain_read_schema(spark.sql(sql)))
        for key in ("column_bytes", "read_leaves", "row_groups_read", "row_groups_skipped"):
            getattr(result, key)[mode] = totals[key]
    _set(spark, "extension")
    return result
