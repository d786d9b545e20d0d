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
