"""Shredded variants holding types Spark 4.3 cannot read as columns: TIME, nanosecond timestamps
and UUID (``RawTypedValue``, ``RawPrimitive``).

Files are written with pyarrow in the spec layout. Reconstruction is checked against values
decoded independently (``tests.support.variant_codec.decode_variant``); path reads, casts and
``to_json`` are checked against stock Spark on the unshredded variants, errors included.
"""
from __future__ import annotations

import re
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql.types import VariantVal

import pyspark_ext
from pyspark_ext import settings
from tests.support.conformance.cases import difference
from tests.support.differential import ENABLED, confs
from tests.support.variant_codec import EMPTY_METADATA, Time, Timestamp, decode_variant

DECLARED = "id bigint, var variant"
UUID_7 = uuid.UUID("f24f9b64-81fa-49d1-b74e-8c09a6e31c56")


def _level(typed: pa.Array) -> pa.StructArray:
    """A shredded level whose values all sit in ``typed_value``."""
    return pa.StructArray.from_arrays([pa.nulls(len(typed), pa.binary()), typed],
                                      names=["value", "typed_value"])


def _uuids(values: list[uuid.UUID | None]) -> pa.Array:
    storage = pa.array([u.bytes if u else None for u in values], pa.binary(16))
    return pa.ExtensionArray.from_storage(pa.uuid(), storage)


def _write_shredded(path: Path) -> None:
    # Row 1 shreds every field, row 2 has none of them (an empty object), row 3 is SQL NULL.
    elements = _level(pa.array([1, 2], pa.timestamp("ns")))
    lists = pa.ListArray.from_arrays(pa.array([0, 2, 2, 2]), elements,
                                     mask=pa.array([False, True, True]))
    fields = pa.StructArray.from_arrays(
        [_level(pa.array([5, None, None], pa.timestamp("ns", tz="UTC"))),
         _level(_uuids([UUID_7, None, None])),
         _level(pa.array([45234123456, None, None], pa.time64("us"))),
         pa.StructArray.from_arrays([pa.nulls(3, pa.binary()), lists], names=["value", "typed_value"])],
        names=["t", "u", "k", "a"])
    var = pa.StructArray.from_arrays(
        [pa.array([EMPTY_METADATA] * 3), pa.nulls(3, pa.binary()), fields],
        names=["metadata", "value", "typed_value"], mask=pa.array([False, False, True]))
    pq.write_table(pa.table({"id": [1, 2, 3], "var": var}), path)


EXPECTED = [
    {"t": Timestamp(5, True, "ns"), "u": UUID_7, "k": Time(45234123456),
     "a": [Timestamp(1, False, "ns"), Timestamp(2, False, "ns")]},
    {},
    None,
]


@pytest.fixture(scope="module")
def files(spark, tmp_path_factory) -> tuple[str, str]:
    """(shredded file, the same variants unshredded in Spark's encoding)."""
    base = tmp_path_factory.mktemp("raw_typed")
    shredded = base / "shredded.parquet"
    _write_shredded(shredded)
    rows = spark.read.schema(DECLARED).parquet(str(shredded)).orderBy("id").collect()
    # The truth file holds the reconstructed bytes, so it is only trusted once
    # test_reconstruction has checked them against independently decoded values.
    metadata = [bytes(r.var.metadata) if r.var else None for r in rows]
    value = [bytes(r.var.value) if r.var else None for r in rows]
    var = pa.StructArray.from_arrays([pa.array(metadata, pa.binary()), pa.array(value, pa.binary())],
                                     names=["metadata", "value"],
                                     mask=pa.array([v is None for v in value]))
    unshredded = base / "unshredded.parquet"
    pq.write_table(pa.table({"id": [r.id for r in rows], "var": var}), unshredded)
    return str(shredded), str(unshredded)


def test_reconstruction(spark, files):
    rows = spark.read.schema(DECLARED).parquet(files[0]).orderBy("id").collect()
    actual = [decode_variant(bytes(r.var.metadata), bytes(r.var.value))
              if isinstance(r.var, VariantVal) else r.var for r in rows]
    for want, got in zip(EXPECTED, actual):
        assert difference(want, got) is None, (want, got)


def _outcome(spark, path: str, expr: str, enabled: bool):
    spark.conf.set(ENABLED, str(enabled).lower())
    try:
        df = spark.read.schema(DECLARED).parquet(path).selectExpr("id", f"{expr} AS x")
        return sorted((r.id, repr(r.x)) for r in df.collect())
    except Exception as exc:  # noqa: BLE001 - an error is an outcome to compare
        # Stock Spark evaluates the expression inside its file scan, which wraps the error.
        conditions = [c for c in re.findall(r"\[([A-Z_]+)[.\]]", str(exc)) if c != "FAILED_READ_FILE"]
        return ("error", conditions[0] if conditions else str(exc)[:200])
    finally:
        spark.conf.set(ENABLED, "true")


