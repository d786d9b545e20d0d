"""The file-source metadata column ``_metadata`` beside shredded variant reads, in SQL and through
the DataFrame API (which resolves it against the already analysed plan): the same rows as stock
Spark, on files read as one relation and on conflicting files read as a Union of relations."""
from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from tests.support.differential import ENABLED, confs
from tests.support.rows import row_strings
from tests.variant_read.test_conflicting_files import SPEC_FILES, write_truth_and_spec
from pyspark_ext.spark_shredding import spark_shredding


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    """``one``: files shredded alike (one relation); ``spec``: files shredded in conflicting ways (a
    Union of relations); ``truth``: unshredded."""
    base = tmp_path_factory.mktemp("metadata_column")
    paths = {name: str(base / name) for name in ("truth", "one", "spec")}
    truth = write_truth_and_spec(spark, 120, 9, paths)
    with spark_shredding(spark, True, SPEC_FILES[0]):
        truth.coalesce(2).write.parquet(paths["one"])
    return paths


def _both(spark: SparkSession, build) -> list[str]:
    with confs(spark, {ENABLED: "true"}):
        ext = row_strings(build().collect(), fuzzer=True)
    with confs(spark, {ENABLED: "false"}):
        stock = row_strings(build().collect(), fuzzer=True)
    assert ext == stock
    return ext


@pytest.mark.parametrize("form", ["one", "spec", "truth"])
def test_metadata_column_in_sql(spark: SparkSession, tables, form):
    rows = _both(spark, lambda: spark.sql(
        f"SELECT _metadata.file_name, count(*), max(v:kind::string) FROM parquet.`{tables[form]}` GROUP BY 1"))
    assert len(rows) >= 1


@pytest.mark.parametrize("form", ["one", "spec", "truth"])
def test_metadata_column_through_the_dataframe_api(spark: SparkSession, tables, form):
    def build():
        df = spark.read.parquet(tables[form])
        return df.select(df.metadataColumn("_metadata").getField("file_name").alias("f"), "id") \
            .where("v:kind::string = 'view'")

    def by_select():
        return spark.read.parquet(tables[form]).select("_metadata.file_size", "v").where("id < 5")

    assert _both(spark, build)
    assert _both(spark, by_select)


@pytest.mark.parametrize("form", ["one", "spec"])
def test_metadata_column_selected_first_then_filtered(spark: SparkSession, tables, form):
    """The way docs/troubleshooting.md gives to take `_metadata` beside later steps of a DataFrame."""
    def build():
        return spark.read.parquet(tables[form]).select("*", "_metadata").where("v:kind::string = 'view'") \
            .selectExpr("_metadata.file_name", "id", "v:price::string")

    assert _both(spark, build)
