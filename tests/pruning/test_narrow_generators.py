"""Generators over pruned arrays (``NarrowPrunedGenerators``): the generator explodes the narrow
array and each element is widened above it, or not at all where only its fields are read. Every
query returns the rows stock Spark returns, and reads what it read before the rule."""
from __future__ import annotations

import pytest

from pyspark_ext import settings
from tests.support.differential import compare, confs
from tests.support.rule_fixtures import ARRAYS

NARROW_OFF = {settings.NARROW_GENERATORS: "false"}

CHAINED_EXPLODE = ("SELECT sum(item.cpc) FROM events LATERAL VIEW explode(page.views) v AS view "
                   "LATERAL VIEW explode(view.items) i AS item WHERE item.clicked")


def optimized_plan(spark, sql: str) -> str:
    return spark.sql(sql)._jdf.queryExecution().optimizedPlan().toString()


def rows_and_reads_as_before(spark, sql: str) -> str:
    """Compares ``sql`` with stock Spark with the rule on and off, checks that the rule reads what
    was read without it, and returns the optimized plan with the rule on."""
    _, ext = compare(spark, sql)
    with confs(spark, NARROW_OFF):
        _, before = compare(spark, sql)
    assert ext.read_schemas == before.read_schemas
    return optimized_plan(spark, sql)


def below_generators(plan: str) -> str:
    """The plan's lines from its last (deepest) Generate down: what the generators read."""
    lines = plan.splitlines()
    last = max(i for i, line in enumerate(lines) if "Generate " in line)
    return "\n".join(lines[last + 1:])


def test_chained_explode_reads_pruned_and_widens_nothing(spark, events):
    _, ext = compare(spark, CHAINED_EXPLODE)
    with confs(spark, NARROW_OFF):
        _, before = compare(spark, CHAINED_EXPLODE)
        assert "widen_pruned" in optimized_plan(spark, CHAINED_EXPLODE)
    # what it reads: chained_explode_events in tests/rules/fixtures/NarrowPrunedGenerators.sql
    assert ext.read_schemas == before.read_schemas
    assert "widen_pruned" not in optimized_plan(spark, CHAINED_EXPLODE)


@pytest.fixture(scope="module")
def generated_table(spark, tmp_path_factory):
    """Arrays of structs holding arrays, and arrays of arrays, with null and empty arrays, null
    elements and null fields at every level: the rules' SQL fixtures' ``arrays``."""
    path = str(tmp_path_factory.mktemp("narrow_generators") / "g")
    spark.sql(ARRAYS).write.parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("g")
    yield
    spark.catalog.dropTempView("g")


# Only fields (and sizes, nulls, counts) of the generated elements are read above: no widening is
# left anywhere.
NARROWED = {
    "chained": "SELECT id, i.p FROM g LATERAL VIEW explode(a) x AS e LATERAL VIEW explode(e.inner) y AS i",
    "chained_filtered": "SELECT id, i.p FROM g LATERAL VIEW explode(a) x AS e "
                        "LATERAL VIEW explode(e.inner) y AS i WHERE i.p > 0 AND e.x IS NOT NULL",
    "chained_outer": "SELECT id, e.x, i.p FROM g LATERAL VIEW OUTER explode(a) x AS e "
                     "LATERAL VIEW OUTER explode(e.inner) y AS i",
    "posexplode": "SELECT id, pos, e.x FROM g LATERAL VIEW posexplode(a) x AS pos, e",
    "posexplode_outer": "SELECT id, pos, e.x FROM g LATERAL VIEW OUTER posexplode(a) x AS pos, e",
    "explode_outer": "SELECT id, e.x FROM g LATERAL VIEW OUTER explode(a) x AS e",
    "array_of_arrays": "SELECT id, s.p FROM g LATERAL VIEW explode(aa) x AS inner "
                       "LATERAL VIEW explode(inner) y AS s",
    "array_of_arrays_outer": "SELECT id, s.p FROM g LATERAL VIEW OUTER explode(aa) x AS inner "
                             "LATERAL VIEW OUTER explode(inner) y AS s WHERE s IS NULL OR s.p > 10",
    "count_element": "SELECT id, count(e) FROM g LATERAL VIEW OUTER explode(a) x AS e GROUP BY id",
    "filter_aggregate": "SELECT e.x, count(*), sum(size(e.inner)) FROM g LATERAL VIEW explode(a) x AS e "
                        "WHERE e.x > 1 OR e.x IS NULL GROUP BY e.x",
    "inline_dropped_field": "SELECT id, p FROM g LATERAL VIEW explode(a) x AS e "
                            "LATERAL VIEW OUTER inline(e.inner) t AS p, q",
    "explode_select": "SELECT id, i.p FROM (SELECT id, explode(e.inner) AS i FROM "
                      "(SELECT id, explode(a) AS e FROM g)) WHERE i.p IS NOT NULL",
}


@pytest.mark.parametrize("name", sorted(NARROWED))
def test_generators_over_narrow_arrays_keep_rows(spark, generated_table, name):
    plan = rows_and_reads_as_before(spark, NARROWED[name])
    assert "widen_pruned" not in plan, plan


# The element is read whole above the generator (by an aggregate): it is widened there, and only
# there, never the array below the generator.
WHOLE_ELEMENT = {
    "first_element": "SELECT id, max_by(e, e.x).y FROM g LATERAL VIEW explode(a) x AS e GROUP BY id",
    "collect_elements": "SELECT id, transform(collect_list(i), v -> v.p) FROM g "
                        "LATERAL VIEW explode(a) x AS e LATERAL VIEW explode(e.inner) y AS i "
                        "WHERE i.p IS NOT NULL GROUP BY id",
}


@pytest.mark.parametrize("name", sorted(WHOLE_ELEMENT))
def test_element_read_whole_is_widened_above_the_generator(spark, generated_table, name):
    plan = rows_and_reads_as_before(spark, WHOLE_ELEMENT[name])
    assert "widen_pruned" not in below_generators(plan), plan
    assert "widen_pruned" in plan, plan


def test_switch_off_keeps_the_widened_array(spark, generated_table):
    sql = NARROWED["chained"]
    with confs(spark, NARROW_OFF):
        compare(spark, sql)
        assert "widen_pruned" in below_generators(optimized_plan(spark, sql))
