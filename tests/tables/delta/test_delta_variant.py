"""Shredded VARIANT on Delta tables (Delta's ``variantShredding`` table feature writes Parquet
spec-layout files): rows equal stock Spark + Delta with deletion vectors, MERGE-written files,
partitions and time travel; tables the extension cannot read through Delta's format are left to
Delta with one warning."""
from tests.tables.sessions import PRODUCTS, skip_unless_line

skip_unless_line(PRODUCTS["delta"])

import pytest

import pyspark_ext
from tests.support.differential import run
from tests.tables.delta.conftest import VARIANT_ROW, _variant_table, spark_jobs, sql


def compare(spark, query):
    """Rows equal with the extension off and on. (Leaf counts are not compared: stock Spark's
    variant push-down reports a pushed struct of paths as one leaf.)"""
    stock = run(spark, query, enabled=False)
    ext = run(spark, query, enabled=True)
    assert ext.rows == stock.rows, f"rows differ with the extension on for: {query}"
    return stock, ext

QUERIES = [
    "SELECT id, variant_get(v, '$.a', 'int') FROM {t}",
    "SELECT id FROM {t} WHERE variant_get(v, '$.a', 'int') < 50",
    "SELECT v:b::string, v:c.d::double FROM {t} WHERE p = 1",
    "SELECT id, to_json(v) FROM {t}",
    "SELECT count(v), count(*) FROM {t}",
    "SELECT id FROM {t} WHERE v IS NULL",
    "SELECT variant_get(v, '$.arr[1]', 'int'), try_variant_get(v, '$.e', 'boolean') FROM {t}",
    "SELECT p, sum(variant_get(v, '$.c.d', 'double')) FROM {t} GROUP BY p",
]


def _warnings(spark, table: str) -> list[str]:
    return [w for w in spark._jvm.pysparkext.formats.DeltaScans.warnings().mkString("\n").splitlines()
            if f"table spark_catalog.default.{table} " in w]


@pytest.mark.parametrize("query", QUERIES)
def test_shredded_variant_with_deletion_vectors(spark, variants, query):
    compare(spark, query.format(t=variants))


@pytest.mark.parametrize("version", [1, 2, 3])
def test_time_travel(spark, variants, version):
    compare(spark, f"SELECT id, variant_get(v, '$.a', 'int'), v:b::string FROM variants VERSION AS OF {version}")


def test_path_reads_read_shredded_leaves(spark, variants):
    stock, ext = compare(spark, "SELECT variant_get(v, '$.a', 'int') FROM variants WHERE p = 0")
    assert any("typed_value" in s for s in ext.read_schemas), ext.read_schemas
    assert "typed_value" not in "".join(stock.read_schemas)
    # left to Delta only inside the MERGE that wrote it, never for a query
    assert all("read by the command" in w for w in _warnings(spark, "variants"))


def test_conflicting_files_are_left_to_delta(spark):
    table = _variant_table(spark, "variant_conflict", "",
                           "INSERT INTO variant_conflict SELECT id, 0, "
                           "parse_json(concat('{\"a\":\"x', id, '\"}')) FROM range(240, 300)")
    for query in ["SELECT id, try_variant_get(v, '$.a', 'int'), v:a::string FROM {t}",
                  "SELECT id, to_json(v) FROM {t} WHERE p = 0"]:
        compare(spark, query.format(t=table))
    assert len(_warnings(spark, table)) == 1
    assert "conflicting" in _warnings(spark, table)[0]


@pytest.mark.parametrize("table, properties, reason", [
    ("variant_cm", ", 'delta.columnMapping.mode' = 'name'", "column mapping"),
    # a reader feature the extension does not know: left to Delta, never read wrong or failed
    ("variant_widening", ", 'delta.enableTypeWidening' = 'true'", "typeWidening"),
])
def test_tables_the_extension_does_not_compose_with(spark, table, properties, reason):
    _variant_table(spark, table, properties, f"DELETE FROM {table} WHERE id % 4 = 0")
    for query in QUERIES:
        _, ext = compare(spark, query.format(t=table))
        assert "typed_value" not in "".join(ext.read_schemas)
    warnings = _warnings(spark, table)
    assert len(warnings) == 1 and reason in warnings[0], warnings


