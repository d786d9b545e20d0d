"""An independent writer of *draft-layout shredded Variant* Parquet files (pyarrow only).

The layout is the one of the shredding draft (``untyped_value`` / ``typed_value`` / ``object`` /
``array``): a variant column is an optional group holding

* ``untyped_value`` -- binary: Variant *metadata* bytes immediately followed by Variant *value*
  bytes (the whole value, or for a partially shredded object, an object of the un-shredded fields);
* and one of ``typed_value`` (a primitive column), ``object`` (a group whose fields are shredded
  levels, recursively) or ``array`` (a 3-level LIST whose element is a shredded level).

Nothing here uses Spark or the extension under test: the Variant binary encoder
(``tests.support.variant_codec``) is written from the Parquet/Spark Variant encoding spec, and JSON
is parsed the way Spark's ``parse_json`` parses it (checked against Spark 4.3):

* integers that fit in 64 bits -> the smallest of int8/16/32/64;
* larger integers of at most 38 digits -> decimal (scale 0); longer ones -> double;
* numbers with a fraction and no exponent -> decimal with the written scale (``1.50`` is
  unscaled 150, scale 2) when precision and scale are <= 38, else double;
* numbers with an exponent (``1e10``, ``1.5E3``) -> double;
* strings shorter than 64 bytes -> short strings, else long strings.

Shredding rules (the draft's "Shredding Semantics"):

* ints and decimals are one "number" type: they go to an int64 or decimal ``typed_value`` only
  when the conversion is lossless (int 123 -> decimal(9,2) 123.00 is fine, 1.23 -> int64 is not,
  1.125 -> decimal(9,2) is not). This writer never puts a decimal into an int64 column;
* doubles go only to double columns, strings only to string columns, booleans only to boolean
  columns; nothing is cast (the string "3" is never written to an int64 column);
* anything else is written to the level's ``untyped_value`` (JSON null included: it is a Variant
  null in ``untyped_value``);
* an object whose level has an ``object`` group: every schema field is shredded into its group
  (a field absent from the value is *missing*: both ``typed_value`` and ``untyped_value`` null),
  the other fields go, as an object, into the level's ``untyped_value``;
* an array whose level has an ``array`` group is always fully shredded, element by element;
* a SQL NULL row is a null top-level group.

Two details the draft leaves open are options here, so a battery can use both spellings:

* ``missing="null_fields"`` writes a missing object field as a present group whose leaves are all
  null; ``missing="null_group"`` writes the field's group itself as null. Both mean "both
  typed_value and untyped_value are null".
* ``untyped_first`` puts ``untyped_value`` before or after ``typed_value``/``object``/``array``.
"""
from __future__ import annotations

import datetime
import decimal
import json
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Union

import pyarrow as pa
import pyarrow.parquet as pq

from tests.support.variant_codec import (VARIANT_NULL, Float32, Time, Timestamp, decode_variant, encode,
                                         encode_concat, split_variant_bytes)

# ---------------------------------------------------------------------------------------------
# JSON -> Python values, the way Spark's parse_json types numbers
# ---------------------------------------------------------------------------------------------

_CTX = decimal.Context(prec=200)
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _precision_scale(d: Decimal) -> tuple[int, int]:
    """(precision, scale) as java.math.BigDecimal reports them for the same literal."""
    t = d.as_tuple()
    return len(t.digits), -t.exponent


def _parse_int(text: str) -> Any:
    n = int(text)
    if INT64_MIN <= n <= INT64_MAX:
        return n
    d = Decimal(text)
    if _precision_scale(d)[0] <= 38:
        return d
    return float(text)


def _parse_float(text: str) -> Any:
    if "e" in text or "E" in text:
        return float(text)
    d = Decimal(text)
    precision, scale = _precision_scale(d)
    if precision <= 38 and scale <= 38:
        return d
    return float(text)


def loads(text: str) -> Any:
    """Parse JSON text into Python values typed like Spark's parse_json: int (64-bit), Decimal,
    float (only for exponent notation or out-of-range numbers), str, bool, None, list, dict."""
    return json.loads(text, parse_int=_parse_int, parse_float=_parse_float)


# ---------------------------------------------------------------------------------------------
# Shredding schemas
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Untyped:
    """A level with only ``untyped_value``."""


@dataclass(frozen=True)
class Typed:
    """A level with ``typed_value`` of one of: int64, string, double, boolean, decimal(p,s)."""
    type: str
    untyped: bool = True  # False: no untyped_value column (every value must fit typed_value)


@dataclass(frozen=True, eq=False)
class Obj:
    fields: dict[str, "Shred"]
    untyped: bool = True


@dataclass(frozen=True)
class Arr:
    element: "Shred"
    untyped: bool = True


Shred = Union[Untyped, Typed, Obj, Arr]


@dataclass(frozen=True)
class Options:
    missing: str = "null_fields"          # or "null_group"
    untyped_first: bool = True
    extra_fields: tuple[str, ...] = ()    # extra top-level fields (names must start with "_")


