"""Spec-layout shredded variants (``metadata``/``value``/``typed_value``) written by Spark 4.3's own
shredding writer, read by their leaves with the extension.

Files of one table are shredded differently (as Spark's writer does per file): a full schema,
a conflicting one (``id`` as a string, partial objects) and no shredding at all. Every query
must return the rows stock Spark returns for the same files, with ANSI on and off. The read schemas
of path reads over such files (one file, a catalog table, a table of conflicting files) are in the
rules' SQL fixtures (``tests/rules/fixtures/RewriteShreddedVariantPaths.sql``).
"""
from __future__ import annotations

import shutil
import struct
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.errors import PySparkException
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext import settings
from tests.support.differential import ENABLED, assert_same_rows, confs, rows_of
from tests.support.variant_data import (ANSI, FAILING, FULL, QUERIES, mixed_truth, source, write_spec,
                                       write_spec_three_ways)


@pytest.fixture(scope="module")
def spec(spark: SparkSession, tmp_path_factory):
    base = tmp_path_factory.mktemp("spec")
    truth = mixed_truth(spark, 600, seed=3)
    spec = write_spec_three_ways(spark, truth, base)
    one = str(base / "one")
    write_spec(spark, truth, one, FULL)
    return {"spec": spec, "spec_one": source(one)}


def same_rows_as_stock(spark: SparkSession, query: str) -> list[Any]:
    """The extension's rows of ``query``; fails unless stock Spark gives the same rows."""
    with confs(spark, {ENABLED: "false"}):
        stock = rows_of(spark, query)
    ext = rows_of(spark, query)
    assert_same_rows(ext, stock, query)
    return ext


@pytest.mark.parametrize("ansi", ["true", "false"])
@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("table", ["spec", "spec_one"])
def test_same_rows_as_stock_spark(spark: SparkSession, spec, query: str, ansi: str,
                                  table: str) -> None:
    with confs(spark, {ANSI: ansi}):
        same_rows_as_stock(spark, query.format(t=spec[table]))


@pytest.mark.parametrize("query", FAILING)
def test_same_errors_as_stock_spark(spark: SparkSession, spec, query: str) -> None:
    # Stock Spark casts inside its Parquet reader, so its error arrives wrapped in a read failure.
    with confs(spark, {ENABLED: "false"}), pytest.raises(Exception, match="INVALID_VARIANT_CAST"):
        spark.sql(query.format(t=spec["spec"])).collect()
    with pytest.raises(PySparkException, match="INVALID_VARIANT_CAST"):
        spark.sql(query.format(t=spec["spec"])).collect()


def read_schema(spark: SparkSession, query: str) -> list[str]:
    return [s["read_schema"] for s in pyspark_ext.explain_read_schema(spark.sql(query))]


def test_residual_with_values_in_one_file_is_read(spark: SparkSession, tmp_path) -> None:
    # user.name is a string in every row of one file and a number in some rows of the other:
    # the number is in that file's residual, so the read takes the residual and the metadata.
    texts = [f'{{"user": {{"name": "n{i}"}}}}' for i in range(50)]
    odd = [f'{{"user": {{"name": {i}}}}}' if i % 10 == 0 else f'{{"user": {{"name": "m{i}"}}}}'
           for i in range(50)]
    table = tmp_path / "table"
    for i, data in enumerate([texts, odd]):
        df = spark.createDataFrame([(t,) for t in data], "j string").selectExpr("parse_json(j) AS v")
        write_spec(spark, df, str(tmp_path / f"p{i}"), "struct<user: struct<name: string>>")
        for f in (tmp_path / f"p{i}").glob("*.parquet"):
            table.mkdir(exist_ok=True)
            shutil.move(str(f), str(table / f"{i}-{f.name}"))
    q = f"SELECT v:user.name::string AS n FROM {source(table)}"
    [schema] = read_schema(spark, q)
    assert schema == ("struct<v:struct<metadata:binary,typed_value:struct<user:struct<"
                      "typed_value:struct<name:struct<value:binary,typed_value:string>>>>>>")
    ext = same_rows_as_stock(spark, q)
    assert ("0",) in ext


def test_whole_variant_of_shredded_files(spark: SparkSession, spec) -> None:
    ext = same_rows_as_stock(spark, f"SELECT id, to_json(v), v FROM {spec['spec']}")
    assert len(ext) == 600


