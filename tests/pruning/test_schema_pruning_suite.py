"""Spark's SchemaPruningSuite as a differential battery (cases in tests/support/battery/schema_pruning_cases.py).

Every case runs over Parquet and ORC, DSv1 and DSv2, each with its vectorized and its row-by-row
reader, and over both layouts of ``contacts`` (see SETTINGS). With the extension on, a case must give the same
rows as stock Spark, fail only where stock Spark fails, read no more leaves than stock Spark, and
keep the executed plan's output names.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext import jar
from tests.support.battery.schema_pruning_cases import (
    CASES, LAYOUTS, SUITE_CONFS, VARIANTS, Variant, _variant, register_views, write_tables)
from tests.support import line_share
from tests.support.differential import ENABLED, confs

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Outcome:
    rows: list[str] | None
    leaves: int
    read_schemas: list[str]
    output: str  # the executed plan's output schema, names included
    error: str | None = None


def outcome(spark: SparkSession, sql: str, enabled: bool) -> Outcome:
    with confs(spark, {ENABLED: str(enabled).lower()}):
        try:
            df = spark.sql(sql)
            rows = sorted(repr(tuple(r)) for r in df.collect())
            scans = pyspark_ext.explain_read_schema(df)
            output = df._jdf.queryExecution().executedPlan().schema().catalogString()
        except Exception as e:  # noqa: BLE001 - a failure is an outcome to compare
            return Outcome(None, 0, [], "", error=error_line(e))
    return Outcome(rows, sum(s["read_leaves"] for s in scans),
                   sorted(s["read_schema"] for s in scans), output)


def error_line(e: Exception) -> str:
    """The JVM exception and its root cause, when there is one, else the first line."""
    java = getattr(e, "java_exception", None)
    if java is None:
        return str(e).splitlines()[0]
    root = java
    while root.getCause() is not None:
        root = root.getCause()
    return f"{java.toString()[:300]} (root cause: {root.toString()[:300]})"


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory) -> dict[str, dict[str, str]]:
    root = tmp_path_factory.mktemp("schema_pruning_suite")
    return {fmt: write_tables(spark, f"{root}/{fmt}", fmt) for fmt in ("parquet", "orc")}


_views_for: list[tuple[str, str]] = []


def views(spark: SparkSession, tables: dict[str, dict[str, str]], v: Variant, layout: str) -> None:
    """Registers the views for this variant and layout, unless the last case already did (schema
    inference and file listing are most of a case's time)."""
    if _views_for != [(v.name, layout)]:
        register_views(spark, v.fmt, tables[v.fmt], LAYOUTS[layout])
        _views_for[:] = [(v.name, layout)]


# Every variant over the partitioned layout; the layout with ``p`` also in the files (which only
# changes how DSv1 scans split data and partition columns) over the DSv1 variants of each format.
SETTINGS = [(v, "partitioned") for v in VARIANTS] + [
    (v, "p_in_files") for v in ("parquet_v1_vectorized", "parquet_v1_parquet_mr", "orc_v1_vectorized")]
# On the other Spark lines (.ci/run-lines), the Parquet readers whose code differs between lines:
# DSv1 with each reader (the row-by-row one is where Spark's pruning switch matters) and DSv2
# (the relation copy is a shim).
LINE_SETTINGS = [(v, "partitioned") for v in
                 ("parquet_v1_vectorized", "parquet_v1_parquet_mr", "parquet_v2_vectorized")]


def complement(variant: str) -> str:
    """The variant that differs from ``variant`` in format, source version and reader at once."""
    v = VARIANTS[variant]
    v2 = v.confs["spark.sql.sources.useV1SourceList"] == ""
    vectorized = v.confs[f"spark.sql.{v.fmt}.enableVectorizedReader"] == "true"
    return _variant("orc" if v.fmt == "parquet" else "parquet", not v2, not vectorized).name


def runs(line: str) -> list[tuple[str, str, str]]:
    """(variant, layout, case) triples: on the newest line, case ``i`` runs under setting ``i`` mod
    11 and under that setting's complement (the other format, source version and reader), so each
    case meets both formats, both source versions and both kinds of reader, and every setting runs
    8 to 25 cases (pairwise test design, at a fifth of the full product's time). On 3.5 every case
    runs, case ``i`` under Parquet reader ``i`` mod 3; 4.0, 4.1 and 4.2 share the cases out
    (``tests.support.line_share``), each line running its share under the three readers in turn.
    Sorted by setting, so that consecutive cases reuse the views. ``PYSPARK_EXT_FULL_MATRIX=1`` runs
    the full product on every line (docs/development.md)."""
    names = list(CASES)
    if line_share.full_matrix():
        settings = SETTINGS if line == jar.SUPPORTED_LINES[-1] else LINE_SETTINGS
        triples = [(v, lay, n) for v, lay in settings for n in names]
    elif line == jar.SUPPORTED_LINES[-1]:
        triples = []
        for i, n in enumerate(names):
            v, lay = SETTINGS[i % len(SETTINGS)]
            triples += [(v, lay, n), (complement(v), "partitioned", n)]
    elif line in line_share.PRUNING:
        group = len(line_share.PRUNING)
        triples = [(*LINE_SETTINGS[(i // group) % len(LINE_SETTINGS)], n) for i, n in enumerate(names)
                   if line_share.runs_here(i, line_share.PRUNING, line)]
    else:
        triples = [(*LINE_SETTINGS[i % len(LINE_SETTINGS)], n) for i, n in enumerate(names)]
    order = {s: k for k, s in enumerate(SETTINGS)}
    position = {n: k for k, n in enumerate(names)}
    return sorted(triples, key=lambda t: (order[(t[0], t[1])], position[t[2]]))


RUNS = runs(jar.spark_line())


@pytest.mark.parametrize("variant,layout,name", RUNS, ids=[f"{v}-{lay}-{n}" for v, lay, n in RUNS])
def test_spark_schema_pruning_case(spark, tables, variant, layout, name):
    case, v = CASES[name], VARIANTS[variant]
    with confs(spark, {**SUITE_CONFS, **v.confs, **case.confs}):
        views(spark, tables, v, layout)
        for statement in case.setup:
            spark.sql(statement)
        stock = outcome(spark, case.sql, enabled=False)
        ext = outcome(spark, case.sql, enabled=True)
    if stock.error is not None:
        assert ext.error is not None, f"stock Spark fails ({stock.error}), the extension does not"
        return
    assert ext.error is None, f"fails with the extension on, not without: {ext.error}"
    if case.same_rows:
        assert ext.rows == stock.rows
    assert ext.leaves <= stock.leaves, (
        f"reads more than stock Spark: {ext.read_schemas} vs {stock.read_schemas}")
    assert ext.output == stock.output
