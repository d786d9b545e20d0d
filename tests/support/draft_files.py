"""Hand-written draft-layout Parquet files, exactly as the shredding proposal's examples lay them out.

Written with pyarrow, not with our writer, so the reader is tested against the proposal itself.
``untyped_value`` bytes (metadata then value) come from Spark's own ``parse_json``.
"""
from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import SparkSession


def variant_bytes(spark: SparkSession, texts: list[str]) -> dict[str, bytes]:
    """JSON text -> the draft layout's untyped_value for it."""
    rows = spark.createDataFrame([(t,) for t in texts], "j string") \
        .selectExpr("j", "parse_json(j) v").collect()
    return {r.j: bytes(r.v.metadata) + bytes(r.v.value) for r in rows}


def _level(typed: pa.DataType | None = None, obj: pa.DataType | None = None,
           arr: pa.DataType | None = None) -> pa.StructType:
    fields = [pa.field("untyped_value", pa.binary())]
    if typed is not None:
        fields.append(pa.field("typed_value", typed))
    if obj is not None:
        fields.append(pa.field("object", obj))
    if arr is not None:
        fields.append(pa.field("array", pa.list_(pa.field("element", arr))))
    return pa.struct(fields)


# The proposal's "Parquet Example": a int64, b.c string.
EXAMPLE_TYPE = _level(obj=pa.struct([
    pa.field("a", _level(typed=pa.int64())),
    pa.field("b", _level(obj=pa.struct([pa.field("c", _level(typed=pa.string()))]))),
]))

# The rows of the proposal's table, as (JSON, shredded value) with U(json) marking untyped bytes.
EXAMPLE_ROWS: list[tuple[str, Any]] = [
    ('{"a": 123, "b": {"c": "hello"}}',
     {"object": {"a": {"typed_value": 123}, "b": {"object": {"c": {"typed_value": "hello"}}}}}),
    ('{"a": 1.23, "b": {"c": "123"}}',
     {"object": {"a": {"untyped_value": ("U", "1.23")},
                 "b": {"object": {"c": {"typed_value": "123"}}}}}),
    ('{"a": [1, 2, 3], "b": {"c": null}}',
     {"object": {"a": {"untyped_value": ("U", "[1, 2, 3]")},
                 "b": {"object": {"c": {"untyped_value": ("U", "null")}}}}}),
    ('{"a": 123, "c": 456}',
     {"untyped_value": ("U", '{"c": 456}'), "object": {"a": {"typed_value": 123}, "b": None}}),
    ('{"a": 123, "b": {"c": "hello", "d": 456}}',
     {"object": {"a": {"typed_value": 123},
                 "b": {"untyped_value": ("U", '{"d": 456}'),
                       "object": {"c": {"typed_value": "hello"}}}}}),
    ('[{"a": 1, "b": {"c": 2}}, {"a": 3, "b": {"c": 4}}]',
     {"untyped_value": ("U", '[{"a": 1, "b": {"c": 2}}, {"a": 3, "b": {"c": 4}}]')}),
    ("null-row", None),
]

# The proposal's "Nested Parquet Example": an array of objects with a: array<int64> and b: int64.
NESTED_TYPE = _level(arr=_level(obj=pa.struct([
    pa.field("a", _level(arr=_level(typed=pa.int64()))),
    pa.field("b", _level(typed=pa.int64())),
])))

NESTED_ROWS: list[tuple[str, Any]] = [
    ('[{"a": [1, 2, 3], "b": 100}, {"a": [4, 5, 6], "b": 200}]',
     {"array": [
         {"object": {"a": {"array": [{"typed_value": 1}, {"typed_value": 2}, {"typed_value": 3}]},
                     "b": {"typed_value": 100}}},
         {"object": {"a": {"array": [{"typed_value": 4}, {"typed_value": 5}, {"typed_value": 6}]},
                     "b": {"typed_value": 200}}}]}),
    ('[{"a": [1, 2, 3], "b": 100, "c": "unexpected"}, {"a": [4, 5, 6], "b": 200}, "not an object"]',
     {"array": [
         {"untyped_value": ("U", '{"c": "unexpected"}'),
          "object": {"a": {"array": [{"typed_value": 1}, {"typed_value": 2}, {"typed_value": 3}]},
                     "b": {"typed_value": 100}}},
         {"object": {"a": {"array": [{"typed_value": 4}, {"typed_value": 5}, {"typed_value": 6}]},
                     "b": {"typed_value": 200}}},
         {"untyped_value": ("U", '"not an object"')}]}),
    ('{"a": [1, "two"], "b": 7}', {"untyped_value": ("U", '{"a": [1, "two"], "b": 7}')}),
    ('[{"a": [7, "x", null], "b": "nine"}]',
     {"array": [{"object": {
         "a": {"array": [{"typed_value": 7}, {"untyped_value": ("U", '"x"')},
                         {"untyped_value": ("U", "null")}]},
         "b": {"untyped_value": ("U", '"nine"')}}}]}),
]


def _untyped_texts(value: Any) -> list[str]:
    if isinstance(value, tuple) and value and value[0] == "U":
        return [value[1]]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _untyped_texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _untyped_texts(v)]
    return []


def _resolve(value: Any, encoded: dict[str, bytes]) -> Any:
    if isinstance(value, tuple) and value and value[0] == "U":
        return encoded[value[1]]
    if isinstance(value, dict):
        return {k: _resolve(v, encoded) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, encoded) for v in value]
    return value


def write(spark: SparkSession, path: str, vtype: pa.StructType, rows: list[tuple[str, Any]],
          column: str = "v") -> list[tuple[int, str | None]]:
    """Write ``rows`` as one file at ``path``; return (id, JSON or None) for the ground truth."""
    encoded = variant_bytes(spark, sorted({t for _, v in rows for t in _untyped_texts(v)}))
    table = pa.table({
        "id": pa.array(range(len(rows)), pa.int64()),
        column: pa.array([_resolve(v, encoded) for _, v in rows], vtype),
    })
    pq.write_table(table, path)
    return [(i, None if v is None else j) for i, (j, v) in enumerate(rows)]


def write_raw(path: str, vtype: pa.StructType, values: list[Any]) -> None:
    """Write already-encoded draft values (for malformed-input tests)."""
    pq.write_table(pa.table({"id": pa.array(range(len(values)), pa.int64()),
                             "v": pa.array(values, vtype)}), path)


def truth_rows(pairs: list[tuple[int, str | None]]) -> list[tuple[int, str | None]]:
    return [(i, None if j is None else json.dumps(json.loads(j))) for i, j in pairs]
