"""explain_read_schema: per scan, the table, schemas, leaf counts and footer byte estimates."""
import pytest

from pyspark_ext import explain_read_schema, jar

from tests.support.differential import run
from tests.support.lines import needs_variant_type


def test_report_for_sql_and_dataframe(spark, events):
    scans = explain_read_schema(spark.sql("SELECT user.geo.city FROM events"))
    assert len(scans) == 1
    scan = scans[0]
    assert scan["table"].endswith("events")
    assert scan["read_schema"] == "struct<user:struct<geo:struct<city:string>>>"
    assert scan["read_leaves"] == 1 and scan["full_leaves"] > 30
    assert scan["full_schema"].startswith("struct<id:bigint,user:struct<user_id:string")
    assert 0 < scan["bytes_read"] < scan["bytes_full"] / 10
    df_scans = explain_read_schema(spark.table("events").select("user.geo.city"))
    assert df_scans[0]["read_schema"] == scan["read_schema"]
    assert df_scans[0]["bytes_read"] == scan["bytes_read"]


def test_bytes_read_shrink_with_the_extension(spark, events):
    query = "SELECT id FROM events WHERE exists(page.views, v -> v.ts % 7 = 0)"
    stock = run(spark, query, enabled=False).scans[0]
    ext = run(spark, query, enabled=True).scans[0]
    assert ext["bytes_read"] < stock["bytes_read"] / 2
    assert ext["bytes_full"] == stock["bytes_full"]


def test_report_includes_subquery_scans_and_pushed_filters(spark, events):
    scans = explain_read_schema(spark.sql(
        "SELECT id FROM events WHERE user.geo.country = 'US' AND id > (SELECT min(id) FROM events)"))
    assert len(scans) == 2
    outer = next(s for s in scans if "country" in s["read_schema"])
    assert any("country" in f for f in outer["pushed_filters"])


@needs_variant_type
def test_a_read_never_counts_more_leaves_than_the_table_has(spark, tmp_path):
    """Spark's variant push-down reads a VARIANT as a struct with a field per extracted path; it
    is still the one VARIANT leaf (it once counted as three leaves of a two-leaf table)."""
    from tests.support.differential import ENABLED, confs
    path = str(tmp_path / "plain")
    spark.sql("SELECT id, parse_json(concat('{\"a\":', id, ',\"b\":\"x\",\"c\":{\"d\":1}}')) AS v "
              "FROM range(20)").write.parquet(path)
    # variant_get, not v:a::bigint: Spark 4.0 has no path syntax
    query = ("SELECT variant_get(v, '$.a', 'bigint'), variant_get(v, '$.b', 'string'), "
             "variant_get(v, '$.c.d', 'int') FROM plain_variants")
    scans = {}
    for enabled in ("false", "true"):
        with confs(spark, {ENABLED: enabled}):
            # Analyzed (and so read by the extension or by Spark) as the switch says.
            spark.read.parquet(path).createOrReplaceTempView("plain_variants")
            [scans[enabled]] = explain_read_schema(spark.sql(query))
        assert scans[enabled]["read_leaves"] <= scans[enabled]["full_leaves"], scans[enabled]
    stock = scans["false"]
    if jar.spark_line() != "4.0":  # 4.0 reads the VARIANT whole, as one leaf too
        assert stock["read_schema"].startswith("struct<v:struct<0:")  # Spark's push-down struct
    # `id`, and the VARIANT's Parquet leaves: metadata and value, and, where the line's writer
    # shreds (Spark 4.3), the typed_value leaves it chose
    import glob

    import pyarrow.parquet as pq
    stored = {pq.ParquetFile(f).schema.column(i).path for f in glob.glob(f"{path}/*.parquet")
              for i in range(pq.ParquetFile(f).metadata.num_columns)}
    assert (stock["read_leaves"], stock["full_leaves"]) == (1, len(stored))
    assert scans["true"]["full_leaves"] == len(stored)


@pytest.mark.parametrize("layout", ["spec", "draft", "nested"])
def test_full_leaves_are_the_files_parquet_leaves_with_the_switch_on_and_off(spark, tmp_path,
                                                                           layout) -> None:
    """`full_leaves` counts the primitive columns of the files' Parquet schema, the same with
    the extension on and off (it once said 2 off and 24 on for one shredded table)."""
    import pyarrow.parquet as pq

    import pyspark_ext
    from tests.support.differential import ENABLED, confs
    if layout != "nested" and not jar.carries_variant():
        pytest.skip("this Spark line carries nested pruning only")
    path = tmp_path / layout
    if layout == "nested":
        df = spark.sql("SELECT id, named_struct('a', id, 'b', named_struct('c', id, 'd', array(id)), "
                       "'m', map('k', id)) AS s FROM range(50)")
        schema, query = None, "SELECT s.b.c FROM leaves_t"
    else:
        src = spark.sql("SELECT id, parse_json(concat('{\"a\":', id, ',\"b\":{\"c\":\"x', id, "
                        "'\"}}')) AS v FROM range(50)")
        df = pyspark_ext.shred(src, "v", "a bigint, b struct<c string>",
                               **({"layout": "spec"} if layout == "spec" else {}))
        schema, query = "id BIGINT, v VARIANT", "SELECT variant_get(v, '$.a', 'bigint') FROM leaves_t"
    df.coalesce(1).write.parquet(str(path))
    [file] = path.glob("*.parquet")
    stored = pq.ParquetFile(file).metadata.num_columns
    counts = {}
    for enabled in ("false", "true"):
        with confs(spark, {ENABLED: enabled}):
            reader = spark.read.schema(schema) if schema else spark.read
            reader.parquet(str(path)).createOrReplaceTempView("leaves_t")
            [scan] = explain_read_schema(spark.sql(query))
            counts[enabled] = scan["full_leaves"]
    assert counts == {"false": stored, "true": stored}
