"""Shredded VARIANT path reads on Iceberg tables: where every data file Iceberg plans for a relation
is a Parquet file without delete files whose columns have the table's names, field ids and types,
the extension reads the files itself by their shredded leaves; every other relation stays with
Iceberg's reader, with a warning giving the reason. Rows equal stock Spark + Iceberg every time.

Iceberg's VARIANT type needs format version 3, so every table here is a v3 table."""
from __future__ import annotations

import pyspark_ext
from pyspark_ext import settings
import pytest

from tests.tables.iceberg import conftest
from tests.tables.iceberg.test_iceberg_variant import ROW_READER
from tests.variant_read.test_conflicting_files import CORRELATED

#: objects with an int `a`, a sortable string `b` and a nested double `c.d`
OBJECT = ("parse_json(to_json(named_struct('a', id, 'b', concat('s', lpad(id, 6, '0')), "
          "'c', named_struct('d', id * 1.5))))")
#: the same keys with `a` a string: a file of these shreds `a` differently
OTHER = "parse_json(to_json(named_struct('a', concat('x', id), 'b', concat('s', lpad(id, 6, '0')))))"

QUERIES = [
    "SELECT id, try_variant_get(v, '$.a', 'int'), try_variant_get(v, '$.a', 'string') FROM {t}",
    "SELECT id, v:b::string, v:c.d::double, cast(v:c AS string) FROM {t}",
    "SELECT count(*), sum(try_variant_get(v, '$.c.d', 'double')) FROM {t} WHERE v:b::string < 's000500'",
    "SELECT variant_get(s.w, '$.k', 'int') AS k, sum(s.n) FROM {t} GROUP BY 1",
    "SELECT id, to_json(v) FROM {t} WHERE id % 7 = 0",
]


def compare(spark, query: str):
    """Stock and extension runs of ``query``, rows equal (the extension reads more, smaller leaves
    than a whole VARIANT)."""
    return conftest.compare(spark, query, leaves=False)


def _create(spark, t: str, properties: str = "") -> None:
    spark.sql(f"CREATE OR REPLACE TABLE {t} (id BIGINT, k BIGINT, v VARIANT, s STRUCT<n: BIGINT, w: VARIANT>) "
              f"USING iceberg TBLPROPERTIES ('format-version'='3', 'write.parquet.shred-variants'='true', "
              f"'write.parquet.row-group-size-bytes'='8192'{ROW_READER}{properties})")


def _insert(spark, t: str, lo: int, hi: int, value: str = OBJECT) -> int:
    """Rows ``lo`` to ``hi`` sorted by id; returns the snapshot the insert made."""
    spark.sql(f"INSERT INTO {t} SELECT id, id % 5, {value}, named_struct('n', id, 'w', "
              f"parse_json(to_json(named_struct('k', id % 3)))) FROM range({lo}, {hi}) ORDER BY id")
    return spark.sql(f"SELECT snapshot_id FROM {t}.snapshots ORDER BY committed_at DESC LIMIT 1").first()[0]


def _warnings(spark, t: str) -> list[str]:
    seq = spark._jvm.pysparkext.formats.DeltaScans.warnings()
    return [w for w in (seq.apply(i) for i in range(seq.size())) if f"Iceberg table {t} " in w]


def _by_extension(ext) -> bool:
    """Whether the extension read the table's files itself, rather than Iceberg's scan."""
    return all(s["format"] != "SparkBatchQueryScan" for s in ext.scans) and ":variant" not in "".join(
        ext.read_schemas)


#: the scan Iceberg's reader reads a staged set of a relation's data files with
STAGED_SCAN = "SparkStagedScan"


def mixed_readers(ext) -> bool:
    """Whether one relation was read by both readers: some files by the extension, by their
    shredded leaves, and the rest by Iceberg's reader of a staged set of files, which reads a
    VARIANT whole."""
    formats = [s["format"] for s in ext.scans]
    ours = [s for s in ext.scans if s["format"] not in (STAGED_SCAN, "SparkBatchQueryScan")]
    return (STAGED_SCAN in formats and "SparkBatchQueryScan" not in formats and bool(ours)
            and all(":variant" not in s["read_schema"] for s in ours))


