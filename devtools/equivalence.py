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

``pyspark_ext.outcome.variant_text`` prints a VARIANT so that equivalent values print alike and
values of different classes never do; the fuzzer, ``verify`` and the tests compare VARIANT values
by it. ``exact_numeric_schemas`` here wraps ``schema_of_variant`` so that every exact numeric type
name in its result reads ``NUMBER``. Applied only where the two sides read different storage of
the same events (the draft layout against the unshredded table): there the writer may have
shredded an integer into a decimal column. It is done in SQL, so that groups, sorts and
comparisons on the result agree too. Where both sides read the same files, the physical types
must match exactly.
"""
from __future__ import annotations

from sqlglot import exp

from .build import fn, lit

#: The exact numeric type names ``schema_of_variant`` prints (it prints every integer as BIGINT,
#: but a merged schema may hold the others), as a Java regular expression without backslashes.
EXACT_NUMERIC_NAMES = "(?<![A-Z_])(?:TINYINT|SMALLINT|BIGINT|INT)(?![A-Z_(:])|DECIMAL[(][0-9]+,[0-9]+[)]"


def exact_numeric_schemas(ast: exp.Expression) -> exp.Expression:
    """``ast`` with each ``schema_of_variant(x)`` read with exact numeric type names as NUMBER."""
    def wrap(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Anonymous) and node.name.lower() == "schema_of_variant":
            return fn("regexp_replace", node, lit(EXACT_NUMERIC_NAMES), lit("NUMBER"))
        return node

    return ast.transform(wrap)