def _decimal_ps(type_name: str) -> tuple[int, int] | None:
    if type_name.startswith("decimal("):
        p, s = type_name[len("decimal("):-1].split(",")
        return int(p), int(s)
    return None


def typed_arrow_type(type_name: str) -> pa.DataType:
    ps = _decimal_ps(type_name)
    if ps:
        return pa.decimal128(*ps)
    return {"int64": pa.int64(), "string": pa.string(), "double": pa.float64(),
            "boolean": pa.bool_()}[type_name]


def arrow_type(schema: Shred, opts: Options, top: bool = False) -> pa.StructType:
    untyped = [pa.field("untyped_value", pa.binary())]
    if isinstance(schema, Untyped):
        shredded: list[pa.Field] = []
    elif isinstance(schema, Typed):
        shredded = [pa.field("typed_value", typed_arrow_type(schema.type))]
    elif isinstance(schema, Obj):
        shredded = [pa.field("object", pa.struct(
            [pa.field(name, arrow_type(child, opts)) for name, child in schema.fields.items()]))]
    elif isinstance(schema, Arr):
        shredded = [pa.field("array", pa.list_(pa.field("element", arrow_type(schema.element, opts))))]
    else:
        raise TypeError(schema)
    if not isinstance(schema, Untyped) and not schema.untyped:
        untyped = []
    fields = untyped + shredded if opts.untyped_first else shredded + untyped
    if top:
        fields = fields + [pa.field(name, pa.string()) for name in opts.extra_fields]
    return pa.struct(fields)


def _fits(value: Any, type_name: str) -> Any:
    """The typed_value for ``value`` in a column of ``type_name``, or a sentinel if it must go to
    untyped_value (lossless numeric widening only; no casts between kinds)."""
    if value is None:
        return _NO
    ps = _decimal_ps(type_name)
    if type_name == "int64":
        if isinstance(value, int) and not isinstance(value, bool) and INT64_MIN <= value <= INT64_MAX:
            return value
        return _NO
    if ps:
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            return _NO
        p, s = ps
        d = Decimal(value)
        q = d.quantize(Decimal(1).scaleb(-s), context=_CTX)
        if q != d or len(q.as_tuple().digits) > p:  # lossy, or too many digits
            return _NO
        return q
    if type_name == "string":
        return value if isinstance(value, str) else _NO
    if type_name == "double":
        return value if isinstance(value, float) else _NO
    if type_name == "boolean":
        return value if isinstance(value, bool) else _NO
    raise ValueError(type_name)


class _NoFit:
    pass


_NO = _NoFit()


def _field_names(schema: Shred) -> list[str]:
    names = ["untyped_value"]
    if isinstance(schema, Typed):
        names.append("typed_value")
    elif isinstance(schema, Obj):
        names.append("object")
    elif isinstance(schema, Arr):
        names.append("array")
    return names


def _missing(schema: Shred, opts: Options) -> dict | None:
    if opts.missing == "null_group":
        return None
    return {name: None for name in _field_names(schema)}


def _need_untyped(schema: Shred, value: Any) -> None:
    if not isinstance(schema, Untyped) and not schema.untyped:
        raise ValueError(f"{value!r} does not fit {schema} and the level has no untyped_value")


def shred(value: Any, schema: Shred, opts: Options = Options()) -> dict:
    """The row dict of one shredded level for a *present* value (None = JSON null)."""
    out: dict[str, Any] = {name: None for name in _field_names(schema)}
    if isinstance(schema, Typed):
        typed = _fits(value, schema.type)
        if typed is not _NO:
            out["typed_value"] = typed
            return out
    elif isinstance(schema, Obj) and isinstance(value, dict):
        obj = {}
        for name, child in schema.fields.items():
            obj[name] = shred(value[name], child, opts) if name in value else _missing(child, opts)
        out["object"] = obj
        residual = {k: v for k, v in value.items() if k not in schema.fields}
        if residual:
            _need_untyped(schema, value)
            out["untyped_value"] = encode_concat(residual)
        return out
    elif isinstance(schema, Arr) and isinstance(value, list):
        out["array"] = [shred(v, schema.element, opts) for v in value]
        return out
    _need_untyped(schema, value)
    out["untyped_value"] = encode_concat(value)
    return out


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------

@dataclass
class DraftFile:
    """One draft-layout file: its shredding schema of ``v`` and writer options."""
    schema: Shred
    opts: Options = field(default_factory=Options)
    row_group_size: int | None = None
    decimals_as_integers: bool = False


def draft_table(rows: list[tuple[int, str | None]], spec: DraftFile) -> pa.Table:
    """Arrow table ``id BIGINT, v <draft group>`` for (id, json text or None for SQL NULL) rows."""
    vtype = arrow_type(spec.schema, spec.opts, top=True)
    ids, vs = [], []
    for rid, text in rows:
        ids.append(rid)
        if text is None:
            vs.append(None)
        else:
            level = shred(loads(text), spec.schema, spec.opts)
            for name in spec.opts.extra_fields:
                level[name] = f"ignored-{rid}"
            vs.append(level)
    return pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array(vs, vtype)})


