"""Shredded VARIANT data files written by another engine, DuckDB, in an Iceberg table: DuckDB
writes each Parquet file (spec-layout shredding, its own choice of typed paths) with the table's
field ids, and Iceberg's Java API appends it, as an ingest service outside Spark would. Rows equal
stock Spark + Iceberg; the extension reads DuckDB's files by their shredded leaves, beside the
files Iceberg's own writer shredded, and leaves a DuckDB file with a deletion vector to Iceberg's
reader.

A file written without field ids would need a name mapping, with which Iceberg's reader reads the
whole table (docs/table-formats.md), so DuckDB is asked for the ids (``FIELD_IDS``).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.tables.iceberg.test_iceberg_variant_reads import _by_extension, compare, mixed_readers

duckdb = pytest.importorskip("duckdb", reason="DuckDB writes the files (pip install -e '.[test]')")

T = "ice.db.vr_duckdb"
#: an object with an int `a`, a sortable string `b` and a nested double `c.d`, as JSON text
OBJECT = ("'{\"a\":' || i || ',\"b\":\"s' || lpad(i::VARCHAR, 6, '0') || '\",\"c\":{\"d\":' || (i * 1.5) "
          "|| '}}'")
QUERIES = [
    "SELECT id, v:a::int, v:b::string, v:c.d::double FROM {t}",
    "SELECT count(*), sum(try_variant_get(v, '$.c.d', 'double')) FROM {t} WHERE v:b::string < 's000150'",
    "SELECT id, to_json(v) FROM {t} WHERE id % 7 = 0",
    "SELECT max(v:a::int), count(v:missing::string) FROM {t} WHERE v:a::int BETWEEN 40 AND 260",
]


def _append_duckdb_file(spark, table: str, lo: int, hi: int, path: Path) -> None:
    """Rows ``lo`` to ``hi`` written by DuckDB to ``path`` with the table's field ids, appended to
    ``table`` through Iceberg's Java API."""
    jvm = spark._jvm
    ice = jvm.org.apache.iceberg
    tbl = ice.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, table)
    ids = {f.name(): f.fieldId() for f in tbl.schema().columns()}
    con = duckdb.connect()
    con.sql(f"COPY (SELECT i::BIGINT AS id, ({OBJECT})::JSON::VARIANT AS v FROM range({lo}, {hi}) r(i)) "
            f"TO '{path}' (FORMAT parquet, FIELD_IDS {{id: {ids['id']}, v: {ids['v']}}})")
    con.close()
    data_file = (ice.DataFiles.builder(tbl.spec()).withPath(str(path)).withFileSizeInBytes(path.stat().st_size)
                 .withRecordCount(hi - lo).withFormat(ice.FileFormat.PARQUET).build())
    tbl.newAppend().appendFile(data_file).commit()


@pytest.fixture(scope="module")
def duckdb_table(spark, tmp_path_factory):
    """Rows 0-300 written by DuckDB, rows 300-500 by Iceberg's own writer (shredded too)."""
    spark.sql(f"CREATE OR REPLACE TABLE {T} (id BIGINT, v VARIANT) USING iceberg TBLPROPERTIES "
              "('format-version'='3', 'write.parquet.shred-variants'='true', "
              "'read.parquet.vectorization.enabled'='false', 'write.delete.mode'='merge-on-read')")
    _append_duckdb_file(spark, T, 0, 300, tmp_path_factory.mktemp("duckdb") / "part-0.parquet")
    spark.sql(f"INSERT INTO {T} SELECT id, parse_json(to_json(named_struct('a', id, 'b', "
              "concat('s', lpad(id, 6, '0')), 'c', named_struct('d', id * 1.5)))) FROM range(300, 500) ORDER BY id")
    return T


def test_duckdb_files_written_with_field_ids(spark, duckdb_table):
    writers = {r[0] for r in spark.sql(f"SELECT file_path FROM {duckdb_table}.files").collect()}
    assert any(p.endswith("part-0.parquet") for p in writers) and len(writers) >= 2
    import pyarrow.parquet as pq
    (duck,) = [p for p in writers if p.endswith("part-0.parquet")]
    assert "DuckDB" in pq.ParquetFile(duck.removeprefix("file:")).metadata.created_by


@pytest.mark.parametrize("query", QUERIES)
def test_duckdb_shredded_files_read_by_their_leaves(spark, duckdb_table, query):
    _, ext = compare(spark, query.format(t=duckdb_table))
    assert _by_extension(ext), ext.read_schemas


def test_duckdb_file_with_a_deletion_vector_goes_to_iceberg(spark, duckdb_table):
    spark.sql(f"ALTER TABLE {duckdb_table} CREATE BRANCH dv")
    spark.sql(f"DELETE FROM {duckdb_table}.branch_dv WHERE id % 10 = 3 AND id < 300")
    for query in QUERIES:
        stock, ext = compare(spark, query.format(t=f"{duckdb_table} VERSION AS OF 'dv'"))
        assert mixed_readers(ext), ext.read_schemas
    stock, _ = compare(spark, f"SELECT count(*) FROM {duckdb_table} VERSION AS OF 'dv'")
    assert stock.rows == [(470,)]
