"""The same checks for every deployment: data written, queries run, what each read.

``run_checks(spark, base)`` writes a small nested event log and a small variant table (the draft
layout by the extension's writer, the spec layout by Spark's own shredding writer), runs the
extension's features on them and returns JSON-able results: each query's rows with the
extension off and on, and its ``explain_read_schema`` report with the run-dependent parts (paths,
expression ids) taken out. Running it in local mode and on a cluster must give equal results.
Everything is generated with SQL, so no Python worker is needed on the executors.
"""
from __future__ import annotations

import re
from typing import Any

from pyspark.sql import DataFrame, SparkSession

import pyspark_ext
from pyspark_ext.data import adtech
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext import settings
from tests.support.differential import ENABLED, confs
from tests.support.nested_shapes import SHAPES

ROWS, GROUP = 1000, 100
DRAFT_SCHEMA = "id bigint, name string, score double, user struct<tier: string>"
SPEC_SCHEMA = "struct<id: bigint, name: string, score: double, user: struct<tier: string>>"
# Row-group metrics on every filtered scan, so the nested table's scans are counted too.
SETTINGS = {settings.ROW_GROUP_METRICS: "true",
            settings.ROW_GROUP_METRICS_ALL_SCANS: "true"}

# Queries over one table each; VARIANT runs over both layouts.
QUERIES = {
    "nested_project_filter":
        "SELECT id, user.geo.city FROM events WHERE user.geo.country = 'US'",
    "nested_explode":
        "SELECT id, v.ts, i.cpc FROM events LATERAL VIEW explode(page.views) t AS v "
        "LATERAL VIEW explode(v.items) u AS i WHERE i.clicked",
    "nested_join_aggregate":
        "SELECT e.user.geo.country, count(*), max(f.attrs['ctr'].score) FROM events e "
        "JOIN events f ON e.id = f.id + 1 GROUP BY 1",
    "nested_row_groups":
        "SELECT id, user.user_id FROM events WHERE id BETWEEN 250 AND 449",
    "nested_orc":
        "SELECT id, user.geo.city FROM events_orc WHERE exists(page.views, v -> v.ts % 7 = 0)",
    # files that shred id differently (bigint, string) are read under a Union, per file
    "spec_mixed_files_path_reads":
        "SELECT rid, v:id::string, v:user.tier::string FROM spec_mixed WHERE v:score::double > 100",
    "spec_mixed_files_reconstruct": "SELECT rid, to_json(v) FROM spec_mixed",
    # partition columns: leaves are read by Spark's reader
    "draft_partitioned_path_reads":
        "SELECT p, count(*), max(v:name::string) FROM draft_partitioned "
        "WHERE v:id::bigint < 700 GROUP BY p",
}

#: The checks of ``QUERIES`` that need no VARIANT.
NESTED = tuple(name for name in QUERIES if name.startswith("nested_"))

VARIANT = {
    "path_reads": "SELECT rid, v:id::bigint, v:name::string, v:user.tier::string FROM {t} "
                  "WHERE v:score::double > 100",
    "skip_between": "SELECT rid, v:name::string FROM {t} WHERE v:id::bigint BETWEEN 250 AND 449",
    "skip_equal": "SELECT rid FROM {t} WHERE v:id::bigint = 555",
    "skip_with_residual": "SELECT rid FROM {t} WHERE v:id::bigint = 777",
    "aggregate": "SELECT v:user.tier::string AS tier, sum(v:score::double), count(v) FROM {t} "
                 "GROUP BY 1",
    "reconstruct": "SELECT rid, to_json(v), schema_of_variant(v) FROM {t}",
    "explode_whole": "SELECT rid, e.key, to_json(e.value) FROM {t}, "
                     "LATERAL variant_explode(v) e WHERE rid % 7 = 0",
    "writer_round_trip": "SELECT count(*) FROM {t} d JOIN source s ON d.rid = s.rid "
                         "WHERE to_json(d.v) = to_json(s.v)",
}

# The nested query shapes run on every deployment: one of each kind of operator the executors run
# over a pruned read (generators, higher-order functions, shuffles for aggregates, joins, windows
# and set operations, subqueries, sorts, hints). ``tests/pruning`` runs all of them, in local mode.
DEPLOYED_SHAPES = (
    "aggregate_hof", "array_sort_comparator", "chained_explode", "correlated_scalar", "cube_other_key",
    "exists_inner_nested_condition", "explode_map", "filter_then_field", "in_subquery",
    "inline_outer_two", "intersect_whole", "map_filter", "posexplode_outer", "project_filter",
    "repartition_hint", "sort_by_nested", "struct_equality", "union_distinct_whole",
    "window_partition_nested", "zip_with",
)

# What depends on where the data was written (the table path) and on expression ids (#12).
_VOLATILE = {"table"}


def source(spark: SparkSession) -> DataFrame:
    """Variant events sorted by ``rid``; id 642 is a string (kept untyped, so its row group
    cannot be skipped) and every 10th object has a field the schema does not shred."""
    return spark.range(ROWS).selectExpr("id AS rid", """parse_json(concat(
        '{"id": ', CASE WHEN id = 642 THEN concat('"', id, '"') ELSE cast(id AS string) END,
        ', "name": "n', lpad(cast(id AS string), 5, '0'),
        '", "score": ', cast(id / 4 + 0.5 AS string), 'e0',
        ', "user": {"tier": "', CASE WHEN id % 2 = 0 THEN 'gold' ELSE 'silver' END, '"}',
        CASE WHEN id % 10 = 3 THEN concat(', "extra": {"x": ', id, '}') ELSE '' END,
        '}')) AS v""")


