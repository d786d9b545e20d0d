"""Where the meaning needs a whole struct, it is read whole: UDFs, cached plans, and the
DataFrame API's struct edits."""
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

from tests.support.differential import compare

GEO_WHOLE = "struct<user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>"


def test_python_udf_gets_every_field(spark, events):
    geo_text = F.udf(lambda g: f"{g.country}/{g.city}/{g.lat}/{g.lon}", StringType())
    df = spark.table("events").select(geo_text("user.geo").alias("g"))
    _, ext = compare(spark, df)
    assert ext.read_schemas == [GEO_WHOLE]


def test_sql_registered_udf_gets_every_field(spark, events):
    spark.udf.register("geo_len", lambda g: len(str(g)), "int")
    _, ext = compare(spark, "SELECT geo_len(user.geo) FROM events")
    assert ext.read_schemas == [GEO_WHOLE]


def test_udf_output_field_unused_still_gets_whole_input(spark, events):
    # The UDF runs even though only field a of the struct it feeds is used; it must see real data.
    spark.udf.register("geo_str", lambda g: g.city.upper(), "string")
    _, ext = compare(spark, "SELECT s.a FROM (SELECT named_struct('a', id, 'b', geo_str(user.geo)) s "
                            "FROM events)")
    assert ext.rows  # the UDF would fail on a null-padded struct


def test_drop_fields_reads_only_what_is_left_and_used(spark, events):
    df = spark.table("events").select(F.col("user.geo").dropFields("lat", "lon").alias("g"))
    _, ext = compare(spark, df.select("g.city"))
    assert ext.read_schemas == ["struct<user:struct<geo:struct<city:string>>>"]
    _, whole = compare(spark, df)
    assert whole.read_schemas == ["struct<user:struct<geo:struct<country:string,city:string>>>"]


def test_with_field_then_read(spark, events):
    df = spark.table("events").select(F.col("user.geo").withField("zone", F.lit(1)).alias("g"))
    _, ext = compare(spark, df.select("g.zone", "g.country"))
    assert ext.read_schemas == ["struct<user:struct<geo:struct<country:string>>>"]


def test_drop_duplicates_then_nested_access(spark, events):
    df = spark.table("events").select("id", "user").dropDuplicates(["id"]).select("user.geo.city")
    _, ext = compare(spark, df)
    assert ext.read_schemas == ["struct<id:bigint,user:struct<geo:struct<city:string>>>"]


def test_sample_with_seed(spark, events):
    df = spark.table("events").select("user").sample(fraction=0.3, seed=11).select("user.geo.city")
    _, ext = compare(spark, df)
    assert ext.read_schemas == ["struct<user:struct<geo:struct<city:string>>>"]


def test_not_pruned_beneath_cached_plan(spark, events):
    cached = spark.table("events").select("id", "user").cache()
    try:
        assert cached.count() == 2000
        _, ext = compare(spark, cached.select("user.geo.city"))
        # The query reads the cache, which holds whole structs: no file scan at all.
        assert ext.scans == []
        rows = cached.select("user.geo.country").distinct().collect()
        assert len(rows) == 8
    finally:
        cached.unpersist()
