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
from ._variant_types import VARIANT_VALUES
from .testing.equivalence import variant_text

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
#: Error classes that wrap the ones that matter: stock Spark casts some variant values inside its
#: Parquet reader, so their cast errors arrive as read failures; adaptive execution reports two
#: query stages failing at once as one error that holds both (which stages fail together is up to
#: timing, so one run may report a stage's error alone and the next wrapped with another's).
#: Error classes that only wrap the errors that made them. Spark 4.0 gives the multiple-stage
#: failure the legacy class _LEGACY_ERROR_TEMP_2235; later lines give it its own name.
WRAPPERS = ("FAILED_READ_FILE", "TASK_WRITE_FAILED", "STAGE_MATERIALIZATION_MULTIPLE_FAILURES",
            "_LEGACY_ERROR_TEMP_2235")


@dataclass
class Outcome:
    """Normalised rows (``error`` is None) or the error's class and first message line.

    ``causes`` are the classes of every error the failure holds once wrappers (``WRAPPERS``) are
    looked through: more than one where stages failed at once; ``error`` is the first of them."""
    rows: list[Any] = field(default_factory=list)
    error: str | None = None
    message: str = ""
    seconds: float = 0.0
    scans: list[dict[str, Any]] = field(default_factory=list)
    causes: tuple[str, ...] = ()

    @property
    def errors(self) -> tuple[str, ...]:
        """The error classes this outcome failed with (empty when it gave rows)."""
        return self.causes or ((self.error,) if self.error is not None else ())

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
        if isinstance(x, VARIANT_VALUES):
            return ("variant", x.toJson())
        if isinstance(x, list):
            return [normalise(i, exact=True, round_floats=rounding) for i in x]
        if isinstance(x, tuple):  # Rows too (a generator's Row(...) is one field)
            return tuple(normalise(i, exact=True, round_floats=rounding) for i in x)
        if rounding and isinstance(x, float):
            return float(f"{x:.12g}")
        return x
    if isinstance(x, VARIANT_VALUES):
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


def error_classes(e: BaseException) -> list[str]:
    """The classes of the errors that made ``e``, wrappers (``WRAPPERS``) looked through: a read
    failure's cause, every stage's error of a multiple-stage failure. Else the exception's type."""
    java = getattr(e, "_origin", None) or getattr(e, "java_exception", None)
    found = _jvm_conditions(java) if java is not None else []
    if found:
        return found
    # No JVM exception (Spark Connect) or none with a condition: the conditions its message quotes
    # (a multiple-stage failure's message holds each stage's error), else its own.
    # pyspark 3.5 names it getErrorClass; 4.0 added getCondition
    condition = (getattr(e, "getCondition", None) or getattr(e, "getErrorClass", lambda: None))()
    if condition and _unwrapped(condition):
        return [condition]
    quoted = [c for c in re.findall(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*)\]", str(e)) if _unwrapped(c)]
    if quoted:
        return list(dict.fromkeys(quoted))
    return [condition or (java.getClass().getName() if java is not None else type(e).__name__)]


def error_class(e: BaseException) -> str:
    """The error's condition, unwrapped from read and stage failures; else the exception type."""
    return error_classes(e)[0]


def _unwrapped(condition: str) -> bool:
    return condition.split(".")[0] not in WRAPPERS


def _jvm_conditions(throwable: Any, depth: int = 0) -> list[str]:
    """Conditions of a JVM throwable: its own unless it is a wrapper, else those of its cause and
    of the errors it suppressed (where Spark puts the other stages' errors)."""
    from py4j.java_gateway import is_instance_of
    from pyspark import SparkContext

    if throwable is None or depth > 16 or SparkContext._gateway is None:
        return []
    gateway = SparkContext._gateway
    # SparkThrowable's condition is on every supported line (getCondition from 4.0, getErrorClass
    # on 3.5); PythonErrorUtils is not on 4.0
    if is_instance_of(gateway, throwable, "org.apache.spark.SparkThrowable"):
        condition = _jvm_condition(throwable)
        if condition and _unwrapped(condition):
            return [condition]
    found = _jvm_conditions(throwable.getCause(), depth + 1)
    for suppressed in throwable.getSuppressed():
        found += [c for c in _jvm_conditions(suppressed, depth + 1) if c not in found]
    return found


def _jvm_condition(throwable: Any) -> str | None:
    from py4j.protocol import Py4JError

    try:
        return throwable.getCondition()
    except Py4JError:  # Spark 3.5: SparkThrowable has getErrorClass only
        return throwable.getErrorClass()


def error_message(e: BaseException) -> str:
    java = getattr(e, "java_exception", None)
    text = (java.toString() if java is not None else str(e)).strip()
    return (text.splitlines()[0] if text else type(e).__name__)[:300]


def failure(e: BaseException, seconds: float = 0.0) -> Outcome:
    """The outcome of a query that raised ``e``."""
    classes = error_classes(e)
    return Outcome(error=classes[0], message=error_message(e), seconds=seconds, causes=tuple(classes))


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
        return failure(e, time.perf_counter() - start)
    finally:
        spark.conf.set(ENABLED, before if before is not None else "true")


def _scans(df: DataFrame) -> list[dict[str, Any]]:
    from .explain import explain_read_schema
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
    """Why ``got`` disagrees with ``want``, or None. Both failing agree when they share an error
    class, or both have errors of a row's value (``ROW_ERRORS``), which depend on row order; a
    failure of several stages at once is compared by each stage's error (``Outcome.causes``)."""
    if want.error is None and got.error is None:
        if same_rows(want.rows, got.rows, order):
            return None
        return f"rows differ: {_rows_diff(want.rows, got.rows)}"
    if want.error is not None and got.error is not None:
        if any(same_error(a, b) for a in want.errors for b in got.errors):
            return None
        return f"errors differ: {want.error} vs {got.error} ({got.message})"
    if want.error is not None:
        return f"expected error {want.error}, got {len(got.rows)} rows"
    return f"expected {len(want.rows)} rows, got error {got.error}: {got.message}"


def same_error(a: str, b: str) -> bool:
    """Two error classes that mean the same failure: equal, or both of a row's value."""
    return a == b or (a in ROW_ERRORS and b in ROW_ERRORS)


def _rows_diff(want: list[Any], got: list[Any], limit: int = 3) -> str:
    w, g = Counter(map(repr, want)), Counter(map(repr, got))
    missing, extra = list((w - g).elements())[:limit], list((g - w).elements())[:limit]
    if not missing and not extra:
        return f"same {len(want)} rows in another order"
    return f"{len(want)} vs {len(got)} rows; missing {missing}; unexpected {extra}"
