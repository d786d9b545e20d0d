"""Row-group skipping for filters on shredded variant paths, in both layouts.

The draft layout is written by our writer, the spec layout by Spark 4.3's own shredding writer
(``spark.sql.variant.writeShredding.enabled`` with a forced schema). Files are sorted by ``id``
with 100-row row groups. Each filter must return the rows of the
unshredded ground truth, and read only the row groups the shredding proposal's rule allows: a group is skipped
only when its typed statistics rule the filter out and every untyped column that can hold the
path is all null there. Row groups are checked twice: on statistics (``row_groups_read``) and at
run time (``rows_output``: Parquet returns whole row groups).
"""
from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext import settings
from tests.support.differential import confs

ROWS, GROUP = 2000, 100
SCHEMA = "id bigint, name string, score double, user struct<tier: string>"


def _events(spark: SparkSession, odd: dict[int, str] | None = None, residual: bool = False):
    odd = odd or {}
    texts = []
    for i in range(ROWS):
        e = {"id": odd.get(i, i), "name": f"n{i:05d}", "score": "SCORE",
             "user": {"tier": ["gold", "silver"][i % 2]}}
        if residual:
            e["other"] = {"x": i}
        # An exponent makes parse_json store a double, which the double column can hold.
        texts.append(json.dumps(e).replace('"SCORE"', f"{i / 4 + 0.5}e0"))
    return spark.createDataFrame(list(enumerate(texts)), "rid bigint, j string") \
        .selectExpr("rid", "parse_json(j) AS v")


SPEC_SCHEMA = "struct<id: bigint, name: string, score: double, user: struct<tier: string>>"
LAYOUTS = ["draft", "spec"]


NARROW = {"draft": SCHEMA.replace("id bigint", "id int"),
          "spec": SPEC_SCHEMA.replace("id: bigint", "id: int")}


def _write(spark: SparkSession, df, path: str, layout: str, narrow: bool = False) -> None:
    if layout == "draft":
        # Shred with our writer, then lay out fixed-size row groups with pyarrow.
        table = pyspark_ext.shred(df, "v", NARROW["draft"] if narrow else SCHEMA) \
            .orderBy("rid").toArrow()
        pq.write_table(table, path, row_group_size=GROUP)
        return
    with spark_shredding(spark, True, NARROW["spec"] if narrow else SPEC_SCHEMA):
        df.orderBy("rid").coalesce(1).write.mode("overwrite") \
            .option("parquet.block.row.count.limit", GROUP) \
            .option("parquet.page.row.count.limit", GROUP).parquet(path)


@pytest.fixture(autouse=True)
def _row_group_metrics(spark: SparkSession):
    with confs(spark, {settings.ROW_GROUP_METRICS: "true"}):
        yield


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory):
    base = tmp_path_factory.mktemp("skipping")
    cases = {
        "clean": _events(spark),
        # One id stored as a string: it goes to untyped_value, so its row group must be read.
        "odd": _events(spark, odd={1234: "1234"}),
        # Every object has a residual (unshredded `other`): id is shredded everywhere, so the
        # residual cannot hold it and does not block skipping.
        "partial": _events(spark, residual=True),
    }
    for name, df in cases.items():
        df.createOrReplaceTempView(f"truth_{name}")
        for layout in LAYOUTS:
            path = str(base / f"{layout}_{name}.parquet")
            _write(spark, df, path, layout)
            spark.read.schema("rid BIGINT, v VARIANT").parquet(path) \
                .createOrReplaceTempView(f"skip_{layout}_{name}")
    for layout in LAYOUTS:
        # id shredded as a 32-bit int, read as bigint
        path = str(base / f"{layout}_narrow.parquet")
        _write(spark, cases["clean"], path, layout, narrow=True)
        spark.read.schema("rid BIGINT, v VARIANT").parquet(path) \
            .createOrReplaceTempView(f"skip_{layout}_narrow")
    return base


# (filter, row groups read in the clean table)
FILTERS = [
    ("variant_get(v, '$.id', 'bigint') = 555", 1),
    ("v:id::bigint < 150", 2),
    ("v:id::bigint <= 99", 1),
    ("v:id::bigint > 1850", 2),
    ("v:id::bigint >= 1900", 1),
    ("v:id::bigint BETWEEN 1000 AND 1299", 3),
    ("v:id::bigint IN (5, 1777)", 2),
    ("v:id::bigint IS NULL", 0),
    ("v:id::bigint IS NOT NULL AND v:id::bigint < 100", 1),
    ("startswith(v:name::string, 'n0042')", 1),
    ("v:id::bigint = 3 OR v:name::string = 'n01999'", 2),
    ("v:score::double > 499.0", 1),
    ("try_variant_get(v, '$.id', 'bigint') = 42 AND v:user.tier::string = 'gold'", 1),
]


def _scan(spark: SparkSession, sql: str) -> tuple[list, dict]:
    df = spark.sql(sql)
    rows = sorted(map(repr, df.collect()))
    scans = pyspark_ext.explain_read_schema(df)
    assert len(scans) == 1
    return rows, scans[0]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("where,groups", FILTERS)
