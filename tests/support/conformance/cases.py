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

Expected variants are decoded by ``tests.support.variant_codec`` (the table of Python values is
there).

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

from tests.support.variant_codec import (VARIANT_NULL, Float32, Time, Timestamp, decode_variant, split_variant_bytes,
                                         variant_types)

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