def _write(df: DataFrame, path: str) -> None:
    df.orderBy("rid").coalesce(1).write.mode("overwrite") \
        .option("parquet.block.row.count.limit", GROUP) \
        .option("parquet.page.row.count.limit", GROUP).parquet(path)


def prepare(spark: SparkSession, base: str, variant: bool = True) -> None:
    """Write the tables under ``base`` and register them as temp views; the variant tables only
    with ``variant`` (the line carries the variant half)."""
    adtech.write_events(spark, f"{base}/events", rows=ROWS, payload_width=8, partitions=1)
    # One file sorted by id, in 100-row row groups, so ranges on id skip row groups.
    spark.read.parquet(f"{base}/events").orderBy("id").coalesce(1).write.mode("overwrite") \
        .option("parquet.block.row.count.limit", GROUP).parquet(f"{base}/events_sorted")
    spark.read.parquet(f"{base}/events_sorted").createOrReplaceTempView("events")
    spark.read.parquet(f"{base}/events_sorted").write.orc(f"{base}/events_orc")
    spark.read.orc(f"{base}/events_orc").createOrReplaceTempView("events_orc")
    if variant:
        _prepare_variant(spark, base)


def _prepare_variant(spark: SparkSession, base: str) -> None:
    src = source(spark)
    src.createOrReplaceTempView("source")
    _write(pyspark_ext.shred(src, "v", DRAFT_SCHEMA), f"{base}/draft")
    with spark_shredding(spark, True, SPEC_SCHEMA):
        _write(src, f"{base}/spec")
        _write(src.where("rid < 500"), f"{base}/spec_mixed")
    # The extension's own spec-layout writer (column by column), in the executors' JVMs too.
    _write(pyspark_ext.shred(src, "v", SPEC_SCHEMA, layout="spec"), f"{base}/spec_ours")
    with spark_shredding(spark, True, SPEC_SCHEMA.replace("id: bigint", "id: string")):
        src.where("rid >= 500").orderBy("rid").coalesce(1).write.mode("append") \
            .parquet(f"{base}/spec_mixed")
    pyspark_ext.shred(src, "v", DRAFT_SCHEMA).selectExpr("*", "rid % 3 AS p") \
        .write.partitionBy("p").parquet(f"{base}/draft_partitioned")
    spark.read.schema("rid BIGINT, v VARIANT, p INT").parquet(f"{base}/draft_partitioned") \
        .createOrReplaceTempView("draft_partitioned")
    for layout in ("draft", "spec", "spec_mixed", "spec_ours"):
        spark.read.schema("rid BIGINT, v VARIANT").parquet(f"{base}/{layout}") \
            .createOrReplaceTempView(layout)


def _columnar_columns(path: str) -> list[str]:
    """Per file, the columns the spec-layout writer wrote column by column (its footer key)."""
    import pyarrow.parquet as pq
    from pathlib import Path
    return [pq.ParquetFile(f).metadata.metadata.get(b"pyspark_ext.columnarShreddedColumns", b"").decode()
            for f in sorted(Path(path).glob("*.parquet"))]


def _stable(scan: dict[str, Any]) -> dict[str, Any]:
    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return re.sub(r"#\d+L?", "", value)
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value
    return {k: clean(v) for k, v in sorted(scan.items()) if k not in _VOLATILE}


def run_query(spark: SparkSession, sql: str, stock: bool = True) -> dict[str, Any]:
    """Rows with the extension on (and off, with ``stock``), and the report of the extension-on
    run."""
    out: dict[str, Any] = {}
    for enabled in ((False, True) if stock else (True,)):
        with confs(spark, {ENABLED: str(enabled).lower()}):
            df = spark.sql(sql)
            out["rows_on" if enabled else "rows_off"] = sorted(repr(tuple(r)) for r in df.collect())
            if enabled:
                out["scans"] = sorted((_stable(s) for s in pyspark_ext.explain_read_schema(df)),
                                      key=repr)
    return out


def run_checks(spark: SparkSession, base: str, stock: bool = True, variant: bool = True) -> dict[str, Any]:
    """Every check; with ``stock`` the queries also run with the extension off (the cluster
    skips that to keep its run short: its rows are compared with local mode's stock rows). The
    nested query shapes (``DEPLOYED_SHAPES``) run with the extension on only:
    ``tests/pruning/test_nested_pruning.py`` compares them with stock Spark. Without ``variant``
    (a line without the variant half: Spark 3.5 and 4.0), the nested checks only."""
    with confs(spark, SETTINGS):
        prepare(spark, base, variant)
        results: dict[str, Any] = {name: run_query(spark, sql, stock)
                                   for name, sql in QUERIES.items() if variant or name in NESTED}
        results["shapes"] = {name: run_query(spark, SHAPES[name][0], stock=False)
                             for name in DEPLOYED_SHAPES}
        if not variant:
            return results
        for layout in ("draft", "spec"):
            for name, sql in VARIANT.items():
                results[f"{layout}_{name}"] = run_query(spark, sql.format(t=layout), stock)
        results["inferred_shredding_schema"] = pyspark_ext.infer_shredding_schema(
            spark.table("source"), "v")
        results["draft_files_schema"] = spark.read.parquet(f"{base}/draft").schema.simpleString()
        results["spec_ours_writer_round_trip"] = run_query(
            spark, VARIANT["writer_round_trip"].format(t="spec_ours"), stock)
        results["spec_ours_columnar"] = _columnar_columns(f"{base}/spec_ours")
    return results