def test_spec_switch_leaves_spark_alone(spark: SparkSession, spec) -> None:
    q = f"SELECT v:user.name::string FROM {spec['spec_one']}"
    with confs(spark, {ENABLED: "false"}):
        stock = read_schema(spark, q)
    with confs(spark, {settings.SPEC_VARIANT: "false"}):
        assert read_schema(spark, q) == stock


def test_unshredded_table_stays_with_spark(spark: SparkSession, spec, tmp_path) -> None:
    path = str(tmp_path / "plain")
    write_spec(spark, spark.sql(f"SELECT * FROM {spec['spec_one']}"), path, None)
    q = f"SELECT v:user.name::string FROM {source(path)}"
    with confs(spark, {ENABLED: "false"}):
        stock = read_schema(spark, q)
    assert read_schema(spark, q) == stock
    same_rows_as_stock(spark, f"SELECT id, v:user.name::string FROM {source(path)}")


def test_typed_value_of_another_type_is_cast_directly(spark: SparkSession, spec) -> None:
    # user.id is shredded as int; reading it as bigint casts the column (Spark's variant cast is a
    # TRY cast of the value) and only rows without a typed value take the general read.
    q = f"SELECT variant_get(v, '$.user.id', 'bigint') FROM {spec['spec_one']}"
    plan = spark.sql(q)._jdf.queryExecution().optimizedPlan().toString()
    assert "try_cast" in plan.lower() or "cast(cast(" in plan.lower(), plan
    same_rows_as_stock(spark, q)


def _decimal_residual_file(path, value: bytes) -> str:
    """A spec-layout file of one row whose field `p` is shredded as a string but holds `value`."""
    p = pa.StructArray.from_arrays([pa.array([value], pa.binary()), pa.nulls(1, pa.string())],
                                   names=["value", "typed_value"])
    v = pa.StructArray.from_arrays(
        [pa.array([b"\x01\x00\x00"]), pa.nulls(1, pa.binary()), pa.StructArray.from_arrays([p], names=["p"])],
        names=["metadata", "value", "typed_value"])
    pq.write_table(pa.table({"id": [1], "v": v}), str(path))
    return str(path)


def _decimal_read(spark: SparkSession, path: str, function: str = "variant_get") -> list:
    return spark.read.schema("id bigint, v variant").parquet(path) \
        .selectExpr(f"{function}(v, '$.p', 'decimal(12,2)') AS p").collect()


@pytest.mark.parametrize("name, value", [
    ("ten_digit_decimal4", bytes([8 << 2, 2]) + (10**9).to_bytes(4, "little", signed=True)),
    ("truncated_decimal8", bytes([9 << 2, 2]) + (12345).to_bytes(8, "little", signed=True)[:7]),
    ("scale_past_digits", bytes([8 << 2, 10]) + (5).to_bytes(4, "little", signed=True)),
])
def test_malformed_residual_decimal_is_an_error(spark: SparkSession, tmp_path, name: str, value: bytes) -> None:
    # Residual decimals are checked without Spark's BigDecimal where they are plainly well formed
    # (SmallDecimal); anything else must still meet Spark's validation, and fail it here.
    path = _decimal_residual_file(tmp_path / f"{name}.parquet", value)
    with pytest.raises(Exception) as err:
        _decimal_read(spark, path)
    message = str(err.value)
    assert f"{name}.parquet" in message and "`v`" in message and "not a valid variant binary" in message


@pytest.mark.parametrize("unscaled, scale, width", [(-125, 2, 4), (10**9 - 1, 0, 4), (-(10**17), 7, 8)])
def test_well_formed_residual_decimal_reads_as_stock(spark: SparkSession, tmp_path, unscaled: int,
                                                     scale: int, width: int) -> None:
    value = bytes([(8 if width == 4 else 9) << 2, scale]) + unscaled.to_bytes(width, "little", signed=True)
    path = _decimal_residual_file(tmp_path / "good.parquet", value)
    with confs(spark, {ENABLED: "false"}):
        stock = _decimal_read(spark, path, "try_variant_get")
    assert _decimal_read(spark, path, "try_variant_get") == stock and len(stock) == 1


