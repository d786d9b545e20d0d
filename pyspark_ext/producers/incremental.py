"""One stage's step from version N to N+1, on the driver: build the instructions, let Spark sort
them, merge them into the stage's files (``merge``), and describe the new files.

For a stage with changed source keys ``C``:

1. ``R``: Produce's output for the keys of ``C`` that still have values (sources: the upserts).
2. ``M``: the stage's old key_mappings rows whose source key is in ``C`` (a semi-join); its target
   keys are the affected keys whose old rows from these source keys must go.
3. Content instructions: delete ``(k_t, k_s)`` for each row of ``M``, insert each row of ``R``.
   Key_mappings instructions: delete each row of ``M``, insert the distinct ``(k_s, k_t)`` of ``R``,
   less the pairs both deleted and inserted (unchanged).
4. Each instruction gets the index of the content (or key_mappings) file whose key range holds it;
   Spark sorts the instructions only, and one merge per touched file writes its replacement and,
   for content, the update rows of the keys it touched. Files no instruction falls into are
   carried into N+1 as they are.

``R`` and ``M`` are written to the version's ``_staging`` directory first, so Produce runs exactly
once per version and the two merges read the same rows.
"""
from __future__ import annotations

import json
import math
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DataType, StructField, StructType

from . import key_order
from .merge import META_SCHEMA, merge_task
from .rows import arrow_type, content_schema, decode, mappings_schema, update_schema
from .storage import Store, version_dir


@dataclass
class Context:
    spark: SparkSession
    store: Store
    version: int
    rows_per_group: int
    rows_per_file: int
    row_group_bytes: int
    partitions: int
    large: bool
    crash: Callable[[str, str], None]


@dataclass
class Step:
    """What a stage's step wrote, as its manifest entry."""
    entry: dict[str, Any]
    stats: dict[str, Any] = field(default_factory=dict)


def read_files(spark: SparkSession, store: Store, files: list[dict[str, Any]],
               schema: StructType) -> DataFrame:
    if not files:
        return spark.createDataFrame([], schema)
    return spark.read.schema(schema).parquet(*(store.uri(f["path"]) for f in files))


def _types(entry: dict[str, Any]) -> tuple[DataType, DataType, DataType]:
    from pyspark.sql.types import _parse_datatype_json_string as parse
    return (parse(entry["key_type"]), parse(entry["source_key_type"]),
            parse(entry["value_type"]))


def entry_frames(spark: SparkSession, store: Store, entry: dict[str, Any]
                 ) -> dict[str, DataFrame]:
    kt, ks, v = _types(entry)
    return {"content": read_files(spark, store, entry["content"], content_schema(kt, ks, v)),
            "key_mappings": read_files(spark, store, entry["key_mappings"],
                                       mappings_schema(ks, kt)),
            "update": read_files(spark, store, entry["update"], update_schema(kt, v))}


def _stage(ctx: Context, df: DataFrame, rel: str) -> DataFrame:
    df.write.mode("overwrite").parquet(ctx.store.uri(rel))
    return ctx.spark.read.schema(df.schema).parquet(ctx.store.uri(rel))


#: the fewest rows worth a task of their own, in Produce's shuffle and a first run's merge
TASK_ROWS = 65536


def tasks(ctx: Context, rows: int) -> int:
    """Tasks for a shuffle of at most ``rows`` rows: one per ``TASK_ROWS``, at most
    ``ctx.partitions``. Tiny data gets one task, not ``spark.sql.shuffle.partitions`` (200 by
    default) tasks that each start on an empty or near-empty partition."""
    return max(1, min(ctx.partitions, math.ceil(rows / TASK_ROWS)))