def test_dml_on_shredded_table_with_extension_on(spark):
    # DELETE and UPDATE over deletion vectors plan their scan from the analysed table, which the
    # extension has rewritten: they must still find Delta's format there.
    table = _variant_table(spark, "variant_dml", ", 'delta.enableDeletionVectors' = 'true'")
    sql(spark, f"DELETE FROM {table} WHERE variant_get(v, '$.a', 'int') % 5 = 0",
        f"UPDATE {table} SET v = parse_json('{{\"a\": 7}}') WHERE id % 5 = 1")
    stock, _ = compare(spark, f"SELECT id, variant_get(v, '$.a', 'int') FROM {table}")
    assert len(stock.rows) == 240 - 48


def test_explain_read_schema_reports_delta_scans(spark, variants):
    df = spark.sql("SELECT variant_get(v, '$.a', 'int') FROM variants")
    scans = pyspark_ext.explain_read_schema(df)
    assert len(scans) == 1
    assert scans[0]["table"] == "spark_catalog.default.variants"


def test_delta_plans_the_shredded_scan_once(spark):
    """The extension rewrites a path filter to the shredded columns before Delta plans the scan
    (the extension is first in spark.sql.extensions), so Delta does not list the files again
    while the query runs. (A table without deletion vectors: with them, Delta fixes a scan's
    files when it plans it.)"""
    table = _variant_table(spark, "variants_plain", "")
    query = f"SELECT id FROM {table} WHERE variant_get(v, '$.a', 'int') < 50"
    _, ext = compare(spark, query)
    assert any("typed_value" in s for s in ext.read_schemas), ext.read_schemas
    assert spark_jobs(spark, query) == spark_jobs(spark, f"SELECT id, v FROM {table} WHERE id < 50")


@pytest.mark.parametrize("damage", ["corrupt", "missing"])
def test_a_damaged_or_missing_file_is_skipped_as_stock_skips_it(spark, damage):
    """Under ignoreCorruptFiles / ignoreMissingFiles, a data file cut short, or deleted while
    the log still names it, is skipped by the scan with the extension on as with it off; the
    extension leaves the table to Delta's reader, with one warning naming the file."""
    import glob
    import os

    from tests.support.differential import confs
    from tests.tables.delta.conftest import location
    table = _variant_table(spark, f"variant_{damage}", "")
    [bad] = sorted(glob.glob(os.path.join(location(spark, table), "p=0", "*.parquet")))[:1]
    if damage == "missing":
        os.remove(bad)
    else:
        with open(bad, "rb") as f:
            data = f.read()
        with open(bad, "wb") as f:
            f.write(data[: len(data) // 2])
    crc = os.path.join(os.path.dirname(bad), f".{os.path.basename(bad)}.crc")
    if os.path.exists(crc):
        os.remove(crc)
    setting = {"corrupt": "spark.sql.files.ignoreCorruptFiles",
               "missing": "spark.sql.files.ignoreMissingFiles"}[damage]
    with confs(spark, {setting: "true"}):
        for query in QUERIES[:4]:
            stock, _ = compare(spark, query.format(t=table))
            assert stock.rows
    assert any(os.path.basename(bad) in w for w in _warnings(spark, table)), _warnings(spark, table)


def test_variant_field_of_a_struct_is_read_by_its_leaves(spark):
    """A VARIANT field of a struct is read by its shredded leaves, as the table's top-level
    VARIANT is, with no warning; the rows are stock Spark's."""
    row = VARIANT_ROW
    sql(spark,
        "CREATE TABLE variant_nested (id BIGINT, v VARIANT, s STRUCT<tag: STRING, w: VARIANT>) "
        "USING DELTA TBLPROPERTIES ('delta.enableVariantShredding' = 'true')",
        f"INSERT INTO variant_nested SELECT id, {row}, named_struct('tag', concat('t', id), 'w', {row}) "
        "FROM range(240)")
    for query in ["SELECT id, variant_get(s.w, '$.a', 'int'), v:b::string FROM {t} WHERE v:a::int < 50",
                  "SELECT id, to_json(s.w), s.tag, to_json(v) FROM {t}",
                  "SELECT id, s FROM {t} WHERE s.w:a::int BETWEEN 7 AND 20"]:
        compare(spark, query.format(t="variant_nested"))
    for read in ["variant_get(v, '$.a', 'int')", "variant_get(s.w, '$.a', 'int')"]:
        stock, ext = compare(spark, f"SELECT id FROM variant_nested WHERE {read} < 50")
        assert any("typed_value" in s for s in ext.read_schemas), ext.read_schemas
        assert "tag" not in "".join(ext.read_schemas)
        assert "typed_value" not in "".join(stock.read_schemas)
    found = spark._jvm.pysparkext.formats.DeltaScans.warnings().mkString("\n").splitlines()
    assert not [w for w in found if "the VARIANT s.w of spark_catalog.default.variant_nested " in w], found
