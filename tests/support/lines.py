"""Markers for tests that need what some Spark line lacks, each with its reason."""
from __future__ import annotations

import pytest

from pyspark_ext import jar

#: Spark 3.5 has no VARIANT type (no `parse_json`, `variant_get`, VariantVal): such tests skip there.
needs_variant_type = pytest.mark.skipif(
    jar.spark_line() == "3.5", reason="Spark 3.5 has no VARIANT type (parse_json, variant_get)")


#: The line the full suite runs on (``python -m pytest`` in CI); each older line runs the
#: ``spark_lines`` subset (``.ci/run-lines``).
NEWEST_LINE = jar.SUPPORTED_LINES[-1]
#: Runs every collected test on an older line too, where a bare run keeps the subset.
EVERY_TEST_OPTION = "--every-test"


def keeps_line_subset(line: str, markexpr: str, paths_given: bool, every_test: bool) -> bool:
    """Whether a run on ``line`` keeps only the ``spark_lines`` subset: on a line older than the
    newest, when the run names no test paths and no markers (``python -m pytest``, as the README
    gives it) and does not ask for every test. The rest of the suite is written for the newest
    line: on 3.5 its VARIANT tests would fail for want of the type, not for a fault of the
    extension. A run that names paths or markers gets what it names."""
    return line != NEWEST_LINE and not markexpr and not paths_given and not every_test
