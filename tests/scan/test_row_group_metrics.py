"""The row-group SQL metrics: a ``RowGroupMetrics`` node above each Parquet scan that pushes
filters counts, while the query runs, the row groups the scan read and skipped.

The table is 2,000 rows sorted by ``k`` in 100-row row groups, so a range on ``k`` keeps a known
number of groups. The run-time counts must equal the statistics-based counts of
``explain_read_schema``, the rows must equal the extension-off rows, and the node must not change
the plan otherwise (exchange reuse still happens).
"""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext import settings
from tests.support.differential import ENABLED, confs
from tests.support.modes import outcome

ROWS, GROUP = 2000, 100
METRICS = settings.ROW_GROUP_METRICS


@pytest.fixture(autouse=True)
def _all_scans(spark: SparkSession):
    # Metrics are opt-in; a plain table's scans are counted only with allScans.
    with confs(spark, {settings.ROW_GROUP_METRICS_ALL_SCANS: "true", METRICS: "true"}):
        yield


@pytest.fixture(scope="module")
def table(spark: SparkSession, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("row_group_metrics") / "t.parquet")
    k = list(range(ROWS))
    pq.write_table(pa.table({"k": k, "s": [{"a": i % 7, "b": f"x{i}"} for i in k]}), path,
                   row_group_size=GROUP)
    return path


def _run(spark: SparkSession, sql: str) -> tuple[list[str], list[dict], str]:
    ran = outcome(spark, sql, scans=True)
    return ran.rows, ran.scans, ran.plan


@pytest.mark.parametrize("where,groups", [
    ("k BETWEEN 250 AND 449", 3),
    ("k = 1999", 1),
    ("k < 0", 0),
    ("k >= 0", ROWS // GROUP),
    ("s.a = 3 AND k < 500", 5),
    ("k IN (5, 1005, 1905)", 3),
])
def test_metrics_count_what_statistics_keep(spark: SparkSession, table: str, where: str,
                                            groups: int) -> None:
    sql = f"SELECT k, s.b FROM parquet.`{table}` WHERE {where}"
    rows, scans, plan = _run(spark, sql)
    with confs(spark, {ENABLED: "false"}):
        off_rows, off_scans, off_plan = _run(spark, sql)
    assert rows == off_rows
    (scan,) = scans
    assert scan["row_groups_read_metric"] == groups == scan["row_groups_read"]
    assert scan["row_groups_skipped_metric"] == ROWS // GROUP - groups
    assert "RowGroupMetrics" in plan
    assert "RowGroupMetrics" not in off_plan and "row_groups_read_metric" not in off_scans[0]


def test_metrics_count_again_on_every_run(spark: SparkSession, table: str) -> None:
    df = spark.sql(f"SELECT count(*) FROM parquet.`{table}` WHERE k < 150")
    for _ in range(2):
        assert df.collect()[0][0] == 150
        (scan,) = pyspark_ext.explain_read_schema(df)
        assert (scan["row_groups_read_metric"], scan["row_groups_skipped_metric"]) == (2, 18)


def test_metrics_are_off_by_default(spark: SparkSession, table: str) -> None:
    spark.conf.unset(METRICS)
    try:
        _, (scan,), plan = _run(spark, f"SELECT k FROM parquet.`{table}` WHERE k < 150")
    finally:
        spark.conf.set(METRICS, "true")
    assert "RowGroupMetrics" not in plan and "row_groups_read_metric" not in scan


def test_switch_and_unfiltered_scans(spark: SparkSession, table: str) -> None:
    for off in ({METRICS: "false"}, {settings.ROW_GROUP_METRICS_ALL_SCANS: "false"}):
        with confs(spark, off):
            _, (scan,), plan = _run(spark, f"SELECT k FROM parquet.`{table}` WHERE k < 150")
        assert "RowGroupMetrics" not in plan and "row_groups_read_metric" not in scan
    _, (scan,), plan = _run(spark, f"SELECT k FROM parquet.`{table}`")
    assert "RowGroupMetrics" not in plan and "row_groups_read_metric" not in scan


def test_exchange_reuse_is_kept(spark: SparkSession, table: str) -> None:
    sql = (f"SELECT a.k, b.s.b FROM parquet.`{table}` a JOIN parquet.`{table}` b ON a.k = b.k "
           f"WHERE a.k < 300 UNION ALL SELECT a.k, b.s.b FROM parquet.`{table}` a "
           f"JOIN parquet.`{table}` b ON a.k = b.k WHERE a.k < 300")
    with confs(spark, {"spark.sql.autoBroadcastJoinThreshold": "-1"}):
        rows, scans, plan = _run(spark, sql)
        with confs(spark, {METRICS: "false"}):
            off_rows, _, off_plan = _run(spark, sql)
    assert rows == off_rows and len(rows) == 600
    assert off_plan.count("Reused") > 0
    assert plan.count("Reused") == off_plan.count("Reused")
    assert all(s["row_groups_read_metric"] == 3 for s in scans if "row_groups_read_metric" in s)
