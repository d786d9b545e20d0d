"""The test side's Variant binary codec (Parquet's VariantEncoding.md), written independently of
Spark's and of the extension's, so tests can check both against it.

Decoding knows every primitive type of the spec (PySpark's ``VariantVal.toPython`` does not know
TIME, the nanosecond timestamps or UUID); encoding writes what JSON holds (ints, decimals,
doubles, strings, booleans, nulls, arrays, objects) with a sorted dictionary and the narrowest
widths. A ``metadata + value`` concatenation (a ``.variant.bin`` file, the draft layout's
``untyped_value``) is split with ``split_variant_bytes``.

``decode_variant`` returns plain Python values:

========================  =============================================
variant type              Python value
========================  =============================================
null                      ``VARIANT_NULL`` (a variant null; ``None`` is a SQL NULL)
boolean                   ``bool``
int8/16/32/64             ``int``
decimal4/8/16             ``decimal.Decimal`` (exact, with its scale)
float                     ``Float32`` (a ``float`` subclass)
double                    ``float``
date                      ``datetime.date``
timestamp[_ntz][_nanos]   ``Timestamp(nanos, utc, unit)``
time                      ``Time(micros)``
binary                    ``bytes``
string                    ``str``
uuid                      ``uuid.UUID``
object / array            ``dict`` / ``list``
========================  =============================================
"""
from __future__ import annotations

import datetime
import decimal
import struct
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Iterable

#: The metadata of a value without object keys: version 1, an empty dictionary.
EMPTY_METADATA = b"\x01\x00\x00"
_CTX = decimal.Context(prec=200)

# ---------------------------------------------------------------------------------------------
# Decoded value types


class _VariantNull:
    """The variant null value (distinct from a SQL NULL, which is ``None``)."""

    _instance: _VariantNull | None = None

    def __new__(cls) -> _VariantNull:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "VARIANT_NULL"


VARIANT_NULL = _VariantNull()


class Float32(float):
    """A variant FLOAT (single precision), kept apart from DOUBLE."""

    def __repr__(self) -> str:
        return f"Float32({float(self)!r})"


@dataclass(frozen=True)
class Timestamp:
    nanos: int  # since the epoch (UTC for ``utc``, wall clock otherwise)
    utc: bool  # TIMESTAMP (with time zone) vs TIMESTAMP_NTZ
    unit: str  # "us" or "ns": the variant type's precision

    def __repr__(self) -> str:
        secs, ns = divmod(self.nanos, 1_000_000_000)
        base = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=secs)
        frac = f"{ns:09d}" if self.unit == "ns" else f"{ns // 1000:06d}"
        kind = ("timestamptz" if self.utc else "timestampntz") + ("_nanos" if self.unit == "ns" else "")
        return f"{kind}({base.isoformat()}.{frac}{'+00:00' if self.utc else ''})"


@dataclass(frozen=True)
class Time:
    micros: int  # since midnight

    def __repr__(self) -> str:
        s, us = divmod(self.micros, 1_000_000)
        return f"time({s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{us:06d})"


# ---------------------------------------------------------------------------------------------
# Variant binary decoding (Parquet VariantEncoding.md)

PRIMITIVE_NAMES = {
    0: "NULL", 1: "BOOLEAN_TRUE", 2: "BOOLEAN_FALSE", 3: "INT8", 4: "INT16", 5: "INT32",
    6: "INT64", 7: "DOUBLE", 8: "DECIMAL4", 9: "DECIMAL8", 10: "DECIMAL16", 11: "DATE",
    12: "TIMESTAMPTZ", 13: "TIMESTAMPNTZ", 14: "FLOAT", 15: "BINARY", 16: "STRING", 17: "TIME",
    18: "TIMESTAMPTZ_NANOS", 19: "TIMESTAMPNTZ_NANOS", 20: "UUID",
}


class VariantDecodeError(ValueError):
    pass


