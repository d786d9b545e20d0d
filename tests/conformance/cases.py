"""The shredded-variant conformance cases of parquet-testing, loaded in place and decoded.

The directory (never copied into this repo) holds ``cases.json`` and, per case, a Parquet file with
columns ``id`` (int) and ``var`` (a group annotated with Parquet's VARIANT logical type, shredded
or not) plus one ``*.variant.bin`` per expected row: the variant's metadata bytes immediately
followed by its value bytes. ``cases.json`` is a list of objects with ``case_number`` and ``test``
(the Iceberg test that generated the case) and one of:

* a single-row case: ``parquet_file``, ``variant_file``, ``variant`` (a printable form);
* a multi-row case: ``parquet_file``, ``variant_files`` (one per row in ``id`` order, ``null`` for
  a SQL NULL variant), ``variants``;
* an error case: ``parquet_file``, ``error_message`` (the message Iceberg raises; other readers'
  messages differ, so only *that* an error is raised is checked);
* ``*-INVALID.parquet`` single-row cases also carry ``notes``: the file breaks the spec and a reader
  may either fail or return the expected (shredded) value.

One entry (case 3) has only a ``case_number`` and no files; it is not a case.

Expected variants are decoded here by a small decoder of the Variant binary encoding that knows
every primitive type of the spec (PySpark's ``VariantVal.toPython`` does not know TIME, the
nanosecond timestamps or UUID). Decoded values are plain Python values:

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

``difference(expected, actual)`` compares decoded values: integers and decimals by numeric value
(the spec's "exact numeric" class), float and double exactly and as distinct types (``-0.0`` is not
``0.0``), everything else by type and value.
"""
from __future__ import annotations

import datetime
import json
import math
import os
import struct
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable

DEFAULT_DIR = "/work/shared/conformance/parquet-testing-shredded_variant"
#: Where the files are read from (in place); ``SHREDDED_VARIANT_CONFORMANCE_DIR`` overrides it.
CONFORMANCE_DIR = Path(os.environ.get("SHREDDED_VARIANT_CONFORMANCE_DIR", DEFAULT_DIR))
CASES_JSON = CONFORMANCE_DIR / "cases.json"


def available() -> bool:
    return CASES_JSON.is_file()


SKIP_REASON = (
    f"shredded-variant conformance files not found: {CASES_JSON} is missing "
    "(set SHREDDED_VARIANT_CONFORMANCE_DIR to parquet-testing's shredded_variant directory)")


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
# Comparison


def _kind(x: Any) -> str:
    if x is None:
        return "SQL NULL"
    if x is VARIANT_NULL:
        return "null"
    if isinstance(x, bool):
        return "boolean"
    if isinstance(x, (int, Decimal)):
        return "exact numeric"
    if isinstance(x, Float32):
        return "float"
    if isinstance(x, float):
        return "double"
    if isinstance(x, str):
        return "string"
    if isinstance(x, bytes):
        return "binary"
    if isinstance(x, datetime.date):
        return "date"
    if isinstance(x, Timestamp):
        return ("timestamptz" if x.utc else "timestampntz") + ("_nanos" if x.unit == "ns" else "")
    if isinstance(x, Time):
        return "time"
    if isinstance(x, uuid.UUID):
        return "uuid"
    if isinstance(x, dict):
        return "object"
    if isinstance(x, list):
        return "array"
    return type(x).__name__


def _same_float(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return struct.pack("<d", a) == struct.pack("<d", b)


def difference(expected: Any, actual: Any, path: str = "$") -> str | None:
    """None when the decoded values match, else where and how they first differ."""
    ek, ak = _kind(expected), _kind(actual)
    if ek != ak:
        return f"{path}: expected {ek} {expected!r}, got {ak} {actual!r}"
    if ek == "object":
        if set(expected) != set(actual):
            return f"{path}: expected fields {sorted(expected)}, got {sorted(actual)}"
        return _first(difference(expected[k], actual[k], f"{path}.{k}") for k in expected)
    if ek == "array":
        if len(expected) != len(actual):
            return f"{path}: expected {len(expected)} elements, got {len(actual)}: {actual!r}"
        return _first(difference(e, a, f"{path}[{i}]")
                      for i, (e, a) in enumerate(zip(expected, actual)))
    if ek == "exact numeric":
        same = Decimal(expected) == Decimal(actual)
    elif ek in ("float", "double"):
        same = _same_float(expected, actual)
    else:
        same = expected == actual
    return None if same else f"{path}: expected {expected!r}, got {actual!r}"


def rows_difference(expected: tuple[Any, ...], actual: list[Any]) -> str | None:
    if len(expected) != len(actual):
        return f"expected {len(expected)} rows, got {len(actual)}"
    return _first(difference(e, a, f"row {i}") for i, (e, a) in enumerate(zip(expected, actual)))


def _first(differences: Iterable[str | None]) -> str | None:
    """The first difference, evaluating no further (later ones may not even compare)."""
    return next((d for d in differences if d), None)


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass(frozen=True)
class Case:
    number: int
    test: str  # the Iceberg test that generated it
    parquet: Path
    expected: tuple[Any, ...] | None  # decoded value per row (id order); None = SQL NULL row
    error: str | None  # Iceberg's message for error cases
    invalid: bool  # a ``-INVALID`` file: error or the expected value are both acceptable
    notes: str | None = None
    text: str | None = None  # cases.json's printable form of the expected variant(s)
    types: frozenset[str] = field(default_factory=frozenset)  # variant types in the expected rows

    @property
    def name(self) -> str:
        """The Parquet file's stem, e.g. ``case-043-INVALID``."""
        return self.parquet.stem

    @property
    def kind(self) -> str:
        return "error" if self.error is not None else "invalid" if self.invalid else "valid"


def _expected_row(name: str | None) -> tuple[Any, set[str]]:
    if name is None:
        return None, set()
    metadata, value = split_variant_bytes((CONFORMANCE_DIR / name).read_bytes())
    return decode_variant(metadata, value), variant_types(metadata, value)


def load_cases() -> list[Case]:
    """Every entry of cases.json that has a Parquet file, in case-number order ([] if missing)."""
    if not available():
        return []
    out = []
    for entry in json.loads(CASES_JSON.read_text()):
        if "parquet_file" not in entry:
            continue  # case 3: a number without files
        files = entry.get("variant_files")
        if files is None and "variant_file" in entry:
            files = [entry["variant_file"]]
        expected, types = None, set()
        if files is not None:
            decoded = [_expected_row(f) for f in files]
            expected = tuple(v for v, _ in decoded)
            types = set().union(*(t for _, t in decoded))
        out.append(Case(
            number=entry["case_number"],
            test=entry.get("test", ""),
            parquet=CONFORMANCE_DIR / entry["parquet_file"],
            expected=expected,
            error=entry.get("error_message"),
            invalid="-INVALID" in entry["parquet_file"],
            notes=entry.get("notes"),
            text=entry.get("variant") or entry.get("variants"),
            types=frozenset(types),
        ))
    return sorted(out, key=lambda c: c.number)


CASES: list[Case] = load_cases()
