"""The kill switch, the feature switch, strict mode, the fallback on internal errors, and the
settings' single declaration and check."""
import re
from pathlib import Path

import pytest
from py4j.protocol import Py4JJavaError

from pyspark_ext import settings, settings_table
from pyspark_ext.settings import FORCE_FAILURE
from tests.support.differential import confs, run

QUERY = "SELECT user.geo.city FROM events WHERE exists(page.views, v -> v.ts % 7 = 0)"
PRUNED = ["struct<user:struct<geo:struct<city:string>>,page:struct<views:array<struct<ts:bigint>>>>"]


def test_kill_switch_restores_stock_plan(spark, events):
    assert run(spark, QUERY, enabled=True).read_schemas == PRUNED
    stock = run(spark, QUERY, enabled=False)
    assert stock.read_schemas != PRUNED


def test_feature_switch(spark, events):
    with confs(spark, {settings.NESTED_SCHEMA_PRUNING: "false"}):
        assert run(spark, QUERY, enabled=True).read_schemas != PRUNED
    assert run(spark, QUERY, enabled=True).read_schemas == PRUNED


def test_strict_mode_raises_on_internal_error(spark, events):
    with confs(spark, {FORCE_FAILURE: "true"}):
        with pytest.raises(Py4JJavaError, match="strict mode"):
            spark.sql(QUERY).collect()


def test_internal_error_falls_back_when_not_strict(spark, events):
    with confs(spark, {FORCE_FAILURE: "true", settings.STRICT: "false"}):
        fallback = run(spark, QUERY, enabled=True)
    stock = run(spark, QUERY, enabled=False)
    assert fallback.rows == stock.rows
    assert fallback.read_schemas == stock.read_schemas


# One check for every setting: Spark checks each value by the type ExtConf.scala declares, when it
# is set, and the extension checks it again before each rule runs (for older keys and values set
# before the jar registered its settings), never falling back to Spark's plan on a bad value.

BOOLEAN_KEYS = [k for k in settings.KEYS if k not in (settings.FAKE_MISSING_INTERNALS,) and ".producers." not in k]


@pytest.mark.parametrize("key", BOOLEAN_KEYS)
def test_bad_boolean_value_fails_when_set_naming_the_conf(spark, key):
    with pytest.raises(Exception, match=re.escape(key)) as info:
        spark.conf.set(key, "maybe")
    assert "maybe" in str(info.value)
    assert spark.conf.get(key, None) in (None, "true", "false")


def test_bad_value_fails_the_same_way_for_every_conf(spark, events):
    """``enabled=maybe`` and ``variant.specLayout.enabled=1`` get the same kind of error (the
    second used to fall back to Spark's plan with stack traces in the log)."""
    messages = []
    for key, value in ((settings.ENABLED, "maybe"), (settings.SPEC_VARIANT, "1"), (settings.STRICT, "yes")):
        with pytest.raises(Exception) as info:
            spark.conf.set(key, value)
        messages.append(str(info.value).replace(key, "KEY").replace(value, "VALUE"))
    assert len(set(messages)) == 1, messages


def test_bad_number_value_fails_when_set(spark):
    with pytest.raises(Exception, match=re.escape(settings.PRODUCERS_ROWS_PER_FILE)):
        spark.conf.set(settings.PRODUCERS_ROWS_PER_FILE, "many")


def test_bad_value_of_an_older_key_fails_the_query_naming_it(spark, events):
    old = next(iter(settings.RENAMED))
    with confs(spark, {old: "maybe"}):
        with pytest.raises(Exception, match=re.escape(f"set as {old}")):
            spark.sql(QUERY).collect()


def test_unknown_key_warns_once_naming_the_nearest(spark, events):
    def warnings() -> list[str]:
        return [w for w in spark._jvm.pysparkext.ExtConf.unknownKeyWarnings().mkString("\n").splitlines()
                if "spark.pyspark_ext.strcit " in w]
    with confs(spark, {"spark.pyspark_ext.strcit": "true"}):
        spark.sql(QUERY).collect()
        spark.sql(QUERY).collect()
    assert len(warnings()) == 1
    assert "nearest known setting is spark.pyspark_ext.strict " in warnings()[0]


def test_unknown_key_warnings_name_the_key_configure_names(spark, events):
    """The jar's rule for the nearest key is settings.nearest's: over the same misspellings
    (fixtures/nearest_setting_keys.txt), each warning names the fixture's key."""
    from tests.extension.test_nearest_setting import misspellings
    pairs = misspellings()
    with confs(spark, {misspelt: "true" for misspelt, _ in pairs}):
        spark.sql(QUERY).collect()
    warnings = spark._jvm.pysparkext.ExtConf.unknownKeyWarnings().mkString("\n").splitlines()
    named = {w.split()[3]: w.split("nearest known setting is ")[1].split()[0] for w in warnings}
    assert {misspelt: named.get(misspelt) for misspelt, _ in pairs} == dict(pairs)


def test_configure_rejects_an_unknown_keyword_naming_the_nearest():
    from pyspark.sql import SparkSession

    from pyspark_ext import configure
    with pytest.raises(ValueError, match=r"'strcit'.*did you mean 'strict'"):
        configure(SparkSession.builder, strcit=True)


def test_configure_takes_keys_with_dots():
    from pyspark.sql import SparkSession

    from pyspark_ext import configure
    builder = configure(SparkSession.builder, **{"variant.enabled": False})
    assert builder._options[settings.SHREDDED_VARIANT] == "false"
    builder._options.pop(settings.SHREDDED_VARIANT)