def _le(data: bytes, pos: int, size: int, signed: bool = False) -> int:
    if pos < 0 or pos + size > len(data):
        raise VariantDecodeError(f"read of {size} bytes at {pos} past the end ({len(data)} bytes)")
    return int.from_bytes(data[pos:pos + size], "little", signed=signed)


def metadata_keys(metadata: bytes) -> tuple[list[str], int]:
    """(dictionary, length in bytes) of a variant metadata buffer."""
    if not metadata:
        raise VariantDecodeError("empty metadata")
    header = metadata[0]
    if header & 0x0F != 1:
        raise VariantDecodeError(f"unsupported metadata version {header & 0x0F}")
    offset_size = ((header >> 6) & 0x3) + 1
    size = _le(metadata, 1, offset_size)
    offsets = [_le(metadata, 1 + offset_size * (i + 1), offset_size) for i in range(size + 1)]
    start = 1 + offset_size * (size + 2)
    keys = [metadata[start + offsets[i]:start + offsets[i + 1]].decode("utf-8") for i in range(size)]
    return keys, start + offsets[-1]


def split_variant_bytes(data: bytes) -> tuple[bytes, bytes]:
    """A ``.variant.bin`` file's (metadata, value): metadata first, then the value."""
    _, length = metadata_keys(data)
    return data[:length], data[length:]


def decode_variant(metadata: bytes, value: bytes) -> Any:
    keys, _ = metadata_keys(metadata)
    return _decode(value, 0, keys)


def _decode(v: bytes, pos: int, keys: list[str]) -> Any:
    header = _le(v, pos, 1)
    basic, vh = header & 0x3, header >> 2
    if basic == 1:  # short string
        return v[pos + 1:pos + 1 + vh].decode("utf-8")
    if basic == 2:  # object
        large, id_size, off_size = (vh >> 4) & 1, ((vh >> 2) & 0x3) + 1, (vh & 0x3) + 1
        n_size = 4 if large else 1
        n = _le(v, pos + 1, n_size)
        ids_at = pos + 1 + n_size
        offs_at = ids_at + n * id_size
        data_at = offs_at + (n + 1) * off_size
        out: dict[str, Any] = {}
        for i in range(n):
            key_id = _le(v, ids_at + i * id_size, id_size)
            if key_id >= len(keys):
                raise VariantDecodeError(f"field id {key_id} not in the metadata dictionary")
            out[keys[key_id]] = _decode(v, data_at + _le(v, offs_at + i * off_size, off_size), keys)
        return out
    if basic == 3:  # array
        large, off_size = (vh >> 2) & 1, (vh & 0x3) + 1
        n_size = 4 if large else 1
        n = _le(v, pos + 1, n_size)
        offs_at = pos + 1 + n_size
        data_at = offs_at + (n + 1) * off_size
        return [_decode(v, data_at + _le(v, offs_at + i * off_size, off_size), keys) for i in range(n)]
    return _primitive(v, pos + 1, vh)


def _decimal(unscaled: int, scale: int) -> Decimal:
    d = Decimal(unscaled).as_tuple()
    return Decimal((d.sign, d.digits, -scale))


def _primitive(v: bytes, p: int, t: int) -> Any:
    if t == 0:
        return VARIANT_NULL
    if t in (1, 2):
        return t == 1
    if t in (3, 4, 5, 6):
        return _le(v, p, {3: 1, 4: 2, 5: 4, 6: 8}[t], signed=True)
    if t == 7:
        return struct.unpack_from("<d", v, p)[0]
    if t in (8, 9, 10):
        return _decimal(_le(v, p + 1, {8: 4, 9: 8, 10: 16}[t], signed=True), _le(v, p, 1))
    if t == 11:
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=_le(v, p, 4, signed=True))
    if t in (12, 13):
        return Timestamp(_le(v, p, 8, signed=True) * 1000, t == 12, "us")
    if t == 14:
        return Float32(struct.unpack_from("<f", v, p)[0])
    if t in (15, 16):
        raw = v[p + 4:p + 4 + _le(v, p, 4)]
        return bytes(raw) if t == 15 else raw.decode("utf-8")
    if t == 17:
        return Time(_le(v, p, 8, signed=True))
    if t in (18, 19):
        return Timestamp(_le(v, p, 8, signed=True), t == 18, "ns")
    if t == 20:
        if p + 16 > len(v):
            raise VariantDecodeError("truncated UUID")
        return uuid.UUID(bytes=bytes(v[p:p + 16]))
    raise VariantDecodeError(f"unknown primitive type id {t}")