@pytest.mark.parametrize("expr", [
    "variant_get(var, '$.u', 'string')",
    "try_variant_get(var, '$.u', 'binary')",
    "variant_get(var, '$.t', 'string')",
    "try_variant_get(var, '$.t', 'bigint')",
    "try_variant_get(var, '$.k', 'string')",
    "variant_get(var, '$.a[1]', 'string')",
    "try_variant_get(var, '$.missing', 'int')",
    "to_json(variant_get(var, '$.u', 'variant'))",
    "schema_of_variant(var)",
    "var:u::string",
    "var IS NULL",
])
def test_reads_match_stock_on_unshredded(spark, files, expr):
    shredded, unshredded = files
    ours = _outcome(spark, shredded, expr, enabled=True)
    stock = _outcome(spark, unshredded, expr, enabled=False)
    assert ours == stock


def test_plain_leaves_of_other_files_stay_vectorised(spark, files, tmp_path):
    # Only a scan that reads a raw leaf leaves Spark's vectorised reader.
    plain = tmp_path / "plain.parquet"
    var = pa.StructArray.from_arrays(
        [pa.array([EMPTY_METADATA]), pa.nulls(1, pa.binary()),
         pa.StructArray.from_arrays([_level(pa.array([7], pa.int64()))], names=["n"])],
        names=["metadata", "value", "typed_value"])
    pq.write_table(pa.table({"id": [1], "var": var}), plain)
    df = spark.read.schema(DECLARED).parquet(str(plain)).selectExpr("var")
    assert "ColumnarToRow" in df._jdf.queryExecution().executedPlan().toString()
    raw = spark.read.schema(DECLARED).parquet(files[0]).selectExpr("var")
    assert "ColumnarToRow" not in raw._jdf.queryExecution().executedPlan().toString()
    assert [decode_variant(bytes(r.var.metadata), bytes(r.var.value)) for r in df.collect()] == [{"n": 7}]


def test_truncated_raw_primitive_names_file_and_column(spark, tmp_path):
    # A TIME residual with 4 payload bytes instead of 8.
    path = tmp_path / "bad.parquet"
    var = pa.StructArray.from_arrays(
        [pa.array([EMPTY_METADATA]), pa.array([bytes([17 << 2]) + b"\x01\x02\x03\x04"]),
         pa.nulls(1, pa.string())], names=["metadata", "value", "typed_value"])
    pq.write_table(pa.table({"id": [1], "var": var}), path)
    with pytest.raises(Exception) as err:
        spark.read.schema(DECLARED).parquet(str(path)).collect()
    message = str(err.value)
    assert "bad.parquet" in message and "`var`" in message and "variant time of 4 bytes" in message


def test_wrapped_scans_keep_the_row_reader(spark, files):
    # Row-group metrics wrap the scan's format; the wrapper must not ask the row-based reader
    # for batches.
    with confs(spark, {settings.ROW_GROUP_METRICS: "true",
                       settings.ROW_GROUP_METRICS_ALL_SCANS: "true"}):
        df = spark.read.schema(DECLARED).parquet(files[0]).where("id > 0")
        rows = sorted(df.collect(), key=lambda r: r.id)
        plan = df._jdf.queryExecution().executedPlan().toString()
        scans = pyspark_ext.explain_read_schema(df)
    actual = [decode_variant(bytes(r.var.metadata), bytes(r.var.value)) if r.var else None
              for r in rows]
    for want, got in zip(EXPECTED, actual):
        assert difference(want, got) is None, (want, got)
    assert "RowGroupMetrics" in plan and scans[0]["row_groups_read_metric"] == 1, (plan, scans)


def test_table_mixing_raw_and_plain_files(spark, tmp_path):
    # One file shreds `t` as a nanosecond timestamp, the other as a string: the files are read by
    # separate scans (one row by row), and every row comes back as its own file stored it.
    def write(name: str, typed: pa.Array, ids: list[int]) -> None:
        fields = pa.StructArray.from_arrays([_level(typed)], names=["t"])
        var = pa.StructArray.from_arrays(
            [pa.array([EMPTY_METADATA] * len(ids)), pa.nulls(len(ids), pa.binary()), fields],
            names=["metadata", "value", "typed_value"])
        pq.write_table(pa.table({"id": ids, "var": var}), tmp_path / name)

    write("a.parquet", pa.array([7, 8], pa.timestamp("ns", tz="UTC")), [1, 2])
    write("b.parquet", pa.array(["x", "y"], pa.string()), [3, 4])
    df = spark.read.schema(DECLARED).parquet(str(tmp_path))
    got = {r.id: decode_variant(bytes(r.var.metadata), bytes(r.var.value)) for r in df.collect()}
    assert got == {1: {"t": Timestamp(7, True, "ns")}, 2: {"t": Timestamp(8, True, "ns")},
                   3: {"t": "x"}, 4: {"t": "y"}}
    # Spark's variant cast raises on a nanosecond timestamp (as it does unshredded), so only the
    # string file's rows are cast.
    strings = df.where("id > 2").selectExpr("id", "variant_get(var, '$.t', 'string') AS s").collect()
    assert sorted((r.id, r.s) for r in strings) == [(3, "x"), (4, "y")]
