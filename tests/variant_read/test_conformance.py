"""Parquet shredded-variant conformance (parquet-testing ``shredded_variant``), one test per file.

Each file is read in the shared test session (``spark`` fixture: the extension loaded in strict
mode and enabled, see ``conftest.py``) exactly as ``python -m tests.support.conformance.run`` reads it:
valid cases must return the expected variants, error cases must raise, ``-INVALID`` files may
either raise or return the expected (shredded) value.

With the extension on, shredded spec-layout files are read by its reader (``SpecLayout``,
``ShreddedLevel``), which fixes stock Spark 4.3.0's failures on null/null levels and unsupported
typed_value types, and carries the variant types Spark 4.3 has
no value for (TIME, nanosecond timestamps; ``RawPrimitive``, ``RawTypedValue``) through
unchanged. Every case conforms.
Where a file sets both `value` and a non-object `typed_value` (040, 042: Iceberg's reader fails)
the extension reads `typed_value`, as stock Spark does: the spec forbids writers to set both and
leaves readers free to fail or take `typed_value`, and the extension never fails where stock
Spark reads. The files live outside the repo; without them the module is skipped.
"""
from __future__ import annotations

import pytest

from tests.support.conformance.cases import CASES, SKIP_REASON, available, rows_difference
from tests.support.conformance.run import (
    ERROR_RAISED, INVALID_ERROR, INVALID_SHREDDED, MISSING_ERROR, PASS, read_rows, run_case,
)

# Error cases where the extension reads typed_value instead, as stock Spark does (see above).
TYPED_VALUE_WINS = {"case-040": (["comedy"],), "case-042": (34,)}

pytestmark = pytest.mark.slow

if not available():
    pytest.skip(SKIP_REASON, allow_module_level=True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_conformance(spark, case):
    result = run_case(spark, case)
    what = f"{case.name} ({case.test}): {result.outcome}: {result.detail}"
    if case.kind == "valid":
        assert result.outcome == PASS, what
    elif case.kind == "error" and case.name in TYPED_VALUE_WINS and result.outcome == MISSING_ERROR:
        actual, _ = read_rows(spark, case)
        assert rows_difference(TYPED_VALUE_WINS[case.name], actual) is None, what
    elif case.kind == "error":
        assert result.outcome == ERROR_RAISED, f"{what}; expected an error like {case.error!r}"
    else:
        assert result.outcome in (INVALID_ERROR, INVALID_SHREDDED), what

