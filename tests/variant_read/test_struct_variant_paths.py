"""Path reads of a VARIANT field of a struct (`s.w`, `s.t.w`), shredded in either layout.

Such a field holds one value per row, as a top-level VARIANT column does, and is read the same
way: a path read reads only the leaves on its path, a filter on a path skips row groups, and the
whole field (or the whole struct) is rebuilt from its shredded parts. Every query returns the
rows stock Spark returns over the same spec-layout files (Spark's own writer, which shreds nested
VARIANTs too), and the rows of the same values unshredded for the draft layout, which stock
Spark cannot read.
"""
from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext import settings
from tests.support.differential import ENABLED, confs
from tests.support.rows import query_rows

ROWS, GROUP = 2000, 100
SCHEMA = "id bigint, v variant, s struct<tag: string, w: variant, t: struct<w: variant>>"
# Every VARIANT holds `a` (the row's id) and `c`; `s` is null on every tenth row and `s.w` on
# another.
VALUE = "parse_json(to_json(named_struct('a', id, 'c', concat('x', id % 3))))"
COLUMNS = [
    "id",
    "parse_json(to_json(named_struct('a', id, 'b', cast(id AS string)))) AS v",
    f"CASE WHEN id % 10 = 3 THEN NULL ELSE named_struct('tag', concat('t', id), "
    f"'w', CASE WHEN id % 10 = 4 THEN NULL ELSE {VALUE} END, 't', named_struct('w', {VALUE})) END AS s",
]
# The draft layout, written by the extension's shred_variant inside the struct.
DRAFT = [
    "id", "shred_variant(v, 'a bigint, b string') AS v",
    "CASE WHEN s IS NULL THEN NULL ELSE named_struct('tag', s.tag, "
    "'w', shred_variant(s.w, 'a bigint, c string'), "
    "'t', named_struct('w', shred_variant(s.t.w, 'a bigint'))) END AS s",
]


def _write(df, path: str) -> None:
    df.orderBy("id").coalesce(1).write.option("parquet.block.row.count.limit", GROUP) \
        .option("parquet.page.row.count.limit", GROUP).parquet(path)


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("struct_variant_paths")
    values = spark.range(ROWS).selectExpr(*COLUMNS)
    with spark_shredding(spark, False):
        _write(values, str(base / "truth"))
        _write(values.selectExpr(*DRAFT), str(base / "draft"))
    # Spark's writer shreds `v`, `s.w` and `s.t.w` by the same forced schema.
    with spark_shredding(spark, True, "struct<a: bigint, b: string>"):
        _write(values, str(base / "spec"))
    for layout in ("truth", "draft", "spec"):
        spark.read.schema(SCHEMA).parquet(str(base / layout)) \
            .createOrReplaceTempView(f"struct_paths_{layout}")
    return {"spec": "struct_paths_spec", "draft": "struct_paths_draft"}


@pytest.fixture(autouse=True)
def _row_group_metrics(spark: SparkSession):
    with confs(spark, {settings.ROW_GROUP_METRICS: "true"}):
        yield


def _scan(spark: SparkSession, query: str, enabled: bool = True) -> dict:
    with confs(spark, {ENABLED: str(enabled).lower()}):
        df = spark.sql(query)
        df.collect()  # the run-time metrics are those of this run
        [scan] = pyspark_ext.explain_read_schema(df)
    return scan


