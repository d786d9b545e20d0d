"""Skipping on the shredded paths of a Delta table with deletion vectors, whose files carry bloom
filters, small row groups and small pages (written under session settings: Delta's writer drops
per-write Parquet options, docs/table-formats.md).

``ROWS`` events sorted by ``id``, each ``{"did": <random string>, "n": id}``, in ``GROUP``-row row
groups of ``PAGE``-row pages, with a bloom filter on ``did``'s typed leaf. Two rows hold a path in
its untyped column: row ``DID_ROW``'s ``did`` is the number 5, row ``N_ROW``'s ``n`` the string
``'777'``; only a wrong skip of their row group or page would lose them. Rows ``DELETED`` are
deleted (a deletion vector): skipping pages changes which rows a read returns, and a deleted row
must not come back nor a live one go. Each query returns stock Spark + Delta's rows with the
extension on, with its skipping on and off; ``explain_read_schema`` shows what was skipped.
"""
from tests.tables.sessions import PRODUCTS, skip_unless_line

skip_unless_line(PRODUCTS["delta"])

import json  # noqa: E402
import random  # noqa: E402

import pytest  # noqa: E402

import pyspark_ext  # noqa: E402
from pyspark_ext.spark_shredding import spark_shredding  # noqa: E402
from pyspark_ext import settings
from tests.support.differential import confs, run  # noqa: E402
from tests.tables.delta.conftest import log_has_deletion_vectors, sql  # noqa: E402

ROWS, GROUP, PAGE = 2000, 100, 25
DID_ROW, N_ROW = 50, 1900  # row groups 0 and 19
DELETED = (777, 1235, 1236)
TARGET = 1234
TABLE = "delta_skips"
# Spark infers no type for a path whose values differ in type: the file's types are fixed
SHREDDING = "did string, n bigint"
DID_LEAF = "v.typed_value.did.typed_value"
WRITE = {"parquet.block.row.count.limit": str(GROUP), "parquet.page.row.count.limit": str(PAGE),
         "parquet.page.size.row.check.min": "1", "parquet.page.size.check.estimate": "false",
         f"parquet.bloom.filter.enabled#{DID_LEAF}": "true",
         f"parquet.bloom.filter.expected.ndv#{DID_LEAF}": str(GROUP)}
SKIPPING = settings.VARIANT_SKIPPING


def _texts() -> list[str]:
    rnd = random.Random(45)
    out = []
    for i in range(ROWS):
        did = 5 if i == DID_ROW else f"did:{rnd.randrange(10 ** 9):09d}"
        out.append(json.dumps({"did": did, "n": "777" if i == N_ROW else i}))
    return out


def _did(i: int) -> str:
    return json.loads(_texts()[i])["did"]


@pytest.fixture(scope="module")
def table(spark) -> str:
    sql(spark, f"CREATE TABLE {TABLE} (id BIGINT, v VARIANT) USING DELTA TBLPROPERTIES "
               "('delta.enableVariantShredding' = 'true', 'delta.enableDeletionVectors' = 'true')")
    with confs(spark, WRITE), spark_shredding(spark, True, SHREDDING):
        spark.createDataFrame(list(enumerate(_texts())), "id bigint, j string") \
            .selectExpr("id", "parse_json(j) AS v").coalesce(1).sortWithinPartitions("id") \
            .write.format("delta").mode("append").saveAsTable(TABLE)
    sql(spark, f"DELETE FROM {TABLE} WHERE id IN {DELETED}")
    assert log_has_deletion_vectors(spark, TABLE)
    return TABLE


def _differential(spark, where: str, want: list[int]) -> dict:
    """Rows of ``SELECT id ... WHERE where``: stock, and the extension with skipping on and off;
    the extension-on scan's report."""
    query = f"SELECT id FROM {TABLE} WHERE {where}"
    expected = sorted(f"({i},)" for i in want)
    stock = run(spark, query, enabled=False)
    with confs(spark, {SKIPPING: "false"}):
        unskipped = run(spark, query, enabled=True)
    ext = run(spark, query, enabled=True)
    assert stock.rows == expected
    assert unskipped.rows == expected and ext.rows == expected
    scan, = ext.scans
    assert "typed_value" in scan["read_schema"], scan["read_schema"]
    return scan


