"""Spec-layout VARIANT files written by DuckDB (``tests/support/duckdb_files.py``), read with the extension.

DuckDB is an independent writer with its own shredding choices, row groups and statistics.
Every query over its shredded files, extension on, must return what stock Spark returns over the
unshredded copy DuckDB wrote of the same events; each read schema may hold only the leaves the
query needs, and a selective filter on a shredded field must skip row groups. The reverse: spec
files Spark writes read back in DuckDB with the values DuckDB reads from its own unshredded copy.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import ArrayType, DataType, MapType, StructType, _parse_datatype_string

import pyspark_ext
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext import settings
from tests.support.differential import ENABLED, assert_same_rows, confs, rows_of
from tests.support.duckdb_files import GROUP, ROWS, write_tables

pytestmark = pytest.mark.slow

duckdb = pytest.importorskip("duckdb")

TABLES = ["auto", "explicit", "mixed"]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    return write_tables(tmp_path_factory.mktemp("duckdb"))


def source(path: str) -> str:
    # By path, not a temp view: a view keeps the plan analyzed with the setting of its creation.
    return f"parquet.`{path}`"


# --- what a read schema holds -------------------------------------------------------------------

def _leaf_paths(dtype: DataType, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(dtype, StructType):
        return [p for f in dtype.fields for p in _leaf_paths(f.dataType, prefix + (f.name,))]
    if isinstance(dtype, ArrayType):
        return _leaf_paths(dtype.elementType, prefix + ("[]",))
    if isinstance(dtype, MapType):
        return _leaf_paths(dtype.valueType, prefix + ("{}",))
    return [prefix]


def _variant_path(physical: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """A physical leaf of a spec-layout group as (kind, path in the variant): ``typed_value``
    segments are the layout, the rest names the path; the last segment says what the leaf is."""
    *inner, last = physical
    path = tuple(s for s in inner if s != "typed_value")
    return last if last in ("value", "metadata") else "typed", path


def _need(path: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in path.split("."):
        out += [part[:-2], "[]"] if part.endswith("[]") else [part]
    return tuple(out)


def unneeded_leaves(scans: list[dict], needs: tuple[str, ...]) -> list[str]:
    """The leaves of the read schemas that the query does not need. ``needs``: top-level columns
    as ``col:NAME``, variant paths of column ``v`` as ``a.b`` (``items[].sku`` through an
    array); no needs: a null test, one leaf. A leaf of ``v`` is needed when its path and a needed path are one a prefix of the
    other (the typed leaves of the path and below it, the residuals of the objects that hold
    it) or it is ``metadata``, which decodes any residual."""
    if not needs:
        # A null test reads one leaf of the group (any, the cheapest) to see where it is null.
        return [s["read_schema"] for s in scans
                if len(_leaf_paths(_parse_datatype_string(s["read_schema"]))) > 1]
    columns = {n[4:] for n in needs if n.startswith("col:")}
    paths = [_need(n) for n in needs if not n.startswith("col:")]
    extra = []
    for scan in scans:
        for leaf in _leaf_paths(_parse_datatype_string(scan["read_schema"])):
            if leaf[0] != "v":
                if leaf[0] not in columns:
                    extra.append(".".join(leaf))
                continue
            kind, path = _variant_path(leaf[1:])
            if kind == "metadata":
                continue
            if not any(path[:len(p)] == p or p[:len(path)] == path for p in paths):
                extra.append(".".join(leaf))
    return extra


def test_unneeded_leaves_finds_every_other_leaf(spark: SparkSession, files) -> None:
    # The check must see a read of the whole shredded group (what Spark's Parquet reader reads
    # for any path; stock Spark's report shows its variant pushdown's logical struct instead).
    [scan] = pyspark_ext.explain_read_schema(
        spark.sql(f"SELECT v:user.name::string FROM {source(files['explicit'])}"))
    extra = unneeded_leaves([{"read_schema": scan["full_schema"]}], ("user.name",))
    assert "v.typed_value.kind.typed_value" in extra
    assert "v.typed_value.user.typed_value.geo.typed_value.city.typed_value" in extra
    assert "v.value" not in extra and "v.typed_value.user.value" not in extra
    assert not any(".name." in e for e in extra)
    assert unneeded_leaves([scan], ("user.name",)) == []


# --- the queries --------------------------------------------------------------------------------

#: (query over {t}, the paths it needs). ``*``: the whole value.
QUERIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "paths": ("SELECT id, v:id::bigint, v:kind::string FROM {t}", ("col:id", "id", "kind")),
    "nested object": ("SELECT id, variant_get(v, '$.user.geo.country', 'string'), "
                      "v:user.geo.city::string FROM {t}", ("col:id", "user.geo")),
    "decimal, varying type": ("SELECT id, try_variant_get(v, '$.price', 'decimal(10,2)'), "
                              "v:price::string FROM {t}", ("col:id", "price")),
    "timestamps and date": ("SELECT id, v:ts::timestamp_ntz, v:tz::timestamp, v:tz::string, "
                            "v:day::date, v:day::string FROM {t}", ("col:id", "ts", "tz", "day")),
    "array of objects": ("SELECT id, v:items[0].sku::string, try_variant_get(v, '$.items[1].qty', "
                         "'int'), v:items[2].qty::string FROM {t}", ("col:id", "items[].sku", "items[].qty")),
    "array of strings, variant nulls": ("SELECT id, v:tags[1]::string, is_variant_null(v:tags[1]), "
                                        "to_json(v:tags) FROM {t}", ("col:id", "tags")),
    "field of varying type": ("SELECT id, v:val::string, try_variant_get(v, '$.val', 'bigint'), "
                              "v:val.x::int, v:val[1]::int FROM {t}", ("col:id", "val")),
    "variant null field": ("SELECT id, to_json(v:note), is_variant_null(v:note), v:note::string "
                           "FROM {t}", ("col:id", "note")),
    "partial object": ("SELECT id, v:user.extra::int, v:user.id::int, v:user.name::string FROM {t}",
                       ("col:id", "user.extra", "user.id", "user.name")),
    "filter on a nested path": ("SELECT id, v:kind::string FROM {t} "
                                "WHERE v:user.geo.country::string = 'c3'",
                                ("col:id", "kind", "user.geo.country")),
    "filter on a range of ids": ("SELECT v:kind::string, v:user.name::string FROM {t} "
                                 "WHERE v:id::bigint BETWEEN 2100 AND 2300", ("id", "kind", "user.name")),
    "filter on a timestamp": ("SELECT id FROM {t} "
                              "WHERE v:ts::timestamp_ntz >= TIMESTAMP_NTZ '2024-01-05 00:00:00'",
                              ("col:id", "ts")),
    "filter on a date and a decimal": ("SELECT id FROM {t} WHERE v:day::date < DATE '2024-01-10' "
                                       "AND try_variant_get(v, '$.price', 'decimal(10,2)') > 100",
                                       ("col:id", "day", "price")),
    "filter, varying type": ("SELECT id FROM {t} WHERE v:val::string LIKE 's1%' OR v:val.x::int = 8",
                             ("col:id", "val")),
    "group by two paths": ("SELECT v:user.geo.country::string, v:kind::string, count(*), "
                           "sum(try_variant_get(v, '$.price', 'decimal(10,2)')) FROM {t} GROUP BY 1, 2",
                           ("user.geo.country", "kind", "price")),
    "aggregates of typed paths": ("SELECT max(v:ts::timestamp_ntz), min(v:day::date), "
                                  "count(v:note::string), avg(v:user.id::int) FROM {t}",
                                  ("ts", "day", "note", "user.id")),
    "sum of a path": ("SELECT sum(v:id::bigint) FROM {t}", ("id",)),
    "distinct strings": ("SELECT count(DISTINCT v:user.name::string), max(v:items[0].sku::string) "
                         "FROM {t}", ("user.name", "items[].sku")),
    "null tests": ("SELECT count(v), count(*), sum(CASE WHEN v IS NULL THEN 1 END) FROM {t}", ()),
    "self join on two paths": ("SELECT a.id, b.id, b.v:kind::string FROM {t} a JOIN {t} b "
                               "ON a.v:user.id::int = b.v:id::bigint WHERE a.id < 300",
                               ("col:id", "user.id", "id", "kind")),
    "join with a key table": ("SELECT a.v:kind::string, count(*) FROM {t} a "
                              "JOIN (SELECT id AS k FROM range(0, 8192, 17)) r "
                              "ON a.v:id::bigint = r.k GROUP BY 1", ("id", "kind")),
    "variant_explode of an array": ("SELECT id, e.pos, e.value:sku::string, to_json(e.value) "
                                    "FROM {t}, LATERAL variant_explode(v:items) e", ("col:id", "items")),
    "variant_explode of an object": ("SELECT id, e.key, to_json(e.value) "
                                     "FROM {t}, LATERAL variant_explode(v:user) e", ("col:id", "user")),
    "whole values": ("SELECT id, to_json(v), v FROM {t}", ("*",)),
    "whole values, filtered": ("SELECT id, v FROM {t} WHERE v:kind::string = 'odd'", ("*",)),
    "schema_of_variant": ("SELECT schema_of_variant(v:user), schema_of_variant(v:items) FROM {t}",
                          ("user", "items")),
}

#: Known bugs: (query, table) -> the finding.
XFAIL: dict[tuple[str, str], str] = {}


def _cases():
    for name in QUERIES:
        for table in TABLES:
            marks = [pytest.mark.xfail(strict=True, reason=XFAIL[name, table])] \
                if (name, table) in XFAIL else []
            yield pytest.param(name, table, id=f"{name}-{table}", marks=marks)


@pytest.fixture(scope="module")
def truth(spark: SparkSession, files) -> dict[str, list[Any]]:
    """Stock Spark's rows over the unshredded copy, per query (computed once, on demand)."""
    class Truth(dict):
        def __missing__(self, name: str) -> list[Any]:
            with confs(spark, {ENABLED: "false"}):
                self[name] = rows_of(spark, QUERIES[name][0].format(t=source(files["truth"])))
            return self[name]
    return Truth()


