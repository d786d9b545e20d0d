"""Keys and values are checked against a stage's types, never cast into them.

A pipeline stores each stage's key and value types in its manifest. Input whose type differs is
accepted only when every value of its type has one exact counterpart in the stored type
(``widens``: ``int`` into ``bigint``, ``float`` into ``double``, a ``decimal`` into a wider one,
a null column into anything). Anything else (``double`` into ``int``, ``string`` into ``int``,
``bigint`` into ``int``) is an error, because a cast would change keys (3.7 becomes 3, 'abc'
fails) and an update would then replace the wrong key's values.

``checker`` applies the same rule to the Python values a Produce function emits, one at a time:
pyarrow would otherwise truncate 3.7 into an int column and turn 3 into '3' in a string column.
"""
from __future__ import annotations

import datetime
import decimal
import math
from collections.abc import Callable
from typing import Any

from pyspark.sql.types import (
    ArrayType, BinaryType, BooleanType, ByteType, DataType, DateType, DecimalType, DoubleType,
    FloatType, IntegerType, LongType, MapType, NullType, ShortType, StringType, StructType,
    TimestampNTZType, TimestampType,
)

#: integral types by width: each holds every value of the ones before it
_INTEGRAL = (ByteType, ShortType, IntegerType, LongType)
_BITS = {ByteType: 8, ShortType: 16, IntegerType: 32, LongType: 64}
#: the integral types whose every value a float / double holds exactly
_IN_FLOAT = (ByteType, ShortType)
_IN_DOUBLE = (ByteType, ShortType, IntegerType)
_DIGITS = {ByteType: 3, ShortType: 5, IntegerType: 10, LongType: 19}


def same(a: DataType, b: DataType) -> bool:
    """Equal types, nullability aside (a column read from a file is nullable either way)."""
    if isinstance(a, StructType) and isinstance(b, StructType):
        return len(a.fields) == len(b.fields) and all(
            x.name == y.name and same(x.dataType, y.dataType) for x, y in zip(a.fields, b.fields))
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return same(a.elementType, b.elementType)
    if isinstance(a, MapType) and isinstance(b, MapType):
        return same(a.keyType, b.keyType) and same(a.valueType, b.valueType)
    return a == b


def widens(src: DataType, dst: DataType) -> bool:
    """Every value of ``src`` is exactly a value of ``dst`` (so casting loses nothing)."""
    if same(src, dst) or isinstance(src, NullType):
        return True
    if isinstance(src, StructType) and isinstance(dst, StructType):
        return len(src.fields) == len(dst.fields) and all(
            x.name == y.name and widens(x.dataType, y.dataType)
            for x, y in zip(src.fields, dst.fields))
    if isinstance(src, ArrayType) and isinstance(dst, ArrayType):
        return widens(src.elementType, dst.elementType)
    if isinstance(src, MapType) and isinstance(dst, MapType):
        return same(src.keyType, dst.keyType) and widens(src.valueType, dst.valueType)
    if isinstance(src, _INTEGRAL) and isinstance(dst, _INTEGRAL):
        return _BITS[type(src)] <= _BITS[type(dst)]
    if isinstance(src, _INTEGRAL) and isinstance(dst, DecimalType):
        return dst.precision - dst.scale >= _DIGITS[type(src)]
    if isinstance(src, DecimalType) and isinstance(dst, DecimalType):
        return dst.scale >= src.scale and dst.precision - dst.scale >= src.precision - src.scale
    if isinstance(dst, FloatType):
        return isinstance(src, _IN_FLOAT)
    if isinstance(dst, DoubleType):
        return isinstance(src, _IN_DOUBLE + (FloatType,))
    return False


Check = Callable[[Any], "str | None"]


def checker(dt: DataType) -> Check:
    """A function of a Python value (as Produce emits it) returning why it does not fit ``dt``
    exactly, or None when it does. None values fit (nullability is checked on conversion)."""
    if isinstance(dt, _INTEGRAL):
        bits = _BITS[type(dt)]
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

        def integral(v: Any) -> str | None:
            if isinstance(v, bool) or not isinstance(v, int):
                return _kind(v, dt)
            return None if lo <= v <= hi else f"{v} is out of the range of {dt.simpleString()}"
        return _nullable(integral)
    if isinstance(dt, (FloatType, DoubleType)):
        def floating(v: Any) -> str | None:
            if isinstance(v, float):
                return None
            if isinstance(v, int) and not isinstance(v, bool):
                exact = math.isfinite(float(v)) and int(float(v)) == v
                return None if exact else f"{v} has no exact {dt.simpleString()}"
            return _kind(v, dt)
        return _nullable(floating)
    if isinstance(dt, DecimalType):
        def dec(v: Any) -> str | None:
            if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
                return _kind(v, dt)
            d = decimal.Decimal(v)
            if not d.is_finite():
                return f"{v} is not a finite decimal"
            exponent = d.as_tuple().exponent
            if isinstance(exponent, int) and -exponent > dt.scale and d != round(d, dt.scale):
                return f"{v} has more than {dt.scale} decimal places"
            if abs(d) >= decimal.Decimal(10) ** (dt.precision - dt.scale):
                return f"{v} has too many digits for {dt.simpleString()}"
            return None
        return _nullable(dec)
    simple: dict[type, tuple[type, ...]] = {
        StringType: (str,), BooleanType: (bool,), BinaryType: (bytes, bytearray),
        DateType: (datetime.date,), TimestampType: (datetime.datetime,),
        TimestampNTZType: (datetime.datetime,)}
    if type(dt) in simple:
        allowed = simple[type(dt)]
        # a datetime is a date in Python; a date column takes dates only
        exclude = (datetime.datetime,) if isinstance(dt, DateType) else ()
        return _nullable(lambda v: None if isinstance(v, allowed) and not isinstance(v, exclude)
                         else _kind(v, dt))
    if isinstance(dt, ArrayType):
        elem = checker(dt.elementType)

        def array(v: Any) -> str | None:
            if not isinstance(v, (list, tuple)):
                return _kind(v, dt)
            return next((f"element {i}: {why}" for i, x in enumerate(v)
                         if (why := elem(x)) is not None), None)
        return _nullable(array)
    if isinstance(dt, MapType):
        kc, vc = checker(dt.keyType), checker(dt.valueType)

        def mapping(v: Any) -> str | None:
            if not isinstance(v, dict):
                return _kind(v, dt)
            return next((f"entry {k!r}: {why}" for k, x in v.items()
                         if (why := kc(k) or vc(x)) is not None), None)
        return _nullable(mapping)
    if isinstance(dt, StructType):
        fields = [(f.name, checker(f.dataType)) for f in dt.fields]

        def struct(v: Any) -> str | None:
            if isinstance(v, dict):
                items = [(n, v.get(n)) for n, _ in fields]
            elif isinstance(v, tuple):
                if len(v) != len(fields):
                    return f"{v!r} has {len(v)} fields, {dt.simpleString()} has {len(fields)}"
                items = [(n, x) for (n, _), x in zip(fields, v)]
            else:
                return _kind(v, dt)
            return next((f"field {n}: {why}" for (n, x), (_, c) in zip(items, fields)
                         if (why := c(x)) is not None), None)
        return _nullable(struct)
    return lambda v: None  # variants and the rest: pyarrow's conversion is the check


def _nullable(check: Check) -> Check:
    return lambda v: None if v is None else check(v)


def _kind(v: Any, dt: DataType) -> str:
    return f"{v!r} is a Python {type(v).__name__}, not a {dt.simpleString()}"
