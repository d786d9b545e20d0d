"""Clustering each file's rows by a z-order of several paths: ``write_shredded(cluster_by=[...])``
(``pyspark_ext/zorder.py``).

The skipping data holds two independent random integers ``a`` and ``b``, so sorting by one leaves
the other in random order. Written in row groups of ``GROUP`` rows with no order, every row group
spans almost all of each path's range and a range filter on either reads them all; clustered by
both, a range filter on *each* path alone reads a minority of them, and the rows are the rows stock
Spark (the extension off) returns from the unshredded source. Clustering only reorders rows
within files: the same rows are written, whatever the values (nulls, values that do not cast,
NaN, a constant path), and the z-order value grows with each expression.
"""
from __future__ import annotations

import json
import random
import re
from itertools import combinations

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import pyspark_ext
from pyspark_ext.zorder import zorder_column
from pyspark_ext import settings
from tests.support.differential import compare, confs

ROWS, GROUP = 4000, 200
GROUPS = ROWS // GROUP
RANGE = 10_000
LAYOUTS = ["draft", "spec"]
CLUSTER = ["v:a::bigint", "v:b::bigint"]


@pytest.fixture(scope="module")
def files(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("cluster_by")
    rnd = random.Random(11)
    texts = [json.dumps({"a": rnd.randrange(RANGE), "b": rnd.randrange(RANGE), "s": f"s{i}"})
             for i in range(ROWS)]
    source = str(base / "source")
    spark.createDataFrame(list(enumerate(texts)), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v").coalesce(1).write.parquet(source)
    out = {"source": source}
    df = spark.read.parquet(source)
    with confs(spark, {"parquet.block.row.count.limit": str(GROUP)}):
        for layout in LAYOUTS:
            for kind, order in (("plain", {}), ("clustered", {"cluster_by": CLUSTER})):
                path = str(base / f"{kind}_{layout}")
                pyspark_ext.write_shredded(df, path, {"v": "a bigint, b bigint, s string"}, layout,
                                           **order)
                spark.read.schema("id bigint, v variant").parquet(path) \
                    .createOrReplaceTempView(f"{kind}_{layout}")
                out[f"{kind}_{layout}"] = path
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_same_rows_are_written(spark: SparkSession, files, layout: str) -> None:
    def rows(path: str) -> list[tuple]:
        df = spark.read.schema("id bigint, v variant").parquet(path)
        return sorted(tuple(r) for r in df.selectExpr("id", "to_json(v)").collect())
    assert rows(files[f"clustered_{layout}"]) == rows(files["source"])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("path", ["a", "b"])
def test_a_range_on_either_path_skips_row_groups(spark: SparkSession, files, layout: str,
                                                 path: str) -> None:
    where = f"v:{path}::bigint BETWEEN 1000 AND 1499"
    with confs(spark, {settings.ENABLED: "false"}):
        truth = sorted(repr(tuple(r)) for r in spark.sql(
            f"SELECT id FROM parquet.`{files['source']}` WHERE {where}").collect())
    assert len(truth) > 100
    read = {}
    for kind in ("plain", "clustered"):
        stock, ext = compare(spark, f"SELECT id FROM {kind}_{layout} WHERE {where}")
        assert ext.rows == truth
        scan, = ext.scans
        assert scan["row_groups"] == GROUPS, scan
        read[kind] = scan["row_groups_read"]
    # unordered, every row group spans the range; clustered, a minority of them does
    assert read["plain"] == GROUPS
    assert read["clustered"] <= GROUPS // 2, read


def test_the_value_grows_with_each_expression_and_nulls_come_first(spark: SparkSession) -> None:
    rnd = random.Random(5)
    values = [(i, rnd.choice([None, rnd.randrange(50)]), rnd.choice([None, rnd.uniform(-1, 1)]))
              for i in range(150)]
    # c is constant: its min == max must not divide by zero
    df = spark.createDataFrame(values, "id int, x int, y double").withColumn("c", F.lit(7))
    got = {r["id"]: r["z"] for r in df.select("id", zorder_column(df, ["x", "y", "c"]).alias("z")).collect()}
    key = {i: (-1 if x is None else x, -2.0 if y is None else y) for i, x, y in values}
    for i, j in combinations(got, 2):
        if key[i][0] <= key[j][0] and key[i][1] <= key[j][1]:
            assert got[i] <= got[j], (values[i], values[j])
        if key[j][0] <= key[i][0] and key[j][1] <= key[i][1]:
            assert got[j] <= got[i], (values[i], values[j])
    both_null = [i for i, x, y in values if x is None and y is None]
    assert both_null and min(got.values()) == got[both_null[0]]


def test_odd_values_and_every_orderable_type_are_written(spark: SparkSession, tmp_path) -> None:
    # a string where a number is shredded (it does not cast), a missing path, the largest doubles
    texts = [json.dumps(v) for v in (
        {"n": 3, "d": 1.5, "day": "2024-02-01"}, {"n": "x", "d": 2.5}, {"d": "x"}, {},
        {"n": 1, "d": -1e308, "day": "2024-01-01"}, {"n": 2, "d": 1e308, "day": "2025-01-01"})]
    df = spark.createDataFrame(list(enumerate(texts)), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v", "DATE '2024-01-01' AS k",
                    "element_at(array(1D, CAST('NaN' AS double), CAST('Infinity' AS double), "
                    "CAST('-Infinity' AS double), NULL, 0D), CAST(id + 1 AS int)) AS f",
                    "TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, CAST(id AS int)) AS ts",
                    "CAST(id AS decimal(20, 3)) AS dec").coalesce(1)
    out = str(tmp_path / "odd")
    pyspark_ext.write_shredded(df, out, {"v": "n bigint, d double"}, "spec", cluster_by=[
        "try_variant_get(v, '$.n', 'bigint')", "try_variant_get(v, '$.d', 'double')",
        "try_variant_get(v, '$.day', 'date')", "k", "ts", "CAST(ts AS timestamp_ntz)", "dec", "f"])

    def rows(d):  # noqa: ANN001, ANN202 - f as a string: NaN != NaN
        cols = ["id", "to_json(v)", "k", "ts", "dec", "CAST(f AS string)"]
        return sorted(tuple(r) for r in d.selectExpr(*cols).collect())
    assert rows(spark.read.parquet(out)) == rows(df)


@pytest.mark.parametrize("expr, typ", [("v:s::string", "string"), ("v", "variant"),
                                       ("array(id)", "array<bigint>")])
def test_a_type_clustering_cannot_order_is_named(spark: SparkSession, tmp_path, expr: str,
                                                 typ: str) -> None:
    df = spark.sql("SELECT 1L AS id, parse_json('{\"s\": \"x\"}') AS v")
    with pytest.raises(ValueError, match=re.escape(f"cluster_by expression '{expr}' is {typ}; clustering "
                                                   "orders numeric, date and timestamp expressions only")):
        pyspark_ext.write_shredded(df, str(tmp_path / "x"), {"v": "s string"}, cluster_by=["id", expr])


def test_an_expression_that_does_not_resolve_is_named(spark: SparkSession, tmp_path) -> None:
    df = spark.sql("SELECT 1L AS id, parse_json('{\"s\": \"x\"}') AS v")
    with pytest.raises(ValueError, match=r"cluster_by expression 'nope \+ 1' does not resolve"):
        pyspark_ext.write_shredded(df, str(tmp_path / "x"), {"v": "s string"}, cluster_by=["nope + 1"])


def test_sort_by_and_cluster_by_together_is_an_error(spark: SparkSession, tmp_path) -> None:
    df = spark.sql("SELECT 1L AS id, parse_json('{\"s\": \"x\"}') AS v")
    with pytest.raises(ValueError, match=r"give sort_by \(\['id'\]\) or cluster_by \(\['id'\]\), not both"):
        pyspark_ext.write_shredded(df, str(tmp_path / "x"), {"v": "s string"}, sort_by=["id"],
                                   cluster_by=["id"])
