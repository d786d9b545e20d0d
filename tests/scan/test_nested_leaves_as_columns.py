"""Nested struct fields of vectorized Parquet scans read as top-level columns.

The node hands on a struct field's own vector, so it must return exactly what the chain of
field extractions returns, nulls included: a null struct at any level makes the field null.
Every query is compared with the rule off (and the extension off).
"""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import Row, SparkSession

from tests.support.differential import confs
from tests.support.modes import outcome, same_rows_in_modes
from pyspark_ext import settings

RULE = settings.NESTED_LEAVES_AS_COLUMNS


@pytest.fixture(scope="module")
def nested(spark: SparkSession, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("nested_leaves") / "t.parquet")
    inner = pa.struct([("b", pa.int64()), ("c", pa.string())])
    kinds = [None, {"a": None, "d": 1.5}, {"a": {"b": None, "c": "x"}, "d": None},
             {"a": {"b": 7, "c": None}, "d": 2.5}]
    rows = [kinds[i % 4] if i % 4 else None for i in range(400)]
    rows = [r if r is None or r.get("a") is None else
            {**r, "a": {**r["a"], "b": None if r["a"]["b"] is None else i}} for i, r in enumerate(rows)]
    s = pa.array(rows, type=pa.struct([("a", inner), ("d", pa.float64())]))
    pq.write_table(pa.table({"k": list(range(400)), "s": s}), path, row_group_size=64)
    return f"parquet.`{path}`"


QUERIES = [
    "SELECT k, s.a.b, s.a.c, s.d FROM {t}",
    "SELECT k, s.a.b IS NULL, s.a IS NULL, s IS NULL FROM {t}",
    "SELECT k, s.a.b + 1 FROM {t} WHERE s.a.b > 100",
    "SELECT k, s.a FROM {t} WHERE s.d IS NOT NULL",
    "SELECT s.a.c, count(*), sum(s.a.b) FROM {t} GROUP BY 1",
    "SELECT k, coalesce(s.a.c, 'none'), s.d * 2 FROM {t} WHERE k % 3 = 0 AND s.a.b IS NOT NULL",
    # aggregates straight over the scan
    "SELECT sum(s.a.b), count(s.a.c), max(s.d), count(s.a) FROM {t}",
    "SELECT count(DISTINCT s.a.c, s.d) FROM {t}",
]


@pytest.mark.parametrize("query", QUERIES)
def test_same_rows_with_and_without(spark: SparkSession, nested: str, query: str) -> None:
    modes = same_rows_in_modes(spark, query.format(t=nested), RULE)
    assert "NestedLeafColumns" in modes.on.plan and "NestedLeafColumns" not in modes.off.plan


def test_nulls_at_every_level(spark: SparkSession, nested: str) -> None:
    rows = spark.sql(f"SELECT k, s.a.b, s.a.c FROM {nested} WHERE k < 8 ORDER BY k").collect()
    assert [tuple(r) for r in rows] == [
        (0, None, None), (1, None, None), (2, None, "x"), (3, 3, None),
        (4, None, None), (5, None, None), (6, None, "x"), (7, 7, None)]


def test_field_missing_from_a_file(spark: SparkSession, tmp_path) -> None:
    # Spark marks a column a file lacks as one all-null vector and never fills its fields.
    full = pa.struct([("a", pa.struct([("b", pa.int64()), ("c", pa.string())])), ("d", pa.float64())])
    pq.write_table(pa.table({"k": [1, 2], "s": pa.array([{"a": {"b": 1, "c": "x"}, "d": 1.0},
                                                          {"a": None, "d": 2.0}], type=full)}),
                   str(tmp_path / "full.parquet"))
    pq.write_table(pa.table({"k": [3, 4], "s": pa.array([{"d": 3.0}, None],
                                                        type=pa.struct([("d", pa.float64())]))}),
                   str(tmp_path / "part.parquet"))
    pq.write_table(pa.table({"k": [5]}), str(tmp_path / "none.parquet"))
    df = spark.read.schema("k bigint, s struct<a: struct<b: bigint, c: string>, d: double>") \
        .parquet(str(tmp_path))
    df.createOrReplaceTempView("missing_fields")
    sql = "SELECT k, s.a.b, s.a.c, s.d FROM missing_fields"
    on = outcome(spark, sql)
    with confs(spark, {RULE: "false"}):
        off = outcome(spark, sql)
    assert on.rows == off.rows == sorted(repr(Row(k=k, b=b, c=c, d=d)) for k, b, c, d in [
        (1, 1, "x", 1.0), (2, None, None, 2.0), (3, None, None, 3.0), (4, None, None, None),
        (5, None, None, None)])
    assert "NestedLeafColumns" in on.plan


def test_variant_path_with_a_residual_reads_two_leaves(spark: SparkSession, tmp_path) -> None:
    # A shredded int path where some rows hold strings: the read uses the path's typed_value and
    # untyped_value as two plain columns, never the level struct around them.
    import pyspark_ext

    values = [f'{{"u": {{"id": {i}}}}}' if i % 7 else f'{{"u": {{"id": "{i}"}}}}' for i in range(300)]
    values += ['{"u": {}}', '{"u": null}', "null", '{"x": 1}']
    df = spark.createDataFrame([(v,) for v in values], "j string").selectExpr("parse_json(j) AS v")
    pyspark_ext.shred(df, "v", "u struct<id bigint>").write.parquet(str(tmp_path / "t"))
    sql = f"SELECT sum(variant_get(v, '$.u.id', 'int')), count(try_variant_get(v, '$.u.id', 'bigint')) " \
          f"FROM parquet.`{tmp_path / 't'}`"
    on = outcome(spark, sql)
    truth = sorted(map(repr, df.selectExpr("sum(variant_get(v, '$.u.id', 'int'))",
                                           "count(try_variant_get(v, '$.u.id', 'bigint'))").collect()))
    assert on.rows == truth
    leaves = on.plan[on.plan.index("NestedLeafColumns"):].split("\n")[0]
    assert "_typed_value_" in leaves and "_untyped_value_" in leaves, leaves
    assert "_id_#" not in leaves, leaves
