"""Draft-layout shredded variants: read as VARIANT, path reads, reconstruction, the writer.

Every query runs on the shredded files and on the same JSON parsed into an unshredded VARIANT
(the ground truth); rows must be identical, with ANSI on and off.
"""
from __future__ import annotations

import json

import pyarrow as pa
import pytest
from pyspark.errors import PySparkException
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext import settings
from tests.support import draft_files
from tests.support.differential import confs
from tests.support.rows import query_rows
from tests.support.variant_data import ANSI, FAILING, QUERIES, SHRED_SCHEMA, mixed_json


@pytest.fixture(scope="module")
def variants(spark: SparkSession, tmp_path_factory):
    base = tmp_path_factory.mktemp("draft")
    texts = mixed_json(600)
    truth = spark.createDataFrame(list(enumerate(texts)), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v")
    truth.createOrReplaceTempView("truth")
    pyspark_ext.shred(truth, "v", SHRED_SCHEMA).coalesce(2) \
        .write.mode("overwrite").parquet(str(base / "draft"))
    spark.read.schema("id BIGINT, v VARIANT").parquet(str(base / "draft")) \
        .createOrReplaceTempView("draft")
    return base


@pytest.mark.parametrize("ansi", ["true", "false"])
@pytest.mark.parametrize("query", QUERIES)
def test_same_rows_as_unshredded(spark: SparkSession, variants, query: str, ansi: str) -> None:
    with confs(spark, {ANSI: ansi}):
        truth = query_rows(spark, query.format(t="truth"))
        draft = query_rows(spark, query.format(t="draft"))
    assert draft == truth


@pytest.mark.parametrize("ansi", ["true", "false"])
@pytest.mark.parametrize("query", FAILING)
def test_same_errors_as_unshredded(spark: SparkSession, variants, query: str, ansi: str) -> None:
    with confs(spark, {ANSI: ansi}):
        for t in ("truth", "draft"):
            with pytest.raises(PySparkException, match="INVALID_VARIANT_CAST"):
                spark.sql(query.format(t=t)).collect()


def read_schema(spark: SparkSession, query: str) -> str:
    scans = pyspark_ext.explain_read_schema(spark.sql(query))
    assert len(scans) == 1
    return scans[0]["read_schema"]


def test_path_read_reads_only_that_path(spark: SparkSession, variants) -> None:
    schema = read_schema(spark, "SELECT variant_get(v, '$.user.name', 'string') FROM draft")
    # Every file shreds user and user.name, so no residual above the leaf can hold the value,
    # and the leaf's own residual is null in every row group, so only typed_value is read.
    assert schema == ("struct<v:struct<object:struct<user:struct<object:struct<name:struct<"
                      "typed_value:string>>>>>>")


def test_paths_read_through_aggregate_join_and_window(spark: SparkSession, variants) -> None:
    for q in [
        "SELECT v:kind::string, max(v:user.id::int) FROM draft GROUP BY 1",
        "SELECT a.id, rank() OVER (PARTITION BY a.v:kind::string ORDER BY a.v:user.id::int) "
        "FROM draft a JOIN draft b ON a.id = b.id WHERE b.v:user.id::int > 3",
    ]:
        df = spark.sql(q)
        for scan in pyspark_ext.explain_read_schema(df):
            assert "items" not in scan["read_schema"] and "price" not in scan["read_schema"], q
            assert "name" not in scan["read_schema"], q


@pytest.mark.parametrize("statistics,schema", [
    # untyped_value of `a` is null in every row group: only typed_value is read
    (True, "struct<v:struct<object:struct<a:struct<typed_value:bigint>>>>"),
    # without statistics nothing proves it null, so it is read
    (False, "struct<v:struct<object:struct<a:struct<untyped_value:binary,typed_value:bigint>>>>"),
])
def test_residual_null_in_every_row_is_not_read(spark: SparkSession, tmp_path, statistics: bool,
                                                 schema: str) -> None:
    import pyarrow.parquet as pq
    level = pa.struct([("untyped_value", pa.binary()), ("typed_value", pa.int64())])
    column = pa.struct([("untyped_value", pa.binary()), ("object", pa.struct([("a", level)]))])
    values = [{"untyped_value": None, "object": {"a": {"untyped_value": None, "typed_value": i}}}
              for i in range(20)] + [None]
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"v": pa.array(values, type=column)}), path, write_statistics=statistics)
    df = spark.read.schema("v VARIANT").parquet(path).selectExpr("v:a::bigint AS a", "v:a::string AS s")
    [scan] = pyspark_ext.explain_read_schema(df)
    assert scan["read_schema"] == schema
    assert sorted(df.collect(), key=repr) == sorted(
        [(i, str(i)) for i in range(20)] + [(None, None)], key=repr)


