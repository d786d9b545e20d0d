"""Values in the three forms a pipeline handles, and Spark's ordering in Python.

* *raw*: what ``pyarrow`` gives (``Scalar.as_py()``): structs as dicts, variants as
  ``{"value": bytes, "metadata": bytes}``. Files are read and written in this form.
* *user*: what PySpark gives a UDF (``Row``, ``VariantVal``, local ``datetime``). Produce and
  preserve functions see and return these.
* *json*: a manifest's key bounds (``encode``/``decode``), lossless for every sortable type.

``sort_key`` maps a raw value to a Python object whose ``<`` is Spark's ascending order with nulls
first, so that merges in Python workers agree with the files Spark sorted.
"""
from __future__ import annotations

import base64
import datetime
import decimal
import functools
import inspect
import math
from collections.abc import Callable
from typing import Any

import pyarrow as pa
from pyspark.sql.conversion import ArrowTableToRowsConversion, LocalDataToArrowConversion
from pyspark.sql.pandas.types import to_arrow_schema, to_arrow_type
from pyspark.sql.types import (
    ArrayType, BinaryType, DataType, DoubleType, FloatType, MapType, StringType, StructField,
    StructType, VariantType, _parse_datatype_json_string,
)

SortKey = Callable[[Any], Any]


def parse_type(spec: DataType | str) -> DataType:
    """A DataType from a DataType, a DDL string (``"struct<a:int>"``, ``"bigint"``) or its JSON."""
    if isinstance(spec, DataType):
        return spec
    if spec.lstrip().startswith("{"):
        return _parse_datatype_json_string(spec)
    from pyspark.sql import SparkSession
    spark = SparkSession.getActiveSession()
    if spark is None:
        raise ValueError(f"parsing the type {spec!r} needs an active Spark session")
    return spark.createDataFrame([], f"x {spec}").schema["x"].dataType


def check_sortable(dt: DataType, what: str) -> None:
    """Keys must have an order Spark can sort by: no maps, no variants anywhere inside."""
    if isinstance(dt, (MapType, VariantType)):
        from .errors import ProducerError
        raise ProducerError(f"{what}: {dt.simpleString()} cannot be a key (Spark cannot sort "
                            "by it)")
    if isinstance(dt, StructType):
        for f in dt.fields:
            check_sortable(f.dataType, what)
    if isinstance(dt, ArrayType):
        check_sortable(dt.elementType, what)


def sort_key(dt: DataType) -> SortKey:
    """Raw value -> comparable object in Spark's order (nulls first; NaN above every number)."""
    if isinstance(dt, StructType):
        subs = [(f.name, sort_key(f.dataType)) for f in dt.fields]

        def struct_key(v: Any) -> Any:
            if v is None:
                return (0,)
            if isinstance(v, dict):
                return (1, tuple(k(v.get(n)) for n, k in subs))
            return (1, tuple(k(x) for (_, k), x in zip(subs, v)))
        return struct_key
    if isinstance(dt, ArrayType):
        elem = sort_key(dt.elementType)
        return lambda v: (0,) if v is None else (1, tuple(elem(x) for x in v))
    if isinstance(dt, (FloatType, DoubleType)):
        return lambda v: (0,) if v is None else (1, (1,) if math.isnan(v) else (0, v))
    return lambda v: (0,) if v is None else (1, v)


@functools.cache
def _utc() -> dict[str, Any]:
    """How this pyspark asks for timestamps in UTC: Spark 4.2 and later name a time zone
    (``timezone="UTC"``), 4.0 and 4.1 have a flag (``timestamp_utc=True``); both give
    ``timestamp[us, tz=UTC]``. Files and Python workers must agree on it, whatever the line."""
    if "timezone" in inspect.signature(to_arrow_type).parameters:
        return {"timezone": "UTC"}
    return {"timestamp_utc": True}


@functools.cache
def _variants_as_dicts() -> dict[str, Any]:
    """Spark 4.0 turns a ``VariantVal`` into the dict Arrow takes only when asked
    (``variants_as_dicts=True``); later lines always do and have no such keyword."""
    params = inspect.signature(LocalDataToArrowConversion._create_converter).parameters
    return {"variants_as_dicts": True} if "variants_as_dicts" in params else {}


def arrow_schema(schema: StructType, large: bool = False) -> pa.Schema:
    return to_arrow_schema(schema, prefers_large_types=large, **_utc())


def arrow_type(dt: DataType, large: bool = False) -> pa.DataType:
    return to_arrow_type(dt, prefers_large_types=large, **_utc())


def to_user(dt: DataType) -> Callable[[Any], Any]:
    """Raw -> user value (Row, VariantVal, local datetime), as PySpark converts for UDFs."""
    return ArrowTableToRowsConversion._create_converter(dt)


def from_user(dt: DataType) -> Callable[[Any], Any]:
    """User value -> what ``pa.array(..., type=arrow_type(dt))`` accepts."""
    return LocalDataToArrowConversion._create_converter(dt, True, **_variants_as_dicts())


def user_to_raw(dt: DataType) -> Callable[[Any], Any]:
    conv, at = from_user(dt), arrow_type(dt)
    return lambda v: pa.array([conv(v)], type=at).to_pylist()[0]


# -- manifest key bounds ------------------------------------------------------------------------

def encode(v: Any) -> Any:
    """Raw value -> JSON-safe value (tagged where JSON has no type of its own)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"$f": repr(v)}
    if isinstance(v, decimal.Decimal):
        return {"$d": str(v)}
    if isinstance(v, datetime.datetime):
        return {"$ts": v.isoformat()}
    if isinstance(v, datetime.date):
        return {"$date": v.isoformat()}
    if isinstance(v, (bytes, bytearray)):
        return {"$b": base64.b64encode(bytes(v)).decode()}
    if isinstance(v, dict):
        return {"$s": [[k, encode(x)] for k, x in v.items()]}
    if isinstance(v, (list, tuple)):
        return {"$l": [encode(x) for x in v]}
    raise TypeError(f"cannot record key bound {v!r} in a manifest")


def decode(v: Any) -> Any:
    if not isinstance(v, dict):
        return v
    (tag, x), = v.items()
    return {
        "$f": lambda: float(x), "$d": lambda: decimal.Decimal(x),
        "$ts": lambda: datetime.datetime.fromisoformat(x),
        "$date": lambda: datetime.date.fromisoformat(x),
        "$b": lambda: base64.b64decode(x),
        "$s": lambda: {k: decode(y) for k, y in x},
        "$l": lambda: [decode(y) for y in x],
    }[tag]()


# -- the stored schemas -------------------------------------------------------------------------

def content_schema(kt: DataType, ks: DataType, v: DataType) -> StructType:
    return StructType([StructField("key", kt, False), StructField("source_key", ks, False),
                       StructField("value", v, True)])


def mappings_schema(ks: DataType, kt: DataType) -> StructType:
    return StructType([StructField("source_key", ks, False), StructField("key", kt, False)])


def update_schema(kt: DataType, v: DataType) -> StructType:
    return StructType([StructField("type", StringType(), False), StructField("key", kt, False),
                       StructField("value", v, True)])


def binary_type() -> DataType:
    return BinaryType()
