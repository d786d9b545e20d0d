"""Parquet shredded-variant conformance (parquet-testing ``shredded_variant``), one test per file.

Each file is read in the shared test session (``spark`` fixture: the extension loaded in strict
mode and enabled, see ``conftest.py``) exactly as ``python -m tests.conformance.run`` reads it:
valid cases must return the expected variants, error cases must raise, ``-INVALID`` files may
either raise or return the expected (shredded) value.

With the extension on, shredded spec-layout files are read by its reader (``SpecLayout``,
``DraftLevel``), which fixes stock Spark 4.3.0's failures on null/null levels, conflicting
value/typed_value and unsupported typed_value types. KNOWN_FAILURES are the files that still fail:
variant types Spark 4.3 has no value for (TIME, nanosecond timestamps, UUID); they raise an error
rather than return a wrong value. They are ``xfail(strict=True)``: a case that starts passing
fails the run until it is taken off the list.
The files live outside the repo; without them the module is skipped.
"""
from __future__ import annotations

import pytest

from tests.conformance.cases import CASES, SKIP_REASON, available
from tests.conformance.run import (
    ERROR_RAISED, INVALID_ERROR, INVALID_SHREDDED, PASS, UNEXPECTED_ERROR, run_case,
)

if not available():
    pytest.skip(SKIP_REASON, allow_module_level=True)

#: Case name -> why it is not read (stock Spark 4.3.0 fails these too) (the names are the set of known failures).
KNOWN_FAILURES: dict[str, str] = {
    # TIME (variant type 17): no shredded TIME column, no TIME in Spark's variant code
    "case-032": "TIME: typed_value TIME(6) rejected as INVALID_VARIANT_SHREDDING_SCHEMA",
    "case-118": "TIME: unshredded TIME under a shredded schema: UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT id 17",
    # nanosecond timestamps (variant types 18, 19)
    "case-033": "nanos: typed_value TIMESTAMP(NANOS,true) is PARQUET_TYPE_ILLEGAL",
    "case-034": "nanos: typed_value TIMESTAMP(NANOS,true) is PARQUET_TYPE_ILLEGAL",
    "case-035": "nanos: typed_value TIMESTAMP(NANOS,false) is PARQUET_TYPE_ILLEGAL",
    "case-036": "nanos: typed_value TIMESTAMP(NANOS,false) is PARQUET_TYPE_ILLEGAL",
    "case-119": "nanos: unshredded timestamptz_nanos under a shredded schema: unknown type id 18",
    "case-120": "nanos: unshredded timestamptz_nanos under a shredded schema: unknown type id 18",
    "case-121": "nanos: unshredded timestampntz_nanos under a shredded schema: unknown type id 19",
    "case-122": "nanos: unshredded timestampntz_nanos under a shredded schema: unknown type id 19",
    # UUID
    "case-037": "UUID: typed_value FIXED_LEN_BYTE_ARRAY(16) UUID is PARQUET_TYPE_ILLEGAL",
}


def _param(case):
    marks = ()
    if case.name in KNOWN_FAILURES:
        marks = (pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[case.name]),)
    return pytest.param(case, id=case.name, marks=marks)


def test_known_failures_name_cases():
    assert set(KNOWN_FAILURES) <= {c.name for c in CASES}


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_conformance(spark, case):
    result = run_case(spark, case)
    what = f"{case.name} ({case.test}): {result.outcome}: {result.detail}"
    if case.kind == "valid":
        assert result.outcome == PASS, what
    elif case.kind == "error":
        assert result.outcome == ERROR_RAISED, f"{what}; expected an error like {case.error!r}"
    else:
        assert result.outcome in (INVALID_ERROR, INVALID_SHREDDED), what


@pytest.mark.parametrize("case", [c for c in CASES if c.name in KNOWN_FAILURES], ids=lambda c: c.name)
def test_unreadable_types_fail_naming_the_file(spark, case):
    # Never a wrong value or a bare Spark error: the message names the file and the column.
    result = run_case(spark, case)
    assert result.outcome == UNEXPECTED_ERROR, result.detail
    assert case.parquet.name in result.detail and "column `var`" in result.detail, result.detail
