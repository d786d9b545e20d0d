"""Spark's own nested pruning switch, ``spark.sql.optimizer.nestedSchemaPruning.enabled``: with it
off, the extension prunes no scan either, so every reader reads what stock Spark reads.

The readers depend on the switch too: with it off, Parquet's row-by-row reader does not intersect
the requested schema with each file's, so a pruned struct that some files lack would fail the read.
``contacts`` has such files (p=2 lacks ``name.middle``, ``friends`` and ``relatives``)."""
from __future__ import annotations

import pytest

from tests.support.battery.schema_pruning_cases import LAYOUTS, SUITE_CONFS, VARIANTS, register_views, write_tables
from tests.support.differential import confs, run

OFF = {"spark.sql.optimizer.nestedSchemaPruning.enabled": "false"}
QUERIES = [
    "select name.middle from contacts",
    "select id, friends.first from contacts",
    "select relatives['brother'].last from contacts",
    "select name.first from contacts where employer.company.name = 'abc'",
]


@pytest.fixture(scope="module")
def contacts(spark, tmp_path_factory) -> dict[str, dict[str, str]]:
    root = tmp_path_factory.mktemp("pruning_switch")
    return {fmt: write_tables(spark, f"{root}/{fmt}", fmt) for fmt in ("parquet", "orc")}


@pytest.mark.parametrize("sql", QUERIES)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_spark_switch_off_reads_what_stock_reads(spark, contacts, variant, sql):
    v = VARIANTS[variant]
    with confs(spark, {**SUITE_CONFS, **v.confs, **OFF}):
        register_views(spark, v.fmt, contacts[v.fmt], LAYOUTS["partitioned"])
        stock = run(spark, sql, enabled=False)
        ext = run(spark, sql, enabled=True)
    assert ext.rows == stock.rows
    assert ext.read_schemas == stock.read_schemas


def test_spark_switch_on_still_prunes(spark, contacts):
    v = VARIANTS["parquet_v1_parquet_mr"]
    with confs(spark, {**SUITE_CONFS, **v.confs}):
        register_views(spark, v.fmt, contacts[v.fmt], LAYOUTS["partitioned"])
        ext = run(spark, "select relatives['brother'].last from contacts", enabled=True)
    assert ext.read_schemas == ["struct<relatives:map<string,struct<last:string>>>"]
