"""Whole-plan nested pruning reaches Iceberg's scan builder: every query shape reads exactly its
minimal leaf set from an Iceberg table (the BatchScan's read schema) and returns stock rows."""
import pytest

from tests.support.differential import confs
from tests.support.nested_shapes import SHAPES
from tests.tables.iceberg.conftest import compare, on_table
from pyspark_ext.settings import ICEBERG_PRUNING

#: shapes stock Spark over-reads on Parquet paths; on Iceberg too
STOCK_OVER_READS = ["exists", "rollup_nested_agg", "size_and_isnotnull", "explode_two_fields",
                    "correlated_exists", "chained_explode", "aggregate_hof"]


#: shapes whose rows depend on the order rows reach an aggregate (`first`, `collect_list(...)[0]`):
#: Iceberg plans files in parallel, so two runs may differ, stock or not; their rows are not compared
ORDER_SENSITIVE = {"first_then_field", "collect_list_field"}
#: correlated subqueries whose correlated condition reads a nested field of the subquery's table:
#: Spark optimises the subquery on its own first, and its V2 push-down builds the Iceberg scan then,
#: asking for the whole column the pulled-up condition reads; the whole-plan rule sees an
#: already built scan, which it cannot narrow (on Parquet paths it can: their relation stays open)
SUBQUERY_SCAN_ALREADY_BUILT = {"correlated_scalar", "exists_inner_nested_condition",
                               "in_correlated_inner_nested"}


def _read_schemas(spark, sql: str) -> list[str]:
    import pyspark_ext
    return sorted(s["read_schema"] for s in pyspark_ext.explain_read_schema(spark.sql(sql)))


@pytest.mark.parametrize("name", sorted(set(SHAPES) - ORDER_SENSITIVE - SUBQUERY_SCAN_ALREADY_BUILT))
def test_shape_on_v2_table_reads_minimal_schema(spark, iceberg_events, name):
    sql, expected = SHAPES[name]
    _, ext = compare(spark, on_table(sql, iceberg_events[2]))
    assert {s["format"] for s in ext.scans} == {"SparkBatchQueryScan"}
    assert ext.read_schemas == expected


@pytest.mark.parametrize("name", sorted(ORDER_SENSITIVE))
def test_order_sensitive_shape_reads_minimal_schema(spark, iceberg_events, name):
    sql, expected = SHAPES[name]
    sql = on_table(sql, iceberg_events[2])
    assert _read_schemas(spark, sql) == expected
    assert len(spark.sql(sql).collect()) == 2


@pytest.mark.parametrize("name", sorted(SUBQUERY_SCAN_ALREADY_BUILT))
def test_correlated_subquery_scan_keeps_stock_read(spark, iceberg_events, name):
    sql, expected = SHAPES[name]
    stock, ext = compare(spark, on_table(sql, iceberg_events[2]))
    # the outer query's scan is pruned; the subquery's is read as stock reads it
    assert expected[0] in ext.read_schemas or expected[1] in ext.read_schemas


@pytest.mark.parametrize("name", STOCK_OVER_READS + ["cte_twice", "in_subquery", "map_value_field"])
def test_shape_on_v3_table_reads_minimal_schema(spark, iceberg_events, name):
    sql, expected = SHAPES[name]
    _, ext = compare(spark, on_table(sql, iceberg_events[3]))
    assert ext.read_schemas == expected


def test_extension_reads_fewer_leaves_than_stock_iceberg(spark, iceberg_events):
    for name in STOCK_OVER_READS:
        stock, ext = compare(spark, on_table(SHAPES[name][0], iceberg_events[2]))
        assert ext.leaves < stock.leaves, name
        print(f"\n{name}: stock reads {stock.leaves} leaves, the extension {ext.leaves}")


def test_iceberg_switch_off_leaves_scans_as_stock(spark, iceberg_events):
    with confs(spark, {ICEBERG_PRUNING: "false"}):
        for name in STOCK_OVER_READS[:3]:
            stock, ext = compare(spark, on_table(SHAPES[name][0], iceberg_events[2]))
            assert ext.read_schemas == stock.read_schemas, name
        # and the same query prunes with the switch on: this test is about the switch
    assert compare(spark, on_table(SHAPES["exists"][0], iceberg_events[2]))[1].read_schemas == SHAPES["exists"][1]
