"""Scans reading a small share of their files run as fewer tasks (NarrowReadPacking).

Spark sizes scan tasks by whole-file bytes; the extension estimates the bytes a scan actually
reads from footers and applies Spark's own split rule to those. The rows, and their order, must
not change; a scan reading most of each file keeps Spark's splits.
"""
from __future__ import annotations

import random
import string

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from tests.support.differential import ENABLED, confs
from tests.support.modes import in_modes
from pyspark_ext import settings

PACK = settings.PACK_NARROW_READS
FILES = 8
PADS = 20
# At least one split per file with Spark's rule (files of about 1 MB, 1 MB splits, little open cost).
SPLITS = {"spark.sql.files.maxPartitionBytes": str(1 << 20), "spark.sql.files.openCostInBytes": "4096"}


@pytest.fixture(scope="module")
def wide(spark: SparkSession, tmp_path_factory) -> str:
    """Files whose struct holds one small number and many long random strings."""
    root = tmp_path_factory.mktemp("narrow_reads")
    rng = random.Random(7)
    fields = [("a", pa.int64())] + [(f"pad{j}", pa.string()) for j in range(PADS)]
    for f in range(FILES):
        rows = [{"a": f * 1000 + i, **{f"pad{j}": "".join(rng.choices(string.ascii_letters, k=60))
                                       for j in range(PADS)}} for i in range(800)]
        pq.write_table(pa.table({"k": [f * 1000 + i for i in range(800)],
                                 "s": pa.array(rows, type=pa.struct(fields))}),
                       str(root / f"part-{f}.parquet"))
    spark.read.parquet(str(root)).createOrReplaceTempView("narrow_wide")
    return "narrow_wide"


def _tasks_and_rows(spark: SparkSession, sql: str) -> tuple[int, list]:
    df = spark.sql(sql)
    return df.rdd.getNumPartitions(), df.collect()


def test_a_narrow_read_runs_as_fewer_tasks_with_the_same_rows(spark: SparkSession, wide: str) -> None:
    sql = f"SELECT k, s.a FROM {wide}"
    with confs(spark, SPLITS):
        modes = in_modes(spark, PACK, lambda: _tasks_and_rows(spark, sql))
    (packed, rows), (split, unpacked_rows), (stock, stock_rows) = modes.on, modes.off, modes.stock
    assert split == stock >= FILES
    # Two cores, one wave: the minimum number of partitions is the default parallelism.
    assert packed == spark.sparkContext.defaultParallelism
    # Consecutive splits are grouped, so even the order of the rows is Spark's.
    assert rows == unpacked_rows == stock_rows
    assert len(rows) == FILES * 800


def test_a_wide_read_keeps_sparks_splits(spark: SparkSession, wide: str) -> None:
    pads = ", ".join(f"s.pad{j}" for j in range(PADS))
    sql = f"SELECT k, s.a, {pads} FROM {wide}"
    with confs(spark, SPLITS):
        tasks, rows = _tasks_and_rows(spark, sql)
        with confs(spark, {ENABLED: "false"}):
            stock, stock_rows = _tasks_and_rows(spark, sql)
    assert tasks == stock >= FILES
    assert rows == stock_rows


def test_an_aggregate_over_packed_splits(spark: SparkSession, wide: str) -> None:
    sql = f"SELECT count(*), sum(s.a), min(k) FROM {wide} WHERE s.a % 3 = 0"
    with confs(spark, SPLITS):
        on = spark.sql(sql).collect()
        with confs(spark, {ENABLED: "false"}):
            stock = spark.sql(sql).collect()
    assert on == stock
    assert on[0][0] == len([x for f in range(FILES) for x in range(f * 1000, f * 1000 + 800) if x % 3 == 0])