def reads_leaves(ext) -> bool:
    """Whether the extension's scans read fewer leaves than their files hold (not every shredded
    column to rebuild a variant whole)."""
    ours = [s for s in ext.scans if s["format"] not in (STAGED_SCAN, "SparkBatchQueryScan")]
    return bool(ours) and all(s["read_leaves"] < s["full_leaves"] for s in ours)


@pytest.fixture(scope="module")
def mixed(spark):
    """A table with shredded files, an unshredded file and a file that shreds `a` as a string;
    returns the table and the snapshot of its first insert."""
    t = "ice.db.vr_mixed"
    _create(spark, t)
    first = _insert(spark, t, 0, 3000)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.parquet.shred-variants'='false')")
    _insert(spark, t, 3000, 3200)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.parquet.shred-variants'='true')")
    _insert(spark, t, 3200, 3400, OTHER)
    return t, first


@pytest.mark.parametrize("query", QUERIES)
def test_mixed_files_read_by_their_leaves(spark, mixed, query):
    t, _ = mixed
    stock, ext = compare(spark, query.format(t=t))
    assert _by_extension(ext), ext.read_schemas
    assert _warnings(spark, t) == []


def test_read_schema_has_only_the_leaves_read(spark, mixed):
    t, _ = mixed
    stock, ext = compare(spark, f"SELECT v:b::string FROM {t}")
    assert stock.read_schemas == ["struct<v:variant>"]
    for schema in ext.read_schemas:
        assert "b:struct<" in schema or schema == "struct<v:struct<metadata:binary,value:binary>>", schema
        assert "c:struct<" not in schema and "d:struct<" not in schema, schema


def test_time_travel_and_row_group_skipping(spark, mixed):
    """The first snapshot's files only, read by their leaves; a filter on the sorted path skips
    row groups."""
    t, first = mixed
    query = f"SELECT id, v:a::int FROM {t} VERSION AS OF {first} WHERE v:b::string BETWEEN 's001000' AND 's001020'"
    stock, ext = compare(spark, query)
    assert len(stock.rows) == 21
    assert _by_extension(ext), ext.read_schemas
    scans = pyspark_ext.explain_read_schema(spark.sql(query), run=True)
    assert sum(s["row_groups"] for s in scans) > 4
    assert 0 < sum(s["row_groups_read"] for s in scans) < sum(s["row_groups"] for s in scans) / 2, scans
    assert sum(s["files"] for s in scans) == len(spark.sql(
        f"SELECT file_path FROM {t}.files VERSION AS OF {first}").collect()) > 0


def test_row_groups_skipped_where_iceberg_typed_the_sorted_path(spark):
    """Iceberg's writer types each path by the widest value in the first 100 rows of each file
    (``write.parquet.variant-inference-buffer-size``). A file of ids from 0, sorted, types ``a`` as
    int8 and keeps every id from 128 on in the path's untyped column: any of its row groups may
    hold any id, so all are read. A file of ids from 1500 types ``a`` as int16 and holds every
    value typed: its row groups are skipped on their statistics. Rows equal stock either way."""
    t = "ice.db.vr_sorted"
    _create(spark, t)
    for lo, hi in [(0, 1500), (1500, 3000)]:  # one task, so one file, each sorted by id
        spark.sql(f"INSERT INTO {t} SELECT id, id % 5, {OBJECT}, named_struct('n', id, 'w', parse_json('1')) "
                  f"FROM range({lo}, {hi}, 1, 1)")
    for where, int16_read in [("BETWEEN 2000 AND 2010", 1), ("BETWEEN 50 AND 60", 0)]:
        query = f"SELECT id, v:b::string FROM {t} WHERE variant_get(v, '$.a', 'bigint') {where}"
        stock, ext = compare(spark, query)
        assert len(stock.rows) == 11
        assert _by_extension(ext), ext.read_schemas
        scans = {("int8" if "tinyint" in s["read_schema"] else "int16"): s
                 for s in pyspark_ext.explain_read_schema(spark.sql(query), run=True)}
        assert set(scans) == {"int8", "int16"}, scans
        assert scans["int8"]["row_groups"] > 2 and scans["int16"]["row_groups"] > 2, scans
        assert scans["int8"]["row_groups_read"] == scans["int8"]["row_groups"], scans["int8"]
        assert scans["int16"]["row_groups_read"] == int16_read, scans["int16"]