@pytest.mark.parametrize(("name", "table"), list(_cases()))
def test_same_rows_as_stock_spark_on_the_unshredded_copy(spark: SparkSession, files, truth,
                                                          name: str, table: str) -> None:
    query, needs = QUERIES[name]
    ext_query = query.format(t=source(files[table]))
    assert_same_rows(rows_of(spark, ext_query), truth[name], ext_query)
    if "*" not in needs:
        scans = pyspark_ext.explain_read_schema(spark.sql(ext_query))
        assert unneeded_leaves(scans, needs) == [], [s["read_schema"] for s in scans]


# --- exact read schemas and row groups ---------------------------------------------------------

def _read_schemas(spark: SparkSession, query: str) -> list[str]:
    return sorted(s["read_schema"] for s in pyspark_ext.explain_read_schema(spark.sql(query)))


@pytest.mark.parametrize("table", ["auto", "explicit"])
def test_a_typed_path_reads_its_typed_leaf_alone(spark: SparkSession, files, table: str) -> None:
    # Every id is typed and DuckDB's statistics say the residuals are all null: a flat column.
    scans = pyspark_ext.explain_read_schema(spark.sql(f"SELECT v:id::bigint FROM {source(files[table])}"))
    assert [s["read_schema"] for s in scans] == [
        "struct<v:struct<typed_value:struct<id:struct<typed_value:bigint>>>>"]
    # DuckDB declares field groups required, so no null-group check needs the struct: leaves only.
    assert all(s["format"].endswith("leaf columns") for s in scans), scans


