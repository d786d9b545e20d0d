"""Scans used only through primitive leaves read each leaf as a flat column (LeafColumnsReader).

The reader leaves struct vectors unassembled, so it must only be chosen when nothing uses a
struct whole, and each leaf must carry exactly the nulls the field extraction returns. Every
query is compared with the reader off and with the extension off; row-group and page skipping
must read the same rows as Spark's reader.
"""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext import settings
from tests.support.differential import ENABLED, confs
from tests.support.modes import outcome, same_rows_in_modes

READER = settings.LEAF_COLUMNS_READER
LEAF_FORMAT = "leaf columns"

INNER = pa.struct([("b", pa.int64()), ("c", pa.string())])
OUTER = pa.struct([("a", INNER), ("d", pa.float64())])


def _row(i: int):
    kind = i % 5
    if kind == 0:
        return None
    if kind == 1:
        return {"a": None, "d": i / 2}
    if kind == 2:
        return {"a": {"b": None, "c": f"c{i}"}, "d": None}
    return {"a": {"b": i, "c": None if kind == 3 else f"c{i}"}, "d": float(i)}


@pytest.fixture(scope="module")
def table(spark: SparkSession, tmp_path_factory) -> str:
    """Sorted by k, small row groups and pages with a page index, nulls at every level."""
    path = str(tmp_path_factory.mktemp("leaf_reader") / "t.parquet")
    n = 2000
    pq.write_table(pa.table({"k": list(range(n)), "s": pa.array([_row(i) for i in range(n)], type=OUTER)}),
                   path, row_group_size=400, data_page_size=256, write_page_index=True)
    return f"parquet.`{path}`"


QUERIES = [
    "SELECT k, s.a.b, s.a.c, s.d FROM {t}",
    "SELECT sum(s.a.b), count(s.a.c), max(s.d) FROM {t}",
    "SELECT s.a.c, count(*) FROM {t} WHERE s.a.b > 1000 GROUP BY 1",
    "SELECT k, s.a.b FROM {t} WHERE k BETWEEN 1234 AND 1300",  # row groups skipped
    "SELECT k, s.a.c, s.d FROM {t} WHERE k = 777",  # pages skipped by the column index
    "SELECT k, s.a.b FROM {t} WHERE s.a.b BETWEEN 500 AND 520",  # nested filter pushed
]


@pytest.mark.parametrize("query", QUERIES)
def test_same_rows_and_row_groups(spark: SparkSession, table: str, query: str) -> None:
    modes = same_rows_in_modes(spark, query.format(t=table), READER, scans=True)
    assert LEAF_FORMAT in modes.on.plan and LEAF_FORMAT not in modes.off.plan
    # The same row groups (and pages) are read as with Spark's reader.
    assert [r.get("rows_output") for r in modes.on.scans] == [r.get("rows_output") for r in modes.off.scans]


def test_skipping_still_applies(spark: SparkSession, table: str) -> None:
    report = outcome(spark, f"SELECT k, s.a.b FROM {table} WHERE k BETWEEN 1234 AND 1300", scans=True).scans
    assert report[0]["rows_output"] < 2000


@pytest.mark.parametrize("query", [
    "SELECT k, s.a FROM {t}",  # a struct used whole needs its nulls
    "SELECT k, s.a.b FROM {t} WHERE s.a IS NULL",
    "SELECT k, s FROM {t}",
])
def test_not_used_when_a_struct_is_needed_whole(spark: SparkSession, table: str, query: str) -> None:
    sql = query.format(t=table)
    on = outcome(spark, sql)
    with confs(spark, {ENABLED: "false"}):
        stock = outcome(spark, sql)
    assert on.rows == stock.rows
    assert LEAF_FORMAT not in on.plan