def test_switch_leaves_the_table_to_iceberg(spark, mixed):
    t, _ = mixed
    spark.conf.set(settings.ICEBERG_VARIANT_READS, "false")
    try:
        _, ext = compare(spark, f"SELECT v:b::string FROM {t}")
    finally:
        spark.conf.unset(settings.ICEBERG_VARIANT_READS)
    assert ext.read_schemas == ["struct<v:variant>"]
    assert _warnings(spark, t) == []


@pytest.mark.parametrize("mode", ["merge-on-read", "copy-on-write"])
def test_row_level_changes(spark, mode):
    """DELETE, UPDATE and MERGE, each touching some of the files: merge-on-read leaves deletion
    vectors on those files, which Iceberg's reader reads while the extension reads the others in
    the same query; copy-on-write rewrites the files, which the extension then reads, all of them."""
    t = f"ice.db.vr_{mode.replace('-', '_')}"
    _create(spark, t, f", 'write.delete.mode'='{mode}', 'write.update.mode'='{mode}', "
                      f"'write.merge.mode'='{mode}'")
    for lo in range(0, 800, 200):
        _insert(spark, t, lo, lo + 200)
    spark.sql(f"DELETE FROM {t} WHERE variant_get(v, '$.a', 'int') < 60 AND id % 3 = 0")
    spark.sql(f"UPDATE {t} SET v = parse_json('{{\"a\": -1, \"b\": \"updated\"}}') WHERE id = 250")
    spark.sql(f"MERGE INTO {t} t USING (SELECT id FROM range(400, 900, 13)) u ON t.id = u.id "
              f"WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (id, k, v, s) "
              f"VALUES (u.id, 0, parse_json('{{\"a\": 5}}'), named_struct('n', u.id, 'w', parse_json('1')))")
    for query in QUERIES:
        stock, ext = compare(spark, query.format(t=t))
        assert (mixed_readers(ext) if mode == "merge-on-read" else _by_extension(ext)), ext.read_schemas
    warnings = _warnings(spark, t)
    if mode == "merge-on-read":
        assert len(warnings) == 1 and "that have delete files" in warnings[0], warnings
    else:
        assert warnings == []


@pytest.mark.parametrize("change, reason", [
    ("RENAME COLUMN s.n TO m", "no column s.m"),
    ("RENAME COLUMN s.w TO x", "no column s.x"),
    ("DROP COLUMN k", None),
    ("DROP COLUMN k; ADD COLUMN k BIGINT", "holds a column k with field id"),
])
def test_schema_evolution(spark, change, reason):
    """Renamed (a VARIANT field too), dropped and re-added columns: a file whose names or field ids
    differ from the table's sends the relation to Iceberg's reader, which maps by field id; the
    snapshot before the change is still read by the extension. (A renamed top-level column is left
    out: after one, stock Spark 4.1 + Iceberg 1.12 fail to collect such a table, with a
    NullPointerException in Iceberg's `BaseScan.includeColumnStats`.)"""
    t = "ice.db.vr_evolve"
    _create(spark, t)
    before = _insert(spark, t, 0, 400)
    for statement in change.split("; "):
        spark.sql(f"ALTER TABLE {t} {statement}")
    column = "v"
    struct_variant = "x" if "TO x" in change else "w"
    leaf = "m" if "TO m" in change else "n"
    queries = [f"SELECT id, {column}:a::int, {column}:b::string FROM {t}",
               f"SELECT variant_get(s.{struct_variant}, '$.k', 'int'), sum(s.{leaf}) FROM {t} GROUP BY 1",
               f"SELECT * FROM {t} WHERE id < 50"]
    for query in queries:
        compare(spark, query)
    _, ext = compare(spark, f"SELECT id, {column}:b::string FROM {t}")
    warnings = _warnings(spark, t)
    if reason is None:  # a dropped column is one the files hold and the table does not read
        assert _by_extension(ext), ext.read_schemas
    else:
        assert not _by_extension(ext), ext.read_schemas
        assert any(reason in w for w in warnings), warnings
    _, old = compare(spark, f"SELECT id, v:b::string FROM {t} VERSION AS OF {before}")
    assert _by_extension(old), old.read_schemas


