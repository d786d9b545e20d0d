"""What a query returned (its rows, or the class of its error) and whether two results are the same
rows: the one definition of "same rows", used by ``verify``, the demo, the timed runs of the
benchmarks (``alternating``), the differential fuzzer and the tests.

Rows are compared as multisets, or as ordered lists where the query orders them: in runs of
rows with equal sort keys (ties) the order is not defined, so an ordered comparison is made run
by run, each run as a multiset, when the sort keys are known as positions of output columns.

Doubles are the same when they agree to a relative tolerance of 1e-10 (``RELATIVE_TOLERANCE``);
every other value when it has the same type and is equal. A sum's last bits depend on the order it
adds its rows in, which the plan decides (a Union of scans instead of one scan, a scan split into
fewer tasks): stock Spark and the extension summing one column over a 20M-row log gave
9599993.259999663 and 9599993.26000643, 7e-13 apart relatively. Rounding both sides to a number
of significant digits is not a tolerance: two values that close can round apart (these two do, at
12 digits), however many digits are kept. 1e-10 is well above what reordering a sum of doubles
adds; a wrong row that moves a double by less goes unseen, as it would by rounding (12 digits miss
it below about 5e-12). ``normalise`` still rounds doubles to 12 significant digits, for a stable
form to print, count and sort; the comparison looks through that rounding too.

VARIANT values are compared by ``variant_text``: equal values may be encoded with different
dictionaries, and the variant spec makes integers and decimals of equal value one value.
"""
from __future__ import annotations

import base64
import json
import math
import re
import time
from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pyspark.sql import DataFrame, Row, SparkSession

from ._variant_types import VARIANT_VALUES
from .settings import ENABLED

try:
    from pyspark.sql.variant_utils import VariantUtils
except ImportError:  # pyspark 3.5 has no VARIANT, so no variant value is ever printed
    VariantUtils: Any = None

if TYPE_CHECKING:
    from pyspark.sql.types import VariantVal


#: Doubles within this relative distance of each other are the same (see the module's docstring).
RELATIVE_TOLERANCE = 1e-10

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


def normalise(x: Any, *, exact: bool = False) -> Any:
    """A cell (or row) as a value that compares by meaning: the one row normaliser, of the fuzzer
    and of the tests (``tests/support/differential.py``'s ``rows_of``).

    By default, the fuzzer's comparison: VARIANT values by ``variant_text`` (equal values may be
    encoded with different dictionaries; integers and decimals of equal value are one value),
    arrays, structs and rows alike as tuples, maps as their sorted entries, binaries as bytes,
    doubles to 12 significant digits (a stable form to print, count and sort; ``same_value``
    compares them to ``RELATIVE_TOLERANCE``, which looks through that rounding).

    With ``exact`` (``tests/support/rows.py``'s comparison): VARIANT values by their JSON (so ``1``
    and ``1.0`` differ), arrays stay lists, rows and structs become tuples, anything else, doubles
    included, stays as it is.
    """
    if exact:
        if isinstance(x, VARIANT_VALUES):
            return ("variant", x.toJson())
        if isinstance(x, list):
            return [normalise(i, exact=True) for i in x]
        if isinstance(x, tuple):  # Rows too (a generator's Row(...) is one field)
            return tuple(normalise(i, exact=True) for i in x)
        return x
    if isinstance(x, VARIANT_VALUES):
        return ("variant", variant_text(x))
    if isinstance(x, (Row, list, tuple)):
        return tuple(normalise(i) for i in x)
    if isinstance(x, dict):  # entries as values, so that the comparison's tolerance reaches them
        return ("map", tuple(sorted(((normalise(k), normalise(v)) for k, v in x.items()), key=_order_key)))
    if isinstance(x, float):
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


def variant_text(v: VariantVal) -> str:
    """A VARIANT as text in which values of one equivalence class of the variant spec print alike
    (an exact number by its value, so ``77`` as int8 and as ``decimal(38,10)`` 77.0000000000
    print ``77``) and values of different classes never do (a double prints with a ``d`` suffix:
    ``3.0E10`` is ``30000000000.0d``, the decimal 30000000000.0 is ``30000000000``). Python's
    ``VariantVal.toJson`` prints a decimal's scale and prints a double and a decimal of the same
    digits alike, so it is exact where the spec is not and loose where the spec is strict."""
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


def _plain(v: Any) -> Any:
    if isinstance(v, (tuple, list)):  # nested structs (Rows) and arrays
        return tuple(_plain(i) for i in v)
    return v


def _order_key(v: Any) -> tuple[str, str]:
    """Sorts rows alike on both sides when their doubles differ in the last bits only: by the row
    with doubles to 6 significant digits, then (rows that tie so) by the row itself."""
    def rounded(x: Any) -> Any:
        if isinstance(x, float):
            return float(f"{x:.6g}")
        if isinstance(x, tuple):
            return tuple(rounded(i) for i in x)
        return x
    return repr(rounded(v)), repr(v)


def canonical_rows(rows: Iterable[Any]) -> list[Any]:
    """Rows as nested tuples in an order that does not depend on the last bits of doubles."""
    return sorted((_plain(r) for r in rows), key=_order_key)


def same_value(x: Any, y: Any) -> bool:
    """Doubles to ``RELATIVE_TOLERANCE`` (NaN is NaN), tuples item by item, all else by type and
    ``==``."""
    if isinstance(x, float) and isinstance(y, float):
        return x == y or math.isclose(x, y, rel_tol=RELATIVE_TOLERANCE) or (math.isnan(x) and math.isnan(y))
    if isinstance(x, tuple) and isinstance(y, tuple):
        return len(x) == len(y) and all(same_value(i, j) for i, j in zip(x, y))
    return type(x) is type(y) and x == y


def _same_in_order(want: list[Any], got: list[Any]) -> bool:
    return len(want) == len(got) and all(same_value(a, b) for a, b in zip(want, got))


def _same_multiset(want: list[Any], got: list[Any]) -> bool:
    if Counter(map(repr, want)) == Counter(map(repr, got)):
        return True
    return _same_in_order(canonical_rows(want), canonical_rows(got))


def _runs(rows: list[Any], keys: list[int]) -> list[list[Any]]:
    """The rows in runs of equal sort keys (by ``same_value``), in order."""
    runs: list[list[Any]] = []
    last: tuple[Any, ...] | None = None
    for r in rows:
        key = tuple(_plain(r[i]) for i in keys)
        if last is None or not same_value(key, last):
            runs.append([])
        last = key
        runs[-1].append(r)
    return runs


def same_rows(want: list[Any], got: list[Any], order: list[int] | None = None) -> bool:
    """The same rows (``same_value``), as multisets; with ``order`` (sort-key positions, ``[]``:
    the whole row is a total key, or the order is otherwise total) also in the same order, runs
    of ties as multisets."""
    if order is None:
        return _same_multiset(want, got)
    if not order:
        return _same_in_order([_plain(r) for r in want], [_plain(r) for r in got])
    runs_want, runs_got = _runs(want, order), _runs(got, order)
    return len(runs_want) == len(runs_got) and all(map(_same_multiset, runs_want, runs_got))


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
