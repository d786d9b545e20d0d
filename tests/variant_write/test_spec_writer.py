"""The spec-layout writer: ``pyspark_ext.shred(df, column, schema, layout="spec")`` and
``shred_variant(v, 'schema', 'spec')`` write the Parquet spec layout (``metadata`` / ``value`` /
``typed_value``) with exactly the given shredding schema, per column, in every file.

Checked from the files themselves: every file's footer holds exactly the requested
``typed_value`` tree and the Parquet VARIANT annotation; stock Spark (extension off) reads the
files as VARIANT with the source's values; DuckDB reads them with the values it reads from an
unshredded copy of the same data; with the extension on, path reads read only their leaves.
The data has nested objects, arrays, decimals, timestamps and dates, values whose type
mismatches the schema (they go to ``value``), SQL NULL and variant null, and a table of several
columns with several VARIANT columns, one inside a struct.
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (ArrayType, DataType, StructType, VariantType,
                               _parse_datatype_string)

import pyspark_ext
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext.settings import COLUMNAR_SPEC_WRITER, SPEC_LAYOUT_WRITER
from devtools.data import DRAFT_SCHEMAS, SPEC_SCHEMAS, variant_json
from tests.support.differential import ENABLED, confs

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS = 2600
FILES = 3

V_SCHEMA = ("id bigint, kind string, price decimal(10,2), ts timestamp, lts timestamp_ntz, day date, "
            "user struct<id: int, name: string, geo: struct<country: string>>, "
            "items array<struct<sku: string, qty: bigint>>, tags array<string>, note variant")
W_SCHEMA = "struct<a: double, b: array<bigint>>"
NV_SCHEMA = "bigint"

_EVENT = """to_variant_object(named_struct(
    'id', id, 'kind', element_at(array('view', 'click', 'buy'), CAST(id % 3 + 1 AS int)),
    'price', CAST(id % 1000 / 7 AS decimal(10, 2)),
    'ts', timestamp_seconds(1704067200 + id * 3607),
    'lts', CAST(timestamp_seconds(1704067200 + id * 61) AS timestamp_ntz),
    'day', date_add(DATE '2024-01-01', CAST(id % 400 AS int)),
    'user', named_struct('id', CAST(id % 97 AS int), 'name', concat('u', id % 13),
                         'geo', named_struct('country', IF(id % 7 = 0, NULL, 'fr'))),
    'items', IF(id % 5 = 0, array(), array(named_struct('sku', concat('s', id % 30), 'qty', id % 4),
                                           named_struct('sku', 'z', 'qty', IF(id % 6 = 0, NULL, 2L)))),
    'tags', array('a', concat('t', id % 3)),
    'note', named_struct('free', array(id, 2L)),
    'extra', id * 0.5))"""

SOURCE = f"""
SELECT id, concat('name', id) AS name, CAST(id % 10 AS int) AS n,
  CASE WHEN id % 13 = 0 THEN NULL
       WHEN id % 13 = 1 THEN parse_json('null')
       WHEN id % 13 = 2 THEN parse_json('{{"id": "x' || id || '", "kind": 5, "price": "12.5", '
            || '"ts": "2024-01-01", "day": 7, "user": "anonymous", "items": {{"sku": 1}}, '
            || '"tags": [1, null, {{"k": "v"}}], "note": "text", "other": [1, 2]}}')
       WHEN id % 13 = 3 THEN parse_json('[1, 2, {{"a": 3}}]')
       WHEN id % 13 = 4 THEN parse_json('"just a string"')
       WHEN id % 13 = 5 THEN parse_json('{{"id": 5.5, "price": 1.234, "user": {{"id": 3000000000, '
            || '"name": null, "geo": {{"country": 33, "city": "x"}}}}, "items": [{{"sku": null, '
            || '"qty": "3"}}, 7], "tags": ["a", null]}}')
       WHEN id % 13 = 6 THEN parse_json('{{"price": 12.5, "kind": "view", "note": null}}')
       ELSE {_EVENT}
  END AS v,
  CASE WHEN id % 11 = 0 THEN NULL
       WHEN id % 11 = 1 THEN parse_json('{{"a": "not a double", "b": [1, "two"]}}')
       WHEN id % 11 = 2 THEN parse_json('17')
       ELSE parse_json('{{"a": ' || (id / 4) || 'e0, "b": [' || id || ', 3], "c": true}}')
  END AS w,
  named_struct('x', CAST(id AS int),
               'nv', CASE WHEN id % 9 = 0 THEN parse_json('"str"') WHEN id % 9 = 1 THEN NULL
                          ELSE parse_json(CAST(id * 3 AS string)) END) AS s,
  parse_json('{{"free": ' || id || '}}') AS u
