"""Skipping on unsorted data: bloom filters and dictionaries on shredded variant leaves.

One logical dataset of ``ROWS`` events in random ``did`` order (a high-cardinality string, so
min/max statistics never exclude a value), written in both layouts with ``GROUP``-row row groups,
with and without bloom filters on the ``did`` leaf (``write_shredded(bloom_filters=...)``). In
the ``mixed`` data a few rows hold ``did`` as a number or an object, which goes to the residual:
the skip predicate then has the shape ``typed_value = 'x' OR value IS NOT NULL``, which Parquet's
reader, judging each level alone, never rules out. The extension judges it leaf by leaf
(``RowGroupSelection``): a row group is skipped only where the bloom filter excludes the value
and the residual is all null. Each query returns the rows stock Spark returns from the
unshredded data; row groups are counted at run time (``row_groups_read_metric``) and by the rows
the scan outputs (Parquet returns whole row groups).
"""
from __future__ import annotations

import json
import random

import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext import settings
from tests.support.differential import compare, confs

ROWS, GROUP, PAGE = 2000, 100, 25
SCHEMA = "did string, n bigint"
SPARK_SCHEMA = "struct<did: string, n: bigint>"
LAYOUTS = ["draft", "spec"]
# rows whose did is not a string: row group 0 holds a number, row group 15 an object
ODD = {50: 5, 1500: {"x": 1}}
TARGET_ROW = 1234  # in row group 12


def _texts(mixed: bool) -> list[str]:
    rnd = random.Random(45)
    out = []
    for i in range(ROWS):
        did = f"did:{rnd.randrange(10 ** 9):09d}"
        if mixed and i in ODD:
            did = ODD[i]
        out.append(json.dumps({"did": did, "n": i}))
    return out


def _target(mixed: bool = False) -> str:
    return json.loads(_texts(mixed)[TARGET_ROW])["did"]


@pytest.fixture(autouse=True)
def _row_group_metrics(spark: SparkSession):
    with confs(spark, {settings.ROW_GROUP_METRICS: "true"}):
        yield


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory) -> None:
    base = tmp_path_factory.mktemp("bloom")
    sizes = {"parquet.block.row.count.limit": str(GROUP), "parquet.page.row.count.limit": str(PAGE),
             # check page sizes after every row, so that pages end at PAGE rows
             "parquet.page.size.row.check.min": "1", "parquet.page.size.check.estimate": "false"}
    for data in ("clean", "mixed"):
        df = spark.createDataFrame(list(enumerate(_texts(data == "mixed"))), "rid bigint, j string") \
            .selectExpr("rid", "parse_json(j) AS v").coalesce(1)
        df.createOrReplaceTempView(f"truth_{data}")
        for layout in LAYOUTS:
            for bloom in (True, False):
                path = str(base / f"{data}_{layout}_{bloom}")
                pyspark_ext.write_shredded(df, path, {"v": SCHEMA}, layout, sort_by=["rid"],
                                           bloom_filters={"v": ["did"]} if bloom else None,
                                           bloom_ndv=GROUP, **sizes)
                spark.read.schema("rid bigint, v variant").parquet(path) \
                    .createOrReplaceTempView(f"{data}_{layout}_{'bloom' if bloom else 'plain'}")
        # Spark's own shredding writer, which writes no bloom filters
        path = str(base / f"{data}_spark")
        with spark_shredding(spark, True, SPARK_SCHEMA):
            df.orderBy("rid").coalesce(1).write.options(**sizes).parquet(path)
        spark.read.schema("rid bigint, v variant").parquet(path) \
            .createOrReplaceTempView(f"{data}_spark_plain")


def _run(spark: SparkSession, view: str, where: str, select: str = "rid") -> tuple[list[str], dict]:
    df = spark.sql(f"SELECT {select} FROM {view} WHERE {where}")
    rows = sorted(map(repr, df.collect()))
    scan, = pyspark_ext.explain_read_schema(df)
    truth = view.split("_")[0]  # clean, mixed or duck
    expected = sorted(map(repr, spark.sql(f"SELECT {select} FROM truth_{truth} WHERE {where}").collect()))
    assert rows == expected
    return rows, scan


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("data,groups", [("clean", 1), ("mixed", 3)])
def test_bloom_filter_skips_row_groups_on_unsorted_data(spark: SparkSession, tables, layout: str,
                                                        data: str, groups: int) -> None:
    # mixed: the target's group and the two whose residual holds did
    rows, scan = _run(spark, f"{data}_{layout}_bloom", f"v:did::string = '{_target()}'")
    assert rows == [f"Row(rid={TARGET_ROW})"]
    assert scan["row_groups_read_metric"] == groups, scan["parquet_filters"]
    assert scan["row_groups_skipped_metric"] == ROWS // GROUP - groups
    assert scan["rows_output"] == groups * GROUP


