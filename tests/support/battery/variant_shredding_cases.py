"""Spark's ``VariantShreddingSuite`` restated as data: the shredded files it writes by hand
(``metadata`` / ``value`` / ``typed_value`` structs, read back as a ``variant`` column) and the
expressions it evaluates over them. ``tests/variant_read/test_variant_shredding_suite.py`` evaluates each with
the extension off and on.

The variant binaries are built with the project's own codec (``tests/support/variant_codec.py``),
whose dictionaries are sorted; the suite's field names are sorted already, so field ids agree. The
suite's shredding schemas mark shredded fields NOT NULL; here every field is nullable, which only
changes the Parquet repetition of those fields, not their values.
"""
from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tests.support.variant_codec import encode_metadata, encode_value


def metadata(*keys: str) -> bytes:
    return encode_metadata(keys)[0]


def value(text: str, keys: tuple[str, ...] | None = None) -> bytes:
    """A JSON text's variant value; its field ids refer to ``metadata(*keys)`` (by default, the
    text's own keys). Numbers with a fraction are decimals, as Spark's JSON parser makes them."""
    parsed = json.loads(text, parse_float=Decimal)
    return encode_value(parsed, keys if keys is not None else _keys(parsed))


def _keys(v: Any) -> tuple[str, ...]:
    if isinstance(v, dict):
        return tuple(sorted(set(v) | {k for x in v.values() for k in _keys(x)}))
    if isinstance(v, list):
        return tuple(sorted({k for x in v for k in _keys(x)}))
    return ()


def shredded(*, typed: str) -> str:
    """The physical schema of a column ``v`` shredded as ``typed`` (a shredding ``typed_value``)."""
    return f"v struct<metadata binary, value binary, typed_value {typed}>"


def field_of(t: str) -> str:
    return f"struct<value binary, typed_value {t}>"


@dataclass(frozen=True)
class Table:
    """One file the suite writes: its physical schema and rows (each the value of ``v``)."""
    schema: str
    rows: tuple[Any, ...]


@dataclass(frozen=True)
class Case:
    suite_test: str
    table: str
    expr: str
    confs: dict[str, str] = field(default_factory=dict)


TABLES: dict[str, Table] = {}
CASES: dict[str, Case] = {}


def table(name: str, schema: str, *rows: Any) -> None:
    TABLES[name] = Table(schema, rows)


def exprs(prefix: str, suite_test: str, table_name: str, *expressions: str,
          confs: dict[str, str] | None = None) -> None:
    for i, e in enumerate(expressions, 1):
        name = f"{prefix}_{i}"
        if name in CASES:
            raise ValueError(f"duplicate case {name}")
        CASES[name] = Case(suite_test, table_name, e, dict(confs or {}))


TIME_ZONE = "spark.sql.session.timeZone"
ZONES = ("Etc/UTC", "America/Los_Angeles")

# ----------------------------------------------------------------------- scalar types rebuild
SCALARS = ["boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "timestamp",
           "timestamp_ntz", "date", "string", "binary", "decimal(9,3)", "decimal(18,6)",
           "decimal(22,9)"]
SCALAR_VALUES = [True, 1, 2, 3, 4, 5.5, 6.6,
                 datetime.datetime(1970, 1, 1, 0, 0, 0, 7000, tzinfo=datetime.timezone.utc),
                 datetime.datetime(1, 1, 1, 0, 0, 8), datetime.date(1970, 1, 1), "str10", b"\x0b",
                 Decimal("12.12"), Decimal("13.13"), Decimal("14.14")]
table("scalars", shredded(typed="struct<" + ", ".join(
    f"`{i}`: {field_of(t)}" for i, t in enumerate(SCALARS)) + ">"),
    (metadata(*map(str, range(len(SCALARS)))), None,
     tuple((None, x) for x in SCALAR_VALUES)))
