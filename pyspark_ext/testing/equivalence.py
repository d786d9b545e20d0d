"""Which answers are the same VARIANT answer, by the variant spec's equivalence classes.

Parquet's VariantEncoding.md groups the variant primitive types into equivalence classes: all
integers (int8 to int64) and decimals (decimal4 to decimal16, any scale) are one class, *exact
numeric*, and an expression "should behave the same" on an int8 1 and a decimal16 1.00; double,
float, string, date and the rest are classes of their own. The shredding proposal ("Shredding numbers")
applies it to shredding: a writer may store any number in the ``typed_value`` of any other number
that holds it exactly (the integer 123 as ``decimal(9,2)``), so a reader gives back the same number
with another physical type; doubles and floats are never stored so. Only ``schema_of_variant``
tells the physical types apart, and the proposal allows it to report a different numeric type before
and after shredding.

- ``variant_text``: a VARIANT as text in which equivalent values print alike (an exact number by
  its value, so ``77`` as int8 and as ``decimal(38,10)`` 77.0000000000 print ``77``) and values of
  different classes never do (a double prints with a ``d`` suffix: ``3.0E10`` is ``30000000000.0d``,
  the decimal 30000000000.0 is ``30000000000``). The fuzzer compares VARIANT values by it; Python's
  ``VariantVal.toJson`` prints a decimal's scale and prints a double and a decimal of the same
  digits alike, so it is exact where the spec is not and loose where the spec is strict.
- ``exact_numeric_schemas``: wraps ``schema_of_variant`` so that every exact numeric type name in
  its result reads ``NUMBER``. Applied only where the two sides read different storage of the same
  events (the draft layout against the unshredded table): there the writer may have shredded an
  integer into a decimal column. It is done in SQL, so that groups, sorts and comparisons on the
  result agree too. Where both sides read the same files, the physical types must match exactly.
"""
from __future__ import annotations

import base64
import json
from array import array
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

try:
    from pyspark.sql.variant_utils import VariantUtils
except ImportError:  # pyspark 3.5 has no VARIANT, so no variant value is ever printed
    VariantUtils: Any = None

if TYPE_CHECKING:
    from pyspark.sql.types import VariantVal

from .build import fn, lit

#: The exact numeric type names ``schema_of_variant`` prints (it prints every integer as BIGINT,
#: but a merged schema may hold the others), as a Java regular expression without backslashes.
EXACT_NUMERIC_NAMES = "(?<![A-Z_])(?:TINYINT|SMALLINT|BIGINT|INT)(?![A-Z_(:])|DECIMAL[(][0-9]+,[0-9]+[)]"


def variant_text(v: VariantVal) -> str:
    return _text(v.value, v.metadata, 0)


def _text(value: bytes, metadata: bytes, pos: int) -> str:
    kind = VariantUtils._get_type(value, pos)
    if kind is dict:
        # Keys are sorted by the encoding already; sorting again costs little and states the intent.
        return VariantUtils._handle_object(value, metadata, pos, lambda fields: "{" + ",".join(
            json.dumps(k) + ":" + _text(value, metadata, p) for k, p in sorted(fields)) + "}")
    if kind is array:
        return VariantUtils._handle_array(value, pos, lambda items: "[" + ",".join(
            _text(value, metadata, p) for p in items) + "]")
    scalar = VariantUtils._get_scalar(kind, value, metadata, pos, "UTC")
    if scalar is None:
        return "null"
    if isinstance(scalar, bool):
        return "true" if scalar else "false"
    if isinstance(scalar, (int, Decimal)):
        return exact_number(Decimal(scalar))
    if isinstance(scalar, float):
        _, type_info = VariantUtils._get_type_info(value, pos)
        return repr(scalar) + ("f" if type_info == VariantUtils.FLOAT else "d")
    if isinstance(scalar, str):
        return json.dumps(scalar)
    if isinstance(scalar, bytes):
        return "binary " + json.dumps(base64.b64encode(scalar).decode())
    return f"{type(scalar).__name__} {json.dumps(str(scalar))}"  # date, datetime


def exact_number(d: Decimal) -> str:
    """One spelling per value: no exponent, no trailing zeros, no negative zero."""
    return "0" if d == 0 else format(d.normalize(), "f")


def exact_numeric_schemas(ast: exp.Expression) -> exp.Expression:
    """``ast`` with each ``schema_of_variant(x)`` read with exact numeric type names as NUMBER."""
    def wrap(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Anonymous) and node.name.lower() == "schema_of_variant":
            return fn("regexp_replace", node, lit(EXACT_NUMERIC_NAMES), lit("NUMBER"))
        return node

    return ast.transform(wrap)
