"""``--suite producers``: incremental pipelines (pyspark_ext.producers), side by side in one run.

* a from-scratch run of a two-node pipeline (source -> one Produce stage of ``rows`` rows) against
  updates touching 1% of the keys, scattered and clustered (contiguous keys): times, bytes
  written, files rewritten against carried over;
* a point lookup on the stage's content: row groups read and skipped (``explain_read_schema``);
* the first run's throughput in rows/s/core against ``groupBy().applyInPandas`` writing the same
  result as plain Parquet, on the first ``baseline_rows`` keys (default ``min(rows, 200000)``;
  at ~1,000 rows/s/core it would take hours at 10M rows; 0 skips it): throughput per core is
  what is compared.
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import pyspark_ext
from pyspark_ext.producers import Pipeline
from .suites import SuiteOptions


def double(key, values):
    for v in values:
        yield key, v * 2


def pipeline(spark: SparkSession, path: str) -> Pipeline:
    p = Pipeline(spark, path)
    p.stage("doubled", double, p.source("items"), key_type="bigint", value_type="bigint")
    return p


def _timed(fn) -> tuple[Any, float]:
    started = time.time()
    out = fn()
    return out, time.time() - started


def run_producers(spark: SparkSession, rows: int, out: Path,
                  baseline_rows: int | None = None) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    work = out / "_producers"
    shutil.rmtree(work, ignore_errors=True)
    cores = spark.sparkContext.defaultParallelism
    items = spark.range(rows).select(F.col("id").alias("key"),
                                     (F.col("id") * 7919 % 1000).alias("value"))
    source = str(work / "items.parquet")
    items.write.parquet(source)  # both jobs read the same unsorted (key, value) input
    items = spark.read.parquet(source)
    result: dict[str, Any] = {"rows": rows, "cores": cores}

    p = pipeline(spark, str(work / "pipeline"))
    _, scratch = _timed(lambda: p.run({"items": items}))
    result["from_scratch_seconds"] = round(scratch, 2)
    result["from_scratch_rows_per_second_per_core"] = round(rows / scratch / cores)
    result["from_scratch_stats"] = dict(p.last_stats)

    def apply(pdf):
        return pdf.assign(value=pdf["value"] * 2)
    plain = str(work / "plain.parquet")
    n = min(rows, 200_000) if baseline_rows is None else min(rows, baseline_rows)
    if n:
        subset = items.filter(F.col("key") < n)
        _, baseline = _timed(lambda: subset.groupBy("key").applyInPandas(
            apply, "key long, value long").write.parquet(plain))
        result["applyInPandas_rows"] = n
        result["applyInPandas_seconds"] = round(baseline, 2)
        result["applyInPandas_rows_per_second_per_core"] = round(n / baseline / cores)

    touched = max(1, rows // 100)
    for name, keys in (("scattered", F.col("id") * 100 + 37),
                       ("clustered", F.col("id") + rows // 2)):
        changes = spark.range(touched).select(F.lit("Update").alias("type"), keys.alias("key"),
                                              F.lit(5).cast("bigint").alias("value"))
        _, seconds = _timed(lambda: p.update({"items": changes}))
        stats = dict(p.last_stats)
        staged = sum(s.get("seconds_inputs", 0) for s in stats.values())
        merged = sum(s.get("seconds_merges", 0) for s in stats.values())
        result[f"update_{name}"] = {
            "keys": touched, "seconds": round(seconds, 2),
            # where it went: Produce + the replaced mappings, the merges, and the rest
            # (validating the changes, reading manifests, the commit)
            "seconds_inputs": round(staged, 2), "seconds_merges": round(merged, 2),
            "seconds_other": round(seconds - sum(s["seconds"] for s in stats.values()), 2),
            "ratio_to_from_scratch": round(seconds / scratch, 3),
            "bytes_written": sum(s["bytes_written"] for s in stats.values()),
            "files_rewritten": sum(s["files_rewritten"] for s in stats.values()),
            "files_written": sum(s["files_written"] for s in stats.values()),
            "files_carried": sum(s["files_carried"] for s in stats.values()),
            "per_stage": stats}

    lookup = p.content("doubled").filter(F.col("key") == rows // 3)
    assert [r.value for r in lookup.collect()] == [(rows // 3 * 7919 % 1000) * 2]
    scan = pyspark_ext.explain_read_schema(lookup)[0]
    result["point_lookup"] = {k: scan.get(k) for k in
                              ("row_groups", "row_groups_read", "row_groups_skipped",
                               "row_groups_read_metric", "row_groups_skipped_metric")}
    (out / "producers.json").write_text(json.dumps(result, indent=1, default=str))
    print(json.dumps({k: v for k, v in result.items() if k != "from_scratch_stats"}, indent=1,
                     default=str))
    return result


def run_suite(spark: SparkSession, o: SuiteOptions) -> None:
    run_producers(spark, o.scale or 1_000_000, o.out, o.baseline_rows)