@pytest.mark.parametrize("layout", LAYOUTS)
def test_whole_values_read_through_spark_reader_skip_too(spark: SparkSession, tables,
                                                         layout: str) -> None:
    # The whole value is read by Spark's own reader (not the leaf-columns reader): the same
    # selection applies there.
    rows, scan = _run(spark, f"mixed_{layout}_bloom", f"v:did::string = '{_target()}'",
                      select="rid, to_json(v) AS j")
    assert len(rows) == 1
    assert scan["rows_output"] == 3 * GROUP


@pytest.mark.parametrize("layout", LAYOUTS)
def test_in_list_on_bloom_filtered_leaf(spark: SparkSession, tables, layout: str) -> None:
    other = json.loads(_texts(True)[321])["did"]  # row group 3
    _, scan = _run(spark, f"mixed_{layout}_bloom", f"v:did::string IN ('{_target()}', '{other}')")
    assert scan["rows_output"] == 4 * GROUP


@pytest.mark.parametrize("view", [f"{d}_{layout}_plain" for d in ("clean", "mixed") for layout in LAYOUTS]
                         + ["clean_spark_plain", "mixed_spark_plain"])
def test_without_bloom_filters_nothing_is_skipped(spark: SparkSession, tables, view: str) -> None:
    _, scan = _run(spark, view, f"v:did::string = '{_target()}'")
    assert scan["row_groups_read_metric"] == ROWS // GROUP
    assert scan["rows_output"] == ROWS


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("where,row", [
    # did is the number 5 in row 50, stored in the residual: as a string it reads '5', a value no
    # typed leaf or bloom filter holds, so only a wrong skip of row group 0 would lose it
    ("v:did::string = '5'", 50),
    ("v:did::string = '{\"x\":1}'", 1500),
    ("v:did::string IN ('5', 'nowhere')", 50),
])
def test_residual_rows_are_never_skipped(spark: SparkSession, tables, layout: str, where: str,
                                         row: int) -> None:
    rows, scan = _run(spark, f"mixed_{layout}_bloom", where)
    assert rows == [f"Row(rid={row})"]
    assert scan["row_groups_read_metric"] == 2  # the two groups whose residual holds did


@pytest.mark.parametrize("view", ["mixed_draft_bloom", "mixed_spec_bloom", "mixed_draft_plain",
                                  "mixed_spec_plain", "mixed_spark_plain"])
@pytest.mark.parametrize("where,rids", [
    ("v:did::string = '5'", [50]),  # a number where a string is shredded
    ("v:did::string = '{\"x\":1}'", [1500]),  # an object where a string is shredded
    ("v:did::string IN ('5', '{\"x\":1}', 'nowhere')", [50, 1500]),
    # the typed target and both residual rows, in three different row groups
    ("v:did::string = '{target}' OR v:did::string IN ('5', '{\"x\":1}')", [50, TARGET_ROW, 1500]),
])
def test_only_a_wrong_skip_would_lose_these_rows(spark: SparkSession, tables, view: str, where: str,
                                                 rids: list[int]) -> None:
    # With skipping on, against the unshredded truth, and, where stock Spark reads the layout
    # (the spec layout, Spark's own writer), against stock Spark on the same files.
    where = where.replace("{target}", _target())
    rows, _ = _run(spark, view, where)
    assert rows == sorted(f"Row(rid={r})" for r in rids)
    if "_draft_" not in view:
        stock, ext = compare(spark, f"SELECT rid FROM {view} WHERE {where}")
        assert ext.rows == stock.rows == sorted(f"({r},)" for r in rids)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_switch_off_reads_every_row_group(spark: SparkSession, tables, layout: str) -> None:
    with confs(spark, {settings.VARIANT_SKIPPING: "false"}):
        _, scan = _run(spark, f"mixed_{layout}_bloom", f"v:did::string = '{_target()}'")
    assert scan["rows_output"] == ROWS