def test_the_files_are_shredded_with_bloom_filters_and_page_indexes(spark, table) -> None:
    scan, = pyspark_ext.explain_read_schema(spark.sql(f"SELECT id FROM {TABLE} WHERE v:n::bigint = 1"))
    assert scan["format"] == "Delta"
    assert scan["row_groups"] == ROWS // GROUP
    assert any("typed_value.n.typed_value" in f for f in scan["parquet_filters"]), scan["parquet_filters"]
    assert scan["pages"] > 0  # offset indexes are there


def test_sorted_path_skips_row_groups_and_pages_and_deleted_rows_stay_deleted(spark, table) -> None:
    # row group 12 by statistics, and row group 19 whose untyped column holds n; inside them only
    # the pages that can hold 1230..1240, with 1235 and 1236 deleted
    scan = _differential(spark, "v:n::bigint BETWEEN 1230 AND 1240",
                         [i for i in range(1230, 1241) if i not in DELETED])
    assert scan["row_groups_read"] == 2 and scan["row_groups_skipped"] == ROWS // GROUP - 2, scan
    assert 0 < scan["pages_read"] < scan["pages"], scan
    assert scan["rows_output"] < 2 * GROUP, scan


def test_untyped_value_is_never_skipped_and_the_typed_one_stays_deleted(spark, table) -> None:
    # 777 is deleted; the string '777' of row N_ROW, in n's untyped column, matches too
    scan = _differential(spark, "v:n::bigint = 777", [N_ROW])
    assert scan["row_groups_read"] == 2, scan  # 7 (the deleted typed 777) and 19
    assert scan["pages_skipped"] > 0, scan


@pytest.mark.parametrize("where,want", [
    (f"v:did::string = '{_did(TARGET)}'", [TARGET]),
    # the number 5 in did's untyped column reads as the string '5': no bloom filter holds it
    ("v:did::string = '5'", [DID_ROW]),
    (f"v:did::string IN ('5', '{_did(TARGET)}', 'nowhere')", [DID_ROW, TARGET]),
    (f"v:did::string = '{_did(1235)}'", []),  # a deleted row
    (f"v:did::string = '{_did(TARGET)}' OR v:n::bigint = 777", [TARGET, N_ROW]),
])
def test_bloom_filtered_path_loses_no_row(spark, table, where: str, want: list[int]) -> None:
    _differential(spark, where, want)


def test_bloom_filter_and_sorted_path_together(spark, table) -> None:
    # the bloom filter's leaf beside a range on the sorted path: statistics and pages skip
    scan = _differential(spark, f"v:n::bigint BETWEEN 1200 AND 1299 AND v:did::string = '{_did(TARGET)}'",
                         [TARGET])
    assert scan["row_groups_skipped"] > 0 and scan["pages_skipped"] > 0, scan


def test_bloom_filter_adds_no_skip_inside_deltas_reader(spark, table) -> None:
    # The skip predicate is `typed_value = 'x' OR value IS NOT NULL`; Delta's format reads with
    # Parquet's own row-group filter, which asks statistics, dictionaries and bloom filters each
    # about the whole disjunction (the extension's leaf-by-leaf selection is not applied inside
    # Delta's format): only statistics skip row groups, and the bloom filter keeps the rest.
    # The pages counted are those of the row groups Parquet's filter keeps: 4 pages of each of
    # the 4 columns read (id, metadata, did's value and typed_value) per row group.
    scan = _differential(spark, f"v:did::string = '{_did(TARGET)}'", [TARGET])
    assert 0 < scan["row_groups_skipped"] < ROWS // GROUP - 1, scan
    assert scan["pages"] == 4 * 4 * scan["row_groups_read"], scan