def test_unshredded_field_reads_the_residual_only(spark: SparkSession, variants) -> None:
    schema = read_schema(spark, "SELECT v:user.extra.since::int FROM draft")
    assert schema == "struct<v:struct<object:struct<user:struct<untyped_value:binary>>>>"


def test_seed_parquet_example(spark: SparkSession, tmp_path) -> None:
    pairs = draft_files.write(spark, str(tmp_path / "ex.parquet"), draft_files.EXAMPLE_TYPE,
                              [r for r in draft_files.EXAMPLE_ROWS if r[0] != "null-row"]
                              + [("null-row", None)])
    check_against_truth(spark, str(tmp_path / "ex.parquet"), pairs, [
        "SELECT id, to_json(v) FROM {t}",
        "SELECT id, try_variant_get(v, '$.a', 'bigint'), try_variant_get(v, '$.a', 'string'), v:b.c::string, "
        "v:b.d::int, v:c::int, v:[0].a::int, v:[1].b.c::int FROM {t}",
        "SELECT id, to_json(v:b), to_json(v:a), schema_of_variant(v:b) FROM {t}",
        "SELECT id FROM {t} WHERE try_variant_get(v, '$.a', 'int') = 123",
    ])


def test_seed_nested_example(spark: SparkSession, tmp_path) -> None:
    pairs = draft_files.write(spark, str(tmp_path / "nested.parquet"), draft_files.NESTED_TYPE,
                              draft_files.NESTED_ROWS)
    check_against_truth(spark, str(tmp_path / "nested.parquet"), pairs, [
        "SELECT id, to_json(v) FROM {t}",
        "SELECT id, try_variant_get(v, '$[0].a[1]', 'int'), try_variant_get(v, '$[0].b', 'int'), v:[2]::string, "
        "to_json(v:[0]), v:[0].c::string, v:a::string, to_json(v:a) FROM {t}",
        "SELECT id, to_json(e) FROM {t}, LATERAL variant_explode(v) AS (pos, key, e)",
    ])


def check_against_truth(spark: SparkSession, path: str, pairs, queries: list[str]) -> None:
    spark.createDataFrame(pairs, "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v").createOrReplaceTempView("seed_truth")
    spark.read.schema("id BIGINT, v VARIANT").parquet(path).createOrReplaceTempView("seed_draft")
    for q in queries:
        for ansi in ("true", "false"):
            with confs(spark, {ANSI: ansi}):
                truth = query_rows(spark, q.format(t="seed_truth"))
                draft = query_rows(spark, q.format(t="seed_draft"))
            assert draft == truth, q


