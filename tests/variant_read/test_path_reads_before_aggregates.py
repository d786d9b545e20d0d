"""Aggregate inputs that read shredded variant paths are computed in the projection below the
aggregate (PathReadsBeforeAggregates), and decimals from the general read are long-backed.

The move must not change which rows an input is evaluated for: an aggregate with a FILTER
clause keeps its input, and a conditional input moves whole, so a row the query excludes never
raises. Every query is compared with the rule off and with stock Spark.
"""
from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from tests.support.differential import ENABLED, assert_same_rows, confs, rows_of
from tests.support.modes import in_modes, outcome
from tests.support.variant_data import ANSI, source, write_spec
from pyspark_ext import settings

RULE = settings.PATH_READS_BEFORE_AGGREGATES
MOVED = "partial_sum(_variant_path"


def _price(i: int) -> str:
    if i % 10 == 0:
        return '"abc"'  # not a number: a cast to a number fails here
    if i % 10 == 5:
        return f'"{i}"'  # a number as text: the general read casts it
    if i % 7 == 0:
        return f"{9999999999999999 - i}.99" if i % 2 else f"-{i}.01"
    return f"{i}.25"


def _q(i: int) -> str:
    return '"abc"' if i % 10 == 0 else str(i)


@pytest.fixture(scope="module")
def table(spark: SparkSession, tmp_path_factory) -> str:
    texts = [(i, f'{{"price": {_price(i)}, "n": {i % 13}, "q": {_q(i)}}}') for i in range(400)]
    df = spark.createDataFrame(texts, "id bigint, j string").selectExpr("id", "parse_json(j) AS v")
    path = str(tmp_path_factory.mktemp("paths_before_aggregates") / "t")
    write_spec(spark, df, path, "struct<price: decimal(18,2), n: int, q: int>")
    write_spec(spark, df, path + "_unshredded", None)
    return source(path)


@pytest.mark.parametrize("query", [
    "SELECT sum(try_variant_get(v, '$.price', 'decimal(18,2)')), max(variant_get(v, '$.n', 'int')) FROM {t}",
    "SELECT variant_get(v, '$.n', 'int') AS n, sum(try_variant_get(v, '$.price', 'decimal(10,2)')), "
    "count(*) FROM {t} GROUP BY 1",
    "SELECT sum(try_variant_get(v, '$.price', 'decimal(18,2)') * 2), avg(try_variant_get(v, '$.price', 'double')) "
    "FROM {t} WHERE id > 17",
])
def test_inputs_move_below_the_aggregate_with_the_same_rows(spark: SparkSession, table: str, query: str) -> None:
    modes = in_modes(spark, RULE, lambda: outcome(spark, query.format(t=table)))
    assert MOVED in modes.on.plan and MOVED not in modes.off.plan
    assert modes.on.rows == modes.off.rows
    # Doubles to a tolerance: stock Spark may sum them in another order.
    assert_same_rows(modes.on.normalised, modes.stock.normalised, query)


@pytest.mark.parametrize("query", [
    # In rows id % 10 = 0, q is "abc", whose cast to int fails under ANSI; the query excludes them.
    "SELECT sum(variant_get(v, '$.q', 'int')) FILTER (WHERE id % 10 <> 0) FROM {t}",
    "SELECT sum(CASE WHEN id % 10 <> 0 THEN variant_get(v, '$.q', 'int') END) FROM {t}",
    "SELECT count(DISTINCT variant_get(v, '$.n', 'int')), sum(variant_get(v, '$.n', 'int')) FROM {t}",
])
def test_rows_a_query_excludes_never_raise(spark: SparkSession, table: str, query: str) -> None:
    # Ground truth: stock Spark on the unshredded file, casting in the query rather than in its
    # reader (where a pushed cast runs for every row, even rows a FILTER clause excludes).
    unshredded = table[:-1] + "_unshredded`"
    with confs(spark, {ANSI: "true"}):
        with confs(spark, {ENABLED: "false", "spark.sql.variant.pushVariantIntoScan": "false"}):
            truth = rows_of(spark, query.format(t=unshredded))
        assert_same_rows(rows_of(spark, query.format(t=table)), truth, query)


def test_a_failing_input_still_fails(spark: SparkSession, table: str) -> None:
    sql = f"SELECT sum(variant_get(v, '$.q', 'int')) FROM {table}"
    with confs(spark, {ANSI: "true"}), pytest.raises(Exception, match="INVALID_VARIANT_CAST"):
        spark.sql(sql).collect()


def test_decimal_sums_over_fallback_rows_match_stock(spark: SparkSession, table: str) -> None:
    # Fallback rows (text, and values the writer could not type) give long-backed decimals now;
    # the sums, including ones near the precision limit, must be exactly stock Spark's.
    sql = (f"SELECT sum(try_variant_get(v, '$.price', 'decimal(18,2)')), "
           f"sum(try_variant_get(v, '$.price', 'decimal(12,4)')), "
           f"min(try_variant_get(v, '$.price', 'decimal(5,1)')) FROM {table}")
    with confs(spark, {ENABLED: "false"}):
        stock = rows_of(spark, sql)
    assert_same_rows(rows_of(spark, sql), stock, sql)
    assert stock[0][0] is not None
