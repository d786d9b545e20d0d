"""Nested pruning beyond a read schema per query: what the extension gains over stock Spark,
correlated subqueries' rows and widened arrays and maps. That each query shape reads exactly its
minimal leaf set with the extension on, and returns the rows stock Spark returns, is in the rules'
SQL fixtures (``tests/rules/fixtures/WholePlanSchemaPruning.sql``)."""
import pytest

from pyspark_ext import settings
from tests.support.differential import compare, confs
from tests.support.nested_shapes import SHAPES


def test_extension_improves_on_stock_for_shapes_stock_misses(spark, events):
    # A few shapes stock Spark 4.3 over-reads; if Spark learns them this test says so.
    for name in ["exists", "rollup_nested_agg", "size_and_isnotnull", "explode_two_fields",
                 "correlated_exists", "first_then_field"]:
        stock, ext = compare(spark, SHAPES[name][0])
        assert ext.leaves < stock.leaves, name


# Correlated subqueries that keep outer references inside the subquery's plan: the rows must match
# (the outer column a subquery references is not replaced under it).
CORRELATED = [
    "SELECT id, l.c FROM events e, LATERAL (SELECT upper(e.user.geo.city) AS c) l",
    "SELECT id, (SELECT max(x.id) FROM events x WHERE x.id < e.id AND x.user.geo.city = e.user.geo.city "
    "AND x.id > e.id - 50) FROM events e WHERE e.id < 200",
    "SELECT e.id FROM events e WHERE e.user.geo.lat > (SELECT avg(x.user.geo.lat) FROM events x "
    "WHERE x.user.geo.country = e.user.geo.country)",
    "SELECT id FROM events e WHERE EXISTS (SELECT 1 FROM events x WHERE x.id = e.id "
    "AND size(filter(x.page.views, v -> v.ts > e.page.views[0].ts)) > 0)",
]


@pytest.mark.parametrize("sql", CORRELATED)
def test_correlated_outer_references_keep_rows(spark, events, sql):
    compare(spark, sql)


# Arrays and maps whose element structs were pruned are widened back to their original type for
# the operators above (here a generator). The widening copies by a precomputed field mapping in
# generated code: a `transform` lambda would be interpreted row by row. NarrowPrunedGenerators
# moves the widening of arrays above the generators (tests/pruning/test_narrow_generators.py), so
# it is switched off here to test the widening itself; the rows are compared with it on too.
WIDENED = {
    "explode_array": ("SELECT e.x, e.inner[0].p FROM t LATERAL VIEW OUTER explode(a) x AS e",
                      "struct<a:array<struct<x:int,inner:array<struct<p:int>>>>>"),
    "explode_nested_array": ("SELECT i.p FROM t LATERAL VIEW explode(a) x AS e "
                             "LATERAL VIEW OUTER explode(e.inner) y AS i",
                             "struct<a:array<struct<inner:array<struct<p:int>>>>>"),
    "explode_map": ("SELECT k, v.p FROM t LATERAL VIEW OUTER explode(m) x AS k, v",
                    "struct<m:map<string,struct<p:int>>>"),
}


@pytest.fixture(scope="module")
def widened_table(spark, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("widened") / "t")
    spark.sql("""SELECT * FROM VALUES
        (1, array(named_struct('x', 1, 'y', 'a', 'inner', array(named_struct('p', 1, 'q', 'p'), null))),
            map('k', named_struct('p', 1, 'q', 'one'), 'n', null)),
        (2, array(null, named_struct('x', 2, 'y', null, 'inner', null)), map()),
        (3, null, null),
        (4, array(), map('z', named_struct('p', null, 'q', 'zero')))
        AS t(id, a, m)""").write.parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("t")
    yield
    spark.catalog.dropTempView("t")


@pytest.mark.parametrize("name", sorted(WIDENED))
def test_widened_arrays_and_maps_keep_rows_in_generated_code(spark, widened_table, name):
    sql, expected = WIDENED[name]
    _, narrowed = compare(spark, sql)
    assert narrowed.read_schemas == [expected]
    with confs(spark, {settings.NARROW_GENERATORS: "false"}):
        _, ext = compare(spark, sql)
        plan = spark.sql(sql)._jdf.queryExecution().optimizedPlan().toString()
    assert ext.read_schemas == [expected]
    assert "widen_pruned" in plan and "lambdafunction" not in plan, plan