def test_files_with_different_schemas(spark: SparkSession, tmp_path) -> None:
    # One file as declared, one with b as int32 and the field named in another case, one
    # without a, one with b inside a list (Spark's own reader takes that file and rejects it).
    pq.write_table(pa.table({"k": [1, 2], "s": pa.array([_row(3), _row(2)], type=OUTER)}),
                   str(tmp_path / "full.parquet"))
    narrow = pa.struct([("a", pa.struct([("B", pa.int32()), ("c", pa.string())])), ("d", pa.float64())])
    pq.write_table(pa.table({"k": [3, 4], "s": pa.array([{"a": {"B": 9, "c": "z"}, "d": 1.0},
                                                          {"a": None, "d": None}], type=narrow)}),
                   str(tmp_path / "narrow.parquet"))
    pq.write_table(pa.table({"k": [5], "s": pa.array([{"d": 5.0}], type=pa.struct([("d", pa.float64())]))}),
                   str(tmp_path / "no_a.parquet"))
    spark.read.schema("k bigint, s struct<a: struct<b: bigint, c: string>, d: double>") \
        .parquet(str(tmp_path)).createOrReplaceTempView("leaf_mixed")
    sql = "SELECT k, s.a.b, s.a.c, s.d FROM leaf_mixed"
    on = outcome(spark, sql)
    with confs(spark, {READER: "false"}):
        off = outcome(spark, sql)
    assert on.rows == off.rows
    assert sorted(on.rows) == sorted(map(repr, spark.createDataFrame(
        [(1, 3, None, 3.0), (2, None, "c2", None), (3, 9, "z", 1.0), (4, None, None, None),
         (5, None, None, 5.0)], "k bigint, b bigint, c string, d double").collect()))
    assert LEAF_FORMAT in on.plan


def test_a_leaf_inside_a_list_falls_back_to_spark(spark: SparkSession, tmp_path) -> None:
    listed = pa.struct([("a", pa.list_(INNER)), ("d", pa.float64())])
    pq.write_table(pa.table({"k": [1], "s": pa.array([{"a": [{"b": 1, "c": "x"}], "d": 1.0}], type=listed)}),
                   str(tmp_path / "listed.parquet"))
    df = spark.read.schema("k bigint, s struct<a: struct<b: bigint, c: string>, d: double>") \
        .parquet(str(tmp_path)).selectExpr("k", "s.a.b")
    with confs(spark, {READER: "false"}):
        with pytest.raises(Exception) as spark_error:
            df.collect()
    with pytest.raises(Exception) as ours:
        df.collect()
    assert type(ours.value) is type(spark_error.value)


UNSHREDDED_QUERIES = [
    # every value Spark extracts is primitive: the shape that was read as leaf columns
    "SELECT sum(variant_get(v, '$.a', 'int')), max(try_variant_get(v, '$.c.d', 'bigint')) FROM {t}",
    "SELECT variant_get(v, '$.b', 'string') AS b, sum(variant_get(v, '$.a', 'int')) FROM {t} GROUP BY 1",
    "SELECT k, variant_get(v, '$.a', 'int') FROM {t} WHERE variant_get(v, '$.c.d', 'int') BETWEEN 30 AND 120",
    # `::int` extracts a variant, then casts it
    "SELECT sum(variant_get(v, '$.a', 'int')), count(v:b::string) FROM {t}",
]


# Spark's own files: unshredded, or shredded by Spark's writer and left to Spark's reader.
SPARK_FILES = {
    "unshredded": ((False, None), {}),
    "spark_shredded": ((True, "struct<a: int, c: struct<d: bigint>>"),
                       {settings.SPEC_VARIANT: "false"}),
}


@pytest.mark.parametrize("files", list(SPARK_FILES))
@pytest.mark.parametrize("query", UNSHREDDED_QUERIES)
def test_values_spark_extracts_from_variants_are_not_read_as_columns(
        spark: SparkSession, tmp_path, query: str, files: str) -> None:
    """Spark's variant push-down reads a VARIANT as a struct of the values it extracts
    (`struct<0:int,...>`); those fields are no Parquet columns. Reading them as leaf columns
    found none and returned nulls (a sum of None)."""
    write, read = SPARK_FILES[files]
    path = str(tmp_path / "plain")
    with spark_shredding(spark, *write):
        spark.range(300).selectExpr(
            "id AS k", "parse_json(format_string('{\"a\": %d, \"b\": \"b%d\", \"c\": {\"d\": %d}}', "
                       "id, id % 7, id * 3)) AS v").coalesce(1).write.parquet(path)
    sql = query.format(t=f"parquet.`{path}`")
    with confs(spark, {ENABLED: "false"}):
        stock = outcome(spark, sql).rows
    with confs(spark, read):
        ours = outcome(spark, sql, scans=True)
    rows, plan, scans = ours.rows, ours.plan, ours.scans
    assert rows == stock and "None" not in "".join(rows)
    assert LEAF_FORMAT not in plan
    [scan] = scans
    assert "v:struct<0:" in scan["read_schema"]  # Spark's push-down applied
    # The report counts the variant's whole group (the values are extracted from its binaries).
    meta = pq.ParquetFile(next(p for p in (tmp_path / "plain").iterdir() if p.suffix == ".parquet")).metadata
    chunks = [meta.row_group(g).column(c) for g in range(meta.num_row_groups) for c in range(meta.num_columns)]
    read_k = "k:" in scan["read_schema"]
    expected = sum(c.total_compressed_size for c in chunks
                   if c.path_in_schema.startswith("v.") or (read_k and c.path_in_schema == "k"))
    assert scan["bytes_read"] == expected > 0