def test_heterogeneous_files(spark: SparkSession, tmp_path) -> None:
    """One table, three files: a field shredded as bigint, as string, and not at all; a field
    missing from one file's schema."""
    texts = mixed_json(300, seed=11)
    truth = spark.createDataFrame(list(enumerate(texts)), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v")
    truth.createOrReplaceTempView("het_truth")
    path = str(tmp_path / "het")
    for part, schema in enumerate([
        "id bigint, user struct<id: bigint, name: string>",
        "id string, user struct<id: string>, price decimal(10,2)",
        "kind string",
    ]):
        pyspark_ext.shred(truth.where(f"id % 3 = {part}"), "v", schema).coalesce(1) \
            .write.mode("append").parquet(path)
    spark.sql(f"CREATE TABLE het (id BIGINT, v VARIANT) USING parquet LOCATION '{path}'")
    try:
        for q in [
            "SELECT id, to_json(v) FROM {t}",
            "SELECT id, v:id::bigint, v:id::string, v:user.id::int, v:user.name::string, "
            "try_variant_get(v, '$.price', 'double'), v:kind::string FROM {t}",
            "SELECT v:kind::string, count(*), sum(v:user.id::int) FROM {t} GROUP BY 1",
            "SELECT id FROM {t} WHERE v:user.id::int < 300",
        ]:
            assert query_rows(spark, q.format(t="het")) == query_rows(spark, q.format(t="het_truth")), q
    finally:
        spark.sql("DROP TABLE het")


def test_inferred_as_variant_from_path(spark: SparkSession, variants) -> None:
    path = str(variants / "draft")
    assert spark.read.parquet(path).schema["v"].dataType.typeName() == "variant"
    assert spark.sql(f"SELECT v FROM parquet.`{path}`").schema["v"].dataType.typeName() == "variant"
    with confs(spark, {settings.INFER_DRAFT_LAYOUT: "false"}):
        assert spark.read.parquet(path).schema["v"].dataType.typeName() == "struct"


def test_struct_read_made_with_inference_off_stays_struct(spark: SparkSession, variants) -> None:
    # The DataFrame's plan resolved `v` as a struct; turning inference on later must not retype it.
    path = str(variants / "draft")
    leaf = "v.object.user.object.id.typed_value"
    with confs(spark, {settings.INFER_DRAFT_LAYOUT: "false"}):
        df = spark.read.parquet(path)
        df.createOrReplaceTempView("draft_as_struct")
        expected = spark.sql(f"SELECT sum({leaf}) FROM draft_as_struct").collect()
    assert spark.sql(f"SELECT sum({leaf}) FROM draft_as_struct").collect() == expected
    assert df.select(leaf).count() == len(df.collect())


def test_draft_switch_off_leaves_spark_alone(spark: SparkSession, variants) -> None:
    path = str(variants / "draft")
    with confs(spark, {"spark.pyspark_ext.variant.draftLayout.enabled": "false"}):
        assert spark.read.parquet(path).schema["v"].dataType.typeName() == "struct"


@pytest.mark.parametrize("shredded", [False, True], ids=["unshredded", "spark_shredded"])
def test_spark_encoded_variant_files_still_read(spark: SparkSession, variants, tmp_path,
                                                shredded: bool) -> None:
    """Files in Spark's own encoding: unshredded (`metadata` and `value` only), and shredded by
    Spark's writer (Spark 4.3 shreds by default; with this mixed data the schema it infers shreds
    nothing, so one is forced)."""
    import pyarrow.parquet as pq
    path = tmp_path / "plain"
    forced = "struct<id: bigint, kind: string, user: struct<id: int, name: string>>"
    with spark_shredding(spark, shredded, forced if shredded else None):
        spark.table("truth").coalesce(1).write.parquet(str(path))
    layout = {f.name for f in pq.ParquetFile(min(path.glob("*.parquet"))).schema_arrow.field("v").type}
    assert layout == ({"metadata", "value", "typed_value"} if shredded else {"metadata", "value"})
    df = spark.read.schema("id BIGINT, v VARIANT").parquet(str(path))
    df.createOrReplaceTempView("plain")
    q = "SELECT id, to_json(v), v:user.id::int FROM {t}"
    assert query_rows(spark, q.format(t="plain")) == query_rows(spark, q.format(t="truth"))


# --- bad input ------------------------------------------------------------------------------

LEAF = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("typed_value", pa.int64())])


def _error(spark: SparkSession, path: str, query: str = "SELECT to_json(v) FROM bad") -> str:
    with pytest.raises(PySparkException) as info:
        spark.read.schema("id BIGINT, v VARIANT").parquet(path).createOrReplaceTempView("bad")
        spark.sql(query).collect()
    return str(info.value)


def test_unknown_field_in_layout_names_file_and_column(spark: SparkSession, tmp_path) -> None:
    path = str(tmp_path / "unknown.parquet")
    vtype = pa.struct([pa.field("untyped_value", pa.binary()),
                       pa.field("object", pa.struct([pa.field("a", pa.struct([
                           pa.field("typed_value", pa.int64()), pa.field("surprise", pa.int32()),
                           pa.field("_ignored", pa.int32())]))]))])
    draft_files.write_raw(path, vtype, [{"object": {"a": {"typed_value": 1}}}])
    message = _error(spark, path)
    assert "unknown.parquet" in message and "`v`" in message and "surprise" in message


def test_ignored_underscore_fields(spark: SparkSession, tmp_path) -> None:
    path = str(tmp_path / "underscore.parquet")
    vtype = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("_future", pa.int32()),
                       pa.field("object", pa.struct([pa.field("a", LEAF)]))])
    draft_files.write_raw(path, vtype, [{"_future": 3, "object": {"a": {"typed_value": 5}}}])
    df = spark.read.schema("id BIGINT, v VARIANT").parquet(path)
    assert [r[0] for r in df.selectExpr("to_json(v)").collect()] == ['{"a":5}']


