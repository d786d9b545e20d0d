"""What each Spark line carries (docs/spark-versions.md): the jar built for the installed line
loads with no internal missing, and a line that cannot carry a feature says so once, by name,
and leaves its queries to stock Spark."""
from __future__ import annotations

import pyspark
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext import jar, settings
from tests.support.differential import ENABLED, confs

LINE = jar.spark_line()


def _warnings(spark: SparkSession) -> list[str]:
    found = spark._jvm.org.apache.spark.sql.pysparkext.SparkInternalsProbe.warnings()
    return [found.apply(i) for i in range(found.size())]


def test_the_jar_is_built_for_the_installed_spark(spark: SparkSession) -> None:
    assert spark.version == pyspark.__version__
    assert f"_spark-{pyspark.__version__}_" in jar.jar_path().name
    # test_switches simulates missing internals through a test setting, which its warnings name
    missing = [w for w in _warnings(spark) if " lacks " in w and settings.FAKE_MISSING_INTERNALS not in w]
    assert missing == [], missing


def test_a_line_gap_is_logged_once_by_name(spark: SparkSession) -> None:
    gaps = [w for w in _warnings(spark) if " are off on Spark " in w]
    if LINE == "4.0":
        assert len(gaps) == 1
        assert gaps[0].startswith(f"pyspark-ext: shredded VARIANT reads, skipping and writes are off "
                                  f"on Spark {pyspark.__version__}: ")
        assert "spark.pyspark_ext.variant.enabled" in gaps[0]
    else:
        assert gaps == []


def test_draft_files_read_as_variant_only_where_the_line_carries_it(spark: SparkSession, tmp_path) -> None:
    path = str(tmp_path / "draft")
    df = spark.createDataFrame([(1, '{"a": 1, "b": "x"}'), (2, '{"a": 2}')], "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v")
    pyspark_ext.shred(df, "v", "a bigint").write.parquet(path)
    on = spark.read.parquet(path).schema["v"].dataType.simpleString()
    with confs(spark, {ENABLED: "false"}):
        off = spark.read.parquet(path).schema["v"].dataType.simpleString()
    assert off.startswith("struct<")
    assert on == (off if LINE == "4.0" else "variant")
