"""Spark's ``ParquetVariantShreddingSuite`` restated as data: the variant tables it writes with
Spark's shredding writer (``spark.sql.variant.writeShredding.enabled``, with the shredding schema
it forces), and each check it makes on the files, read back as ``variant`` or under the physical
schema the writer should have produced. ``tests/variant_read/test_parquet_variant_shredding_suite.py`` runs
each check with the extension off and on.

``expected`` holds the suite's own answer where it states one (rows of Python values, compared as
``tests.support.rows.row_strings`` compares them); ``SOURCE`` means the suite compares with the
same expression over the DataFrame it wrote; ``metadata_of`` with the metadata of the variants
written; None: no stated answer (stock Spark's rows are the answer).

Spark writes each shredded column as a Parquet group annotated with the VARIANT logical type, and
its vectorized reader refuses to read such a group as a struct unless
``spark.sql.parquet.ignoreVariantAnnotation`` is set (``_LEGACY_ERROR_TEMP_3071``, "Invalid Spark
read type"; the row-based reader does not check). So the suite reads the tables it writes with a
shredding schema under that setting and ``spark.sql.variant.allowReadingShredded``
(``SUITE_READ_CONFS``); a check may set other settings (``Check.confs``), as the few checks beyond
the suite that read the physical structs under Spark's default do.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

SOURCE = "source"
IGNORE_VARIANT_ANNOTATION = "spark.sql.parquet.ignoreVariantAnnotation"
ALLOW_READING_SHREDDED = "spark.sql.variant.allowReadingShredded"
# The settings the suite reads a table written with a forced shredding schema under.
SUITE_READ_CONFS = {IGNORE_VARIANT_ANNOTATION: "true", ALLOW_READING_SHREDDED: "true"}
# Spark's default: a VARIANT-annotated group is read as VARIANT only.
RESPECT_ANNOTATION = {IGNORE_VARIANT_ANNOTATION: "false"}


def metadata_of(column: str) -> tuple[str, str]:
    """The suite's "metadata should be unchanged": the metadata bytes of ``column`` in the
    DataFrame written."""
    return ("metadata", column)


@dataclass(frozen=True)
class Write:
    """One table the suite writes: the query it writes, the shredding schema it forces (None:
    Spark infers one per file), the physical schema it then reads the files with, and the
    settings it reads them under."""
    suite_test: str
    query: str
    shredding_schema: str | None
    full_schema: str | None
    read_confs: dict[str, str]


@dataclass(frozen=True)
class Check:
    write: str
    # "variant": read with the schema Spark infers (VARIANT columns); "physical": read with the
    # write's full_schema (the shredded struct itself).
    read: str
    expr: str
    expected: Any = None
    # Settings for this check's reads over the write's read_confs.
    confs: dict[str, str] = field(default_factory=dict)

    def read_confs(self) -> dict[str, str]:
        return {**WRITES[self.write].read_confs, **self.confs}


WRITES: dict[str, Write] = {}
CHECKS: dict[str, Check] = {}


def write(name: str, suite_test: str, query: str, shredding_schema: str | None,
          full_schema: str | None, read_confs: dict[str, str] | None = None) -> None:
    WRITES[name] = Write(suite_test, query, shredding_schema, full_schema, dict(read_confs or {}))


def checks(prefix: str, write_name: str, *items: tuple[Any, ...]) -> None:
    """``items``: (read, expr, expected) or (read, expr, expected, confs)."""
    for i, item in enumerate(items, 1):
        name = f"{prefix}_{i}"
        if name in CHECKS:
            raise ValueError(f"duplicate check {name}")
        CHECKS[name] = Check(write_name, *item)


# --------------------------------------------------------------- write shredded variant basic
write("basic", "write shredded variant basic", """
    select case
    when id = 0 then parse_json('{"a": 1, "b": "2", "c": 3.3, "d": 4.4}')
    when id = 1 then parse_json('{"a": [1,2,3], "b": "hello", "c": {"x": 0}}')
    when id = 2 then parse_json('{"A": 1, "c": 1.23}')
    end v from range(3)""",
      "a int, b string, c decimal(15, 1)",
      "v struct<metadata binary, value binary, typed_value struct<"
      "a struct<value binary, typed_value int>, b struct<value binary, typed_value string>,"
      "c struct<value binary, typed_value decimal(15, 1)>>>", SUITE_READ_CONFS)
checks("basic", "basic",
       ("variant", "to_json(v)", SOURCE),
       ("physical", "v.metadata", metadata_of("v")),
       ("physical", "v.typed_value.a.typed_value", [(1,), (None,), (None,)]),
       ("physical", "v.typed_value.b.typed_value", [("2",), ("hello",), (None,)]),
       ("physical", "v.typed_value.c.typed_value", [(Decimal("3.3"),), (None,), (None,)]),
       ("physical", "v.value is null", [(False,), (True,), (False,)]),
       ("physical", "v.typed_value.a.value is null", [(True,), (False,), (True,)]),
       ("physical", "v.typed_value.b.value is null", [(True,), (True,), (True,)]),
       ("physical", "v.typed_value.c.value is null", [(True,), (False,), (False,)]),
       ("physical", "v.typed_value.a is null or v.typed_value.b is null or v.typed_value.c is null",
        [(False,), (False,), (False,)]),
       # Beyond the suite: the same values through paths, which the extension rewrites.
       ("variant", "variant_get(v, '$.a', 'int')", [(1,), (None,), (None,)]),
       ("variant", "try_variant_get(v, '$.b', 'string')", [("2",), ("hello",), (None,)]),
       ("variant", "to_json(variant_get(v, '$.c'))", [("3.3",), ('{"x":0}',), ("1.23",)]),
       ("variant", "cast(v as struct<a int, b string, d double>)", None),
       # Beyond the suite: the physical struct under Spark's default, where its vectorized reader
       # refuses a VARIANT group read as a struct (the row-based reader reads it).
       ("physical", "v.metadata", None, RESPECT_ANNOTATION),
       ("physical", "v.typed_value.a.typed_value", None, RESPECT_ANNOTATION),
       ("physical", "v.typed_value.a is null or v.typed_value.b is null", None, RESPECT_ANNOTATION),
       ("variant", "variant_get(v, '$.a', 'int')", [(1,), (None,), (None,)], RESPECT_ANNOTATION))

# -------------------------------------------------------------- write shredded variant array
write("array", "write shredded variant array", """
    select case
    when id = 0 then parse_json('[1, "2", 3.5, null, 5]')
    when id = 1 then parse_json('{"a": [1, 2, 3]}')
    when id = 2 then parse_json('1')
    when id = 3 then parse_json('null')
    end v from range(4)""",
      "array<int>",
      "v struct<metadata binary, value binary, typed_value array<"
      "struct<value binary, typed_value int>>>", SUITE_READ_CONFS)
checks("array", "array",
       ("variant", "to_json(v)", SOURCE),
       ("physical", "v.metadata", metadata_of("v")),
       ("physical", "v.typed_value.typed_value",
        [([1, None, None, None, 5],), (None,), (None,), (None,)]),
       ("physical", "transform(v.typed_value.value, v -> v is null)",
        [([True, False, False, False, True],), (None,), (None,), (None,)]),
       ("physical", "v.value is null", [(True,), (False,), (False,), (False,)]),
       ("variant", "variant_get(v, '$[4]', 'int')", [(5,), (None,), (None,), (None,)]),
       ("variant", "to_json(variant_get(v, '$[1]'))", [('"2"',), (None,), (None,), (None,)]),
       # Beyond the suite: as for basic, under Spark's default.
       ("physical", "v.value is null", None, RESPECT_ANNOTATION))

# ------------------------------------------------------------------ write no shredding schema
write("no_schema", "write no shredding schema", """
    select parse_json('{"a": ' || id || ', "b": 2}') as v,
    array(parse_json('{"c": 3}'), 123::variant) as a
    from range(1, 3, 1, 1)""", None, None)
checks("no_schema", "no_schema",
       ("variant", "*", SOURCE),
       ("variant", "variant_get(v, '$.a', 'int'), to_json(a[0])", SOURCE))

# ----------------------------------------------------- arrays and maps ignore shredding schema
write("arrays_maps", "arrays and maps ignore shredding schema", """
    select v, array(v) as arr, map('myKey', v) as m from
    (select parse_json('{"a":' || id || '}') v from range(3))""",
      "a int",
      "v struct<metadata binary, value binary, typed_value struct<"
      "a struct<value binary, typed_value int>>>, "
      "arr array<struct<metadata binary, value binary>>, "
      "m map<string, struct<metadata binary, value binary>>", SUITE_READ_CONFS)
checks("arrays_maps", "arrays_maps",
       ("variant", "to_json(v)", SOURCE),
       ("physical", "v.metadata", metadata_of("v")),
       ("physical", "arr[0].metadata", metadata_of("arr[0]")),
       ("physical", "m['myKey'].metadata", metadata_of("m['myKey']")),
       ("physical", "v.value is null", [(True,), (True,), (True,)]),
       ("physical", "arr[0].value is null", [(False,), (False,), (False,)]),
       ("physical", "m['myKey'].value is null", [(False,), (False,), (False,)]),
       ("variant", "variant_get(v, '$.a', 'int'), variant_get(arr[0], '$.a', 'int'), "
                   "variant_get(m['myKey'], '$.a', 'int')", [(0, 0, 0), (1, 1, 1), (2, 2, 2)]))