def test_typed_and_untyped_both_set_is_an_error(spark: SparkSession, tmp_path) -> None:
    path = str(tmp_path / "both.parquet")
    untyped = draft_files.variant_bytes(spark, ["7"])["7"]
    vtype = pa.struct([pa.field("untyped_value", pa.binary()),
                       pa.field("object", pa.struct([pa.field("a", LEAF)]))])
    draft_files.write_raw(path, vtype, [{"object": {"a": {"typed_value": 1, "untyped_value": untyped}}}])
    for query in ("SELECT to_json(v) FROM bad", "SELECT v:a::int FROM bad"):
        message = _error(spark, path, query)
        assert "both.parquet" in message and "`v`" in message and "$.a" in message
        assert "typed_value and untyped_value" in message


def test_non_object_residual_beside_object_is_an_error(spark: SparkSession, tmp_path) -> None:
    path = str(tmp_path / "residual.parquet")
    untyped = draft_files.variant_bytes(spark, ["[1]"])["[1]"]
    vtype = pa.struct([pa.field("untyped_value", pa.binary()),
                       pa.field("object", pa.struct([pa.field("a", LEAF)]))])
    draft_files.write_raw(path, vtype, [{"untyped_value": untyped, "object": {"a": {"typed_value": 1}}}])
    message = _error(spark, path)
    assert "residual.parquet" in message and "not an object" in message


@pytest.mark.parametrize("blob", [b"\x01", b"\x01\x01\x00\x05ab", b"\x01\x00\x00\x03", b"\x07\x00\x00\x00"])
def test_corrupt_variant_binary_is_an_error(spark: SparkSession, tmp_path, blob: bytes) -> None:
    path = str(tmp_path / "corrupt.parquet")
    draft_files.write_raw(path, pa.struct([pa.field("untyped_value", pa.binary())]),
                          [{"untyped_value": blob}])
    message = _error(spark, path)
    assert "corrupt.parquet" in message and "not a valid variant binary" in message


def test_writer_rejects_bad_schema(spark: SparkSession) -> None:
    df = spark.sql("SELECT parse_json('1') AS v")
    with pytest.raises(Exception, match="(?i)shredding schema"):
        pyspark_ext.shred(df, "v", "a map<string, int>").collect()


def test_infer_shredding_schema(spark: SparkSession) -> None:
    texts = ['{"a": 1, "b": {"c": "x"}, "d": [1.5]}'] * 8 + ['{"a": "s", "e": true}'] * 2
    df = spark.createDataFrame([(t,) for t in texts], "j string").selectExpr("parse_json(j) v")
    assert pyspark_ext.infer_shredding_schema(df, "v") == (
        "struct<`a`: bigint, `b`: struct<`c`: string>, `d`: array<decimal(2,1)>, `e`: boolean>")
    assert pyspark_ext.infer_shredding_schema(df, "v", max_depth=1, max_fields=2) == \
        "struct<`a`: bigint, `b`: variant>"