def _untyped_field_file(path, values: list) -> str:
    """A spec-layout file whose field `n` has no typed_value (as Spark's writer leaves a field of
    mixed types): every value of `n` is in its residual. Its group is required, as Spark's writer
    declares it (an optional one makes a path read check it for nulls, which needs the struct's
    own null-ness and so Spark's reader, not the leaf reader)."""
    count = len(values)
    n = pa.StructArray.from_arrays([pa.array(values, pa.binary())], names=["value"])
    v = pa.StructArray.from_arrays(
        [pa.array([b"\x01\x00\x00"] * count), pa.nulls(count, pa.binary()),
         pa.StructArray.from_arrays([n], fields=[pa.field("n", n.type, nullable=False)])],
        names=["metadata", "value", "typed_value"])
    pq.write_table(pa.table({"id": pa.array(range(count), pa.int64()), "v": v}), str(path))
    return str(path)


def _int(width: int, n: int) -> bytes:
    return bytes([{1: 3, 2: 4, 4: 5, 8: 6}[width] << 2]) + n.to_bytes(width, "little", signed=True)


def _dec(width: int, unscaled: int, scale: int) -> bytes:
    return bytes([(8 if width == 4 else 9) << 2, scale]) + unscaled.to_bytes(width, "little", signed=True)


UNTYPED_VALUES = [
    _int(1, 7), _int(1, -5), _int(2, 300), _int(2, -32768), _int(4, 70000), _int(4, -2**31),
    _int(8, 12), _int(8, 5_000_000_000), _int(8, -2**63), _dec(4, 12345, 2), _dec(4, 5, 1),
    _dec(4, -999_999_999, 9), _dec(8, 123456789012, 3), _dec(8, 10**17, 0), bytes([2 << 2 | 1]) + b"42",
    bytes([7 << 2]) + struct.pack("<d", 2.5), b"\x00", b"\x04", None,
]


def _untyped_read(spark: SparkSession, path: str, *exprs: str):
    return spark.read.schema("id bigint, v variant").parquet(path).selectExpr(*exprs)


@pytest.mark.parametrize("target", ["int", "bigint", "smallint", "tinyint", "double", "decimal(10,2)",
                                    "decimal(4,1)", "decimal(18,0)", "decimal(20,2)", "string", "boolean"])
def test_untyped_field_reads_as_stock(spark: SparkSession, tmp_path, target: str) -> None:
    # The field's level is its residual alone: it is read as that binary column, and integers and
    # small decimals are cast from their bytes without a Variant (ScalarCast.fromValueBytes).
    path = _untyped_field_file(tmp_path / "untyped.parquet", UNTYPED_VALUES)
    read = f"try_variant_get(v, '$.n', '{target}')"
    numeric = target not in ("string", "boolean")
    for exprs in [("id", read), ("count(*)", f"sum({read})" if numeric else f"count({read})")]:
        with confs(spark, {ENABLED: "false"}):
            stock = sorted(map(repr, _untyped_read(spark, path, *exprs).collect()))
        df = _untyped_read(spark, path, *exprs)
        assert sorted(map(repr, df.collect())) == stock
        assert len(stock) == (len(UNTYPED_VALUES) if exprs[0] == "id" else 1)
        [entry] = pyspark_ext.explain_read_schema(df)
        assert entry["read_schema"].endswith("v:struct<metadata:binary,typed_value:struct<n:struct<value:binary>>>>")
        # The residual is a primitive leaf, so the scan reads it as a flat column (LeafColumnsReader).
        assert "leaf columns" in df._jdf.queryExecution().executedPlan().toString()


def test_untyped_field_malformed_integer_is_an_error(spark: SparkSession, tmp_path) -> None:
    # An INT4 header with three bytes after it: not read from its bytes, and Spark's validation fails it.
    path = _untyped_field_file(tmp_path / "short_int.parquet", [_int(2, 1), bytes([5 << 2, 1, 2, 3])])
    with pytest.raises(Exception) as err:
        spark.read.schema("id bigint, v variant").parquet(path) \
            .selectExpr("try_variant_get(v, '$.n', 'int')").collect()
    message = str(err.value)
    assert "short_int.parquet" in message and "`v`" in message and "not a valid variant binary" in message
