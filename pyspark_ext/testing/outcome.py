"""What a query returned (its rows, or the class of its error) and whether two outcomes agree.

Rows are compared as multisets, or as ordered lists where the query orders them: in runs of
rows with equal sort keys (ties) the order is not defined, so an ordered comparison is made run
by run, each run as a multiset, when the sort keys are known as positions of output columns.
Doubles are compared to 12 significant digits: a plan that sums in another order (a Union of
scans instead of one scan, other task splits) may change the last bits. VARIANT values are
compared by ``equivalence.variant_text``: equal values may be encoded with different dictionaries,
and the variant spec makes integers and decimals of equal value one value.
"""
from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql.types import VariantVal

from .equivalence import variant_text

ENABLED = "spark.pyspark_ext.enabled"

#: Errors that come from a value in some row: when two plans both fail with different ones of
#: these, each plan met a different bad row first (which row comes first is up to the plan), so
#: that is not a difference in meaning.
ROW_ERRORS = frozenset({
    "INVALID_VARIANT_CAST", "CAST_INVALID_INPUT", "CAST_OVERFLOW", "ARITHMETIC_OVERFLOW",
    "DIVIDE_BY_ZERO", "NUMERIC_VALUE_OUT_OF_RANGE", "INVALID_ARRAY_INDEX", "INVALID_INDEX_OF_ZERO",
    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT", "CAST_OVERFLOW_IN_TABLE_INSERT", "DATETIME_OVERFLOW",
    "INVALID_VARIANT_GET_PATH", "MALFORMED_VARIANT", "VARIANT_SIZE_LIMIT", "NULL_MAP_KEY",
    "DUPLICATED_MAP_KEY", "INVALID_FRACTION_OF_SECOND", "DATETIME_FIELD_OUT_OF_BOUNDS",
})
#: Error classes that wrap the one that matters (stock Spark casts some variant values inside
#: its Parquet reader, so their cast errors arrive as read failures).
WRAPPERS = ("FAILED_READ_FILE", "TASK_WRITE_FAILED")


@dataclass
class Outcome:
    """Normalised rows (``error`` is None) or the error's class and first message line."""
    rows: list[Any] = field(default_factory=list)
    error: str | None = None
    message: str = ""
    seconds: float = 0.0
    scans: list[dict[str, Any]] = field(default_factory=list)

    @property
    def leaves(self) -> int:
        return sum(s.get("read_leaves") or 0 for s in self.scans)

    @property
    def bytes_read(self) -> int:
        return sum(s.get("bytes_read") or 0 for s in self.scans)


def normalise(x: Any, *, exact: bool = False, round_floats: bool | None = None) -> Any:
    """A cell (or row) as a value that compares by meaning: the one row normaliser, of the fuzzer
    and of the tests (``tests/support/rows.py``).

    By default, the fuzzer's comparison: VARIANT values by ``variant_text`` (equal values may be
    encoded with different dictionaries; integers and decimals of equal value are one value),
    arrays, structs and rows alike as tuples, maps as their sorted entries, binaries as bytes,
    doubles to 12 significant digits.

    With ``exact`` (the tests' comparison): VARIANT values by their JSON (so ``1`` and ``1.0``
    differ), arrays stay lists, rows and structs become tuples, anything else stays as it is, and
    doubles are kept whole unless ``round_floats`` says otherwise. ``round_floats`` (12
    significant digits) defaults to True for the fuzzer's comparison and False for ``exact``.
    """
    rounding = (not exact) if round_floats is None else round_floats
    if exact:
        if isinstance(x, VariantVal):
            return ("variant", x.toJson())
        if isinstance(x, list):
            return [normalise(i, exact=True, round_floats=rounding) for i in x]
        if isinstance(x, tuple):  # Rows too (a generator's Row(...) is one field)
            return tuple(normalise(i, exact=True, round_floats=rounding) for i in x)
        if rounding and isinstance(x, float):
            return float(f"{x:.12g}")
        return x
    if isinstance(x, VariantVal):
        return ("variant", variant_text(x))
    if isinstance(x, (Row, list, tuple)):
        return tuple(normalise(i, round_floats=rounding) for i in x)
    if isinstance(x, dict):
        return ("map", tuple(sorted((repr(normalise(k, round_floats=rounding)),
                                     repr(normalise(v, round_floats=rounding))) for k, v in x.items())))
    if rounding and isinstance(x, float):
        return float(f"{x:.12g}")
    if isinstance(x, bytearray):
        return bytes(x)
    return x


