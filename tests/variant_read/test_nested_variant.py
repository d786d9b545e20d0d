"""A VARIANT inside a struct, an array or a map, beside a shredded top-level VARIANT.

Spark's own writer shreds every VARIANT, nested ones included (spec layout). The top-level column
must still be read by its shredded leaves, with row groups skipped, whatever else the table holds;
a VARIANT field of a struct is read by its leaves too (test_struct_variant_paths.py), and each
VARIANT inside an array or a map is left to Spark's reader, with one warning naming it. Every query returns
the rows stock Spark returns, with the vectorised reader and with the row-based one.
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

# The nested VARIANT of each table, beside `id` and `v`; every value holds `a` (the row's id).
NESTED = {
    "struct": "named_struct('tag', concat('t', id), 'w', {value}) AS s",
    "array": "array({value}, parse_json(cast(id * 2 AS string))) AS arr",
    "map": "map('k', {value}) AS m",
}
VALUE = "parse_json(to_json(named_struct('a', id, 'c', 'x')))"


@pytest.fixture(autouse=True)
def _row_group_metrics(spark: SparkSession):
    with confs(spark, {settings.ROW_GROUP_METRICS: "true"}):
        yield


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("nested_variant")
    out = {}
    for kind, nested in NESTED.items():
        df = spark.range(ROWS).selectExpr(
            "id", "parse_json(to_json(named_struct('a', id, 'b', cast(id AS string)))) AS v",
            nested.format(value=VALUE))
        path = str(base / kind)
        # Spark's writer shreds the nested VARIANTs by the same forced schema as `v`.
        with spark_shredding(spark, True, "struct<a: bigint, b: string>"):
            df.orderBy("id").coalesce(1).write.option("parquet.block.row.count.limit", GROUP) \
                .option("parquet.page.row.count.limit", GROUP).parquet(path)
        out[kind] = f"parquet.`{path}`"
    return out


def _stock_and_ext(spark: SparkSession, query: str) -> tuple[list[str], list[str]]:
    with confs(spark, {ENABLED: "false"}):
        stock = query_rows(spark, query)
    return stock, query_rows(spark, query)


def _scan(spark: SparkSession, query: str, enabled: bool) -> dict:
    with confs(spark, {ENABLED: str(enabled).lower()}):
        df = spark.sql(query)
        df.collect()  # the run-time metrics are those of this run
        [scan] = pyspark_ext.explain_read_schema(df)
    return scan


@pytest.mark.parametrize("kind", sorted(NESTED))
def test_top_level_variant_is_read_by_its_leaves(spark: SparkSession, tables, kind: str) -> None:
    query = f"SELECT id FROM {tables[kind]} WHERE variant_get(v, '$.a', 'bigint') = 555"
    stock, ext = _stock_and_ext(spark, query)
    assert ext == stock == ["(555,)"]
    scan, plain = _scan(spark, query, True), _scan(spark, query, False)
    assert scan["read_schema"] == \
        "struct<id:bigint,v:struct<typed_value:struct<a:struct<typed_value:bigint>>>>"
    # skipped by the footers' statistics, and at run time
    assert (scan["row_groups_read"], scan["row_groups_skipped"]) == (1, ROWS // GROUP - 1)
    assert (scan["row_groups_read_metric"], scan["row_groups_skipped_metric"]) == (1, ROWS // GROUP - 1)
    assert plain["row_groups_skipped"] == 0
    assert scan["bytes_read"] < plain["bytes_read"]


QUERIES = {
    "struct": [
        "SELECT id, variant_get(s.w, '$.a', 'bigint'), v:b::string FROM {t} WHERE v:a::bigint < 5",
        "SELECT id FROM {t} WHERE variant_get(s.w, '$.a', 'bigint') = 555",
        "SELECT id, s.tag, to_json(s.w), to_json(v) FROM {t} WHERE id % 97 = 0",
        "SELECT id, s, v FROM {t} WHERE v:a::bigint BETWEEN 10 AND 12",
        "SELECT count(*), count(s.w) FROM {t} WHERE s.w IS NOT NULL AND v:a::bigint > 1900",
        "SELECT cast(s.w AS string), try_variant_get(s.w, '$.c', 'int') FROM {t} WHERE v:b::string = '7'",
    ],
    "array": [
        "SELECT id, to_json(arr[0]), variant_get(arr[1], '$', 'int'), v:b::string FROM {t} "
        "WHERE v:a::bigint < 5",
        "SELECT sum(variant_get(x, '$.a', 'bigint')) FROM {t} LATERAL VIEW explode(arr) AS x "
        "WHERE v:a::bigint >= 1990",
        "SELECT id, arr, v FROM {t} WHERE id % 301 = 0",
    ],
    "map": [
        "SELECT id, variant_get(m['k'], '$.a', 'bigint'), v:b::string FROM {t} WHERE v:a::bigint < 5",
        "SELECT id, m, v FROM {t} WHERE id % 301 = 0",
        "SELECT count(*) FROM {t} WHERE variant_get(m['k'], '$.a', 'bigint') > v:a::bigint",
    ],
}


@pytest.mark.parametrize("vectorised", ["true", "false"])
@pytest.mark.parametrize("kind, query", [(k, q) for k, qs in sorted(QUERIES.items()) for q in qs])
def test_same_rows_as_stock_spark(spark: SparkSession, tables, kind: str, query: str,
                                  vectorised: str) -> None:
    with confs(spark, {"spark.sql.parquet.enableVectorizedReader": vectorised}):
        stock, ext = _stock_and_ext(spark, query.format(t=tables[kind]))
    assert ext == stock and ext


def test_variant_in_array_or_map_is_left_to_spark_with_one_warning(spark: SparkSession, tables) -> None:
    def warnings(path: str) -> list[str]:
        found = spark._jvm.pysparkext.formats.DeltaScans.warnings().mkString("\n").splitlines()
        return [w for w in found if f"the VARIANT {path} of " in w]
    for kind, read in [("array", "variant_get(arr[0], '$.a', 'bigint')"),
                       ("map", "variant_get(m['k'], '$.a', 'bigint')")]:
        query = f"SELECT {read} FROM {tables[kind]}"
        spark.sql(query).collect()
        spark.sql(query).collect()
        [warning] = warnings("arr[*]" if kind == "array" else "m[*]")
        assert tables[kind].removeprefix("parquet.`").rstrip("`") in warning
        assert "to Spark's reader" in warning and "not a VARIANT inside an array or a map" in warning
        # Spark's own reader reads it: the same read schema as stock Spark's
        assert _scan(spark, query, True)["read_schema"] == _scan(spark, query, False)["read_schema"]
    # A VARIANT field of a struct is read by its leaves (test_struct_variant_paths.py): no warning.
    spark.sql(f"SELECT variant_get(s.w, '$.a', 'bigint') FROM {tables['struct']}").collect()
    assert warnings("s.w") == []