@pytest.mark.parametrize("layout", LAYOUTS)
def test_page_index_skips_pages_under_the_disjunction(spark: SparkSession, tables,
                                                      layout: str) -> None:
    # Sorted by rid, four pages per row group: the column index of rid excludes pages. With the
    # residual disjunction on did in the same filter, Parquet's page filtering (a union of row
    # ranges per OR) still reads only the rows of the one matching page.
    _, scan = _run(spark, f"mixed_{layout}_bloom",
                   f"rid BETWEEN 1230 AND 1240 AND v:did::string = '{_target()}'")
    assert scan["rows_output"] == PAGE


def test_bloom_filters_name_their_leaves(spark: SparkSession, tmp_path) -> None:
    df = spark.sql("SELECT parse_json('{\"a\": {\"b\": 1}}') AS v")
    with pytest.raises(ValueError, match="path 'a' of column 'v' is not a primitive"):
        pyspark_ext.write_shredded(df, str(tmp_path / "x"), {"v": "a struct<b: int>"},
                                   bloom_filters={"v": ["a"]})
    with pytest.raises(ValueError, match="names column 'w'"):
        pyspark_ext.write_shredded(df, str(tmp_path / "x"), {"v": "a struct<b: int>"},
                                   bloom_filters={"w": ["a.b"]})


# --- DuckDB's files: no bloom filters, dictionaries on low-cardinality strings ------------------

DUCK_ROWS, DUCK_GROUP = 8192, 2048  # DuckDB's smallest row group


def _duck_texts() -> list[str]:
    rnd = random.Random(46)
    out = []
    for i in range(DUCK_ROWS):
        # 'rare' only in row group 2; row group 0 holds one kind that is a number (the residual)
        kind = "rare" if i == 5000 else ["view", "click", "buy"][rnd.randrange(3)]
        event = {"did": f"did:{rnd.randrange(10 ** 9):09d}", "kind": 7 if i == 100 else kind}
        out.append(json.dumps(event))
    return out


@pytest.fixture(scope="module")
def duck(spark: SparkSession, tmp_path_factory) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path_factory.mktemp("duck_bloom") / "part-0.parquet"
    con = duckdb.connect()
    con.execute("SET threads = 1")  # row groups in rid order
    con.execute("SET variant_minimum_shredding_size = 0")
    con.execute("CREATE TABLE t (rid BIGINT, j VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(_duck_texts())))
    con.execute(f"COPY (SELECT rid, j::JSON::VARIANT AS v FROM t ORDER BY rid) TO '{path}' "
                f"(FORMAT parquet, ROW_GROUP_SIZE {DUCK_GROUP}, "
                "SHREDDING {v: 'STRUCT(did VARCHAR, kind VARCHAR)'})")
    con.close()
    spark.read.schema("rid bigint, v variant").parquet(str(path)).createOrReplaceTempView("duck_spec_plain")
    spark.createDataFrame(list(enumerate(_duck_texts())), "rid bigint, j string") \
        .selectExpr("rid", "parse_json(j) AS v").createOrReplaceTempView("truth_duck")


@pytest.mark.parametrize("where,rows,groups", [
    # the dictionaries of kind rule 'rare' out of groups 1 and 3; group 0's residual holds kind
    ("v:kind::string = 'rare'", ["Row(rid=5000)"], 2),
    ("v:kind::string = '7'", ["Row(rid=100)"], 1),
    # did is plain-encoded, with no bloom filter: every group is read
    (f"v:did::string = '{json.loads(_duck_texts()[6000])['did']}'", ["Row(rid=6000)"], 4),
])
def test_duckdb_files_skip_by_dictionary_under_the_disjunction(spark: SparkSession, duck,
                                                               where: str, rows: list, groups: int) -> None:
    got, scan = _run(spark, "duck_spec_plain", where)
    assert got == rows
    assert scan["rows_output"] == groups * DUCK_GROUP, scan["parquet_filters"]


@pytest.mark.parametrize("where,rids", [
    ("v:kind::string = '7'", [100]),  # the number 7 in the residual of a dictionary-encoded leaf
    ("v:kind::string IN ('7', 'rare')", [100, 5000]),
])
def test_duckdb_residual_rows_are_never_skipped(spark: SparkSession, duck, where: str,
                                                rids: list[int]) -> None:
    rows, _ = _run(spark, "duck_spec_plain", where)
    assert rows == sorted(f"Row(rid={r})" for r in rids)
    stock, ext = compare(spark, f"SELECT rid FROM duck_spec_plain WHERE {where}")
    assert ext.rows == stock.rows