FROM range({ROWS})
"""


@pytest.fixture(scope="module")
def source(spark: SparkSession) -> DataFrame:
    return spark.sql(SOURCE).repartition(FILES, "id")


def _write_table(source: DataFrame, out: str) -> None:
    """v, w and s.nv shredded, each by its own schema; u, a VARIANT without one, unshredded."""
    df = pyspark_ext.shred(source, "v", V_SCHEMA, layout="spec")
    df = pyspark_ext.shred(df, "w", W_SCHEMA, layout="spec")
    df = df.withColumn("s", F.struct(
        F.col("s.x").alias("x"),
        pyspark_ext.shred_column(F.col("s.nv"), NV_SCHEMA, layout="spec").alias("nv")))
    df.write.parquet(out)


@pytest.fixture(scope="module")
def written(spark: SparkSession, source: DataFrame, tmp_path_factory) -> str:
    out = str(tmp_path_factory.mktemp("spec_writer") / "t")
    _write_table(source, out)
    return out


# --- the footers -------------------------------------------------------------------------------

def _arrow_primitive(t: DataType) -> str:
    simple = t.simpleString()
    return {"bigint": "int64", "int": "int32", "smallint": "int16", "tinyint": "int8",
            "boolean": "bool", "double": "double", "float": "float", "string": "string",
            "binary": "binary", "date": "date32[day]", "timestamp": "timestamp[us, tz=UTC]",
            "timestamp_ntz": "timestamp[us]"}.get(simple, simple)


def expected_tree(t: DataType):
    """The typed part of a level shredded by ``t``: None (only ``value``), a dict of fields, a
    one-element list (an array's element level), or a primitive's Arrow type."""
    if isinstance(t, VariantType):
        return None
    if isinstance(t, StructType):
        return {f.name: expected_tree(f.dataType) for f in t.fields}
    if isinstance(t, ArrayType):
        return [expected_tree(t.elementType)]
    return _arrow_primitive(t)


def actual_tree(level, top: bool = False):
    names = [level.field(i).name for i in range(level.num_fields)]
    want = (["metadata"] if top else []) + ["value"]
    assert names[:len(want)] == want and set(names) - set(want) <= {"typed_value"}, names
    if "typed_value" not in names:
        return None
    typed = level.field("typed_value").type
    if pa.types.is_struct(typed):
        return {typed.field(i).name: actual_tree(typed.field(i).type) for i in range(typed.num_fields)}
    if pa.types.is_list(typed):
        return [actual_tree(typed.value_type)]
    text = str(typed)
    return re.sub(r"decimal\d+\((\d+), (\d+)\)", r"decimal(\1,\2)", text)


def _schema_type(ddl: str) -> DataType:
    return _parse_datatype_string(ddl if ddl.startswith("struct<") or " " not in ddl else f"struct<{ddl}>")


def _files(path: str) -> list[Path]:
    files = sorted(Path(path).glob("*.parquet"))
    assert files
    return files


def test_every_file_has_exactly_the_requested_trees(written: str) -> None:
    files = _files(written)
    assert len(files) == FILES
    for f in files:
        pf = pq.ParquetFile(f)
        arrow = pf.schema_arrow
        assert arrow.names == ["id", "name", "n", "v", "w", "s", "u"]
        assert actual_tree(arrow.field("v").type, top=True) == expected_tree(_schema_type(V_SCHEMA)), f
        assert actual_tree(arrow.field("w").type, top=True) == expected_tree(_schema_type(W_SCHEMA)), f
        nv = arrow.field("s").type.field("nv").type
        assert actual_tree(nv, top=True) == expected_tree(_schema_type(NV_SCHEMA)), f
        u = arrow.field("u").type
        assert [u.field(i).name for i in range(u.num_fields)] == ["value", "metadata"] or \
            sorted(u.field(i).name for i in range(u.num_fields)) == ["metadata", "value"]
        # Spark's writer annotates each variant group with Parquet's VARIANT logical type, which
        # DuckDB and other readers look for.
        parquet_schema = str(pf.schema)
        for group in ("v", "w", "nv", "u"):
            assert re.search(rf"group field_id=-1 {group} \(Variant", parquet_schema), group
        # Spark's own footer schema says VARIANT, without the writer's marks.
        spark_schema = json.loads(pf.metadata.metadata[b"org.apache.spark.sql.parquet.row.metadata"])
        types = {fld["name"]: fld for fld in spark_schema["fields"]}
        assert types["v"]["type"] == "variant" and types["w"]["type"] == "variant"
        assert "pyspark_ext" not in json.dumps(spark_schema)


def test_the_schema_wins_over_sparks_own_write_settings(spark: SparkSession, source: DataFrame,
                                                        tmp_path: Path) -> None:
    # Spark's writer inferring per file, forced to another schema by its test conf (which alone
    # fails beyond three columns), or not shredding at all: the given schema is written anyway.
    for i, (shred, forced) in enumerate([(True, None), (True, "struct<id: string>"), (False, None)]):
        out = str(tmp_path / f"t{i}")
        with spark_shredding(spark, shred, forced):
            _write_table(source, out)
        for f in _files(out):
            v = pq.ParquetFile(f).schema_arrow.field("v").type
            assert actual_tree(v, top=True) == expected_tree(_schema_type(V_SCHEMA))


# --- the values ---------------------------------------------------------------------------------

def _normalised(text: str | None):
    """A JSON text as Python values with every number exact (decimals keep their column's scale
    when read back from a decimal column: 12.5 may come back as 12.50)."""
    if text is None:
        return None
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


COLUMNS = ("v", "w", "s.nv", "u")


def _spark_values(df: DataFrame) -> dict[int, tuple]:
    rows = df.select("id", *[F.to_json(F.col(c)).alias(c) for c in COLUMNS], "name", "n",
                     F.col("s.x").alias("x")).collect()
    return {r["id"]: tuple(_normalised(r[c]) for c in COLUMNS) + (r["name"], r["n"], r["x"])
            for r in rows}


def test_stock_spark_reads_the_source_values(spark: SparkSession, source: DataFrame,
                                             written: str) -> None:
    truth = _spark_values(source)
    assert len(truth) == ROWS
    with confs(spark, {ENABLED: "false"}):
        back = spark.read.parquet(written)
        assert dict((f.name, f.dataType.simpleString()) for f in back.schema.fields)["v"] == "variant"
        assert _spark_values(back) == truth


def test_the_extension_reads_the_source_values_and_only_the_leaves(spark: SparkSession,
                                                                   source: DataFrame,
                                                                   written: str,
                                                                   tmp_path: Path) -> None:
    assert _spark_values(spark.read.parquet(written)) == _spark_values(source)
    # The extension leaves the VARIANT inside s to Spark's reader (a limit of its spec-layout
    # reading, not of the writer; tests/variant_read/test_nested_variant.py), so the leaves of the
    # top-level columns are checked on a copy without s.
    flat = str(tmp_path / "flat")
    pyspark_ext.write_shredded(source.drop("s"), flat, {"v": V_SCHEMA, "w": W_SCHEMA})
    query = (f"SELECT try_variant_get(v, '$.day', 'date'), try_variant_get(v, '$.user.geo.country', "
             f"'string'), try_variant_get(w, '$.a', 'double') FROM parquet.`{flat}`")
    with confs(spark, {ENABLED: "false"}):
        stock = sorted(map(repr, spark.sql(query).collect()))
    assert sorted(map(repr, spark.sql(query).collect())) == stock
    [scan] = pyspark_ext.explain_read_schema(
        spark.sql(f"SELECT v:lts::timestamp_ntz FROM parquet.`{flat}`"))
    # lts is never a mismatched type here, so its value column is null in every row group
    assert scan["read_schema"] == \
        "struct<v:struct<typed_value:struct<lts:struct<typed_value:timestamp_ntz>>>>"
    [scan] = pyspark_ext.explain_read_schema(spark.sql(f"SELECT w:a::double FROM parquet.`{flat}`"))
    assert scan["read_schema"] == ("struct<w:struct<metadata:binary,typed_value:struct<"
                                   "a:struct<value:binary,typed_value:double>>>>")


duckdb = pytest.importorskip("duckdb")


def _duckdb_values(path: str) -> dict[int, tuple]:
    con = duckdb.connect()
    try:
        rows = con.execute(
            "SELECT id, v::JSON::VARCHAR, w::JSON::VARCHAR, s.nv::JSON::VARCHAR, u::JSON::VARCHAR, "
            "variant_typeof(v.ts), variant_typeof(v.day), v.ts::VARCHAR, v.day::VARCHAR "
            f"FROM read_parquet('{path}/*.parquet')").fetchall()
    finally:
        con.close()
    return {r[0]: tuple(_normalised(x) for x in r[1:5]) + tuple(r[5:]) for r in rows}


def test_duckdb_reads_what_it_reads_from_an_unshredded_copy(spark: SparkSession, source: DataFrame,
                                                            written: str, tmp_path: Path) -> None:
    plain = str(tmp_path / "plain")
    with spark_shredding(spark, False):
        source.write.parquet(plain)
    truth = _duckdb_values(plain)
    assert len(truth) == ROWS
    got = _duckdb_values(written)
    assert got == truth
    # the typed timestamps and dates are DuckDB's timestamps and dates, not strings
    kinds = {(r[4], r[5]) for r in got.values()}
    assert ("TIMESTAMP_MICROS_TZ", "DATE") in kinds


def test_the_sql_function_writes_the_spec_layout(spark: SparkSession, source: DataFrame,
                                                 tmp_path: Path) -> None:
    source.createOrReplaceTempView("spec_writer_src")
    out = str(tmp_path / "sql")
    spark.sql(f"SELECT id, shred_variant(v, '{V_SCHEMA}', 'spec') AS v, w FROM spec_writer_src") \
        .write.parquet(out)
    for f in _files(out):
        arrow = pq.ParquetFile(f).schema_arrow
        assert actual_tree(arrow.field("v").type, top=True) == expected_tree(_schema_type(V_SCHEMA))
    with confs(spark, {ENABLED: "false"}):
        back = spark.read.parquet(out).select("id", F.to_json("v").alias("v")).collect()
    truth = {r["id"]: _normalised(r["v"]) for r in source.select("id", F.to_json("v").alias("v")).collect()}
    assert {r["id"]: _normalised(r["v"]) for r in back} == truth


def test_write_shredded_writes_several_columns(spark: SparkSession, source: DataFrame,
                                               tmp_path: Path) -> None:
    out = str(tmp_path / "ws")
    pyspark_ext.write_shredded(source.drop("s"), out, {"v": V_SCHEMA, "w": W_SCHEMA})
    for f in _files(out):
        arrow = pq.ParquetFile(f).schema_arrow
        assert actual_tree(arrow.field("w").type, top=True) == expected_tree(_schema_type(W_SCHEMA))


def test_tables_created_from_marked_data(spark: SparkSession, source: DataFrame,
                                         tmp_path: Path) -> None:
    marked = pyspark_ext.shred(source.select("id", "v"), "v", V_SCHEMA, layout="spec")
    marked.createOrReplaceTempView("spec_writer_marked")
    try:
        marked.write.format("parquet").option("path", str(tmp_path / "t1")) \
            .saveAsTable("spec_writer_t1")
        spark.sql(f"CREATE TABLE spec_writer_t2 USING parquet LOCATION '{tmp_path / 't2'}' "
                  f"AS SELECT * FROM spec_writer_marked")
        for table in ("t1", "t2"):
            for f in _files(str(tmp_path / table)):
                v = pq.ParquetFile(f).schema_arrow.field("v").type
                assert actual_tree(v, top=True) == expected_tree(_schema_type(V_SCHEMA)), table
    finally:
        spark.sql("DROP TABLE IF EXISTS spec_writer_t1")
        spark.sql("DROP TABLE IF EXISTS spec_writer_t2")


def test_inserts_into_an_existing_table_keep_the_schema(spark: SparkSession, source: DataFrame,
                                                        tmp_path: Path) -> None:
    """`insertInto` and `INSERT INTO` rename the data to the table's columns: the files still get
    the schema the data was marked with, and every value reads back."""
    marked = pyspark_ext.shred(source.select("id", "v"), "v", V_SCHEMA, layout="spec")
    marked.createOrReplaceTempView("spec_writer_insert")
    location = tmp_path / "t3"
    try:
        spark.sql(f"CREATE TABLE spec_writer_t3 (id bigint, v variant) USING parquet LOCATION '{location}'")
        marked.write.insertInto("spec_writer_t3")
        first = set(_files(str(location)))
        spark.sql("INSERT INTO spec_writer_t3 SELECT * FROM spec_writer_insert")
        second = set(_files(str(location))) - first
        assert first and second
        for f in first | second:
            v = pq.ParquetFile(f).schema_arrow.field("v").type
            assert actual_tree(v, top=True) == expected_tree(_schema_type(V_SCHEMA)), f
        expected = {r.id: _normalised(r.j) for r in source.selectExpr("id", "to_json(v) AS j").collect()}
        rows = spark.table("spec_writer_t3").selectExpr("id", "to_json(v) AS j").collect()
        assert len(rows) == 2 * len(expected)
        assert all(_normalised(r.j) == expected[r.id] for r in rows)
    finally:
        spark.sql("DROP TABLE IF EXISTS spec_writer_t3")


def test_the_draft_layout_is_unchanged(spark: SparkSession, source: DataFrame) -> None:
    draft = pyspark_ext.shred(source, "v", "id bigint, kind string")
    assert draft.schema["v"].dataType.simpleString() == (
        "struct<untyped_value:binary,object:struct<id:struct<untyped_value:binary,typed_value:bigint>,"
        "kind:struct<untyped_value:binary,typed_value:string>>>")
    spec = pyspark_ext.shred(source, "v", "id bigint, kind string", layout="spec")
    assert spec.schema["v"].dataType.simpleString() == "variant"


def test_switched_off_the_marked_column_is_written_as_spark_writes_it(spark: SparkSession,
                                                                      source: DataFrame,
                                                                      tmp_path: Path) -> None:
    out = str(tmp_path / "off")
    with confs(spark, {SPEC_LAYOUT_WRITER: "false"}), \
            spark_shredding(spark, False):
        pyspark_ext.shred(source.select("id", "v"), "v", V_SCHEMA, layout="spec").write.parquet(out)
    for f in _files(out):
        v = pq.ParquetFile(f).schema_arrow.field("v").type
        assert sorted(v.field(i).name for i in range(v.num_fields)) == ["metadata", "value"]


# --- the columnar write ------------------------------------------------------------------------

COLUMNAR = COLUMNAR_SPEC_WRITER
FOOTER_KEY = b"pyspark_ext.columnarShreddedColumns"


def _write_both_ways(source: DataFrame, tmp_path: Path, layout: str = "spec",
                     schemas: tuple = (("v", V_SCHEMA), ("w", W_SCHEMA), ("x", "a bigint"))
                     ) -> dict[bool, list[Path]]:
    """The table of the other tests plus a nullable nested struct, in small row groups and pages
    (so that rows end row groups and pages mid-file), written column by column and row by row."""
    df = source.withColumn("g", F.expr(
        "IF(id % 4 = 0, NULL, named_struct('a', id, 'b', IF(id % 3 = 0, NULL, named_struct('c', id))))"))
    # x: fields left to the residual hold objects, arrays of objects and scalars
    df = df.withColumn("x", F.expr(
        """parse_json('{"z": ' || id || ', "a": ' || (id % 5) || ', "b": {"c": 2, "d": {"e": [3, '
           || '{"f": ' || id || '}]}}, "s": "t' || (id % 3) || '"}')"""))
    df = df.sortWithinPartitions("id")
    out = {}
    for columnar in (True, False):
        path = str(tmp_path / f"{layout}_columnar_{columnar}")
        with confs(df.sparkSession, {COLUMNAR: str(columnar).lower()}):
            marked = df
            for column, schema in schemas:
                marked = pyspark_ext.shred(marked, column, schema, layout=layout)
            marked = marked.withColumn("s", F.struct(
                F.col("s.x").alias("x"),
                pyspark_ext.shred_column(F.col("s.nv"), NV_SCHEMA, layout="spec").alias("nv")))
            marked.write.option("parquet.block.size", 16384).option("parquet.page.size", 2048) \
                .option("parquet.page.row.count.limit", 37).parquet(path)
        out[columnar] = sorted(_files(path), key=lambda f: pq.read_table(f, columns=["id"])["id"][0].as_py())
    return out


def test_the_columnar_write_writes_what_the_row_by_row_write_writes(source: DataFrame,
                                                                     tmp_path: Path) -> None:
    # The top-level shredded columns go column by column; the one inside a struct does not.
    _same_files(_write_both_ways(source, tmp_path), b"v,w,x")


# The draft layout's typed timestamps are INT96 under Spark's default output type, which the column
# writers write as Spark does; millisecond timestamps they do not take, so with those the file is
# written row by row (the other case).
DRAFT_COLUMNAR = (("v", V_SCHEMA), ("w", W_SCHEMA), ("x", "a bigint"))


@pytest.mark.parametrize(("output_timestamps", "footer"), [("INT96", b"v,w,x"), ("TIMESTAMP_MILLIS", None)],
                         ids=["columnar", "row_by_row_fallback"])
def test_the_draft_layout_columnar_write_writes_what_the_expression_writes(
        source: DataFrame, tmp_path: Path, output_timestamps: str, footer: bytes | None) -> None:
    """`shred(df, column, schema)` written with the switch on (the column shredded as it is
    written) and off (`shred_variant` evaluated, its struct written by Spark): the same files."""
    # Row groups may end a row apart: Parquet's row-by-row consumer holds back the nulls of absent
    # groups (a missing field's level) when it measures a row group; the values are the same.
    with confs(source.sparkSession, {"spark.sql.parquet.outputTimestampType": output_timestamps}):
        files = _write_both_ways(source, tmp_path, "draft", DRAFT_COLUMNAR)
    _same_files(files, footer, same_row_groups=False)


@pytest.mark.parametrize(("after", "footer"), [
    (lambda df: df.where("id % 3 != 0").repartition(2, "id").sortWithinPartitions("id"), b"v"),
    # A filter on the draft struct itself needs the struct: the expression stays, row by row.
    (lambda df: df.where("v.object.id.typed_value % 3 != 0").sortWithinPartitions("id"), None),
], ids=["by_other_columns", "by_the_shredded_column"])
def test_the_draft_layout_columnar_write_after_a_filter_and_a_sort(
        spark: SparkSession, source: DataFrame, tmp_path: Path, after, footer: bytes | None) -> None:
    schema = DRAFT_COLUMNAR[0][1]
    files = {}
    for columnar in (True, False):
        out = str(tmp_path / f"columnar_{columnar}")
        with confs(spark, {COLUMNAR: str(columnar).lower()}):
            after(pyspark_ext.shred(source.select("id", "v"), "v", schema)).write.parquet(out)
        files[columnar] = [pq.read_table(f) for f in _files(out)]
        assert {pq.ParquetFile(f).metadata.metadata.get(FOOTER_KEY) for f in _files(out)} == \
            {footer if columnar else None}
    both = [pa.concat_tables(files[c]).sort_by("id") for c in (True, False)]
    assert both[0].num_rows > 0 and both[0].equals(both[1])


@pytest.mark.parametrize("layout", ["spec", "draft"])
def test_rebased_dates_and_timestamps_are_written_as_spark_writes_them(
        spark: SparkSession, tmp_path: Path, layout: str) -> None:
    """Under the LEGACY rebase modes Spark's writer rebases dates and timestamps before 1582 (and
    marks the footer so readers rebase back): such a write goes Spark's way, row by row, and the
    old dates read back as they were written."""
    source = spark.sql("SELECT id, to_variant_object(named_struct('d', date_add(date'1000-01-01', CAST(id AS int)), "
                       "'t', timestamp'1000-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id))) AS v "
                       "FROM range(4)")
    expected = {r.id: r.j for r in source.selectExpr("id", "to_json(v) AS j").collect()}
    schema = "d date, t timestamp" if layout == "spec" else "d date, t timestamp_ntz"
    out = str(tmp_path / layout)
    with confs(spark, {"spark.sql.parquet.datetimeRebaseModeInWrite": "LEGACY",
                       "spark.sql.parquet.int96RebaseModeInWrite": "LEGACY"}):
        pyspark_ext.shred(source, "v", schema, layout=layout).write.parquet(out)
    assert all(FOOTER_KEY not in pq.ParquetFile(f).metadata.metadata for f in _files(out))
    assert {r.id: r.j for r in spark.read.parquet(out).selectExpr("id", "to_json(v) AS j").collect()} == expected


def _same_files(files: dict[bool, list[Path]], footer: bytes | None, same_row_groups: bool = True) -> None:
    assert len(files[True]) == len(files[False]) == FILES
    for columnar, rows in zip(files[True], files[False]):
        a, b = pq.ParquetFile(columnar), pq.ParquetFile(rows)
        assert a.metadata.metadata.get(FOOTER_KEY) == footer
        assert FOOTER_KEY not in b.metadata.metadata
        spark_schema = b"org.apache.spark.sql.parquet.row.metadata"
        assert a.metadata.metadata[spark_schema] == b.metadata.metadata[spark_schema]
        assert a.schema.equals(b.schema)
        assert a.metadata.num_row_groups > 1 and b.metadata.num_row_groups > 1
        if not same_row_groups:
            totals = [[sum(m.row_group(g).column(c).statistics.null_count for g in range(m.num_row_groups))
                       for c in range(m.num_columns)] for m in (a.metadata, b.metadata)]
            assert totals[0] == totals[1]
            assert a.read().equals(b.read())
            continue
        assert a.metadata.num_row_groups == b.metadata.num_row_groups
        for g in range(a.metadata.num_row_groups):
            ga, gb = a.metadata.row_group(g), b.metadata.row_group(g)
            assert ga.num_rows == gb.num_rows
            for c in range(ga.num_columns):
                ca, cb = ga.column(c), gb.column(c)
                assert ca.path_in_schema == cb.path_in_schema
                assert ca.num_values == cb.num_values, ca.path_in_schema
                assert ca.statistics == cb.statistics, ca.path_in_schema
        # Value for value, every leaf (the variant groups read as their binary and typed parts).
        assert a.read().equals(b.read())


# Keys beyond the BMP sort one way by UTF-16 (Java's String order, which Spark's builder uses)
# and another by code point (UTF-8 bytes, which the test codec and other writers use).
_KEY_ORDER_EVENTS = [
    {"id": 1, "meta": {"a": 1, "b": {"c": [2, {"d": "é"}]}}, "é": {"ü": 1}},
    {"id": 2, "\U0001F600": 1, "\uFFFD": {"\U0001F601": 2, "\uFFFE": [3]}, "z": 4},
    {"id": 3, "x": {"\u00e9": 1, "\U0001F600": {"b": 1, "a": 2}, "\uFFFD": 3}},
    {"id": 4, "tags": [{"\U0001F600": 1, "\uFFFD": 2}, "t"], "n": None},
]


@pytest.mark.parametrize("layout", ["draft", "spec"])
@pytest.mark.parametrize("order", ["spark", "code_point"])
def test_residuals_keep_their_values_whatever_the_key_order(
        spark: SparkSession, tmp_path: Path, order: str, layout: str) -> None:
    """The residuals, written column by column, are the row-by-row write's bytes, whether the
    source's objects list their keys in Spark's order or in code-point order (another writer's)."""
    from tests.support.variant_codec import encode
    if order == "spark":
        source = spark.createDataFrame([(e["id"], json.dumps(e)) for e in _KEY_ORDER_EVENTS], "id bigint, j string") \
            .selectExpr("id", "parse_json(j) AS v")
    else:
        encoded = [encode(e) for e in _KEY_ORDER_EVENTS]
        v = pa.StructArray.from_arrays([pa.array([m for m, _ in encoded], pa.binary()),
                                        pa.array([x for _, x in encoded], pa.binary())], names=["metadata", "value"])
        pq.write_table(pa.table({"id": pa.array([e["id"] for e in _KEY_ORDER_EVENTS], pa.int64()), "v": v}),
                       str(tmp_path / "source.parquet"))
        source = spark.read.schema("id bigint, v variant").parquet(str(tmp_path / "source.parquet"))
    files = {}
    for columnar in (True, False):
        out = str(tmp_path / f"columnar_{columnar}")
        with confs(spark, {COLUMNAR: str(columnar).lower()}):
            pyspark_ext.shred(source.coalesce(1), "v", "id bigint, x struct<a: bigint>, tags array<string>",
                              layout=layout).write.parquet(out)
        [files[columnar]] = _files(out)
    assert pq.ParquetFile(files[True]).metadata.metadata.get(FOOTER_KEY) == b"v"
    assert pq.read_table(files[True]).equals(pq.read_table(files[False]))
    back = {r.id: json.loads(r.j) for r in spark.read.parquet(str(files[True].parent))
            .selectExpr("id", "to_json(v) AS j").collect()}
    assert back == {e["id"]: e for e in _KEY_ORDER_EVENTS}


def test_switched_off_the_columnar_write_leaves_no_mark(spark: SparkSession, source: DataFrame,
                                                        tmp_path: Path) -> None:
    for columnar in ("true", "false"):
        out = str(tmp_path / columnar)
        with confs(spark, {COLUMNAR: columnar}):
            pyspark_ext.shred(source.select("id", "v"), "v", V_SCHEMA, layout="spec").write.parquet(out)
        for f in _files(out):
            assert (FOOTER_KEY in pq.ParquetFile(f).metadata.metadata) == (columnar == "true")


# --- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("column", "schema", "message"), [
    ("v", "struct<a: map<string, int>>", r"(?i)`?v`?.*map<string,\s*int>.*\$\.a"),
    ("v", "a bigint,, b", r"`?v`?.*Cannot parse shredding schema"),
    ("v", "struct<>", r"`?v`?.*names no field"),
    ("v", "a bigint, a string", r"`?v`?.*'a' appears twice"),
    ("v", "struct<a: interval day>", r"`?v`?.*no variant counterpart"),
    ("name", "bigint", r"name.*STRING, not VARIANT"),
])
def test_bad_input_names_the_column(spark: SparkSession, source: DataFrame, column: str,
                                    schema: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        pyspark_ext.shred(source, column, schema, layout="spec").schema  # noqa: B018


def test_bad_layout(source: DataFrame) -> None:
    with pytest.raises(ValueError, match="layout"):
        pyspark_ext.shred(source, "v", "bigint", layout="iceberg")


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(seed=1, schema=("spec", SPEC_SCHEMAS[0]))  # residual objects nested in user (user.extra)
@example(seed=2, schema=("draft", DRAFT_SCHEMAS[1]))  # residual objects nested in user
@given(seed=st.integers(0, 10**6), schema=st.sampled_from(
    [("spec", s) for s in SPEC_SCHEMAS if s not in (None, "inferred")]
    + [("spec", s) for s in ("variant", "array<bigint>", "id string")]
    + [("draft", s) for s in DRAFT_SCHEMAS]))
def test_property_the_columnar_write_equals_the_row_by_row_write(spark: SparkSession, tmp_path: Path,
                                                                 seed: int, schema: tuple) -> None:
    """Any mix of types (the fuzzer's events: numbers as ints, decimals, doubles and strings, objects
    that are sometimes arrays, residual objects, SQL and JSON nulls), any schema, either layout:
    the same files."""
    layout, schema = schema
    values = variant_json(300, seed)
    df = spark.createDataFrame([(i, j) for i, j in enumerate(values)], "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v").coalesce(1)
    tables = {}
    for columnar in ("true", "false"):
        out = str(tmp_path / f"p{seed}_{columnar}")
        with confs(spark, {COLUMNAR: columnar}):
            pyspark_ext.shred(df, "v", schema, layout=layout).write.mode("overwrite") \
                .option("parquet.page.row.count.limit", 23).parquet(out)
        (f,) = _files(out)
        tables[columnar] = pq.read_table(f)
        if columnar == "true":  # the columnar writer did write it (no fallback)
            assert pq.ParquetFile(f).metadata.metadata[FOOTER_KEY] == b"v"
    assert tables["true"].equals(tables["false"])
