"""Spark's VariantShreddingSuite as a differential battery (cases in
tests/support/battery/variant_shredding_cases.py).

Each expression is evaluated over its hand-shredded file, read as ``v variant``, with the
extension off and on, with Spark's variant push-down into the scan on and off, and with both
Parquet readers. With the extension on it must give stock Spark's rows, and fail where stock
Spark fails, with the same variant error class.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from pyspark.sql import SparkSession

from tests.support.battery.outcomes import assert_same_outcome
from tests.support.battery.variant_shredding_cases import CASES, PUSH_VARIANT_INTO_SCAN, TABLES
from tests.support.differential import ENABLED, confs
from tests.support.rows import row_strings

pytestmark = pytest.mark.slow

VARIANT_ERRORS = re.compile(r"MALFORMED_VARIANT|INVALID_VARIANT_CAST|VARIANT_SIZE_LIMIT")
# The extension's own error for a malformed shredded file (it names the file and the column).
EXTENSION_MALFORMED = "Invalid shredded variant in file"

# Where the extension and stock Spark differ over malformed files, by (push, case): the extension
# reads on where stock Spark raises, by design (the reasons below; docs/troubleshooting.md), and the
# test checks exactly that. Every other case must give stock Spark's outcome.
SPEC_NULL = ("the file stores nothing (value and typed_value both null) for a top-level value or an "
             "array element; the Parquet variant shredding spec says a reader must return a variant "
             "null there (\"If a Variant is missing where a value is required, readers must return "
             "a Variant null\", conformance cases 085 and 129), which the extension does; stock "
             "Spark raises MALFORMED_VARIANT")
PATH_READ = ("stock Spark rebuilds the whole value here and so raises MALFORMED_VARIANT for a "
             "malformation outside the path read (a null shredded field group, a shredded field "
             "copied in the residual); the extension reads only the path's columns, as stock Spark "
             "does with push-down on, and checking the rest would mean reading the whole value")
DECIDED: dict[tuple[str, str], str] = {
    **{(push, name): SPEC_NULL for push in ("true", "false") for name in (
        "malformed_top_level_1", "malformed_element_1", "malformed_element_2")},
    # Stock Spark reads the path leniently only with push-down on; the extension always does.
    ("false", "malformed_field_in_value_4"): PATH_READ,
}


@dataclass(frozen=True)
class Outcome:
    rows: list[str] | None
    error: str | None = None

    @property
    def error_classes(self) -> set[str]:
        found = set(VARIANT_ERRORS.findall(self.error or ""))
        return found | {"MALFORMED_VARIANT"} if EXTENSION_MALFORMED in (self.error or "") else found


def outcome(spark: SparkSession, path: str, expr: str, enabled: bool) -> Outcome:
    with confs(spark, {ENABLED: str(enabled).lower()}):
        try:
            # Built under each setting: a DataFrame keeps the plan analyzed when it was made.
            df = spark.read.schema("v variant").parquet(path).selectExpr(expr)
            return Outcome(row_strings(df.collect()))
        except Exception as e:  # noqa: BLE001 - a failure is an outcome to compare
            return Outcome(None, str(e))


@pytest.fixture(scope="module")
def files(spark, tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("variant_shredding_suite")
    paths = {}
    for name, t in TABLES.items():
        paths[name] = str(root / name)
        spark.createDataFrame([(r,) for r in t.rows], t.schema).coalesce(1) \
            .write.parquet(paths[name])
    return paths


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("vectorized", ["true", "false"], ids=["vectorized", "parquet_mr"])
@pytest.mark.parametrize("push", ["true", "false"], ids=["push", "no_push"])
def test_spark_variant_shredding_case(spark, files, push, vectorized, name):
    case = CASES[name]
    settings = {PUSH_VARIANT_INTO_SCAN: push, "spark.sql.parquet.enableVectorizedReader": vectorized,
                **case.confs}
    with confs(spark, settings):
        stock = outcome(spark, files[case.table], case.expr, enabled=False)
        ext = outcome(spark, files[case.table], case.expr, enabled=True)
    if (push, name) in DECIDED:
        assert "MALFORMED_VARIANT" in stock.error_classes, f"stock Spark no longer raises: {stock}"
        assert ext.error is None, f"the extension raises: {ext.error[:1500]}"
        if DECIDED[(push, name)] == SPEC_NULL:
            # the missing value reads as a variant null (a path read of one gives SQL NULL)
            assert ext.rows and all("null" in row or "None" in row for row in ext.rows), ext.rows
        return
    assert_same_outcome(stock, ext)
