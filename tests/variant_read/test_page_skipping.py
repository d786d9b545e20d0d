"""Pages skipped inside row groups, by Parquet's page index, as ``explain_read_schema`` counts them.

One file per layout of ``ROWS`` events sorted by ``k`` (a plain column that orders the shredded
leaf ``n`` too), in row groups of ``GROUP`` rows and pages of ``PAGE`` rows
(``write_shredded(page_rows=...)``). A selective filter on ``n`` keeps one row group by its
statistics and, inside it, one page by the column index. Row ``ODD_ROW`` holds ``n`` as the string
``'777'``, in the residual ``value``, far from the typed 777: ``v:n::bigint = 777`` matches it too,
so only a wrong page skip would lose it. Every query returns the rows stock Spark returns (the
extension off); the page counts are what Spark's vectorized reader decodes
(``readNextFilteredRowGroup``), which ``rows_output`` confirms.
"""
from __future__ import annotations

import json

import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from tests.support.differential import compare

ROWS, GROUP, PAGE = 2000, 200, 50
LAYOUTS = ["draft", "spec"]
ODD_ROW = 1900  # row group 9, page 2


def _text(k: int) -> str:
    return json.dumps({"n": "777" if k == ODD_ROW else k, "s": f"s{k:05d}"})


@pytest.fixture(scope="module")
def files(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("pages")
    # descending input, so that only the sort puts k in order
    df = spark.createDataFrame([(k, _text(k)) for k in reversed(range(ROWS))], "k bigint, j string") \
        .selectExpr("k", "parse_json(j) AS v").coalesce(1)
    out = {}
    for layout in LAYOUTS:
        path = str(base / layout)
        pyspark_ext.write_shredded(df, path, {"v": "n bigint, s string"}, layout, sort_by=["k"],
                                   page_rows=PAGE, **{"parquet.block.row.count.limit": str(GROUP)})
        out[layout] = path
        _view(spark, path, f"pages_{layout}")
    return out


def _view(spark: SparkSession, path: str, name: str) -> None:
    spark.read.schema("k bigint, v variant").parquet(path).createOrReplaceTempView(name)


def _query(view: str, where: str) -> str:
    return f"SELECT k FROM {view} WHERE {where}"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("where,groups", [
    # row group 6 by the typed statistics, and row group 9, whose residual holds n
    ("v:n::bigint = 1234", 2),
    ("k BETWEEN 1230 AND 1240", 1),  # a plain column
])
def test_selective_filter_skips_pages_inside_the_row_group(spark: SparkSession, files, layout: str,
                                                           where: str, groups: int) -> None:
    stock, ext = compare(spark, _query(f"pages_{layout}", where))
    assert ext.rows == stock.rows != []
    scan, = ext.scans
    assert scan["row_groups_read"] == groups, scan
    assert 0 < scan["pages_read"] < scan["pages"], scan
    assert scan["pages_skipped"] == scan["pages"] - scan["pages_read"]
    # what the reader returned: the rows of the pages kept, not of whole row groups
    assert scan["rows_output"] < groups * GROUP


@pytest.mark.parametrize("layout", LAYOUTS)
def test_page_whose_residual_holds_the_path_is_read(spark: SparkSession, files, layout: str) -> None:
    stock, ext = compare(spark, _query(f"pages_{layout}", "v:n::bigint = 777"))
    assert ext.rows == sorted(["(777,)", f"({ODD_ROW},)"])
    scan, = ext.scans
    # row group 3 for the typed 777, row group 9 whose residual holds n; some pages of each
    assert scan["rows_output"] < 2 * GROUP, scan
    assert 0 < scan["pages_read"] < scan["pages"], scan


@pytest.mark.parametrize("layout", LAYOUTS)
def test_page_index_off_reads_every_page(spark: SparkSession, files, layout: str) -> None:
    # Parquet's own switch, as a read option: the count follows what the reader does
    spark.read.schema("k bigint, v variant").option("parquet.filter.columnindex.enabled", "false") \
        .parquet(files[layout]).createOrReplaceTempView(f"pages_off_{layout}")
    stock, ext = compare(spark, _query(f"pages_off_{layout}", "v:n::bigint = 1234"))
    assert ext.rows == ["(1234,)"]
    scan, = ext.scans
    assert scan["pages_skipped"] == 0 < scan["pages"], scan
    assert scan["rows_output"] == 2 * GROUP


def test_without_filters_no_pages_are_counted(spark: SparkSession, files) -> None:
    scan, = pyspark_ext.explain_read_schema(spark.sql("SELECT k FROM pages_spec"))
    assert "pages" not in scan


def test_page_rows_must_be_positive(spark: SparkSession, tmp_path) -> None:
    df = spark.sql("SELECT parse_json('{\"n\": 1}') AS v")
    with pytest.raises(ValueError, match="page_rows must be a positive number of rows, not 0"):
        pyspark_ext.write_shredded(df, str(tmp_path / "x"), {"v": "n bigint"}, page_rows=0)


# --- DuckDB's files: no page index --------------------------------------------------------------

def test_duckdb_file_without_page_index_reports_no_pages(spark: SparkSession, tmp_path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "duck.parquet"
    con = duckdb.connect()
    con.execute("SET threads = 1")
    con.execute("SET variant_minimum_shredding_size = 0")
    con.execute("CREATE TABLE t (k BIGINT, j VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(k, _text(k)) for k in range(ROWS)])
    con.execute(f"COPY (SELECT k, j::JSON::VARIANT AS v FROM t ORDER BY k) TO '{path}' "
                "(FORMAT parquet, SHREDDING {v: 'STRUCT(n BIGINT, s VARCHAR)'})")
    con.close()
    _view(spark, str(path), "pages_duck")
    stock, ext = compare(spark, _query("pages_duck", "v:n::bigint = 777"))
    assert ext.rows == sorted(["(777,)", f"({ODD_ROW},)"])
    scan, = ext.scans
    assert scan.get("pages_skipped", 0) == 0, scan
    assert scan["rows_output"] == ROWS
