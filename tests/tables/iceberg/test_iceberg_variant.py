"""VARIANT columns on Iceberg v3 tables with deleted rows, shredded by Iceberg's writer and not:
rows equal stock Spark + Iceberg, and the read is Iceberg's own (the whole variant column: the
delete files keep the extension from reading the files itself, see test_iceberg_variant_reads.py,
and docs/table-formats.md for why path reads cannot be narrowed through Iceberg 1.12's reader)."""
from __future__ import annotations

from collections import defaultdict

import pytest

from tests.tables.iceberg.conftest import compare


VALUES = (
    "CASE WHEN id % 10 = 0 THEN NULL "
    "WHEN id % 10 = 1 THEN parse_json('{\"a\": \"text\", \"z\": [1, 2]}') "
    "ELSE parse_json(to_json(named_struct('a', id, 'b', concat('s', id), 'c', named_struct('d', id * 1.5), "
    "'pad', repeat('x', 40)))) END")

QUERIES = [
    "SELECT id, variant_get(v, '$.a', 'string'), try_variant_get(v, '$.a', 'int') FROM {t}",
    "SELECT id, try_variant_get(v, '$.a', 'string'), v:c.d::double FROM {t}",
    "SELECT id, to_json(v) FROM {t}",
    "SELECT count(v), count_if(v IS NULL) FROM {t}",
    "SELECT count(*) FROM {t} WHERE try_variant_get(v, '$.a', 'int') > 500",
    "SELECT variant_get(s.w, '$.k', 'int') AS k, sum(s.n) FROM {t} GROUP BY 1",
    "SELECT id, schema_of_variant(v) FROM {t} WHERE id < 20",
]


#: Iceberg 1.12's vectorized reader fails on shredded values ("Unsupported variant: shredded
#: typed_value primitive", VectorizedVariantVisitor), stock and with the extension alike; its
#: row-by-row reader reads them
ROW_READER = ", 'read.parquet.vectorization.enabled'='false'"


@pytest.fixture(scope="module")
def variant_tables(spark):
    tables = {}
    for shredded in (True, False):
        t = f"ice.db.variant_{'shredded' if shredded else 'plain'}"
        spark.sql(f"CREATE OR REPLACE TABLE {t} (id BIGINT, v VARIANT, s STRUCT<n: BIGINT, w: VARIANT>) "
                  f"USING iceberg TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read', "
                  f"'write.parquet.shred-variants'='{str(shredded).lower()}'{ROW_READER if shredded else ''})")
        for lo, hi in ((0, 1000), (1000, 2000)):
            spark.sql(f"INSERT INTO {t} SELECT id, {VALUES}, named_struct('n', id, 'w', "
                      f"parse_json(to_json(named_struct('k', id % 3)))) FROM range({lo}, {hi})")
        spark.sql(f"DELETE FROM {t} WHERE id % 97 = 0")
        tables[shredded] = t
    return tables


@pytest.mark.parametrize("shredded", [True, False], ids=["shredded", "plain"])
def test_variant_queries_same_as_stock(spark, variant_tables, shredded):
    for q in QUERIES:
        compare(spark, q.format(t=variant_tables[shredded]))


def _column_bytes(spark, table: str) -> dict[str, int]:
    """Compressed bytes per Parquet column path over the table's data files."""
    import pyarrow.parquet as pq
    sizes: dict[str, int] = defaultdict(int)
    for (path,) in spark.sql(f"SELECT file_path FROM {table}.data_files").collect():
        meta = pq.ParquetFile(path.removeprefix("file:")).metadata
        for g in range(meta.num_row_groups):
            for c in range(meta.num_columns):
                col = meta.row_group(g).column(c)
                sizes[col.path_in_schema] += col.total_compressed_size
    return dict(sizes)


def test_path_read_reads_the_whole_variant_column(spark, variant_tables):
    """What stock Spark + Iceberg reads for one shredded path of a column, and that the extension
    leaves it so on a table with delete files: Iceberg's reader keeps it, and Iceberg's scan
    builder takes no variant extractions, so the scan reads `v` whole."""
    t = variant_tables[True]
    stock, ext = compare(spark, f"SELECT count(variant_get(v, '$.b', 'string')) FROM {t}")
    assert stock.read_schemas == ext.read_schemas == ["struct<v:variant>"]
    sizes = _column_bytes(spark, t)
    # Iceberg's writer shredded `b` into its own typed column (not `a`, which is an int in some rows
    # and a string in others)
    assert "v.typed_value.b.typed_value" in sizes, sorted(sizes)
    whole = sum(n for p, n in sizes.items() if p.startswith("v."))
    leaf = sum(n for p, n in sizes.items() if p.startswith("v.typed_value.b.") or p == "v.metadata")
    print(f"\nshredded v: whole column {whole} bytes, path $.b with metadata {leaf} bytes "
          f"({whole / leaf:.1f}x); columns: {sorted(sizes)}")
    assert leaf < whole


def test_iceberg_scan_builder_takes_no_variant_extractions(spark):
    """Spark 4.1 has the DSv2 variant-extraction push-down; Iceberg 1.12's scan builder does not
    implement it. If a newer Iceberg does, this fails: docs/table-formats.md then needs updating."""
    utils = spark._jvm.org.apache.spark.util.Utils
    push = utils.classForName("org.apache.spark.sql.connector.read.SupportsPushDownVariantExtractions", True, False)
    builder = utils.classForName("org.apache.iceberg.spark.source.SparkScanBuilder", True, False)
    assert not push.isAssignableFrom(builder)