for zone in ZONES:
    exprs(f"scalar_types_{zone.split('/')[-1].lower()}", "scalar types rebuild", "scalars",
          "to_json(v)", "variant_get(v, '$.0', 'int')", "variant_get(v, '$.2', 'boolean')",
          "variant_get(v, '$.6', 'float')", "variant_get(v, '$.11', 'string')",
          "variant_get(v, '$.14', 'decimal(9, 1)')", confs={TIME_ZONE: zone})

# ------------------------------------------------------------------------------ object rebuild
ABCD = ("a", "b", "c", "d")
table("object", shredded(typed=f"struct<b: {field_of('int')}, d: {field_of('int')}>"),
      (metadata("b", "d"), None, ((None, 1), (None, None))),
      (metadata("b", "d"), None, ((None, 1), (value("null"), None))),
      (metadata(*ABCD), value('{"a": 1, "c": 3}', ABCD), ((None, 2), (value("4"), None))),
      (metadata(), value("null"), None),
      None)
exprs("object_rebuild", "object rebuild", "object", "to_json(v)",
      "variant_get(v, '$.b', 'string')", "variant_get(v, '$.d', 'string')")

# ------------------------------------------------------------------------------- array rebuild
table("array", shredded(typed=f"array<{field_of('int')}>"),
      (metadata(), None, [(None, 1), (None, 2), (value("3"), None)]),
      (metadata("a", "b"), None, [(value('{"a": 1}', ("a", "b")), None),
                                  (value('{"b": 2}', ("a", "b")), None)]),
      (metadata("a", "b"), value('{"a": 1, "b": 2}'), None))
exprs("array_rebuild", "array rebuild", "array", "to_json(v)", "variant_get(v, '$[2]', 'int')",
      "variant_get(v, '$[1].b', 'int')", "variant_get(v, '$.a', 'long')")

# ----------------------------------------------------------------------------- malformed input
table("missing_top_level", shredded(typed="int"), (metadata(), None, None))
exprs("malformed_top_level", "malformed input", "missing_top_level", "v")
table("missing_element", shredded(typed=f"array<{field_of('int')}>"),
      (metadata(), None, [(None, None)]))
exprs("malformed_element", "malformed input", "missing_element", "v", "variant_get(v, '$[0]')")
table("null_shredded_field", shredded(typed="struct<a: struct<value binary, typed_value binary>>"),
      (metadata("a"), None, (None,)))
exprs("malformed_null_field", "malformed input", "null_shredded_field", "v",
      "variant_get(v, '$.a')")
table("shredded_field_in_value", shredded(typed=f"struct<a: {field_of('int')}>"),
      (metadata("a"), value('{"a": 1}'), ((None, None),)))
exprs("malformed_field_in_value", "malformed input", "shredded_field_in_value", "v",
      "cast(v as map<string, int>)", "cast(v as struct<a int>)", "variant_get(v, '$.a', 'int')")
table("both_set_typed_bad", shredded(typed="string"), (metadata(), value("1"), "invalid"))
exprs("malformed_typed_bad", "malformed input", "both_set_typed_bad", "cast(v as int)",
      "try_cast(v as int)")
table("both_set_value_bad", shredded(typed="string"), (metadata(), value('"invalid"'), "1"))
exprs("malformed_value_bad", "malformed input", "both_set_value_bad", "cast(v as int)",
      "try_cast(v as int)")

# ------------------------------------------------------------------ extract from shredded object
KEYS1 = ("a", "b", "c", "d")
KEYS2 = ("a", "b", "c", "e", "f")
table("shredded_object", shredded(typed=f"struct<a: {field_of('int')}, b: struct<value binary>, "
                                        "c: struct<typed_value decimal(20, 10)>>"),
      (metadata(*KEYS1), value('{"d": 4.4}', KEYS1),
       ((None, 1), (value('"2"'),), (Decimal("3.3"),))),
      (metadata(*KEYS2), value('{"e": {"f": [true]}}', KEYS2),
       ((value("5.4"), None), (value("-6"),), (None,))),
      (metadata("a"), value('[{"a": 1}]'), None))