def run_produce(ctx: Context, stage: str, fn: Callable[..., Any], inputs: DataFrame,
                ks: DataType, side_types: list[DataType], kt: DataType, v: DataType,
                value_order: list[Any] | None = None, rows: int | None = None) -> DataFrame:
    """Produce's output for ``inputs`` (key, side, value_0, ...), at most ``rows`` rows if known:
    each key's rows reach ``fn`` side by side, each side's values in ``value_order`` (Spark sort
    columns over ``value``, or ``value_<side>`` in a join) or, without it, in whatever order the
    shuffle left them."""
    from .produce import produce_task
    task = produce_task(stage, fn, ks, side_types, kt, v, ctx.large)
    out = StructType([StructField("key", kt, False), StructField("source_key", ks, False),
                      StructField("value", v, True)])
    # hash partitioning keeps each key's rows in one task, however many tasks there are
    frame = inputs.repartition(ctx.partitions if rows is None else tasks(ctx, rows), "key")
    if value_order and len(side_types) == 1:  # the task reads columns by position, not name
        frame = frame.withColumnRenamed("value_0", "value")
    return frame.sortWithinPartitions("key", "side", *(value_order or [])).mapInArrow(task, out)


def _assign_range(boundaries: list[Any], k1: DataType, order: key_order.Order | None
                  ) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """Tag each instruction with the file whose range holds its k1 (a binary search of the
    files' first keys, a batch at a time)."""
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import numpy as np
        from .merge_batches import key_array
        by = key_order.sort_key(k1, order)
        bounds = key_array(pa.array(boundaries, type=arrow_type(k1)), k1, by)
        for b in batches:
            ranges = np.searchsorted(bounds, key_array(b.column(1), k1, by), "right")
            yield b.set_column(0, "range", pa.array(ranges.astype(np.int32)))
    return run


def staged_rows(store: Store, rel: str) -> int:
    """The rows of the Parquet files Spark wrote under ``rel``, from their footers (no job)."""
    import pyarrow.parquet as pq
    fs, _ = store.fs()
    return sum(pq.ParquetFile(info.path, filesystem=fs).metadata.num_rows
               for info in store.list(rel) if info.base_name.endswith(".parquet"))


def merge_files(ctx: Context, kind: str, stage: str, old: list[dict[str, Any]],
                instructions: DataFrame, k1: DataType, k2: DataType, v: DataType | None,
                preserve: Callable[[Any, Any], Any] | None, next_id: int, rows: int,
                order: key_order.Order | None = None
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int, dict[str, int]]:
    """Merge sorted ``instructions`` (k1, k2, op[, value]), at most ``rows`` of them, into the
    file set ``old``; returns the new files, the update files (content only), the preserve
    counter and rewrite statistics."""
    cols = ["range", "k1", "k2", "op"] + (["value"] if v is not None else [])
    instructions = instructions.select(F.lit(0).cast("int").alias("range"), *cols[1:])
    if not old:
        if rows == 0:
            return [], [], next_id, {"files_written": 0, "files_carried": 0, "bytes_written": 0}
        # a task per file at least, and up to a task per row group for parallelism, but not for
        # less than TASK_ROWS rows: one partition needs no sampling job for its range bounds
        per_task = max(ctx.rows_per_group, TASK_ROWS)
        parts = 1 if preserve else max(1, math.ceil(rows / ctx.rows_per_file),
                                       min(ctx.partitions, math.ceil(rows / per_task)))
        sorted_ = (instructions.repartitionByRange(parts, *key_order.columns("k1", order))
                   .withColumn("range", F.spark_partition_id()))
        old_paths: dict[int, str | None] = {}
    else:
        bounds = [decode(f["first"]) for f in old[1:]]
        tagged = instructions.mapInArrow(_assign_range(bounds, k1, order), instructions.schema)
        sorted_ = tagged.repartition(1 if preserve else min(len(old), ctx.partitions), "range")
        old_paths = {i: f["path"] for i, f in enumerate(old)}
    sorted_ = sorted_.sortWithinPartitions(
        "range", *key_order.columns("k1", order), "k2", "op").select(*cols)
    task = merge_task(ctx.store, kind, stage, old_paths, k1, k2, v,
                      f"{version_dir(ctx.version)}/{stage}", ctx.rows_per_group,
                      ctx.rows_per_file, ctx.row_group_bytes, preserve, next_id, order=order)
    meta = [r.asDict() for r in sorted_.mapInArrow(task, META_SCHEMA).collect()]
    done = {m["range"] for m in meta if m["kind"] == "done"}
    counter = max([m["next_id"] for m in meta if m["kind"] == "done"] or [next_id])

    def files(k: str, rng: int) -> list[dict[str, Any]]:
        return [{"path": m["path"], "rows": m["rows"], "bytes": m["bytes"],
                 "first": json.loads(m["first"]), "last": json.loads(m["last"])}
                for m in sorted((m for m in meta if m["kind"] == k and m["range"] == rng),
                                key=lambda m: m["part"])]
    ranges = sorted(done) if not old else range(len(old))
    new: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    for r in ranges:
        new += files(kind, r) if r in done else [old[r]]
        updates += files("update", r)
    written = [m for m in meta if m["kind"] in (kind, "update")]
    stats = {"files_written": len(written), "bytes_written": sum(m["bytes"] for m in written),
             "files_carried": len(ranges) - len(done) if old else 0,
             "files_rewritten": len(done & set(range(len(old)))) if old else 0}
    return new, updates, counter, stats