def test_skips_row_groups_on_clean_data(spark: SparkSession, tables, where: str, groups: int,
                                        layout: str) -> None:
    rows, scan = _scan(spark, f"SELECT rid FROM skip_{layout}_clean WHERE {where}")
    truth = sorted(map(repr, spark.sql(f"SELECT rid FROM truth_clean WHERE {where}").collect()))
    assert rows == truth
    assert scan["row_groups"] == ROWS // GROUP
    assert scan["row_groups_read"] == groups, scan["parquet_filters"]
    assert scan["rows_output"] == groups * GROUP
    # the run-time SQL metrics agree with the statistics
    assert scan["row_groups_read_metric"] == groups
    assert scan["row_groups_skipped_metric"] == ROWS // GROUP - groups


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("where,groups", FILTERS)
def test_skipping_switch_changes_nothing_but_reads(spark: SparkSession, tables, where: str,
                                                  groups: int, layout: str) -> None:
    with confs(spark, {settings.VARIANT_SKIPPING: "false"}):
        rows, scan = _scan(spark, f"SELECT rid FROM skip_{layout}_clean WHERE {where}")
    assert rows == sorted(map(repr, spark.sql(f"SELECT rid FROM truth_clean WHERE {where}").collect()))
    assert scan["rows_output"] == ROWS


@pytest.mark.parametrize("layout", LAYOUTS)
def test_untyped_value_in_a_row_group_makes_it_read(spark: SparkSession, tables, layout: str) -> None:
    # id 1234 is a string in row group 12; an equality on 555 still reads just its own group,
    # and a filter that the string row satisfies finds it.
    _, scan = _scan(spark, f"SELECT rid FROM skip_{layout}_odd WHERE v:id::bigint = 555")
    assert scan["row_groups_read"] == 2  # 555's group, and group 12 whose untyped column is non-null
    rows, scan = _scan(spark, f"SELECT rid FROM skip_{layout}_odd WHERE v:id::bigint = 1234")
    assert rows == ["Row(rid=1234)"]
    assert scan["row_groups_read"] == 1


@pytest.mark.parametrize("layout", LAYOUTS)
def test_partial_objects_do_not_block_skipping(spark: SparkSession, tables, layout: str) -> None:
    rows, scan = _scan(spark, f"SELECT rid FROM skip_{layout}_partial WHERE v:id::bigint = 777")
    assert rows == ["Row(rid=777)"]
    assert scan["row_groups_read"] == 1
    assert scan["rows_output"] == GROUP


@pytest.mark.parametrize("layout", LAYOUTS)
def test_negation_is_not_pushed(spark: SparkSession, tables, layout: str) -> None:
    # Spark itself turns NOT (x < c) into x >= c; a NOT that remains is never pushed.
    rows, scan = _scan(spark, f"SELECT rid FROM skip_{layout}_clean WHERE NOT startswith(v:name::string, 'n00')")
    assert len(rows) == ROWS - 1000
    assert scan["row_groups_read"] == ROWS // GROUP


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cast_to_another_type_is_not_pushed(spark: SparkSession, tables, layout: str) -> None:
    # variant_get as string compares strings: '555' < '6' is not what typed statistics say.
    rows, scan = _scan(spark, f"SELECT rid FROM skip_{layout}_clean WHERE v:id::string < '6'")
    truth = spark.sql("SELECT rid FROM truth_clean WHERE v:id::string < '6'").collect()
    assert rows == sorted(map(repr, truth))
    assert scan["row_groups_read"] == ROWS // GROUP


@pytest.mark.parametrize("layout,leaf", [("draft", "v.object.id.typed_value"),
                                         ("spec", "v.typed_value.id.typed_value")])
def test_explain_shows_the_skip_predicate(spark: SparkSession, tables, layout: str,
                                          leaf: str) -> None:
    df = spark.sql(f"SELECT rid FROM skip_{layout}_clean WHERE v:id::bigint = 555")
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "PushedFilters" in plan and leaf in plan
    text = pyspark_ext.format_report(pyspark_ext.explain_read_schema(df))
    assert "row groups  : 1 read, 19 skipped of 20" in text
    assert "RowGroupMetrics" in plan
    df.collect()
    text = pyspark_ext.format_report(pyspark_ext.explain_read_schema(df))
    assert "at run time : 1 read, 19 skipped" in text


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("where,groups", [
    ("v:id::bigint = 555", 1),
    ("v:id::bigint BETWEEN 1000 AND 1299", 3),
    ("v:id::bigint IN (5, 1777)", 2),
    # A literal the int column cannot hold is not pushed: every group is read.
    ("v:id::bigint < 5000000000", ROWS // GROUP),
])
def test_integer_column_read_as_wider_integer(spark: SparkSession, tables, layout: str,
                                              where: str, groups: int) -> None:
    rows, scan = _scan(spark, f"SELECT rid FROM skip_{layout}_narrow WHERE {where}")
    truth = sorted(map(repr, spark.sql(f"SELECT rid FROM truth_clean WHERE {where}").collect()))
    assert rows == truth
    assert scan["row_groups_read"] == groups, scan["parquet_filters"]
