"""Parquet shredded-variant conformance (parquet-testing ``shredded_variant``), one test per file.

Each file is read in the shared test session (``spark`` fixture: the extension loaded in strict
mode and enabled, see ``conftest.py``) exactly as ``python -m tests.support.conformance.run`` reads it:
valid cases must return the expected variants, error cases must raise, ``-INVALID`` files may
either raise or return the expected (shredded) value.

With the extension on, shredded spec-layout files are read by its reader (``SpecLayout``,
``ShreddedLevel``), which fixes stock Spark 4.3.0's failures on null/null levels, conflicting
value/typed_value and unsupported typed_value types, and carries the variant types Spark 4.3 has
no value for (TIME, nanosecond timestamps; ``RawPrimitive``, ``RawTypedValue``) through
unchanged. Every case conforms.
The files live outside the repo; without them the module is skipped.
"""
from __future__ import annotations

import pytest

from tests.support.conformance.cases import CASES, SKIP_REASON, available
from tests.support.conformance.run import (
    ERROR_RAISED, INVALID_ERROR, INVALID_SHREDDED, PASS, run_case,
)

pytestmark = pytest.mark.slow

if not available():
    pytest.skip(SKIP_REASON, allow_module_level=True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_conformance(spark, case):
    result = run_case(spark, case)
    what = f"{case.name} ({case.test}): {result.outcome}: {result.detail}"
    if case.kind == "valid":
        assert result.outcome == PASS, what
    elif case.kind == "error":
        assert result.outcome == ERROR_RAISED, f"{what}; expected an error like {case.error!r}"
    else:
        assert result.outcome in (INVALID_ERROR, INVALID_SHREDDED), what

