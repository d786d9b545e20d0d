"""ORC scans, catalog tables, and the same table scanned twice."""
import pytest

from pyspark_ext.data import adtech
from tests.support.differential import compare, confs


@pytest.fixture(scope="module")
def orc_events(spark, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("orc") / "events")
    adtech.events(spark, rows=500, payload_width=8).write.orc(path)
    spark.read.orc(path).createOrReplaceTempView("orc_events")
    return path


def test_orc_nested_pruning(spark, orc_events):
    _, ext = compare(spark, "SELECT count(*) FROM orc_events "
                            "WHERE exists(page.views, v -> v.ts % 5 = 0)")
    assert ext.read_schemas == ["struct<page:struct<views:array<struct<ts:bigint>>>>"]


def test_catalog_table(spark, events):
    spark.sql(f"CREATE TABLE IF NOT EXISTS events_tbl USING parquet LOCATION '{events}'")
    _, ext = compare(spark, "SELECT first(user).geo.city FROM events_tbl GROUP BY id % 3")
    assert ext.read_schemas == ["struct<id:bigint,user:struct<geo:struct<city:string>>>"]
    assert ext.scans[0]["table"].endswith("events_tbl")


def test_self_join_pruned_per_scan(spark, events):
    _, ext = compare(spark, """
        SELECT a.user.geo.city, b.page.views[0].ref
        FROM events a JOIN events b ON a.id = b.id + 1
        WHERE exists(a.page.views, v -> v.ts % 2 = 0)""")
    assert ext.read_schemas == [
        "struct<id:bigint,page:struct<views:array<struct<ref:string>>>>",
        "struct<id:bigint,user:struct<geo:struct<city:string>>,page:struct<views:array<struct<ts:bigint>>>>",
    ]


@pytest.mark.parametrize("how", ["inner", "left", "right", "full", "left_semi", "left_anti", "cross"])
def test_every_join_type(spark, events, how):
    left = spark.table("events").selectExpr("id", "user AS u", "page AS p")
    right = spark.table("events").selectExpr("id AS rid", "user AS ru")
    cond = (left.u.geo.lat == right.ru.geo.lat) & (left.id == right.rid + 7)
    joined = left.crossJoin(right).where(cond) if how == "cross" else left.join(right, cond, how)
    cols = ["u.geo.city"] + ([] if how in ("left_semi", "left_anti") else ["ru.user_id"])
    compare(spark, joined.select(*cols))


@pytest.mark.parametrize("fmt", ["parquet", "orc"])
def test_dsv2_file_source(spark, events, orc_events, fmt):
    with confs(spark, {"spark.sql.sources.useV1SourceList": ""}):
        path = events if fmt == "parquet" else orc_events
        df = spark.read.format(fmt).load(path).where("exists(page.views, v -> v.ts % 5 = 0)")
        df = df.selectExpr("user.geo.city", "size(page.views)")
        stock, ext = compare(spark, df)
    assert ext.scans[0]["format"].lower().startswith(fmt)
    assert ext.read_schemas == [
        "struct<user:struct<geo:struct<city:string>>,page:struct<views:array<struct<ts:bigint>>>>"]
    assert stock.leaves > ext.leaves