def test_configure_rejects_a_bad_value_before_spark_sees_it():
    from pyspark.sql import SparkSession

    from pyspark_ext import configure
    builder = SparkSession.builder
    before = dict(builder._options)
    with pytest.raises(ValueError, match=re.escape(
            "configure: spark.pyspark_ext.strict is 'yes', which is not a boolean: use true or false")):
        configure(builder, strict="yes")
    with pytest.raises(ValueError, match=re.escape(
            "spark.pyspark_ext.producers.rowsPerFile is 'true', which is not a long: use a whole number of at least 1")):
        configure(builder, **{"producers.rowsPerFile": True})
    assert builder._options == before
    # a value already on the builder, here under an older key
    old = next(iter(settings.RENAMED))
    builder = builder.config(old, "maybe")
    try:
        with pytest.raises(ValueError, match=re.escape(
                f"{old} (the older name of {settings.SHREDDED_VARIANT}) is 'maybe', which is not a boolean")):
            configure(builder)
    finally:
        builder._options.pop(old)  # a class-level dict before Spark 4.3: builders share it


# configure's check reads values as Spark does: it takes what Spark takes, and refuses the rest.
VALUES = ["true", "FALSE", " true ", "yes", "1", "", "t", "+5", "-5", "0", " 7 ", "5.0", "1_000", "0x10",
          "9223372036854775807", "9223372036854775808", "\u0663"]


@pytest.mark.parametrize("key", [settings.STRICT, *settings.NUMBERS, settings.FAKE_MISSING_INTERNALS])
def test_configure_takes_the_values_spark_takes(spark, key):
    session = spark.newSession()
    for value in VALUES:
        try:
            session.conf.set(key, value)
            spark_takes = True
        except Exception:
            spark_takes = False
        assert (settings.bad_value(key, value) is None) == spark_takes, (key, value)


# Number settings are bounded by Spark's own checkValue: a count of rows or bytes below 1 is refused
# wherever it is set, with a message naming the setting.

@pytest.mark.parametrize("value", ["-5", "0"])
def test_a_number_setting_below_its_minimum_is_refused(spark, value):
    from pyspark.sql import SparkSession

    from pyspark_ext import configure
    key = settings.PRODUCERS_ROWS_PER_ROW_GROUP
    with pytest.raises(ValueError, match=re.escape(
            f"configure: {key} is '{value}', which is below its minimum 1: use a whole number of at least 1")):
        configure(SparkSession.builder, **{"producers.rowsPerRowGroup": int(value)})
    session = spark.newSession()
    # Spark's checkValue message; Spark 4.x words it as INVALID_CONF_VALUE.REQUIREMENT around the same parts
    said = ".*".join(map(re.escape, [f"'{value}' in ", key, " is invalid. It must be at least 1."]))
    with pytest.raises(Exception, match=said):
        session.conf.set(key, value)
    session.conf.set(key, "1")
    assert session.conf.get(key) == "1"


# Declared in one place: ExtConf.scala. settings.py holds the keys, SET -v lists the settings with
# their docs, and docs/configuration.md's table is generated from the declarations.

def test_settings_py_holds_the_jars_keys(spark):
    declared = settings_table.declared(spark)
    assert list(settings.KEYS) == [d.key for d in declared]
    assert settings.RENAMED == {a: d.key for d in declared for a in d.alternatives}
    assert {k: settings.value_type(k) for k in settings.KEYS} == {d.key: d.type for d in declared}
    # the order settings.nearest breaks ties in, as the jar's unknown-key warning does
    assert settings.known_keys() == spark._jvm.pysparkext.ExtConf.knownKeys().mkString("\n").split("\n")


def test_set_v_lists_every_public_setting_with_its_doc(spark):
    listed = {r["key"]: r["meaning"] for r in spark.sql("SET -v").collect()
              if r["key"].startswith(settings.PREFIX)}
    declared = settings_table.declared(spark)
    assert listed == {d.key: d.doc for d in declared if d.public}
    assert {d.key for d in declared if not d.public} == {settings.FORCE_FAILURE, settings.FAKE_MISSING_INTERNALS}


def test_configuration_doc_table_is_the_generated_one(spark):
    doc = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    table = settings_table.markdown_table(settings_table.declared(spark))
    assert table in doc, "regenerate it with: python -m pyspark_ext conf --markdown"


def test_setting_docs_hold_no_timings(spark):
    timing = re.compile(r"\d\s*(s|ms|seconds?)\b|\d(\.\d+)?x\b")
    assert [d.key for d in settings_table.declared(spark) if timing.search(d.doc)] == []


def test_renamed_variant_switch_reads_new_key_then_old_key(spark, tmp_path):
    path = str(tmp_path / "draft")
    spark.sql("SELECT id, shred_variant(parse_json(concat('{\"a\":', id, '}')), 'a int') AS v "
              "FROM range(10)").write.parquet(path)

    def read_as() -> str:
        return spark.read.parquet(path).schema["v"].dataType.typeName()
    assert read_as() == "variant"
    with confs(spark, {settings.SHREDDED_VARIANT: "false"}):
        assert read_as() == "struct"
    with confs(spark, {"spark.pyspark_ext.variant.draftLayout.enabled": "false"}):
        assert read_as() == "struct"
    with confs(spark, {"spark.pyspark_ext.variant.draftLayout.enabled": "false",
                       settings.SHREDDED_VARIANT: "true"}):
        assert read_as() == "variant"


# The compatibility probe: a Spark internal the jar needs is faked missing; the feature that needs
# it is switched off with one warning naming it, and the query returns stock Spark's rows.

MISSING = settings.FAKE_MISSING_INTERNALS
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
