"""How failures are compared (``pyspark_ext.outcome``, used by the fuzzer, ``verify`` and
the tests): Spark's wrapper errors are looked through to the errors they hold.

Two query stages failing at once depends on timing (adaptive execution reports them together
only when both failures reach it before it acts on the first), so a query cannot be made to do it
on demand. These tests take real errors from failing queries and wrap them as Spark does, with
Spark's own error constructors, then raise them through py4j so that they reach Python as a
failing query's error does.
"""
from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from pyspark_ext import jar
from pyspark_ext.outcome import Outcome, difference, error_classes, failure
from tests.support.lines import needs_variant_type

# The JVM calls differ between Spark lines (4.0 has no PythonErrorUtils.getCondition, 3.5 no
# SparkThrowable.getCondition)
pytestmark = pytest.mark.spark_lines

#: A bad value in a row: a VARIANT object cast to INT.
VARIANT_CAST = """SELECT variant_get(parse_json(concat('{"a":', id, '}')), '$', 'int') FROM range(1)"""
#: An error that is no row's value.
RAISED = "SELECT raise_error(concat('stage ', id)) FROM range(1)"


def raised_by(spark: SparkSession, sql: str):
    try:
        spark.sql(sql).collect()
    except Exception as e:  # noqa: BLE001 - the error is what the test needs
        return e
    raise AssertionError(f"{sql} did not fail")


def thrown(spark: SparkSession, throwable):
    """``throwable`` raised in the JVM and caught in Python, as a failing query's error is."""
    try:
        spark._jvm.scala.util.Failure(throwable).get()
    except Exception as e:  # noqa: BLE001 - the error is what the test needs
        return e
    raise AssertionError("nothing was thrown")


def multiple_failures(spark: SparkSession, *errors: BaseException):
    """Spark's error for stages failing at once: the first stage's error as its cause, the other
    stages' errors suppressed (``AdaptiveSparkPlanExec.cleanUpAndThrowException``)."""
    jvm = spark._jvm
    causes = jvm.java.util.ArrayList()
    for e in errors:
        causes.add(e._origin)
    errors_class = getattr(jvm, "org.apache.spark.sql.errors.QueryExecutionErrors")
    if jar.spark_line() == "4.0":  # 4.0's constructor takes the first error alone
        wrapper = errors_class.multiFailuresInStageMaterializationError(errors[0]._origin)
    else:
        seq = jvm.scala.jdk.javaapi.CollectionConverters.asScala(causes).toSeq()
        wrapper = errors_class.multiFailuresInStageMaterializationError(seq)
    for e in errors[1:]:
        wrapper.addSuppressed(e._origin)
    return thrown(spark, wrapper)


def test_a_failing_task_is_its_error_class_on_every_line(spark: SparkSession) -> None:
    """A task's error is read through the job failure that wraps it, by the condition Spark gives
    it (``getErrorClass`` on Spark 3.5, ``getCondition`` from 4.0)."""
    from tests.support.differential import confs
    with confs(spark, {"spark.sql.ansi.enabled": "true"}):
        e = raised_by(spark, "SELECT array(id)[id + 1] FROM range(1)")
    assert error_classes(e) == ["INVALID_ARRAY_INDEX"]
    assert failure(e).error == "INVALID_ARRAY_INDEX"


@pytest.fixture(scope="module")
def errors(spark: SparkSession) -> dict[str, BaseException]:
    return {"cast": raised_by(spark, VARIANT_CAST), "raised": raised_by(spark, RAISED)}


@needs_variant_type  # holds a VARIANT cast's error, which Spark 3.5 cannot raise
def test_two_failing_stages_are_the_error_each_holds(spark: SparkSession, errors) -> None:
    both = multiple_failures(spark, errors["raised"], errors["cast"])
    # 4.0 raises it without the error class that later lines give it
    assert "Multiple failures" in str(both)
    assert error_classes(both) == ["USER_RAISED_EXCEPTION", "INVALID_VARIANT_CAST"]
    stock, extension = failure(errors["cast"]), failure(both)
    assert stock.error == "INVALID_VARIANT_CAST" and extension.error == "USER_RAISED_EXCEPTION"
    # stock Spark met one stage's error, the other run met it together with another stage's
    assert difference(stock, extension, None) is None
    assert difference(extension, stock, None) is None


@needs_variant_type  # holds a VARIANT cast's error, which Spark 3.5 cannot raise
def test_two_failing_stages_that_do_not_hold_the_other_sides_error_differ(spark: SparkSession, errors) -> None:
    both = failure(multiple_failures(spark, errors["raised"], errors["raised"]))
    assert both.errors == ("USER_RAISED_EXCEPTION",)
    assert "errors differ: INVALID_VARIANT_CAST vs USER_RAISED_EXCEPTION" in difference(failure(errors["cast"]), both, None)
    assert "expected 1 rows, got error USER_RAISED_EXCEPTION" in difference(Outcome(rows=[(1,)]), both, None)


@needs_variant_type  # holds a VARIANT cast's error, which Spark 3.5 cannot raise
def test_a_read_failure_is_the_error_it_holds(spark: SparkSession, errors) -> None:
    factory = getattr(spark._jvm, "org.apache.spark.sql.errors.QueryExecutionErrors")
    read = thrown(spark, factory.cannotReadFilesError(errors["cast"]._origin, "/data/events/part-0.parquet"))
    assert "FAILED_READ_FILE" in str(read)
    assert error_classes(read) == ["INVALID_VARIANT_CAST"]
    assert difference(failure(errors["cast"]), failure(read), None) is None