QUERIES = [
    "SELECT id, variant_get(s.w, '$.a', 'bigint'), s.w:c::string FROM {t} WHERE id % 7 = 0",
    "SELECT id, s.t.w:a::int, try_variant_get(s.t.w, '$.c', 'int'), cast(s.t.w:a AS string) "
    "FROM {t} WHERE id % 11 < 2",
    "SELECT id, s.tag FROM {t} WHERE variant_get(s.w, '$.a', 'bigint') BETWEEN 500 AND 520",
    "SELECT id FROM {t} WHERE s.t.w:a::bigint = 1234 OR s.w:c::string = 'x1' AND id < 50",
    "SELECT count(*), count(s), count(s.w), count(s.t.w), sum(if(s.w IS NULL, 1, 0)), "
    "sum(if(s.t.w IS NOT NULL, 1, 0)) FROM {t}",
    "SELECT id, s FROM {t} WHERE id < 25",
    "SELECT id, s, s.w:a::bigint FROM {t} WHERE s.t.w:a::bigint < 25",
    "SELECT id, s.w, to_json(s.w), s.t.w:a::bigint FROM {t} WHERE id BETWEEN 90 AND 115",
    "SELECT id, v:b::string, s.w:a::bigint, to_json(v) FROM {t} "
    "WHERE v:a::bigint < 60 AND s.w:a::bigint > 20",
    "SELECT s.tag IS NULL, count(*), max(s.w:a::bigint), min(s.t.w:c::string) FROM {t} "
    "WHERE s.t.w:a::bigint > v:a::bigint - 5 GROUP BY 1",
    "SELECT cast(s.w AS string), variant_get(s.t.w, '$', 'string') FROM {t} WHERE id % 13 = 0",
]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("layout", ["spec", "draft"])
def test_same_rows_as_stock_spark(spark: SparkSession, tables, layout: str, query: str) -> None:
    with confs(spark, {ENABLED: "false"}):
        truth = query_rows(spark, query.format(t="struct_paths_truth"))
        stock = query_rows(spark, query.format(t=tables["spec"])) if layout == "spec" else truth
    ext = query_rows(spark, query.format(t=tables[layout]))
    assert ext == stock == truth and ext


# The read schema of `s` (without `id`) when the query reads `$.a` of the VARIANT under `at`.
LEAF_A = {
    "spec": "struct<typed_value:struct<a:struct<typed_value:bigint>>>",
    "draft": "struct<object:struct<a:struct<typed_value:bigint>>>",
}


@pytest.mark.parametrize("layout", ["spec", "draft"])
@pytest.mark.parametrize("field, nesting", [("s.w", "s:struct<w:{}>"), ("s.t.w", "s:struct<t:struct<w:{}>>")])
def test_path_filter_reads_one_leaf_and_skips_row_groups(spark: SparkSession, tables, layout: str,
                                                       field: str, nesting: str) -> None:
    query = f"SELECT id FROM {tables[layout]} WHERE variant_get({field}, '$.a', 'bigint') = 555"
    assert spark.sql(query).collect() == [(555,)]
    scan = _scan(spark, query)
    assert scan["read_schema"] == f"struct<id:bigint,{nesting.format(LEAF_A[layout])}>"
    # skipped by the footers' statistics, and at run time
    assert (scan["row_groups_read"], scan["row_groups_skipped"]) == (1, ROWS // GROUP - 1)
    assert (scan["row_groups_read_metric"], scan["row_groups_skipped_metric"]) == (1, ROWS // GROUP - 1)


def test_whole_field_beside_a_path_read_reads_only_those(spark: SparkSession, tables) -> None:
    scan = _scan(spark, f"SELECT to_json(s.w), s.t.w:a::bigint FROM {tables['spec']}")
    whole = ("struct<metadata:binary,value:binary,typed_value:struct<a:struct<value:binary,"
             "typed_value:bigint>,b:struct<value:binary,typed_value:string>>>")
    assert scan["read_schema"] == \
        f"struct<s:struct<w:{whole},t:struct<w:{LEAF_A['spec']}>>>"
    # the plain field of the struct beside a path read: that field alone
    scan = _scan(spark, f"SELECT s.tag, s.w:a::bigint FROM {tables['draft']} WHERE id < 9")
    assert scan["read_schema"] == f"struct<id:bigint,s:struct<tag:string,w:{LEAF_A['draft']}>>"


def test_path_reads_through_an_aggregate_read_the_leaves(spark: SparkSession, tables) -> None:
    query = (f"SELECT s.tag, count(*), max(s.w:a::bigint) FROM {tables['spec']} "
             "WHERE s.t.w:a::bigint > v:a::bigint - 5 GROUP BY s.tag")
    scan = _scan(spark, query)
    assert scan["read_schema"] == (
        f"struct<v:{LEAF_A['spec']},s:struct<tag:string,w:{LEAF_A['spec']},t:struct<w:{LEAF_A['spec']}>>>")


def test_only_variants_in_arrays_and_maps_are_left_to_spark(spark: SparkSession, tables) -> None:
    def warnings() -> list[str]:
        found = spark._jvm.pysparkext.formats.DeltaScans.warnings().mkString("\n").splitlines()
        return [w for w in found if "struct_variant_paths" in w]
    spark.sql(f"SELECT s.w:a::int FROM {tables['spec']}").collect()
    assert warnings() == []