def test_benchmark_table_skips_on_its_sorted_path(spark, tmp_path_factory):
    """The `tables` benchmark's Iceberg copy of the variant events sorted by id (two source files,
    `benchmarks.tables._copy_table` with its properties, row groups scaled down with the rows): a
    range on `$.id` reads few of the table's row groups with the extension, rows equal stock.
    Iceberg types `id` in each file at the widest width in the rows it buffers first and keeps ids
    encoded narrower untyped: those row groups (ids below 128 here, below 32,768 in the benchmark)
    are read whatever the filter. Iceberg's default buffer of 100 rows would type the first file's
    `id` as an 8-bit int and leave every id from 128 on untyped, so none of its row groups could be
    skipped."""
    from benchmarks import datasets, tables, variant_data
    from pyspark_ext.data.variant_queries import queries

    rows = 4000
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(datasets.CACHE_ENV, str(tmp_path_factory.mktemp("bench")))
        mp.setitem(tables.ICEBERG_VARIANT_PROPERTIES, "write.parquet.row-group-size-bytes", str(32 * 1024))
        paths = variant_data.variant_events(spark, rows, sorted_by_id=True)
        t = tables._copy_table(spark, "iceberg", paths["spec"], "vr_bench", variant=True, catalog="ice")
    assert len(spark.sql(f"SELECT file_path FROM {t}.files").collect()) == 2
    selective = queries(rows)["selective_filter"].variant
    for lo, hi in [(100, 110), (rows - 100, rows - 90)]:  # in the first file, in the second
        query = selective.replace(f"BETWEEN {rows // 2} AND {rows // 2 + 2}",
                                  f"BETWEEN {lo} AND {hi}").format(t=t)
        assert f"BETWEEN {lo} AND {hi}" in query
        _, ext = compare(spark, query)
        assert _by_extension(ext), ext.read_schemas
        assert spark.sql(query).first()[0] == 11
        # row groups judged on their statistics, as the extension's scans push the range
        total, read = (sum(s[k] for s in ext.scans) for k in ("row_groups", "row_groups_read"))
        assert total > 10 and 0 < read <= total // 4, ((lo, hi), ext.scans)
    compare(spark, selective.format(t=t))  # the benchmark's own range


def test_benchmark_table_with_deletes_mixes_the_readers(spark, tmp_path_factory):
    """The `tables` benchmark's Iceberg table whose branch ``deletes`` has a deletion vector on a
    tenth of its files (`benchmarks.tables._iceberg_with_deletes`, row groups scaled down with the
    rows): the extension reads the other files, Iceberg's reader those, rows equal stock."""
    from benchmarks import datasets, tables, variant_data
    from pyspark_ext.data.variant_queries import queries

    rows = 4000
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(datasets.CACHE_ENV, str(tmp_path_factory.mktemp("bench")))
        mp.setitem(tables.ICEBERG_VARIANT_PROPERTIES, "write.parquet.row-group-size-bytes", str(8 * 1024))
        paths = variant_data.variant_events(spark, rows, sorted_by_id=True)
        forms = tables._iceberg_with_deletes(spark, paths["spec"], catalog="ice")
    t = forms["iceberg-files"]
    files = spark.sql(f"SELECT count(*) FROM {t}.files").first()[0]
    deleted = spark.sql(f"SELECT count(DISTINCT referenced_data_file) FROM {t}.delete_files "
                        "VERSION AS OF 'deletes'").first()[0]
    # an insert whose ids span the two source files writes two files
    assert tables.ICEBERG_FILES <= files <= tables.ICEBERG_FILES + 1 and deleted == tables.ICEBERG_FILES // 10
    for name, query in queries(rows).items():
        _, clean = compare(spark, query.variant.format(t=forms["iceberg-files"]))
        _, ext = compare(spark, query.variant.format(t=forms["iceberg-deletes"]))
        assert _by_extension(clean) and reads_leaves(clean), (name, clean.read_schemas)
        # the path reads above the Union (an aggregate's) reach the extension's scans too
        assert mixed_readers(ext) and reads_leaves(ext), (name, ext.read_schemas)


