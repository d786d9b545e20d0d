"""The extension beside DataFusion Comet: the same rows, Comet's native scan reading the pruned
schemas, VARIANT left to the extension, and the extension's own scan rewrites stepping aside.

"Stock" is the same session with the extension off (``spark.pyspark_ext.enabled``); "plain
stock" has Comet off as well (``spark.comet.enabled``). The extension runs in strict mode, so an
internal error fails the test instead of falling back.
"""
from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext import settings
from benchmarks.nested_queries import NESTED_QUERIES
from tests.support.differential import ENABLED, assert_same_rows, confs, rows_of
from tests.support.nested_shapes import SHAPES
from tests.support.rows import query_rows
from tests.support.variant_data import (QUERIES, SHRED_SCHEMA, mixed_truth, mixed_variants,
                                       write_spec_three_ways)

COMET_ON = "spark.comet.enabled"
OFF_HEAP_VECTORS = "spark.sql.columnVector.offheap.enabled"


def plan_of(spark: SparkSession, sql: str) -> str:
    df = spark.sql(sql)
    df.collect()
    return df._jdf.queryExecution().executedPlan().toString()


def rows_and_scans(spark: SparkSession, sql: str, enabled: bool) -> tuple[list[Any], list[dict]]:
    with confs(spark, {ENABLED: str(enabled).lower()}):
        df = spark.sql(sql)
        return rows_of(spark, df), pyspark_ext.explain_read_schema(df)


def comet_scans(scans: list[dict]) -> list[dict]:
    return [s for s in scans if "bytes_scanned_metric" in s]


def test_comet_runs_the_scans(spark: SparkSession, events) -> None:
    plan = plan_of(spark, "SELECT user.geo.city FROM events WHERE user.geo.country = 'US'")
    assert "CometNativeScan" in plan, plan


# -- 1. the same rows ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SHAPES))
def test_nested_shapes_same_rows_as_stock_comet(spark: SparkSession, events, name: str) -> None:
    sql, expected = SHAPES[name]
    stock, stock_scans = rows_and_scans(spark, sql, enabled=False)
    ext, ext_scans = rows_and_scans(spark, sql, enabled=True)
    assert_same_rows(ext, stock, sql)
    # Comet's scans report what they read: the extension's read schema, never more leaves.
    assert sum(s["read_leaves"] for s in ext_scans) <= sum(s["read_leaves"] for s in stock_scans)
    scans = comet_scans(ext_scans)
    if scans and len(scans) == len(ext_scans):
        assert sorted(s["read_schema"] for s in ext_scans) == expected


# first(user) picks whichever row a partition sees first: Comet and Spark may pick others.
DETERMINISTIC = sorted(q for q in NESTED_QUERIES if q != "first_struct_field")


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_nested_queries_same_rows_as_plain_stock(spark: SparkSession, events, name: str) -> None:
    sql = NESTED_QUERIES[name]
    with confs(spark, {ENABLED: "false", COMET_ON: "false"}):
        plain = rows_of(spark, sql)
    assert_same_rows(rows_of(spark, sql), plain, sql)


# -- 2. Comet's native scan reads the extension's pruned schema (apache/datafusion-comet#4859) -----

# Shapes stock Spark reads whole structs for (tests/pruning/test_nested_pruning.py).
OVER_READ_BY_STOCK = ["size_and_isnotnull", "exists", "count_struct", "chained_explode", "first_then_field"]


@pytest.mark.parametrize("name", OVER_READ_BY_STOCK)
def test_comet_scan_reads_the_pruned_schema(spark: SparkSession, events, name: str) -> None:
    sql, expected = SHAPES[name]
    _, stock = rows_and_scans(spark, sql, enabled=False)
    _, ext = rows_and_scans(spark, sql, enabled=True)
    assert comet_scans(ext) and len(comet_scans(ext)) == len(ext), ext
    assert sorted(s["read_schema"] for s in ext) == expected
    assert sum(s["read_leaves"] for s in ext) < sum(s["read_leaves"] for s in stock)
    # Comet's own count of the bytes its scan read from the files.
    ext_bytes = sum(s["bytes_scanned_metric"] for s in ext)
    stock_bytes = sum(s["bytes_scanned_metric"] for s in comet_scans(stock))
    assert 0 < ext_bytes < stock_bytes, (ext_bytes, stock_bytes)


# -- 3. VARIANT: Comet leaves the scan to Spark, the extension reads the shredded leaves -----------

@pytest.fixture(scope="module")
def spec(spark: SparkSession, tmp_path_factory) -> str:
    """Spec-layout files shredded three ways (as Spark's writer does per file), one table."""
    return write_spec_three_ways(spark, mixed_truth(spark, 300, seed=3), tmp_path_factory.mktemp("spec"))