def step(ctx: Context, stage: str, old: dict[str, Any] | None, produced: DataFrame,
         changed: DataFrame, kt: DataType, ks: DataType, v: DataType,
         preserve: Callable[[Any, Any], Any] | None, identity: bool = False,
         order: key_order.Order | None = None) -> Step:
    """Write version N+1 of ``stage`` given Produce's output ``produced`` (key, source_key,
    value) for the changed source keys ``changed`` (one column ``key``).

    ``identity`` (a source: every row maps its key to itself) skips reading the old key_mappings:
    the rows to replace are ``(k, k)`` for each changed key, and the mappings change only where
    the content's update says a key was added or is gone (``_identity_mappings``)."""
    started = time.time()
    base = f"{version_dir(ctx.version)}/{stage}/_staging"
    identity = identity and old is not None
    # the two halves of each phase are independent Spark jobs; running them side by side halves
    # a small update's latency (most of it is per-job overhead)
    with ThreadPoolExecutor(2) as pool:
        staged = pool.submit(_stage, ctx, produced, f"{base}/produced")
        if identity:
            replaced = pool.submit(_stage, ctx, changed.select(
                F.col("key").alias("source_key"), F.col("key")), f"{base}/replaced").result()
        elif old is not None and old["key_mappings"]:
            mappings = read_files(ctx.spark, ctx.store, old["key_mappings"],
                                  mappings_schema(ks, kt))
            replaced = pool.submit(_stage, ctx, mappings.join(
                changed.select(F.col("key").alias("source_key")), "source_key", "left_semi"),
                f"{base}/replaced").result()
        else:
            replaced = ctx.spark.createDataFrame([], mappings_schema(ks, kt))
        produced = staged.result()
        staged_at = time.time()
        # instructions are at most these rows: sizes the first run's range partitioning
        bound = staged_rows(ctx.store, f"{base}/produced") + (
            staged_rows(ctx.store, f"{base}/replaced")
            if old is not None and (old["key_mappings"] or identity) else 0)
        nothing = F.lit(None).cast(v)
        content_instr = replaced.select(
            F.col("key").alias("k1"), F.col("source_key").alias("k2"),
            F.lit(0).cast("tinyint").alias("op"), nothing.alias("value")).unionByName(
            produced.select(F.col("key").alias("k1"), F.col("source_key").alias("k2"),
                            F.lit(1).cast("tinyint").alias("op"), F.col("value")))
        # A mapping both deleted and re-inserted (a changed source key that still produces the
        # same target key, the usual case) is no change: only the net instructions reach the
        # merge, so mapping files whose pairs did not change are carried over unread.
        map_instr = (replaced.select(
            F.col("source_key").alias("k1"), F.col("key").alias("k2"),
            F.lit(0).cast("tinyint").alias("op")).unionByName(
            produced.select(F.col("source_key").alias("k1"), F.col("key").alias("k2"),
                            F.lit(1).cast("tinyint").alias("op")))
            .groupBy("k1", "k2").agg(F.min("op").alias("op"), F.max("op").alias("last"))
            .filter("op = last").drop("last"))

        def content_then_crash_point() -> tuple:
            out = merge_files(ctx, "content", stage, (old or {}).get("content", []),
                              content_instr, kt, ks, v, preserve, (old or {}).get("next_id", 1),
                              bound, order)
            ctx.crash("mid-stage", stage)
            return out
        if identity:
            content, updates, next_id, cstats = content_then_crash_point()
            mappings, mstats = _identity_mappings(ctx, stage, old, updates, kt, v, bound)
        else:
            merged_content = pool.submit(content_then_crash_point)
            mappings, _, _, mstats = merge_files(
                ctx, "key_mappings", stage, (old or {}).get("key_mappings", []), map_instr, ks,
                kt, None, None, 1, bound)
            content, updates, next_id, cstats = merged_content.result()
    entry = {"key_type": kt.json(), "source_key_type": ks.json(), "value_type": v.json(),
             "content": content, "key_mappings": mappings, "update": updates,
             "next_id": next_id}
    if order is not None:
        entry["key_order"] = key_order.to_json(order)
    stats = {"rows": sum(f["rows"] for f in content),
             "update_rows": sum(f["rows"] for f in updates),
             "files_written": cstats["files_written"] + mstats["files_written"],
             "files_carried": cstats["files_carried"] + mstats["files_carried"],
             "files_rewritten": cstats.get("files_rewritten", 0) + mstats.get("files_rewritten", 0),
             "bytes_written": cstats["bytes_written"] + mstats["bytes_written"],
             "seconds": round(time.time() - started, 3),
             # where the time went: Produce and the replaced mappings, then the two merges
             "seconds_inputs": round(staged_at - started, 3),
             "seconds_merges": round(time.time() - staged_at, 3)}
    entry["stats"] = stats
    return Step(entry, stats)