def test_a_path_with_mismatched_values_reads_its_residual(spark: SparkSession, files) -> None:
    # price is a string in the odd events: those sit in price's residual, decoded with metadata.
    assert _read_schemas(spark, f"SELECT v:price::string FROM {source(files['auto'])}") == [
        "struct<v:struct<metadata:binary,typed_value:struct<price:struct<value:binary,"
        "typed_value:decimal(10,2)>>>>"]


def test_conflicting_files_are_read_separately(spark: SparkSession, files) -> None:
    schemas = _read_schemas(spark, f"SELECT v:id::string FROM {source(files['mixed'])}")
    assert len(schemas) == 2
    assert any("typed_value:bigint" in s for s in schemas)
    assert any("typed_value:string" in s for s in schemas)


FILTERS = {
    "id": "SELECT id, v:kind::string FROM {t} WHERE v:id::bigint BETWEEN 2100 AND 2200",
    # Not on ts: Spark's Parquet filters skip nothing on a TIMESTAMP_NTZ column (isAdjustedToUTC
    # false), a flat one included.
    "timestamp": "SELECT id FROM {t} WHERE v:tz::timestamp >= TIMESTAMP '2024-01-05 00:00:00+00:00'",
}


@pytest.fixture
def _row_group_metrics(spark: SparkSession):
    with confs(spark, {settings.ROW_GROUP_METRICS: "true"}):
        yield


