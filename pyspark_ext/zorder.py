"""The z-order (Morton) value of a few SQL expressions, as one Spark SQL column, for clustering the
rows of each file written (``write_shredded(cluster_by=...)``).

Sorting a file by one expression makes its row groups' and pages' min/max narrow for that
expression only; a second sort key orders rows only within ties of the first. Sorting by the
z-order value of several expressions instead keeps rows that are close in *every* expression
close in the file, so each row group covers a narrow range of each of them, and a range filter on
any one of them skips row groups and pages by their statistics.

How the value is computed, with Spark's own expressions (no Python UDF):

1. one aggregate pass over the rows gives each expression's min and max (of a double form of it:
   the number itself, a date's days or a timestamp's microseconds since the epoch; NaN and the
   infinities left out);
2. each value is scaled into ``1 .. 2^bits - 1`` by those bounds, clamped (so a value outside
   them, NaN or an infinity lands at an end, never an error); null, and so any value that does
   not cast (``try_variant_get`` gives null), is 0: such rows sort together, first. An
   expression with one value only (min == max) is 1 in every row it is not null, without a
   division;
3. the scaled values' bits are interleaved, bit ``i`` of expression ``j`` going to bit
   ``i * n + j`` of a non-negative bigint, with ``shiftright``, ``shiftleft``, ``&`` and ``|``.

It is safe: the value is used only to order rows within each file (``sortWithinPartitions``);
the same rows are written, and what each file holds is unchanged.
"""
from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame
from pyspark.sql.types import (
    DataType, DateType, NumericType, TimestampNTZType, TimestampType,
)

from .shredding import _functions

#: Bits each expression is scaled to, at most: 2^20 steps between its min and max.
MAX_BITS = 20
#: The interleaved value is a non-negative bigint: all the expressions' bits share 63.
VALUE_BITS = 63


def bits_per_expression(count: int) -> int:
    """Bits each of ``count`` expressions gets: ``MAX_BITS``, or fewer so that all fit a bigint."""
    return min(MAX_BITS, VALUE_BITS // count)


def zorder_column(df: DataFrame, exprs: Sequence[str], caller: str = "zorder_column") -> Column:
    """A bigint Column: the z-order value of SQL expressions ``exprs`` over ``df``'s rows (the
    module's docstring says how). Runs one aggregate job over ``df`` for the bounds.

    Each expression must be numeric, a date or a timestamp; any other type, or an expression
    that does not resolve against ``df``, is a ValueError naming the expression (``caller``
    opens the message)."""
    if isinstance(exprs, str) or not exprs or not all(isinstance(e, str) for e in exprs):
        raise ValueError(f"{caller}: cluster_by must be a list of SQL expressions, not {exprs!r}")
    if VALUE_BITS // len(exprs) < 2:
        raise ValueError(f"{caller}: cluster_by takes at most {VALUE_BITS // 2} expressions, "
                         f"not {len(exprs)}")
    F = _functions(df)
    points = [_as_double(F, e, _type_of(df, F, e, caller), caller) for e in exprs]
    finite = [F.when(~F.isnan(p) & (F.abs(p) != F.lit(float("inf"))), p) for p in points]
    bounds = df.agg(*[a for i, x in enumerate(finite)
                      for a in (F.min(x).alias(f"lo{i}"), F.max(x).alias(f"hi{i}"))]).first()
    bits = bits_per_expression(len(exprs))
    scaled = [_scaled(F, p, bounds[f"lo{i}"], bounds[f"hi{i}"], bits) for i, p in enumerate(points)]
    n = len(scaled)
    one = F.lit(1).cast("bigint")
    # bit i of expression j -> bit i * n + j: rows close in every expression get close values
    terms = [F.shiftleft(F.shiftright(q, i).bitwiseAND(one), i * n + j)
             for i in range(bits) for j, q in enumerate(scaled)]
    return _or_all(terms)


def _or_all(terms: list[Column]) -> Column:
    """The bitwise OR of ``terms`` as a balanced tree: a chain of 40 ORs nests deeper than Spark
    Connect's protobuf messages may (``Exceeded upb_DecodeOptions_MaxDepth``)."""
    while len(terms) > 1:
        pairs = [terms[i].bitwiseOR(terms[i + 1]) for i in range(0, len(terms) - 1, 2)]
        terms = pairs + terms[len(pairs) * 2:]
    return terms[0]


def _type_of(df: DataFrame, F: ModuleType, expr: str, caller: str) -> DataType:
    try:
        return df.select(F.expr(expr)).schema.fields[0].dataType
    except AnalysisException as e:  # a parse error is one too
        raise ValueError(f"{caller}: cluster_by expression {expr!r} does not resolve: "
                         f"{str(e).splitlines()[0]}") from None


def _as_double(F: ModuleType, expr: str, typ: DataType, caller: str) -> Column:
    """``expr`` as a double that orders as it does: a number itself, a date's days and a
    timestamp's microseconds since the epoch."""
    col = F.expr(expr)
    if isinstance(typ, NumericType):
        return col.cast("double")
    if isinstance(typ, DateType):
        return F.unix_date(col).cast("double")
    if isinstance(typ, TimestampType):
        return F.unix_micros(col).cast("double")
    if isinstance(typ, TimestampNTZType):
        # microseconds after the epoch as wall-clock time: no time zone, so no DST jumps
        return F.expr(f"timestampdiff(MICROSECOND, TIMESTAMP_NTZ'1970-01-01 00:00:00', ({expr}))") \
            .cast("double")
    raise ValueError(f"{caller}: cluster_by expression {expr!r} is {typ.simpleString()}; "
                     f"clustering orders numeric, date and timestamp expressions only (cast it, "
                     f"or sort by it with sort_by)")


def _scaled(F: ModuleType, point: Column, lo: float | None, hi: float | None, bits: int) -> Column:
    """``point`` scaled into ``1 .. 2^bits - 1`` between ``lo`` and ``hi``, null as 0."""
    top = float((1 << bits) - 1)
    if lo is None or hi is None or not hi > lo:  # no finite value, or one value only
        value = F.lit(1.0)
    else:
        # least/greatest order NaN above every number, so NaN and +inf go to the top, -inf to 1
        value = F.greatest(F.lit(1.0), F.least(F.lit(top),
                           F.lit(1.0) + (point - F.lit(lo)) / F.lit(hi - lo) * F.lit(top - 1.0)))
    return F.when(point.isNull(), F.lit(0).cast("bigint")).otherwise(F.floor(value).cast("bigint"))
