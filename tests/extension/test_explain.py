"""explain_read_schema: per scan, the table, schemas, leaf counts and footer byte estimates."""
from pyspark_ext import explain_read_schema, jar

from tests.support.differential import run


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
    assert (stock["read_leaves"], stock["full_leaves"]) == (1, 2)
