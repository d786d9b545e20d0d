"""Optimizer overhead of the extension on wide schemas and big plans: analysis plus optimisation
time with the extension off and on, no execution."""
from __future__ import annotations

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from pyspark_ext.data import adtech

from .datasets import _key
from .runner import MODES, _set

import statistics
import time


def _time_plan(spark: SparkSession, build, mode: str, repeat: int = 5) -> float:
    _set(spark, mode)
    samples = []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        build()._jdf.queryExecution().optimizedPlan()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples[1:])


def run_overhead(spark: SparkSession) -> list[dict]:
    wide = _key("wide_schema", leaves=2000, version=2)
    if not (wide / "_SUCCESS").exists():
        adtech.events(spark, rows=100, payload_width=2000, partitions=1).write.parquet(str(wide))
    events = spark.read.parquet(str(wide))

    def wide_schema():
        return events.where("payload.f0001 > 0").groupBy("user.geo.country").agg(
            F.sum("payload.f0002"), F.first("page").getField("url"))

    def hundred_operators():
        df = events.select("id", "user", "page", "payload")
        for i in range(50):
            df = df.withColumn(f"c{i}", F.col("payload").getField(f"f{i:04d}")).where(f"id > {-i}")
        return df.select("user.geo.city", *[f"c{i}" for i in range(0, 50, 10)])

    def fifty_way_union():
        parts = [events.select(F.col("user.geo").alias("g"), F.lit(i).alias("i")) for i in range(50)]
        out = parts[0]
        for p in parts[1:]:
            out = out.unionAll(p)
        return out.select("g.city", "i")

    results = []
    for name, build in [("2000-leaf schema", wide_schema), ("100-operator plan", hundred_operators),
                        ("50-way union", fifty_way_union)]:
        ms = {mode: _time_plan(spark, build, mode) for mode in MODES}
        results.append({"case": name, "plan_ms": ms, "added_ms": ms["extension"] - ms["stock"]})
    _set(spark, "extension")
    return results