PARTITIONED_QUERIES = [
    "SELECT k, s.a.b, s.a.c, day, n FROM {t}",
    "SELECT day, sum(s.a.b), count(s.a.c) FROM {t} GROUP BY day",
    "SELECT n, s.d FROM {t} WHERE n = 2 AND s.a.b > 100",  # partition pruning and a pushed filter
    "SELECT s.a.b, s.d FROM {t} WHERE day IS NULL",  # the null (default) partition
    "SELECT k, s.a.c FROM {t} WHERE k % 97 = 0",  # partition columns not selected
]


@pytest.fixture(scope="module")
def partitioned(spark: SparkSession, tmp_path_factory) -> str:
    """Partitioned by a string (with a null partition) and an int, nulls at every struct level."""
    path = str(tmp_path_factory.mktemp("leaf_reader_partitioned") / "t")
    rows = [(i, _row(i), None if i % 7 == 0 else f"d{i % 3}", i % 4) for i in range(1200)]
    schema = "k bigint, s struct<a: struct<b: bigint, c: string>, d: double>, day string, n int"
    spark.createDataFrame(rows, schema).repartition(2).write.partitionBy("day", "n").parquet(path)
    return f"parquet.`{path}`"


@pytest.mark.parametrize("query", PARTITIONED_QUERIES)
def test_partitioned_table(spark: SparkSession, partitioned: str, query: str) -> None:
    """Partition values are appended to the leaf reader's batches as Spark's reader appends them."""
    modes = same_rows_in_modes(spark, query.format(t=partitioned), READER)
    assert len(modes.on.rows) > 1
    assert LEAF_FORMAT in modes.on.plan and LEAF_FORMAT not in modes.off.plan


@pytest.mark.parametrize("ignore_annotation", ["false", "true"])
def test_a_variant_group_read_as_a_struct_as_spark_reads_it(
        spark: SparkSession, tmp_path, ignore_annotation: str) -> None:
    """Spark's writer annotates a VARIANT column's group with Parquet's VARIANT logical type, and
    Spark's vectorized reader reads that group as a struct only under
    `spark.sql.parquet.ignoreVariantAnnotation` (else it fails: "Invalid Spark read type"). The
    leaf reader read the struct's leaves either way, returning rows where Spark fails."""
    path = str(tmp_path / "annotated")
    with spark_shredding(spark, True, "a int"):
        spark.range(3).selectExpr("id AS k", "parse_json(format_string('{\"a\": %d}', id)) AS v") \
            .coalesce(1).write.parquet(path)
    physical = "k bigint, v struct<metadata binary, value binary, typed_value struct<" \
               "a struct<value binary, typed_value int>>>"
    settings = {"spark.sql.parquet.ignoreVariantAnnotation": ignore_annotation}

    def read(enabled: str):
        with confs(spark, {ENABLED: enabled, **settings}):
            df = spark.read.schema(physical).parquet(path).selectExpr("k", "v.typed_value.a.typed_value")
            plan = df._jdf.queryExecution().executedPlan().toString()
            try:
                return sorted(map(repr, df.collect())), plan
            except Exception as e:  # noqa: BLE001 - a failure is compared
                return e, plan

    stock, _ = read("false")
    ours, plan = read("true")
    assert LEAF_FORMAT in plan  # the scan is planned for the leaf reader either way
    if ignore_annotation == "false":
        assert isinstance(stock, Exception) and "Invalid Spark read type" in str(stock)
        assert isinstance(ours, Exception) and "Invalid Spark read type" in str(ours)
    else:
        assert ours == stock and len(stock) == 3