def error_class(e: BaseException) -> str:
    """The error's condition, unwrapped from read and job failures; else the exception type."""
    condition = getattr(e, "getCondition", lambda: None)()
    conditions = [c for c in re.findall(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*)\]", str(e))
                  if c.split(".")[0] not in WRAPPERS]
    if condition and condition.split(".")[0] not in WRAPPERS:
        return condition
    # A Py4JJavaError (no condition of its own) or a wrapper: the first condition it quotes,
    # else the Java exception's class (an internal error such as NoSuchElementException).
    if conditions:
        return conditions[0]
    java = getattr(e, "java_exception", None)
    return condition or (java.getClass().getName() if java is not None else type(e).__name__)


def error_message(e: BaseException) -> str:
    java = getattr(e, "java_exception", None)
    text = (java.toString() if java is not None else str(e)).strip()
    return (text.splitlines()[0] if text else type(e).__name__)[:300]


def run(spark: SparkSession, sql: str, enabled: bool, scans: bool = False) -> Outcome:
    """Run ``sql`` with the extension ``enabled`` or not; never raises for the query's errors."""
    before = spark.conf.get(ENABLED, None)
    spark.conf.set(ENABLED, str(enabled).lower())
    start = time.perf_counter()
    try:
        df = spark.sql(sql)
        rows = [normalise(r) for r in df.collect()]
        out = Outcome(rows=rows, seconds=time.perf_counter() - start)
        if scans:
            out.scans = _scans(df)
        return out
    except Exception as e:  # noqa: BLE001 - a query's error is an outcome to compare
        return Outcome(error=error_class(e), message=error_message(e), seconds=time.perf_counter() - start)
    finally:
        spark.conf.set(ENABLED, before if before is not None else "true")


def _scans(df: DataFrame) -> list[dict[str, Any]]:
    from ..explain import explain_read_schema
    try:
        return explain_read_schema(df)
    except Exception:  # noqa: BLE001 - a report that cannot be made is not the query's outcome
        return []


def _runs(rows: list[Any], keys: list[int]) -> list[Counter]:
    groups: list[Counter] = []
    last = object()
    for r in rows:
        key = tuple(repr(r[i]) for i in keys)
        if key != last:
            groups.append(Counter())
            last = key
        groups[-1][repr(r)] += 1
    return groups


def same_rows(want: list[Any], got: list[Any], order: list[int] | None) -> bool:
    """Equal as multisets; with ``order`` (sort-key positions, ``[]``: the whole row is a total
    key, or the order is otherwise total) also in the same order, runs of ties as multisets."""
    if Counter(map(repr, want)) != Counter(map(repr, got)):
        return False
    if order is None:
        return True
    if not order:
        return [repr(r) for r in want] == [repr(r) for r in got]
    return _runs(want, order) == _runs(got, order)


def difference(want: Outcome, got: Outcome, order: list[int] | None) -> str | None:
    """Why ``got`` disagrees with ``want``, or None. Both failing agree when the error class is
    the same, or both are errors of a row's value (``ROW_ERRORS``), which depend on row order."""
    if want.error is None and got.error is None:
        if same_rows(want.rows, got.rows, order):
            return None
        return f"rows differ: {_rows_diff(want.rows, got.rows)}"
    if want.error is not None and got.error is not None:
        if want.error == got.error or (want.error in ROW_ERRORS and got.error in ROW_ERRORS):
            return None
        return f"errors differ: {want.error} vs {got.error} ({got.message})"
    if want.error is not None:
        return f"expected error {want.error}, got {len(got.rows)} rows"
    return f"expected {len(want.rows)} rows, got error {got.error}: {got.message}"


def _rows_diff(want: list[Any], got: list[Any], limit: int = 3) -> str:
    w, g = Counter(map(repr, want)), Counter(map(repr, got))
    missing, extra = list((w - g).elements())[:limit], list((g - w).elements())[:limit]
    if not missing and not extra:
        return f"same {len(want)} rows in another order"
    return f"{len(want)} vs {len(got)} rows; missing {missing}; unexpected {extra}"