@pytest.fixture(scope="module")
def draft(spark: SparkSession, tmp_path_factory) -> str:
    """Draft-layout files read as VARIANT (view ``comet_draft``), and the truth (``comet_truth``)."""
    path = str(tmp_path_factory.mktemp("draft") / "draft")
    truth = mixed_variants(spark, 300, seed=7, view="comet_truth")
    pyspark_ext.shred(truth, "v", SHRED_SCHEMA).coalesce(2).write.mode("overwrite").parquet(path)
    spark.read.schema("id BIGINT, v VARIANT").parquet(path).createOrReplaceTempView("comet_draft")
    return path


@pytest.mark.parametrize("query", QUERIES)
def test_spec_variant_same_rows_as_stock(spark: SparkSession, spec: str, query: str) -> None:
    sql = query.format(t=spec)
    with confs(spark, {ENABLED: "false"}):
        stock = rows_of(spark, sql)
    assert_same_rows(rows_of(spark, sql), stock, sql)


@pytest.mark.parametrize("query", QUERIES)
def test_draft_variant_same_rows_as_unshredded(spark: SparkSession, draft: str, query: str) -> None:
    assert query_rows(spark, query.format(t="comet_draft")) == query_rows(spark, query.format(t="comet_truth"))


PATH_READ = "SELECT id, variant_get(v, '$.user.id', 'int'), v:kind::string FROM {t} WHERE v:price::double > 10"


@pytest.mark.parametrize("layout", ["spec", "draft"])
def test_variant_path_reads_are_the_extensions(spark: SparkSession, spec: str, draft: str,
                                               layout: str) -> None:
    sql = PATH_READ.format(t=spec if layout == "spec" else "comet_draft")
    df = spark.sql(sql)
    df.collect()
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "CometNativeScan" not in plan and "CometScan" not in plan, plan
    # The spec table's files shred three ways: a Union of one scan per way (one has no typed_value).
    scans = pyspark_ext.explain_read_schema(df)
    assert scans and not comet_scans(scans), scans
    assert any("typed_value" in s["read_schema"] and "user:struct" in s["read_schema"] for s in scans), scans
    assert not any("tier" in s["read_schema"] for s in scans), scans


# -- 4. the extension's scan rewrites step aside for scans Comet reads -----------------------------

@pytest.fixture(scope="module")
def nested(spark: SparkSession, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("nested_leaves") / "t")
    spark.range(400).selectExpr(
        "id AS k", "IF(id % 4 = 0, NULL, named_struct('a', IF(id % 4 = 1, NULL, "
        "named_struct('b', IF(id % 3 = 0, NULL, id), 'c', CAST(id % 5 AS STRING))), 'd', id * 1.5D)) AS s"
    ).coalesce(1).write.option("parquet.block.size", 4096).parquet(path)
    return f"parquet.`{path}`"


# No exchange: Spark plans these without adaptive execution, so the extension's physical rules run
# before Comet's scan rule (its extension comes after the extension's in spark.sql.extensions).
LEAF_QUERIES = [
    "SELECT k, s.a.b, s.a.c FROM {t}",
    "SELECT k, s.a.b + 1 FROM {t} WHERE s.a.b > 100",
]


@pytest.mark.parametrize("query", LEAF_QUERIES)
def test_nested_leaves_as_columns_steps_aside_for_comet(spark: SparkSession, nested: str,
                                                        query: str) -> None:
    sql = query.format(t=nested)
    # The rule reads on-heap vectors only; Comet's off-heap memory makes Spark's vectors off-heap.
    with confs(spark, {OFF_HEAP_VECTORS: "false"}):
        with confs(spark, {COMET_ON: "false"}):
            assert "NestedLeafColumns" in plan_of(spark, sql)  # the rule applies without Comet
            plain = query_rows(spark, sql)
        plan = plan_of(spark, sql)
        assert "CometNativeScan" in plan and "NestedLeafColumns" not in plan, plan
        assert query_rows(spark, sql) == plain


def test_row_group_metrics_step_aside_for_comet(spark: SparkSession, nested: str) -> None:
    sql = LEAF_QUERIES[1].format(t=nested)
    with confs(spark, {settings.ROW_GROUP_METRICS: "true",
                       settings.ROW_GROUP_METRICS_ALL_SCANS: "true"}):
        with confs(spark, {COMET_ON: "false"}):
            assert "RowGroupMetrics" in plan_of(spark, sql)
            plain = query_rows(spark, sql)
        plan = plan_of(spark, sql)
        assert "CometNativeScan" in plan and "RowGroupMetrics" not in plan, plan
        assert query_rows(spark, sql) == plain
