"""`v IS NULL` and `v IS NOT NULL` on shredded variants read a leaf or two, not the whole value.

Spark infers `isnotnull(v)` above a filter on a path of `v` wherever the filter cannot be pushed
down to the scan (over a LIMIT, a sample), and users write the test themselves. Both once made
the scan read and rebuild the whole variant. The answer must be what the rebuilt value says:
a draft-layout group that stores nothing is a missing (SQL NULL) variant, a spec-layout group
that stores nothing holds a variant null (not SQL NULL).
"""
from __future__ import annotations

import pyarrow as pa
import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from tests.support import draft_files
from tests.support.rows import query_rows
from tests.support.variant_data import FULL, SHRED_SCHEMA, mixed_variants, write_spec

QUERIES = {
    "where_not_null": "SELECT id FROM {t} WHERE v IS NOT NULL",
    "where_null": "SELECT id FROM {t} WHERE v IS NULL",
    "projected": "SELECT id, v IS NULL, v IS NOT NULL, isnull(v) FROM {t}",
    "count_if": "SELECT count_if(v IS NULL), count_if(v IS NOT NULL), count(v) FROM {t}",
    "over_limit": "SELECT id, k FROM (SELECT id, v:kind::string AS k, v FROM {t} ORDER BY id LIMIT 500) "
                  "WHERE v IS NOT NULL",
    "inferred_over_limit": "SELECT id, v:kind::string FROM (SELECT * FROM {t} ORDER BY id LIMIT 500) "
                           "WHERE v:user.id::int > 300",
    "with_paths": "SELECT id, v:user.name::string FROM {t} WHERE v IS NOT NULL AND v:kind::string = 'buy'",
}
# Fields no query above reads: a scan that reads any of them read the variant whole.
UNREAD = ("tags", "items", "score", "price")


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("null_checks")
    truth = mixed_variants(spark, 600, 11, "nulls_truth")
    pyspark_ext.shred(truth, "v", SHRED_SCHEMA).coalesce(1).write.parquet(str(base / "draft"))
    write_spec(spark, truth, str(base / "spec"), FULL)
    return {"draft": f"parquet.`{base / 'draft'}`", "spec": f"parquet.`{base / 'spec'}`"}


@pytest.mark.parametrize("layout", ["draft", "spec"])
@pytest.mark.parametrize("name", list(QUERIES))
def test_null_checks_match_the_variants(spark: SparkSession, tables, layout: str, name: str) -> None:
    query = QUERIES[name]
    assert query_rows(spark, query.format(t=tables[layout])) == query_rows(spark, query.format(t="nulls_truth"))
    scans = pyspark_ext.explain_read_schema(spark.sql(query.format(t=tables[layout])))
    for scan in scans:
        assert not any(f in scan["read_schema"] for f in UNREAD), scan["read_schema"]


def test_truth_has_both_kinds_of_null(spark: SparkSession, tables) -> None:
    # The comparisons above mean something only if the data holds SQL NULLs and JSON nulls.
    [(sql_nulls, json_nulls)] = spark.sql(
        "SELECT count_if(v IS NULL), count_if(to_json(v) = 'null') FROM nulls_truth").collect()
    assert sql_nulls > 0 and json_nulls > 0


def _answers(spark: SparkSession, table: str) -> list[tuple]:
    # to_json(v) rebuilds the whole value, so it says what the value is without the rewrite.
    return [tuple(r) for r in spark.sql(
        f"SELECT id, v IS NULL, to_json(v) IS NULL, to_json(v) FROM {table} ORDER BY id").collect()]


def test_draft_group_storing_nothing_is_a_missing_variant(spark: SparkSession, tmp_path) -> None:
    path = str(tmp_path / "empty_group.parquet")
    draft_files.write_raw(path, draft_files.EXAMPLE_TYPE, [
        {"untyped_value": None, "object": None},
        None,
        {"object": {"a": {"typed_value": 1}, "b": None}},
        {"object": {"a": None, "b": None}},
    ])
    table = f"parquet.`{path}`"
    assert _answers(spark, table) == [
        (0, True, True, None), (1, True, True, None), (2, False, False, '{"a":1}'), (3, False, False, "{}")]
    [scan] = pyspark_ext.explain_read_schema(spark.sql(f"SELECT id FROM {table} WHERE v IS NULL"))
    assert scan["read_leaves"] < scan["full_leaves"] - 1, scan["read_schema"]


def test_spec_group_storing_nothing_is_a_variant_null(spark: SparkSession, tmp_path) -> None:
    path = str(tmp_path / "empty_spec_group.parquet")
    [empty_metadata] = [bytes(r.v.metadata) for r in spark.sql("SELECT parse_json('1') AS v").collect()]
    vtype = pa.struct([pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary()),
                       pa.field("typed_value", pa.int64())])
    draft_files.write_raw(path, vtype, [
        {"metadata": empty_metadata, "value": None, "typed_value": None},
        None,
        {"metadata": empty_metadata, "value": None, "typed_value": 5},
    ])
    # Without Spark's own annotations the file is read as VARIANT where the schema says so.
    spark.read.schema("id bigint, v variant").parquet(path).createOrReplaceTempView("empty_spec_group")
    table = "empty_spec_group"
    assert _answers(spark, table) == [(0, False, False, "null"), (1, True, True, None), (2, False, False, "5")]
    df = spark.sql(f"SELECT id FROM {table} WHERE v IS NOT NULL")
    assert [r.id for r in df.collect()] == [0, 2]
    [scan] = pyspark_ext.explain_read_schema(df)
    assert scan["read_leaves"] == 2, scan["read_schema"]  # id and one leaf of v
