"""Files that shred one variant column by different, compatible schemas, read by one scan whose read
schema merges their layouts. The spec writes an object's shredded fields as required groups, so a
field one file shreds and another does not hold must be nullable in the merged read schema: Spark's
Parquet reader rejects a required column that a file lacks."""
from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from pyspark_ext.spark_shredding import spark_shredding
from tests.support.differential import ENABLED, confs
from tests.support.rows import row_strings

#: Each file's shredding schema; the second lacks ``a`` and adds ``c``, the first lacks ``c``.
FILES = ["struct<a: bigint, b: string>", "struct<b: string, c: struct<d: double>>"]


@pytest.fixture(scope="module")
def table(spark: SparkSession, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("merged") / "t")
    values = spark.range(200).selectExpr(
        "id", "parse_json(format_string('{\"a\": %d, \"b\": \"s%d\", \"c\": {\"d\": %d.5}}', id, id % 7, id)) AS v")
    for i, schema in enumerate(FILES):
        with spark_shredding(spark, True, schema):
            values.where(f"id % 2 = {i}").coalesce(1).write.mode("append").parquet(path)
    return f"parquet.`{path}`"


def test_files_are_read_by_one_scan(spark: SparkSession, table: str) -> None:
    """The point of this module: the two layouts merge, so no Union of per-file scans."""
    plan = spark.sql(f"SELECT v:a::bigint FROM {table}")._jdf.queryExecution().optimizedPlan().toString()
    assert "Union" not in plan


@pytest.mark.parametrize("vectorized", ["true", "false"])
@pytest.mark.parametrize("select", [
    "id, v:a::bigint, v:b::string, v:c.d::double",
    "id, v:c.d::double",
    "id, v:a::bigint",
    "count(v:a::bigint), count(v:c::string), sum(v:c.d::double)",
])
def test_a_field_one_file_lacks_reads_as_that_file_holds_it(spark: SparkSession, table: str, select: str,
                                                            vectorized: str) -> None:
    """Both of Spark's Parquet readers, which check a requested column's nullability differently."""
    rows = {}
    for enabled in ("false", "true"):
        with confs(spark, {ENABLED: enabled, "spark.sql.parquet.enableVectorizedReader": vectorized}):
            rows[enabled] = row_strings(spark.sql(f"SELECT {select} FROM {table}").collect())
    assert rows["true"] == rows["false"] and rows["false"]
