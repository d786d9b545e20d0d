"""Runs each query with the extension off and on in one process, alternating, warmed, and keeps
medians. Results must match between the two on every run; a mismatch fails the run."""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field

from pyspark.sql import SparkSession

import pyspark_ext

from .metrics import InputBytes

MODES = {"stock": "false", "extension": "true"}


class ResultMismatch(AssertionError):
    pass


@dataclass
class QueryResult:
    suite: str
    query: str
    rows: int
    seconds: dict[str, float] = field(default_factory=dict)
    plan_ms: dict[str, float] = field(default_factory=dict)
    input_bytes: dict[str, int] = field(default_factory=dict)
    column_bytes: dict[str, int] = field(default_factory=dict)
    read_leaves: dict[str, int] = field(default_factory=dict)
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
    spark.conf.set("spark.pyspark_ext.enabled", MODES[mode])


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
    reference = None
    seconds: dict[str, list[float]] = {m: [] for m in MODES}
    input_bytes: dict[str, list[int]] = {m: [] for m in MODES}
    for i in range(repeat + 1):  # round 0 warms both
        order = list(MODES) if i % 2 == 0 else list(reversed(MODES))
        for mode in order:
            _set(spark, mode)
            df = spark.sql(sql)
            rows, elapsed, nbytes = metrics.measure(df.collect, f"bench-{suite}-{name}-{mode}")
            canon = sorted(repr(tuple(r)) for r in rows)
            if reference is None:
                reference = canon
            elif canon != reference:
                raise ResultMismatch(f"{suite}/{name}: rows differ between stock and extension")
            if i > 0:
                seconds[mode].append(elapsed)
                input_bytes[mode].append(nbytes)
    result = QueryResult(suite, name, len(reference or []))
    for mode in MODES:
        result.seconds[mode] = statistics.median(seconds[mode])
        result.input_bytes[mode] = int(statistics.median(input_bytes[mode]))
        result.plan_ms[mode] = plan_ms(spark, sql, mode)
        _set(spark, mode)
        scans = pyspark_ext.explain_read_schema(spark.sql(sql))
        result.column_bytes[mode] = sum(s["bytes_read"] or 0 for s in scans)
        result.read_leaves[mode] = sum(s["read_leaves"] for s in scans)
    _set(spark, "extension")
    return result
