"""Each query shape reads exactly its minimal leaf set with the extension on, and returns the rows
stock Spark returns."""
import pytest

from tests.differential import compare
from tests.nested_shapes import SHAPES


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shape_reads_minimal_schema_and_same_rows(spark, events, name):
    sql, expected = SHAPES[name]
    _, ext = compare(spark, sql)
    assert ext.read_schemas == expected


def test_extension_improves_on_stock_for_shapes_stock_misses(spark, events):
    # A few shapes stock Spark 4.3 over-reads; if Spark learns them this test says so.
    for name in ["exists", "rollup_nested_agg", "size_and_isnotnull", "explode_two_fields",
                 "correlated_exists", "first_then_field"]:
        stock, ext = compare(spark, SHAPES[name][0])
        assert ext.leaves < stock.leaves, name