def _row_groups(scans: list[dict]) -> tuple[int, int, int]:
    return tuple(sum(s[k] or 0 for s in scans)
                 for k in ("row_groups", "row_groups_read", "row_groups_skipped"))


@pytest.mark.usefixtures("_row_group_metrics")
@pytest.mark.parametrize(("column", "table", "expected"), [
    # ids 2100-2200 lie in the second of four row groups
    ("id", "auto", (4, 1, 3)),
    ("id", "explicit", (4, 1, 3)),
    # the automatic file skips one of its two; the string ids and the unshredded file cannot skip
    ("id", "mixed", (4, 3, 1)),
    # tz grows with the id: from 2024-01-05 (id 5760) on lies in the last two row groups
    ("timestamp", "auto", (4, 2, 2)),
    ("timestamp", "explicit", (4, 2, 2)),
])
def test_selective_filter_skips_row_groups(spark: SparkSession, files, column: str, table: str,
                                           expected: tuple[int, int, int]) -> None:
    query = FILTERS[column].format(t=source(files[table]))
    with confs(spark, {ENABLED: "false"}):
        stock = pyspark_ext.explain_read_schema(spark.sql(query), run=True)
        truth = rows_of(spark, FILTERS[column].format(t=source(files["truth"])))
    df = spark.sql(query)
    assert_same_rows(rows_of(spark, query), truth, query)
    assert len(truth) > 0
    scans = pyspark_ext.explain_read_schema(df, run=True)
    assert _row_groups(scans) == expected
    assert _row_groups(stock)[2] == 0
    assert sum(s["rows_output"] for s in scans) == expected[1] * GROUP
    assert sum(s["rows_output"] for s in stock) == ROWS


# --- the reverse: files Spark writes, read in DuckDB -------------------------------------------

SPARK_SCHEMA = ("struct<id: bigint, kind: string, price: decimal(10,2), ts: timestamp_ntz, "
                "day: date, user: struct<id: int, name: string, geo: struct<country: string>>, "
                "items: array<struct<sku: string, qty: bigint>>, tags: array<string>>")


def _duckdb_values(path: str) -> list[tuple]:
    con = duckdb.connect()
    try:
        # DuckDB types an unshredded decimal by its digits (0.13 is DECIMAL(2, 2)) and a shredded
        # one by its column: compare the numbers.
        return con.execute(f"SELECT id, v::JSON::VARCHAR, variant_typeof(v), "
                           f"TRY_CAST(v.price AS DECIMAL(18, 2)), v.ts::VARCHAR, v.day::VARCHAR, "
                           f"variant_typeof(v.ts), variant_typeof(v.day) "
                           f"FROM read_parquet('{path}/*.parquet') ORDER BY id").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("layout", ["unshredded", "spec inferred", "spec forced"])
def test_duckdb_reads_what_spark_writes(spark: SparkSession, files, tmp_path: Path,
                                        layout: str) -> None:
    out = str(tmp_path / "spark")
    shred = layout != "unshredded"
    with spark_shredding(spark, shred, SPARK_SCHEMA if "forced" in layout else None), \
            confs(spark, {ENABLED: "false"}):
        spark.read.parquet(files["truth"]).write.parquet(out)
    import pyarrow.parquet as pq
    fields = {f.name for f in pq.ParquetFile(next(Path(out).glob("*.parquet"))).schema_arrow.field("v").type}
    assert fields == ({"metadata", "value"} if layout == "unshredded"
                      else {"metadata", "value", "typed_value"})
    assert _duckdb_values(out) == _duckdb_values(files["truth"])


def test_duckdb_reads_the_draft_layout_as_a_plain_struct(spark: SparkSession, files,
                                                         tmp_path: Path) -> None:
    # Our writer's layout is not the Parquet spec's: DuckDB sees its group, not a VARIANT.
    out = str(tmp_path / "draft")
    pyspark_ext.shred(spark.read.parquet(files["truth"]), "v", "id bigint, kind string") \
        .write.parquet(out)
    con = duckdb.connect()
    try:
        [(kind,)] = con.execute(f"SELECT DISTINCT typeof(v) FROM read_parquet('{out}/*.parquet') "
                                f"WHERE v IS NOT NULL").fetchall()
    finally:
        con.close()
    assert kind.startswith("STRUCT(untyped_value BLOB")
