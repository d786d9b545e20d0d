"""Nested pruning on Delta tables: rows equal stock Spark + Delta, with deletion vectors, column
mapping (renamed, dropped and re-added columns), time travel, MERGE, partitions, nested schema
evolution and OPTIMIZE / Z-order."""
from tests.tables.sessions import PRODUCTS, skip_unless_line

skip_unless_line(PRODUCTS["delta"])

import re

import pytest

from pyspark_ext import settings
from pyspark_ext.jar import EXTENSION_CLASS
from tests.support.differential import compare, confs
from tests.support.nested_shapes import SHAPES
from tests.tables.delta.conftest import spark_jobs

#: The columns Delta's planner adds to a scan of a table with deletion vectors.
DV_COLUMNS = re.compile(r",?(__delta_internal_is_row_deleted:tinyint|_tmp_metadata_row_index:bigint)")


def data_schemas(run) -> list[str]:
    return sorted(DV_COLUMNS.sub("", s).replace("<,", "<") for s in run.read_schemas)


#: A cross-section of tests/support/nested_shapes.py (operators, arrays, maps, generators, subqueries),
#: kept small so the Delta suite stays quick.
DELTA_SHAPES = ["project_filter", "alias_through_join", "array_field_two_levels", "map_value_field",
                "map_keys", "exists", "filter_then_field", "size_and_isnotnull", "count_after_explode",
                "explode_two_fields", "chained_explode", "correlated_exists", "correlated_scalar",
                "rollup_nested_agg", "first_then_field", "collect_list_field"]


@pytest.mark.parametrize("name", DELTA_SHAPES)
def test_shapes_on_deletion_vectors(spark, events, name):
    sql, expected = SHAPES[name]
    _, ext = compare(spark, sql)
    assert data_schemas(ext) == expected


def test_extension_prunes_where_stock_does_not(spark, events):
    for name in ["exists", "size_and_isnotnull", "explode_two_fields"]:
        stock, ext = compare(spark, SHAPES[name][0])
        assert ext.leaves < stock.leaves, name


CM_QUERIES = [
    "SELECT s.a2, s.b.c FROM {t} WHERE y > 10",
    "SELECT id, s.b.d FROM {t}",
    "SELECT count(s.b.d), count(s.a2) FROM {t}",
    "SELECT transform(s.arr, v -> v.e) FROM {t} WHERE s.b.c LIKE 'c1%'",
    "SELECT s.arr.f, y FROM {t}",
    "SELECT id FROM {t} WHERE exists(s.arr, v -> v.e % 9 = 0)",
    "SELECT size(s.arr), isnotnull(s.b) FROM {t}",
    "SELECT s FROM {t} WHERE id > 280",
]


@pytest.mark.parametrize("query", CM_QUERIES)
@pytest.mark.parametrize("mode", ["name", "id"])
def test_column_mapping(spark, request, mode, query):
    table = request.getfixturevalue(f"cm_{mode}")
    compare(spark, query.format(t=table))


def test_column_mapping_reads_renamed_and_readded_columns(spark, cm_name):
    rows = {r.id: r for r in spark.sql("SELECT id, s.a2, s.b.d FROM cm_name").collect()}
    assert rows[1].a2 == 1 and rows[1].d is None  # the dropped d's values stay dropped
    assert rows[301].d == "new301"


HISTORY_QUERIES = [
    "SELECT s.b.c, p FROM evolved{v} WHERE p = 'p1'",
    "SELECT id, s.a FROM evolved{v} WHERE s.b.d > 0.5",
    "SELECT p, count(s.b.c), max(s.b.d) FROM evolved{v} GROUP BY p",
    "SELECT id FROM evolved{v} WHERE s.b.c LIKE 'm%' AND p != 'p0'",
]


@pytest.mark.parametrize("query", HISTORY_QUERIES)
@pytest.mark.parametrize("version", ["", " VERSION AS OF 1", " VERSION AS OF 2", " VERSION AS OF 3"])
def test_time_travel_merge_partitions(spark, evolved, version, query):
    compare(spark, query.format(v=version))


@pytest.mark.parametrize("query", [
    "SELECT s.b.e, s.n.x FROM evolved",
    "SELECT id, s.n FROM evolved WHERE s.b.e IS NOT NULL",
    "SELECT count(s.n.x) FROM evolved VERSION AS OF 3",
])
def test_nested_fields_added_by_merge_schema(spark, evolved, query):
    compare(spark, query)


def test_optimize_zorder_compacted(spark, evolved):
    ops = [r.operation for r in spark.sql("DESCRIBE HISTORY evolved").collect()]
    assert "OPTIMIZE" in ops and "MERGE" in ops
    _, ext = compare(spark, "SELECT s.b.c FROM evolved WHERE id BETWEEN 10 AND 40")
    assert data_schemas(ext) == ["struct<id:bigint,s:struct<b:struct<c:string>>>"]


def test_explain_read_schema_reports_delta_scans(spark, events, cm_name):
    import pyspark_ext
    [scan] = pyspark_ext.explain_read_schema(spark.sql("SELECT user.geo.city FROM events"))
    assert scan["format"] == "Delta" and scan["table"] == "spark_catalog.default.events"
    assert 0 < scan["bytes_read"] < scan["bytes_full"]
    # column mapping: the read schema is reported, with the bytes of the files' physically named
    # columns; row groups are not counted (filters name logical columns, the files physical ones)
    [scan] = pyspark_ext.explain_read_schema(spark.sql("SELECT s.b.c FROM cm_name WHERE y > 3"))
    assert scan["read_schema"].startswith("struct<y:int,s:struct<b:struct<c:string>>")
    assert 0 < scan["bytes_read"] < scan["bytes_full"]
    assert "row_groups" not in scan


def test_delta_switch_leaves_delta_scans_as_delta_plans_them(spark, events, tmp_path):
    """With ``spark.pyspark_ext.delta.enabled=false`` a Delta scan reads what stock Spark + Delta
    reads, with the same rows, while a Parquet path in the same session is still pruned."""
    path = str(tmp_path / "events_parquet")
    spark.table("events").write.parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("events_path")
    on_delta, on_path = SHAPES["exists"][0], SHAPES["exists"][0].replace("events", "events_path")
    with confs(spark, {settings.DELTA_TABLES: "false"}):
        delta_stock, delta_off = compare(spark, on_delta)
        path_stock, path_ext = compare(spark, on_path)
    assert data_schemas(delta_off) == data_schemas(delta_stock)
    assert path_ext.leaves < path_stock.leaves
    _, delta_on = compare(spark, on_delta)
    assert delta_on.leaves < delta_stock.leaves


def test_delta_plans_the_scan_the_extension_narrowed(spark, evolved):
    """``configure`` lists the extension ahead of Delta, whose scan planning runs in the same
    optimizer batch (docs/table-formats.md): Delta then lists the files for the filters the
    extension leaves, and a filter on a nested field costs no Spark job more than one on a
    top-level column. Listed after Delta, the extension changes the scan Delta planned, and Delta
    lists the table's files again while the query runs. (A table without deletion vectors: with
    them, Delta fixes a scan's files when it plans it.)"""
    assert spark.conf.get("spark.sql.extensions").split(",").index(EXTENSION_CLASS) == 0
    query = "SELECT s.b.c FROM evolved WHERE s.b.d > 0.5"
    compare(spark, query)
    assert spark_jobs(spark, query) == spark_jobs(spark, "SELECT s.b.c FROM evolved WHERE id > 100")
