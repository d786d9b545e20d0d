"""explain_read_schema: per scan, the table, schemas, leaf counts and footer byte estimates."""
from pyspark_ext import explain_read_schema

from tests.differential import run


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