def write_draft(path: str, rows: list[tuple[int, str | None]], spec: DraftFile) -> pa.Table:
    table = draft_table(rows, spec)
    pq.write_table(table, path, row_group_size=spec.row_group_size, store_schema=False,
                   store_decimal_as_integer=spec.decimals_as_integers, compression="snappy")
    return table


def write_truth(path: str, rows: list[tuple[int, str | None]]) -> None:
    """The ground truth: ``id BIGINT, j STRING`` (the JSON text; None = SQL NULL)."""
    table = pa.table({"id": pa.array([r[0] for r in rows], pa.int64()),
                      "j": pa.array([r[1] for r in rows], pa.string())})
    pq.write_table(table, path, store_schema=False)


def write_standard_variant(path: str, rows: list[tuple[int, str | None]]) -> None:
    """This module's encoding in Spark's own *unshredded* layout (``v: struct<value, metadata>``),
    so stock Spark can read it as VARIANT -- a check of the encoder independent of the draft."""
    vtype = pa.struct([pa.field("value", pa.binary(), nullable=False),
                       pa.field("metadata", pa.binary(), nullable=False)])
    vs = []
    for _, text in rows:
        if text is None:
            vs.append(None)
        else:
            metadata, value = encode(loads(text))
            vs.append({"value": value, "metadata": metadata})
    table = pa.table({"id": pa.array([r[0] for r in rows], pa.int64()), "v": pa.array(vs, vtype)})
    pq.write_table(table, path, store_schema=False)


def parquet_schema(path: str) -> str:
    """The Parquet (not Arrow) schema of a file, as text."""
    return str(pq.ParquetFile(path).schema)


# ---------------------------------------------------------------------------------------------
# Decoding and reconstruction (used to check this writer, and to compare VARIANT results)
# ---------------------------------------------------------------------------------------------

def decode(metadata: bytes, value: bytes) -> Any:
    """Variant bytes -> Python value: int for Variant ints, Decimal for decimals (with their scale),
    float for double/float, str, bool, None, list, dict (dates/timestamps/binary as tagged tuples).
    The bytes are decoded by ``tests.support.variant_codec``; this is the form ``canonical`` takes."""
    return _battery_form(decode_variant(metadata, value))


_EPOCH = datetime.date(1970, 1, 1)


def _battery_form(x: Any) -> Any:
    if x is VARIANT_NULL:
        return None
    if isinstance(x, Float32):
        return float(x)
    if isinstance(x, datetime.date):
        return ("date", (x - _EPOCH).days)
    if isinstance(x, Timestamp) and x.unit == "us":
        return ("timestamp", 12 if x.utc else 13, x.nanos // 1000)
    if isinstance(x, bytes):
        return ("binary", x)
    if isinstance(x, (Timestamp, Time, uuid.UUID)):
        raise ValueError(f"unsupported primitive type: {x!r}")
    if isinstance(x, list):
        return [_battery_form(e) for e in x]
    if isinstance(x, dict):
        return {k: _battery_form(v) for k, v in x.items()}
    return x


def decode_concat(blob: bytes) -> Any:
    return decode(*split_variant_bytes(blob))


def canonical(value: Any) -> Any:
    """A comparable form that ignores what the draft allows to change: the width and scale of
    ints/decimals (one "number" kind), dictionary order. Doubles stay distinct from numbers."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, Decimal)):
        d = Decimal(value).normalize(context=_CTX)
        return ("number", "0" if d == 0 else format(d, "f"))
    if isinstance(value, float):
        return ("double", repr(value))
    if isinstance(value, list):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in sorted(value.items())}
    return value


_MISSING = object()


def reconstruct(level: dict | None, schema: Shred) -> Any:
    """The draft's ConstructVariant on one level (a row dict of this module's Arrow layout).
    Returns ``_MISSING`` for a missing value (both columns null)."""
    if level is None:
        return _MISSING
    untyped = level.get("untyped_value")
    if isinstance(schema, Obj) and level.get("object") is not None:
        out = decode_concat(untyped) if untyped is not None else {}
        assert isinstance(out, dict), "residual must be an object"
        for name, child in schema.fields.items():
            got = reconstruct(level["object"].get(name), child)
            if got is not _MISSING:
                assert name not in out, f"{name} both shredded and in the residual"
                out[name] = got
        return out
    if isinstance(schema, Arr) and level.get("array") is not None:
        assert untyped is None
        elems = [reconstruct(e, schema.element) for e in level["array"]]
        assert all(e is not _MISSING for e in elems), "array elements cannot be missing"
        return elems
    if isinstance(schema, Typed) and level.get("typed_value") is not None:
        assert untyped is None
        return level["typed_value"]
    if untyped is not None:
        return decode_concat(untyped)
    return _MISSING


def reconstruct_row(v: dict | None, schema: Shred) -> Any:
    """A top-level value: ``_MISSING`` here means SQL NULL."""
    return reconstruct(v, schema)


MISSING = _MISSING