def variant_types(metadata: bytes, value: bytes) -> set[str]:
    """Names of the variant types that occur in a value (``OBJECT``, ``ARRAY``, primitives)."""
    keys, _ = metadata_keys(metadata)
    found: set[str] = set()

    def walk(pos: int) -> None:
        header = value[pos]
        basic, vh = header & 0x3, header >> 2
        if basic == 1:
            found.add("STRING")
        elif basic == 0:
            found.add(PRIMITIVE_NAMES.get(vh, f"TYPE_{vh}"))
        else:
            found.add("OBJECT" if basic == 2 else "ARRAY")
            large = (vh >> 4) & 1 if basic == 2 else (vh >> 2) & 1
            id_size = ((vh >> 2) & 0x3) + 1 if basic == 2 else 0
            off_size = (vh & 0x3) + 1
            n_size = 4 if large else 1
            n = _le(value, pos + 1, n_size)
            offs_at = pos + 1 + n_size + n * id_size
            data_at = offs_at + (n + 1) * off_size
            for i in range(n):
                walk(data_at + _le(value, offs_at + i * off_size, off_size))

    walk(0)
    return found


# ---------------------------------------------------------------------------------------------
# Variant binary encoding
# ---------------------------------------------------------------------------------------------

# basic types
_PRIMITIVE, _SHORT_STR, _OBJECT, _ARRAY = 0, 1, 2, 3
# primitive type ids
_NULL, _TRUE, _FALSE, _INT8, _INT16, _INT32, _INT64, _DOUBLE = 0, 1, 2, 3, 4, 5, 6, 7
_DEC4, _DEC8, _DEC16, _STRING = 8, 9, 10, 16


def _size_for(n: int) -> int:
    """Bytes needed for an unsigned little-endian integer n (1..4)."""
    for width in (1, 2, 3, 4):
        if n < (1 << (8 * width)):
            return width
    raise ValueError(f"{n} does not fit in 4 bytes")


def _uint(n: int, width: int) -> bytes:
    return n.to_bytes(width, "little", signed=False)