exprs("shredded_object", "extract from shredded object", "shredded_object",
      "variant_get(v, '$.a', 'int')", "variant_get(v, '$.b', 'long')",
      "variant_get(v, '$.c', 'double')", "variant_get(v, '$.d', 'decimal(9, 4)')",
      "variant_get(v, '$.e.f[0]', 'boolean')", "variant_get(v, '$[0].a', 'boolean')",
      "try_cast(v as struct<a float, e variant>)", "variant_get(v, '$.b', 'boolean')",
      "variant_get(v, '$.c', 'date')", "variant_get(v, '$.c', 'decimal(1, 1)')",
      "try_variant_get(v, '$.b', 'boolean')", "variant_get(v, '$.a', 'struct<a int>')",
      "try_variant_get(v, '$.a', 'struct<a int>')", "try_cast(v as map<string, double>)",
      "try_cast(v as array<string>)", "cast(v as string)", "v")

# ------------------------------------------------------------------- extract from shredded array
AB = ("a", "b")
table("shredded_array", shredded(typed=f"array<struct<value binary, typed_value "
                                       f"struct<a: {field_of('string')}>>>"),
      (metadata(*AB), None, [(None, ((None, "2000-01-01"),)),
                             (value('{"b": [7]}', AB), ((None, "1000-01-01"),))]),
      (metadata(*AB), None, [(value("null"), None), (None, ((value("null"), None),)),
                             (None, ((None, "null"),)), (None, ((None, None),))]))
exprs("shredded_array", "extract from shredded array", "shredded_array",
      "variant_get(v, '$[0].a', 'date')", "try_variant_get(v, '$[1].a', 'date')",
      "variant_get(v, '$[2].a', 'string')", "try_variant_get(v, '$[1].a', 'int')",
      "variant_get(v, '$[0].b[0]', 'int')", "variant_get(v, '$[1].b[0]', 'int')",
      "variant_get(v, '$[0]', 'int')", "variant_get(v, '$[4]', 'int')",
      "cast(v as array<struct<a string, b array<int>>>)", "cast(v as array<map<string, string>>)",
      "try_cast(v as array<map<string, date>>)", "cast(v as string)", "v")
for zone in ZONES:
    exprs(f"shredded_array_times_{zone.split('/')[-1].lower()}", "extract from shredded array",
          "shredded_array", "variant_get(v, '$[1].a', 'timestamp')",
          "variant_get(v, '$[1].a', 'timestamp_ntz')", confs={TIME_ZONE: zone})

# ------------------------------------------------------------------------------ missing fields
table("missing_fields", "v struct<metadata binary, typed_value struct<"
                        f"a: {field_of('int')}, b: struct<typed_value int>>>",
      (metadata(), ((None, None), (None,))),
      (metadata(), ((value("null"), None), (None,))),
      (metadata(), ((None, 1), (None,))),
      (metadata(), ((None, None), (2,))),
      (metadata(), ((value("null"), None), (2,))),
      (metadata(), ((None, 3), (4,))))
exprs("missing_fields", "missing fields", "missing_fields", "cast(v as string)", "v",
      "variant_get(v, '$.a', 'string')", "variant_get(v, '$.a')")

# -------------------------------------------------------------------------------- custom casts
MAX_SECONDS = (2 ** 63 - 1) // 1_000_000
table("long_seconds", shredded(typed="bigint"),
      (metadata(), None, MAX_SECONDS + 1), (metadata(), None, MAX_SECONDS))
exprs("custom_casts_long", "custom casts", "long_seconds", "cast(v as timestamp)",
      "try_cast(v as timestamp)")
table("decimal_seconds", shredded(typed="decimal(38, 19)"),
      *((metadata(), None, Decimal(d))
        for d in ("1E18", "100", "10", "1", "0", "0.1", "0.01", "1E-18")))
exprs("custom_casts_decimal", "custom casts", "decimal_seconds", "cast(v as timestamp)",
      "try_cast(v as timestamp)", "cast(v as string)")

# Spark's setting the suite runs every test under both ways.
PUSH_VARIANT_INTO_SCAN = "spark.sql.variant.pushVariantIntoScan"
