"""The kill switch, the feature switch, strict mode and the fallback on internal errors."""
import pytest
from py4j.protocol import Py4JJavaError

from tests.differential import confs, run

QUERY = "SELECT user.geo.city FROM events WHERE exists(page.views, v -> v.ts % 7 = 0)"
FORCE_FAILURE = "spark.pyspark_ext.test.forceRuleFailure"
PRUNED = ["struct<user:struct<geo:struct<city:string>>,page:struct<views:array<struct<ts:bigint>>>>"]


def test_kill_switch_restores_stock_plan(spark, events):
    assert run(spark, QUERY, enabled=True).read_schemas == PRUNED
    stock = run(spark, QUERY, enabled=False)
    assert stock.read_schemas != PRUNED


def test_feature_switch(spark, events):
    with confs(spark, {"spark.pyspark_ext.nestedSchemaPruning.enabled": "false"}):
        assert run(spark, QUERY, enabled=True).read_schemas != PRUNED
    assert run(spark, QUERY, enabled=True).read_schemas == PRUNED


def test_strict_mode_raises_on_internal_error(spark, events):
    with confs(spark, {FORCE_FAILURE: "true"}):
        with pytest.raises(Py4JJavaError, match="strict mode"):
            spark.sql(QUERY).collect()


def test_internal_error_falls_back_when_not_strict(spark, events):
    with confs(spark, {FORCE_FAILURE: "true", "spark.pyspark_ext.strict": "false"}):
        fallback = run(spark, QUERY, enabled=True)
    stock = run(spark, QUERY, enabled=False)
    assert fallback.rows == stock.rows
    assert fallback.read_schemas == stock.read_schemas


def test_bad_switch_value_names_the_conf(spark, events):
    with confs(spark, {"spark.pyspark_ext.enabled": "maybe"}):
        with pytest.raises(Exception, match="spark.pyspark_ext.enabled must be true or false"):
            spark.sql(QUERY).collect()


# Typed confs: the jar declares each switch once (ExtConf.scala); settings.py and the settings
# table in docs/configuration.md must say the same.

def _declared(spark) -> list[tuple[str, ...]]:
    listing = spark._jvm.pysparkext.ExtConf.listing()
    return [tuple(line.split("\t")) for line in listing.split("\n")]


def test_settings_py_matches_the_jars_declarations(spark):
    from pyspark_ext import settings
    mine = [(s.key, s.type, s.default, s.doc, ",".join(s.alternatives)) for s in settings.ALL]
    assert mine == _declared(spark)


def test_settings_table_is_the_generated_one():
    from pathlib import Path

    from pyspark_ext.settings import markdown_table
    page = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text()
    assert markdown_table() in page, "regenerate it with: python -m pyspark_ext conf --markdown"


def test_renamed_variant_switch_reads_new_key_then_old_key(spark, tmp_path):
    path = str(tmp_path / "draft")
    spark.sql("SELECT id, shred_variant(parse_json(concat('{\"a\":', id, '}')), 'a int') AS v "
              "FROM range(10)").write.parquet(path)

    def read_as() -> str:
        return spark.read.parquet(path).schema["v"].dataType.typeName()
    assert read_as() == "variant"
    with confs(spark, {"spark.pyspark_ext.variant.enabled": "false"}):
        assert read_as() == "struct"
    with confs(spark, {"spark.pyspark_ext.variant.draftLayout.enabled": "false"}):
        assert read_as() == "struct"
    with confs(spark, {"spark.pyspark_ext.variant.draftLayout.enabled": "false",
                       "spark.pyspark_ext.variant.enabled": "true"}):
        assert read_as() == "variant"


# The compatibility probe: a Spark internal the jar needs is faked missing; the feature that needs
# it is switched off with one warning naming it, and the query returns stock Spark's rows.

MISSING = "spark.pyspark_ext.test.missingSparkInternals"
LEAF_QUERY = "SELECT id, user.geo.city, user.geo.lat FROM events WHERE user.geo.lon > 0"


def _probe(spark):
    return spark._jvm.org.apache.spark.sql.pysparkext.SparkInternalsProbe


def test_this_spark_has_every_internal_the_jar_needs(spark):
    warnings = _probe(spark).warnings().mkString("\n")
    assert all(MISSING in w for w in warnings.splitlines() if w), warnings


def test_missing_internal_switches_its_feature_off(spark, events):
    def plan_and_rows():
        df = spark.sql(LEAF_QUERY)
        rows = sorted(map(repr, df.collect()))
        return df._jdf.queryExecution().executedPlan().toString(), rows
    plan, rows = plan_and_rows()
    assert "leaf columns" in plan  # the feature is on, so faking its internal away can fail
    stock = run(spark, LEAF_QUERY, enabled=False).rows
    with confs(spark, {MISSING: "VectorizedColumnReader.readBatch"}):
        plan_off, rows_off = plan_and_rows()
        assert "leaf columns" not in plan_off
        assert "NestedLeafColumns" in plan_off  # only the feature that needs it is off
        assert sorted(repr(tuple(r)) for r in spark.sql(LEAF_QUERY).collect()) == stock
    assert rows_off == rows
    warnings = [w for w in _probe(spark).warnings().mkString("\n").splitlines()
                if "VectorizedColumnReader.readBatch" in w]
    assert len(warnings) == 1
    assert "switching off spark.pyspark_ext.scan.leafColumnsReader.enabled" in warnings[0]