def _identity_mappings(ctx: Context, stage: str, old: dict[str, Any],
                       updates: list[dict[str, Any]], kt: DataType, v: DataType, bound: int
                       ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """A source's key_mappings of version N+1 from its content's update rows: ``(k, k)`` is
    inserted for a key the update adds and deleted for a key it deletes; an update of values
    only leaves every mappings file as it was, unread."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    fs, _ = ctx.store.fs()
    if not any(pc.any(pc.not_equal(pq.read_table(ctx.store.path(f["path"]), columns=["type"],
                                                 filesystem=fs).column("type"), "Update")).as_py()
               for f in updates):
        return old["key_mappings"], {"files_written": 0, "bytes_written": 0,
                                     "files_carried": len(old["key_mappings"]),
                                     "files_rewritten": 0}
    changes = read_files(ctx.spark, ctx.store, updates, update_schema(kt, v)).filter(
        F.col("type") != "Update")
    instructions = changes.select(F.col("key").alias("k1"), F.col("key").alias("k2"),
                                  F.when(F.col("type") == "Add", 1).otherwise(0)
                                  .cast("tinyint").alias("op"))
    mappings, _, _, stats = merge_files(ctx, "key_mappings", stage, old["key_mappings"],
                                        instructions, kt, kt, None, None, 1, bound)
    return mappings, stats


def unchanged(old: dict[str, Any]) -> Step:
    """A stage none of whose inputs changed: every file carried over, an empty update."""
    entry = dict(old, update=[])
    entry["stats"] = {"rows": sum(f["rows"] for f in old["content"]), "update_rows": 0,
                      "files_written": 0,
                      "files_carried": len(old["content"]) + len(old["key_mappings"]),
                      "files_rewritten": 0, "bytes_written": 0, "seconds": 0.0}
    return Step(entry, entry["stats"])
