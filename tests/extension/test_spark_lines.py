"""What each Spark line carries (docs/spark-versions.md): the jar built for the installed line
loads with no internal missing, a line that cannot carry a feature says so once, by name, and
leaves its queries to stock Spark, and the extension's own Parquet reader reads no more than
Spark's on every line."""
from __future__ import annotations

import pyspark
from pyspark.sql import DataFrame, SparkSession

import pyspark_ext
from pyspark_ext import jar, settings
from tests.support.differential import ENABLED, confs
from tests.support.lines import needs_variant_type

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
    if LINE in ("3.5", "4.0"):
        assert len(gaps) == 1
        assert gaps[0].startswith(f"pyspark-ext: shredded VARIANT reads, skipping and writes are off "
                                  f"on Spark {pyspark.__version__}: ")
        assert settings.SHREDDED_VARIANT in gaps[0]
        if LINE == "3.5":
            assert "Spark 3.5 has no VARIANT type" in gaps[0]
    else:
        assert gaps == []


def test_spark_35_jar_leaves_the_variant_half_and_the_connect_plugin_out(spark: SparkSession,
                                                                          capsys) -> None:
    """Spark 3.5's jar holds the pruning half only: no class of the variant half or the Connect
    plugin, and the Connect server settings say so instead of naming a plugin it cannot load."""
    import zipfile
    with zipfile.ZipFile(jar.jar_path()) as z:
        variant = [n for n in z.namelist()
                   if n.startswith(("pysparkext/variant/", "pysparkext/connect/"))]
    settings_ = pyspark_ext.connect_server_confs()
    if LINE == "3.5":
        assert variant == []
        assert settings_ == pyspark_ext.extension_confs()
        assert "pyspark 3.5 ships no spark-connect jar" in capsys.readouterr().err
    else:
        assert variant != []
        assert "spark.connect.extensions.relation.classes" in settings_


@needs_variant_type
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


def test_tools_that_need_variant_or_pyspark_4_say_so_on_spark_35(capsys) -> None:
    """On Spark 3.5 the producers command and the fuzzer's variant grammar name what is missing
    and exit with a usage error, instead of an import error's stack trace."""
    import pytest

    from pyspark_ext.__main__ import main
    from devtools import fuzz
    if LINE != "3.5":
        pytest.skip("pyspark 4.x has VARIANT and pyspark.sql.conversion")
    assert main(["producers", "status", "--path", "/nowhere"]) == 2
    assert "producers need pyspark 4.0 or later; this environment has pyspark 3.5" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        fuzz.main(["--kind", "all", "--queries", "1"])
    assert exited.value.code == 2
    assert "has no VARIANT type; use --kind nested" in capsys.readouterr().err


def _bytes_read(spark: SparkSession) -> int:
    """Bytes this JVM has read through Hadoop's file systems (local mode: the tasks' reads too)."""
    return sum(int(s.getBytesRead()) for s in spark._jvm.org.apache.hadoop.fs.FileSystem.getAllStatistics())


def test_the_extensions_parquet_reader_reads_no_more_bytes_than_stock(spark: SparkSession, tmp_path) -> None:
    """Where the extension reads the leaves stock reads through its own Parquet reader (the
    leaf-columns reader), it reads each split's footer once, as Spark's reader does, on every line:
    no more bytes than stock, and the same row groups. A wide struct makes each footer large
    beside the leaves read, and the pushed filter on `id` skips row groups."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows, width = 2000, 300
    for part in range(2):
        ids = pa.array(range(part * rows, (part + 1) * rows), pa.int64())
        payload = pa.StructArray.from_arrays([pa.array(range(i, i + rows), pa.int64()) for i in range(width)],
                                             names=[f"f{i:03}" for i in range(width)])
        pq.write_table(pa.table({"id": ids, "payload": payload}), str(tmp_path / f"part-{part}.parquet"),
                       row_group_size=500)
    sql = f"SELECT count(*), sum(payload.f000), max(payload.f002) FROM parquet.`{tmp_path}` WHERE id >= 2600"

    def measured() -> tuple[DataFrame, list, int]:
        spark.sql(sql).collect()  # the footer facts the rules cache are read here
        df = spark.sql(sql)
        before = _bytes_read(spark)
        collected = df.collect()
        return df, collected, _bytes_read(spark) - before

    ext_df, ext_rows, ext_bytes = measured()
    with confs(spark, {ENABLED: "false"}):
        stock_df, stock_rows, stock_bytes = measured()
        stock = pyspark_ext.explain_read_schema(stock_df)
    ext = pyspark_ext.explain_read_schema(ext_df)
    assert "leaf columns" in ext_df._jdf.queryExecution().executedPlan().toString()
    assert ext_rows == stock_rows
    assert [s["read_schema"] for s in ext] == [s["read_schema"] for s in stock]
    # The pushed filter skips the same row groups: the scans output the 3 of 8 row groups kept.
    assert [(s["row_groups_read"], s["row_groups_skipped"]) for s in ext] == [(3, 5)]
    assert [s.get("rows_output") for s in ext] == [s.get("rows_output") for s in stock] == [1500]
    assert 0 < ext_bytes <= stock_bytes, f"the extension read {ext_bytes} bytes, stock {stock_bytes}"