def _collect_keys(value: Any, keys: set[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            keys.add(k)
            _collect_keys(v, keys)
    elif isinstance(value, list):
        for v in value:
            _collect_keys(v, keys)


def encode_metadata(keys: Iterable[str]) -> tuple[bytes, dict[str, int]]:
    """Metadata with a sorted, unique dictionary; returns (bytes, key -> id)."""
    ordered = sorted(set(keys))
    blobs = [k.encode("utf-8") for k in ordered]
    offsets = [0]
    for b in blobs:
        offsets.append(offsets[-1] + len(b))
    width = _size_for(max(offsets[-1], len(ordered)))
    header = 0x01 | (1 << 4) | ((width - 1) << 6)  # version 1, sorted_strings
    out = bytearray([header])
    out += _uint(len(ordered), width)
    for off in offsets:
        out += _uint(off, width)
    for b in blobs:
        out += b
    return bytes(out), {k: i for i, k in enumerate(ordered)}


def _encode_decimal(d: Decimal) -> bytes:
    sign, digits, exponent = d.as_tuple()
    if exponent > 0:  # not produced by the parser; normalise to scale 0
        d = d.quantize(Decimal(1), context=_CTX)
        sign, digits, exponent = d.as_tuple()
    scale = -exponent
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    precision = len(digits)
    if precision <= 9 and scale <= 9:
        return bytes([(_DEC4 << 2) | _PRIMITIVE, scale]) + unscaled.to_bytes(4, "little", signed=True)
    if precision <= 18 and scale <= 18:
        return bytes([(_DEC8 << 2) | _PRIMITIVE, scale]) + unscaled.to_bytes(8, "little", signed=True)
    if precision <= 38 and scale <= 38:
        return bytes([(_DEC16 << 2) | _PRIMITIVE, scale]) + unscaled.to_bytes(16, "little", signed=True)
    raise ValueError(f"decimal {d} does not fit in decimal(38)")


def _encode_value(value: Any, ids: dict[str, int]) -> bytes:
    if value is None:
        return bytes([(_NULL << 2) | _PRIMITIVE])
    if value is True:
        return bytes([(_TRUE << 2) | _PRIMITIVE])
    if value is False:
        return bytes([(_FALSE << 2) | _PRIMITIVE])
    if isinstance(value, int):
        for tid, width in ((_INT8, 1), (_INT16, 2), (_INT32, 4), (_INT64, 8)):
            lo, hi = -(1 << (8 * width - 1)), (1 << (8 * width - 1)) - 1
            if lo <= value <= hi:
                return bytes([(tid << 2) | _PRIMITIVE]) + value.to_bytes(width, "little", signed=True)
        return _encode_decimal(Decimal(value))
    if isinstance(value, Decimal):
        return _encode_decimal(value)
    if isinstance(value, float):
        return bytes([(_DOUBLE << 2) | _PRIMITIVE]) + struct.pack("<d", value)
    if isinstance(value, str):
        raw = value.encode("utf-8")
        if len(raw) < 64:
            return bytes([(len(raw) << 2) | _SHORT_STR]) + raw
        return bytes([(_STRING << 2) | _PRIMITIVE]) + _uint(len(raw), 4) + raw
    if isinstance(value, list):
        parts = [_encode_value(v, ids) for v in value]
        offsets = [0]
        for p in parts:
            offsets.append(offsets[-1] + len(p))
        off_w = _size_for(offsets[-1])
        large = len(parts) > 255
        header = ((int(large) << 2) | (off_w - 1)) << 2 | _ARRAY
        out = bytearray([header])
        out += _uint(len(parts), 4 if large else 1)
        for off in offsets:
            out += _uint(off, off_w)
        for p in parts:
            out += p
        return bytes(out)
    if isinstance(value, dict):
        keys = sorted(value)  # field ids/offsets in lexicographic key order
        parts = [_encode_value(value[k], ids) for k in keys]
        offsets = [0]
        for p in parts:
            offsets.append(offsets[-1] + len(p))
        off_w = _size_for(offsets[-1])
        id_w = _size_for(max([ids[k] for k in keys], default=0))
        large = len(keys) > 255
        header = ((int(large) << 4) | ((id_w - 1) << 2) | (off_w - 1)) << 2 | _OBJECT
        out = bytearray([header])
        out += _uint(len(keys), 4 if large else 1)
        for k in keys:
            out += _uint(ids[k], id_w)
        for off in offsets:
            out += _uint(off, off_w)
        for p in parts:
            out += p
        return bytes(out)
    raise TypeError(f"cannot encode {type(value).__name__}: {value!r}")


def encode_value(value: Any, keys: Iterable[str]) -> bytes:
    """A value's bytes whose field ids refer to the metadata ``encode_metadata(keys)`` builds; the
    keys may include more than the value uses (as a shredded variant's residual does)."""
    return _encode_value(value, encode_metadata(keys)[1])


def encode(value: Any) -> tuple[bytes, bytes]:
    """(metadata, value) Variant bytes of a Python JSON-like value (see ``loads``)."""
    keys: set[str] = set()
    _collect_keys(value, keys)
    metadata, ids = encode_metadata(keys)
    return metadata, _encode_value(value, ids)


def encode_concat(value: Any) -> bytes:
    """``untyped_value`` bytes: metadata immediately followed by value."""
    metadata, val = encode(value)
    return metadata + val