@pytest.mark.parametrize("query", [
    "SELECT _file, count(*), max(v:b::string) FROM {t} GROUP BY _file",
    "SELECT id, v:b::string FROM {t} WHERE _pos < 3",
    "SELECT x.id, x._spec_id, variant_get(x.v, '$.c.d', 'double') FROM {t} AS x WHERE x.id % 500 = 0",
])
def test_metadata_columns_beside_path_reads(spark, mixed, query):
    """A query that reads Iceberg's metadata columns, which Spark adds to the relation only once
    the query's reference to them fails to resolve: Iceberg's reader keeps the relation, and the
    query runs as on stock Spark + Iceberg."""
    t, _ = mixed
    _, ext = compare(spark, query.format(t=t))
    assert not _by_extension(ext), ext.read_schemas
    reasons = [s.get("left_to_format_reader") for s in ext.scans]
    assert reasons and all("because the query reads its metadata columns _" in r for r in reasons), reasons


def test_metadata_column_through_the_dataframe_api(spark, mixed):
    """The DataFrame API resolves a metadata column against the DataFrame's analysed plan: a
    relation analysed alone stays Iceberg's, which offers it, and a query over it is analysed
    again, its relation read by the extension where the query reads no metadata column."""
    from tests.support.differential import ENABLED, confs
    t, _ = mixed

    def run() -> tuple[list, list]:
        df = spark.table(t)
        files = df.where("v:b::string < 's000010'").select(df.metadataColumn("_file").alias("f"), "id")
        paths = df.where("v:b::string < 's000010'").selectExpr("id", "v:b::string")
        return sorted(files.collect()), sorted(paths.collect()), pyspark_ext.explain_read_schema(paths)

    files, paths, report = run()
    with confs(spark, {ENABLED: "false"}):
        assert run()[:2] == (files, paths)
    assert len(files) == len(paths) == 10
    assert all(s["format"] != "SparkBatchQueryScan" for s in report), report


@pytest.fixture(scope="module")
def mixed_with_deletes(spark, mixed):
    """The ``mixed`` table's branch ``dv``, on which a merge-on-read DELETE leaves a deletion vector
    on the files of ids 3000-3200 only: a relation of it is read by both readers."""
    t, _ = mixed
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.delete.mode'='merge-on-read')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH dv")
    spark.sql(f"DELETE FROM {t}.branch_dv WHERE id BETWEEN 3000 AND 3199 AND id % 4 = 0")
    return f"{t} VERSION AS OF 'dv'"


@pytest.mark.parametrize("template", CORRELATED)
def test_correlated_subqueries_over_both_readers(spark, mixed_with_deletes, template):
    """Correlated subqueries over a relation read as a Union of the extension's scans and Iceberg's
    (the shape Spark's PushProjectionThroughUnion fails on, which the extension pushes itself)."""
    stock, ext = compare(spark, template.replace("{t}", mixed_with_deletes))
    # a filter on a path no file holds is false: the extension plans no scan at all there
    assert any(s["format"] == STAGED_SCAN for s in ext.scans) or not (ext.scans or stock.rows), ext.read_schemas