def test_round_trip_deeply_nested(spark: SparkSession, tmp_path) -> None:
    deep = [json.dumps({"l1": {"l2": {"l3": {"l4": [{"x": i, "y": [i, str(i)]}]}}}}) for i in range(20)]
    deep += ['{"l1": {"l2": "flat"}}', '{"l1": [1, 2]}', '{"other": 1}']
    df = spark.createDataFrame(list(enumerate(deep)), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v")
    schema = pyspark_ext.infer_shredding_schema(df, "v", max_depth=8)
    pyspark_ext.shred(df, "v", schema).write.parquet(str(tmp_path / "deep"))
    back = spark.read.parquet(str(tmp_path / "deep"))
    q = "SELECT id, to_json(v), v:l1.l2.l3.l4[0].y[1]::string FROM {t}"
    df.createOrReplaceTempView("deep_truth")
    back.createOrReplaceTempView("deep_draft")
    assert query_rows(spark, q.format(t="deep_draft")) == query_rows(spark, q.format(t="deep_truth"))


def test_udf_receives_the_whole_variant(spark: SparkSession, variants) -> None:
    spark.udf.register("json_len", lambda v: None if v is None else len(v.toJson()), "int")
    q = "SELECT id, json_len(v), json_len(v:user) FROM {t}"
    assert query_rows(spark, q.format(t="draft")) == query_rows(spark, q.format(t="truth"))


@pytest.mark.slow
def test_strings_in_a_numeric_path_cast_as_spark_casts_them(spark: SparkSession, tmp_path) -> None:
    # Strings in the residual of a shredded bigint path: cast with one Cast per expression, which
    # must answer exactly what Spark's per-value cast answers, and fail where it fails.
    texts = ["12", " 7 ", "+3", "-0", "1.5", "1e3", "abc", "", "99999999999", "2147483648", "true",
             "0x1F", "12.000", " -128 "]
    pairs = [(i, json.dumps({"n": t})) for i, t in enumerate(texts)] + [(100, '{"n": 5}')]
    df = spark.createDataFrame(pairs, "id bigint, j string").selectExpr("id", "parse_json(j) AS v")
    path = str(tmp_path / "strings")
    pyspark_ext.shred(df, "v", "n bigint").write.parquet(path)
    types = ["tinyint", "smallint", "int", "bigint", "float", "double", "decimal(5,2)", "boolean"]
    queries = [f"SELECT id, try_variant_get(v, '$.n', '{t}') FROM {{t}}" for t in types]
    check_against_truth(spark, path, pairs, queries)
    for t in types:
        for ansi in ("true", "false"):
            with confs(spark, {ANSI: ansi}):
                q = f"SELECT id, variant_get(v, '$.n', '{t}') FROM {{t}} WHERE id IN (0, 6)"
                outcomes = []
                for view in ("seed_truth", "seed_draft"):
                    try:
                        outcomes.append(query_rows(spark, q.format(t=view)))
                    except Exception as e:  # noqa: BLE001 - the same error class is the point
                        outcomes.append(type(e).__name__ + str(e).split("\n")[0][:80])
                assert outcomes[0] == outcomes[1], (t, ansi, outcomes)


NUMBERS = ["1.5", "1.50", "100", "-0.01", "0.005", "12345678.91", "123456789.12", "99999999.999",
           "1e2", '"7.25"', "12345678901234567890", "0", "-0.000", "0.10000000000000000001",
           # Four- and eight-byte decimals, negative ones (sign extension), trailing zeros past the
           # target's scale, both edges of decimal(10,2) and (18,2), a sixteen-byte decimal, and
           # integers of every width up to the long's limits.
           "-1.25", "-7.5000000", "2.500000000", "12345678901.5", "-12345678901.5", "99999999.99",
           "-99999999.99", "100000000.00", "9999999999999999.99", "-9999999999999999.995",
           "0.00001", "-0.000000000001", "123456789012345678901.25", "127", "-32768", "2147483647",
           "-2147483648", "9223372036854775807", "-9223372036854775808", "99999"]


def test_residual_numbers_cast_to_decimals_as_unshredded(spark: SparkSession, tmp_path) -> None:
    # Numbers never shred into a string column, so every one is read from the residual and cast
    # there: exactly (no rounding needed) by the fast path, otherwise by Spark's cast.
    pairs = [(i, f'{{"p": {n}}}') for i, n in enumerate(NUMBERS)]
    truth = spark.createDataFrame(pairs, "id bigint, j string").selectExpr("id", "parse_json(j) AS v")
    path = str(tmp_path / "numbers")
    pyspark_ext.shred(truth, "v", "p string").write.parquet(path)
    check_against_truth(spark, path, pairs, [
        "SELECT id, try_variant_get(v, '$.p', 'decimal(10,2)'), try_variant_get(v, '$.p', 'decimal(5,4)'), "
        "try_variant_get(v, '$.p', 'decimal(38,0)') FROM {t}",
        "SELECT id, variant_get(v, '$.p', 'decimal(38,3)'), try_variant_get(v, '$.p', 'decimal(18,18)') FROM {t}",
        "SELECT sum(try_variant_get(v, '$.p', 'decimal(12,2)')) FROM {t}",
        "SELECT id, try_variant_get(v, '$.p', 'decimal(18,2)'), try_variant_get(v, '$.p', 'decimal(18,0)'), "
        "try_variant_get(v, '$.p', 'decimal(1,0)'), try_variant_get(v, '$.p', 'decimal(9,9)') FROM {t}",
    ])


@pytest.mark.parametrize(("schema", "message"), [
    ("id bigint, id string", r"`?v`?.*draft layout.*field 'id' appears twice in the struct at \$"),
    ("struct<>", r"`?v`?.*draft layout.*the struct at \$ names no field"),
    ("a struct<b: bigint, b: string>", r"`?v`?.*draft layout.*field 'b' appears twice in the struct at \$\.a"),
    ("a struct<>", r"`?v`?.*draft layout.*the struct at \$\.a names no field"),
])
def test_bad_draft_schema_fails_when_shred_is_called(spark: SparkSession, schema: str, message: str) -> None:
    """As in the spec layout: checked when `shred` is called, not when the data is written."""
    df = spark.sql("SELECT parse_json('{\"id\": 1}') AS v")
    with pytest.raises(Exception, match=message):
        pyspark_ext.shred(df, "v", schema)
