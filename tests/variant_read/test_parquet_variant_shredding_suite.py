"""Spark's ParquetVariantShreddingSuite as a differential battery (cases in
tests/support/battery/parquet_variant_shredding_cases.py).

Each table is written by Spark's shredding writer with the extension off and on (the files must
have the same Parquet schema, the one the suite expects), then each check is read from both with
the extension off and on, under both Parquet readers, with the settings the suite reads under
(``spark.sql.parquet.ignoreVariantAnnotation`` for the physical structs; see the cases' module).
With the extension on it must give stock Spark's rows (and the suite's own answer where it states
one), fail only where stock Spark fails with the same error class, and read no more leaves than
stock Spark.
"""
from __future__ import annotations

import glob
import re
from dataclasses import dataclass

import pyarrow.parquet as pq
import pytest
from pyspark.sql import DataFrame, SparkSession

import pyspark_ext
from pyspark_ext.spark_shredding import FORCED_SCHEMA, WRITE_SHREDDING, spark_shredding
from tests.support.battery.outcomes import assert_same_outcome
from tests.support.battery.parquet_variant_shredding_cases import CHECKS, SOURCE, WRITES, Check
from tests.support.differential import ENABLED, confs
from tests.support.rows import row_strings

pytestmark = pytest.mark.slow

ERROR_CLASS = re.compile(r"\[([A-Z_][A-Z0-9_]*(?:\.[A-Z0-9_]+)?)\]")
# Spark's vectorized reader refusing a VARIANT-annotated group read as a struct: an
# AnalysisException whose message does not name its class (_LEGACY_ERROR_TEMP_3071).
INVALID_READ_TYPE = "Invalid Spark read type"
WRITERS = {"stock_writer": "false", "extension_writer": "true"}


@dataclass(frozen=True)
class Outcome:
    rows: list[str] | None
    leaves: int = 0
    read_schemas: tuple[str, ...] = ()
    error: str | None = None

    @property
    def error_classes(self) -> set[str]:
        found = set(ERROR_CLASS.findall(self.error or "")) - {"FAILED_READ_FILE.NO_HINT"}
        return found | {"_LEGACY_ERROR_TEMP_3071"} if INVALID_READ_TYPE in (self.error or "") else found


def frame(spark: SparkSession, path: str, check: Check) -> DataFrame:
    full = WRITES[check.write].full_schema
    reader = spark.read.schema(full) if check.read == "physical" else spark.read
    return reader.parquet(path).selectExpr(*[e.strip() for e in _split(check.expr)])


def _split(expr: str) -> list[str]:
    """Top-level comma-separated expressions (commas inside brackets stay)."""
    parts, depth, cur = [], 0, ""
    for ch in expr:
        depth += ch in "([<"
        depth -= ch in ")]>"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def outcome(spark: SparkSession, path: str, check: Check, enabled: bool) -> Outcome:
    with confs(spark, {ENABLED: str(enabled).lower(), **check.read_confs()}):
        try:
            # Built under each setting: a DataFrame keeps the plan analyzed when it was made.
            df = frame(spark, path, check)
            rows = row_strings(df.collect())
            scans = pyspark_ext.explain_read_schema(df)
            return Outcome(rows, sum(s["read_leaves"] for s in scans),
                           tuple(sorted(s["read_schema"] for s in scans)))
        except Exception as e:  # noqa: BLE001 - a failure is an outcome to compare
            return Outcome(None, error=str(e))


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory) -> dict[tuple[str, str], str]:
    """(write, writer) -> the directory written, by Spark's writer with the extension off or on."""
    root = tmp_path_factory.mktemp("parquet_variant_shredding_suite")
    paths = {}
    for name, w in WRITES.items():
        for writer, enabled in WRITERS.items():
            path = str(root / f"{name}_{writer}")
            with confs(spark, {ENABLED: enabled}), _shredding(spark, w.shredding_schema):
                spark.sql(w.query).write.mode("overwrite").parquet(path)
            paths[name, writer] = path
    return paths


def _shredding(spark: SparkSession, schema: str | None):
    """Spark's shredding writer on, with the suite's forced schema passed as the suite passes it
    (``array<int>`` is a whole type, not a struct's fields), or with no forced schema."""
    if schema is None:
        return spark_shredding(spark, True)
    return confs(spark, {WRITE_SHREDDING: "true", FORCED_SCHEMA: schema})


def _parquet_schema(path: str) -> list[str]:
    return sorted({str(pq.read_schema(f)) for f in glob.glob(f"{path}/*.parquet")})


@pytest.mark.parametrize("name", list(WRITES))
def test_written_files_shred_as_the_suite_expects(spark, tables, name):
    w = WRITES[name]
    stock, ext = (_parquet_schema(tables[name, writer]) for writer in WRITERS)
    assert stock and ext == stock, "the extension changes what Spark's shredding writer writes"
    if w.full_schema is None:
        return
    # The suite's check that the files hold the shredded struct: reading them under the full
    # physical schema gives every field (a missing field would read as all nulls).
    want = spark.createDataFrame([], w.full_schema).schema
    for writer in WRITERS:
        got = spark.read.schema(w.full_schema).parquet(tables[name, writer]).schema
        assert got == want
    for leaf in ("typed_value", "metadata", "value"):
        assert all(leaf in s for s in stock if leaf in w.full_schema), stock


def _expected(spark: SparkSession, check: Check) -> list[str] | None:
    w = WRITES[check.write]
    if check.expected is None:
        return None
    with spark_shredding(spark, False):
        source = spark.sql(w.query)
        if check.expected == SOURCE:
            return row_strings(source.selectExpr(*_split(check.expr)).collect())
        if isinstance(check.expected, tuple) and check.expected[0] == "metadata":
            # A BINARY column collects as bytes; VariantVal.metadata is a bytearray.
            return row_strings([(bytes(r[0].metadata),)
                                for r in source.selectExpr(check.expected[1]).collect()])
    return row_strings(check.expected)


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("vectorized", ["true", "false"], ids=["vectorized", "parquet_mr"])
@pytest.mark.parametrize("writer", list(WRITERS))
def test_spark_parquet_variant_shredding_case(spark, tables, writer, vectorized, name):
    check = CHECKS[name]
    path = tables[check.write, writer]
    with confs(spark, {"spark.sql.parquet.enableVectorizedReader": vectorized}):
        stock = outcome(spark, path, check, enabled=False)
        ext = outcome(spark, path, check, enabled=True)
    if not assert_same_outcome(stock, ext):
        return
    # Stock Spark's push-down reads a VARIANT column as a struct of paths that counts as one leaf,
    # so leaves compare only where the files are read under their physical schema.
    assert check.read != "physical" or ext.leaves <= stock.leaves, (
        f"the extension reads more leaves: {ext.read_schemas} vs {stock.read_schemas}")
    expected = _expected(spark, check)
    if expected is not None:
        assert stock.rows == expected, "stock Spark does not give the suite's answer"
